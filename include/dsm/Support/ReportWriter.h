//===- ReportWriter.h - Reports to stdout or to a file ----------*- C++ -*-===//

#ifndef DSM_SUPPORT_REPORTWRITER_H
#define DSM_SUPPORT_REPORTWRITER_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/FunctionExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <system_error>
#include <vector>

namespace dsm {

/// Output format of the report passes.
/// Output format of the report passes (Strategy: the spatial mapping's
/// strategy file, StrategyFile.h).
enum class ReportFormat { Table, JSON, HTML, CSV, Strategy };

/// Prints a report, or one form of it, to a stream.
using ReportPrinter = llvm::function_ref<void(llvm::raw_ostream &)>;

/// Writes what `print` produces to stdout (`path` = "-" or empty) or to
/// `path`, for every report, summary and trace the tools write. Nothing is
/// written if printing fails. A symbolic link is written through to its
/// target; a FIFO or device is written straight to (never replaced); a
/// regular file with other hard links is rewritten in place; any other
/// regular file is replaced atomically, keeping its mode (and owner when
/// permitted). Errors (a full device, a dangling link) are emitted at `loc`.
mlir::LogicalResult
writeReport(llvm::StringRef path, mlir::Location loc,
            llvm::function_ref<void(llvm::raw_ostream &)> print);

/// While an instance lives, what writeReport would print to standard output
/// ("-") is appended to `sink` instead: the C API (and the Python package on
/// it) returns reports as strings. Process-wide, not per thread: the passes
/// that write reports may run on any thread of the context's pool; the C API
/// serializes its calls. Instances nest.
class ReportCapture {
public:
  explicit ReportCapture(std::string &sink);
  ~ReportCapture();
  ReportCapture(const ReportCapture &) = delete;
  ReportCapture &operator=(const ReportCapture &) = delete;

private:
  std::string *previous;
};

/// While an instance lives, the reports writeReport writes to files are kept
/// back until commit(): a tool writes them only once its whole pipeline has
/// succeeded, its own output included (or, as dsm-opt does, when a search
/// ended by a signal has reported its best so far), so that a failure or a
/// signal after a report pass leaves no report of a run that did not
/// finish. A file to
/// replace is written beside it at once (no large report waits in memory;
/// a full disk is still an error at the pass) and renamed into place on
/// commit; what is written in place (a FIFO, a device, a file with other
/// hard links) waits as text. Without commit nothing is written, and the
/// files beside are removed, also when a signal ends the process. Standard
/// output is not kept back. Process-wide, as ReportCapture.
class DeferredReports {
public:
  DeferredReports();
  ~DeferredReports();
  DeferredReports(const DeferredReports &) = delete;
  DeferredReports &operator=(const DeferredReports &) = delete;

  /// Writes the reports kept back, in the order they were written; an
  /// error names the file on stderr. False if any could not be written.
  bool commit();

  struct Held;

private:
  std::vector<Held> held;
  std::vector<Held> *previous;
};

/// Whether two paths name one file: the same text (both `-` included), or
/// paths that lead to one file, existing (a link, a hard link, `./r`:
/// llvm::sys::fs::equivalent) or not yet (the same name in one directory,
/// its directory resolved).
bool namesSameFile(llvm::StringRef a, llvm::StringRef b);

/// While an instance lives, the files no report may be written to: the
/// tool's own input and output (dsm-opt's model and `-o`, the C API's model
/// file), and every file a report has been written to while it lives (two
/// reports of one run naming one file: the second would replace the
/// first). A report naming one of them (`report=`, `trace=`, `output=`; by
/// the same name, a link or a hard link, namesSameFile) is an error at the
/// pass naming both, and nothing is written: before, the report replaced
/// the IR, the model or the other report. Standard output (`-`) is never
/// protected. Process-wide, as ReportCapture; instances nest (a report
/// protects its file in the innermost).
class ProtectedFiles {
public:
  ProtectedFiles();
  ~ProtectedFiles();
  ProtectedFiles(const ProtectedFiles &) = delete;
  ProtectedFiles &operator=(const ProtectedFiles &) = delete;

  /// Protects `path` (nothing for `-`, empty, or a device or FIFO, which
  /// a report is written into, never replacing it); `what` names it in the
  /// error before its path, e.g. "the output -o" or "the input model".
  void add(llvm::StringRef path, llvm::StringRef what);

  struct File {
    std::string path;
    std::string what;
  };

private:
  std::vector<File> files;
  ProtectedFiles *previous;
};

/// A tool's own output (dsm-opt's `-o`), written where reports would be
/// and kept back as they are: an existing file stays as it was unless the
/// run succeeds (commit), also when the run fails or a signal ends it
/// (before, upstream's output file removed it at once). What is written to
/// a regular file goes to a file beside it (on LLVM's remove-on-signal
/// list), renamed into place by commit, keeping the old mode; a file with
/// other hard links is rewritten in place by commit; a symbolic link is
/// written through; standard output (`-`), a FIFO or a device is written
/// to directly as the tool prints.
class OutputFile {
public:
  /// Opens `path` for writing; null, with why in `error`, if it cannot be.
  static std::unique_ptr<OutputFile> open(llvm::StringRef path,
                                          std::error_code &error);
  /// Without commit: the file beside is removed, the destination untouched.
  ~OutputFile();
  OutputFile(const OutputFile &) = delete;
  OutputFile &operator=(const OutputFile &) = delete;

  llvm::raw_fd_ostream &os() { return *stream; }
  /// Flushes what was printed; the first error of writing (a full disk,
  /// /dev/full), cleared from the stream (a stream destroyed holding an
  /// error aborts the tool).
  std::error_code finish();
  /// Puts the output in its place (after finish succeeded).
  std::error_code commit();

private:
  OutputFile() = default;
  std::unique_ptr<llvm::raw_fd_ostream> stream;
  std::string target; ///< where it goes (a link resolved)
  std::string staged; ///< the file beside, if any
  bool copyInPlace = false;
};

/// A tool's own files for a run over `input` (dsm-opt, dsm-translate):
/// opens its output `output` (OutputFile) and protects the input and the
/// output in `own` from every report of the run. Null, with "`tool`:
/// error: cannot open output file ..." printed, if the output cannot be
/// opened.
std::unique_ptr<OutputFile> openToolOutput(llvm::StringRef tool,
                                           llvm::StringRef input,
                                           llvm::StringRef output,
                                           ProtectedFiles &own);

/// Like writeReport, for a report of figures (cycles, times, bytes): the
/// report's JSON form, which `json` prints, is checked
/// (core::FigureChecker), so that no report, whatever its format, holds
/// `inf`, `nan` or a figure out of range. In `format` JSON that form is
/// what is written, checked as it is written to the file beside its
/// destination and never held whole (a 10,000-layer plan's is 480 MB);
/// only what is written at once (standard output, a FIFO or device, a
/// file with other hard links) is rendered first. In another format, what
/// `print` prints once the JSON form passes. A figure that fails is an
/// error at `loc` naming it, and nothing is written.
mlir::LogicalResult writeFigureReport(llvm::StringRef path, mlir::Location loc,
                                      ReportFormat format, ReportPrinter json,
                                      ReportPrinter print = {});

/// The placement searches' report (memory and device placement): `json`,
/// and `csv` or `table` as `format` asks, through writeFigureReport;
/// nothing when `path` is empty. Then, where the search was `interrupted`,
/// the error saying whether its best so far was reported.
mlir::LogicalResult writePlacementReport(llvm::StringRef path,
                                         mlir::Location loc,
                                         ReportFormat format,
                                         ReportPrinter json, ReportPrinter csv,
                                         ReportPrinter table, bool interrupted);

} // namespace dsm

#endif // DSM_SUPPORT_REPORTWRITER_H

//===- ReportWriter.h - Reports to stdout or to a file ----------*- C++ -*-===//

#ifndef DSM_SUPPORT_REPORTWRITER_H
#define DSM_SUPPORT_REPORTWRITER_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/FunctionExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace dsm {

/// Output format of the report passes.
enum class ReportFormat { Table, JSON, HTML, CSV };

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

/// Like writeReport, for a report of figures (cycles, times, bytes): the
/// report's JSON form, which `json` prints, is checked first
/// (core::checkReportFigures), so that no report, whatever its format,
/// holds `inf`, `nan` or a figure out of range. In `format` JSON that form
/// is what is written (rendered once: a 10,000-layer plan's is large); in
/// another, what `print` prints. A figure that fails is an error at `loc`
/// naming it, and nothing is written.
mlir::LogicalResult writeFigureReport(llvm::StringRef path, mlir::Location loc,
                                      ReportFormat format, ReportPrinter json,
                                      ReportPrinter print = {});

} // namespace dsm

#endif // DSM_SUPPORT_REPORTWRITER_H

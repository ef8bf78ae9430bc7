//===- ReportWriter.cpp - Every file the tools write ----------------------===//
//
// One helper for reports, summaries and traces. The report is rendered into
// memory first, so a failure while producing it writes nothing; then it goes
// to its destination the way that destination needs:
//   - "-": standard output;
//   - a symbolic link: written through to its target, the link stays;
//   - a FIFO, a character device, anything not a regular file: written
//     straight to it (replacing /dev/null with a regular file, as a rename
//     would, is exactly what must never happen);
//   - an existing regular file with other hard links: rewritten in place, so
//     every link sees the new report;
//   - otherwise: a temporary file beside the destination, given the old
//     file's mode (and owner, where permitted), renamed into place: readers
//     see the old report or the new one, never half of it.
// A report of figures (writeFigureReport) is checked first: its JSON form
// must hold only finite numbers, and times, cycles and bytes in range
// (core::checkReportFigures).
//
//===----------------------------------------------------------------------===//

#include "dsm/Support/ReportWriter.h"
#include "dsm/Core/Support/ReportFigures.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"

#include <sys/stat.h>
#include <unistd.h>

using namespace mlir;
namespace fs = llvm::sys::fs;

/// Writes all of `text` to `fd`, reporting the first error.
static std::error_code writeAll(int fd, llvm::StringRef text) {
  llvm::raw_fd_ostream os(fd, /*shouldClose=*/false);
  os << text;
  os.flush();
  std::error_code ec = os.error();
  os.clear_error();
  return ec;
}

/// Writes into the existing file itself (same inode): a device or FIFO as
/// it is, a regular file truncated first.
static std::error_code writeInPlace(llvm::StringRef path, llvm::StringRef text,
                                    bool truncate) {
  int fd;
  fs::CreationDisposition disposition =
      truncate ? fs::CD_CreateAlways : fs::CD_OpenExisting;
  if (std::error_code ec =
          fs::openFileForWrite(path, fd, disposition, fs::OF_None))
    return ec;
  std::error_code ec = writeAll(fd, text);
  if (::close(fd) != 0 && !ec)
    ec = std::error_code(errno, std::generic_category());
  return ec;
}

/// Writes `text` to a temporary file beside `path` (`tempPath`), with the
/// mode and owner of the file it is to replace.
static std::error_code writeBeside(llvm::StringRef path, llvm::StringRef text,
                                   const struct stat *existing,
                                   llvm::SmallVectorImpl<char> &tempPath) {
  llvm::SmallString<128> model(path);
  model += ".tmp-%%%%%%";
  int fd;
  unsigned mode = existing ? unsigned(existing->st_mode & 07777)
                           : unsigned(fs::all_read | fs::all_write);
  if (std::error_code ec =
          fs::createUniqueFile(model, fd, tempPath, fs::OF_None, mode))
    return ec;
  std::error_code ec = writeAll(fd, text);
  if (!ec && existing) {
    // createUniqueFile applied the umask; the report keeps the old mode.
    if (::fchmod(fd, existing->st_mode & 07777) != 0)
      ec = std::error_code(errno, std::generic_category());
    // Only root may give a file away; others keep their own ownership.
    if (!ec &&
        (existing->st_uid != ::geteuid() || existing->st_gid != ::getegid()))
      (void)::fchown(fd, existing->st_uid, existing->st_gid);
  }
  if (::close(fd) != 0 && !ec)
    ec = std::error_code(errno, std::generic_category());
  if (ec)
    fs::remove(tempPath);
  return ec;
}

/// Writes a temporary file beside `path` and renames it into place, keeping
/// the mode and owner of the file it replaces.
static std::error_code writeAtomically(llvm::StringRef path,
                                       llvm::StringRef text,
                                       const struct stat *existing) {
  llvm::SmallString<128> tempPath;
  if (std::error_code ec = writeBeside(path, text, existing, tempPath))
    return ec;
  std::error_code ec = fs::rename(tempPath, path);
  if (ec)
    fs::remove(tempPath);
  return ec;
}

/// A file report kept back until DeferredReports::commit: written beside
/// its destination (`staged`), or, where it must be written in place, its
/// text.
struct dsm::DeferredReports::Held {
  std::string path; ///< as given, for messages
  std::string target;
  std::string staged;
  std::string text;
  bool truncate = false;
};

/// The reports kept back while a DeferredReports lives.
static std::vector<dsm::DeferredReports::Held> *heldReports = nullptr;

dsm::DeferredReports::DeferredReports() : previous(heldReports) {
  heldReports = &held;
}

dsm::DeferredReports::~DeferredReports() {
  heldReports = previous;
  for (const Held &report : held)
    if (!report.staged.empty()) {
      fs::remove(report.staged);
      llvm::sys::DontRemoveFileOnSignal(report.staged);
    }
}

bool dsm::DeferredReports::commit() {
  bool written = true;
  for (Held &report : held) {
    std::error_code ec;
    if (!report.staged.empty()) {
      ec = fs::rename(report.staged, report.target);
      if (ec)
        fs::remove(report.staged);
      llvm::sys::DontRemoveFileOnSignal(report.staged);
      report.staged.clear();
    } else {
      ec = writeInPlace(report.target, report.text, report.truncate);
    }
    if (ec) {
      llvm::errs() << "error: cannot write '" << report.path
                   << "': " << ec.message() << "\n";
      written = false;
    }
  }
  held.clear();
  return written;
}

/// Where standard-output reports go while a ReportCapture lives.
static std::string *captureSink = nullptr;

dsm::ReportCapture::ReportCapture(std::string &sink) : previous(captureSink) {
  captureSink = &sink;
}
dsm::ReportCapture::~ReportCapture() { captureSink = previous; }

/// What `print` prints.
static std::string render(llvm::function_ref<void(llvm::raw_ostream &)> print) {
  std::string text;
  // Buffered: reports are written a few bytes at a time (llvm::json quotes
  // a string character by character), and an unbuffered string stream
  // appends to the string on every write.
  llvm::raw_string_ostream os(text);
  os.SetBuffered();
  print(os);
  os.flush();
  return text;
}

/// Writes `text` to `path` ("-" or empty: stdout), as writeReport says.
static LogicalResult writeText(StringRef path, Location loc, StringRef text) {
  if ((path.empty() || path == "-") && captureSink) {
    *captureSink += text;
    return success();
  }
  if (path.empty() || path == "-") {
    llvm::outs() << text;
    llvm::outs().flush();
    return success();
  }

  // Through symbolic links to what they name (the links themselves stay).
  llvm::SmallString<128> target(path);
  if (fs::is_symlink_file(path)) {
    if (std::error_code ec = fs::real_path(path, target))
      return emitError(loc)
             << "cannot write '" << path << "': its link does not resolve ("
             << ec.message() << ")";
  }

  struct stat info;
  std::error_code ec;
  const bool exists = ::stat(target.c_str(), &info) == 0;
  if (!exists && errno != ENOENT)
    ec = std::error_code(errno, std::generic_category());
  else if (heldReports) {
    // Kept back: a file to replace is written beside it now (a large
    // report is not held in memory, and a full disk is an error here);
    // what is written in place waits as text.
    dsm::DeferredReports::Held report{path.str(), target.str().str(), "", "",
                                      false};
    if (exists && (!S_ISREG(info.st_mode) || info.st_nlink > 1)) {
      report.text = text.str();
      report.truncate = S_ISREG(info.st_mode);
    } else {
      llvm::SmallString<128> staged;
      ec = writeBeside(target, text, exists ? &info : nullptr, staged);
      if (!ec) {
        report.staged = staged.str().str();
        // A signal before the commit leaves nothing behind.
        llvm::sys::RemoveFileOnSignal(report.staged);
      }
    }
    if (!ec)
      heldReports->push_back(std::move(report));
  } else if (!exists) {
    ec = writeAtomically(target, text, /*existing=*/nullptr);
  } else if (!S_ISREG(info.st_mode)) {
    ec = writeInPlace(target, text, /*truncate=*/false);
  } else if (info.st_nlink > 1) {
    ec = writeInPlace(target, text, /*truncate=*/true);
  } else {
    ec = writeAtomically(target, text, &info);
  }
  if (ec)
    return emitError(loc) << "cannot write '" << path << "': " << ec.message();
  return success();
}

LogicalResult
dsm::writeReport(StringRef path, Location loc,
                 llvm::function_ref<void(llvm::raw_ostream &)> print) {
  return writeText(path, loc, render(print));
}

LogicalResult dsm::writeFigureReport(StringRef path, Location loc,
                                     ReportFormat format, ReportPrinter json,
                                     ReportPrinter print) {
  const bool asJSON = format == ReportFormat::JSON || !print;
  std::string text = render(asJSON ? json : print);
  llvm::Error error = core::checkReportFigures(asJSON ? text : render(json));
  if (error)
    return emitError(loc) << "cannot write the report: "
                          << llvm::toString(std::move(error));
  return writeText(path, loc, text);
}

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
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"

#include <optional>

#include <pthread.h>
#include <signal.h>

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

/// What a report writes: `write` prints it to a stream, failing when its
/// figures do not pass (checked as they are written, so a large report is
/// never held); `text` gives it whole, checked, where it must be written
/// at once (standard output, a FIFO or device, a file with other links).
struct Content {
  llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write;
  llvm::function_ref<llvm::Expected<std::string>()> text;
};

/// Forgets the temporary file `tempPath`: removed, and no longer on LLVM's
/// remove-on-signal list.
static void discard(llvm::StringRef tempPath) {
  fs::remove(tempPath);
  llvm::sys::DontRemoveFileOnSignal(tempPath);
}

/// Creates a temporary file beside `path` (`tempPath`, open as `fd`), with
/// the mode and owner of the file it is to replace (`existing`), on LLVM's
/// remove-on-signal list from the moment it exists: a SIGTERM or Ctrl-C
/// while it is written leaves nothing beside (issue 46, item 15). Whoever
/// renames it away takes it off the list; discard() removes it.
static std::error_code createBeside(llvm::StringRef path,
                                    const struct stat *existing, int &fd,
                                    llvm::SmallVectorImpl<char> &tempPath) {
  llvm::SmallString<128> model(path);
  model += ".tmp-%%%%%%";
  unsigned mode = existing ? unsigned(existing->st_mode & 07777)
                           : unsigned(fs::all_read | fs::all_write);
  // The signals that end a run are held while the file is created and
  // listed, so that none comes between the two.
  sigset_t ending, previous;
  sigemptyset(&ending);
  for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR2, SIGPIPE})
    sigaddset(&ending, signal);
  pthread_sigmask(SIG_BLOCK, &ending, &previous);
  std::error_code ec =
      fs::createUniqueFile(model, fd, tempPath, fs::OF_None, mode);
  if (!ec)
    llvm::sys::RemoveFileOnSignal(
        llvm::StringRef(tempPath.data(), tempPath.size()));
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (ec)
    return ec;
  if (existing) {
    // createUniqueFile applied the umask; the file keeps the old mode.
    if (::fchmod(fd, existing->st_mode & 07777) != 0)
      ec = std::error_code(errno, std::generic_category());
    // Only root may give a file away; others keep their own ownership.
    if (!ec &&
        (existing->st_uid != ::geteuid() || existing->st_gid != ::getegid()))
      (void)::fchown(fd, existing->st_uid, existing->st_gid);
  }
  if (ec) {
    ::close(fd);
    discard(llvm::StringRef(tempPath.data(), tempPath.size()));
  }
  return ec;
}

/// Writes `content` to a temporary file beside `path` (`tempPath`, on the
/// remove-on-signal list), with the mode and owner of the file it is to
/// replace. A report refused (`refused` set) or an error leaves no file.
static std::error_code writeBeside(llvm::StringRef path, const Content &content,
                                   const struct stat *existing,
                                   llvm::SmallVectorImpl<char> &tempPath,
                                   llvm::Error &refused) {
  int fd;
  if (std::error_code ec = createBeside(path, existing, fd, tempPath))
    return ec;
  std::error_code ec;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/false);
    // `refused` is a success not yet looked at: looked at first, so that
    // LLVM's checked errors (a debug LLVM) let it be replaced.
    llvm::consumeError(std::move(refused));
    refused = content.write(os);
    os.flush();
    ec = os.error();
    os.clear_error();
  }
  if (::close(fd) != 0 && !ec)
    ec = std::error_code(errno, std::generic_category());
  if (ec || refused)
    discard(llvm::StringRef(tempPath.data(), tempPath.size()));
  return ec;
}

/// Writes a temporary file beside `path` and renames it into place, keeping
/// the mode and owner of the file it replaces.
static std::error_code writeAtomically(llvm::StringRef path,
                                       const Content &content,
                                       const struct stat *existing,
                                       llvm::Error &refused) {
  llvm::SmallString<128> tempPath;
  if (std::error_code ec =
          writeBeside(path, content, existing, tempPath, refused))
    return ec;
  if (refused)
    return std::error_code();
  std::error_code ec = fs::rename(tempPath, path);
  if (ec)
    discard(tempPath);
  else
    llvm::sys::DontRemoveFileOnSignal(tempPath);
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
    if (!report.staged.empty())
      discard(report.staged);
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

/// `path` with its directory resolved (links, `.`, `..`); the file itself
/// need not exist. Empty when the directory cannot be resolved.
static std::string resolvedPath(llvm::StringRef path) {
  llvm::SmallString<256> absolute(path);
  if (llvm::sys::fs::make_absolute(absolute))
    return "";
  llvm::SmallString<256> real;
  if (!llvm::sys::fs::real_path(absolute, real))
    return std::string(real);
  llvm::SmallString<256> directory;
  if (llvm::sys::fs::real_path(llvm::sys::path::parent_path(absolute),
                               directory))
    return "";
  llvm::sys::path::append(directory, llvm::sys::path::filename(absolute));
  return std::string(directory);
}

bool dsm::namesSameFile(llvm::StringRef a, llvm::StringRef b) {
  if (a == b)
    return true;
  if (a == "-" || b == "-")
    return false;
  bool same = false;
  if (!llvm::sys::fs::equivalent(a, b, same) && same)
    return true;
  std::string resolvedA = resolvedPath(a);
  return !resolvedA.empty() && resolvedA == resolvedPath(b);
}

/// The files no report may be written to, of every ProtectedFiles alive.
static std::vector<dsm::ProtectedFiles::File> protectedFiles;
/// The ProtectedFiles created last, which the reports written protect.
static dsm::ProtectedFiles *innermostProtected = nullptr;

dsm::ProtectedFiles::ProtectedFiles() : previous(innermostProtected) {
  innermostProtected = this;
}

dsm::ProtectedFiles::~ProtectedFiles() {
  innermostProtected = previous;
  // Instances nest: the last added are this one's.
  protectedFiles.resize(protectedFiles.size() - files.size());
}

void dsm::ProtectedFiles::add(llvm::StringRef path, llvm::StringRef what) {
  if (path.empty() || path == "-")
    return;
  // A device or FIFO (-o /dev/null, a report there too) holds nothing a
  // report could replace.
  fs::file_status status;
  if (!fs::status(path, status) && fs::exists(status) &&
      !fs::is_regular_file(status))
    return;
  files.push_back(File{path.str(), what.str()});
  protectedFiles.push_back(files.back());
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

/// Writes `content` to `path` ("-" or empty: stdout), as writeReport says.
/// A report whose figures do not pass is an error at `loc`, and nothing is
/// written.
static LogicalResult writeContent(StringRef path, Location loc,
                                  const Content &content) {
  auto refusedAt = [&](llvm::Error refused) {
    return emitError(loc) << "cannot write the report: "
                          << llvm::toString(std::move(refused));
  };
  // The whole text, for what is written at once.
  auto whole = [&]() -> std::optional<std::string> {
    llvm::Expected<std::string> text = content.text();
    if (!text) {
      (void)refusedAt(text.takeError());
      return std::nullopt;
    }
    return std::move(*text);
  };
  if (path.empty() || path == "-") {
    std::optional<std::string> text = whole();
    if (!text)
      return failure();
    if (captureSink) {
      *captureSink += *text;
      return success();
    }
    llvm::outs() << *text;
    llvm::outs().flush();
    return success();
  }

  // The tool's own input and output are never replaced by a report.
  for (const dsm::ProtectedFiles::File &file : protectedFiles)
    if (dsm::namesSameFile(path, file.path))
      return emitError(loc)
             << "cannot write the report to '" << path << "': that file is "
             << file.what << " '" << file.path
             << "', which the report would overwrite; give another file";

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
  llvm::Error refused = llvm::Error::success();
  const bool exists = ::stat(target.c_str(), &info) == 0;
  const bool inPlace = exists && (!S_ISREG(info.st_mode) || info.st_nlink > 1);
  std::optional<std::string> text;
  if (inPlace && !(text = whole()))
    return failure();
  if (!exists && errno != ENOENT)
    ec = std::error_code(errno, std::generic_category());
  else if (heldReports) {
    // Kept back: a file to replace is written beside it now (a large
    // report is not held in memory, and a full disk is an error here);
    // what is written in place waits as text.
    dsm::DeferredReports::Held report{path.str(), target.str().str(), "", "",
                                      false};
    if (inPlace) {
      report.text = std::move(*text);
      report.truncate = S_ISREG(info.st_mode);
    } else {
      llvm::SmallString<128> staged;
      ec = writeBeside(target, content, exists ? &info : nullptr, staged,
                       refused);
      // On the remove-on-signal list since it was created: a signal
      // before the commit leaves nothing behind.
      if (!ec && !refused)
        report.staged = staged.str().str();
    }
    if (!ec && !refused)
      heldReports->push_back(std::move(report));
  } else if (inPlace) {
    ec = writeInPlace(target, *text, /*truncate=*/S_ISREG(info.st_mode));
  } else {
    ec = writeAtomically(target, content, exists ? &info : nullptr, refused);
  }
  if (refused)
    return refusedAt(std::move(refused));
  if (ec)
    return emitError(loc) << "cannot write '" << path << "': " << ec.message();
  // No later report of the run replaces this one.
  if (innermostProtected)
    innermostProtected->add(path, "another report of this run");
  return success();
}

/// Passes what is written to `sink` (if any) and to a figure check.
class CheckingStream : public llvm::raw_ostream {
public:
  CheckingStream(dsm::core::FigureChecker &checker, llvm::raw_ostream *sink)
      : checker(checker), sink(sink) {
    SetBufferSize(1 << 16);
  }
  ~CheckingStream() override { flush(); }

private:
  void write_impl(const char *data, size_t size) override {
    checker.feed(llvm::StringRef(data, size));
    if (sink)
      sink->write(data, size);
    written += size;
  }
  uint64_t current_pos() const override { return written; }

  dsm::core::FigureChecker &checker;
  llvm::raw_ostream *sink;
  uint64_t written = 0;
};

LogicalResult
dsm::writeReport(StringRef path, Location loc,
                 llvm::function_ref<void(llvm::raw_ostream &)> print) {
  // Rendered first: a failure while printing writes nothing.
  std::string text = render(print);
  auto write = [&](llvm::raw_ostream &os) {
    os << text;
    return llvm::Error::success();
  };
  auto whole = [&]() -> llvm::Expected<std::string> { return text; };
  return writeContent(path, loc, Content{write, whole});
}

/// Whether the figures of the JSON form `json` prints pass.
static llvm::Error checkFigures(dsm::ReportPrinter json) {
  dsm::core::FigureChecker checker;
  {
    CheckingStream os(checker, /*sink=*/nullptr);
    json(os);
  }
  return checker.finish();
}

LogicalResult dsm::writeFigureReport(StringRef path, Location loc,
                                     ReportFormat format, ReportPrinter json,
                                     ReportPrinter print) {
  const bool asJSON = format == ReportFormat::JSON || !print;
  // The JSON form is checked as it is written (a 10,000-layer plan's is
  // 480 MB: never held); another form is printed once its JSON passes.
  auto write = [&](llvm::raw_ostream &os) -> llvm::Error {
    if (!asJSON) {
      if (llvm::Error refused = checkFigures(json))
        return refused;
      print(os);
      return llvm::Error::success();
    }
    core::FigureChecker checker;
    {
      CheckingStream checking(checker, &os);
      json(checking);
    }
    return checker.finish();
  };
  auto whole = [&]() -> llvm::Expected<std::string> {
    if (llvm::Error refused = checkFigures(json))
      return std::move(refused);
    return render(asJSON ? json : print);
  };
  return writeContent(path, loc, Content{write, whole});
}

LogicalResult dsm::writePlacementReport(StringRef path, Location loc,
                                        ReportFormat format, ReportPrinter json,
                                        ReportPrinter csv, ReportPrinter table,
                                        bool interrupted) {
  if (!path.empty() &&
      failed(writeFigureReport(path, loc, format, json,
                               format == ReportFormat::CSV ? csv : table)))
    return failure();
  if (interrupted)
    return emitError(loc) << "interrupted: the best placement found so far "
                          << (path.empty()
                                  ? "was not written (no report=)"
                                  : "was reported, marked interrupted");
  return success();
}

std::unique_ptr<dsm::OutputFile> dsm::openToolOutput(llvm::StringRef tool,
                                                     llvm::StringRef input,
                                                     llvm::StringRef output,
                                                     ProtectedFiles &own) {
  std::error_code error;
  std::unique_ptr<OutputFile> file = OutputFile::open(output, error);
  if (!file) {
    llvm::errs() << tool << ": error: cannot open output file '" << output
                 << "': " << error.message() << "\n";
    return nullptr;
  }
  own.add(input, "the input model");
  own.add(output, "the output -o");
  return file;
}

std::unique_ptr<dsm::OutputFile> dsm::OutputFile::open(llvm::StringRef path,
                                                       std::error_code &error) {
  std::unique_ptr<OutputFile> output(new OutputFile());
  if (path.empty() || path == "-") {
    output->stream = std::make_unique<llvm::raw_fd_ostream>("-", error);
    if (error)
      return nullptr;
    return output;
  }
  // Through symbolic links to what they name (the links themselves stay).
  llvm::SmallString<128> target(path);
  if (fs::is_symlink_file(path))
    if ((error = fs::real_path(path, target)))
      return nullptr;
  output->target = target.str().str();
  struct stat info;
  const bool exists = ::stat(target.c_str(), &info) == 0;
  if (!exists && errno != ENOENT) {
    error = std::error_code(errno, std::generic_category());
    return nullptr;
  }
  int fd;
  if (exists && !S_ISREG(info.st_mode)) {
    // A FIFO or a device: written to as the tool prints, never replaced.
    if ((error = fs::openFileForWrite(target, fd, fs::CD_OpenExisting,
                                      fs::OF_None)))
      return nullptr;
  } else {
    // Beside it, put in place by commit: renamed, or copied into a file
    // with other hard links (every link sees the new output).
    llvm::SmallString<128> staged;
    if ((error = createBeside(target, exists ? &info : nullptr, fd, staged)))
      return nullptr;
    output->staged = staged.str().str();
    output->copyInPlace = exists && info.st_nlink > 1;
  }
  output->stream =
      std::make_unique<llvm::raw_fd_ostream>(fd, /*shouldClose=*/true);
  return output;
}

dsm::OutputFile::~OutputFile() {
  if (stream) {
    // Whatever failed has been said; a stream destroyed holding an error
    // aborts the tool.
    stream->flush();
    stream->clear_error();
    stream.reset();
  }
  if (!staged.empty())
    discard(staged);
}

std::error_code dsm::OutputFile::finish() {
  stream->flush();
  std::error_code ec = stream->error();
  stream->clear_error();
  return ec;
}

std::error_code dsm::OutputFile::commit() {
  if (std::error_code ec = finish())
    return ec;
  if (staged.empty())
    return std::error_code();
  // Closed first: a file system may report a failed write only then.
  stream->close();
  std::error_code ec = stream->error();
  stream->clear_error();
  stream.reset();
  if (!ec && copyInPlace) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text =
        llvm::MemoryBuffer::getFile(staged, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    ec = text ? writeInPlace(target, (*text)->getBuffer(), /*truncate=*/true)
              : text.getError();
  } else if (!ec) {
    ec = fs::rename(staged, target);
    if (!ec) {
      llvm::sys::DontRemoveFileOnSignal(staged);
      staged.clear();
    }
  }
  return ec;
}

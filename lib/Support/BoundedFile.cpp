//===- BoundedFile.cpp - Every file a reader reads, with a limit ----------===//

#include "dsm/Core/Support/BoundedFile.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace dsm::core;
namespace fs = llvm::sys::fs;

/// "2 GiB (2147483648 bytes)" for the default limit, "N bytes" otherwise.
static std::string describeLimit(uint64_t limit) {
  if (limit == kMaxInputBytes)
    return "2 GiB (" + std::to_string(limit) + " bytes)";
  return std::to_string(limit) + " bytes";
}

static llvm::Error refuse(const llvm::Twine &why) {
  return llvm::createStringError(
      std::make_error_code(std::errc::file_too_large), why);
}

/// Why `info` (of an open file, `fd`) is refused before reading, if it is.
static llvm::Error checkStat(const struct stat &info, int fd, uint64_t limit) {
  if ((S_ISCHR(info.st_mode) && !(fd >= 0 && ::isatty(fd))) ||
      S_ISBLK(info.st_mode))
    return refuse("it is a device, not a file (a device such as /dev/zero "
                  "never ends): inputs are files of at most " +
                  describeLimit(limit));
  if (S_ISREG(info.st_mode) && uint64_t(info.st_size) > limit)
    return refuse("it is " + llvm::Twine(uint64_t(info.st_size)) +
                  " bytes, more than the " + describeLimit(limit) +
                  " an input may have");
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
dsm::core::readBoundedFile(llvm::StringRef path, bool isText,
                           bool requiresNullTerminator, uint64_t limit) {
  const bool stdinput = path == "-";
  int fd = STDIN_FILENO;
  if (!stdinput) {
    if (std::error_code ec =
            fs::openFileForRead(path, fd, isText ? fs::OF_Text : fs::OF_None))
      return llvm::errorCodeToError(ec);
  }
  auto closeFile = [&] {
    if (!stdinput)
      ::close(fd);
  };
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    std::error_code ec(errno, std::generic_category());
    closeFile();
    return llvm::errorCodeToError(ec);
  }
  if (llvm::Error refused = checkStat(info, fd, limit)) {
    closeFile();
    return std::move(refused);
  }
  llvm::StringRef name = stdinput ? llvm::StringRef("<stdin>") : path;
  if (S_ISREG(info.st_mode) && !stdinput) {
    // Of known size: mapped or read by LLVM as before.
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getOpenFile(fs::convertFDToNativeFile(fd), path,
                                        uint64_t(info.st_size),
                                        requiresNullTerminator);
    closeFile();
    if (!buffer)
      return llvm::errorCodeToError(buffer.getError());
    return std::move(*buffer);
  }
  // A stream: read until it ends or passes the limit.
  llvm::SmallVector<char, 0> data;
  constexpr size_t kChunk = size_t(1) << 16;
  while (true) {
    if (uint64_t(data.size()) > limit) {
      closeFile();
      return refuse("it gives more than the " + describeLimit(limit) +
                    " an input may have; reading stopped there");
    }
    size_t start = data.size();
    data.resize_for_overwrite(start + kChunk);
    ssize_t got;
    do
      got = ::read(fd, data.data() + start, kChunk);
    while (got < 0 && errno == EINTR);
    if (got < 0) {
      std::error_code ec(errno, std::generic_category());
      closeFile();
      return llvm::errorCodeToError(ec);
    }
    data.truncate(start + size_t(got));
    if (got == 0)
      break;
  }
  closeFile();
  return llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(data.data(), data.size()), name);
}

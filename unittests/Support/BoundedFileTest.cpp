//===- BoundedFileTest.cpp - Every input read with a limit ----------------===//

#include "dsm/Core/Support/BoundedFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <string>
#include <thread>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace dsm::core;

namespace {

/// A temporary directory removed with its files at the end of the test.
struct TempDir {
  llvm::SmallString<128> path;
  TempDir() {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("bounded", path));
  }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string file(llvm::StringRef name) const {
    return (path + "/" + name).str();
  }
};

void writeFile(const std::string &path, const std::string &text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  ASSERT_FALSE(ec);
  os << text;
}

std::string messageOf(llvm::Error error) {
  return llvm::toString(std::move(error));
}

TEST(BoundedFileTest, ReadsAFileWithinTheLimit) {
  TempDir dir;
  std::string path = dir.file("small.yaml");
  writeFile(path, "name: small\n");
  auto buffer = readBoundedFile(path, /*isText=*/true,
                                /*requiresNullTerminator=*/true, /*limit=*/12);
  ASSERT_TRUE(bool(buffer)) << messageOf(buffer.takeError());
  EXPECT_EQ((*buffer)->getBuffer(), "name: small\n");
  EXPECT_EQ((*buffer)->getBufferIdentifier(), path);
}

TEST(BoundedFileTest, RefusesARegularFilePastTheLimitUnread) {
  TempDir dir;
  std::string path = dir.file("large.yaml");
  writeFile(path, std::string(13, 'x'));
  auto buffer = readBoundedFile(path, true, true, /*limit=*/12);
  ASSERT_FALSE(bool(buffer));
  EXPECT_EQ(messageOf(buffer.takeError()),
            "it is 13 bytes, more than the 12 bytes an input may have");
}

TEST(BoundedFileTest, RefusesADevice) {
  auto buffer = readBoundedFile("/dev/zero");
  ASSERT_FALSE(bool(buffer));
  std::string message = messageOf(buffer.takeError());
  EXPECT_NE(message.find("it is a device, not a file"), std::string::npos);
  EXPECT_NE(message.find("2 GiB (2147483648 bytes)"), std::string::npos);
}

TEST(BoundedFileTest, KeepsTheErrorOfAMissingFile) {
  auto buffer = readBoundedFile("/no/such/file.yaml");
  ASSERT_FALSE(bool(buffer));
  EXPECT_EQ(llvm::errorToErrorCode(buffer.takeError()),
            std::errc::no_such_file_or_directory);
}

/// A FIFO fed `bytes` bytes by a thread: a stream without a size.
void readFifo(size_t bytes, uint64_t limit,
              llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> &result) {
  TempDir dir;
  std::string path = dir.file("fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  // The reader may stop first: the writer then gets EPIPE, not SIGPIPE.
  struct sigaction ignore = {}, previous;
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &previous);
  std::thread writer([&] {
    int fd = ::open(path.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    std::string chunk(4096, 'y');
    for (size_t left = bytes; left > 0;) {
      size_t n = std::min(left, chunk.size());
      ssize_t put = ::write(fd, chunk.data(), n);
      if (put <= 0)
        break; // the reader stopped
      left -= size_t(put);
    }
    ::close(fd);
  });
  result = readBoundedFile(path, true, true, limit);
  writer.join();
  ::sigaction(SIGPIPE, &previous, nullptr);
}

TEST(BoundedFileTest, ReadsAStreamToItsEndWithinTheLimit) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer = nullptr;
  readFifo(100000, /*limit=*/100000, buffer);
  ASSERT_TRUE(bool(buffer)) << messageOf(buffer.takeError());
  EXPECT_EQ((*buffer)->getBufferSize(), 100000u);
}

TEST(BoundedFileTest, StopsAStreamPastTheLimit) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer = nullptr;
  readFifo(300000, /*limit=*/100000, buffer);
  ASSERT_FALSE(bool(buffer));
  EXPECT_EQ(messageOf(buffer.takeError()),
            "it gives more than the 100000 bytes an input may have; reading "
            "stopped there");
}

} // namespace

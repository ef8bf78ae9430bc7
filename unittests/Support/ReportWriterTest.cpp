//===- ReportWriterTest.cpp - Signals while a report is written -----------===//
//
// Issue 46, item 15: a SIGTERM while a report was written left its
// half-written `r.json.tmp-XXXXXX` beside the destination: the file went on
// LLVM's remove-on-signal list only once it was complete. Here the signal
// is raised from inside the report's printer, while the file beside exists,
// in a child process (a death test, forked: the "fast" style, so that the
// child writes into the directory the test looks at): it must die by the
// signal and leave the directory as it was.
//
//===----------------------------------------------------------------------===//

#include "dsm/Support/ReportWriter.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <optional>

namespace fs = llvm::sys::fs;

namespace {

/// The names of the files in `directory`, sorted.
std::vector<std::string> filesIn(llvm::StringRef directory) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(directory, ec), end; it != end && !ec;
       it.increment(ec))
    names.push_back(llvm::sys::path::filename(it->path()).str());
  std::sort(names.begin(), names.end());
  return names;
}

/// When the signal comes.
enum class When { WhileWriting, WhileDeferred };

/// Writes a report to `path` (kept back by a DeferredReports if `deferred`)
/// and raises SIGTERM `when` asked; exits 0 if the signal did not end it,
/// 3 if the file beside was not there when the signal was raised.
[[noreturn]] void terminateWhileReporting(const std::string &path,
                                          bool deferred, When when) {
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  std::optional<dsm::DeferredReports> reports;
  if (deferred)
    reports.emplace();
  llvm::StringRef directory = llvm::sys::path::parent_path(path);
  auto raiseBeside = [&]() {
    if (filesIn(directory).size() != 2) // the old report, the file beside
      std::_Exit(3);
    std::raise(SIGTERM);
  };
  (void)dsm::writeFigureReport(path, mlir::UnknownLoc::get(&context),
                               dsm::ReportFormat::JSON,
                               [&](llvm::raw_ostream &os) {
                                 os << "{\"name\": \"half";
                                 os.flush();
                                 if (when == When::WhileWriting)
                                   raiseBeside();
                                 os << "\"}\n";
                               });
  if (when == When::WhileDeferred)
    raiseBeside();
  std::_Exit(0);
}

class ReportWriterSignalTest : public ::testing::TestWithParam<bool> {
protected:
  void SetUp() override {
    ASSERT_FALSE(fs::createUniqueDirectory("report-writer", directory));
    path = (directory + "/r.json").str();
    std::error_code ec;
    llvm::raw_fd_ostream old(path, ec);
    ASSERT_FALSE(ec);
    old << "old\n";
  }
  void TearDown() override {
    for (const std::string &name : filesIn(directory))
      fs::remove(directory + "/" + name);
    fs::remove(directory);
  }

  /// The directory holds the old report alone, unchanged.
  void expectOnlyTheOldReport() {
    EXPECT_EQ(filesIn(directory), std::vector<std::string>{"r.json"});
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text =
        llvm::MemoryBuffer::getFile(path);
    ASSERT_TRUE(bool(text));
    EXPECT_EQ((*text)->getBuffer(), "old\n");
  }

  llvm::SmallString<128> directory;
  std::string path;
};

TEST_P(ReportWriterSignalTest, ATermWhileAReportIsWrittenLeavesNothingBeside) {
  EXPECT_EXIT(terminateWhileReporting(path, /*deferred=*/GetParam(),
                                      When::WhileWriting),
              ::testing::KilledBySignal(SIGTERM), "");
  expectOnlyTheOldReport();
}

TEST(ReportWriterSignalDeferredTest, ATermBeforeTheCommitLeavesNothingBeside) {
  llvm::SmallString<128> directory;
  ASSERT_FALSE(fs::createUniqueDirectory("report-writer", directory));
  std::string path = (directory + "/r.json").str();
  {
    std::error_code ec;
    llvm::raw_fd_ostream old(path, ec);
    ASSERT_FALSE(ec);
    old << "old\n";
  }
  EXPECT_EXIT(
      terminateWhileReporting(path, /*deferred=*/true, When::WhileDeferred),
      ::testing::KilledBySignal(SIGTERM), "");
  EXPECT_EQ(filesIn(directory), std::vector<std::string>{"r.json"});
  fs::remove(path);
  fs::remove(directory);
}

// Kept back (dsm-opt's DeferredReports) and written at once (the C API).
INSTANTIATE_TEST_SUITE_P(DeferredOrNot, ReportWriterSignalTest,
                         ::testing::Bool());

} // namespace

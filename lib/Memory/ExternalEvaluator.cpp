//===- ExternalEvaluator.cpp - A map's latency measured elsewhere ---------===//

#include "dsm/Core/Memory/ExternalEvaluator.h"
#include "dsm/Core/Support/ProcessGroup.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace dsm::core;
using namespace dsm::core::memory;

void memory::writeMapForEvaluator(const MemoryGraph &graph,
                                  const MemoryMap &map, llvm::raw_ostream &os) {
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.object([&] {
    json.attributeArray("nodes", [&] {
      for (size_t i = 0; i < graph.size(); ++i) {
        const MemoryNode &node = graph.getNode(i);
        auto tensor = [&](llvm::StringRef name, int64_t bytes,
                          MemoryLevel level) {
          json.attributeObject(name, [&] {
            json.attribute("bytes", bytes);
            json.attribute("level", stringifyMemoryLevel(level));
          });
        };
        json.object([&] {
          json.attribute("name", node.name);
          tensor("weights", node.weightBytes, map[i].weights);
          tensor("activations", node.outputBytes, map[i].activations);
        });
      }
    });
  });
  os << "\n";
}

namespace {
/// The most of a program's output or errors an error message quotes: a
/// program may print megabytes.
constexpr size_t kQuotedBytes = 200;
/// The longest latency a program may answer: about 30 million years (the
/// cost model's bound, MemoryCostModel::kMaxNodeSeconds). 1e308 s would be
/// infinite microseconds in the report.
constexpr double kMaxLatencySeconds = 1e15;
/// The shortest latency a program may answer: one nanosecond, a few clock
/// cycles, less than any whole model's inference on any hardware. An answer
/// below it (4.9e-324 s, a denormal) is no measurement: taken as one, it
/// ranked its map 1e300 times faster than every other.
constexpr double kMinLatencySeconds = 1e-9;

/// At most kQuotedBytes of the file at `path`, trimmed, with the file's size
/// when there is more: only that much is read.
std::string quoteFile(llvm::StringRef path) {
  llvm::Expected<llvm::sys::fs::file_t> file =
      llvm::sys::fs::openNativeFileForRead(path);
  if (!file) {
    llvm::consumeError(file.takeError());
    return std::string();
  }
  auto close = llvm::make_scope_exit([&] { llvm::sys::fs::closeFile(*file); });
  char buffer[kQuotedBytes + 1];
  llvm::Expected<size_t> read = llvm::sys::fs::readNativeFile(
      *file, llvm::MutableArrayRef<char>(buffer, sizeof(buffer)));
  if (!read) {
    llvm::consumeError(read.takeError());
    return std::string();
  }
  llvm::StringRef head(buffer, std::min(*read, kQuotedBytes));
  std::string quoted = head.trim().str();
  uint64_t size = 0;
  if (*read > kQuotedBytes && !llvm::sys::fs::file_size(path, size))
    quoted += "... (" + std::to_string(size) + " bytes in all)";
  return quoted;
}

/// One run of the program on one map.
llvm::Expected<double> measure(const MemoryGraph &graph, const MemoryMap &map,
                               const std::string &program, unsigned timeout) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError("evaluator '" + program + "' " + why);
  };
  // The map, the program's output and its errors, in files of their own
  // (evaluations run in parallel), removed whatever happens.
  llvm::SmallString<128> mapPath, outPath, errPath;
  int mapFd;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("dsm-map", "json", mapFd, mapPath))
    return fail("cannot run: no temporary file: " + ec.message());
  auto removeMap =
      llvm::make_scope_exit([&] { llvm::sys::fs::remove(mapPath); });
  {
    llvm::raw_fd_ostream os(mapFd, /*shouldClose=*/true);
    writeMapForEvaluator(graph, map, os);
    if (os.has_error())
      return fail("cannot run: cannot write " + mapPath);
  }
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("dsm-latency", "txt", outPath))
    return fail("cannot run: no temporary file: " + ec.message());
  auto removeOut =
      llvm::make_scope_exit([&] { llvm::sys::fs::remove(outPath); });
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("dsm-latency", "err", errPath))
    return fail("cannot run: no temporary file: " + ec.message());
  auto removeErr =
      llvm::make_scope_exit([&] { llvm::sys::fs::remove(errPath); });

  ProcessOutcome run = runInProcessGroup(
      program, {program, mapPath.str().str()}, outPath, errPath, timeout);
  if (!run.started)
    return fail("cannot run: " + run.error);
  if (run.timedOut)
    return fail("gave no latency within " + llvm::Twine(timeout) +
                " s and was stopped");
  if (run.signal != 0 || run.exitCode != 0) {
    std::string errors = quoteFile(errPath);
    return fail(
        (run.signal != 0
             ? "crashed: " + std::string(strsignal(run.signal))
             : "failed with exit code " + std::to_string(run.exitCode)) +
        (errors.empty() ? "" : ": " + errors));
  }
  std::string output = quoteFile(outPath);
  llvm::StringRef word = llvm::StringRef(output).split(' ').first;
  word = word.split('\n').first.trim();
  double seconds = 0;
  if (word.getAsDouble(seconds) || !(seconds >= kMinLatencySeconds) ||
      !(seconds <= kMaxLatencySeconds))
    return fail("printed '" + output +
                "' where a latency in seconds (at least 1e-9, at most 1e15) "
                "was expected");
  return seconds;
}
} // namespace

llvm::Expected<LatencyMeasure>
memory::makeExternalMeasure(const MemoryGraph &graph, llvm::StringRef program,
                            unsigned timeoutSeconds) {
  std::string path = program.str();
  if (!program.contains('/')) {
    llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName(program);
    if (!found)
      return llvm::createStringError("evaluator '" + program +
                                     "' is not a program in PATH");
    path = *found;
  } else if (!llvm::sys::fs::can_execute(program)) {
    return llvm::createStringError("evaluator '" + program +
                                   "' is not an executable file");
  }
  return LatencyMeasure([&graph, path, timeoutSeconds](const MemoryMap &map) {
    return measure(graph, map, path, timeoutSeconds);
  });
}

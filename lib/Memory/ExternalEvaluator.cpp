//===- ExternalEvaluator.cpp - A map's latency measured elsewhere ---------===//

#include "dsm/Core/Memory/ExternalEvaluator.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

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

  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(),
                                                outPath.str(), errPath.str()};
  std::string message;
  bool executionFailed = false;
  int status = llvm::sys::ExecuteAndWait(
      program, {program, mapPath.str()}, std::nullopt, redirects, timeout,
      /*MemoryLimit=*/0, &message, &executionFailed);
  auto readFile = [](llvm::StringRef path) {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    return buffer ? (*buffer)->getBuffer().trim().str() : std::string();
  };
  if (executionFailed)
    return fail("cannot run: " + message);
  if (status != 0) {
    std::string errors = readFile(errPath);
    // LLVM reports a timeout and a fatal signal alike (-2), by message.
    if (status == -2 && llvm::StringRef(message).contains("timed out"))
      return fail("gave no latency within " + llvm::Twine(timeout) +
                  " s and was stopped");
    return fail((status < 0
                     ? "crashed: " + message
                     : "failed with exit code " + std::to_string(status)) +
                (errors.empty() ? "" : ": " + errors));
  }
  std::string output = readFile(outPath);
  llvm::StringRef word = llvm::StringRef(output).split(' ').first;
  word = word.split('\n').first.trim();
  double seconds = 0;
  if (word.getAsDouble(seconds) || !(seconds > 0) || !std::isfinite(seconds))
    return fail("printed '" + word +
                "' where a latency in seconds (positive) was expected");
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

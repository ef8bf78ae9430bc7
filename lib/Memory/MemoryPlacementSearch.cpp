//===- MemoryPlacementSearch.cpp - Searches for a memory map --------------===//

#include "dsm/Core/Memory/MemoryPlacementSearch.h"

#include "MemorySearches.h"

#include "llvm/ADT/StringSwitch.h"

using namespace dsm::core;
using namespace dsm::core::memory;
using namespace dsm::core::memory::detail;

llvm::StringRef memory::stringifyPlacementSearchKind(PlacementSearchKind kind) {
  switch (kind) {
  case PlacementSearchKind::Compiler:
    return "compiler";
  case PlacementSearchKind::GreedyDP:
    return "greedy-dp";
  case PlacementSearchKind::EA:
    return "ea";
  case PlacementSearchKind::EGRL:
    return "egrl";
  case PlacementSearchKind::PG:
    return "pg";
  case PlacementSearchKind::ILP:
    return "ilp";
  }
  return "";
}

std::optional<PlacementSearchKind>
memory::symbolizePlacementSearchKind(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<PlacementSearchKind>>(name)
      .Case("compiler", PlacementSearchKind::Compiler)
      .Case("greedy-dp", PlacementSearchKind::GreedyDP)
      .Case("ea", PlacementSearchKind::EA)
      .Case("egrl", PlacementSearchKind::EGRL)
      .Case("pg", PlacementSearchKind::PG)
      .Case("ilp", PlacementSearchKind::ILP)
      .Default(std::nullopt);
}

llvm::StringRef memory::getPlacementSearchNames() {
  return "compiler, greedy-dp, ea, egrl, pg, ilp";
}

llvm::Error detail::makeMissingLibraryError(llvm::StringRef placement,
                                            llvm::StringRef library,
                                            llvm::StringRef package,
                                            llvm::StringRef option) {
  return llvm::createStringError(
      llvm::Twine("placement '") + placement + "' needs " + library +
      ": install " + package +
      " (scripts/install-deps.sh) and configure with " + option + "=ON");
}

void SearchTracker::record(const MemoryMap &map, const Evaluation &evaluation) {
  ++result.evaluations;
  result.rewardByIteration.push_back(evaluation.reward);
  if (evaluation.valid && evaluation.latency < bestValidLatency) {
    bestValidLatency = evaluation.latency;
    bestValid = map;
  }
  if (evaluation.reward > bestReward) {
    bestReward = evaluation.reward;
    bestAny = map;
  }
  double best =
      bestValid.empty() && evaluator.getGraph().size() > 0
          ? 0.0
          : evaluator.getCompilerLatency() / std::max(bestValidLatency, 1e-300);
  if (evaluator.getGraph().size() == 0)
    best = 1.0;
  result.bestSpeedupByIteration.push_back(best);
  progress.step(result.evaluations, total, best > 0 ? best : Progress::kNoBest);
}

bool SearchTracker::shouldStop() {
  if (!result.interrupted && result.evaluations < total &&
      (progress.shouldStop() || evaluator.hasMeasurementFailed()))
    result.interrupted = true;
  return result.interrupted;
}

PlacementSearchResult SearchTracker::finish() {
  size_t count = evaluator.getGraph().size();
  if (bestValidLatency < std::numeric_limits<double>::infinity() ||
      count == 0) {
    result.map = count == 0 ? MemoryMap() : bestValid;
  } else if (bestAny.size() != count) {
    // Nothing was evaluated (a time budget that ended before the first map,
    // or rewards that never compared): the compiler's map, which the
    // evaluator has already rectified, is the answer.
    result.map = evaluator.getCompilerMap();
  } else {
    Rectification fixed = evaluator.rectify(bestAny);
    result.map = std::move(fixed.map);
    result.rectified = true;
    result.reassignedRatio = fixed.reassignedRatio;
  }
  result.evaluation = evaluator.evaluate(result.map);
  return std::move(result);
}

/// The search itself, before its measurements are checked.
static llvm::Expected<PlacementSearchResult>
runSearch(PlacementSearchKind kind, const PlacementEvaluator &evaluator,
          const PlacementSearchOptions &options, Executor &executor) {
  switch (kind) {
  case PlacementSearchKind::Compiler: {
    SearchTracker tracker(evaluator);
    const MemoryMap &map = evaluator.getCompilerMap();
    tracker.record(map, evaluator.evaluate(map));
    return tracker.finish();
  }
  case PlacementSearchKind::GreedyDP:
    return runGreedyDP(evaluator, options, executor);
  case PlacementSearchKind::EA:
    return runEvolution(evaluator, options, executor);
  case PlacementSearchKind::EGRL:
    return runEgrl(evaluator, options, executor);
  case PlacementSearchKind::PG:
    return runPolicyGradient(evaluator, options, executor);
  case PlacementSearchKind::ILP:
    return runIlp(evaluator, options);
  }
  return llvm::createStringError("unknown placement search");
}

llvm::Expected<PlacementSearchResult> memory::runPlacementSearch(
    PlacementSearchKind kind, const PlacementEvaluator &evaluator,
    const PlacementSearchOptions &options, Executor &executor) {
  if (kind == PlacementSearchKind::ILP && evaluator.isMeasured())
    return llvm::createStringError(
        "placement 'ilp' solves the cost model exactly and cannot use an "
        "external evaluator");
  llvm::Expected<PlacementSearchResult> result =
      runSearch(kind, evaluator, options, executor);
  // A failed measurement ends the search: its maps were not all measured.
  if (llvm::Error error = evaluator.measurementError()) {
    llvm::consumeError(result.takeError());
    return std::move(error);
  }
  return result;
}

llvm::Error memory::checkNotInterrupted(PlacementSearchKind kind,
                                        const PlacementSearchResult &result,
                                        const PlacementSearchOptions &options) {
  if (!result.interrupted)
    return llvm::Error::success();
  if (kind == PlacementSearchKind::ILP)
    return llvm::createStringError(
        "interrupted before the ILP solver finished");
  return llvm::make_error<InterruptedError>(result.evaluations,
                                            options.iterations, "iterations");
}

//===- DevicePlacementSearch.h - Searches for a placement -------*- C++ -*-===//
//
// The optimisers of Andreassen's thesis (§2.1.5, §3.2, Tables 4.3 and 4.4)
// and two baselines, each selected by name, seeded, and bounded by a budget
// of evaluations (simulations), all minimising the simulator's fitness:
//
//   single-device  every op on the fastest device whose memory holds the
//                  whole placement (the next fastest otherwise)
//   expert         the hand rule of docs/device-placement.md: fill the
//                  fastest devices in topological order, a device at a time
//   hc             random hill climbing (Algorithm 1)
//   sa             simulated annealing (Algorithm 2)
//   ga             the genetic algorithm of §3.2.2 with Table 4.3
//   map-elites     MAP-Elites of §3.2.3 with Table 4.4
//
// Populations are evaluated through the caller's Executor; the outcome is a
// function of the inputs and the seed only. hc, sa, ga and map-elites report
// every batch of evaluations to the options' Progress and, asked to stop,
// return at the next step, generation or batch with the best so far, marked
// `interrupted`.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_DEVICES_DEVICEPLACEMENTSEARCH_H
#define DSM_CORE_DEVICES_DEVICEPLACEMENTSEARCH_H

#include "dsm/Core/Devices/ExecutionSimulator.h"
#include "dsm/Core/Devices/Placement.h"
#include "dsm/Core/Support/Executor.h"
#include "dsm/Core/Support/Progress.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <utility>
#include <vector>

namespace dsm::core::devices {

enum class SearchKind {
  SingleDevice,
  Expert,
  HillClimbing,
  SimulatedAnnealing,
  Genetic,
  MapElites
};
llvm::StringRef stringifySearchKind(SearchKind kind);
std::optional<SearchKind> symbolizeSearchKind(llvm::StringRef name);
/// "single-device, expert, hc, sa, ga, map-elites".
llvm::StringRef getSearchKindNames();

/// Table 4.3.
struct GeneticOptions {
  int32_t populationSize = 50;
  int32_t eliteSize = 5;
  double mutationRate = 0.5;
  double zoneMutationRate = 0.2;
  double crossoverRate = 0.2;
  double minMutationRate = 0.05, maxMutationRate = 0.9;
  /// Standard deviation of the self-adaptive step of the mutation rate.
  double mutationRateStep = 0.05;
};

/// Table 4.4.
struct MapElitesOptions {
  int32_t transferBins = 40;
  double mutationRate = 0.4;
  double copyMutationRate = 0.4;
  double replaceMutationRate = 0.01;
  double zoneMutationRate = 0.05;
  double crossoverRate = 0.4;
  int32_t tournamentSize = 10;
  /// Candidates made from one archive state and evaluated together. Fixed
  /// (not the thread count) so that results do not depend on the executor.
  int32_t batchSize = 50;
};

/// Algorithm 2's schedule: T falls geometrically from startTemperature to
/// endTemperature times the first fitness.
struct AnnealingOptions {
  double startTemperature = 1.0;
  double endTemperature = 1e-4;
};

struct SearchOptions {
  SearchKind kind = SearchKind::Genetic;
  int64_t evaluations = 20000;
  uint64_t seed = 1;
  GeneticOptions genetic;
  MapElitesOptions mapElites;
  AnnealingOptions annealing;
  /// Told of every batch evaluated (steps of `evaluations`, the best
  /// fitness) and asked whether to stop.
  Progress *progress = &Progress::none();
};

struct SearchResult {
  Placement best;
  double bestFitness = 0;
  int64_t evaluations = 0;
  /// Simulator events over all evaluations.
  int64_t events = 0;
  /// (evaluations so far, best fitness) at every improvement.
  std::vector<std::pair<int64_t, double>> bestByEvaluation;
  /// The search stopped early because its Progress asked it to.
  bool interrupted = false;
};

/// Errors that no placement can avoid, as a NodeError on the op: its weights
/// and output do not fit in the usable memory of any device, or its time on
/// a device or a channel is implausible (ExecutionSimulator::checkTimes).
llvm::Error checkPlaceable(const OpGraph &graph, const DeviceNetwork &network,
                           const SimulationOptions &options);

/// Runs the search. `graph` must verify and `network` be finalized.
llvm::Expected<SearchResult>
searchPlacement(const OpGraph &graph, const DeviceNetwork &network,
                const SimulationOptions &simulation,
                const SearchOptions &search, Executor &executor);

} // namespace dsm::core::devices

#endif // DSM_CORE_DEVICES_DEVICEPLACEMENTSEARCH_H

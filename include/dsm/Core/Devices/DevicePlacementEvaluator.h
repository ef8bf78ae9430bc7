//===- DevicePlacementEvaluator.h - Fitness of many placements --*- C++ -*-===//
//
// What every search calls to score placements: it runs the execution
// simulator on each, in parallel through the caller's Executor (one simulator
// per concurrent slot), and keeps the books the report needs -- evaluations,
// simulated events, the best placement so far and the best fitness after each
// improvement. Fitnesses are combined in index order, so the books and every
// decision taken from them are the same with any executor. It also tells the
// search's Progress of every batch and relays its request to stop.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_DEVICES_DEVICEPLACEMENTEVALUATOR_H
#define DSM_CORE_DEVICES_DEVICEPLACEMENTEVALUATOR_H

#include "dsm/Core/Devices/ExecutionSimulator.h"
#include "dsm/Core/Devices/Placement.h"
#include "dsm/Core/Support/Executor.h"
#include "dsm/Core/Support/Progress.h"

#include "llvm/ADT/ArrayRef.h"

#include <memory>
#include <utility>
#include <vector>

namespace dsm::core::devices {

class PlacementEvaluator {
public:
  PlacementEvaluator(const OpGraph &graph, const DeviceNetwork &network,
                     const SimulationOptions &options, Executor &executor);
  ~PlacementEvaluator();

  /// Reports every batch to `progress` as steps of `budget` evaluations.
  void setProgress(Progress &progress, int64_t budget) {
    this->progress = &progress;
    this->budget = budget;
  }
  /// Whether the search should stop here (asked while budget is left);
  /// the search is then interrupted.
  bool shouldStop();
  bool wasInterrupted() const { return interrupted; }

  /// Simulates every placement; `fitness[i]` gets placement i's fitness.
  void evaluate(llvm::ArrayRef<Placement> placements,
                llvm::MutableArrayRef<double> fitness);
  double evaluate(const Placement &placement);

  /// Genes of a placement: the graph's ops.
  size_t getOpCount() const { return graph.size(); }
  int64_t getEvaluations() const { return evaluations; }
  int64_t getEvents() const { return events; }
  const Placement &getBest() const { return best; }
  double getBestFitness() const { return bestFitness; }
  /// (evaluations so far, best fitness) at every improvement.
  llvm::ArrayRef<std::pair<int64_t, double>> getHistory() const {
    return history;
  }

private:
  const OpGraph &graph;
  const DeviceNetwork &network;
  SimulationOptions options;
  Executor &executor;
  std::vector<std::unique_ptr<ExecutionSimulator>> simulators;
  std::vector<int64_t> slotEvents;
  int64_t evaluations = 0, events = 0;
  Placement best;
  double bestFitness;
  std::vector<std::pair<int64_t, double>> history;
  Progress *progress = &Progress::none();
  int64_t budget = 0;
  bool interrupted = false;
};

} // namespace dsm::core::devices

#endif // DSM_CORE_DEVICES_DEVICEPLACEMENTEVALUATOR_H

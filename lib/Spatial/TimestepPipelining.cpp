//===- TimestepPipelining.cpp - LSTM pipe groups (DSM §III-D) -------------===//

#include "dsm/Core/Spatial/TimestepPipelining.h"
#include "dsm/Core/Spatial/ChipBlocks.h"
#include "dsm/Core/Spatial/LayerGraph.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <map>
#include <memory>

using namespace dsm::core;

static constexpr double kInfinity = std::numeric_limits<double>::infinity();

MultiChipSystem dsm::core::pipeStageSystem(const MultiChipSystem &system,
                                           int64_t rows) {
  return blockSystem(system, rows, system.torus.x.size);
}

/// A layer that runs its timesteps one after another in one direction.
static bool isPipelinable(const LayerNode &layer) {
  const LayerShape &shape = layer.shape;
  return shape.kind == OpKind::Lstm && shape.hasPrimary &&
         shape.timesteps > 1 && shape.directions == 1;
}

std::vector<std::vector<int>>
dsm::core::findPipeGroupCandidates(const LayerGraph &graph, int64_t maxStages) {
  std::vector<std::vector<int>> groups;
  if (maxStages < 2)
    return groups;
  const int n = int(graph.layers.size());
  // readsPrevious[i]: layer i's primary input is layer i-1's output.
  std::vector<bool> readsPrevious(n, false);
  for (const LayerEdge &edge : graph.edges)
    if (edge.primaryInput && edge.consumer == edge.producer + 1)
      readsPrevious[edge.consumer] = true;
  // The stages step through the same timesteps. (Their passes may differ:
  // the first layer of a stack may need no BWD; it then idles in the BWD
  // pipeline.)
  auto sameTimesteps = [](const LayerNode &a, const LayerNode &b) {
    return a.shape.timesteps == b.shape.timesteps;
  };
  std::vector<int> run;
  auto flush = [&] {
    // Pieces of at most maxStages layers, as even as possible.
    const int64_t size = int64_t(run.size());
    if (size >= 2) {
      int64_t pieces = (size + maxStages - 1) / maxStages;
      int64_t begin = 0;
      for (int64_t p = 0; p < pieces; ++p) {
        int64_t end = size * (p + 1) / pieces;
        if (end - begin >= 2)
          groups.emplace_back(run.begin() + begin, run.begin() + end);
        begin = end;
      }
    }
    run.clear();
  };
  for (int i = 0; i < n; ++i) {
    const LayerNode &layer = graph.layers[i];
    if (!isPipelinable(layer)) {
      flush();
      continue;
    }
    if (!run.empty() &&
        (!readsPrevious[i] || !sameTimesteps(graph.layers[run.back()], layer)))
      flush();
    run.push_back(i);
  }
  flush();
  return groups;
}

std::vector<int64_t> dsm::core::rowsByWork(llvm::ArrayRef<double> work,
                                           int64_t rows) {
  const size_t k = work.size();
  assert(k >= 1 && int64_t(k) <= rows && "one row per stage at least");
  double total = 0;
  for (double w : work)
    total += std::max(w, 0.0);
  // Each stage's first row is fixed; the others go by work, largest
  // remainder first (ties to the earlier stage).
  const int64_t spare = rows - int64_t(k);
  std::vector<int64_t> result(k, 1);
  std::vector<double> remainder(k, 0);
  int64_t given = 0;
  for (size_t i = 0; i < k; ++i) {
    double exact = total > 0 ? double(spare) * std::max(work[i], 0.0) / total
                             : double(spare) / double(k);
    int64_t whole = int64_t(std::floor(exact));
    result[i] += whole;
    given += whole;
    remainder[i] = exact - double(whole);
  }
  std::vector<size_t> order(k);
  for (size_t i = 0; i < k; ++i)
    order[i] = i;
  llvm::stable_sort(
      order, [&](size_t a, size_t b) { return remainder[a] > remainder[b]; });
  for (size_t i = 0; given < spare; ++i, ++given)
    ++result[order[i % k]];
  return result;
}

PipelineTiming
dsm::core::pipelineTiming(llvm::ArrayRef<double> stageStepCycles,
                          llvm::ArrayRef<double> boundaryStepCycles,
                          int64_t timesteps) {
  PipelineTiming timing;
  for (double s : stageStepCycles) {
    timing.fill += s;
    timing.computePeriod = std::max(timing.computePeriod, s);
  }
  timing.period = timing.computePeriod;
  for (size_t j = 0; j < boundaryStepCycles.size(); ++j) {
    if (j + 1 < stageStepCycles.size())
      timing.fill += boundaryStepCycles[j];
    timing.period = std::max(timing.period, boundaryStepCycles[j]);
  }
  timing.total =
      timing.fill + double(std::max<int64_t>(timesteps - 1, 0)) * timing.period;
  return timing;
}

//===----------------------------------------------------------------------===//
// PipeFlows
//===----------------------------------------------------------------------===//

PipeFlows::PipeFlows(llvm::ArrayRef<int64_t> stageRows)
    : rows(stageRows.begin(), stageRows.end()), forward(stageRows.size(), 0.0),
      backward(stageRows.size(), 0.0) {
  for (int64_t r : rows)
    totalRows += r;
}

void PipeFlows::addBetweenStages(int from, int to, double bytes) {
  // Boundary j lies between stage j and j+1.
  for (int j = std::min(from, to); j < std::max(from, to); ++j)
    (from < to ? forward : backward)[j] += bytes;
}

void PipeFlows::addFromOutside(int to, double bytes) {
  const int k = int(rows.size());
  double arriving = bytes * (1.0 - double(rows[to]) /
                                       double(std::max<int64_t>(totalRows, 1)));
  // Half through the boundary above the stage (entering forward), half
  // through the one below (entering backward).
  forward[(to + k - 1) % k] += arriving / 2;
  backward[to] += arriving / 2;
}

void PipeFlows::addToOutside(int from, double bytes) {
  const int k = int(rows.size());
  double leaving = bytes * (1.0 - double(rows[from]) /
                                      double(std::max<int64_t>(totalRows, 1)));
  forward[from] += leaving / 2;
  backward[(from + k - 1) % k] += leaving / 2;
}

std::vector<double>
PipeFlows::boundaryCycles(const MultiChipSystem &system) const {
  // A boundary between two blocks of rows has one Y link (or switch port) per
  // X column in each direction.
  double perDirection = double(system.torus.x.size) * system.torus.y.bandwidth *
                        system.torus.y.efficiency;
  std::vector<double> cycles(rows.size(), 0.0);
  for (size_t j = 0; j < rows.size(); ++j) {
    double bytes = std::max(forward[j], backward[j]);
    if (bytes <= 0)
      continue;
    cycles[j] = perDirection > 0
                    ? bytes / perDirection * system.chip.core.frequencyHz
                    : kInfinity;
  }
  return cycles;
}

//===----------------------------------------------------------------------===//
// TimestepPipeliner
//===----------------------------------------------------------------------===//

std::vector<bool> dsm::core::choosePipeGroups(
    size_t count, llvm::ArrayRef<size_t> plannable,
    llvm::function_ref<double(const std::vector<bool> &)> price,
    size_t maxJoint) {
  std::vector<bool> best(count, false);
  double bestPrice = price(best);
  auto consider = [&](const std::vector<bool> &set) {
    double value = price(set);
    if (value < bestPrice * (1 - 1e-12)) {
      best = set;
      bestPrice = value;
    }
  };
  if (plannable.size() <= std::min<size_t>(maxJoint, 30)) {
    for (uint64_t mask = 1; mask < (uint64_t(1) << plannable.size()); ++mask) {
      std::vector<bool> set(count, false);
      for (size_t b = 0; b < plannable.size(); ++b)
        set[plannable[b]] = (mask >> b) & 1;
      consider(set);
    }
  } else {
    for (size_t k : plannable) {
      std::vector<bool> set = best;
      set[k] = true;
      consider(set);
    }
  }
  return best;
}

TimestepPipeliner::TimestepPipeliner(const PerformanceModel &model,
                                     SearchMode search,
                                     bool reuseWeightsAcrossSteps,
                                     std::vector<Parallelism> parallelisms)
    : model(model), search(search),
      reuseWeightsAcrossSteps(reuseWeightsAcrossSteps),
      parallelisms(std::move(parallelisms)) {}

namespace {
/// A stage layer's best mapping on a block of rows: one parallelism for all
/// its passes, each pass's evaluation.
struct StageOption {
  double cycles = kInfinity; ///< all passes, on the stage's own chips
  std::array<std::optional<Evaluation>, kNumPasses> passes;
};

/// An exploration of a stage layer's pass on a block of rows under one
/// parallelism.
struct StageTask {
  int layer;
  int64_t rows;
  TrainingPass pass;
  Parallelism parallelism;
};

/// A tensor on the group's edges. It crosses each boundary once however
/// many stages read it (a stage passes it on), and leaves the group once.
struct GroupTensor {
  double elements = 0;
  int farthestStage = -1; ///< the last stage reading it (in-group producer)
  bool readOutside = false;
  std::vector<int> readingStages; ///< distinct, for outside producers
};

/// The group's wall-clock time for a row allocation.
struct GroupSchedule {
  PipelineTiming forward, backward;
  double update = 0;
  double cycles = kInfinity;
};

/// Plans one pipe group (TimestepPipeliner::plan): explores its stage
/// layers on every block of rows, then moves rows between the stages while
/// the group gets faster.
class PipeGroupPlanner {
public:
  PipeGroupPlanner(const PerformanceModel &model, const LayerGraph &graph,
                   llvm::ArrayRef<int> group);

  void exploreStages(SearchMode search, bool reuseWeightsAcrossSteps,
                     llvm::ArrayRef<Parallelism> parallelisms,
                     Executor &executor, PipeGroupPlan &plan);
  void collectEdges();
  GroupSchedule allocateRows(std::vector<int64_t> &rows) const;
  PipeStagePlan stagePlan(int stage, llvm::ArrayRef<int64_t> rows,
                          const GroupSchedule &current, int64_t firstRow) const;

private:
  /// taskOf's index of a stage's pass under parallelism `q` on `rows`.
  size_t slot(int stage, int64_t rows, int pass, int q) const {
    return ((size_t(stage) * size_t(maxRows) + size_t(rows - 1)) * kNumPasses +
            size_t(pass)) *
               kNumParallelisms +
           size_t(q);
  }
  std::vector<int>
  enumerateTasks(llvm::ArrayRef<std::unique_ptr<PerformanceModel>> models,
                 llvm::ArrayRef<Parallelism> parallelisms,
                 std::vector<StageTask> &tasks) const;
  void chooseStageOptions(llvm::ArrayRef<int> taskOf,
                          llvm::ArrayRef<ExplorationResult> results);
  std::vector<double> boundaryCycles(llvm::ArrayRef<int64_t> rows,
                                     bool backward) const;
  GroupSchedule schedule(llvm::ArrayRef<int64_t> rows) const;
  CycleBreakdown stagePassCycles(const Evaluation &eval, int pass,
                                 llvm::ArrayRef<int64_t> rows,
                                 const GroupSchedule &current,
                                 double share) const;

  const PerformanceModel &model;
  const MultiChipSystem &system;
  const LayerGraph &graph;
  llvm::ArrayRef<int> group;
  const int k;
  const int64_t torusRows;
  const int64_t maxRows;
  const int64_t timesteps;
  /// Each stage's best parallelism on each block of rows.
  std::vector<std::vector<StageOption>> options;
  /// The group's edges: per-timestep bytes between stages and with the rest
  /// of the network.
  std::vector<int> stageOf;
  double stepBytes = 0;
  bool anyBackward = false;
  std::map<int, GroupTensor> tensors;           // by producer, in layer order
  std::map<std::pair<int, int>, double> errors; // (producer, consumer)
};
} // namespace

PipeGroupPlanner::PipeGroupPlanner(const PerformanceModel &model,
                                   const LayerGraph &graph,
                                   llvm::ArrayRef<int> group)
    : model(model), system(model.getSystem()), graph(graph), group(group),
      k(int(group.size())), torusRows(system.torus.y.size),
      maxRows(torusRows - k + 1),
      timesteps(graph.layers[group.front()].shape.timesteps) {}

/// Every stage layer on every block of rows it could get, under every
/// parallelism that block offers: explored once per distinct shape.
void PipeGroupPlanner::exploreStages(SearchMode search,
                                     bool reuseWeightsAcrossSteps,
                                     llvm::ArrayRef<Parallelism> parallelisms,
                                     Executor &executor, PipeGroupPlan &plan) {
  std::vector<std::unique_ptr<PerformanceModel>> models;
  for (int64_t r = 1; r <= maxRows; ++r)
    models.push_back(
        std::make_unique<PerformanceModel>(pipeStageSystem(system, r)));
  std::vector<StageTask> tasks;
  std::vector<int> taskOf = enumerateTasks(models, parallelisms, tasks);
  std::vector<std::unique_ptr<DesignSpaceExplorer>> explorers;
  for (const auto &m : models)
    explorers.push_back(std::make_unique<DesignSpaceExplorer>(
        *m, search, reuseWeightsAcrossSteps));
  std::vector<ExplorationResult> results(tasks.size());
  executor.parallelFor(tasks.size(), [&](size_t t) {
    const StageTask &task = tasks[t];
    results[t] = explorers[task.rows - 1]->explore(
        graph.layers[task.layer].shape, task.pass, task.parallelism);
  });
  plan.explorations = tasks.size();
  for (const ExplorationResult &r : results)
    plan.configurationsEvaluated += r.evaluated;
  chooseStageOptions(taskOf, results);
}

/// The explorations the stages need, one per distinct shape, pass, rows and
/// parallelism; each stage's in the returned taskOf (by slot; -1: none).
std::vector<int> PipeGroupPlanner::enumerateTasks(
    llvm::ArrayRef<std::unique_ptr<PerformanceModel>> models,
    llvm::ArrayRef<Parallelism> parallelisms,
    std::vector<StageTask> &tasks) const {
  llvm::StringMap<int> memo;
  // taskOf[((stage * maxRows + r-1) * kNumPasses + pass) * kNumParallelisms
  // + q]
  std::vector<int> taskOf(
      size_t(k) * size_t(maxRows) * kNumPasses * kNumParallelisms, -1);
  for (int stage = 0; stage < k; ++stage) {
    const LayerNode &layer = graph.layers[group[stage]];
    bool runs[kNumPasses] = {layer.fwd, layer.bwd, layer.upd};
    for (int64_t r = 1; r <= maxRows; ++r)
      for (int pass = 0; pass < kNumPasses; ++pass) {
        if (!runs[pass])
          continue;
        for (int q = 0; q < kNumParallelisms; ++q) {
          Parallelism p = Parallelism(q);
          if (!models[r - 1]->isAvailable(p) ||
              (!parallelisms.empty() && !llvm::is_contained(parallelisms, p)))
            continue;
          std::string key = layerShapeKey(layer.shape).str().str() + '/' +
                            std::to_string(r) + '/' + std::to_string(pass) +
                            '/' + std::to_string(q);
          auto [it, inserted] = memo.try_emplace(key, int(tasks.size()));
          if (inserted)
            tasks.push_back({group[stage], r, TrainingPass(pass), p});
          taskOf[slot(stage, r, pass, q)] = it->second;
        }
      }
  }
  return taskOf;
}

/// Each stage's best parallelism on each block of rows (options).
void PipeGroupPlanner::chooseStageOptions(
    llvm::ArrayRef<int> taskOf, llvm::ArrayRef<ExplorationResult> results) {
  options.assign(k, std::vector<StageOption>(size_t(maxRows)));
  for (int stage = 0; stage < k; ++stage) {
    const LayerNode &layer = graph.layers[group[stage]];
    bool runs[kNumPasses] = {layer.fwd, layer.bwd, layer.upd};
    for (int64_t r = 1; r <= maxRows; ++r) {
      StageOption &option = options[stage][r - 1];
      for (int q = 0; q < kNumParallelisms; ++q) {
        StageOption candidate;
        candidate.cycles = 0;
        for (int pass = 0; pass < kNumPasses && candidate.cycles < kInfinity;
             ++pass) {
          if (!runs[pass])
            continue;
          int task = taskOf[slot(stage, r, pass, q)];
          if (task < 0 || !results[task].best) {
            candidate.cycles = kInfinity;
            break;
          }
          candidate.passes[pass] = results[task].best;
          candidate.cycles += results[task].best->cycles.total;
        }
        if (candidate.cycles < option.cycles)
          option = std::move(candidate);
      }
    }
  }
}

/// The group's edges: per-timestep bytes between stages and with the rest
/// of the network. Errors flow back from each consumer separately (they
/// are partial sums).
void PipeGroupPlanner::collectEdges() {
  stageOf.assign(graph.layers.size(), -1);
  for (int stage = 0; stage < k; ++stage)
    stageOf[group[stage]] = stage;
  stepBytes = model.bytesPerElement() / double(timesteps);
  anyBackward =
      llvm::any_of(group, [&](int layer) { return graph.layers[layer].bwd; });
  for (const LayerEdge &edge : graph.edges) {
    int from = stageOf[edge.producer], to = stageOf[edge.consumer];
    if (from < 0 && to < 0)
      continue;
    GroupTensor &tensor = tensors[edge.producer];
    tensor.elements = std::max(tensor.elements, edge.elements);
    if (to < 0)
      tensor.readOutside = true;
    else if (from >= 0)
      tensor.farthestStage = std::max(tensor.farthestStage, to);
    else if (!llvm::is_contained(tensor.readingStages, to))
      tensor.readingStages.push_back(to);
    if (edge.carriesError) {
      double &error = errors[{edge.producer, edge.consumer}];
      error = std::max(error, edge.elements);
    }
  }
}

/// The cycles of the boundary transfers of a timestep, forward or backward,
/// with the stages on `rows`.
std::vector<double>
PipeGroupPlanner::boundaryCycles(llvm::ArrayRef<int64_t> rows,
                                 bool backward) const {
  PipeFlows flows(rows);
  if (!backward) {
    for (const auto &[producer, tensor] : tensors) {
      double bytes = tensor.elements * stepBytes;
      int from = stageOf[producer];
      if (from < 0) {
        for (int to : tensor.readingStages)
          flows.addFromOutside(to, bytes);
        continue;
      }
      if (tensor.farthestStage > from)
        flows.addBetweenStages(from, tensor.farthestStage, bytes);
      if (tensor.readOutside)
        flows.addToOutside(from, bytes);
    }
  } else {
    for (const auto &[edge, elements] : errors) {
      // Errors go from the consumer back to the producer.
      int from = stageOf[edge.second], to = stageOf[edge.first];
      double bytes = elements * stepBytes;
      if (from >= 0 && to >= 0)
        flows.addBetweenStages(from, to, bytes);
      else if (to >= 0)
        flows.addFromOutside(to, bytes);
      else
        flows.addToOutside(from, bytes);
    }
  }
  return flows.boundaryCycles(system);
}

/// The group's wall-clock time with the stages on `rows`.
GroupSchedule PipeGroupPlanner::schedule(llvm::ArrayRef<int64_t> rows) const {
  GroupSchedule s;
  std::vector<double> fwd, bwd;
  for (int stage = 0; stage < k; ++stage) {
    const StageOption &option = options[stage][rows[stage] - 1];
    if (option.cycles == kInfinity)
      return s;
    auto perStep = [&](int pass) {
      return option.passes[pass]
                 ? option.passes[pass]->cycles.total / double(timesteps)
                 : 0.0;
    };
    fwd.push_back(perStep(int(TrainingPass::FWD)));
    bwd.push_back(perStep(int(TrainingPass::BWD)));
    if (const auto &upd = option.passes[int(TrainingPass::UPD)])
      s.update = std::max(s.update, upd->cycles.total);
  }
  s.forward = pipelineTiming(fwd, boundaryCycles(rows, false), timesteps);
  if (anyBackward)
    s.backward = pipelineTiming(bwd, boundaryCycles(rows, true), timesteps);
  s.cycles = s.forward.total + s.backward.total + s.update;
  return s;
}

/// Rows by work, then single-row moves while the group gets faster: the
/// final `rows` and their schedule.
GroupSchedule PipeGroupPlanner::allocateRows(std::vector<int64_t> &rows) const {
  std::vector<double> work;
  for (int layer : group)
    work.push_back(graph.layers[layer].shape.macs());
  rows = rowsByWork(work, torusRows);
  GroupSchedule current = schedule(rows);
  for (int64_t move = 0; move < 4 * torusRows; ++move) {
    std::vector<int64_t> bestRows;
    GroupSchedule bestMove = current;
    for (int from = 0; from < k; ++from) {
      if (rows[from] == 1)
        continue;
      for (int to = 0; to < k; ++to) {
        if (to == from)
          continue;
        std::vector<int64_t> candidate = rows;
        --candidate[from];
        ++candidate[to];
        GroupSchedule s = schedule(candidate);
        if (s.cycles < bestMove.cycles) {
          bestMove = s;
          bestRows = candidate;
        }
      }
    }
    if (bestRows.empty())
      break;
    rows = std::move(bestRows);
    current = bestMove;
  }
  return current;
}

/// A stage's evaluations and its share of the wall time, on its `rows`
/// from `firstRow`.
PipeStagePlan PipeGroupPlanner::stagePlan(int stage,
                                          llvm::ArrayRef<int64_t> rows,
                                          const GroupSchedule &current,
                                          int64_t firstRow) const {
  const LayerNode &layer = graph.layers[group[stage]];
  const StageOption &option = options[stage][rows[stage] - 1];
  PipeStagePlan stagePlan;
  stagePlan.layer = group[stage];
  stagePlan.assignment.firstRow = firstRow;
  stagePlan.assignment.rows = rows[stage];
  stagePlan.assignment.stage = stage;
  const double share = double(rows[stage]) / double(torusRows);
  bool runs[kNumPasses] = {layer.fwd, layer.bwd, layer.upd};
  for (int pass = 0; pass < kNumPasses; ++pass) {
    if (!runs[pass])
      continue;
    const Evaluation &eval = *option.passes[pass];
    stagePlan.passes.push_back(eval);
    stagePlan.cycles.push_back(
        stagePassCycles(eval, pass, rows, current, share));
  }
  return stagePlan;
}

/// A stage pass's `share` of the group's wall time: its own evaluation
/// scaled, the boundary transfers no compute hides as ovldt_visible, and
/// the rest as underuse.
CycleBreakdown PipeGroupPlanner::stagePassCycles(const Evaluation &eval,
                                                 int pass,
                                                 llvm::ArrayRef<int64_t> rows,
                                                 const GroupSchedule &current,
                                                 double share) const {
  CycleBreakdown cycles;
  cycles.useful = eval.cycles.useful * share;
  cycles.underuse = eval.cycles.underuse * share;
  cycles.ovldtVisible = eval.cycles.ovldtVisible * share;
  cycles.nonOvldt = eval.cycles.nonOvldt * share;
  cycles.auxComp = eval.cycles.auxComp * share;
  double wall = current.update;
  double linkBound = 0;
  if (pass != int(TrainingPass::UPD)) {
    const PipelineTiming &timing =
        pass == int(TrainingPass::FWD) ? current.forward : current.backward;
    wall = timing.total;
    // Boundary transfers on a timestep's way through the group, and the
    // steady state's excess over the slowest stage: links, not compute.
    double stagesFill = 0;
    for (int other = 0; other < k; ++other)
      if (const auto &otherEval = options[other][rows[other] - 1].passes[pass])
        stagesFill += otherEval->cycles.total / double(timesteps);
    linkBound = (timing.fill - stagesFill) +
                double(timesteps - 1) * (timing.period - timing.computePeriod);
  }
  cycles.ovldtVisible += linkBound * share;
  cycles.underuse +=
      std::max(0.0, (wall - eval.cycles.total - linkBound) * share);
  cycles.total = cycles.useful + cycles.underuse + cycles.ovldtVisible +
                 cycles.nonOvldt + cycles.auxComp;
  return cycles;
}

std::optional<PipeGroupPlan> TimestepPipeliner::plan(const LayerGraph &graph,
                                                     llvm::ArrayRef<int> group,
                                                     Executor &executor) const {
  const int k = int(group.size());
  const int64_t torusRows = model.getSystem().torus.y.size;
  if (k < 2 || k > torusRows)
    return std::nullopt;
  PipeGroupPlanner planner(model, graph, group);
  PipeGroupPlan best;
  planner.exploreStages(search, reuseWeightsAcrossSteps, parallelisms, executor,
                        best);
  planner.collectEdges();
  std::vector<int64_t> rows;
  GroupSchedule current = planner.allocateRows(rows);
  if (current.cycles == kInfinity)
    return std::nullopt;

  //--- The plan: each stage's evaluations and its share of the wall time.
  best.forward = current.forward;
  best.backward = current.backward;
  best.update = current.update;
  best.cycles = current.cycles;
  int64_t firstRow = 0;
  for (int stage = 0; stage < k; ++stage) {
    best.stages.push_back(planner.stagePlan(stage, rows, current, firstRow));
    firstRow += rows[stage];
  }
  return best;
}

//===- PipelineParallelism.cpp - Runs of layers as pipeline stages --------===//
//
// The pipeline's pieces (PipelineParallelism.h): what the mapper's search
// over pipelines (PipelineSearch.cpp) and the report build on.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Spatial/PipelineParallelism.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace dsm::core;

llvm::StringRef dsm::core::stringifyPipelineSchedule(PipelineSchedule s) {
  return s == PipelineSchedule::GPipe ? "gpipe" : "1f1b";
}

std::optional<PipelineSchedule>
dsm::core::symbolizePipelineSchedule(llvm::StringRef name) {
  if (name == "gpipe")
    return PipelineSchedule::GPipe;
  if (name == "1f1b")
    return PipelineSchedule::OneFOneB;
  return std::nullopt;
}

int64_t dsm::core::graphBatch(const LayerGraph &graph) {
  int64_t batch = 0;
  for (const LayerNode &layer : graph.layers)
    if (int64_t mb = layer.shape.get(Dim::MB); mb > 1)
      batch = std::gcd(batch, mb);
  return std::max<int64_t>(batch, 1);
}

LayerShape dsm::core::microbatchShape(const LayerShape &shape,
                                      int64_t microbatches) {
  LayerShape part = shape;
  int64_t &mb = part.dims[int(Dim::MB)];
  if (microbatches > 1 && mb % microbatches == 0) {
    mb /= microbatches;
    part.auxOps /= double(microbatches);
    for (double *saved :
         {&part.saved.inputs, &part.saved.kernels, &part.saved.outputs,
          &part.saved.masks, &part.saved.attention, &part.saved.attentionMasks,
          &part.auxKernels.readElements, &part.auxKernels.writtenElements,
          &part.auxKernels.dropoutElements, &part.auxKernels.maskBytes})
      *saved /= double(microbatches);
  }
  return part;
}

LayerGraph dsm::core::microbatchGraph(const LayerGraph &graph,
                                      int64_t microbatches) {
  LayerGraph part = graph;
  std::vector<bool> divided(graph.layers.size());
  for (size_t i = 0; i < graph.layers.size(); ++i) {
    LayerNode &layer = part.layers[i];
    layer.shape = microbatchShape(layer.shape, microbatches);
    divided[i] = layer.shape.get(Dim::MB) != graph.layers[i].shape.get(Dim::MB);
    if (divided[i])
      layer.outputElements /= double(microbatches);
  }
  for (LayerEdge &edge : part.edges)
    if (divided[edge.producer])
      edge.elements /= double(microbatches);
  return part;
}

LayerGraph dsm::core::stageGraph(const LayerGraph &graph, int first, int last) {
  LayerGraph stage;
  stage.layers.assign(graph.layers.begin() + first,
                      graph.layers.begin() + last);
  for (const LayerEdge &edge : graph.edges) {
    bool from = edge.producer >= first && edge.producer < last;
    bool to = edge.consumer >= first && edge.consumer < last;
    if (from && to) {
      LayerEdge inside = edge;
      inside.producer -= first;
      inside.consumer -= first;
      stage.edges.push_back(inside);
    } else if (from) {
      stage.layers[edge.producer - first].sentToLaterStage = true;
    } else if (to) {
      stage.layers[edge.consumer - first].receivedElements += edge.elements;
    }
  }
  // A stage holds its own copy of a weight an earlier stage holds.
  for (const SharedParameters &shared : graph.sharedParameters)
    if (shared.holder >= first && shared.reader < last &&
        shared.reader >= first)
      stage.sharedParameters.push_back(
          {shared.holder - first, shared.reader - first, shared.elements});
  return stage;
}

std::vector<int>
dsm::core::balanceStagesAtBlocks(llvm::ArrayRef<double> cost,
                                 llvm::ArrayRef<int> blockStarts, int stages) {
  if (int(blockStarts.size()) < stages)
    return balanceStages(cost, stages);
  std::vector<double> blockCost(blockStarts.size(), 0.0);
  for (size_t b = 0; b < blockStarts.size(); ++b) {
    const size_t end =
        b + 1 < blockStarts.size() ? size_t(blockStarts[b + 1]) : cost.size();
    for (size_t i = size_t(blockStarts[b]); i < end; ++i)
      blockCost[b] += cost[i];
  }
  std::vector<int> firsts = balanceStages(blockCost, stages);
  for (int &first : firsts)
    first = blockStarts[size_t(first)];
  return firsts;
}

std::vector<int> dsm::core::balanceStages(llvm::ArrayRef<double> cost,
                                          int stages) {
  const int n = int(cost.size());
  // Cuts greedily under a bound on a stage's sum, cutting early where the
  // layers left are only as many as the stages left; the count of runs.
  auto cut = [&](double bound, std::vector<int> *firsts) {
    int runs = 1;
    double sum = 0;
    if (firsts)
      firsts->assign(1, 0);
    for (int i = 0; i < n; ++i) {
      bool full = i > 0 && sum + cost[i] > bound;
      bool forced = firsts && i > 0 && n - i == stages - runs;
      if (full || forced) {
        ++runs;
        sum = 0;
        if (firsts)
          firsts->push_back(i);
      }
      sum += cost[i];
    }
    return runs;
  };
  double low = 0, high = 0;
  for (double c : cost) {
    low = std::max(low, c);
    high += c;
  }
  // Bisection on the bound: 60 halvings leave it within 2^-60 of the sum.
  for (int step = 0; step < 60 && high > low; ++step) {
    double middle = low + (high - low) / 2;
    if (cut(middle, nullptr) <= stages)
      high = middle;
    else
      low = middle;
  }
  std::vector<int> firsts;
  cut(high, &firsts);
  // Fewer runs than stages only when the bound holds every layer in fewer;
  // the remaining stages take one layer each from the longest runs' ends.
  while (int(firsts.size()) < stages) {
    std::vector<int> bounds = firsts;
    bounds.push_back(n);
    int longest = 0;
    for (int s = 1; s + 1 < int(bounds.size()); ++s)
      if (bounds[s + 1] - bounds[s] > bounds[longest + 1] - bounds[longest])
        longest = s;
    firsts.insert(firsts.begin() + longest + 1, bounds[longest + 1] - 1);
  }
  return firsts;
}

std::vector<int64_t> dsm::core::microbatchCounts(int64_t batch, int64_t stages,
                                                 int64_t stageRows) {
  std::vector<int64_t> counts;
  for (int64_t m = stages; m <= 8 * stages && batch % m == 0; m *= 2)
    counts.push_back(m);
  for (int64_t perRow : {1, 2}) {
    int64_t samples = stageRows * perRow;
    if (samples <= 0 || batch % samples != 0)
      continue;
    int64_t m = batch / samples;
    if (m >= stages)
      counts.push_back(m);
  }
  llvm::sort(counts);
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

int64_t dsm::core::microbatchesInFlight(PipelineSchedule schedule, int stage,
                                        int stages, int64_t microbatches) {
  if (schedule == PipelineSchedule::GPipe)
    return microbatches;
  return std::min<int64_t>(microbatches, stages - stage);
}

PipelineStepTiming dsm::core::pipelineStepTiming(
    PipelineSchedule schedule, llvm::ArrayRef<double> forward,
    llvm::ArrayRef<double> backward, llvm::ArrayRef<double> update,
    llvm::ArrayRef<double> forwardLinks, llvm::ArrayRef<double> backwardLinks,
    int64_t microbatches) {
  PipelineStepTiming timing;
  const size_t stages = forward.size();
  if (schedule == PipelineSchedule::GPipe) {
    timing.forward = pipelineTiming(forward, forwardLinks, microbatches);
    timing.backward = pipelineTiming(backward, backwardLinks, microbatches);
  } else {
    // One forward and one backward per period; a microbatch's activations
    // and its error cross a boundary in opposite directions, so the period
    // waits for the busier one and the fill for both.
    std::vector<double> both(stages), busier(forwardLinks.size());
    double otherWay = 0;
    for (size_t s = 0; s < stages; ++s)
      both[s] = forward[s] + backward[s];
    for (size_t j = 0; j < busier.size(); ++j) {
      busier[j] = std::max(forwardLinks[j], backwardLinks[j]);
      otherWay += std::min(forwardLinks[j], backwardLinks[j]);
    }
    timing.forward = pipelineTiming(both, busier, microbatches);
    timing.forward.fill += otherWay;
    timing.forward.total += otherWay;
  }
  for (double u : update)
    timing.update = std::max(timing.update, u);
  const double pipeline = timing.forward.total + timing.backward.total;
  timing.total = pipeline + timing.update;
  double busy = 0;
  for (size_t s = 0; s < stages; ++s)
    busy += double(microbatches) * (forward[s] + backward[s]);
  timing.bubbleFraction =
      pipeline > 0 ? 1.0 - busy / (double(stages) * pipeline) : 0;
  return timing;
}

//===----------------------------------------------------------------------===//
// The search
//===----------------------------------------------------------------------===//

double dsm::core::oncePerStepCycles(TrainingPass pass,
                                    llvm::ArrayRef<TransferGroup> transfers,
                                    double total) {
  if (pass != TrainingPass::UPD)
    return 0;
  double cycles = 0;
  for (const TransferGroup &group : transfers) {
    // Compared as StringRefs: lengths first (the bounds ask for every
    // explored UPD of a network).
    llvm::StringRef name = group.name;
    if (name == "grad_reduce+weight_broadcast" || name == "weight_update" ||
        name == "host_update")
      cycles += group.cycles;
  }
  return std::min(cycles, total);
}

CycleBreakdown dsm::core::pipelinedPassCycles(CycleBreakdown perMicrobatch,
                                              double oncePerStep,
                                              int64_t microbatches,
                                              double share) {
  const double m = double(microbatches);
  CycleBreakdown cycles = perMicrobatch;
  for (double *c : {&cycles.useful, &cycles.underuse, &cycles.ovldtVisible,
                    &cycles.nonOvldt, &cycles.auxComp, &cycles.total})
    *c *= m;
  cycles.nonOvldt -= (m - 1) * oncePerStep;
  cycles.total -= (m - 1) * oncePerStep;
  for (double *c : {&cycles.useful, &cycles.underuse, &cycles.ovldtVisible,
                    &cycles.nonOvldt, &cycles.auxComp, &cycles.total})
    *c *= share;
  return cycles;
}

PipelineIdle dsm::core::pipelineIdle(const PipelineRecord &record,
                                     llvm::ArrayRef<double> busy,
                                     int64_t torusRows) {
  const size_t stages = record.stages.size();
  std::vector<double> forward, backward, update;
  for (const PipelineStageRecord &stage : record.stages) {
    forward.push_back(stage.forward);
    backward.push_back(stage.backward);
    update.push_back(stage.update);
  }
  const std::vector<double> freeLinks(stages > 0 ? stages - 1 : 0, 0.0);
  const double freeStep =
      pipelineStepTiming(record.schedule, forward, backward, update, freeLinks,
                         freeLinks, record.microbatches)
          .total;
  PipelineIdle idle;
  for (size_t s = 0; s < stages; ++s) {
    const double share =
        double(record.stages[s].rows) / double(std::max<int64_t>(torusRows, 1));
    const double waitFree = std::max(0.0, freeStep - busy[s]);
    const double wait = std::max(0.0, record.timing.total - busy[s]);
    idle.bubble += waitFree * share;
    idle.sends += std::max(0.0, wait - waitFree) * share;
  }
  return idle;
}

/// The step of a pipeline whose first stages are `planned` and whose other
/// stages are `later`, with free links.
static double stepOfStages(llvm::ArrayRef<PipelineStageRecord> planned,
                           llvm::ArrayRef<PipelineStageRecord> later,
                           PipelineSchedule schedule, int64_t microbatches) {
  std::vector<double> forward, backward, update;
  for (llvm::ArrayRef<PipelineStageRecord> stages : {planned, later})
    for (const PipelineStageRecord &stage : stages) {
      forward.push_back(stage.forward);
      backward.push_back(stage.backward);
      update.push_back(stage.update);
    }
  return pipelineStepTiming(schedule, forward, backward, update,
                            /*forwardLinks=*/{}, /*backwardLinks=*/{},
                            microbatches)
      .total;
}

double dsm::core::pipelineStepLowerBound(
    llvm::ArrayRef<PipelineStageRecord> planned, int numStages,
    llvm::ArrayRef<double> leastStageCycles, int64_t microbatches) {
  // Taken as one-forward-one-backward (a period of a stage's forward and
  // backward together), the step is a bound for GPipe too, whose separate
  // forward and backward periods add up to at least the busiest stage's
  // both; every term only grows with the links and with more work.
  std::vector<PipelineStageRecord> later(numStages - planned.size());
  for (size_t s = 0; s < later.size() && !leastStageCycles.empty(); ++s)
    later[s].forward = leastStageCycles[planned.size() + s];
  return stepOfStages(planned, later, PipelineSchedule::OneFOneB, microbatches);
}

double
dsm::core::foretoldPipelineStep(llvm::ArrayRef<PipelineStageRecord> planned,
                                int numStages, PipelineSchedule schedule,
                                int64_t microbatches) {
  PipelineStageRecord mean;
  for (const PipelineStageRecord &stage : planned) {
    mean.forward += stage.forward / double(planned.size());
    mean.backward += stage.backward / double(planned.size());
    mean.update += stage.update / double(planned.size());
  }
  std::vector<PipelineStageRecord> later(numStages - planned.size(), mean);
  return stepOfStages(planned, later, schedule, microbatches);
}

std::vector<ScheduledPass>
dsm::core::pipelineSchedule(llvm::ArrayRef<double> forward,
                            llvm::ArrayRef<double> backward,
                            int64_t microbatches, PipelineSchedule schedule) {
  const int stages = int(forward.size());
  const int64_t m = std::max<int64_t>(microbatches, 1);
  // Each stage's passes in the order it runs them.
  std::vector<std::vector<ScheduledPass>> order(forward.size());
  for (int s = 0; s < stages; ++s) {
    std::vector<ScheduledPass> &passes = order[size_t(s)];
    auto add = [&](int64_t microbatch, bool isBackward) {
      passes.push_back({s, microbatch, isBackward, 0, 0});
    };
    const int64_t warmup = schedule == PipelineSchedule::GPipe
                               ? m
                               : std::min<int64_t>(m, stages - s);
    int64_t nextForward = 0, nextBackward = 0;
    while (nextForward < warmup)
      add(nextForward++, false);
    while (nextBackward < m) {
      add(nextBackward++, true);
      if (nextForward < m)
        add(nextForward++, false);
    }
  }
  // Each pass at the earliest its stage and input allow; the orders are
  // consistent, so every sweep schedules some pass until all are.
  std::vector<std::vector<double>> forwardEnd(
      size_t(stages), std::vector<double>(size_t(m), -1)),
      backwardEnd = forwardEnd;
  std::vector<size_t> next(size_t(stages), 0);
  std::vector<double> free(size_t(stages), 0);
  std::vector<ScheduledPass> scheduled;
  scheduled.reserve(size_t(2 * m * stages));
  for (bool progress = true; progress;) {
    progress = false;
    for (int s = 0; s < stages; ++s) {
      while (next[size_t(s)] < order[size_t(s)].size()) {
        ScheduledPass pass = order[size_t(s)][next[size_t(s)]];
        const size_t b = size_t(pass.microbatch);
        double ready = 0;
        if (!pass.backward && s > 0)
          ready = forwardEnd[size_t(s - 1)][b];
        else if (pass.backward && s + 1 < stages)
          ready = backwardEnd[size_t(s + 1)][b];
        else if (pass.backward)
          ready = forwardEnd[size_t(s)][b];
        if (ready < 0)
          break;
        pass.start = std::max(free[size_t(s)], ready);
        pass.end = pass.start +
                   (pass.backward ? backward[size_t(s)] : forward[size_t(s)]);
        (pass.backward ? backwardEnd : forwardEnd)[size_t(s)][b] = pass.end;
        free[size_t(s)] = pass.end;
        scheduled.push_back(pass);
        ++next[size_t(s)];
        progress = true;
      }
    }
  }
  return scheduled;
}

//===- MappingProblem.cpp - What the spatial mapper solves ----------------===//

#include "dsm/Core/Spatial/MappingProblem.h"

#include "dsm/Core/Support/NodeError.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/bit.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <functional>
#include <limits>

using namespace dsm::core;

/// An activation x activation product computes both operands' errors in BWD:
/// the UPD-shaped half is costed with the same configuration and added.
static void addSecondOperandError(const PerformanceModel &model,
                                  const LayerShape &shape, TrainingPass pass,
                                  Evaluation &eval) {
  if (pass != TrainingPass::BWD || !shape.hasPrimary || shape.hasWeights)
    return;
  std::optional<Evaluation> other =
      model.evaluate(shape, TrainingPass::UPD, eval.config);
  if (!other)
    return;
  eval.cycles += other->cycles;
  eval.ovldt += other->ovldt;
  eval.macs += other->macs;
  mergeTransfers(eval.transfers, other->transfers);
  eval.utilization =
      eval.cycles.total > 0 ? eval.cycles.useful / eval.cycles.total : 0;
}

std::optional<Evaluation> dsm::core::evaluateMappedPass(
    const PerformanceModel &model, const LayerShape &shape, TrainingPass pass,
    const MappingConfig &config, std::string *whyNot) {
  std::optional<Evaluation> eval = model.evaluate(shape, pass, config, whyNot);
  if (eval)
    addSecondOperandError(model, shape, pass, *eval);
  return eval;
}

MemoryDecision dsm::core::onChipDecision(OnChip what, TrainingPass pass) {
  MemoryDecision memory;
  bool own = what == OnChip::Own || what == OnChip::OwnAndShortcut ||
             what == OnChip::OwnAndSpatialShortcut;
  if (own) {
    if (pass == TrainingPass::FWD)
      memory.inputOnChip = true;
    else
      memory.errorOnChip = true;
  }
  memory.shortcutOnChip = what != OnChip::Nothing && what != OnChip::Own;
  memory.shortcutPerSpatialMinibatch =
      what == OnChip::SpatialShortcut || what == OnChip::OwnAndSpatialShortcut;
  return memory;
}

/// Whether `layer` takes the named parallelism `p`: a layer with weights
/// does (the name says how weights split: tensor, model or data
/// parallelism), unless `p` cannot split it over the chips whatever its
/// minibatch (too few output features) or needs a minibatch the layer does
/// not have (a position embedding). A minibatch too small for the split (a
/// pipeline's microbatch) leaves the layer with no legal mapping: that plan
/// is not the named strategy.
static bool takesNamedParallelism(const PerformanceModel &model,
                                  const LayerNode &layer, Parallelism p) {
  if (!layer.shape.hasWeights)
    return false;
  LayerShape anyMinibatch = layer.shape;
  int64_t &minibatch = anyMinibatch.dims[int(Dim::MB)];
  minibatch = std::max<int64_t>(minibatch, model.numChips());
  const bool runs[kNumPasses] = {layer.fwd, layer.bwd, layer.upd};
  bool splits = true, splitsAnyMinibatch = true;
  for (int pass = 0; pass < kNumPasses; ++pass) {
    if (!runs[pass])
      continue;
    splits = splits && model.chipSplit(layer.shape, TrainingPass(pass), p);
    splitsAnyMinibatch = splitsAnyMinibatch &&
                         model.chipSplit(anyMinibatch, TrainingPass(pass), p);
  }
  return splits || (splitsAnyMinibatch && layer.shape.get(Dim::MB) > 1);
}

llvm::Expected<MappingProblem>
MappingProblem::create(const PerformanceModel &model, const LayerGraph &graph,
                       const MapperOptions &options,
                       llvm::ArrayRef<int64_t> preloadBudgets) {
  if (llvm::Error error = graph.check())
    return std::move(error);
  MappingProblem problem;
  problem.costModel = &model;
  problem.layerGraph = &graph;
  problem.mapperOptions = &options;
  problem.budgets = preloadBudgets;
  for (int q = 0; q < kNumParallelisms; ++q)
    if (model.isAvailable(Parallelism(q)) &&
        (options.parallelisms.empty() ||
         llvm::is_contained(options.parallelisms, Parallelism(q))))
      problem.allowedParallelisms.push_back(Parallelism(q));
  if (problem.allowedParallelisms.empty())
    return llvm::createStringError(
        "none of the allowed parallelisms is available on this system");
  if (options.namedParallelism &&
      !llvm::is_contained(problem.allowedParallelisms,
                          *options.namedParallelism))
    return llvm::createStringError(
        "parallelism=" + stringifyParallelism(*options.namedParallelism).str() +
        " is not available on this system");
  // A layer's option: a parallelism and a DySM factor (DeepSpatialMatrix
  // §III-C), chosen jointly over the graph because reuse between two layers
  // needs both.
  problem.factors = {1};
  if (options.spatialMinibatching)
    problem.factors = {1, 2, 4, 8};
  problem.allowed.assign(problem.numOptions(), false);
  for (Parallelism p : problem.allowedParallelisms)
    for (size_t f = 0; f < problem.factors.size(); ++f)
      problem.allowed[int(f) * kNumParallelisms + int(p)] = true;
  problem.inference = llvm::none_of(graph.layers, [](const LayerNode &layer) {
    return layer.bwd || layer.upd;
  });
  const size_t n = graph.layers.size();
  problem.named.assign(n, std::nullopt);
  if (std::optional<Parallelism> p = options.namedParallelism)
    for (size_t i = 0; i < n; ++i)
      if (takesNamedParallelism(model, graph.layers[i], *p))
        problem.named[i] = *p;
  problem.in.resize(n);
  problem.out.resize(n);
  for (size_t e = 0; e < graph.edges.size(); ++e) {
    problem.in[graph.edges[e].consumer].push_back(int(e));
    problem.out[graph.edges[e].producer].push_back(int(e));
  }
  problem.capacity = model.getSystem().chip.core.scratchpad.capacityBytes;
  problem.coresInSystem = double(model.numChips() * model.numCores());
  return problem;
}

double MappingProblem::shareOfEveryCore(double elements) const {
  return std::ceil(elements / coresInSystem) * costModel->bytesPerElement();
}

//===----------------------------------------------------------------------===//
// ExplorationProgress
//===----------------------------------------------------------------------===//

void ExplorationProgress::plan(size_t explorations) {
  if (total == 0)
    total = int64_t(explorations) * mappings;
}

bool ExplorationProgress::shouldStop() {
  std::lock_guard<std::mutex> lock(mutex);
  if (!stopped && sink.shouldStop())
    stopped = true;
  return stopped;
}

void ExplorationProgress::explored() {
  std::lock_guard<std::mutex> lock(mutex);
  ++done;
  sink.step(std::min(done, total - 1), total, Progress::kNoBest);
}

void ExplorationProgress::finish() {
  if (total > 0)
    sink.step(total, total, Progress::kNoBest);
}

llvm::Error ExplorationProgress::makeError() const {
  return llvm::make_error<InterruptedError>(std::min(done, total), total,
                                            "explorations");
}

//===----------------------------------------------------------------------===//
// ExplorationTable
//===----------------------------------------------------------------------===//

ExplorationTable::ExplorationTable(const MappingProblem &problem,
                                   ExplorationMemo *memo)
    : problem(problem), memo(memo),
      explorer(problem.model(), problem.options().search,
               problem.options().reuseWeightsAcrossSteps) {
  const size_t n = problem.numLayers();
  std::array<int32_t, kNumPasses * kNumOnChip> none;
  none.fill(-1);
  rowOf.assign(n, none);
  // Two layers with equal shapes (the name aside) have the same best
  // configurations: one number per distinct shape keys the memo.
  llvm::StringMap<int32_t> shapes;
  shapeOf.resize(n);
  for (size_t i = 0; i < n; ++i)
    shapeOf[i] = shapes
                     .try_emplace(layerShapeKey(problem.layer(int(i)).shape),
                                  int32_t(shapes.size()))
                     .first->second;
  memoShapeOf.resize(shapes.size());
  largestShare.assign(shapes.size() * kNumParallelisms * kFactorBitValues, -1);
  // About a task per distinct shape, pass and option: the key map need not
  // grow (a network of repeated blocks has few).
  const size_t perShape = size_t(kNumPasses) * size_t(problem.numOptions());
  tasks.reserve(shapes.size() * perShape);
  taskOfKey.reserve(shapes.size() * perShape);
  if (problem.preloadBudgets().empty()) {
    taskOfRequest.assign(shapes.size() * perShape * kNumOnChip, -1);
    templateOf.assign(shapes.size() * kNumPasses * kNumOnChip, Template());
  }
  // Rows as a network asks them (each pass with its own output and, where
  // the add-ons ask, one kind of reuse more), so that the slots, millions
  // in a deep network, do not grow by copies; pages not written are never
  // faulted in.
  slots.reserve(n * size_t(kNumPasses) * 2 * size_t(problem.numOptions()));
}

uint64_t ExplorationTable::memoShapeNumber(int layer) {
  std::optional<uint64_t> &number = memoShapeOf[shapeOf[layer]];
  if (!number)
    number = memo->numberOf(problem.layer(layer).shape);
  return *number;
}

int32_t &ExplorationTable::slot(int layer, TrainingPass pass, int option,
                                OnChip what) {
  assert(!rowsShared && "every request comes before run()");
  int32_t &row = rowOf[layer][int(pass) * kNumOnChip + int(what)];
  const size_t width = size_t(problem.numOptions());
  if (row < 0 || rowIsTemplate[size_t(row)]) {
    // A new row, or a copy of a template's to write to (the template stays
    // as it was for the layers still to take it).
    const int32_t from = row;
    row = int32_t(slots.size() / width);
    slots.resize(slots.size() + width, -1);
    rowIsTemplate.push_back(false);
    if (from >= 0)
      std::copy_n(slots.begin() + size_t(from) * width, width,
                  slots.begin() + size_t(row) * width);
  }
  return slots[size_t(row) * width + option];
}

int32_t ExplorationTable::lookUp(int layer, TrainingPass pass, int option,
                                 OnChip what) const {
  int32_t row = rowOf[layer][int(pass) * kNumOnChip + int(what)];
  return row < 0 ? -1 : slots[size_t(row) * problem.numOptions() + option];
}

void ExplorationTable::request(int layer, TrainingPass pass, int option,
                               OnChip what) {
  // Without preload budgets a request's task is its shape's: asked again
  // for an equal layer (a network of repeated blocks asks mostly so), it
  // is found without building its key.
  int32_t *known = nullptr;
  if (!taskOfRequest.empty()) {
    known =
        &taskOfRequest[((size_t(shapeOf[layer]) * kNumPasses + size_t(pass)) *
                            size_t(problem.numOptions()) +
                        size_t(option)) *
                           kNumOnChip +
                       size_t(what)];
    if (*known >= 0) {
      ++memoizedRequests;
      slot(layer, pass, option, what) = *known;
      return;
    }
  }
  MemoryDecision memory = onChipDecision(what, pass);
  memory.spatialMinibatches = problem.factorOf(option);
  llvm::ArrayRef<int64_t> budgets = problem.preloadBudgets();
  const Parallelism parallelism = problem.parallelismOf(option);
  // Factors are 1, 2, 4 or 8: two bits of their logarithm.
  const uint64_t factorBits =
      uint64_t(llvm::countr_zero(uint64_t(memory.spatialMinibatches)));
  bool recurs = true;
  if (pass == TrainingPass::FWD && !budgets.empty() &&
      problem.layer(layer).shape.hasWeights && budgets[layer] > 0) {
    // Each configuration preloads at most its own share of the weights: a
    // budget above every share is the same exploration whatever its size,
    // and keyed so (the scenarios of a preloading sweep then share it).
    int64_t &share = largestShare[(size_t(shapeOf[layer]) * kNumParallelisms +
                                   size_t(parallelism)) *
                                      kFactorBitValues +
                                  factorBits];
    auto compute = [&] {
      return explorer.largestWeightShare(problem.layer(layer).shape, pass,
                                         parallelism, memory);
    };
    if (share < 0)
      share = memo
                  ? memo->largestWeightShare(memoShapeNumber(layer), pass,
                                             parallelism,
                                             memory.spatialMinibatches, compute)
                  : compute();
    memory.preloadedWeightBytes = std::min(budgets[layer], share);
    recurs = budgets[layer] >= share;
  }
  const uint64_t key = (uint64_t(shapeOf[layer]) << 16) |
                       (uint64_t(pass) << 12) | (uint64_t(parallelism) << 8) |
                       (uint64_t(what) << 4) | factorBits;
  const ExplorationMemo::Key memoKey(key, memory.preloadedWeightBytes);
  auto [it, inserted] = taskOfKey.try_emplace(memoKey, int32_t(tasks.size()));
  if (inserted)
    tasks.push_back({layer, pass, parallelism, memory, memoKey, recurs});
  else
    ++memoizedRequests;
  slot(layer, pass, option, what) = it->second;
  if (known)
    *known = it->second;
}

uint64_t MappingProblem::usableOptions(int layer) const {
  assert(numOptions() <= 64 && "an option is a bit of the result");
  uint64_t options = 0;
  for (int o = 0; o < numOptions(); ++o)
    if (usable(layer, o))
      options |= uint64_t(1) << o;
  return options;
}

uint64_t MappingProblem::groupingOptions(int layer) const {
  uint64_t options = usableOptions(layer);
  for (int o = 0; o < numOptions(); ++o)
    if (factorOf(o) == 1)
      options &= ~(uint64_t(1) << o);
  return options;
}

void ExplorationTable::requestUsable(int layer, TrainingPass pass,
                                     OnChip what) {
  requestOptions(layer, pass, what, problem.usableOptions(layer));
}

void ExplorationTable::requestOptions(int layer, TrainingPass pass, OnChip what,
                                      uint64_t options) {
  const int numOptions = problem.numOptions();
  assert(numOptions <= 64 && "an option is a bit of `options`");
  // A layer not yet asked this takes the row the last layer of its shape
  // made of it, where both asked for the same options: every option's task
  // is its shape's, so the rows are equal (a network's repeated blocks ask
  // it of every block).
  int32_t &ownRow = rowOf[layer][int(pass) * kNumOnChip + int(what)];
  Template *made = nullptr;
  if (ownRow < 0 && !taskOfRequest.empty()) {
    made = &templateOf[(size_t(shapeOf[layer]) * kNumPasses + size_t(pass)) *
                           kNumOnChip +
                       size_t(what)];
    if (made->row >= 0 && made->options == options) {
      ownRow = made->row;
      memoizedRequests += uint64_t(llvm::popcount(options));
      return;
    }
  }
  // As request()'s first look-up, for every option at once: the tasks of
  // the layer's shape by option (kNumOnChip apart), and the layer's row.
  const int32_t *known =
      taskOfRequest.empty()
          ? nullptr
          : &taskOfRequest[(size_t(shapeOf[layer]) * kNumPasses +
                            size_t(pass)) *
                               size_t(numOptions) * kNumOnChip +
                           size_t(what)];
  int32_t *row = nullptr;
  for (int o = 0; o < numOptions; ++o) {
    if (!((options >> o) & 1))
      continue;
    if (!known || known[size_t(o) * kNumOnChip] < 0) {
      request(layer, pass, o, what);
      row = nullptr; // request() may have grown the slots
      continue;
    }
    if (!row)
      row = &slot(layer, pass, 0, what);
    row[o] = known[size_t(o) * kNumOnChip];
    ++memoizedRequests;
  }
  // The row made here is the template of its shape's layers to come:
  // written again, it is copied first (slot()).
  if (made && ownRow >= 0) {
    *made = {ownRow, options};
    rowIsTemplate[size_t(ownRow)] = true;
  }
}

void ExplorationTable::shareEqualRows() {
  // A row of options per layer, pass and kind of reuse: millions in a deep
  // network, and layers of one shape asked alike (a network's repeated
  // blocks) hold equal rows. Made one, the table holds a few hundred, and
  // the bests the add-ons read most stay in the cache.
  const size_t width = size_t(problem.numOptions());
  const size_t numRows = width ? slots.size() / width : 0;
  std::vector<int32_t> shared;
  std::vector<int32_t> sharedRow(numRows);
  llvm::DenseMap<uint64_t, llvm::SmallVector<int32_t, 1>> rowsByHash;
  for (size_t r = 0; r < numRows; ++r) {
    llvm::ArrayRef<int32_t> row(slots.data() + r * width, width);
    llvm::SmallVector<int32_t, 1> &alike =
        rowsByHash[uint64_t(llvm::hash_combine_range(row.begin(), row.end()))];
    auto equal = llvm::find_if(alike, [&](int32_t s) {
      return llvm::ArrayRef<int32_t>(shared.data() + size_t(s) * width,
                                     width) == row;
    });
    if (equal != alike.end()) {
      sharedRow[r] = *equal;
      continue;
    }
    sharedRow[r] = int32_t(shared.size() / width);
    alike.push_back(sharedRow[r]);
    shared.insert(shared.end(), row.begin(), row.end());
  }
  slots = std::move(shared);
  rowIsTemplate.clear();
  templateOf.clear();
  for (std::array<int32_t, kNumPasses * kNumOnChip> &rows : rowOf)
    for (int32_t &row : rows)
      if (row >= 0)
        row = sharedRow[size_t(row)];
  rowsShared = true;
}

llvm::Error ExplorationTable::run(Executor &executor,
                                  ExplorationProgress &progress) {
  const double capacity = problem.scratchpadCapacity();
  results.assign(tasks.size(), nullptr);
  served.assign(tasks.size(), false);
  std::vector<size_t> toExplore;
  // The table numbers its own shapes; the memo, shared by mappings of other
  // graphs (the stages of a pipeline), keys them by its numbering.
  std::vector<ExplorationMemo::Key> memoKeys;
  if (memo) {
    memoKeys.reserve(tasks.size());
    for (const Task &task : tasks)
      memoKeys.push_back(
          ExplorationMemo::keyOf(task.key, memoShapeNumber(task.layer)));
  }
  for (size_t t = 0; t < tasks.size(); ++t) {
    if (memo)
      results[t] = memo->find(memoKeys[t], capacity);
    served[t] = results[t] != nullptr;
    if (!served[t])
      toExplore.push_back(t);
  }
  progress.plan(toExplore.size());
  // A sweep's FWD explorations that its mappings to come may ask for again
  // also find the best with their scratchpads (BWD's second-operand half is
  // evaluated with this scratchpad only).
  std::vector<double> capacities = {capacity};
  if (memo) {
    std::vector<double> below = memo->expectedBelow(capacity);
    capacities.insert(capacities.end(), below.begin(), below.end());
  }
  std::vector<std::vector<std::shared_ptr<const ExplorationResult>>> smaller(
      toExplore.size());
  // Each task writes its own result, so the table does not depend on the
  // executor.
  executor.parallelFor(toExplore.size(), [&](size_t i) {
    if (progress.shouldStop())
      return;
    const size_t t = toExplore[i];
    const Task &task = tasks[t];
    const LayerShape &shape = problem.layer(task.layer).shape;
    if (task.pass == TrainingPass::FWD && task.recurs &&
        capacities.size() > 1) {
      // FWD: no second operand's error to add.
      smaller[i] = explorer.exploreCapacities(
          shape, task.pass, task.parallelism, task.memory, capacities);
      results[t] = smaller[i].front();
    } else {
      ExplorationResult result =
          explorer.explore(shape, task.pass, task.parallelism, task.memory);
      if (result.best)
        addSecondOperandError(problem.model(), shape, task.pass, *result.best);
      results[t] = std::make_shared<const ExplorationResult>(std::move(result));
    }
    progress.explored();
  });
  if (progress.wasStopped())
    return progress.makeError();
  explored = toExplore.size();
  shareEqualRows();
  // Each task's best once; the slots only look it up.
  std::vector<const Evaluation *> bestOfTask(tasks.size(), nullptr);
  for (size_t t = 0; t < tasks.size(); ++t)
    if (results[t] && results[t]->best)
      bestOfTask[t] = &*results[t]->best;
  bestOfSlot.resize(slots.size());
  for (size_t s = 0; s < slots.size(); ++s)
    bestOfSlot[s] = slots[s] >= 0 ? bestOfTask[slots[s]] : nullptr;
  if (!memo)
    return llvm::Error::success();
  for (size_t i = 0; i < toExplore.size(); ++i) {
    const size_t t = toExplore[i];
    memo->store(memoKeys[t], capacity, results[t]);
    for (size_t c = 1; c < smaller[i].size(); ++c)
      if (smaller[i][c])
        memo->store(memoKeys[t], capacities[c], std::move(smaller[i][c]));
  }
  return llvm::Error::success();
}

uint64_t ExplorationMemo::numberOf(const LayerShape &shape) {
  return shapes.try_emplace(layerShapeKey(shape), uint64_t(shapes.size()))
      .first->second;
}

ExplorationMemo::Key ExplorationMemo::keyOf(Key tableKey,
                                            uint64_t shapeNumber) {
  return {(shapeNumber << 16) | (tableKey.first & 0xFFFF), tableKey.second};
}

int64_t
ExplorationMemo::largestWeightShare(uint64_t shapeNumber, TrainingPass pass,
                                    Parallelism parallelism, int64_t factor,
                                    llvm::function_ref<int64_t()> compute) {
  auto [it, inserted] = largestShares.try_emplace(
      (shapeNumber << 16) | (uint64_t(pass) << 12) |
          (uint64_t(parallelism) << 8) |
          uint64_t(llvm::countr_zero(uint64_t(factor))),
      0);
  if (inserted)
    it->second = compute();
  return it->second;
}

void ExplorationMemo::expectCapacities(std::vector<double> capacities) {
  expected = std::move(capacities);
  llvm::sort(expected, std::greater<double>());
}

std::vector<double> ExplorationMemo::expectedBelow(double capacity) const {
  std::vector<double> below;
  for (double c : expected)
    if (c < capacity && (below.empty() || c < below.back()))
      below.push_back(c);
  return below;
}

std::shared_ptr<const ExplorationResult>
ExplorationMemo::find(Key key, double capacity) const {
  auto it = entries.find(key);
  if (it == entries.end())
    return nullptr;
  // The search with this scratchpad, else the closest larger one whose
  // best fits.
  const Entry *found = nullptr;
  for (const Entry &entry : it->second) {
    if (entry.capacity == capacity)
      return entry.result;
    if (entry.capacity < capacity || entry.bestBytes > capacity)
      continue;
    if (!found || entry.capacity < found->capacity)
      found = &entry;
  }
  return found ? found->result : nullptr;
}

void ExplorationMemo::store(Key key, double capacity,
                            std::shared_ptr<const ExplorationResult> result) {
  const double bestBytes = result->best
                               ? result->best->scratchpadBytes
                               : std::numeric_limits<double>::infinity();
  std::vector<Entry> &kept = entries[key];
  for (Entry &entry : kept)
    if (entry.capacity == capacity) {
      entry.bestBytes = bestBytes;
      entry.result = std::move(result);
      return;
    }
  kept.push_back({capacity, bestBytes, std::move(result)});
}

const ExplorationResult *ExplorationTable::find(int layer, TrainingPass pass,
                                                int option, OnChip what) const {
  int32_t task = lookUp(layer, pass, option, what);
  return task < 0 ? nullptr : results[task].get();
}

const Evaluation *ExplorationTable::best(int layer, TrainingPass pass,
                                         int option, OnChip what) const {
  int32_t row = rowOf[layer][int(pass) * kNumOnChip + int(what)];
  return row < 0 ? nullptr
                 : bestOfSlot[size_t(row) * problem.numOptions() + option];
}

llvm::ArrayRef<const Evaluation *>
ExplorationTable::bests(int layer, TrainingPass pass, OnChip what) const {
  int32_t row = rowOf[layer][int(pass) * kNumOnChip + int(what)];
  if (row < 0)
    return {};
  return llvm::ArrayRef(bestOfSlot)
      .slice(size_t(row) * problem.numOptions(), problem.numOptions());
}

uint64_t ExplorationTable::configurationsEvaluated() const {
  // Those served by the memo were counted by the mapping that ran them.
  uint64_t total = 0;
  for (size_t t = 0; t < results.size(); ++t)
    if (results[t] && !served[t])
      total += results[t]->evaluated;
  return total;
}

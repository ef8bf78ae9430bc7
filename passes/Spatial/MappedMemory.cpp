//===- MappedMemory.cpp - A mapped step's memory, read from the IR --------===//

#include "dsm/Passes/Spatial/MappedMemory.h"

#include "dsm/Core/Spatial/ChipBlocks.h"
#include "dsm/Core/Spatial/PipelineParallelism.h"
#include "dsm/Dialect/DsmDialect.h"
#include "dsm/Dialect/DsmOps.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace dsm;

const core::PerformanceModel &
BlockModels::of(const core::MappingConfig &config) {
  if (config.block.whole())
    return system;
  std::unique_ptr<core::PerformanceModel> &model =
      blocks[{config.block.rows, config.block.columns}];
  if (!model)
    model = std::make_unique<core::PerformanceModel>(core::blockSystem(
        system.getSystem(), config.block.rows, config.block.columns));
  return *model;
}

/// The tiled passes reading `value`, through the transfers between passes;
/// `escapes` is set when anything else reads it (a result of the function).
static void readersOf(Value value, SmallVectorImpl<TiledPassOp> &readers,
                      bool &escapes) {
  for (Operation *user : value.getUsers()) {
    if (auto pass = dyn_cast<TiledPassOp>(user))
      readers.push_back(pass);
    else if (isa<RelayoutOp, RotateOp, GradReduceOp, WeightBroadcastOp>(user))
      readersOf(user->getResult(0), readers, escapes);
    else
      escapes = true;
  }
}

/// The result of a tiled pass that `value` is, through the transfers between
/// passes (null: none, a function argument).
static Value passResult(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (isa<TiledPassOp>(def))
      return value;
    if (!isa<RelayoutOp, RotateOp, GradReduceOp, WeightBroadcastOp>(def))
      return Value();
    value = def->getOperand(0);
  }
  return Value();
}

namespace {
/// A stage of a pipeline (PipelineParallelism.h): its chips' model, the
/// microbatches the step runs and those whose activations it keeps.
struct StageOfPipeline {
  const core::PerformanceModel *model = nullptr;
  int64_t microbatches = 1;
  int64_t inFlight = 1;
};
} // namespace

namespace {
/// Counts the memory of the fullest chip running a run of passes (in step
/// order): the parameters each pass holds and the tensors live across the
/// step, gathered pass by pass.
class PassesMemory {
public:
  PassesMemory(ArrayRef<TiledPassOp> passes,
               const core::PerformanceModel &model, BlockModels &models,
               const StageOfPipeline &stage, core::ActivationKeeping keeping);

  core::MemoryPerChip count(core::Optimizer optimizer);

private:
  void findLastBackwardPasses();
  void countPass(TiledPassOp op);
  void holdParameters(TiledPassOp op, const core::LayerShape &shape,
                      const core::MappingConfig &config,
                      const core::PerformanceModel &passModel, double chips);
  void keepSavedActivations(TiledPassOp op, const core::LayerShape &shape,
                            const core::MappingConfig &config, int step,
                            double activationCopies);
  void countResult(Value result, core::TrainingPass pass,
                   const core::MappingConfig &config, int step, double bytes);
  void countReceivedActivations();
  core::MemoryPerChip total(core::Optimizer optimizer) const;

  /// The bytes a chip of `chips` keeps of `tensor`: `copies` of its
  /// `perMicrobatch` share.
  double bytesPerChip(Value tensor, double chips, double perMicrobatch,
                      double copies) const {
    return std::ceil(
               double(
                   cast<RankedTensorType>(tensor.getType()).getNumElements()) /
               chips * perMicrobatch) *
           model.bytesPerElement() * copies;
  }

  ArrayRef<TiledPassOp> passes;
  const core::PerformanceModel &model;
  BlockModels &models;
  const StageOfPipeline &stage;
  core::ActivationKeeping keeping;

  llvm::DenseMap<Operation *, int> stepOf;
  int end = 0;
  bool training = false;
  // Per layer: the parameter elements a chip holds, and those whose state
  // it keeps (core::heldParameters, as the mapper counts them); with sharded
  // weights, the largest share a pass gathers at once; the state elements a
  // host keeps (ZeRO-Offload).
  std::vector<core::PlacedParameters> parameters;
  // A weight is held once, by the first pass reading it (LayerGraph.h).
  llvm::DenseSet<Value> heldWeights;
  double gatheredElements = 0, offloadedElements = 0;
  std::vector<core::ActivationUse> activations;
  std::vector<core::LiveTensor> others;
  // In training, each layer keeps its saved activations (LayerShape::saved,
  // as the mapper counts them: core::savedBytesPerChip) from its FWD to its
  // last backward pass; of the FWD's results only the network's, to the
  // end. A graph whose layers tell none (IR written by hand) keeps its
  // layers' outputs instead.
  llvm::StringMap<int> lastBackward;
  bool keepsSaved = false;
  bool previousRecomputed = false;
  // A recomputed run ends with its block (LayerGraph::blockStarts).
  StringRef currentBlock;
};
} // namespace

/// The share of a tensor of `whole` that one of `microbatches` holds: a
/// microbatch's (`microbatch` is microbatchShape's), or all of it when the
/// layer has no minibatch to divide.
static double microbatchShare(const core::LayerShape &whole,
                              const core::LayerShape &microbatch,
                              int64_t microbatches) {
  return microbatch.get(core::Dim::MB) != whole.get(core::Dim::MB)
             ? 1.0 / double(microbatches)
             : 1.0;
}

PassesMemory::PassesMemory(ArrayRef<TiledPassOp> passes,
                           const core::PerformanceModel &model,
                           BlockModels &models, const StageOfPipeline &stage,
                           core::ActivationKeeping keeping)
    : passes(passes), model(model), models(models), stage(stage),
      keeping(keeping) {
  for (TiledPassOp op : passes)
    stepOf[op] = int(stepOf.size());
  end = int(passes.size());
}

core::MemoryPerChip PassesMemory::count(core::Optimizer optimizer) {
  findLastBackwardPasses();
  for (TiledPassOp op : passes)
    countPass(op);
  countReceivedActivations();
  return total(optimizer);
}

/// Each layer's last backward pass, and whether the layers tell their saved
/// activations (keepsSaved).
void PassesMemory::findLastBackwardPasses() {
  bool tellsSaved = false;
  for (TiledPassOp op : passes) {
    if (op.getPass() != TrainingPass::FWD) {
      int &last = lastBackward[op.getLayer()];
      last = std::max(last, stepOf[op]);
    }
    tellsSaved = tellsSaved || !op.getWorkload().getShape().saved.empty();
  }
  keepsSaved = !lastBackward.empty() && tellsSaved;
}

void PassesMemory::countPass(TiledPassOp op) {
  core::TrainingPass pass = toCore(op.getPass());
  training |= pass != core::TrainingPass::FWD;
  core::LayerShape whole = op.getWorkload().getShape(op.getLayer());
  core::LayerShape shape = core::microbatchShape(whole, stage.microbatches);
  // A microbatch's tensors; its activations kept for each microbatch in
  // flight, its errors for one (as the mapper counts them).
  const double perMicrobatch =
      microbatchShare(whole, shape, stage.microbatches);
  const double activationCopies =
      pass == core::TrainingPass::FWD ? double(stage.inFlight) : 1.0;
  core::MappingConfig config = op.getConfig();
  const core::PerformanceModel &passModel =
      stage.model ? *stage.model : models.of(config);
  const double chips = double(passModel.numChips());
  if (pass == core::TrainingPass::FWD)
    holdParameters(op, shape, config, passModel, chips);
  if (pass == core::TrainingPass::UPD)
    return; // gradients: counted per weight element
  const int step = stepOf[op];
  if (keepsSaved && pass == core::TrainingPass::FWD)
    keepSavedActivations(op, shape, config, step, activationCopies);
  for (Value result : op.getResults())
    countResult(result, pass, config, step,
                bytesPerChip(result, chips, perMicrobatch, activationCopies));
}

/// The parameters a FWD pass holds: those of its weights no earlier pass
/// holds.
void PassesMemory::holdParameters(TiledPassOp op, const core::LayerShape &shape,
                                  const core::MappingConfig &config,
                                  const core::PerformanceModel &passModel,
                                  double chips) {
  const core::TrainingPass pass = core::TrainingPass::FWD;
  double heldElsewhere = 0;
  for (Value weight : op.getWeights())
    if (!heldWeights.insert(weight).second)
      heldElsewhere +=
          double(cast<RankedTensorType>(weight.getType()).getNumElements());
  const double ownParameters = std::max(shape.params - heldElsewhere, 0.0);
  if (!(ownParameters > 0))
    return;
  // The pass's chip share of the parameters it holds.
  const double chipElements =
      passModel.parameterElementsPerChip(shape, pass, config) * ownParameters /
      shape.params;
  core::HeldParameters held = core::heldParameters(
      chipElements, ownParameters, chips, config.memory.shardedWeights,
      config.memory.shardedState, config.memory.shardedOptimizer);
  // A stage of a timestep pipe group holds its layer on its rows only.
  const bool pipeStage = config.memory.pipeGroup >= 0 &&
                         config.memory.microbatches <= 1 &&
                         config.memory.pipeRows > 0;
  parameters.push_back({held, pipeStage ? config.memory.pipeFirstRow : 0,
                        pipeStage ? config.memory.pipeRows : 0});
  if (config.memory.shardedWeights)
    gatheredElements = std::max(gatheredElements, chipElements);
  if (config.memory.offloadedState)
    offloadedElements += held.optimizer;
}

/// The saved activations a FWD pass keeps for its layer's backward passes.
void PassesMemory::keepSavedActivations(TiledPassOp op,
                                        const core::LayerShape &shape,
                                        const core::MappingConfig &config,
                                        int step, double activationCopies) {
  // A recomputed run keeps its first layer's checkpoint only.
  const bool recomputed = config.memory.recomputed;
  StringRef block = core::blockPathOf(op.getLayer());
  if (!block.empty() && block != currentBlock) {
    if (!currentBlock.empty())
      previousRecomputed = false;
    currentBlock = block;
  }
  auto backward = lastBackward.find(op.getLayer());
  if (backward != lastBackward.end()) {
    const double kept =
        !recomputed ? core::savedBytesPerChip(shape, config.chipSplit,
                                              model.bytesPerElement(), keeping)
        : previousRecomputed
            ? 0
            : core::checkpointBytesPerChip(shape, config.chipSplit,
                                           model.bytesPerElement(),
                                           keeping.sequenceParallel);
    others.push_back({kept * activationCopies, step, backward->second});
  }
  previousRecomputed = recomputed;
}

/// A result of a (FWD or backward) pass at `step`, of `bytes` per chip:
/// live until its last reader.
void PassesMemory::countResult(Value result, core::TrainingPass pass,
                               const core::MappingConfig &config, int step,
                               double bytes) {
  SmallVector<TiledPassOp> readers;
  bool escapes = false;
  readersOf(result, readers, escapes);
  if (keepsSaved && pass == core::TrainingPass::FWD && !escapes)
    return;
  if (pass != core::TrainingPass::FWD) {
    // An error another stage reads leaves with its send (the mapper's
    // stage keeps none); one the stage reads lives to its last reader.
    int last = step;
    for (TiledPassOp reader : readers)
      last = std::max(last, stepOf.lookup(reader));
    others.push_back({bytes, step, last});
    return;
  }
  core::ActivationUse use;
  use.bytes = bytes;
  use.produced = use.lastForward = step;
  use.recomputed = config.memory.recomputed;
  for (TiledPassOp reader : readers) {
    // A reader in another stage gets the tensor sent: that stage keeps
    // it (below).
    if (!stepOf.count(reader))
      continue;
    int at = stepOf.lookup(reader);
    if (reader.getPass() == TrainingPass::FWD) {
      use.lastForward = std::max(use.lastForward, at);
      continue;
    }
    use.firstBackward =
        use.firstBackward < 0 ? at : std::min(use.firstBackward, at);
    use.lastBackward = std::max(use.lastBackward, at);
  }
  if (escapes)
    use.lastBackward = end;
  activations.push_back(use);
}

/// A pipeline stage keeps the activations earlier stages send it, a copy
/// per microbatch in flight, from the step's start to its last reader.
void PassesMemory::countReceivedActivations() {
  llvm::MapVector<Value, core::LiveTensor> received;
  // What a layer keeps as its saved input (its primary input, read first
  // by its FWD) it counts itself.
  llvm::DenseSet<Value> keptByReader;
  for (TiledPassOp op : passes)
    if (keepsSaved && op.getPass() == TrainingPass::FWD &&
        op->getNumOperands() > 0 &&
        op.getWorkload().getShape().saved.inputs > 0)
      keptByReader.insert(passResult(op->getOperand(0)));
  for (TiledPassOp op : passes)
    for (Value operand : op->getOperands()) {
      Value result = passResult(operand);
      if (!result || keptByReader.contains(result))
        continue;
      auto producer = cast<TiledPassOp>(result.getDefiningOp());
      if (stepOf.count(producer) || producer.getPass() != TrainingPass::FWD)
        continue;
      core::LayerShape whole =
          producer.getWorkload().getShape(producer.getLayer());
      const double perMicrobatch = microbatchShare(
          whole, core::microbatchShape(whole, stage.microbatches),
          stage.microbatches);
      const core::PerformanceModel &stageModel =
          stage.model ? *stage.model : model;
      core::LiveTensor &tensor = received[result];
      tensor.bytes = bytesPerChip(result, double(stageModel.numChips()),
                                  perMicrobatch, double(stage.inFlight));
      tensor.last = std::max(tensor.last, stepOf.lookup(op));
    }
  for (auto &entry : received)
    others.push_back(entry.second);
}

/// The chip's memory from the parameters held and tensors kept.
core::MemoryPerChip PassesMemory::total(core::Optimizer optimizer) const {
  std::vector<core::LiveTensor> tensors =
      core::activationLiveTensors(activations);
  tensors.insert(tensors.end(), others.begin(), others.end());
  const double elementBytes = model.bytesPerElement();
  core::HeldParameters held = core::fullestRowParameters(
      parameters, elementBytes, training ? elementBytes : 0,
      training ? core::optimizerBytesPerParameter(optimizer) : 0);
  core::MemoryPerChip memory = core::memoryPerChip(
      {held.weights}, {held.state}, tensors, elementBytes, training, optimizer,
      model.getSystem().chip.externalMemory.capacityBytes);
  // Each state element's gradient, each optimizer element's state (the
  // fewer where the optimizer state alone is sharded, ZeRO stage 1).
  if (training)
    memory.optimizer =
        held.optimizer * core::optimizerBytesPerParameter(optimizer);
  memory.buffers = gatheredElements * model.bytesPerElement();
  if (training && offloadedElements > 0) {
    const double bytes =
        offloadedElements * core::optimizerBytesPerParameter(optimizer);
    memory.optimizer -= bytes;
    memory.offloaded = bytes;
  }
  if (const std::optional<core::HostLinkSpec> &host =
          model.getSystem().chip.hostLink)
    memory.hostCapacity = host->memoryBytes;
  return memory;
}

/// The memory of the fullest chip running `passes` (in step order): the
/// whole step's, or one pipeline stage's.
static core::MemoryPerChip memoryOfPasses(ArrayRef<TiledPassOp> passes,
                                          const core::PerformanceModel &model,
                                          core::Optimizer optimizer,
                                          BlockModels &models,
                                          const StageOfPipeline &stage,
                                          core::ActivationKeeping keeping) {
  return PassesMemory(passes, model, models, stage, keeping).count(optimizer);
}

std::optional<core::MemoryPerChip>
dsm::memoryOfMappedStep(func::FuncOp func, const core::PerformanceModel &model,
                        core::Optimizer optimizer) {
  BlockModels models(model);
  SmallVector<TiledPassOp> passes;
  // The passes of each stage of a pipeline, by its first row and rows.
  std::map<std::pair<int64_t, int64_t>, SmallVector<TiledPassOp>> stages;
  int64_t microbatches = 1;
  core::PipelineSchedule schedule = core::PipelineSchedule::OneFOneB;
  func.walk([&](TiledPassOp op) {
    passes.push_back(op);
    if (MemoryDecisionAttr memory = op.getMemoryAttr();
        memory && memory.getDecision().microbatches > 1) {
      stages[{memory.getDecision().pipeFirstRow, memory.getDecision().pipeRows}]
          .push_back(op);
      microbatches = memory.getDecision().microbatches;
      if (memory.getDecision().gpipe)
        schedule = core::PipelineSchedule::GPipe;
    }
  });
  if (passes.empty())
    return std::nullopt;
  // Sequence parallelism, where the plan names it.
  core::ActivationKeeping keeping;
  keeping.sequenceParallel = bool(
      DsmDialect::SequenceParallelAttrHelper(func.getContext()).getAttr(func));
  if (stages.empty())
    return memoryOfPasses(passes, model, optimizer, models, {}, keeping);
  // Each stage on its rows, keeping the microbatches its schedule has in
  // flight there; the fullest stage's chip.
  const core::MultiChipSystem &system = model.getSystem();
  std::optional<core::MemoryPerChip> fullest;
  for (auto &[rows, ops] : stages) {
    core::PerformanceModel stageModel(
        core::pipeStageSystem(system, rows.second));
    StageOfPipeline stage;
    stage.model = &stageModel;
    stage.microbatches = microbatches;
    stage.inFlight = core::microbatchesInFlight(
        schedule, int(rows.first / rows.second),
        int(system.torus.y.size / rows.second), microbatches);
    core::MemoryPerChip memory =
        memoryOfPasses(ops, model, optimizer, models, stage, keeping);
    if (!fullest || memory.total() > fullest->total())
      fullest = memory;
  }
  return fullest;
}

std::optional<PlanMemory> dsm::memoryOfPlan(func::FuncOp func,
                                            const core::PerformanceModel &model,
                                            core::Optimizer optimizer) {
  ChipMemoryAttr recorded =
      DsmDialect::ChipMemoryAttrHelper(func.getContext()).getAttr(func);
  if (!recorded) {
    std::optional<core::MemoryPerChip> counted =
        memoryOfMappedStep(func, model, optimizer);
    if (!counted)
      return std::nullopt;
    return PlanMemory{*counted, -1};
  }
  PlanMemory plan{recorded.getMemory(), recorded.getStage()};
  const core::ChipSpec &chip = model.getSystem().chip;
  plan.memory.capacity = chip.externalMemory.capacityBytes;
  if (chip.hostLink)
    plan.memory.hostCapacity = chip.hostLink->memoryBytes;
  return plan;
}

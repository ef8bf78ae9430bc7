//===- MappedMemory.cpp - A mapped step's memory, read from the IR --------===//

#include "dsm/Passes/Spatial/MappedMemory.h"

#include "dsm/Core/Spatial/ChipBlocks.h"
#include "dsm/Dialect/DsmOps.h"

#include "llvm/ADT/MapVector.h"

#include <cmath>

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

std::optional<core::MemoryPerChip>
dsm::memoryOfMappedStep(func::FuncOp func, const core::PerformanceModel &model,
                        core::Optimizer optimizer) {
  BlockModels models(model);
  llvm::DenseMap<Operation *, int> stepOf;
  SmallVector<TiledPassOp> passes;
  func.walk([&](TiledPassOp op) {
    stepOf[op] = int(passes.size());
    passes.push_back(op);
  });
  if (passes.empty())
    return std::nullopt;
  const int end = int(passes.size());
  bool training = false;
  // Per weight: the largest chip share, and the state kept for it; with
  // sharded weights, the largest share a pass gathers at once.
  llvm::MapVector<Value, std::pair<double, double>> weightElements;
  double gatheredElements = 0;
  std::vector<core::ActivationUse> activations;
  std::vector<core::LiveTensor> others;
  for (TiledPassOp op : passes) {
    core::TrainingPass pass = toCore(op.getPass());
    training |= pass != core::TrainingPass::FWD;
    core::LayerShape shape = op.getWorkload().getShape(op.getLayer());
    core::MappingConfig config = op.getConfig();
    const core::PerformanceModel &passModel = models.of(config);
    const double chips = double(passModel.numChips());
    if (pass == core::TrainingPass::FWD && shape.params > 0) {
      double share = passModel.parameterElementsPerChip(shape, pass, config) /
                     shape.params;
      for (Value weight : op.getWeights()) {
        double numel =
            double(cast<RankedTensorType>(weight.getType()).getNumElements());
        auto &[elements, state] = weightElements[weight];
        elements =
            std::max(elements, config.memory.shardedWeights ? numel / chips
                                                            : numel * share);
        if (config.memory.shardedWeights)
          gatheredElements = std::max(gatheredElements, numel * share);
        state = std::max(state, config.memory.shardedState
                                    ? std::ceil(numel / chips)
                                    : numel * share);
      }
    }
    if (pass == core::TrainingPass::UPD)
      continue; // gradients: counted per weight element
    const int step = stepOf[op];
    for (Value result : op.getResults()) {
      double bytes =
          std::ceil(
              double(
                  cast<RankedTensorType>(result.getType()).getNumElements()) /
              chips) *
          model.bytesPerElement();
      SmallVector<TiledPassOp> readers;
      bool escapes = false;
      readersOf(result, readers, escapes);
      if (pass != core::TrainingPass::FWD) {
        int last = escapes ? end : step;
        for (TiledPassOp reader : readers)
          last = std::max(last, stepOf.lookup(reader));
        others.push_back({bytes, step, last});
        continue;
      }
      core::ActivationUse use;
      use.bytes = bytes;
      use.produced = use.lastForward = step;
      use.recomputed = config.memory.recomputed;
      for (TiledPassOp reader : readers) {
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
  }
  std::vector<core::LiveTensor> tensors =
      core::activationLiveTensors(activations);
  tensors.insert(tensors.end(), others.begin(), others.end());
  std::vector<double> elements, state;
  for (auto &[weight, counts] : weightElements) {
    elements.push_back(counts.first);
    state.push_back(counts.second);
  }
  core::MemoryPerChip memory = core::memoryPerChip(
      elements, state, tensors, model.bytesPerElement(), training, optimizer,
      model.getSystem().chip.externalMemory.capacityBytes);
  memory.buffers = gatheredElements * model.bytesPerElement();
  return memory;
}

//===- ExpandTraining.cpp - --dsm-expand-training -------------------------===//

#include "dsm/Core/Spatial/SpatialMapper.h"
#include "dsm/Dialect/DsmOps.h"
#include "dsm/Passes/Common/LayerFormation.h"
#include "dsm/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

namespace dsm {
#define GEN_PASS_DEF_DSMEXPANDTRAINING
#include "dsm/Passes/Passes.h.inc"
} // namespace dsm

using namespace mlir;
using namespace dsm;

static SmallVector<Type> typesOf(ArrayRef<Value> values) {
  return llvm::to_vector(
      llvm::map_range(values, [](Value v) { return v.getType(); }));
}

namespace {
struct ExpandTrainingPass
    : public dsm::impl::DsmExpandTrainingBase<ExpandTrainingPass> {
  using DsmExpandTrainingBase::DsmExpandTrainingBase;

  void runOnOperation() override {
    for (auto func :
         llvm::make_early_inc_range(getOperation().getOps<func::FuncOp>()))
      if (!func.isExternal() && failed(expand(func)))
        return signalPassFailure();
  }

  LogicalResult expand(func::FuncOp func) {
    bool already = false;
    func.walk(
        [&](Operation *op) { already |= isa<LayerPassOp, TiledPassOp>(op); });
    if (already)
      return func.emitError() << "function @" << func.getSymName()
                              << " is already expanded into layer passes";
    FailureOr<std::vector<FormedLayer>> formed = formLayers(func);
    if (failed(formed))
      return failure();
    std::vector<FormedLayer> &layers = *formed;
    bool training = mode == ExecutionMode::Train;

    // The passes each layer runs, decided on the core's layer graph.
    core::LayerGraph graph;
    DenseMap<Value, int> producer;
    for (auto [i, layer] : llvm::enumerate(layers)) {
      graph.layers.push_back({layer.shape});
      for (Value input : layer.inputs) {
        auto it = producer.find(input);
        if (it == producer.end())
          continue;
        auto type = cast<RankedTensorType>(input.getType());
        graph.edges.push_back(
            {it->second, int(i), double(type.getNumElements())});
      }
      for (Value output : layer.outputs)
        producer[output] = int(i);
    }
    graph.assignTrainingPasses(training);
    auto needsError = [&](Value input) {
      auto it = producer.find(input);
      if (it == producer.end())
        return false;
      const core::LayerNode &node = graph.layers[it->second];
      return node.bwd || node.upd;
    };

    MLIRContext *context = &getContext();
    auto returnOp =
        cast<func::ReturnOp>(func.getBody().front().getTerminator());
    OpBuilder builder(returnOp);
    DenseMap<Value, Value> mapped; // old activations -> FWD results
    auto lookup = [&](Value v) {
      return mapped.lookup(v) ? mapped.lookup(v) : v;
    };

    // FWD, in program order.
    SmallVector<LayerPassOp> forward;
    for (FormedLayer &layer : layers) {
      // Inference drops nothing out.
      if (!training) {
        layer.shape.auxKernels.dropoutElements = 0;
        layer.shape.auxKernels.maskBytes = 0;
      }
      SmallVector<Value> ins = llvm::map_to_vector(layer.inputs, lookup);
      auto op = LayerPassOp::create(builder, layer.ops.front()->getLoc(),
                                    typesOf(layer.outputs), layer.name,
                                    TrainingPass::FWD, ins, layer.weights,
                                    WorkloadAttr::get(context, layer.shape));
      for (auto [old, now] : llvm::zip_equal(layer.outputs, op.getResults()))
        mapped[old] = now;
      forward.push_back(op);
    }

    SmallVector<Value> results =
        llvm::map_to_vector(returnOp.getOperands(), lookup);
    if (training) {
      // Errors flow back from the outputs (the loss gradient is computed from
      // the FWD result) through every consumer's BWD.
      DenseMap<Value, SmallVector<Value>> errors; // old activation -> errors
      for (Value v : returnOp.getOperands())
        if (mapped.count(v))
          errors[v].push_back(mapped[v]);
      SmallVector<Value> gradients;
      // A parameter several layers read: its first reader returns the
      // gradient; each later one's UPD passes its partial sum to the reader
      // before it (UPDs run in reverse order), which adds its own share.
      DenseMap<Value, int> firstReader;
      for (auto [index, layer] : llvm::enumerate(layers))
        for (Value param : layer.parameters)
          firstReader.try_emplace(param, int(index));
      DenseMap<Value, Value> partialGradient; // parameter -> sum so far
      for (int i = int(layers.size()) - 1; i >= 0; --i) {
        FormedLayer &layer = layers[i];
        const core::LayerNode &node = graph.layers[i];
        SmallVector<Value> outputErrors;
        for (Value output : layer.outputs)
          llvm::append_range(outputErrors, errors.lookup(output));
        Location loc = layer.ops.front()->getLoc();
        WorkloadAttr workload = forward[i].getWorkload();
        // UPD before BWD (DeepSpatialMatrix §III-B: then the error of one layer
        // at a time needs to stay on chip).
        if (node.upd) {
          SmallVector<Value> ins = forward[i].getIns();
          llvm::append_range(ins, outputErrors);
          for (Value param : layer.parameters)
            if (Value partial = partialGradient.lookup(param))
              ins.push_back(partial);
          auto upd = LayerPassOp::create(
              builder, loc, typesOf(layer.parameters), layer.name,
              TrainingPass::UPD, ins, layer.parameters, workload);
          // Collected backwards (layers last to first, each layer's
          // parameters last to first) and reversed once below: inserting
          // each layer's at the front would be quadratic in the layers.
          for (int k = int(layer.parameters.size()) - 1; k >= 0; --k) {
            Value param = layer.parameters[k], gradient = upd.getResult(k);
            if (firstReader.lookup(param) == i)
              gradients.push_back(gradient);
            else
              partialGradient[param] = gradient;
          }
        }
        if (node.bwd) {
          SmallVector<Value> needed;
          for (Value input : layer.inputs)
            if (needsError(input))
              needed.push_back(input);
          auto bwd = LayerPassOp::create(builder, loc, typesOf(needed),
                                         layer.name, TrainingPass::BWD,
                                         outputErrors, layer.weights, workload);
          for (auto [input, error] : llvm::zip_equal(needed, bwd.getResults()))
            errors[input].push_back(error);
        }
      }
      llvm::append_range(results, llvm::reverse(gradients));
    }

    func::ReturnOp::create(builder, returnOp.getLoc(), results);
    returnOp.erase();
    for (FormedLayer &layer : llvm::reverse(layers))
      for (Operation *op : llvm::reverse(layer.ops))
        op->erase();
    func.setFunctionType(
        FunctionType::get(context, func.getArgumentTypes(), typesOf(results)));
    return success();
  }
};
} // namespace

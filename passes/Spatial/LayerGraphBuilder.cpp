//===- LayerGraphBuilder.cpp - Expanded IR -> core LayerGraph -------------===//

#include "dsm/Passes/Spatial/LayerGraphBuilder.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace dsm;

FailureOr<ExpandedFunction> dsm::readLayerGraph(func::FuncOp func) {
  ExpandedFunction result;
  std::vector<LayerPassOps> &layers = result.layers;
  llvm::StringMap<int> index;
  DenseMap<Value, int> producer;
  WalkResult walk = func.walk([&](LayerPassOp op) {
    if (op.getPass() == TrainingPass::FWD) {
      auto [it, inserted] =
          index.try_emplace(op.getLayer(), int(layers.size()));
      if (!inserted) {
        op.emitOpError("repeats layer name '") << op.getLayer() << "'";
        return WalkResult::interrupt();
      }
      layers.push_back({op, nullptr, nullptr});
      for (Value value : op.getResults())
        producer[value] = it->second;
      return WalkResult::advance();
    }
    auto it = index.find(op.getLayer());
    if (it == index.end()) {
      op.emitOpError("has no fwd pass of layer '")
          << op.getLayer() << "' before it";
      return WalkResult::interrupt();
    }
    (op.getPass() == TrainingPass::BWD ? layers[it->second].bwd
                                       : layers[it->second].upd) = op;
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  core::LayerGraph &graph = result.graph;
  // The first layer reading each weight holds it (LayerGraph.h).
  llvm::DenseMap<Value, int> holderOf;
  for (auto [i, ops] : llvm::enumerate(layers))
    for (Value weight : ops.fwd.getWeights()) {
      auto [it, first] = holderOf.try_emplace(weight, int(i));
      if (!first && it->second != int(i))
        graph.sharedParameters.push_back(
            {it->second, int(i),
             double(
                 cast<RankedTensorType>(weight.getType()).getNumElements())});
    }
  for (auto [i, ops] : llvm::enumerate(layers)) {
    core::LayerNode node;
    node.shape = ops.fwd.getWorkload().getShape(ops.fwd.getLayer());
    node.bwd = static_cast<bool>(ops.bwd);
    node.upd = static_cast<bool>(ops.upd);
    for (Value output : ops.fwd.getResults())
      node.outputElements +=
          double(cast<RankedTensorType>(output.getType()).getNumElements());
    graph.layers.push_back(std::move(node));
    for (auto [index, input] : llvm::enumerate(ops.fwd.getIns())) {
      auto it = producer.find(input);
      if (it == producer.end())
        continue;
      core::LayerEdge edge;
      edge.producer = it->second;
      edge.consumer = int(i);
      // A layer reads its primary input first (LayerFormation).
      edge.primaryInput = index == 0;
      edge.elements =
          double(cast<RankedTensorType>(input.getType()).getNumElements());
      graph.edges.push_back(edge);
    }
  }
  for (core::LayerEdge &edge : graph.edges) {
    const core::LayerNode &from = graph.layers[edge.producer];
    edge.carriesError = from.bwd || from.upd;
  }
  // The network's results are written out whatever reads them on chip.
  func.walk([&](func::ReturnOp op) {
    for (Value value : op.getOperands())
      if (auto it = producer.find(value); it != producer.end())
        graph.layers[it->second].networkOutput = true;
  });
  return result;
}

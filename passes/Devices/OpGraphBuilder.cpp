//===- OpGraphBuilder.cpp - A module's operations as a core OpGraph -------===//

#include "dsm/Passes/Devices/OpGraphBuilder.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;
using namespace dsm;

FailureOr<OpGraphWithOps>
dsm::buildOpGraph(Operation *root, const WorkloadAnalysis &analysis,
                  const core::devices::Conventions &conventions) {
  OpGraphWithOps result;
  llvm::DenseMap<Operation *, int32_t> index;
  for (auto [i, op] : llvm::enumerate(analysis.getOperations()))
    index[op] = int32_t(i);

  // Producers of a value: the graph op defining it, or, through an operation
  // without a workload, the producers of that operation's operands.
  llvm::DenseMap<Value, llvm::SmallVector<int32_t, 2>> throughOps;
  auto producersOf = [&](Value value, llvm::SmallVectorImpl<int32_t> &out) {
    Operation *def = value.getDefiningOp();
    if (!def)
      return;
    auto it = index.find(def);
    if (it != index.end()) {
      out.push_back(it->second);
      return;
    }
    auto passed = throughOps.find(value);
    if (passed != throughOps.end())
      out.append(passed->second.begin(), passed->second.end());
  };

  const core::WorkloadSummary &summary = analysis.getSummary();
  WalkResult walk = root->walk([&](Operation *op) {
    auto it = index.find(op);
    if (it == index.end()) {
      llvm::SmallVector<int32_t, 2> producers;
      for (Value operand : op->getOperands())
        producersOf(operand, producers);
      if (!producers.empty())
        for (Value res : op->getResults())
          throughOps[res] = producers;
      return WalkResult::advance();
    }
    const core::LayerRecord &record = summary.layers[it->second];
    if (record.workload.overflow) {
      op->emitOpError(
          "has a workload whose counts overflow 64 bits: it cannot be placed");
      return WalkResult::interrupt();
    }
    llvm::SmallVector<int32_t, 2> inputs;
    for (Value operand : op->getOperands())
      producersOf(operand, inputs);
    core::devices::Op node = core::devices::makeOpFromWorkload(
        record.name, record.workload, conventions,
        /*hasProducers=*/!inputs.empty());
    node.inputs = std::move(inputs);
    // Ids follow the walk, which is the analysis's order.
    index[op] = int32_t(result.graph.addOp(std::move(node)));
    result.operations.push_back(op);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return result;
}

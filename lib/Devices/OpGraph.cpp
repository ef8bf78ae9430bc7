//===- OpGraph.cpp - Operations to place on devices -----------------------===//

#include "dsm/Core/Devices/OpGraph.h"
#include "dsm/Core/Support/NodeError.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace dsm::core;
using namespace dsm::core::devices;

Op devices::makeOpFromWorkload(std::string name, const Workload &workload) {
  Op op;
  op.name = std::move(name);
  double macFlops = 2.0 * double(workload.macs);
  op.forwardFlops = macFlops + workload.auxOps;
  switch (workload.getComputeClass()) {
  case ComputeClass::Primary:
    // Data gradient and weight gradient (for a matmul of two activations:
    // the gradients of both operands), each as many MACs as the forward.
    op.backwardFlops = 2.0 * macFlops + workload.auxOps;
    break;
  case ComputeClass::Auxiliary:
    op.backwardFlops = workload.auxOps;
    break;
  case ComputeClass::DataMovement:
    op.backwardFlops = 0;
    break;
  }
  op.updateFlops = 2.0 * double(workload.params);
  op.weightBytes = workload.weightBytes;
  op.outputBytes = workload.outputBytes;
  return op;
}

int32_t OpGraph::addOp(Op op) {
  int32_t id = int32_t(ops.size());
  llvm::SmallVector<int32_t, 2> distinct;
  for (int32_t input : op.inputs) {
    if (llvm::is_contained(distinct, input))
      continue;
    distinct.push_back(input);
    if (input >= 0 && input < id)
      consumers[input].push_back(id);
  }
  ops.push_back(std::move(op));
  distinctInputs.push_back(std::move(distinct));
  consumers.emplace_back();
  return id;
}

llvm::Error OpGraph::verify(int64_t batches) const {
  if (ops.empty())
    return makeNodeError(-1, "the graph has no operations to place");
  if (batches < 1)
    return makeNodeError(-1, "batches must be at least 1, got ", batches);
  int64_t total = 0;
  auto addChecked = [&](int64_t bytes) {
    int64_t scaled;
    if (llvm::MulOverflow(bytes, batches, scaled))
      return false;
    return !llvm::AddOverflow(total, scaled, total);
  };
  for (auto [id, op] : llvm::enumerate(ops)) {
    for (int32_t input : op.inputs)
      if (input < 0 || input >= int32_t(id))
        return makeNodeError(int64_t(id), "'", op.name, "' reads op ", input,
                             ", which is not an earlier op of the graph");
    for (double flops : {op.forwardFlops, op.backwardFlops, op.updateFlops})
      if (!std::isfinite(flops) || flops < 0)
        return makeNodeError(int64_t(id), "'", op.name,
                             "' has an invalid FLOP count ", flops);
    if (op.weightBytes < 0 || op.outputBytes < 0)
      return makeNodeError(int64_t(id), "'", op.name, "' has a negative size");
    // Weights once, and per batch the output, a copy on every other device
    // and a gradient: bounded by four copies.
    int64_t perBatch;
    if (llvm::MulOverflow(op.outputBytes, int64_t(4), perBatch) ||
        !addChecked(perBatch) ||
        llvm::AddOverflow(total, op.weightBytes, total))
      return makeNodeError(int64_t(id), "'", op.name,
                           "' makes the memory of the graph overflow 64 bits");
  }
  return llvm::Error::success();
}

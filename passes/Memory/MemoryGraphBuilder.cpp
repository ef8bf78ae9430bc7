//===- MemoryGraphBuilder.cpp - A function as a core MemoryGraph ----------===//

#include "dsm/Passes/Memory/MemoryGraphBuilder.h"
#include "dsm/Dialect/DsmOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace dsm;
namespace memory = dsm::core::memory;

/// Bytes of `value` at `elementBytes` per element, or failure (emitted at
/// `anchor`) for a dynamic shape or an overflow.
static FailureOr<int64_t> tensorBytes(Value value, int64_t elementBytes,
                                      Operation *anchor) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return anchor->emitError()
           << "memory placement needs static tensor shapes, got "
           << value.getType();
  int64_t bytes = 0;
  if (llvm::MulOverflow(type.getNumElements(), elementBytes, bytes))
    return anchor->emitError() << "tensor of " << type.getNumElements()
                               << " elements is larger than 2^63 bytes";
  return bytes;
}

FailureOr<MemoryGraphWithLayers> dsm::buildMemoryGraph(func::FuncOp func,
                                                       int64_t elementBytes) {
  FailureOr<std::vector<FormedLayer>> layers = formLayers(func);
  if (failed(layers))
    return failure();
  MemoryGraphWithLayers result;
  result.layers = std::move(*layers);

  DenseMap<Value, int32_t> producer;
  for (auto [index, layer] : llvm::enumerate(result.layers))
    for (Value output : layer.outputs)
      producer[output] = int32_t(index);

  std::vector<memory::MemoryNode> nodes;
  llvm::DenseSet<Value> weightsSeen; // a shared weight is one tensor
  InputDependence inputs(func.getBody());
  for (auto [index, formed] : llvm::enumerate(result.layers)) {
    // A reference the lambdas below may capture (C++17 cannot capture a
    // structured binding).
    const auto &layer = formed;
    Operation *anchor = result.getAnchor(index);
    memory::MemoryNode node;
    node.name = layer.name;
    auto add = [&](int64_t &total, FailureOr<int64_t> bytes) {
      if (failed(bytes))
        return failure();
      if (llvm::AddOverflow(total, *bytes, total))
        return LogicalResult(anchor->emitError()
                             << "layer '" << layer.name
                             << "' has more than 2^63 bytes");
      return success();
    };
    for (Operation *op : layer.ops) {
      core::Workload workload =
          cast<WorkloadOpInterface>(op).getWorkloadGiven(inputs);
      if (workload.overflow ||
          llvm::AddOverflow(node.macs, workload.macs, node.macs))
        return op->emitError() << "workload counts overflow 64 bits";
      node.auxOps += workload.auxOps;
    }
    for (Value weight : layer.weights)
      if (weightsSeen.insert(weight).second &&
          failed(
              add(node.weightBytes, tensorBytes(weight, elementBytes, anchor))))
        return failure();
    for (Value output : layer.outputs) {
      if (failed(
              add(node.outputBytes, tensorBytes(output, elementBytes, anchor))))
        return failure();
      if (llvm::any_of(output.getUsers(), [](Operation *user) {
            return isa<func::ReturnOp>(user);
          }))
        node.isModelOutput = true;
    }
    for (Value input : layer.inputs) {
      auto it = producer.find(input);
      if (it != producer.end()) {
        if (!llvm::is_contained(node.inputs, it->second))
          node.inputs.push_back(it->second);
        continue;
      }
      // A model input (function argument): the host leaves it in DRAM.
      if (failed(add(node.externalInputBytes,
                     tensorBytes(input, elementBytes, anchor))))
        return failure();
    }
    nodes.push_back(std::move(node));
  }
  if (nodes.empty())
    return result;
  llvm::Expected<memory::MemoryGraph> graph =
      memory::MemoryGraph::create(std::move(nodes));
  if (!graph) {
    // The builder produces only valid graphs; say where it went wrong anyway.
    emitError(func.getLoc()) << llvm::toString(graph.takeError());
    return failure();
  }
  result.graph = std::move(*graph);
  return result;
}

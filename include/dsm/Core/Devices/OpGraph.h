//===- OpGraph.h - Operations to place on devices ---------------*- C++ -*-===//
//
// The computation graph of device placement (Andreassen, "Automatic Model
// Parallelism for Deep Learning Using Execution Time Modelling and
// Evolutionary Computation", §3.1): one node per operation with what it costs
// to run forward and backward, the weights it holds and the tensor it
// produces. Operations are kept in topological order,
// which is also the order of the placement encoding (§3.2.1).
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_DEVICES_OPGRAPH_H
#define DSM_CORE_DEVICES_OPGRAPH_H

#include "dsm/Core/Devices/Conventions.h"
#include "dsm/Core/Workload/Workload.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dsm::core::devices {

/// One operation of the graph.
struct Op {
  std::string name;
  /// Floating-point operations of the forward pass.
  double forwardFlops = 0;
  /// Floating-point operations of the backward pass: the gradient with respect
  /// to the inputs plus, for ops with weights, the weight gradient.
  double backwardFlops = 0;
  /// Floating-point operations of the weight update, run by the device that
  /// holds the weights right after the backward pass.
  double updateFlops = 0;
  /// Bytes of weights resident on the op's device for the whole step.
  int64_t weightBytes = 0;
  /// Bytes of the op's output (and of the gradient flowing back into it).
  int64_t outputBytes = 0;
  /// Bytes of each array the forward / backward pass reads or writes in
  /// device memory, each timed on its own; charged only by conventions that
  /// model memory traffic (Conventions::paleoOpTimes).
  llvm::SmallVector<double, 3> forwardTraffic, backwardTraffic;
  /// Producer ops whose outputs this op reads; always earlier in the graph.
  llvm::SmallVector<int32_t, 2> inputs;
};

/// Forward, backward and update costs of a dsm workload under `conventions`.
///
/// Thesis: a multiply-accumulate is two FLOPs; the backward pass of a primary
/// computation computes the data gradient and the weight (or second operand)
/// gradient, each as many MACs as the forward pass; an auxiliary op's
/// backward costs as much as its forward; data movement is free; SGD updates
/// cost two FLOPs per parameter.
///
/// Exprimo (Paleo's FLOP profiler at Conventions::batch): convolutions by the
/// GEMM formula reading the padded input, the filter and writing the output,
/// their backward the convolution computing the data gradient (none when
/// `hasProducers` is false: the first layer); fully connected layers as a
/// GEMM, forward and data gradient alike; pooling 2 FLOPs per window element
/// and opaque ops (dropout) their auxiliary operations, each reading its
/// input and writing its output, backward as forward; every other op free.
Op makeOpFromWorkload(std::string name, const Workload &workload,
                      const Conventions &conventions = {},
                      bool hasProducers = true);

class OpGraph {
public:
  /// Appends `op` and returns its id. Its inputs must already be in the graph.
  int32_t addOp(Op op);

  /// Checks ids, costs and sizes (the simulator assumes this passed): every
  /// input refers to an earlier op, costs are finite and non-negative, sizes
  /// non-negative and small enough that `batches` copies of every tensor and
  /// weight sum without overflowing 64 bits. Errors are NodeErrors.
  llvm::Error verify(int64_t batches = 1) const;

  size_t size() const { return ops.size(); }
  const Op &getOp(int32_t id) const { return ops[id]; }
  llvm::ArrayRef<Op> getOps() const { return ops; }
  /// Distinct inputs of `id` (an op reading a tensor twice needs it once).
  llvm::ArrayRef<int32_t> getDistinctInputs(int32_t id) const {
    return distinctInputs[id];
  }
  /// Distinct consumers of the output of `id`, in graph order.
  llvm::ArrayRef<int32_t> getConsumers(int32_t id) const {
    return consumers[id];
  }

private:
  std::vector<Op> ops;
  std::vector<llvm::SmallVector<int32_t, 2>> distinctInputs;
  std::vector<llvm::SmallVector<int32_t, 2>> consumers;
};

} // namespace dsm::core::devices

#endif // DSM_CORE_DEVICES_OPGRAPH_H

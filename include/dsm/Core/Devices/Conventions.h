//===- Conventions.h - How work becomes time in the simulator ---*- C++ -*-===//
//
// The execution simulator can follow one of two sets of conventions, so that
// its step times can be put beside those of another tool on the same problem:
//
//  - `thesis` (the default): Andreassen's model as the thesis describes it
//    (§3.1): op time = FLOPs / (peak x computation penalty); the backward pass
//    computes data and weight gradients and the device holding the weights
//    runs the SGD update; the module's minibatch; a memory overflow costs
//    1 ms per MB.
//  - `exprimo`: the thesis's public implementation (Exprimo, on Paleo's cost
//    functions) as it runs: minibatch 128; op time = (FLOPs / peak + each
//    array read or written / memory bandwidth) / penalty, every term at least
//    one clock cycle; only convolutions (GEMM formula), fully connected
//    layers, pooling and dropout cost anything; the backward pass is the
//    gradient with respect to the data only (none for a convolution reading
//    the network input); Paleo reads GB/s and Gbit/s / 8 as GiB/s; every
//    channel at the comm penalty 0.25, each transfer at least one clock
//    cycle of the sending device; a memory overflow costs 1 ms per byte.
//
// Conventions are data: the op costs are made from a workload by
// makeOpFromWorkload() and timed by the simulator, both reading this struct.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_DEVICES_CONVENTIONS_H
#define DSM_CORE_DEVICES_CONVENTIONS_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace dsm::core::devices {

enum class ConventionsKind { Thesis, Exprimo };

llvm::StringRef stringifyConventionsKind(ConventionsKind kind);

struct Conventions {
  ConventionsKind kind = ConventionsKind::Thesis;
  /// Minibatch the op costs are made for; 0 keeps the workload's.
  int64_t batch = 0;
  /// Paleo's op costs (data gradient only, no update, only the layer kinds
  /// Paleo profiles) timed as Paleo's roofline sum: the memory traffic of each
  /// array read or written at the device's memory bandwidth on top of the
  /// FLOPs at its peak, every term at least one clock cycle. Otherwise the
  /// thesis's costs, an op taking its FLOPs at the peak.
  bool paleoOpTimes = false;
  /// Factor on memory and channel bandwidths: 1, or 2^30 / 10^9 where Paleo
  /// divides bytes by 2^30 and a bandwidth given in GB/s (Gbit/s / 8).
  double bandwidthScale = 1.0;
  /// When set, every channel achieves this fraction of its bandwidth instead
  /// of the system's efficiency (Exprimo's comm penalty).
  std::optional<double> channelEfficiency;
  /// Fitness added per byte of memory overflow, in ms.
  double overflowMsPerByte = 1e-6;
};

/// The conventions of `kind`, as documented above.
Conventions getConventions(ConventionsKind kind);

} // namespace dsm::core::devices

#endif // DSM_CORE_DEVICES_CONVENTIONS_H

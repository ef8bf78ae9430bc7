//===- Collectives.h - Collectives priced by algorithm ----------*- C++ -*-===//
//
// What a collective (all-reduce, reduce-scatter, all-gather, all-to-all, a
// send to a neighbour) costs the chips of a group along the dimensions of a
// system's network (NetworkDimension), by the algorithm each topology runs:
// rings for the reductions and gathers, shortest paths or a pairwise exchange
// for all-to-all. Every step of an algorithm pays the dimension's latency
// (the alpha of the alpha-beta model), every byte a chip moves its bandwidth.
// A group spanning several dimensions runs one phase per dimension, as NCCL
// does. The performance models share these formulas so that a torus, a
// ring, a line and a switch are priced the same way wherever a collective is;
// the byte counts are written as DeepSpatialMatrix's model always computed
// them, so its figures do not move. MLIR-free.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SYSTEM_COLLECTIVES_H
#define DSM_CORE_SYSTEM_COLLECTIVES_H

#include "dsm/Core/System/SystemDescription.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <vector>

namespace dsm::core {

enum class Collective {
  AllReduce,
  ReduceScatter,
  AllGather,
  AllToAll,
  SendReceive
};
/// "all-reduce", "reduce-scatter", "all-gather", "all-to-all",
/// "send-receive".
llvm::StringRef stringifyCollective(Collective collective);

/// What one collective costs each chip of its group on one dimension.
struct CollectiveCost {
  /// Bytes a chip moves at the group's ringBandwidth() (that of the
  /// dimension's part(chips)): what a TransferGroup charges to the
  /// dimension's link.
  double bytes = 0;
  /// Steps run one after another, each paying the dimension's latency.
  double steps = 0;
  /// steps * latency + bytes / ringBandwidth: 0 when bytes and steps are 0,
  /// +inf when bytes > 0 and the bandwidth is 0.
  double seconds = 0;
};

/// `collective` among `chips` consecutive chips of `dimension` (1 <= chips <=
/// dimension.size), priced on dimension.part(chips). `bytes` is, for
/// AllReduce and ReduceScatter, each chip's whole buffer before; for
/// AllGather the whole buffer after; for AllToAll everything one chip holds
/// (1/chips of it stays, the rest goes 1/chips to each other chip); for
/// SendReceive the message to a neighbour.
///
/// With k = chips, n = bytes and d = dimension.part(k):
///  - ReduceScatter, AllGather: a ring on any topology, (k-1)/k n bytes in
///    k-1 steps; AllReduce is the two, 2 (k-1)/k n bytes in 2 (k-1) steps.
///  - AllToAll: on a switch a pairwise exchange, (k-1)/k n bytes in k-1
///    steps; on a torus the shortest way round, floor(k^2/4)/k n bytes at
///    both directions in k/2 steps; on a line the middle link carries the
///    most, floor(k^2/4)/k n bytes one way in k-1 steps; on a
///    unidirectional ring everything goes one way round, (k-1)/2 n bytes in
///    k-1 steps.
///  - SendReceive: n bytes in one step. A send uses one direction, but a
///    torus's ringBandwidth() is both: there it is charged as 2 n bytes at
///    ringBandwidth(), i.e. n at one direction's bandwidth.
///
/// A single chip, or a collective of 0 bytes, costs nothing at all (no
/// latency either: nothing is run).
CollectiveCost collectiveCost(Collective collective, double bytes,
                              const NetworkDimension &dimension, int64_t chips);

/// One dimension's share of a hierarchical collective: `chips` consecutive
/// chips of `dimension` (1 <= chips <= dimension.size).
struct DimensionGroup {
  NetworkDimension dimension;
  int64_t chips = 1;
};

/// `collective` over a group spanning several dimensions, innermost first,
/// as NCCL runs it. All-reduce: a reduce-scatter on each dimension inside
/// out, on shrinking buffers (bytes, bytes / k0, bytes / k0 / k1, ...), then
/// an all-gather on each back outside in (the outermost dimension
/// all-reduces its share); so each dimension i costs an all-reduce of
/// bytes / (k0 ... k(i-1)). Reduce-scatter and all-gather are the halves of
/// that (`bytes` is the whole buffer before, resp. after). All-to-all: one
/// all-to-all of the whole `bytes` per dimension. Send-receive: on the
/// outermost dimension with more than one chip; the others cost nothing.
/// Returns each dimension's cost, in the order of `groups`; the phases run
/// one after another, so the collective takes totalSeconds() of them.
std::vector<CollectiveCost>
hierarchicalCost(Collective collective, double bytes,
                 llvm::ArrayRef<DimensionGroup> groups);

/// The time of phases that run one after another: the sum of their seconds.
double totalSeconds(llvm::ArrayRef<CollectiveCost> costs);

} // namespace dsm::core

#endif // DSM_CORE_SYSTEM_COLLECTIVES_H

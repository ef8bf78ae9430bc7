//===- Collectives.cpp - Collectives priced by algorithm ------------------===//
//
// The byte counts keep the operation order of DeepSpatialMatrix's model
// (PerformanceModel.cpp): in doubles, 2 * (k - 1) / k * n for a ring
// all-reduce and n * floor(k^2/4) / k for a torus all-to-all, so that its
// figures stay bit-identical when it prices its transfers here.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/System/Collectives.h"

#include "llvm/ADT/STLExtras.h"

#include <cassert>
#include <limits>

using namespace dsm::core;

llvm::StringRef dsm::core::stringifyCollective(Collective collective) {
  switch (collective) {
  case Collective::AllReduce:
    return "all-reduce";
  case Collective::ReduceScatter:
    return "reduce-scatter";
  case Collective::AllGather:
    return "all-gather";
  case Collective::AllToAll:
    return "all-to-all";
  case Collective::SendReceive:
    return "send-receive";
  }
  return "<invalid>";
}

/// Bytes and steps of an all-to-all on `d` (a whole dimension or a part).
static void allToAll(double n, const NetworkDimension &d, int64_t k,
                     CollectiveCost &cost) {
  switch (d.topology) {
  case NetworkTopology::Switch:
    // Pairwise exchange: in step s chip i sends to chip i + s.
    cost.bytes = double(k - 1) / double(k) * n;
    cost.steps = double(k - 1);
    return;
  case NetworkTopology::Torus:
    // Every block the shortest way round: floor(k^2/4) hop-blocks of n/k per
    // chip, half each way (charged at both directions), at most k/2 hops.
    cost.bytes = n * double((k * k) / 4) / double(k);
    cost.steps = double(k / 2);
    return;
  case NetworkTopology::Line:
    // The middle link carries floor(k/2) * ceil(k/2) blocks of n/k each way,
    // one direction at the bandwidth; the ends are k - 1 hops apart.
    cost.bytes = n * double((k * k) / 4) / double(k);
    cost.steps = double(k - 1);
    return;
  case NetworkTopology::Ring:
    // One way round: blocks of n/k travel 1, 2, ..., k - 1 hops.
    cost.bytes = n * double(k - 1) / 2;
    cost.steps = double(k - 1);
    return;
  }
}

CollectiveCost dsm::core::collectiveCost(Collective collective, double bytes,
                                         const NetworkDimension &dimension,
                                         int64_t chips) {
  assert(chips >= 1 && chips <= dimension.size &&
         "a group of chips along the dimension");
  CollectiveCost cost;
  if (chips <= 1 || bytes <= 0)
    return cost;
  const int64_t k = chips;
  const double n = bytes;
  NetworkDimension d = dimension.part(k);
  switch (collective) {
  case Collective::ReduceScatter:
  case Collective::AllGather:
    cost.bytes = double(k - 1) / double(k) * n;
    cost.steps = double(k - 1);
    break;
  case Collective::AllReduce:
    cost.bytes = 2 * double(k - 1) / double(k) * n;
    cost.steps = double(2 * (k - 1));
    break;
  case Collective::AllToAll:
    allToAll(n, d, k, cost);
    break;
  case Collective::SendReceive:
    // One direction of the link; a torus's ringBandwidth() is both.
    cost.bytes = d.topology == NetworkTopology::Torus ? 2 * n : n;
    cost.steps = 1;
    break;
  }
  double bandwidth = d.ringBandwidth();
  double transfer = 0;
  if (cost.bytes > 0)
    transfer = bandwidth > 0 ? cost.bytes / bandwidth
                             : std::numeric_limits<double>::infinity();
  cost.seconds = cost.steps * d.latency + transfer;
  return cost;
}

std::vector<CollectiveCost>
dsm::core::hierarchicalCost(Collective collective, double bytes,
                            llvm::ArrayRef<DimensionGroup> groups) {
  std::vector<CollectiveCost> costs(groups.size());
  switch (collective) {
  case Collective::AllReduce:
  case Collective::ReduceScatter:
  case Collective::AllGather: {
    // Inside out on shrinking buffers; an all-reduce's reduce-scatter and
    // all-gather on a dimension (or the outermost's all-reduce) add up to an
    // all-reduce of the same buffer there.
    double buffer = bytes;
    for (auto [i, group] : llvm::enumerate(groups)) {
      costs[i] =
          collectiveCost(collective, buffer, group.dimension, group.chips);
      buffer = buffer / double(group.chips);
    }
    break;
  }
  case Collective::AllToAll:
    for (auto [i, group] : llvm::enumerate(groups))
      costs[i] =
          collectiveCost(collective, bytes, group.dimension, group.chips);
    break;
  case Collective::SendReceive:
    for (size_t i = groups.size(); i-- > 0;) {
      if (groups[i].chips > 1) {
        costs[i] = collectiveCost(collective, bytes, groups[i].dimension,
                                  groups[i].chips);
        break;
      }
    }
    break;
  }
  return costs;
}

double dsm::core::totalSeconds(llvm::ArrayRef<CollectiveCost> costs) {
  double total = 0;
  for (const CollectiveCost &cost : costs)
    total += cost.seconds;
  return total;
}

//===- CollectivesTest.cpp - Collectives against hand counts --------------===//

#include "dsm/Core/System/Collectives.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace dsm::core;

namespace {

constexpr Collective kCollectives[] = {
    Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather,
    Collective::AllToAll, Collective::SendReceive};

NetworkDimension dimension(int64_t size, NetworkTopology topology,
                           double bandwidth, double latency) {
  NetworkDimension d;
  d.size = size;
  d.topology = topology;
  d.bandwidth = bandwidth;
  d.latency = latency;
  return d;
}

/// 8 chips at 100 GB/s per direction, 5 us a step.
NetworkDimension eight(NetworkTopology topology) {
  return dimension(8, topology, 100e9, 5e-6);
}

/// Expects `cost` to be `bytes` in `steps`, taking `transfer` seconds at the
/// bandwidth after `steps` latencies of `latency`.
void expectCost(const CollectiveCost &cost, double bytes, double steps,
                double transfer, double latency) {
  EXPECT_DOUBLE_EQ(cost.bytes, bytes);
  EXPECT_EQ(cost.steps, steps);
  EXPECT_DOUBLE_EQ(cost.seconds, steps * latency + transfer);
}

TEST(CollectivesTest, Names) {
  EXPECT_EQ(stringifyCollective(Collective::AllReduce), "all-reduce");
  EXPECT_EQ(stringifyCollective(Collective::ReduceScatter), "reduce-scatter");
  EXPECT_EQ(stringifyCollective(Collective::AllGather), "all-gather");
  EXPECT_EQ(stringifyCollective(Collective::AllToAll), "all-to-all");
  EXPECT_EQ(stringifyCollective(Collective::SendReceive), "send-receive");
}

// n = 800 MB among 8 chips: a block n/8 is 100 MB. Ring, line and switch
// flow at 100 GB/s, a torus at 200 GB/s (both ways).
constexpr double kN = 800e6;
constexpr double kAlpha = 5e-6;

TEST(CollectivesTest, RingCollectivesOnEachTopologyOfEightChips) {
  for (NetworkTopology topology :
       {NetworkTopology::Ring, NetworkTopology::Torus, NetworkTopology::Line,
        NetworkTopology::Switch}) {
    SCOPED_TRACE(stringifyNetworkTopology(topology).str());
    double rate = topology == NetworkTopology::Torus ? 200e9 : 100e9;
    NetworkDimension d = eight(topology);
    // Reduce-scatter and all-gather: 7 of the 8 blocks, 7 steps.
    expectCost(collectiveCost(Collective::ReduceScatter, kN, d, 8), 700e6, 7,
               700e6 / rate, kAlpha);
    expectCost(collectiveCost(Collective::AllGather, kN, d, 8), 700e6, 7,
               700e6 / rate, kAlpha);
    // All-reduce: both, 14 blocks in 14 steps.
    expectCost(collectiveCost(Collective::AllReduce, kN, d, 8), 1400e6, 14,
               1400e6 / rate, kAlpha);
  }
  // Spelled out: an all-reduce of 800 MB on the ring takes 14 ms + 70 us,
  // on the torus 7 ms + 70 us.
  EXPECT_DOUBLE_EQ(
      collectiveCost(Collective::AllReduce, kN, eight(NetworkTopology::Ring), 8)
          .seconds,
      14e-3 + 70e-6);
  EXPECT_DOUBLE_EQ(collectiveCost(Collective::AllReduce, kN,
                                  eight(NetworkTopology::Torus), 8)
                       .seconds,
                   7e-3 + 70e-6);
}

TEST(CollectivesTest, AllToAllOnEachTopologyOfEightChips) {
  // Switch: pairwise exchange, 7 blocks out in 7 steps: 7 ms + 35 us.
  expectCost(collectiveCost(Collective::AllToAll, kN,
                            eight(NetworkTopology::Switch), 8),
             700e6, 7, 7e-3, kAlpha);
  // Torus: blocks travel 1,1,2,2,3,3,4 hops = 16 = floor(64/4) hop-blocks,
  // 1.6 GB at 200 GB/s; the farthest is 4 hops: 8 ms + 20 us.
  expectCost(collectiveCost(Collective::AllToAll, kN,
                            eight(NetworkTopology::Torus), 8),
             1600e6, 4, 8e-3, kAlpha);
  // Line: 4 chips on each side of the middle link send 4 blocks each across,
  // 16 blocks one way at 100 GB/s; the ends are 7 hops apart: 16 ms + 35 us.
  expectCost(
      collectiveCost(Collective::AllToAll, kN, eight(NetworkTopology::Line), 8),
      1600e6, 7, 16e-3, kAlpha);
  // Ring one way: 1 + 2 + ... + 7 = 28 hop-blocks = 2.8 GB: 28 ms + 35 us.
  expectCost(
      collectiveCost(Collective::AllToAll, kN, eight(NetworkTopology::Ring), 8),
      2800e6, 7, 28e-3, kAlpha);
}

TEST(CollectivesTest, SendReceiveUsesOneDirectionOnEachTopology) {
  // 800 MB to a neighbour at 100 GB/s one way, one step: 8 ms + 5 us. The
  // torus charges it as 1.6 GB at its two-way 200 GB/s.
  for (NetworkTopology topology :
       {NetworkTopology::Ring, NetworkTopology::Torus, NetworkTopology::Line,
        NetworkTopology::Switch}) {
    SCOPED_TRACE(stringifyNetworkTopology(topology).str());
    double bytes = topology == NetworkTopology::Torus ? 1600e6 : 800e6;
    expectCost(collectiveCost(Collective::SendReceive, kN, eight(topology), 8),
               bytes, 1, 8e-3, kAlpha);
  }
}

TEST(CollectivesTest, PartOfATorusIsALineAndPartOfASwitchKeepsItsPorts) {
  // 4 of a torus's 8 chips: a line at 100 GB/s, not 200.
  NetworkDimension torus = eight(NetworkTopology::Torus);
  // All-reduce: 2 * 3/4 * 800 MB = 1.2 GB in 6 steps: 12 ms + 30 us.
  expectCost(collectiveCost(Collective::AllReduce, kN, torus, 4), 1200e6, 6,
             12e-3, kAlpha);
  // A whole torus of 4 would take half the transfer time.
  expectCost(collectiveCost(Collective::AllReduce, kN,
                            dimension(4, NetworkTopology::Torus, 100e9, kAlpha),
                            4),
             1200e6, 6, 6e-3, kAlpha);
  // All-to-all as a line: floor(16/4)/4 * 800 MB = 800 MB one way, 3 steps.
  expectCost(collectiveCost(Collective::AllToAll, kN, torus, 4), 800e6, 3, 8e-3,
             kAlpha);
  // A send on the line is the message itself at one direction.
  expectCost(collectiveCost(Collective::SendReceive, kN, torus, 4), 800e6, 1,
             8e-3, kAlpha);

  // 4 of a switch's 8 chips: still a switch at the full 100 GB/s.
  NetworkDimension sw = eight(NetworkTopology::Switch);
  expectCost(collectiveCost(Collective::AllReduce, kN, sw, 4), 1200e6, 6, 12e-3,
             kAlpha);
  // Pairwise: 3/4 * 800 MB = 600 MB in 3 steps.
  expectCost(collectiveCost(Collective::AllToAll, kN, sw, 4), 600e6, 3, 6e-3,
             kAlpha);

  // 4 of a unidirectional ring's 8 chips: its links shared, 50 GB/s.
  expectCost(collectiveCost(Collective::AllReduce, kN,
                            eight(NetworkTopology::Ring), 4),
             1200e6, 6, 24e-3, kAlpha);
}

/// 8 GPUs on an NVLink switch (300 GB/s a direction, 2 us a step) in each
/// of 16 nodes on an InfiniBand switch (25 GB/s, 10 us).
std::vector<DimensionGroup> twoLevel() {
  return {{dimension(8, NetworkTopology::Switch, 300e9, 2e-6), 8},
          {dimension(16, NetworkTopology::Switch, 25e9, 10e-6), 16}};
}

// 1.2 GB of gradients: the inner dimension works on 1.2 GB, the outer on the
// 150 MB share each GPU holds after the inner reduce-scatter.
constexpr double kGradients = 1.2e9;

TEST(CollectivesTest, TwoLevelAllReduceReducesInsideThenAcross) {
  std::vector<CollectiveCost> costs =
      hierarchicalCost(Collective::AllReduce, kGradients, twoLevel());
  ASSERT_EQ(costs.size(), 2u);
  // NVLink: RS + AG of 1.2 GB, 2 * 7/8 * 1.2 GB = 2.1 GB in 14 steps:
  // 7 ms + 28 us.
  expectCost(costs[0], 2.1e9, 14, 7e-3, 2e-6);
  // InfiniBand: all-reduce of 150 MB, 2 * 15/16 * 150 MB = 281.25 MB in 30
  // steps: 11.25 ms + 300 us.
  expectCost(costs[1], 281.25e6, 30, 11.25e-3, 10e-6);
  EXPECT_DOUBLE_EQ(totalSeconds(costs), 7e-3 + 28e-6 + 11.25e-3 + 300e-6);
}

TEST(CollectivesTest, TwoLevelReduceScatterAndAllGatherAreHalvesOfAllReduce) {
  for (Collective collective :
       {Collective::ReduceScatter, Collective::AllGather}) {
    SCOPED_TRACE(stringifyCollective(collective).str());
    std::vector<CollectiveCost> costs =
        hierarchicalCost(collective, kGradients, twoLevel());
    ASSERT_EQ(costs.size(), 2u);
    // NVLink: 7/8 * 1.2 GB = 1.05 GB in 7 steps: 3.5 ms + 14 us.
    expectCost(costs[0], 1.05e9, 7, 3.5e-3, 2e-6);
    // InfiniBand: 15/16 * 150 MB = 140.625 MB in 15 steps: 5.625 ms + 150 us.
    expectCost(costs[1], 140.625e6, 15, 5.625e-3, 10e-6);
    EXPECT_DOUBLE_EQ(totalSeconds(costs), 3.5e-3 + 14e-6 + 5.625e-3 + 150e-6);
  }
  // The two halves add up to the all-reduce, dimension by dimension.
  std::vector<CollectiveCost> rs =
      hierarchicalCost(Collective::ReduceScatter, kGradients, twoLevel());
  std::vector<CollectiveCost> ag =
      hierarchicalCost(Collective::AllGather, kGradients, twoLevel());
  std::vector<CollectiveCost> ar =
      hierarchicalCost(Collective::AllReduce, kGradients, twoLevel());
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(rs[i].bytes + ag[i].bytes, ar[i].bytes);
    EXPECT_EQ(rs[i].steps + ag[i].steps, ar[i].steps);
  }
}

TEST(CollectivesTest, TwoLevelAllToAllExchangesTheWholeBufferOnEachLevel) {
  std::vector<CollectiveCost> costs =
      hierarchicalCost(Collective::AllToAll, kGradients, twoLevel());
  ASSERT_EQ(costs.size(), 2u);
  // NVLink: 7/8 * 1.2 GB = 1.05 GB in 7 steps: 3.5 ms + 14 us.
  expectCost(costs[0], 1.05e9, 7, 3.5e-3, 2e-6);
  // InfiniBand: 15/16 * 1.2 GB = 1.125 GB in 15 steps: 45 ms + 150 us.
  expectCost(costs[1], 1.125e9, 15, 45e-3, 10e-6);
  EXPECT_DOUBLE_EQ(totalSeconds(costs), 3.5e-3 + 14e-6 + 45e-3 + 150e-6);
}

TEST(CollectivesTest, TwoLevelSendReceiveCrossesTheOutermostUsedDimension) {
  std::vector<CollectiveCost> costs =
      hierarchicalCost(Collective::SendReceive, kGradients, twoLevel());
  ASSERT_EQ(costs.size(), 2u);
  expectCost(costs[0], 0, 0, 0, 0);
  // 1.2 GB at 25 GB/s: 48 ms + 10 us.
  expectCost(costs[1], 1.2e9, 1, 48e-3, 10e-6);

  // A single node: the send stays on NVLink, 4 ms + 2 us.
  std::vector<DimensionGroup> oneNode = twoLevel();
  oneNode[1].chips = 1;
  costs = hierarchicalCost(Collective::SendReceive, kGradients, oneNode);
  expectCost(costs[0], 1.2e9, 1, 4e-3, 2e-6);
  expectCost(costs[1], 0, 0, 0, 0);
}

TEST(CollectivesTest, SwitchIsNeverSlowerThanARing) {
  for (int64_t size : {2, 3, 4, 7, 8, 16, 64}) {
    NetworkDimension ring = dimension(size, NetworkTopology::Ring, 50e9, 3e-6);
    NetworkDimension sw = ring;
    sw.topology = NetworkTopology::Switch;
    for (int64_t chips = 1; chips <= size; ++chips)
      for (double bytes : {1.0, 4096.0, 1e6, 3.3e9})
        for (Collective collective : kCollectives) {
          CollectiveCost onSwitch =
              collectiveCost(collective, bytes, sw, chips);
          CollectiveCost onRing =
              collectiveCost(collective, bytes, ring, chips);
          EXPECT_LE(onSwitch.seconds, onRing.seconds)
              << stringifyCollective(collective).str() << " of " << bytes
              << " B among " << chips << " of " << size << " chips";
        }
  }
}

TEST(CollectivesTest, TorusMatchesDeepSpatialMatrixFormulasExactly) {
  // PerformanceModel.cpp: an all-reduce puts 2 * (k - 1) / k * n bytes on a
  // torus direction, an all-to-all n * floor(k^2/4) / k, both flowing at
  // twice the per-direction bandwidth. Awkward numbers, so rounding would
  // show.
  const double bandwidth = 37.3e9;
  for (int64_t k : {2, 3, 4, 5, 7, 12, 16}) {
    NetworkDimension torus = dimension(k, NetworkTopology::Torus, bandwidth, 0);
    double gk = double(k);
    for (double n : {1.0, 12345.678, 3.14159e8, 7.77e10}) {
      CollectiveCost allReduce =
          collectiveCost(Collective::AllReduce, n, torus, k);
      EXPECT_EQ(allReduce.bytes, 2 * (gk - 1) / gk * n);
      EXPECT_EQ(allReduce.bytes / torus.ringBandwidth(),
                2 * (gk - 1) / gk * n / (2 * bandwidth));
      EXPECT_EQ(allReduce.seconds, 2 * (gk - 1) / gk * n / (2 * bandwidth));

      CollectiveCost allToAll =
          collectiveCost(Collective::AllToAll, n, torus, k);
      EXPECT_EQ(allToAll.bytes, n * std::floor(gk * gk / 4) / gk);
      EXPECT_EQ(allToAll.seconds,
                n * std::floor(gk * gk / 4) / gk / (2 * bandwidth));
    }
  }
}

TEST(CollectivesTest, OneChipOrNoBytesCostNothing) {
  NetworkDimension sw = eight(NetworkTopology::Switch);
  for (Collective collective : kCollectives) {
    SCOPED_TRACE(stringifyCollective(collective).str());
    // A single chip has no one to talk to.
    expectCost(collectiveCost(collective, kN, sw, 1), 0, 0, 0, 0);
    // Nothing to move is nothing run: not even the latency of its steps.
    expectCost(collectiveCost(collective, 0, sw, 8), 0, 0, 0, 0);
    std::vector<CollectiveCost> costs =
        hierarchicalCost(collective, 0, twoLevel());
    EXPECT_EQ(totalSeconds(costs), 0);
  }
  EXPECT_TRUE(hierarchicalCost(Collective::AllReduce, kN, {}).empty());
  EXPECT_EQ(totalSeconds({}), 0);
}

TEST(CollectivesTest, NoBandwidthIsInfinitelySlow) {
  NetworkDimension dead = dimension(8, NetworkTopology::Switch, 0, 1e-6);
  for (Collective collective : kCollectives) {
    SCOPED_TRACE(stringifyCollective(collective).str());
    CollectiveCost cost = collectiveCost(collective, kN, dead, 8);
    EXPECT_GT(cost.bytes, 0);
    EXPECT_TRUE(std::isinf(cost.seconds));
  }
}

} // namespace

//===- RectifierTest.cpp - Demotion order and re-assigned ratio -----------===//

#include "dsm/Core/Memory/Rectifier.h"

#include "MemoryTestHelpers.h"

#include <random>

using namespace dsm::core;
using namespace dsm::core::memory;
using namespace dsm::core::memory::test;

namespace {

TEST(RectifierTest, ValidMapIsUnchanged) {
  MemoryGraph graph = makeGraph({makeNode("a", 5, 5, 0)});
  auto checker = CapacityChecker::create(graph, makeTinySystem());
  ASSERT_TRUE(bool(checker));
  MemoryMap map = makeUniformMap(1, MemoryLevel::SRAM);
  Rectification fixed = Rectifier(*checker).rectify(map);
  EXPECT_EQ(fixed.map, map);
  EXPECT_EQ(fixed.reassignedBytes, 0);
  EXPECT_EQ(fixed.reassignedRatio, 0);
}

TEST(RectifierTest, FirstComeFirstServedActivationBeforeWeights) {
  // SRAM 20, LLC 30. Everything asks for SRAM. Step order: a's output (12)
  // fits; a's weights (10) do not (22 > 20) -> LLC; b's output (6) fits
  // (a's output is live at step 1: 12 + 6 = 18); b's weights (25) do not fit
  // in SRAM nor in the LLC next to a's weights (35 > 30) -> DRAM.
  MemoryGraph graph =
      makeGraph({makeNode("a", 10, 12, 0), makeNode("b", 25, 6, 0, {0})});
  auto checker = CapacityChecker::create(graph, makeTinySystem());
  ASSERT_TRUE(bool(checker));
  Rectification fixed =
      Rectifier(*checker).rectify(makeUniformMap(2, MemoryLevel::SRAM));
  EXPECT_EQ(fixed.map[0].activations, MemoryLevel::SRAM);
  EXPECT_EQ(fixed.map[0].weights, MemoryLevel::LLC);
  EXPECT_EQ(fixed.map[1].activations, MemoryLevel::SRAM);
  EXPECT_EQ(fixed.map[1].weights, MemoryLevel::DRAM);
  EXPECT_EQ(fixed.reassignedBytes, 35);
  EXPECT_DOUBLE_EQ(fixed.reassignedRatio, 35.0 / (10 + 12 + 25 + 6));
  EXPECT_TRUE(checker->isValid(fixed.map));
}

TEST(RectifierTest, DemotionStopsAtTheFirstLevelWithRoom) {
  // Two 15-byte weights asking for SRAM (20): the second drops to the LLC.
  MemoryGraph graph =
      makeGraph({makeNode("a", 15, 0, 0), makeNode("b", 15, 0, 0)});
  auto checker = CapacityChecker::create(graph, makeTinySystem());
  ASSERT_TRUE(bool(checker));
  Rectification fixed =
      Rectifier(*checker).rectify(makeUniformMap(2, MemoryLevel::SRAM));
  EXPECT_EQ(fixed.map[0].weights, MemoryLevel::SRAM);
  EXPECT_EQ(fixed.map[1].weights, MemoryLevel::LLC);
  EXPECT_DOUBLE_EQ(fixed.reassignedRatio, 0.5);
}

TEST(RectifierTest, RandomMapsAlwaysComeBackValid) {
  std::vector<MemoryNode> nodes;
  for (int i = 0; i < 12; ++i)
    nodes.push_back(
        makeNode("n" + std::to_string(i), (i * 7) % 13, (i * 5) % 11 + 1, 0,
                 i ? std::vector<int32_t>{i - 1} : std::vector<int32_t>{}));
  MemoryGraph graph = makeGraph(nodes);
  for (int64_t engines : {1, 2}) {
    auto checker =
        CapacityChecker::create(graph, makeTinySystem(20, 30, 1000, engines));
    ASSERT_TRUE(bool(checker));
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 200; ++trial) {
      MemoryMap map(graph.size());
      for (NodePlacement &p : map)
        p = {MemoryLevel(rng() % 3), MemoryLevel(rng() % 3)};
      Rectification fixed = Rectifier(*checker).rectify(map);
      EXPECT_TRUE(checker->isValid(fixed.map));
      EXPECT_EQ(checker->isValid(map), fixed.reassignedBytes == 0);
    }
  }
}

TEST(RectifierTest, TensorLargerThanOneEnginesSramGoesToTheLlc) {
  // Two engines of 10 bytes: 12 bytes fit the level's 20 but no engine.
  MemoryGraph graph = makeGraph({makeNode("a", 12, 4, 0)});
  auto checker =
      CapacityChecker::create(graph, makeTinySystem(20, 30, 1000, 2));
  ASSERT_TRUE(bool(checker));
  Rectification fixed = Rectifier(*checker).rectify(
      makeUniformMap(graph.size(), MemoryLevel::SRAM));
  EXPECT_EQ(fixed.map[0].weights, MemoryLevel::LLC);
  EXPECT_EQ(fixed.map[0].activations, MemoryLevel::SRAM);
  EXPECT_EQ(fixed.reassignedBytes, 12);
}

} // namespace

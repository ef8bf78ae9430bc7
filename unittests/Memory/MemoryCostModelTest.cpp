//===- MemoryCostModelTest.cpp - Each latency term by hand ----------------===//

#include "dsm/Core/Memory/MemoryCostModel.h"
#include "dsm/Core/Support/NodeError.h"

#include "MemoryTestHelpers.h"

using namespace dsm::core;
using namespace dsm::core::memory;
using namespace dsm::core::memory::test;

namespace {

// node0: W=100, O=20, model input 10 bytes, 40 MACs -> compute 2 s.
// node1: reads node0, W=0, O=5, 400 MACs -> compute 20 s.
MemoryGraph twoNodes() {
  return makeGraph(
      {makeNode("a", 100, 20, 40, {}, 10), makeNode("b", 0, 5, 400, {0})});
}

TEST(MemoryCostModelTest, SramBandwidthIsOneEnginesSram) {
  // A tensor lives in one engine's SRAM (App. G) and streams at its
  // bandwidth, however many engines there are.
  MemoryGraph graph = twoNodes();
  for (int64_t engines : {1, 4}) {
    auto model =
        MemoryCostModel::create(graph, makeTinySystem(20, 30, 1000, engines));
    ASSERT_TRUE(bool(model));
    EXPECT_DOUBLE_EQ(model->getBandwidth(MemoryLevel::DRAM), 1);
    EXPECT_DOUBLE_EQ(model->getBandwidth(MemoryLevel::LLC), 10);
    EXPECT_DOUBLE_EQ(model->getBandwidth(MemoryLevel::SRAM), 100);
  }
}

TEST(MemoryCostModelTest, EachTermByHand) {
  MemoryGraph graph = twoNodes();
  auto model = MemoryCostModel::create(graph, makeTinySystem());
  ASSERT_TRUE(bool(model));
  MemoryMap map = {{MemoryLevel::DRAM, MemoryLevel::LLC},
                   {MemoryLevel::SRAM, MemoryLevel::SRAM}};
  NodeCost a = model->getNodeCost(map, 0);
  EXPECT_DOUBLE_EQ(a.compute, 40.0 / 20);
  EXPECT_DOUBLE_EQ(a.weightRead, 100.0 / 1);
  EXPECT_DOUBLE_EQ(a.outputWrite, 20.0 / 10);
  EXPECT_DOUBLE_EQ(a.inputRead, 10.0 / 1); // the model input is in DRAM
  EXPECT_DOUBLE_EQ(a.latency(), 112);      // transfer-bound
  NodeCost b = model->getNodeCost(map, 1);
  EXPECT_DOUBLE_EQ(b.compute, 20);
  EXPECT_DOUBLE_EQ(b.weightRead, 0);
  EXPECT_DOUBLE_EQ(b.inputRead, 20.0 / 10); // node0's output from the LLC
  EXPECT_DOUBLE_EQ(b.outputWrite, 5.0 / 100);
  EXPECT_DOUBLE_EQ(b.latency(), 20); // compute hides the 2.05 s of transfer
  EXPECT_DOUBLE_EQ(model->getNodeLatency(map, 0), 112);
  EXPECT_DOUBLE_EQ(model->getNodeLatency(map, 1), 20);
  EXPECT_DOUBLE_EQ(model->getNetworkLatency(map), 132);
}

TEST(MemoryCostModelTest, ProducerLevelChangesConsumerRead) {
  MemoryGraph graph = twoNodes();
  auto model = MemoryCostModel::create(graph, makeTinySystem());
  ASSERT_TRUE(bool(model));
  MemoryMap map = makeUniformMap(2, MemoryLevel::DRAM);
  EXPECT_DOUBLE_EQ(model->getNodeCost(map, 1).inputRead, 20);
  map[0].activations = MemoryLevel::SRAM;
  EXPECT_DOUBLE_EQ(model->getNodeCost(map, 1).inputRead, 0.2);
}

TEST(MemoryCostModelTest, AuxiliaryOpsCountAsCompute) {
  MemoryNode node = makeNode("pool", 0, 0, 10);
  node.auxOps = 30;
  MemoryGraph graph = makeGraph({node});
  auto model = MemoryCostModel::create(graph, makeTinySystem());
  ASSERT_TRUE(bool(model));
  EXPECT_DOUBLE_EQ(
      model->getNodeCost(makeUniformMap(1, MemoryLevel::DRAM), 0).compute, 2);
}

TEST(MemoryCostModelTest, LevelWithoutBandwidthIsAnError) {
  MemoryGraph graph = twoNodes();
  MemoryHierarchySystem system = makeTinySystem();
  system.llc.bandwidthBytesPerSecond = 0;
  auto model = MemoryCostModel::create(graph, system);
  ASSERT_FALSE(bool(model));
  EXPECT_NE(llvm::toString(model.takeError()).find("llc has no bandwidth"),
            std::string::npos);
}

TEST(MemoryGraphTest, InputThatDoesNotRunBeforeIsANodeError) {
  auto graph = MemoryGraph::create(
      {makeNode("a", 0, 1, 0, {1}), makeNode("b", 0, 1, 0)});
  ASSERT_FALSE(bool(graph));
  llvm::Error error = graph.takeError();
  ASSERT_TRUE(error.isA<NodeError>());
  llvm::handleAllErrors(std::move(error),
                        [](const NodeError &e) { EXPECT_EQ(e.getNode(), 0); });
}

TEST(MemoryGraphTest, OverflowingBytesAreRejectedNotWrapped) {
  int64_t half = std::numeric_limits<int64_t>::max() / 2 + 1;
  auto graph = MemoryGraph::create(
      {makeNode("a", half, 0, 0), makeNode("b", half, 0, 0)});
  ASSERT_FALSE(bool(graph));
  llvm::consumeError(graph.takeError());
}

TEST(MemoryGraphTest, LiveRangeRunsToLastConsumerOrEnd) {
  MemoryNode out = makeNode("d", 0, 1, 0, {2});
  out.isModelOutput = true;
  MemoryNode middle = makeNode("b", 0, 1, 0, {0});
  middle.isModelOutput = true; // a model result read inside too
  MemoryGraph graph = makeGraph(
      {makeNode("a", 0, 1, 0), middle, makeNode("c", 0, 1, 0, {0, 1}), out});
  EXPECT_EQ(graph.getActivationRange(0).first, 0);
  EXPECT_EQ(graph.getActivationRange(0).last, 2);
  EXPECT_EQ(graph.getActivationRange(1).last, 3);
  EXPECT_EQ(graph.getActivationRange(2).last, 3);
  EXPECT_EQ(graph.getActivationRange(3).first, 3);
  EXPECT_EQ(graph.getActivationRange(3).last, 3);
}

} // namespace

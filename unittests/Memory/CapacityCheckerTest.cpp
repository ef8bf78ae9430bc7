//===- CapacityCheckerTest.cpp - Liveness-based validity by hand ----------===//

#include "dsm/Core/Memory/CapacityChecker.h"
#include "dsm/Core/Support/NodeError.h"

#include "MemoryTestHelpers.h"

using namespace dsm::core;
using namespace dsm::core::memory;
using namespace dsm::core::memory::test;

namespace {

// SRAM 20 bytes (one engine), LLC 30, DRAM 1000. A residual block: node0's
// output (8 bytes) lives over steps 0..2 because node2 reads it.
MemoryGraph residual() {
  return makeGraph({makeNode("a", 4, 8, 0), makeNode("b", 6, 8, 0, {0}),
                    makeNode("c", 2, 8, 0, {1, 0})});
}

TEST(CapacityCheckerTest, SramCapacityIsPerEngineTimesEngines) {
  MemoryGraph graph = residual();
  // 4 engines of 5 bytes each.
  auto checker =
      CapacityChecker::create(graph, makeTinySystem(20, 30, 1000, 4));
  ASSERT_TRUE(bool(checker));
  EXPECT_EQ(checker->getCapacity(MemoryLevel::SRAM), 20);
  EXPECT_EQ(checker->getTensorLimit(MemoryLevel::SRAM), 5);
  EXPECT_EQ(checker->getCapacity(MemoryLevel::LLC), 30);
  EXPECT_EQ(checker->getCapacity(MemoryLevel::DRAM), 1000);
}

TEST(CapacityCheckerTest, NoTensorLargerThanOneEnginesSram) {
  // Two engines of 10 bytes: the level holds 20, a tensor at most 10 (it
  // lives in one engine's SRAM, App. G). b's 8 bytes fit; c's 11-byte
  // output does not, though 12 bytes of SRAM are free at its step.
  MemoryGraph graph =
      makeGraph({makeNode("a", 0, 4, 0), makeNode("b", 0, 8, 0, {0}),
                 makeNode("c", 0, 11, 0, {1})});
  auto checker =
      CapacityChecker::create(graph, makeTinySystem(20, 30, 1000, 2));
  ASSERT_TRUE(bool(checker));
  EXPECT_EQ(checker->getCapacity(MemoryLevel::SRAM), 20);
  EXPECT_EQ(checker->getTensorLimit(MemoryLevel::SRAM), 10);
  EXPECT_EQ(checker->getTensorLimit(MemoryLevel::LLC), 30);
  MemoryMap map = makeUniformMap(3, MemoryLevel::DRAM);
  map[1] = {MemoryLevel::SRAM, MemoryLevel::SRAM};
  EXPECT_TRUE(checker->isValid(map));
  map[2].activations = MemoryLevel::SRAM;
  CapacityVerdict verdict = checker->check(map);
  EXPECT_FALSE(verdict.valid);
  EXPECT_EQ(verdict.tensorNode, 2);
  EXPECT_EQ(verdict.step, 2);
  EXPECT_EQ(verdict.level, MemoryLevel::SRAM);
  EXPECT_EQ(verdict.usedBytes, 11);
  EXPECT_EQ(verdict.capacityBytes, 10);
  // One engine of 20 bytes takes it.
  auto single = CapacityChecker::create(graph, makeTinySystem(20, 30, 1000, 1));
  ASSERT_TRUE(bool(single));
  EXPECT_TRUE(single->isValid(map));
}

TEST(CapacityCheckerTest, WeightsLiveTheWholeRunActivationsTheirRange) {
  MemoryGraph graph = residual();
  auto checker = CapacityChecker::create(graph, makeTinySystem());
  ASSERT_TRUE(bool(checker));
  // SRAM: weights of a (4) and activations of a, b: step 1 holds 4+8+8 = 20.
  MemoryMap map = {{MemoryLevel::SRAM, MemoryLevel::SRAM},
                   {MemoryLevel::DRAM, MemoryLevel::SRAM},
                   {MemoryLevel::DRAM, MemoryLevel::DRAM}};
  CapacityVerdict verdict = checker->check(map);
  EXPECT_TRUE(verdict.valid);
  EXPECT_EQ(verdict.peakBytes[int(MemoryLevel::SRAM)], 20);
  EXPECT_EQ(verdict.peakBytes[int(MemoryLevel::DRAM)], 6 + 2 + 8);
  // One more byte of weights anywhere in the run breaks step 1 and 2.
  map[2].weights = MemoryLevel::SRAM;
  verdict = checker->check(map);
  EXPECT_FALSE(verdict.valid);
  EXPECT_EQ(verdict.step, 1);
  EXPECT_EQ(verdict.level, MemoryLevel::SRAM);
  EXPECT_EQ(verdict.usedBytes, 22);
  EXPECT_EQ(verdict.capacityBytes, 20);
}

TEST(CapacityCheckerTest, DeadActivationFreesItsBytes) {
  // A chain: a's output dies after b reads it, so a and c never coexist.
  MemoryGraph graph =
      makeGraph({makeNode("a", 0, 15, 0), makeNode("b", 0, 5, 0, {0}),
                 makeNode("c", 0, 15, 0, {1})});
  auto checker = CapacityChecker::create(graph, makeTinySystem());
  ASSERT_TRUE(bool(checker));
  EXPECT_TRUE(checker->isValid(makeUniformMap(3, MemoryLevel::SRAM)));
  EXPECT_EQ(checker->check(makeUniformMap(3, MemoryLevel::SRAM))
                .peakBytes[int(MemoryLevel::SRAM)],
            20);
}

TEST(CapacityCheckerTest, TensorLargerThanDramIsANodeError) {
  MemoryGraph graph =
      makeGraph({makeNode("a", 0, 1, 0), makeNode("huge", 1001, 1, 0)});
  auto checker = CapacityChecker::create(graph, makeTinySystem());
  ASSERT_FALSE(bool(checker));
  llvm::Error error = checker.takeError();
  ASSERT_TRUE(error.isA<NodeError>());
  llvm::handleAllErrors(std::move(error), [](const NodeError &e) {
    EXPECT_EQ(e.getNode(), 1);
    EXPECT_NE(e.getMessage().find("do not fit in DRAM"), std::string::npos);
  });
}

TEST(CapacityCheckerTest, ModelLargerThanDramIsANodeErrorAtTheStep) {
  MemoryGraph graph =
      makeGraph({makeNode("a", 600, 1, 0), makeNode("b", 600, 1, 0)});
  auto checker = CapacityChecker::create(graph, makeTinySystem());
  ASSERT_FALSE(bool(checker));
  llvm::Error error = checker.takeError();
  ASSERT_TRUE(error.isA<NodeError>());
  llvm::handleAllErrors(std::move(error),
                        [](const NodeError &e) { EXPECT_EQ(e.getNode(), 0); });
}

TEST(CapacityCheckerTest, ZeroCapacityLevelIsAnError) {
  MemoryGraph graph = residual();
  auto checker = CapacityChecker::create(graph, makeTinySystem(0));
  ASSERT_FALSE(bool(checker));
  EXPECT_NE(llvm::toString(checker.takeError()).find("sram has no capacity"),
            std::string::npos);
}

} // namespace

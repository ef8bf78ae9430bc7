//===- ExecutionSimulatorTest.cpp - Schedules computed by hand ------------===//
//
// Every expected time below is worked out on paper from Algorithms 4-7 with
// 1 GFLOP/s devices and 1 GB/s channels, so 1 GFLOP or 1 GB takes 1 s.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Devices/ExecutionSimulator.h"
#include "dsm/Core/Devices/Placement.h"

#include "DeviceTestHelpers.h"

using namespace dsm::core::devices;
using namespace dsm::core::devices::testing;

namespace {

SimulationOptions inference() {
  SimulationOptions options;
  options.training = false;
  options.computeEfficiency = 1.0;
  options.recordTrace = true;
  return options;
}

SimulationOptions training() {
  SimulationOptions options = inference();
  options.training = true;
  return options;
}

/// The interval of `op`'s `pass` in `batch` on a device.
const ScheduledItem *findOp(const SimulationResult &result, int32_t op,
                            PassKind pass = PassKind::Forward,
                            int32_t batch = 0) {
  for (const ScheduledItem &item : result.schedule)
    if (item.kind == ScheduledItem::Operation && item.op == op &&
        item.pass == pass && item.batch == batch)
      return &item;
  return nullptr;
}

TEST(ExecutionSimulator, ChainOnOneDeviceRunsBackToBack) {
  OpGraph graph;
  graph.addOp(makeOp("a", 1, 100));
  graph.addOp(makeOp("b", 2, 100, {0}));
  graph.addOp(makeOp("c", 3, 100, {1}));
  DeviceNetwork network = makeStar(2);
  ExecutionSimulator simulator(graph, network, inference());
  const SimulationResult &result = simulator.run({0, 0, 0});
  EXPECT_DOUBLE_EQ(result.makespan, 6.0);
  EXPECT_DOUBLE_EQ(findOp(result, 2)->start, 3.0);
  EXPECT_EQ(result.transfers, 0);
  // One wakeup (the idle device gets the input op), then three op_done.
  EXPECT_EQ(result.events, 4);
  EXPECT_DOUBLE_EQ(result.deviceBusy[0], 6.0);
  EXPECT_DOUBLE_EQ(result.deviceBusy[1], 0.0);
}

TEST(ExecutionSimulator, ChainTrainingRunsBackwardInReverseWithUpdate) {
  OpGraph graph;
  graph.addOp(makeOp("a", 1, 100, {}, /*backward=*/2));
  Op b = makeOp("b", 2, 100, {0}, /*backward=*/4);
  b.updateFlops = 1 * kGiga;
  graph.addOp(b);
  graph.addOp(makeOp("c", 3, 100, {1}, /*backward=*/6));
  DeviceNetwork network = makeStar(2);
  ExecutionSimulator simulator(graph, network, training());
  const SimulationResult &result = simulator.run({0, 0, 0});
  // Forward 1 + 2 + 3, backward c 6, b 4 + 1 (update), a 2.
  EXPECT_DOUBLE_EQ(result.makespan, 19.0);
  EXPECT_DOUBLE_EQ(findOp(result, 2, PassKind::Backward)->start, 6.0);
  EXPECT_DOUBLE_EQ(findOp(result, 1, PassKind::Backward)->end, 17.0);
  EXPECT_DOUBLE_EQ(findOp(result, 0, PassKind::Backward)->start, 17.0);
  EXPECT_EQ(result.events, 7);
}

TEST(ExecutionSimulator, ChainAcrossDevicesWaitsForTheTransfer) {
  OpGraph graph;
  graph.addOp(makeOp("a", 1, int64_t(1e9)));
  graph.addOp(makeOp("b", 2, 100, {0}));
  graph.addOp(makeOp("c", 3, 100, {1}));
  DeviceNetwork network = makeStar(2);
  ExecutionSimulator simulator(graph, network, inference());
  const SimulationResult &result = simulator.run({0, 1, 1});
  // a 0-1, transfer 1-2, b 2-4, c 4-7.
  EXPECT_DOUBLE_EQ(findOp(result, 1)->start, 2.0);
  EXPECT_DOUBLE_EQ(result.makespan, 7.0);
  EXPECT_EQ(result.transfers, 1);
  EXPECT_EQ(result.transferredBytes, int64_t(1e9));
  EXPECT_DOUBLE_EQ(result.channelBusy[0], 1.0);
  // wakeup d0, op_done a, wakeup channel, transfer_done, wakeup d1, 2 op_done.
  EXPECT_EQ(result.events, 7);
}

TEST(ExecutionSimulator, AChannelCarriesAtItsEfficiency) {
  // The chain above over a channel of half efficiency: 1 GB at 0.5 GB/s.
  OpGraph graph;
  graph.addOp(makeOp("a", 1, int64_t(1e9)));
  graph.addOp(makeOp("b", 2, 100, {0}));
  graph.addOp(makeOp("c", 3, 100, {1}));
  DeviceNetwork network;
  for (int d = 0; d < 2; ++d)
    network.addDevice({"d" + std::to_string(d), kGiga, 1e9, 0, 0});
  network.connect(0, 1, network.addChannel({"half", kGiga, 0.5}));
  ASSERT_FALSE(bool(network.finalize()));
  ExecutionSimulator simulator(graph, network, inference());
  const SimulationResult &result = simulator.run({0, 1, 1});
  // a 0-1, transfer 1-3, b 3-5, c 5-8.
  EXPECT_DOUBLE_EQ(findOp(result, 1)->start, 3.0);
  EXPECT_DOUBLE_EQ(result.makespan, 8.0);
  EXPECT_DOUBLE_EQ(result.channelBusy[0], 2.0);
}

TEST(ExecutionSimulator, DiamondJoinsAtTheLaterInput) {
  OpGraph graph;
  graph.addOp(makeOp("a", 1, int64_t(0.5e9)));
  graph.addOp(makeOp("b", 2, 100, {0}));
  graph.addOp(makeOp("c", 1, int64_t(1e9), {0}));
  graph.addOp(makeOp("d", 1, 100, {1, 2}));
  DeviceNetwork network = makeStar(2);
  ExecutionSimulator simulator(graph, network, inference());
  const SimulationResult &result = simulator.run({0, 0, 1, 0});
  // a 0-1; b 1-3 on d0; a's output 1-1.5 to d1; c 1.5-2.5; c's output
  // 2.5-3.5 back; d 3.5-4.5.
  EXPECT_DOUBLE_EQ(findOp(result, 2)->start, 1.5);
  EXPECT_DOUBLE_EQ(findOp(result, 3)->start, 3.5);
  EXPECT_DOUBLE_EQ(result.makespan, 4.5);
  EXPECT_EQ(result.transfers, 2);
}

TEST(ExecutionSimulator, OutputGoesOncePerDestinationDevice) {
  OpGraph graph;
  graph.addOp(makeOp("a", 1, int64_t(1e9)));
  graph.addOp(makeOp("b", 1, 100, {0}));
  graph.addOp(makeOp("c", 1, 100, {0}));
  DeviceNetwork network = makeStar(2);
  ExecutionSimulator simulator(graph, network, inference());
  const SimulationResult &result = simulator.run({0, 1, 1});
  EXPECT_EQ(result.transfers, 1);
  EXPECT_EQ(countTransfers(graph, {0, 1, 1}), 1);
  // a 0-1, transfer 1-2, b 2-3, c 3-4.
  EXPECT_DOUBLE_EQ(result.makespan, 4.0);
}

TEST(ExecutionSimulator, ContendedChannelServesTransfersInOrder) {
  OpGraph graph;
  graph.addOp(makeOp("a", 1, int64_t(2e9)));
  graph.addOp(makeOp("b", 1, int64_t(1e9)));
  graph.addOp(makeOp("c", 1, 100, {0}));
  graph.addOp(makeOp("d", 1, 100, {1}));
  DeviceNetwork network = makeStar(2);
  ExecutionSimulator simulator(graph, network, inference());
  const SimulationResult &result = simulator.run({0, 0, 1, 1});
  // d0: a 0-1, b 1-2. Channel: a's 2 GB 1-3, b's waits, 3-4. d1: c 3-4,
  // d 4-5. Alone, b's output would arrive at 3.
  EXPECT_DOUBLE_EQ(findOp(result, 2)->start, 3.0);
  EXPECT_DOUBLE_EQ(findOp(result, 3)->start, 4.0);
  EXPECT_DOUBLE_EQ(result.makespan, 5.0);
  EXPECT_DOUBLE_EQ(result.channelBusy[0], 3.0);
}

TEST(ExecutionSimulator, MultiHopRouteCrossesEveryChannel) {
  OpGraph graph;
  graph.addOp(makeOp("a", 1, int64_t(1e9)));
  graph.addOp(makeOp("b", 1, 100, {0}));
  DeviceNetwork network = makeStar(3);
  ExecutionSimulator simulator(graph, network, inference());
  const SimulationResult &result = simulator.run({1, 2});
  // d1 -> d0 -> d2, store and forward: 1 s per hop.
  EXPECT_DOUBLE_EQ(findOp(result, 1)->start, 3.0);
  EXPECT_DOUBLE_EQ(result.makespan, 4.0);
  EXPECT_EQ(result.transfers, 1);
  EXPECT_DOUBLE_EQ(result.channelBusy[0], 1.0);
  EXPECT_DOUBLE_EQ(result.channelBusy[1], 1.0);
}

TEST(ExecutionSimulator, TrainingSendsGradientsBack) {
  OpGraph graph;
  graph.addOp(makeOp("a", 1, int64_t(1e9), {}, /*backward=*/1));
  graph.addOp(makeOp("b", 1, 100, {0}, /*backward=*/2));
  DeviceNetwork network = makeStar(2);
  ExecutionSimulator simulator(graph, network, training());
  const SimulationResult &result = simulator.run({0, 1});
  // a 0-1, a's output 1-2, b 2-3, b's backward 3-5, gradient 5-6, a's
  // backward 6-7.
  EXPECT_DOUBLE_EQ(findOp(result, 0, PassKind::Backward)->start, 6.0);
  EXPECT_DOUBLE_EQ(result.makespan, 7.0);
  EXPECT_EQ(result.transfers, 2);
}

TEST(ExecutionSimulator, TwoBatchesInFlightOverlap) {
  OpGraph graph;
  graph.addOp(makeOp("a", 1, int64_t(1e9)));
  graph.addOp(makeOp("b", 1, 100, {0}));
  DeviceNetwork network = makeStar(2);
  SimulationOptions options = inference();
  options.batches = 2;
  options.batchesInFlight = 2;
  ExecutionSimulator pipelined(graph, network, options);
  const SimulationResult &result = pipelined.run({0, 1});
  // Batch 1 enters when d0 goes idle at 1: a 1-2, its output 2-3 (behind
  // batch 0's 1-2), b 3-4.
  EXPECT_DOUBLE_EQ(findOp(result, 0, PassKind::Forward, 1)->start, 1.0);
  EXPECT_DOUBLE_EQ(findOp(result, 1, PassKind::Forward, 1)->start, 3.0);
  EXPECT_DOUBLE_EQ(result.makespan, 4.0);
  EXPECT_DOUBLE_EQ(result.stepTime, 2.0);

  options.batchesInFlight = 1;
  ExecutionSimulator sequential(graph, network, options);
  const SimulationResult &one = sequential.run({0, 1});
  // Batch 1 waits for batch 0 to finish at 3.
  EXPECT_DOUBLE_EQ(findOp(one, 0, PassKind::Forward, 1)->start, 3.0);
  EXPECT_DOUBLE_EQ(one.makespan, 6.0);
}

TEST(ExecutionSimulator, MemoryCountsWeightsActivationsAndGradients) {
  OpGraph graph;
  graph.addOp(makeOp("a", 1, 100'000'000, {}, 1, /*weights=*/10'000'000));
  graph.addOp(makeOp("b", 1, 200'000'000, {0}, 1, /*weights=*/20'000'000));
  DeviceNetwork network = makeStar(2, /*memory=*/400e6);
  ExecutionSimulator simulator(graph, network, training());
  const SimulationResult &result = simulator.run({0, 0});
  // Weights 30 MB; a's output +100; b's +200; b's backward makes a's
  // gradient (+100) before freeing b's output: 430 MB at the peak.
  EXPECT_EQ(result.peakMemory[0], 430'000'000);
  EXPECT_EQ(result.memoryOverflowBytes, 30'000'000);
  EXPECT_DOUBLE_EQ(result.fitness(), 4.0 * 1e3 + 30.0);

  // Split: d1 holds b's weights 20, a's copy 100, b's output 200 and the
  // gradient for a (100) until it has left; d0 holds a's weights 10, its
  // output 100 and the gradient once it arrives 100.
  const SimulationResult &split = simulator.run({0, 1});
  EXPECT_EQ(split.peakMemory[1], 420'000'000);
  EXPECT_EQ(split.peakMemory[0], 210'000'000);
  EXPECT_EQ(split.memoryOverflowBytes, 20'000'000);
}

TEST(ExecutionSimulator, UsableFractionLowersTheLimit) {
  OpGraph graph;
  graph.addOp(makeOp("a", 1, 100, {}, 0, /*weights=*/600'000'000));
  DeviceNetwork network = makeStar(1);
  SimulationOptions options = training();
  options.usableMemoryFraction = 0.5;
  ExecutionSimulator simulator(graph, network, options);
  EXPECT_EQ(simulator.run({0}).memoryOverflowBytes, 100'000'100);
}

TEST(ExecutionSimulator, RunsAreRepeatableOnOneSimulator) {
  OpGraph graph;
  graph.addOp(makeOp("a", 1, int64_t(1e9), {}, 1));
  graph.addOp(makeOp("b", 2, int64_t(1e8), {0}, 1));
  graph.addOp(makeOp("c", 1, int64_t(1e8), {0}, 1));
  graph.addOp(makeOp("d", 1, 100, {1, 2}, 1));
  DeviceNetwork network = makeStar(3);
  SimulationOptions options = training();
  options.batches = 3;
  options.batchesInFlight = 2;
  ExecutionSimulator simulator(graph, network, options);
  SimulationResult first = simulator.run({0, 1, 2, 0});
  simulator.run({1, 1, 1, 1});
  const SimulationResult &again = simulator.run({0, 1, 2, 0});
  EXPECT_EQ(first.makespan, again.makespan);
  EXPECT_EQ(first.events, again.events);
  EXPECT_EQ(first.peakMemory, again.peakMemory);
  EXPECT_EQ(first.schedule.size(), again.schedule.size());
}

TEST(OpGraph, WorkloadCostsFollowTheDocumentedRule) {
  dsm::core::Workload conv;
  conv.kind = dsm::core::OpKind::Convolution;
  conv.macs = 1000;
  conv.auxOps = 10;
  conv.params = 50;
  conv.weightBytes = 200;
  conv.outputBytes = 40;
  Op op = makeOpFromWorkload("conv", conv);
  EXPECT_DOUBLE_EQ(op.forwardFlops, 2010);
  EXPECT_DOUBLE_EQ(op.backwardFlops, 4010);
  EXPECT_DOUBLE_EQ(op.updateFlops, 100);
  EXPECT_EQ(op.weightBytes, 200);
  EXPECT_EQ(op.outputBytes, 40);

  dsm::core::Workload relu;
  relu.kind = dsm::core::OpKind::ReLU;
  relu.auxOps = 64;
  EXPECT_DOUBLE_EQ(makeOpFromWorkload("relu", relu).backwardFlops, 64);
}

TEST(OpGraph, VerifyRejectsForwardReferencesAndOverflow) {
  OpGraph graph;
  graph.addOp(makeOp("a", 1, 100, {1}));
  llvm::Error forward = graph.verify();
  EXPECT_TRUE(bool(forward));
  llvm::consumeError(std::move(forward));

  OpGraph huge;
  huge.addOp(makeOp("a", 1, INT64_MAX / 2));
  llvm::Error error = huge.verify(2);
  EXPECT_TRUE(bool(error));
  llvm::consumeError(std::move(error));
}

} // namespace

//===- ConventionsTest.cpp - The peer's cost conventions by hand ----------===//
//
// conventions=exprimo reproduces Exprimo's simulator on Paleo's FLOP
// profiler. Each expectation below is Paleo's formula written out for the
// shape at hand (paleo/profilers/flops_profiler.py, paleo/layers/conv.py),
// or a schedule worked out on paper.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Devices/Conventions.h"
#include "dsm/Core/Devices/ExecutionSimulator.h"

#include "DeviceTestHelpers.h"

#include <cmath>

using namespace dsm::core;
using namespace dsm::core::devices;
using namespace dsm::core::devices::testing;

namespace {

const Conventions kExprimo = getConventions(ConventionsKind::Exprimo);
constexpr double kGiB = double(int64_t(1) << 30);

/// A convolution of [1, c, h, w] by a k x k kernel into [1, o, oh, ow].
Workload conv(int64_t c, int64_t h, int64_t o, int64_t oh, int64_t k,
              int64_t stride, int64_t pad) {
  ConvShape s;
  s.batch = 1;
  s.inChannels = c;
  s.inH = s.inW = h;
  s.outChannels = o;
  s.outH = s.outW = oh;
  s.kernelH = s.kernelW = k;
  s.strideH = s.strideW = stride;
  s.padTop = s.padLeft = pad;
  s.hasBias = true;
  return makeConvWorkload(s, 4);
}

TEST(ConventionsTest, PaleoChargesA3DConvolutionItsMacs) {
  // Paleo profiles 2D convolutions only: a 3D one costs 2 FLOPs per MAC
  // forward, twice that backward, and moves the bytes it reads and writes.
  ConvShape s;
  s.inChannels = 8;
  s.outChannels = 16;
  s.inD = s.outD = 4;
  s.inH = s.inW = s.outH = s.outW = 10;
  s.kernelD = s.kernelH = s.kernelW = 3;
  Workload w = makeConvWorkload(s, 4);
  double n = 128;
  Op op = makeOpFromWorkload("conv3d", w, kExprimo, /*hasProducers=*/true);
  EXPECT_DOUBLE_EQ(op.forwardFlops, 2.0 * double(w.macs) * n);
  EXPECT_DOUBLE_EQ(op.backwardFlops, 4.0 * double(w.macs) * n);
  ASSERT_EQ(op.forwardTraffic.size(), 3u);
  EXPECT_DOUBLE_EQ(op.forwardTraffic[0], double(w.inputBytes) * n);
  EXPECT_DOUBLE_EQ(op.forwardTraffic[1], double(w.weightBytes));
  EXPECT_DOUBLE_EQ(op.forwardTraffic[2], double(w.outputBytes) * n);
  // Without producers there is no data gradient.
  Op first = makeOpFromWorkload("conv3d", w, kExprimo, /*hasProducers=*/false);
  EXPECT_DOUBLE_EQ(first.backwardFlops, 2.0 * double(w.macs) * n);
}

TEST(ConventionsTest, PaleoConvolutionIsTheGemmFormulaAtBatch128) {
  // AlexNet v2's conv2: 26x26x64 -> 26x26x192, 5x5, SAME (pad 2).
  Op op = makeOpFromWorkload("conv2", conv(64, 26, 192, 26, 5, 1, 2), kExprimo);
  double n = 128;
  EXPECT_DOUBLE_EQ(op.forwardFlops, 2.0 * 5 * 5 * 64 * 26 * 26 * 192 * n);
  ASSERT_EQ(op.forwardTraffic.size(), 3u);
  EXPECT_DOUBLE_EQ(op.forwardTraffic[0], n * 30 * 30 * 64 * 4); // padded input
  EXPECT_DOUBLE_EQ(op.forwardTraffic[1], 5.0 * 5 * 64 * 192 * 4); // filter
  EXPECT_DOUBLE_EQ(op.forwardTraffic[2], n * 26 * 26 * 192 * 4);  // output
  // The data gradient: the same GEMM with the channels swapped.
  EXPECT_DOUBLE_EQ(op.backwardFlops, op.forwardFlops);
  ASSERT_EQ(op.backwardTraffic.size(), 3u);
  EXPECT_DOUBLE_EQ(op.backwardTraffic[0], n * 30 * 30 * 192 * 4);
  EXPECT_DOUBLE_EQ(op.backwardTraffic[2], n * 26 * 26 * 64 * 4);
  // No weight gradient, no update; weights with the bias, output at 128.
  EXPECT_EQ(op.updateFlops, 0);
  EXPECT_EQ(op.weightBytes, (5 * 5 * 64 * 192 + 192) * 4);
  EXPECT_EQ(op.outputBytes, int64_t(128) * 26 * 26 * 192 * 4);
}

TEST(ConventionsTest, StridedGradientReadsADilatedOutputGradient) {
  // ResNet-50's res3a_branch1: 1x1, stride 2, 56x56x256 -> 28x28x512. The
  // output gradient is dilated to 55x55, one more row and column for the odd
  // padding: 56x56 of which 3/4 are holes, each other element moved once.
  Op op = makeOpFromWorkload("res3a_branch1", conv(256, 56, 512, 28, 1, 2, 0),
                             kExprimo);
  double n = 128, holes = 0.75;
  EXPECT_DOUBLE_EQ(op.backwardFlops, 2.0 * 512 * 56 * 56 * 256 * n +
                                         2.0 * n * 56 * 56 * 512 * (1 - holes));
  EXPECT_DOUBLE_EQ(op.backwardTraffic[0], n * 56 * 56 * 512 * 4);
  EXPECT_DOUBLE_EQ(op.backwardTraffic[1], 512.0 * 256 * 4);
  EXPECT_DOUBLE_EQ(op.backwardTraffic[2], n * 56 * 56 * 256 * 4);
}

TEST(ConventionsTest, FirstConvolutionSendsNoGradientToTheInput) {
  Op op = makeOpFromWorkload("conv1", conv(3, 224, 64, 54, 11, 4, 0), kExprimo,
                             /*hasProducers=*/false);
  EXPECT_GT(op.forwardFlops, 0);
  EXPECT_EQ(op.backwardFlops, 0);
  EXPECT_TRUE(op.backwardTraffic.empty());
}

TEST(ConventionsTest, OnlyTheLayersPaleoProfilesCostAnything) {
  Workload relu = makeElementwiseWorkload(OpKind::ReLU, 2, 200, 200, 0, 0, 4);
  Op op = makeOpFromWorkload("relu", relu, kExprimo);
  EXPECT_EQ(op.forwardFlops, 0);
  EXPECT_EQ(op.backwardFlops, 0);
  EXPECT_TRUE(op.forwardTraffic.empty());
  EXPECT_EQ(op.outputBytes, 100 * 128 * 4); // still moved at batch 128

  // Pooling: 2 FLOPs per window element, reading input and writing output.
  Workload pool =
      makeWindowedWorkload(OpKind::MaxPool, 2, 8, 2 * 8 * 16, 2 * 8 * 64, 9, 4);
  Op pooled = makeOpFromWorkload("pool", pool, kExprimo);
  EXPECT_DOUBLE_EQ(pooled.forwardFlops, 2.0 * 9 * 8 * 16 * 128);
  EXPECT_DOUBLE_EQ(pooled.backwardFlops, pooled.forwardFlops);
  ASSERT_EQ(pooled.forwardTraffic.size(), 2u);
  EXPECT_DOUBLE_EQ(pooled.forwardTraffic[0], 8.0 * 64 * 128 * 4);
  EXPECT_DOUBLE_EQ(pooled.forwardTraffic[1], 8.0 * 16 * 128 * 4);

  // Fully connected, flattened [N, in] x [in, out]; data gradient alike.
  Workload fc = makeFullyConnectedWorkload(1, 1, 2048, 1000, true, 4);
  Op dense = makeOpFromWorkload("fc", fc, kExprimo);
  EXPECT_DOUBLE_EQ(dense.forwardFlops, 2.0 * 128 * 2048 * 1000);
  EXPECT_DOUBLE_EQ(dense.backwardFlops, dense.forwardFlops);
  EXPECT_DOUBLE_EQ(dense.backwardTraffic[0], 128.0 * 1000 * 4);
}

TEST(ConventionsTest, ThesisConventionsKeepTheirCosts) {
  Workload w = conv(64, 26, 192, 26, 5, 1, 2);
  Op op = makeOpFromWorkload("conv2", w);
  EXPECT_DOUBLE_EQ(op.forwardFlops, 2.0 * double(w.macs) + w.auxOps);
  EXPECT_DOUBLE_EQ(op.backwardFlops, 4.0 * double(w.macs) + w.auxOps);
  EXPECT_DOUBLE_EQ(op.updateFlops, 2.0 * double(w.params));
  EXPECT_TRUE(op.forwardTraffic.empty());
  EXPECT_EQ(op.outputBytes, w.outputBytes);
}

/// One device of 1 GFLOP/s whose memory moves 1 "GB/s" (a GiB/s for Paleo)
/// with a 1 kHz clock, so a cycle is 1 ms.
DeviceNetwork oneDevice() {
  DeviceNetwork network;
  network.addDevice({"d0", kGiga, 1e12, /*memoryBandwidth=*/kGiga,
                     /*clockHz=*/1e3});
  EXPECT_FALSE(bool(network.finalize()));
  return network;
}

TEST(ConventionsTest, OpTimeIsPaleosRooflineSumWithAClockFloor) {
  DeviceNetwork network = oneDevice();
  OpGraph graph;
  Op op = makeOp("op", 0.9, 0);
  op.forwardTraffic = {0.9 * kGiB, 1.0}; // 1 s, then one cycle
  op.backwardTraffic = {0.0};            // no FLOPs: just one cycle
  graph.addOp(op);
  SimulationOptions options;
  options.conventions = kExprimo;
  options.computeEfficiency = 0.9;
  ExecutionSimulator simulator(graph, network, options);
  const SimulationResult &result = simulator.run({0});
  // Forward 0.9 GFLOP / (0.9 x 1 GFLOP/s) + 0.9 GiB / (0.9 x 1 GiB/s) +
  // 1 ms; backward 1 ms.
  EXPECT_NEAR(result.stepTime, 1.0 + 1.0 + 1e-3 + 1e-3, 1e-12);

  // The thesis's conventions ignore the traffic and the clock.
  SimulationOptions thesis = options;
  thesis.conventions = Conventions();
  ExecutionSimulator plain(graph, network, thesis);
  EXPECT_NEAR(plain.run({0}).stepTime, 1.0, 1e-12);
}

TEST(ConventionsTest, TransfersUseGibibytesTheCommPenaltyAndAClockFloor) {
  DeviceNetwork network;
  for (int d = 0; d < 2; ++d)
    network.addDevice({"d" + std::to_string(d), kGiga, 1e12, kGiga, 1e3});
  network.connect(0, 1, network.addChannel({"c", kGiga, /*efficiency=*/1.0}));
  ASSERT_FALSE(bool(network.finalize()));
  OpGraph graph;
  graph.addOp(makeOp("a", 0, int64_t(kGiB)));
  graph.addOp(makeOp("b", 0, 1, {0}));
  graph.addOp(makeOp("c", 0, 0, {1}));
  SimulationOptions options;
  options.training = false;
  options.conventions = kExprimo;
  options.recordTrace = true;
  ExecutionSimulator simulator(graph, network, options);
  const SimulationResult &result = simulator.run({0, 1, 0});
  // 1 GiB over "1 GB/s" read as 1 GiB/s at 25%: 4 s; then 1 byte back,
  // which takes one cycle of its sender.
  ASSERT_EQ(result.transfers, 2);
  EXPECT_NEAR(result.makespan, 4.0 + 1e-3, 1e-12);
}

TEST(ConventionsTest, OverflowCostsAMillisecondPerByte) {
  DeviceNetwork network;
  network.addDevice({"d0", kGiga, 1000, kGiga, 1e3});
  ASSERT_FALSE(bool(network.finalize()));
  OpGraph graph;
  graph.addOp(makeOp("w", 0, 0, {}, 0, /*weightBytes=*/1500));
  SimulationOptions options;
  options.conventions = kExprimo;
  ExecutionSimulator simulator(graph, network, options);
  const SimulationResult &result = simulator.run({0});
  EXPECT_EQ(result.memoryOverflowBytes, 500);
  EXPECT_DOUBLE_EQ(result.fitness(), result.stepTime * 1e3 + 500.0);
  options.conventions = Conventions();
  ExecutionSimulator thesis(graph, network, options);
  EXPECT_DOUBLE_EQ(thesis.run({0}).fitness(), 500 * 1e-6);
}

} // namespace

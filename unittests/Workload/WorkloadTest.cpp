//===- WorkloadTest.cpp - Workloads (DeepSpatialMatrix §II-A) -------------===//

#include "dsm/Core/Workload/Workload.h"
#include "dsm/Core/Workload/WorkloadSummary.h"

#include <gtest/gtest.h>

using namespace dsm::core;

namespace {

TEST(WorkloadTest, ResNetFirstConvolution) {
  // 7x7/2 convolution, 3 -> 64 channels, 224x224 -> 112x112, with no bias.
  ConvShape s;
  s.batch = 1;
  s.inChannels = 3;
  s.inH = s.inW = 224;
  s.outChannels = 64;
  s.outH = s.outW = 112;
  s.kernelH = s.kernelW = 7;
  s.strideH = s.strideW = 2;
  Workload w = makeConvWorkload(s, /*elementBytes=*/2);
  EXPECT_EQ(w.kind, OpKind::Convolution);
  EXPECT_EQ(w.get(Dim::In), 3);
  EXPECT_EQ(w.get(Dim::Out), 64);
  EXPECT_EQ(w.get(Dim::IJ), 112 * 112);
  EXPECT_EQ(w.get(Dim::KIJ), 49);
  EXPECT_EQ(w.get(Dim::MB), 1);
  EXPECT_EQ(w.strideI, 2);
  EXPECT_EQ(w.macs, 118013952);
  EXPECT_EQ(w.params, 64 * 3 * 49);
  EXPECT_EQ(w.weightBytes, 64 * 3 * 49 * 2);
  EXPECT_EQ(w.inputBytes, 3 * 224 * 224 * 2);
  EXPECT_EQ(w.outputBytes, 64 * 112 * 112 * 2);
  EXPECT_EQ(w.auxOps, 0);
}

TEST(WorkloadTest, DepthwiseConvolutionDividesByGroups) {
  ConvShape s;
  s.batch = 2;
  s.inChannels = s.outChannels = s.groups = 32;
  s.inH = s.inW = s.outH = s.outW = 56;
  s.kernelH = s.kernelW = 3;
  s.hasBias = true;
  Workload w = makeConvWorkload(s, 4);
  EXPECT_EQ(w.macs, 2LL * 32 * 56 * 56 * 9);
  EXPECT_EQ(w.params, 32 * 9 + 32);
  EXPECT_TRUE(isDepthwise(w));
  EXPECT_DOUBLE_EQ(w.auxOps, 2.0 * 32 * 56 * 56); // the bias add
}

TEST(WorkloadTest, ThreeDConvolutionCountsVoxels) {
  // A C3D-style layer: 64 -> 128 channels over 8x56x56, 3x3x3, padded.
  ConvShape s;
  s.batch = 2;
  s.inChannels = 64;
  s.outChannels = 128;
  s.inD = s.outD = 8;
  s.inH = s.inW = s.outH = s.outW = 56;
  s.kernelD = s.kernelH = s.kernelW = 3;
  Workload w = makeConvWorkload(s, 2);
  EXPECT_EQ(w.get(Dim::IJ), 8 * 56 * 56);
  EXPECT_EQ(w.get(Dim::KIJ), 27);
  EXPECT_EQ(w.macs, 2LL * 128 * 8 * 56 * 56 * 64 * 27);
  EXPECT_EQ(w.params, 128 * 64 * 27);
  EXPECT_EQ(w.inputBytes, 2LL * 64 * 8 * 56 * 56 * 2);
  EXPECT_EQ(w.outputBytes, 2LL * 128 * 8 * 56 * 56 * 2);
}

TEST(WorkloadTest, TransposedConvolutionWorksOnInputPixels) {
  // A U-Net up-convolution: 64 -> 32 channels, 28x28 -> 56x56, 3x3,
  // stride 2, with a bias.
  ConvShape s;
  s.transposed = true;
  s.batch = 4;
  s.inChannels = 64;
  s.outChannels = 32;
  s.inH = s.inW = 28;
  s.outH = s.outW = 56;
  s.kernelH = s.kernelW = 3;
  s.strideH = s.strideW = 2;
  s.hasBias = true;
  Workload w = makeConvWorkload(s, 4);
  EXPECT_EQ(w.kind, OpKind::Convolution);
  EXPECT_EQ(w.get(Dim::IJ), 28 * 28);
  EXPECT_EQ(w.get(Dim::KIJ), 9);
  EXPECT_EQ(w.macs, 4LL * 32 * 28 * 28 * 64 * 9);
  EXPECT_EQ(w.outputElements, 4LL * 32 * 56 * 56);
  EXPECT_EQ(w.params, 64 * 32 * 9 + 32);
  EXPECT_EQ(w.inputBytes, 4LL * 64 * 28 * 28 * 4);
  EXPECT_EQ(w.outputBytes, 4LL * 32 * 56 * 56 * 4);
  EXPECT_DOUBLE_EQ(w.auxOps, 4.0 * 32 * 56 * 56);
}

TEST(WorkloadTest, FullyConnectedWithTokens) {
  // BERT-base attention output projection: 128 tokens, 768 -> 768.
  Workload w = makeFullyConnectedWorkload(8, 128, 768, 768, true, 2);
  EXPECT_EQ(w.get(Dim::IJ), 128);
  EXPECT_EQ(w.get(Dim::MB), 8);
  EXPECT_EQ(w.macs, 8LL * 128 * 768 * 768);
  EXPECT_EQ(w.params, 768 * 768 + 768);
}

TEST(WorkloadTest, GnmtLstmLayerIsAbout16MFlopsPerStep) {
  // DeepSpatialMatrix §IV: 1024-unit GNMT layers take ~16M FLOPs per sample and
  // timestep.
  Workload w =
      makeLstmWorkload(/*timesteps=*/128, /*batch=*/1, 1024, 1024, 1, true, 2);
  EXPECT_EQ(w.get(Dim::In), 2048);
  EXPECT_EQ(w.get(Dim::Out), 4096);
  EXPECT_EQ(w.timesteps, 128);
  double flopsPerStep = 2.0 * double(w.macs) / 128;
  EXPECT_NEAR(flopsPerStep, 16.8e6, 0.1e6);
  EXPECT_EQ(w.params, 4096 * 2048 + 2 * 4096);
}

TEST(WorkloadTest, BidirectionalLstmDoublesWork) {
  Workload one = makeLstmWorkload(10, 4, 256, 128, 1, false, 4);
  Workload two = makeLstmWorkload(10, 4, 256, 128, 2, false, 4);
  EXPECT_EQ(two.macs, 2 * one.macs);
  EXPECT_EQ(two.params, 2 * one.params);
  EXPECT_EQ(two.outputElements, 2 * one.outputElements);
}

TEST(WorkloadTest, AttentionMatMulHasNoParameters) {
  Workload w = makeMatMulWorkload(/*batch=*/12, 128, 64, 128, 2);
  EXPECT_EQ(w.macs, 12LL * 128 * 64 * 128);
  EXPECT_EQ(w.params, 0);
  EXPECT_EQ(w.weightBytes, 0);
  EXPECT_EQ(w.inputBytes, 2 * (12LL * 128 * 64 + 12LL * 64 * 128));
}

TEST(WorkloadTest, PoolingChargesEveryWindowElement) {
  // 3x3 max pool over 64x112x112 -> 64x56x56.
  Workload w = makeWindowedWorkload(OpKind::MaxPool, 1, 64, 64 * 56 * 56,
                                    64 * 112 * 112, 9, 2);
  EXPECT_EQ(w.window, 9);
  EXPECT_EQ(w.macs, 0);
  EXPECT_DOUBLE_EQ(w.auxOps, 9.0 * 64 * 56 * 56);
  EXPECT_EQ(w.get(Dim::IJ), 56 * 56);
}

TEST(WorkloadTest, OverflowIsFlaggedNotWrapped) {
  ConvShape s;
  s.batch = int64_t(1) << 40;
  s.inChannels = s.outChannels = 1 << 20;
  s.outH = s.outW = s.inH = s.inW = 1;
  Workload w = makeConvWorkload(s, 4);
  EXPECT_TRUE(w.overflow);
}

TEST(WorkloadTest, ClassesAndNames) {
  EXPECT_EQ(getComputeClass(OpKind::Lstm), ComputeClass::Primary);
  EXPECT_EQ(getComputeClass(OpKind::Softmax), ComputeClass::Auxiliary);
  EXPECT_EQ(getComputeClass(OpKind::Reshape), ComputeClass::DataMovement);
  EXPECT_EQ(stringifyOpKind(OpKind::FullyConnected), "fc");
  EXPECT_EQ(stringifyDim(Dim::KIJ), "kij");
}

TEST(WorkloadSummaryTest, TotalsCountLayersAndSkipViews) {
  WorkloadSummary summary;
  ConvShape s;
  s.inChannels = s.outChannels = s.groups = 8;
  summary.layers.push_back({"dw", "dsm.conv2d", makeConvWorkload(s, 4), 8});
  summary.layers.push_back({"fc", "dsm.fully_connected",
                            makeFullyConnectedWorkload(1, 1, 8, 2, false, 4),
                            16});
  summary.layers.push_back(
      {"flat", "dsm.reshape",
       makeElementwiseWorkload(OpKind::Reshape, 1, 8, 8, 0, 0, 4), 0});
  summary.computeTotals();
  EXPECT_EQ(summary.totals.convLayers, 1);
  EXPECT_EQ(summary.totals.depthwiseConvLayers, 1);
  EXPECT_EQ(summary.totals.fcLayers, 1);
  EXPECT_EQ(summary.totals.params, 24);
  EXPECT_EQ(summary.totals.macs, 8 + 16);
  // The reshape's 32 bytes are a view of the conv output, not new activations.
  EXPECT_EQ(summary.totals.activationBytes, 8 * 4 + 2 * 4);
}

} // namespace

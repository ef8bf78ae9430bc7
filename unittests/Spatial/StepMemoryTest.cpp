//===- StepMemoryTest.cpp - What a chip's memory holds over a step --------===//

#include "dsm/Core/Spatial/StepMemory.h"

#include <gtest/gtest.h>

using namespace dsm::core;

namespace {

TEST(StepMemoryTest, PeakCountsTheTensorsAliveAtOnce) {
  // [0, 2] and [2, 4] meet at step 2; [3, 3] overlaps only the second.
  EXPECT_EQ(peakLiveBytes({{100, 0, 2}, {10, 2, 4}, {1, 3, 3}}), 110);
  // A tensor ends after its last step: [0, 1] and [2, 3] never meet.
  EXPECT_EQ(peakLiveBytes({{100, 0, 1}, {50, 2, 3}}), 100);
  EXPECT_EQ(peakLiveBytes({}), 0);
}

TEST(StepMemoryTest, MixedPrecisionAdamIsSixteenBytesAParameter) {
  // ZeRO, Section 3.1: 2 (fp16 weight) + 2 (fp16 gradient) + 12 (fp32
  // master weight, momentum and variance).
  MemoryPerChip adam = memoryPerChip({1000, 24}, {}, /*elementBytes=*/2,
                                     /*training=*/true, Optimizer::Adam, 1e9);
  EXPECT_EQ(adam.weights, 2048);
  EXPECT_EQ(adam.gradients, 2048);
  EXPECT_EQ(adam.optimizer, 12288);
  EXPECT_EQ(adam.total(), 16 * 1024);
  EXPECT_EQ(optimizerBytesPerParameter(Optimizer::Momentum), 8);
  EXPECT_EQ(optimizerBytesPerParameter(Optimizer::SGD), 4);
  // Inference keeps the weights alone, and its activations.
  MemoryPerChip infer = memoryPerChip({1024}, {{300, 0, 1}, {200, 1, 2}}, 2,
                                      /*training=*/false, Optimizer::Adam, 1e9);
  EXPECT_EQ(infer.gradients + infer.optimizer, 0);
  EXPECT_EQ(infer.activations, 500);
  EXPECT_EQ(infer.total(), 2548);
}

TEST(StepMemoryTest, FitsOnlyWithinCapacity) {
  MemoryPerChip m = memoryPerChip({500}, {}, 2, false, Optimizer::Adam, 1000);
  EXPECT_TRUE(m.fits());
  m.capacity = 999;
  EXPECT_FALSE(m.fits());
  EXPECT_EQ(describeMemory(m),
            "1000 B of 999 B (weights 1000 B, gradients 0 B, optimizer 0 B, "
            "activations 0 B, buffers 0 B)");
  EXPECT_EQ(formatBytes(12.5e9), "12.50 GB");
  EXPECT_EQ(formatBytes(3e6), "3.00 MB");
}

TEST(StepMemoryTest, OptimizersHaveNames) {
  for (Optimizer o : {Optimizer::SGD, Optimizer::Momentum, Optimizer::Adam})
    EXPECT_EQ(symbolizeOptimizer(stringifyOptimizer(o)), o);
  EXPECT_EQ(symbolizeOptimizer("adamw"), std::nullopt);
}

} // namespace

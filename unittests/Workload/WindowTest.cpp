//===- WindowTest.cpp - Output extents of windows and their inverse -------===//

#include "dsm/Core/Workload/Window.h"

#include <gtest/gtest.h>

#include <random>

using namespace dsm::core;

namespace {

/// Windows counted one by one: one starts at every multiple of the stride
/// from which it fits (floor); in ceil mode also a last one that runs past
/// the padded end, unless it would start in the high padding (PyTorch).
int64_t countWindows(const WindowDim &d, bool ceilMode) {
  int64_t padded = d.input + d.padLow + d.padHigh, count = 0, last = -1;
  for (int64_t start = 0; start < padded + d.stride; start += d.stride)
    if (start + d.effectiveKernel() <= padded ||
        (ceilMode && start + d.effectiveKernel() < padded + d.stride)) {
      ++count;
      last = start;
    }
  if (ceilMode && last >= d.input + d.padLow)
    --count;
  return count;
}

TEST(WindowTest, ResNetStemPool) {
  // 3x3/2 max pooling, padding 1, on 112: 56 windows; PyTorch's ceil mode
  // adds a 57th that starts on the last input row.
  WindowDim d{112, 3, 2, 1, 1, 1};
  EXPECT_EQ(windowOutputExtent(d, false), 56);
  EXPECT_EQ(windowOutputExtent(d, true), 57);
}

TEST(WindowTest, CeilModeAddsThePartialLastWindow) {
  // GoogLeNet's 3x3/2 ceil-mode pool on 111 -> 55; on 112 -> 56 (floor 55).
  EXPECT_EQ(windowOutputExtent({111, 3, 2, 1, 0, 0}, true), 55);
  EXPECT_EQ(windowOutputExtent({112, 3, 2, 1, 0, 0}, false), 55);
  EXPECT_EQ(windowOutputExtent({112, 3, 2, 1, 0, 0}, true), 56);
}

TEST(WindowTest, CeilModeDropsAWindowStartingInTheHighPadding) {
  // 5 + 1 + 1 padded, kernel 2, stride 2: ceil((7 - 2) / 2) + 1 = 4 windows,
  // but the fourth would start at 6, past the input: 3.
  EXPECT_EQ(windowOutputExtent({5, 2, 2, 1, 1, 1}, true), 3);
}

TEST(WindowTest, WindowLargerThanThePaddedInputHasNoExtent) {
  EXPECT_EQ(windowOutputExtent({2, 5, 1, 1, 1, 1}, false), std::nullopt);
  EXPECT_EQ(windowOutputExtent({3, 2, 1, 3, 0, 0}, false), std::nullopt);
}

TEST(WindowTest, ExtentAgreesWithCountingWindows) {
  std::mt19937 rng(7);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 20000; ++trial) {
    WindowDim d{pick(1, 40), pick(1, 7), pick(1, 5),
                pick(1, 3),  pick(0, 4), pick(0, 6)};
    for (bool ceilMode : {false, true}) {
      std::optional<int64_t> extent = windowOutputExtent(d, ceilMode);
      if (d.effectiveKernel() > d.input + d.padLow + d.padHigh)
        EXPECT_EQ(extent, std::nullopt);
      else
        EXPECT_EQ(extent, countWindows(d, ceilMode))
            << d.input << " " << d.kernel << " " << d.stride << " "
            << d.dilation << " " << d.padLow << " " << d.padHigh << " "
            << ceilMode;
    }
  }
}

TEST(WindowTest, TorchMlirCeilModePoolKeepsItsDeclaredOutput) {
  // torch-mlir pads a 3x3/2 ceil-mode pool of 111 high by 2 and declares 55;
  // written as is (and padding at most half the kernel) it would give 56.
  WindowDim d{111, 3, 2, 1, 0, 2};
  std::optional<WindowFit> fit =
      fitDeclaredOutput({d, d}, {55, 55}, true,
                        /*padAtMostHalfKernel=*/true);
  ASSERT_TRUE(fit);
  EXPECT_FALSE(fit->ceilMode);
  EXPECT_EQ(fit->padHigh, (llvm::SmallVector<int64_t, 2>{0, 0}));
  EXPECT_EQ(fit->input, (llvm::SmallVector<int64_t, 2>{111, 111}));
}

TEST(WindowTest, CeilModeIsPreferredToAnUnequalPadding) {
  // 112, 3x3/2, padded high by 2 (torch-mlir's ceil mode), declared 56:
  // PyTorch's ceil mode with no padding, rather than a padding of [0, 1].
  WindowDim d{112, 3, 2, 1, 0, 2};
  std::optional<WindowFit> fit = fitDeclaredOutput({d}, {56}, true, true);
  ASSERT_TRUE(fit);
  EXPECT_TRUE(fit->ceilMode);
  EXPECT_EQ(fit->padHigh[0], 0);
  // Without ceil mode the high padding gives the extra window.
  fit = fitDeclaredOutput({d}, {56}, false, true);
  ASSERT_TRUE(fit);
  EXPECT_FALSE(fit->ceilMode);
  EXPECT_EQ(fit->padHigh[0], 1);
}

TEST(WindowTest, PaddingAsWrittenIsKeptWhenItFits) {
  WindowDim d{16, 3, 2, 1, 1, 1};
  std::optional<WindowFit> fit = fitDeclaredOutput({d}, {8}, true, true);
  ASSERT_TRUE(fit);
  EXPECT_FALSE(fit->ceilMode);
  EXPECT_EQ(fit->padHigh[0], 1);
}

TEST(WindowTest, UnreadTailIsSlicedOff) {
  // A 3x3/1 window declared to produce 4 of a 10-element input reads 6.
  WindowDim d{10, 3, 1, 1, 0, 0};
  std::optional<WindowFit> fit = fitDeclaredOutput({d}, {4}, true, true);
  ASSERT_TRUE(fit);
  EXPECT_EQ(fit->input[0], 6);
  EXPECT_EQ(fit->padHigh[0], 0);
}

TEST(WindowTest, ExtentTheWindowsCannotProduceIsNotFitted) {
  // 9 windows would read past the (unpadded) input.
  WindowDim d{10, 3, 1, 1, 0, 0};
  EXPECT_EQ(fitDeclaredOutput({d}, {9}, true, true), std::nullopt);
  EXPECT_EQ(fitDeclaredOutput({d}, {9}, false, false), std::nullopt);
  EXPECT_EQ(fitDeclaredOutput({d}, {0}, true, true), std::nullopt);
  // A low padding over half the kernel is no pooling padding.
  EXPECT_EQ(fitDeclaredOutput({{10, 3, 1, 1, 2, 0}}, {10}, true, true),
            std::nullopt);
}

TEST(WindowTest, EveryFitProducesTheDeclaredExtent) {
  // Every extent some window position count gives is fitted, and the fit
  // gives it back under the rule, within dsm's padding limits.
  std::mt19937 rng(11);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 5000; ++trial) {
    WindowDim d{pick(1, 40), pick(1, 7), pick(1, 5), 1, 0, pick(0, 8)};
    bool pooling = pick(0, 1);
    d.padLow = pick(0, pooling ? d.kernel / 2 : 4);
    int64_t padded = d.input + d.padLow + d.padHigh;
    if (d.effectiveKernel() > padded)
      continue;
    // linalg may declare any extent whose windows stay in the padded input.
    int64_t most = (padded - d.effectiveKernel()) / d.stride + 1;
    for (int64_t output = 1; output <= most; ++output) {
      // (Windows reading nothing but the low padding are no real layer.)
      if ((output - 1) * d.stride + d.effectiveKernel() <= d.padLow)
        continue;
      std::optional<WindowFit> fit =
          fitDeclaredOutput({d}, {output}, pooling, pooling);
      if (!fit) {
        // Only pooling limits the padding (to half the kernel): a last
        // window reaching further into the high padding has no dsm form.
        EXPECT_TRUE(pooling)
            << d.input << " " << d.kernel << " " << d.stride << " " << d.padLow
            << " " << d.padHigh << " -> " << output;
        continue;
      }
      WindowDim written = d;
      written.input = fit->input[0];
      written.padHigh = fit->padHigh[0];
      EXPECT_EQ(windowOutputExtent(written, fit->ceilMode), output);
      EXPECT_LE(written.input, d.input);
      if (pooling) {
        EXPECT_LE(written.padHigh * 2, written.kernel);
      }
    }
  }
}

} // namespace

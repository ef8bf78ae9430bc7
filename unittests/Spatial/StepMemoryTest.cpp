//===- StepMemoryTest.cpp - What a chip's memory holds over a step --------===//

#include "dsm/Core/Spatial/StepMemory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using namespace dsm::core;

namespace {

TEST(StepMemoryTest, PeakCountsTheTensorsAliveAtOnce) {
  // [0, 2] and [2, 4] meet at step 2; [3, 3] overlaps only the second.
  EXPECT_EQ(peakLiveBytes({{100, 0, 2}, {10, 2, 4}, {1, 3, 3}}), 110);
  // A tensor ends after its last step: [0, 1] and [2, 3] never meet.
  EXPECT_EQ(peakLiveBytes({{100, 0, 1}, {50, 2, 3}}), 100);
  EXPECT_EQ(peakLiveBytes({}), 0);
}

TEST(StepMemoryTest, PeakMatchesAStepByStepCount) {
  // Many tensors on a few steps (the bucketed sweep), and a step far past
  // the others' (the sorted one): each against summing every step's own.
  std::mt19937 random(3);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<LiveTensor> tensors;
    const int steps = 1 + trial;
    std::uniform_int_distribution<int> step(0, steps);
    for (int t = 0; t < 3 * steps; ++t) {
      int first = step(random), last = step(random);
      tensors.push_back(
          {double(1 + t % 7), std::min(first, last), std::max(first, last)});
    }
    if (trial % 4 == 3)
      tensors.push_back({5, 0, 1 << 28});
    double peak = 0;
    std::vector<int> probes;
    for (const LiveTensor &t : tensors)
      probes.insert(probes.end(), {t.first, t.last});
    for (int at : probes) {
      double live = 0;
      for (const LiveTensor &t : tensors)
        live += t.first <= at && at <= t.last ? t.bytes : 0;
      peak = std::max(peak, live);
    }
    EXPECT_EQ(peakLiveBytes(tensors), peak) << "trial " << trial;
  }
}

TEST(StepMemoryTest, MixedPrecisionAdamIsSixteenBytesAParameter) {
  // ZeRO, Section 3.1: 2 (fp16 weight) + 2 (fp16 gradient) + 12 (fp32
  // master weight, momentum and variance).
  MemoryPerChip adam =
      memoryPerChip({1000, 24}, {1000, 24}, {}, /*elementBytes=*/2,
                    /*training=*/true, Optimizer::Adam, 1e9);
  EXPECT_EQ(adam.weights, 2048);
  EXPECT_EQ(adam.gradients, 2048);
  EXPECT_EQ(adam.optimizer, 12288);
  EXPECT_EQ(adam.total(), 16 * 1024);
  EXPECT_EQ(optimizerBytesPerParameter(Optimizer::Momentum), 8);
  EXPECT_EQ(optimizerBytesPerParameter(Optimizer::SGD), 4);
  // Inference keeps the weights alone, and its activations.
  MemoryPerChip infer =
      memoryPerChip({1024}, {1024}, {{300, 0, 1}, {200, 1, 2}}, 2,
                    /*training=*/false, Optimizer::Adam, 1e9);
  EXPECT_EQ(infer.gradients + infer.optimizer, 0);
  EXPECT_EQ(infer.activations, 500);
  EXPECT_EQ(infer.total(), 2548);
}

TEST(StepMemoryTest, FitsOnlyWithinCapacity) {
  MemoryPerChip m =
      memoryPerChip({500}, {500}, {}, 2, false, Optimizer::Adam, 1000);
  EXPECT_TRUE(m.fits());
  m.capacity = 999;
  EXPECT_FALSE(m.fits());
  EXPECT_EQ(describeMemory(m),
            "1000 B of 999 B (weights 1000 B, gradients 0 B, optimizer 0 B, "
            "activations 0 B, buffers 0 B)");
  EXPECT_EQ(formatBytes(12.5e9), "12.50 GB");
  EXPECT_EQ(formatBytes(3e6), "3.00 MB");
}

TEST(StepMemoryTest, ShardedStateIsKeptForTheShardAlone) {
  // 1,000 parameters held whole by each of 8 chips (data parallelism): with
  // the state sharded, a chip keeps the gradient and Adam state of 125.
  MemoryPerChip whole =
      memoryPerChip({1000}, {1000}, {}, 2, true, Optimizer::Adam, 1e9);
  MemoryPerChip sharded =
      memoryPerChip({1000}, {125}, {}, 2, true, Optimizer::Adam, 1e9);
  EXPECT_EQ(whole.total(), 16000);
  EXPECT_EQ(sharded.weights, 2000);
  EXPECT_EQ(sharded.gradients, 250);
  EXPECT_EQ(sharded.optimizer, 1500);
}

TEST(StepMemoryTest, SaversShardTheHeldParameters) {
  // 800 parameters, 100 of them on each chip of the plan, over 16 chips.
  HeldParameters plain = heldParameters(100, 800, 16, false, false);
  EXPECT_EQ(plain.weights, 100);
  EXPECT_EQ(plain.state, 100);
  HeldParameters state = heldParameters(100, 800, 16, false, true);
  EXPECT_EQ(state.weights, 100);
  EXPECT_EQ(state.state, 50);
  EXPECT_EQ(state.optimizer, 50);
  HeldParameters weights = heldParameters(100, 800, 16, true, true);
  EXPECT_EQ(weights.weights, 50);
  EXPECT_EQ(weights.state, 50);
  // ZeRO stage 1: the optimizer state alone sharded.
  HeldParameters optimizer = heldParameters(100, 800, 16, false, false, true);
  EXPECT_EQ(optimizer.weights, 100);
  EXPECT_EQ(optimizer.state, 100);
  EXPECT_EQ(optimizer.optimizer, 50);
  EXPECT_EQ(plain.optimizer, 100);
}

TEST(StepMemoryTest, FullestRowHoldsTheStagesOnItsRows) {
  // A layer on every row, and three pipe-group stages: rows [0, 2), [2, 4)
  // and [1, 3). Row 1 holds the first and third stage's, row 2 the second
  // and third's; row 1 weighs more at 10 bytes a weight element and 1 a
  // state element.
  std::vector<PlacedParameters> layers = {{{10, 10, 10}, 0, 0},
                                          {{100, 0, 0}, 0, 2},
                                          {{0, 30, 30}, 2, 2},
                                          {{5, 5, 5}, 1, 2}};
  HeldParameters fullest = fullestRowParameters(layers, 10, 1, 0);
  EXPECT_EQ(fullest.weights, 10 + 100 + 5);
  EXPECT_EQ(fullest.state, 10 + 0 + 5);
  // At 1 byte a state element and 0 a weight, row 2 is the fullest.
  fullest = fullestRowParameters(layers, 0, 1, 0);
  EXPECT_EQ(fullest.weights, 10 + 5);
  EXPECT_EQ(fullest.state, 10 + 30 + 5);
  // The optimizer state weighs too: at 1 byte an optimizer element alone,
  // row 2 again, its optimizer elements summed like the rest.
  fullest = fullestRowParameters(layers, 0, 0, 1);
  EXPECT_EQ(fullest.optimizer, 10 + 30 + 5);
  // Without stages: every layer on every chip.
  fullest =
      fullestRowParameters({{{10, 10, 10}, 0, 0}, {{7, 3, 3}, 0, 0}}, 1, 1, 0);
  EXPECT_EQ(fullest.weights, 17);
  EXPECT_EQ(fullest.state, 13);
}

TEST(StepMemoryTest, RecomputedRunsLiveOnlyAroundTheirBackward) {
  // Four layers, 8 steps: layer i's FWD at i, its backward at 7 - i. Each
  // output (100 B) is read by the next layer, forward and backward.
  std::vector<ActivationUse> uses;
  for (int i = 0; i < 3; ++i)
    uses.push_back({100, i, i + 1, 7 - (i + 1), 7 - (i + 1), false});
  // Kept: all three alive from step 2 to 4.
  EXPECT_EQ(peakLiveBytes(activationLiveTensors(uses)), 300);
  // Outputs 0 and 1 recomputed (one run): in the forward half each lives
  // to its reader's FWD; the run is recomputed at step 5 (layer 2's
  // backward reads output 1), so output 2 (kept, steps 2-4) is gone by then.
  uses[0].recomputed = uses[1].recomputed = true;
  std::vector<LiveTensor> tensors = activationLiveTensors(uses);
  ASSERT_EQ(tensors.size(), 5u);
  EXPECT_EQ(tensors[1].first, 5);
  EXPECT_EQ(tensors[1].last, 6);
  EXPECT_EQ(tensors[3].first, 5);
  EXPECT_EQ(tensors[3].last, 5);
  EXPECT_EQ(peakLiveBytes(tensors), 200);
}

TEST(StepMemoryTest, LiveBytesAddedOneByOneAsRecomputationsAsk) {
  // A recomputation asked of the uses' own flags, or through a function
  // over unflagged uses onto a LiveBytes holding the tensors every
  // recomputation shares: the same tensors, the same peak.
  std::mt19937 random(5);
  for (int trial = 0; trial < 30; ++trial) {
    const int layers = 2 + trial;
    const int end = 2 * layers;
    std::vector<ActivationUse> uses;
    std::vector<bool> recomputed;
    for (int i = 0; i < layers; ++i) {
      int lastForward = std::min(layers - 1, i + 1 + int(random() % 3));
      int lastBackward = end - 1 - i, firstBackward = end - 1 - lastForward;
      bool backward = random() % 4 != 0;
      uses.push_back({double(1 + random() % 50), i, lastForward,
                      backward ? firstBackward : -1,
                      backward ? lastBackward : -1, false});
      recomputed.push_back(random() % 2 == 0);
    }
    std::vector<LiveTensor> shared = {{7, 0, end}, {3, layers, end - 2}};
    LiveBytes live(end);
    for (const LiveTensor &t : shared)
      live.add(t);
    addActivationLiveTensors(
        uses, [&](size_t a) { return bool(recomputed[a]); },
        [&](const LiveTensor &t) { live.add(t); });
    for (size_t a = 0; a < uses.size(); ++a)
      uses[a].recomputed = recomputed[a];
    std::vector<LiveTensor> tensors = activationLiveTensors(uses);
    tensors.insert(tensors.end(), shared.begin(), shared.end());
    EXPECT_EQ(live.peak(), peakLiveBytes(tensors)) << "trial " << trial;
  }
}

TEST(StepMemoryTest, OptimizersHaveNames) {
  for (Optimizer o : {Optimizer::SGD, Optimizer::Momentum, Optimizer::Adam})
    EXPECT_EQ(symbolizeOptimizer(stringifyOptimizer(o)), o);
  EXPECT_EQ(symbolizeOptimizer("adamw"), std::nullopt);
}

} // namespace

//===----------------------------------------------------------------------===//
// Activation memory: what one transformer layer keeps for its backward
// pass, against the hand counts of Korthikanti et al., "Reducing Activation
// Recomputation in Large Transformer Models" (MLSys 2023), Section 4 and
// Table 2, at 2-byte activations and 1-byte dropout masks.
//===----------------------------------------------------------------------===//

namespace {
/// A layer of a transformer block: its shape, with what LayerFormation
/// finds it keeps (test/Spatial/saved-activations.mlir shows those counts
/// on the same block), and its chip split under Megatron-LM's tensor
/// parallelism of degree t: the first linear layer of each pair splits its
/// output features (column parallel), the second its input features (row
/// parallel); attention splits its heads.
struct BlockLayer {
  LayerShape shape;
  DimSizes split = {1, 1, 1, 1, 1};
};

LayerShape fullyConnected(int64_t s, int64_t b, int64_t in, int64_t out,
                          SavedActivations saved) {
  LayerShape shape = makeLayerShape(
      makeFullyConnectedWorkload(b, s, in, out, /*hasBias=*/false, 2), "fc");
  shape.saved = saved;
  return shape;
}
LayerShape matMul(int64_t batch, int64_t m, int64_t k, int64_t n,
                  SavedActivations saved) {
  LayerShape shape =
      makeLayerShape(makeMatMulWorkload(batch, m, k, n, 2), "matmul");
  shape.saved = saved;
  return shape;
}
DimSizes along(Dim dim, int64_t t) {
  DimSizes split = {1, 1, 1, 1, 1};
  split[int(dim)] = t;
  return split;
}

/// GPT (with dropout) at sequence s, microbatch b, hidden h, a heads: c_attn,
/// scores (with the softmax), context, attn.c_proj (with the residual and
/// the next layer norm), mlp.c_fc (with GELU), mlp.c_proj (with the
/// residual and the next block's first layer norm).
std::vector<BlockLayer> gptBlock(double s, double b, double h, double a,
                                 int64_t t) {
  const double sbh = s * b * h, as2b = a * s * s * b;
  const int64_t S = int64_t(s), B = int64_t(b), H = int64_t(h), A = int64_t(a);
  return {
      {fullyConnected(S, B, H, 3 * H, {sbh}), along(Dim::Out, t)},
      {matMul(B * A, S, H / A, S, {sbh, sbh, 0, 0, 2 * as2b, as2b}),
       along(Dim::MB, t)},
      {matMul(B * A, S, S, H / A, {0, sbh}), along(Dim::MB, t)},
      {fullyConnected(S, B, H, H, {sbh, 0, sbh, sbh}), along(Dim::In, t)},
      {fullyConnected(S, B, H, 4 * H, {sbh, 0, 4 * sbh}), along(Dim::Out, t)},
      {fullyConnected(S, B, 4 * H, H, {4 * sbh, 0, sbh, sbh}),
       along(Dim::In, t)},
  };
}

double blockBytes(const std::vector<BlockLayer> &block,
                  ActivationKeeping keeping) {
  double bytes = 0;
  for (const BlockLayer &layer : block)
    bytes += savedBytesPerChip(layer.shape, layer.split, 2, keeping);
  return bytes;
}
} // namespace

TEST(StepMemoryTest, AGptLayerKeepsWhatMegatronLmCounts) {
  // GPT-3 175B's layer: s 2048, h 12288, 96 heads, microbatch 1.
  const double s = 2048, b = 1, h = 12288, a = 96;
  const double sbh = s * b * h, attention = 5 * a * s * s * b;
  for (int64_t t : {1, 2, 8}) {
    SCOPED_TRACE(t);
    std::vector<BlockLayer> block = gptBlock(s, b, h, a, t);
    // No recomputation: sbh (10 + 24 / t) + 5 a s^2 b / t.
    EXPECT_DOUBLE_EQ(blockBytes(block, {}),
                     sbh * (10 + 24.0 / t) + attention / t);
    // Sequence parallelism: what tensor parallelism replicated split too.
    EXPECT_DOUBLE_EQ(blockBytes(block, {/*sequenceParallel=*/true}),
                     sbh * 34 / t + attention / t);
    // Selective recomputation: the attention core dropped.
    EXPECT_DOUBLE_EQ(blockBytes(block, {false, /*recomputeAttention=*/true}),
                     sbh * (10 + 24.0 / t));
    EXPECT_DOUBLE_EQ(blockBytes(block, {true, true}), sbh * 34 / t);
    // Full recomputation: the block's input alone, 2 s b h (split along the
    // sequence under sequence parallelism).
    EXPECT_DOUBLE_EQ(
        checkpointBytesPerChip(block.front().shape, block.front().split, 2),
        2 * sbh);
    EXPECT_DOUBLE_EQ(checkpointBytesPerChip(block.front().shape,
                                            block.front().split, 2, true),
                     2 * sbh / t);
  }
}

TEST(StepMemoryTest, ALlamaLayerKeepsItsOwnCount) {
  // Llama-2-7B's layer (no dropout, RMSNorm, SwiGLU written x * sigmoid(x)
  // times the up projection, rotary embeddings applied before the scores):
  //   RMSNorm inputs 2 x 2sbh, the projections' input 2sbh (read by q, k
  //   and v: kept once), the gate's input 2sbh -- replicated; Q and K after
  //   RoPE 4sbh, V 2sbh, o_proj's input 2sbh, the softmax 2as^2b -- split;
  //   the MLP: gate and up outputs, the sigmoid, SiLU and the product,
  //   5 x 2sbf, split:
  //   sbh (8 + 8/t) + 10 sbf / t + 2 a s^2 b / t.
  const double s = 4096, b = 1, h = 4096, a = 32, f = 11008;
  const double sbh = s * b * h, sbf = s * b * f, as2b = a * s * s * b;
  const int64_t S = int64_t(s), H = int64_t(h), A = int64_t(a), F = int64_t(f);
  for (int64_t t : {1, 2, 8}) {
    SCOPED_TRACE(t);
    LayerShape act = makeLayerShape(
        makeElementwiseWorkload(OpKind::Sigmoid, 1, S * F, S * F, 0, 0, 2),
        "mlp.act_fn.sigmoid");
    act.saved = {0, 0, 4 * sbf};
    std::vector<BlockLayer> block = {
        {fullyConnected(S, 1, H, H, {sbh}), along(Dim::Out, t)}, // q_proj
        {fullyConnected(S, 1, H, H, {}), along(Dim::Out, t)},    // k_proj
        {fullyConnected(S, 1, H, H, {}), along(Dim::Out, t)},    // v_proj
        {matMul(A, S, H / A, S, {sbh, sbh, 0, 0, as2b}), along(Dim::MB, t)},
        {matMul(A, S, S, H / A, {0, sbh}), along(Dim::MB, t)},
        {fullyConnected(S, 1, H, H, {sbh, 0, sbh}), along(Dim::In, t)},
        {fullyConnected(S, 1, H, F, {sbh}), along(Dim::Out, t)}, // gate
        {fullyConnected(S, 1, H, F, {}), along(Dim::Out, t)},    // up
        {act, along(Dim::Out, t)},
        {fullyConnected(S, 1, F, H, {sbf, 0, sbh}), along(Dim::In, t)},
    };
    EXPECT_DOUBLE_EQ(blockBytes(block, {}),
                     sbh * (8 + 8.0 / t) + 10 * sbf / t + 2 * as2b / t);
    EXPECT_DOUBLE_EQ(blockBytes(block, {false, true}),
                     sbh * (8 + 8.0 / t) + 10 * sbf / t);
  }
}

//===- PerformanceModelTest.cpp - The performance model, term by term -----===//
//
// Hand-computed cases on a small system where the arithmetic is easy: 1 GHz
// (so a byte at B GB/s takes 1/B cycles), fp16, 2x2 chips, 2 cores on a ring,
// 8x8 PE arrays.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Spatial/PerformanceModel.h"
#include "dsm/Core/System/Collectives.h"

#include "TestHelpers.h"

#include <gtest/gtest.h>

using namespace dsm::core;
using dsm::core::testing::convLayer;
using dsm::core::testing::multiChipPreset;

namespace {

MultiChipSystem smallSystem() {
  MultiChipSystem s;
  s.chips = 4;
  // 10 GB/s along X and 8 GB/s along Y, both ways together.
  s.torus.x = {2, NetworkTopology::Torus, /*bandwidth=*/5e9};
  s.torus.y = {2, NetworkTopology::Torus, /*bandwidth=*/4e9};
  s.chip.cores = 2;
  s.chip.interconnect = ChipInterconnect::Ring;
  s.chip.coreToCoreBandwidth = 64e9;
  s.chip.externalMemory = {1e9, 32e9, 0.5}; // 16 GB/s effective
  s.chip.core.macsPerCycle = 64;
  s.chip.core.peRows = 8;
  s.chip.core.peColumns = 8;
  s.chip.core.scratchpad = {64 * 1024, 64e9, 1};
  s.chip.core.sfuOpsPerCycle = 4;
  s.chip.core.frequencyHz = 1e9;
  s.chip.core.precision = Precision::FP16;
  return s;
}

MappingConfig config(Parallelism p, DimSizes chip, DimSizes core, Dim row,
                     int64_t rowTile, Dim col, int64_t colTile) {
  MappingConfig c;
  c.parallelism = p;
  c.chipSplit = chip;
  c.coreSplit = core;
  c.array = {row, col, rowTile, colTile};
  return c;
}

const TransferGroup *group(const Evaluation &e, llvm::StringRef name) {
  for (const TransferGroup &g : e.transfers)
    if (g.name == name)
      return &g;
  return nullptr;
}

// dims order: in, out, ij, kij, mb
constexpr DimSizes kDataSplit = {1, 1, 1, 1, 4};
constexpr DimSizes kModelSplit = {1, 4, 1, 1, 1};

TEST(PerformanceModelTest, ComputeBoundLayer) {
  PerformanceModel model(smallSystem());
  // 3x3 conv, 16 -> 16 channels, 64 pixels, minibatch 8, data parallel: a
  // chip has 2 samples; its 2 cores split the output channels.
  std::optional<Evaluation> e =
      model.evaluate(convLayer(16, 16, 64, 9, 8), TrainingPass::FWD,
                     config(Parallelism::Data, kDataSplit, {1, 2, 1, 1, 1},
                            Dim::In, 8, Dim::IJ, 8));
  ASSERT_TRUE(e.has_value());
  // CoreD = {16, 8, 64, 9, 2}: (16/8)*(64/8) array steps x 8*9*2 streamed =
  // 2304 cycles, plus 8 + 8 startup.
  EXPECT_DOUBLE_EQ(e->cycles.useful, 2304);
  EXPECT_DOUBLE_EQ(e->cycles.underuse, 16);
  // Memory: (Input 2048 + Kernel 2304 + Output 2048) elements x 2 B / 16 GB/s
  // = 800 cycles, hidden under the 2320 of PriComp.
  const TransferGroup *stream = group(*e, "fetch_inp+fetch_ker+write_out");
  ASSERT_NE(stream, nullptr);
  EXPECT_DOUBLE_EQ(stream->bytes[int(Link::MemoryBus)], 12800);
  EXPECT_DOUBLE_EQ(stream->cycles, 800);
  EXPECT_EQ(stream->bottleneck, Link::MemoryBus);
  EXPECT_DOUBLE_EQ(e->cycles.ovldtVisible, 0);
  EXPECT_DOUBLE_EQ(e->cycles.nonOvldt, 0);
  EXPECT_DOUBLE_EQ(e->cycles.total, 2320);
  EXPECT_DOUBLE_EQ(e->utilization, 2304.0 / 2320.0);
}

TEST(PerformanceModelTest, ExternalMemoryBoundLayer) {
  PerformanceModel model(smallSystem());
  // The same as a 1x1 convolution: 9x less compute, about the same traffic.
  std::optional<Evaluation> e =
      model.evaluate(convLayer(16, 16, 64, 1, 8), TrainingPass::FWD,
                     config(Parallelism::Data, kDataSplit, {1, 2, 1, 1, 1},
                            Dim::In, 8, Dim::IJ, 8));
  ASSERT_TRUE(e.has_value());
  EXPECT_DOUBLE_EQ(e->cycles.useful, 256);
  // (2048 + 256 + 2048) x 2 B / 16 GB/s = 544 cycles; 544 - 272 are visible.
  EXPECT_DOUBLE_EQ(e->ovldt, 544);
  EXPECT_DOUBLE_EQ(e->cycles.ovldtVisible, 544 - 272);
  EXPECT_DOUBLE_EQ(e->cycles.total, 544);
}

TEST(PerformanceModelTest, InputLeftOnChipByThePreviousLayer) {
  // DeepSpatialMatrix §III-B1: "the output activations of a layer [are]
  // retained on-chip and reused as the input activations of the next layer".
  PerformanceModel model(smallSystem());
  LayerShape conv = convLayer(16, 16, 64, 1, 8);
  MappingConfig c = config(Parallelism::Data, kDataSplit, {1, 2, 1, 1, 1},
                           Dim::In, 8, Dim::IJ, 8);
  std::optional<Evaluation> base = model.evaluate(conv, TrainingPass::FWD, c);
  c.memory.inputOnChip = true;
  std::optional<Evaluation> reuse = model.evaluate(conv, TrainingPass::FWD, c);
  ASSERT_TRUE(base && reuse);
  // Only the kernel and the output cross the memory bus: (256 + 2048) x 2 B
  // = 288 cycles at 16 GB/s, of which 288 - 272 are visible.
  const TransferGroup *stream = group(*reuse, "fetch_inp+fetch_ker+write_out");
  ASSERT_NE(stream, nullptr);
  EXPECT_DOUBLE_EQ(stream->bytes[int(Link::MemoryBus)], (256 + 2048) * 2);
  EXPECT_DOUBLE_EQ(reuse->cycles.total, 288);
  EXPECT_LT(reuse->cycles.total, base->cycles.total);
  // The cores hold their whole Input share besides the working set.
  EXPECT_GT(reuse->scratchpadBytes, base->scratchpadBytes);
  // Only a FWD finds its input on chip.
  std::string why;
  EXPECT_FALSE(model.evaluate(conv, TrainingPass::BWD, c, &why));
  EXPECT_NE(why.find("input is reused"), std::string::npos);
  // Not when the input is rotated between chips (model parallelism).
  EXPECT_FALSE(model.evaluate(conv, TrainingPass::FWD, [&] {
    MappingConfig m = config(Parallelism::Model, kModelSplit, {1, 2, 1, 1, 1},
                             Dim::In, 8, Dim::IJ, 8);
    m.memory.inputOnChip = true;
    return m;
  }()));
}

TEST(PerformanceModelTest, ShortcutKeptOnChipSinceItsProducer) {
  // DeepSpatialMatrix §III-B1: "in the case of residual layers, the outputs may
  // need to be retained longer, as a future layer may also use the outputs for
  // short-cut addition". A fused residual addition reads one shortcut
  // element per output element; kept on chip, FWD no longer fetches it.
  PerformanceModel model(smallSystem());
  LayerShape conv = convLayer(16, 16, 64, 1, 8);
  conv.auxInputsPerOutput = 1;
  MappingConfig c = config(Parallelism::Data, kDataSplit, {1, 2, 1, 1, 1},
                           Dim::In, 8, Dim::IJ, 8);
  std::optional<Evaluation> base = model.evaluate(conv, TrainingPass::FWD, c);
  c.memory.shortcutOnChip = true;
  std::optional<Evaluation> kept = model.evaluate(conv, TrainingPass::FWD, c);
  ASSERT_TRUE(base && kept);
  const TransferGroup *before = group(*base, "fetch_inp+fetch_ker+write_out");
  const TransferGroup *after = group(*kept, "fetch_inp+fetch_ker+write_out");
  ASSERT_TRUE(before && after);
  // The input, kernel and output (2048 + 256 + 2048 elements) and, without
  // it, the chip's shortcut: 2 samples x 16 channels x 64 pixels, 2 B each.
  EXPECT_DOUBLE_EQ(before->bytes[int(Link::MemoryBus)],
                   (2048 + 256 + 2048 + 2048) * 2);
  EXPECT_DOUBLE_EQ(after->bytes[int(Link::MemoryBus)], (2048 + 256 + 2048) * 2);
  // (2048 + 256 + 2048) x 2 B at 16 GB/s: 544 cycles, as without a shortcut.
  EXPECT_DOUBLE_EQ(kept->cycles.total, 544);
  EXPECT_LT(kept->cycles.total, base->cycles.total);
  // Each core keeps its whole share of the shortcut (the core split halves
  // the output channels: 8 x 64 x 2 elements, 2 B each) besides its
  // working set.
  EXPECT_DOUBLE_EQ(kept->scratchpadBytes - base->scratchpadBytes,
                   8 * 64 * 2 * 2);
  // With DySM the share is kept for all the spatial minibatches.
  c.memory.spatialMinibatches = 2;
  MappingConfig plain = c;
  plain.memory.shortcutOnChip = false;
  std::optional<Evaluation> dysm = model.evaluate(conv, TrainingPass::FWD, c);
  std::optional<Evaluation> dysmPlain =
      model.evaluate(conv, TrainingPass::FWD, plain);
  ASSERT_TRUE(dysm && dysmPlain);
  EXPECT_DOUBLE_EQ(dysm->scratchpadBytes - dysmPlain->scratchpadBytes,
                   8 * 64 * 2 * 2);
  // DeepSpatialMatrix §III-C: a residual block run as one DySM group ("instead
  // of completing the next S_mb, we proceed to the next layer") holds the
  // shortcut of one spatial minibatch: half the share, same transfers.
  c.memory.shortcutPerSpatialMinibatch = true;
  std::optional<Evaluation> grouped =
      model.evaluate(conv, TrainingPass::FWD, c);
  ASSERT_TRUE(grouped.has_value());
  EXPECT_DOUBLE_EQ(grouped->scratchpadBytes - dysmPlain->scratchpadBytes,
                   8 * 64 * 2 * 2 / 2);
  EXPECT_DOUBLE_EQ(grouped->cycles.total, dysm->cycles.total);
  // Only a kept shortcut is held per spatial minibatch.
  std::string why;
  plain.memory.shortcutPerSpatialMinibatch = true;
  EXPECT_FALSE(model.evaluate(conv, TrainingPass::FWD, plain, &why));
  EXPECT_NE(why.find("one spatial minibatch at a time"), std::string::npos);
  c.memory.shortcutPerSpatialMinibatch = false;
  c.memory.spatialMinibatches = 1;
  // BWD passes the error of its output back to the shortcut: kept on chip,
  // for the block's first layer to add, it does not go to memory either.
  MappingConfig b = c;
  b.memory.shortcutOnChip = false;
  std::optional<Evaluation> bwdBase =
      model.evaluate(conv, TrainingPass::BWD, b);
  b.memory.shortcutOnChip = true;
  std::optional<Evaluation> bwdKept =
      model.evaluate(conv, TrainingPass::BWD, b);
  ASSERT_TRUE(bwdBase && bwdKept);
  const TransferGroup *bwdBefore =
      group(*bwdBase, "fetch_inp+fetch_ker+write_out");
  const TransferGroup *bwdAfter =
      group(*bwdKept, "fetch_inp+fetch_ker+write_out");
  ASSERT_TRUE(bwdBefore && bwdAfter);
  EXPECT_DOUBLE_EQ(bwdBefore->bytes[int(Link::MemoryBus)] -
                       bwdAfter->bytes[int(Link::MemoryBus)],
                   2048 * 2);
  EXPECT_LE(bwdKept->cycles.total, bwdBase->cycles.total);
  // The error stays whole in the cores (their Output share) unless it is
  // already kept there (error reuse).
  EXPECT_GE(bwdKept->scratchpadBytes, bwdBase->scratchpadBytes);
  b.memory.errorOnChip = true;
  std::optional<Evaluation> bothKept =
      model.evaluate(conv, TrainingPass::BWD, b);
  b.memory.shortcutOnChip = false;
  std::optional<Evaluation> errorKept =
      model.evaluate(conv, TrainingPass::BWD, b);
  ASSERT_TRUE(bothKept && errorKept);
  EXPECT_DOUBLE_EQ(bothKept->scratchpadBytes, errorKept->scratchpadBytes);
  // UPD does not read the shortcut; only a layer that reads one keeps it.
  why.clear();
  EXPECT_FALSE(model.evaluate(conv, TrainingPass::UPD, c, &why));
  EXPECT_NE(why.find("shortcut is kept"), std::string::npos);
  EXPECT_FALSE(
      model.evaluate(convLayer(16, 16, 64, 1, 8), TrainingPass::FWD, c));
  // A product of two activations reads its second operand as its kernel.
  LayerShape product = conv;
  product.hasWeights = false;
  EXPECT_FALSE(model.evaluate(product, TrainingPass::FWD, c));
}

TEST(PerformanceModelTest, OutputNotWrittenWhenEveryReaderFindsItOnChip) {
  // DeepSpatialMatrix §III-B1: activation reuse "saves an external memory read
  // and write for inference". The reader's side drops the read (inputOnChip);
  // this side drops the write.
  PerformanceModel model(smallSystem());
  LayerShape conv = convLayer(16, 16, 64, 1, 8);
  MappingConfig c = config(Parallelism::Data, kDataSplit, {1, 2, 1, 1, 1},
                           Dim::In, 8, Dim::IJ, 8);
  std::optional<Evaluation> base = model.evaluate(conv, TrainingPass::FWD, c);
  c.memory.outputOnChip = true;
  std::optional<Evaluation> kept = model.evaluate(conv, TrainingPass::FWD, c);
  ASSERT_TRUE(base && kept);
  const TransferGroup *before = group(*base, "fetch_inp+fetch_ker+write_out");
  const TransferGroup *after = group(*kept, "fetch_inp+fetch_ker+write_out");
  ASSERT_TRUE(before && after);
  // The chip's 2 samples x 16 channels x 64 pixels of output, 2 B each.
  EXPECT_DOUBLE_EQ(before->bytes[int(Link::MemoryBus)] -
                       after->bytes[int(Link::MemoryBus)],
                   2048 * 2);
  // (2048 + 256) x 2 B at 16 GB/s = 288 cycles, beside 272 of compute.
  EXPECT_DOUBLE_EQ(kept->cycles.total, 288);
  // Its readers count it where they keep it whole: the working set is the
  // same.
  EXPECT_DOUBLE_EQ(kept->scratchpadBytes, base->scratchpadBytes);
  // Only a FWD writes an output.
  std::string why;
  EXPECT_FALSE(model.evaluate(conv, TrainingPass::BWD, c, &why));
  EXPECT_NE(why.find("output stays"), std::string::npos);
}

TEST(PerformanceModelTest, ErrorLeftOnChipByTheNextLayersBwd) {
  // The backward mirror of activation reuse: the Output's error, which BWD
  // and UPD read, is in the scratchpads.
  PerformanceModel model(smallSystem());
  LayerShape conv = convLayer(16, 16, 64, 1, 8);
  MappingConfig c = config(Parallelism::Data, kDataSplit, {1, 2, 1, 1, 1},
                           Dim::In, 8, Dim::IJ, 8);
  for (TrainingPass pass : {TrainingPass::BWD, TrainingPass::UPD}) {
    c.memory = MemoryDecision();
    std::optional<Evaluation> base = model.evaluate(conv, pass, c);
    c.memory.errorOnChip = true;
    std::optional<Evaluation> reuse = model.evaluate(conv, pass, c);
    ASSERT_TRUE(base && reuse);
    const TransferGroup *before = group(*base, "fetch_inp+fetch_ker+write_out");
    const TransferGroup *after = group(*reuse, "fetch_inp+fetch_ker+write_out");
    ASSERT_TRUE(before && after);
    // The chip's 2 samples x 16 channels x 64 pixels of error, 2 B each, no
    // longer cross the memory bus.
    EXPECT_DOUBLE_EQ(before->bytes[int(Link::MemoryBus)] -
                         after->bytes[int(Link::MemoryBus)],
                     2 * 16 * 64 * 2);
    EXPECT_LE(reuse->cycles.total, base->cycles.total);
  }
  // Not in FWD, whose Output is written, not read.
  std::string why;
  EXPECT_FALSE(model.evaluate(conv, TrainingPass::FWD, c, &why));
  EXPECT_NE(why.find("error is reused"), std::string::npos);
}

TEST(PerformanceModelTest, SpatialMinibatchesRefetchTheKernelOnly) {
  // DeepSpatialMatrix §III-C: DySM runs the chip's minibatch share as spatial
  // minibatches; "the choice of S_mb cannot be arbitrarily small, as that would
  // reduce
  // ... the reuse factor for weights", and "gradient reduction is done only
  // after all spatial minibatch iterations are complete".
  PerformanceModel model(smallSystem());
  LayerShape conv = convLayer(16, 16, 64, 9, 8);
  MappingConfig c = config(Parallelism::Data, kDataSplit, {1, 2, 1, 1, 1},
                           Dim::In, 8, Dim::IJ, 8);
  std::optional<Evaluation> whole = model.evaluate(conv, TrainingPass::FWD, c);
  c.memory.spatialMinibatches = 2;
  std::optional<Evaluation> halves = model.evaluate(conv, TrainingPass::FWD, c);
  ASSERT_TRUE(whole && halves);
  EXPECT_DOUBLE_EQ(halves->macs, whole->macs);
  // Per chip: Input 2048 and Output 2048 elements as before, the Kernel
  // (2304) twice: (2048 + 2 x 2304 + 2048) x 2 B.
  const TransferGroup *stream = group(*halves, "fetch_inp+fetch_ker+write_out");
  ASSERT_NE(stream, nullptr);
  EXPECT_DOUBLE_EQ(stream->bytes[int(Link::MemoryBus)],
                   (2048 + 2 * 2304 + 2048) * 2);
  // The same useful cycles, one more array startup (16 cycles).
  EXPECT_DOUBLE_EQ(halves->cycles.useful, whole->cycles.useful);
  EXPECT_DOUBLE_EQ(halves->cycles.underuse, 2 * 16);
  // A smaller working set per core.
  EXPECT_LT(halves->scratchpadBytes, whole->scratchpadBytes);
  // UPD: the gradients are reduced once, whatever the factor.
  c.array.colDim = Dim::Out;
  c.memory.spatialMinibatches = 1;
  std::optional<Evaluation> upd = model.evaluate(conv, TrainingPass::UPD, c);
  c.memory.spatialMinibatches = 2;
  std::optional<Evaluation> updHalves =
      model.evaluate(conv, TrainingPass::UPD, c);
  ASSERT_TRUE(upd && updHalves);
  const TransferGroup *grads = group(*upd, "grad_reduce+weight_broadcast");
  const TransferGroup *gradsHalves =
      group(*updHalves, "grad_reduce+weight_broadcast");
  ASSERT_TRUE(grads && gradsHalves);
  EXPECT_DOUBLE_EQ(gradsHalves->cycles, grads->cycles);
  // The factor divides the chip's share (2 samples here), and only of a
  // layer that does not step through time.
  std::string why;
  c.memory.spatialMinibatches = 4;
  EXPECT_FALSE(model.evaluate(conv, TrainingPass::FWD, c, &why));
  EXPECT_NE(why.find("spatial minibatches"), std::string::npos);
}

TEST(PerformanceModelTest, OneSampleSpatialMinibatchesDividePositions) {
  // Where a chip's minibatch share is one sample (a transformer at a
  // pipeline's microbatch), DySM divides the positions of a layer without a
  // kernel window, which it computes independently as it does samples.
  PerformanceModel model(smallSystem());
  LayerShape tokens = convLayer(64, 64, 16, 1, 4, "tokens"); // kij = 1
  EXPECT_EQ(model.spatialMinibatchDim(tokens, TrainingPass::FWD, kDataSplit),
            Dim::IJ);
  // A layer with a kernel window, or a share of several samples, keeps the
  // paper's minibatch division.
  LayerShape conv = convLayer(64, 64, 16, 9, 4);
  EXPECT_EQ(model.spatialMinibatchDim(conv, TrainingPass::FWD, kDataSplit),
            Dim::MB);
  EXPECT_EQ(model.spatialMinibatchDim(tokens, TrainingPass::FWD, kModelSplit),
            Dim::MB);
  MappingConfig c = config(Parallelism::Data, kDataSplit, {1, 2, 1, 1, 1},
                           Dim::In, 8, Dim::IJ, 8);
  std::optional<Evaluation> whole =
      model.evaluate(tokens, TrainingPass::FWD, c);
  c.memory.spatialMinibatches = 2;
  std::optional<Evaluation> halves =
      model.evaluate(tokens, TrainingPass::FWD, c);
  ASSERT_TRUE(whole && halves);
  EXPECT_DOUBLE_EQ(halves->macs, whole->macs);
  // Per chip: Input and Output 64 x 16 elements each as before, the Kernel
  // (4096) twice: (1024 + 2 x 4096 + 1024) x 2 B; the smaller activations
  // kept stationary take less of the scratchpad.
  const TransferGroup *stream = group(*halves, "fetch_inp+fetch_ker+write_out");
  ASSERT_NE(stream, nullptr);
  EXPECT_DOUBLE_EQ(stream->bytes[int(Link::MemoryBus)],
                   (1024 + 2 * 4096 + 1024) * 2);
  EXPECT_LT(halves->scratchpadBytes, whole->scratchpadBytes);
  // The factor divides the chip's positions (16): 32 does not.
  std::string why;
  c.memory.spatialMinibatches = 32;
  EXPECT_FALSE(model.evaluate(tokens, TrainingPass::FWD, c, &why));
  EXPECT_NE(why.find("positions share of 16"), std::string::npos) << why;
  // The convolution's one sample is not divided.
  c.memory.spatialMinibatches = 2;
  EXPECT_FALSE(model.evaluate(conv, TrainingPass::FWD, c, &why));
  EXPECT_NE(why.find("minibatch share of 1"), std::string::npos) << why;
}

TEST(PerformanceModelTest, TorusLinkBoundRotation) {
  PerformanceModel model(smallSystem());
  // Model parallelism: each chip computes 4 of the 16 output channels and the
  // input features rotate. A chip holds 1/4 of the input (16 x 64 x 8 / 4 =
  // 2048 elements = 4096 B) and passes it on fy * (fx - 1) = 2 times along X
  // and fy - 1 = 1 time along Y.
  std::optional<Evaluation> e =
      model.evaluate(convLayer(16, 16, 64, 1, 8), TrainingPass::FWD,
                     config(Parallelism::Model, kModelSplit, {1, 1, 1, 1, 2},
                            Dim::In, 8, Dim::IJ, 8));
  ASSERT_TRUE(e.has_value());
  const TransferGroup *rotate = group(*e, "rotate");
  ASSERT_NE(rotate, nullptr);
  EXPECT_TRUE(rotate->overlapped);
  EXPECT_DOUBLE_EQ(rotate->bytes[int(Link::TorusX)], 8192);
  EXPECT_DOUBLE_EQ(rotate->bytes[int(Link::TorusY)], 4096);
  EXPECT_DOUBLE_EQ(rotate->cycles, 819.2); // 8192 B at 10 GB/s
  EXPECT_EQ(rotate->bottleneck, Link::TorusX);
  // FWD rotation overlaps: the overlapped group is the slower of the memory
  // streams and the torus. The chip reads only its own slice of the input
  // from memory (2048 elements; the other 6144 arrive by rotation and are
  // written to memory once, 12288 B), the 64 kernel and 2048 output
  // elements: 8320 + 12288 = 20608 B / 16 GB/s = 1288 cycles.
  const TransferGroup *stream = group(*e, "fetch_inp+fetch_ker+write_out");
  ASSERT_NE(stream, nullptr);
  EXPECT_DOUBLE_EQ(stream->bytes[int(Link::MemoryBus)], (2048 + 64 + 2048) * 2);
  EXPECT_DOUBLE_EQ(rotate->bytes[int(Link::MemoryBus)], 12288);
  EXPECT_DOUBLE_EQ(e->ovldt, 1288);
  EXPECT_DOUBLE_EQ(e->cycles.nonOvldt, 0);
}

TEST(PerformanceModelTest, BackwardRotationIsNotOverlapped) {
  PerformanceModel model(smallSystem());
  std::optional<Evaluation> e =
      model.evaluate(convLayer(16, 16, 64, 1, 8), TrainingPass::BWD,
                     config(Parallelism::Model, kModelSplit, {1, 1, 1, 1, 2},
                            Dim::In, 8, Dim::IJ, 8));
  ASSERT_TRUE(e.has_value());
  const TransferGroup *rotate = group(*e, "rotate");
  ASSERT_NE(rotate, nullptr);
  EXPECT_FALSE(rotate->overlapped);
  // The partial errors of the input rotate; the rotated bytes also go
  // through memory (12288 B / 16 GB/s = 768 cycles), but X is slower.
  EXPECT_DOUBLE_EQ(rotate->cycles, 819.2);
  EXPECT_DOUBLE_EQ(e->cycles.nonOvldt, 819.2);
}

TEST(PerformanceModelTest, ABlockingTensorExchangeIsNotHiddenByTheCompute) {
  // TorusLinkBoundRotation's layer on a chip whose exchanges block (a
  // framework's collectives between kernels): the same rotation, in FWD
  // and UPD too, out of the overlapped group into NonOvldt.
  MultiChipSystem blocking = smallSystem();
  blocking.chip.megatronTensorParallel = true;
  const LayerShape layer = convLayer(16, 16, 64, 1, 8);
  const MappingConfig c = config(Parallelism::Model, kModelSplit,
                                 {1, 1, 1, 1, 2}, Dim::In, 8, Dim::IJ, 8);
  for (TrainingPass pass : {TrainingPass::FWD, TrainingPass::UPD}) {
    std::optional<Evaluation> hidden =
        PerformanceModel(smallSystem()).evaluate(layer, pass, c);
    std::optional<Evaluation> shown =
        PerformanceModel(blocking).evaluate(layer, pass, c);
    ASSERT_TRUE(hidden && shown);
    const TransferGroup *rotate = group(*shown, "rotate");
    ASSERT_NE(rotate, nullptr);
    EXPECT_FALSE(rotate->overlapped);
    EXPECT_EQ(rotate->cycles, group(*hidden, "rotate")->cycles);
    EXPECT_DOUBLE_EQ(shown->cycles.nonOvldt,
                     hidden->cycles.nonOvldt + rotate->cycles);
    EXPECT_GT(shown->cycles.total, hidden->cycles.total);
  }
}

TEST(PerformanceModelTest, OddSplitUnderusesTheArray) {
  // A scratchpad fast enough not to matter here (see ScratchpadBandwidth...).
  MultiChipSystem s = smallSystem();
  s.chip.core.scratchpad.bandwidthBytesPerSecond = 1e15;
  PerformanceModel model(s);
  LayerShape fc;
  fc.kind = OpKind::FullyConnected;
  fc.dims = {32, 12, 1, 1, 8};
  fc.params = 32 * 12;
  // 12 outputs on 8 rows take two chunks, the second a third full.
  std::optional<Evaluation> e =
      model.evaluate(fc, TrainingPass::FWD,
                     config(Parallelism::Data, kDataSplit, {1, 1, 1, 1, 2},
                            Dim::Out, 8, Dim::In, 8));
  ASSERT_TRUE(e.has_value());
  // Useful: 32 x 12 x 8 MACs / (8 cores x 64) = 6; PriComp: 2 x 4 chunks
  // + 16 startup = 24.
  EXPECT_DOUBLE_EQ(e->cycles.useful, 6);
  EXPECT_DOUBLE_EQ(e->cycles.underuse, 18);
}

TEST(PerformanceModelTest, ScratchpadBandwidthStarvesTheArray) {
  // DeepSpatialMatrix Fig. 13 "under-use due to data-flow": the PE array cannot
  // run faster than its scratchpad takes in its operands and hands out its
  // results.
  PerformanceModel model(smallSystem()); // 64 GB/s scratchpad = 64 B/cycle
  LayerShape fc;
  fc.kind = OpKind::FullyConnected;
  fc.dims = {32, 12, 1, 1, 8};
  fc.params = 32 * 12;
  MappingConfig c = config(Parallelism::Data, kDataSplit, {1, 1, 1, 1, 2},
                           Dim::Out, 8, Dim::In, 8);
  std::optional<Evaluation> e = model.evaluate(fc, TrainingPass::FWD, c);
  ASSERT_TRUE(e.has_value());
  // CoreD {32, 12, 1, 1, 1}: Input 32 + Kernel 384 + Output 12 = 428
  // elements = 856 B / 64 B per cycle = 13.375 cycles, more than the 8 of the
  // array: PriComp = 13.375 + 16 startup.
  EXPECT_DOUBLE_EQ(e->cycles.priComp(), 13.375 + 16);
  EXPECT_DOUBLE_EQ(e->cycles.underuse, 13.375 + 16 - 6);
  // Twice the bandwidth: the array's 8 cycles are the limit again.
  MultiChipSystem fast = smallSystem();
  fast.chip.core.scratchpad.bandwidthBytesPerSecond = 128e9;
  std::optional<Evaluation> f =
      PerformanceModel(fast).evaluate(fc, TrainingPass::FWD, c);
  ASSERT_TRUE(f.has_value());
  EXPECT_DOUBLE_EQ(f->cycles.priComp(), 8 + 16);
}

TEST(PerformanceModelTest, FusedPoolingStoresThePooledOutput) {
  PerformanceModel model(smallSystem());
  // The 1x1 convolution of ExternalMemoryBoundLayer followed by a 2x2
  // pooling: its 2048 output elements per chip are pooled in the scratchpad
  // and 512 written (DeepSpatialMatrix Fig. 13, CONV1_2); BWD reads the pooled
  // error.
  LayerShape layer = convLayer(16, 16, 64, 1, 8);
  layer.outputPixelRatio = 0.25;
  MappingConfig c = config(Parallelism::Data, kDataSplit, {1, 2, 1, 1, 1},
                           Dim::In, 8, Dim::IJ, 8);
  for (TrainingPass pass : {TrainingPass::FWD, TrainingPass::BWD}) {
    std::optional<Evaluation> e = model.evaluate(layer, pass, c);
    ASSERT_TRUE(e.has_value());
    const TransferGroup *stream = group(*e, "fetch_inp+fetch_ker+write_out");
    ASSERT_NE(stream, nullptr);
    // Input (or its error) 2048 + kernel 256 + output (or its error) 512.
    EXPECT_DOUBLE_EQ(stream->bytes[int(Link::MemoryBus)],
                     (2048 + 256 + 512) * 2);
  }
}

TEST(PerformanceModelTest, CoresSplittingAReductionAccumulatePartialSums) {
  PerformanceModel model(smallSystem());
  // Splitting the input channels (a reduction in FWD) over the 2 cores: each
  // core holds a partial Output of 16 x 64 x 2 elements = 4096 B; on a ring
  // half of it crosses each link, in both directions: 1024 B at 64 GB/s.
  std::optional<Evaluation> e =
      model.evaluate(convLayer(16, 16, 64, 9, 8), TrainingPass::FWD,
                     config(Parallelism::Data, kDataSplit, {2, 1, 1, 1, 1},
                            Dim::In, 8, Dim::IJ, 8));
  ASSERT_TRUE(e.has_value());
  const TransferGroup *sums = group(*e, "partial_sum_acc");
  ASSERT_NE(sums, nullptr);
  EXPECT_DOUBLE_EQ(sums->bytes[int(Link::OnChip)], 1024);
  EXPECT_DOUBLE_EQ(e->cycles.nonOvldt, 16);
}

TEST(PerformanceModelTest, DataParallelGradientsReduceAlongXThenY) {
  PerformanceModel model(smallSystem());
  // UPD of a data-parallel layer: each chip's 2304 gradients (4608 B) are
  // reduced and broadcast along X (2 x 1/2 x 4608 B) and, shrunk by the X
  // reduction, along Y (2 x 1/2 x 4608 / 2 B).
  std::optional<Evaluation> e =
      model.evaluate(convLayer(16, 16, 64, 9, 8), TrainingPass::UPD,
                     config(Parallelism::Data, kDataSplit, {1, 2, 1, 1, 1},
                            Dim::In, 8, Dim::Out, 8));
  ASSERT_TRUE(e.has_value());
  const TransferGroup *grads = group(*e, "grad_reduce+weight_broadcast");
  ASSERT_NE(grads, nullptr);
  EXPECT_DOUBLE_EQ(grads->bytes[int(Link::TorusX)], 4608);
  EXPECT_DOUBLE_EQ(grads->bytes[int(Link::TorusY)], 2304);
  // Pipelined with it, the weight update reads the gradients and the weights
  // and writes the weights: 3 x 4608 B on the memory bus at 16 GB/s = 864
  // cycles, slower than X (4608 B at 10 GB/s = 460.8): memory-bound
  // (DeepSpatialMatrix §V-B).
  EXPECT_DOUBLE_EQ(grads->bytes[int(Link::MemoryBus)], 3 * 4608);
  EXPECT_DOUBLE_EQ(grads->cycles, 864);
  EXPECT_EQ(grads->bottleneck, Link::MemoryBus);
  EXPECT_DOUBLE_EQ(e->cycles.nonOvldt, 864);
  // Model parallelism owns its weights: no reduction, only the update of
  // its quarter (576 weights, 1152 B): 3 x 1152 B / 16 GB/s = 216 cycles.
  std::optional<Evaluation> m =
      model.evaluate(convLayer(16, 16, 64, 9, 8), TrainingPass::UPD,
                     config(Parallelism::Model, kModelSplit, {2, 1, 1, 1, 1},
                            Dim::In, 8, Dim::Out, 4));
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(group(*m, "grad_reduce+weight_broadcast"), nullptr);
  const TransferGroup *update = group(*m, "weight_update");
  ASSERT_NE(update, nullptr);
  EXPECT_DOUBLE_EQ(update->bytes[int(Link::MemoryBus)], 3 * 1152);
  EXPECT_DOUBLE_EQ(update->bytes[int(Link::TorusX)], 0);
  EXPECT_DOUBLE_EQ(update->cycles, 216);
}

TEST(PerformanceModelTest, WeightGatherIsARingAllGatherAlongXThenY) {
  // A 4x2 torus. Sharded weights (ZeRO stage 3): each of the 8 chips keeps
  // 1/8 of the 2304 weights a data-parallel chip needs (4608 B, so 576 B a
  // shard) and gathers the rest before a pass reads them. Along X each chip
  // takes the 3 shards of its row it lacks (3 x 576 = 1728 B at 10 GB/s,
  // 172.8 cycles), then along Y the other row's half (2304 B at 8 GB/s,
  // 288 cycles).
  MultiChipSystem s = smallSystem();
  s.chips = 8;
  s.torus.x.size = 4;
  PerformanceModel model(s);
  LayerShape conv = convLayer(16, 16, 64, 9, 8);
  MappingConfig data = config(Parallelism::Data, {1, 1, 1, 1, 8},
                              {1, 2, 1, 1, 1}, Dim::In, 8, Dim::Out, 8);
  TransferGroup gather = model.weightGather(conv, data);
  EXPECT_DOUBLE_EQ(gather.bytes[int(Link::TorusX)], 1728);
  EXPECT_DOUBLE_EQ(gather.bytes[int(Link::TorusY)], 2304);
  EXPECT_DOUBLE_EQ(gather.bytes[int(Link::MemoryBus)], 0);
  EXPECT_DOUBLE_EQ(gather.cycles, 172.8 + 288);
  EXPECT_EQ(gather.bottleneck, Link::TorusY);
  // The all-reduce of the same gradients (a reduce-scatter and an
  // all-gather: what sharded state reuses at no extra cost) moves twice the
  // gather's bytes over the torus, so ZeRO-3's reduce-scatter plus a gather
  // in FWD and another in BWD is 1.5x the plain all-reduce.
  std::optional<Evaluation> upd = model.evaluate(conv, TrainingPass::UPD, data);
  ASSERT_TRUE(upd.has_value());
  const TransferGroup *reduce = group(*upd, "grad_reduce+weight_broadcast");
  ASSERT_NE(reduce, nullptr);
  EXPECT_DOUBLE_EQ(reduce->bytes[int(Link::TorusX)] +
                       reduce->bytes[int(Link::TorusY)],
                   2 * (1728 + 2304));
  // data_x_model_y: Y splits the weights (2304 B a chip), only X holds
  // copies: 3/4 of the share along X, nothing along Y.
  TransferGroup hybrid = model.weightGather(
      conv, config(Parallelism::DataXModelY, {1, 2, 1, 1, 4}, {1, 2, 1, 1, 1},
                   Dim::In, 8, Dim::Out, 4));
  EXPECT_DOUBLE_EQ(hybrid.bytes[int(Link::TorusX)], 1728);
  EXPECT_DOUBLE_EQ(hybrid.bytes[int(Link::TorusY)], 0);
  EXPECT_DOUBLE_EQ(hybrid.cycles, 172.8);
  // Model parallelism owns its weights: nothing to gather.
  TransferGroup model1 = model.weightGather(
      conv, config(Parallelism::Model, {1, 8, 1, 1, 1}, {2, 1, 1, 1, 1},
                   Dim::In, 8, Dim::Out, 2));
  EXPECT_DOUBLE_EQ(
      model1.bytes[int(Link::TorusX)] + model1.bytes[int(Link::TorusY)], 0);
  EXPECT_DOUBLE_EQ(model1.cycles, 0);
  // Nor does a layer without weights.
  LayerShape add = conv;
  add.params = 0;
  EXPECT_DOUBLE_EQ(model.weightGather(add, data).cycles, 0);
}

TEST(PerformanceModelTest, HybridsReduceAndRotateAlongOneDirectionEach) {
  PerformanceModel model(smallSystem());
  // data_x_model_y: the minibatch is split along X, the features along Y.
  std::optional<Evaluation> upd =
      model.evaluate(convLayer(16, 16, 64, 9, 8), TrainingPass::UPD,
                     config(Parallelism::DataXModelY, {1, 2, 1, 1, 2},
                            {1, 2, 1, 1, 1}, Dim::In, 8, Dim::Out, 4));
  ASSERT_TRUE(upd.has_value());
  const TransferGroup *grads = group(*upd, "grad_reduce+weight_broadcast");
  ASSERT_NE(grads, nullptr);
  EXPECT_GT(grads->bytes[int(Link::TorusX)], 0);
  EXPECT_EQ(grads->bytes[int(Link::TorusY)], 0);
  const TransferGroup *rotate = group(*upd, "rotate");
  ASSERT_NE(rotate, nullptr);
  EXPECT_EQ(rotate->bytes[int(Link::TorusX)], 0);
  EXPECT_GT(rotate->bytes[int(Link::TorusY)], 0);
}

TEST(PerformanceModelTest, AuxComputationsRunOnTheSpecialFunctionUnits) {
  PerformanceModel model(smallSystem());
  LayerShape layer = convLayer(16, 16, 64, 9, 8);
  layer.auxOps = 16 * 64 * 8 * 2; // bias and ReLU on every output
  std::optional<Evaluation> e =
      model.evaluate(layer, TrainingPass::FWD,
                     config(Parallelism::Data, kDataSplit, {1, 2, 1, 1, 1},
                            Dim::In, 8, Dim::IJ, 8));
  ASSERT_TRUE(e.has_value());
  // A core's share (1/8) at 4 ops per cycle.
  EXPECT_DOUBLE_EQ(e->cycles.auxComp, 16384.0 / 8 / 4);
  EXPECT_DOUBLE_EQ(e->cycles.total, 2320 + 512);
}

TEST(PerformanceModelTest, LstmStepsRunInSequenceButUpdatesOnce) {
  PerformanceModel model(smallSystem());
  LayerShape lstm;
  lstm.kind = OpKind::Lstm;
  lstm.dims = {16, 32, 1, 1, 8};
  lstm.timesteps = 10;
  lstm.params = 16 * 32;
  lstm.writtenOutputFraction = 0.25; // writes H of its 4H gates
  MappingConfig c = config(Parallelism::Data, kDataSplit, {1, 2, 1, 1, 1},
                           Dim::In, 8, Dim::Out, 8);
  std::optional<Evaluation> fwd = model.evaluate(lstm, TrainingPass::FWD, c);
  ASSERT_TRUE(fwd.has_value());
  // One step: CoreD {16, 16, 1, 1, 2}: 2 x 2 chunks x 2 samples = 8 array
  // cycles, but the scratchpad takes in 32 + 256 inputs and weights and
  // hands out 32 gates (640 B at 64 B per cycle = 10 cycles); + 16 startup.
  EXPECT_DOUBLE_EQ(fwd->cycles.priComp(), 10 * (10 + 16));
  // The weights are fetched again every step (no reuse in the baseline).
  const TransferGroup *stream = group(*fwd, "fetch_inp+fetch_ker+write_out");
  ASSERT_NE(stream, nullptr);
  EXPECT_DOUBLE_EQ(stream->bytes[int(Link::MemoryBus)],
                   10 * (16 * 2 + 16 * 32 + 32 * 2 * 0.25) * 2);
  // UPD sums over all steps at once: one pass with a 10x minibatch, one
  // gradient reduction.
  c.array.colDim = Dim::Out;
  std::optional<Evaluation> upd = model.evaluate(lstm, TrainingPass::UPD, c);
  ASSERT_TRUE(upd.has_value());
  EXPECT_EQ(model.passDims(lstm, TrainingPass::UPD)[int(Dim::MB)], 80);
  const TransferGroup *grads = group(*upd, "grad_reduce+weight_broadcast");
  ASSERT_NE(grads, nullptr);
  EXPECT_DOUBLE_EQ(grads->bytes[int(Link::TorusX)], 16 * 32 * 2);
}

TEST(PerformanceModelTest, LstmWeightsKeptAcrossTimesteps) {
  // DeepSpatialMatrix §III-B2: "when the weights are fetched in the first
  // timestep, we hold them on-chip and reuse them across all timesteps".
  PerformanceModel model(smallSystem());
  LayerShape lstm;
  lstm.kind = OpKind::Lstm;
  lstm.dims = {16, 32, 1, 1, 8};
  lstm.timesteps = 10;
  lstm.params = 16 * 32;
  lstm.writtenOutputFraction = 0.25;
  MappingConfig c = config(Parallelism::Data, kDataSplit, {1, 2, 1, 1, 1},
                           Dim::In, 8, Dim::Out, 8);
  std::optional<Evaluation> base = model.evaluate(lstm, TrainingPass::FWD, c);
  c.memory.weightsAcrossSteps = true;
  std::optional<Evaluation> reuse = model.evaluate(lstm, TrainingPass::FWD, c);
  ASSERT_TRUE(base && reuse);
  // The 512 weights are fetched once instead of 10 times; inputs and outputs
  // as before.
  const TransferGroup *stream = group(*reuse, "fetch_inp+fetch_ker+write_out");
  ASSERT_NE(stream, nullptr);
  EXPECT_DOUBLE_EQ(stream->bytes[int(Link::MemoryBus)],
                   (10 * (16 * 2 + 32 * 2 * 0.25) + 16 * 32) * 2);
  // Nor do they come through the scratchpad's port every step: per step
  // (32 + 256 / 10 + 32) x 2 B / 64 B per cycle = 2.8 cycles, under the 8
  // of the array (10 without reuse: LstmStepsRunInSequenceButUpdatesOnce).
  EXPECT_DOUBLE_EQ(reuse->cycles.priComp(), 10 * (8 + 16));
  // The cores keep their 16 x 16 weights (512 B) on top of the working set.
  EXPECT_DOUBLE_EQ(reuse->scratchpadBytes - base->scratchpadBytes, 16 * 16 * 2);
  // Not legal where there is nothing to reuse across steps.
  std::string why;
  EXPECT_FALSE(model.evaluate(lstm, TrainingPass::UPD, c, &why));
  EXPECT_NE(why.find("timesteps"), std::string::npos);
  EXPECT_FALSE(
      model.evaluate(convLayer(16, 16, 64, 9, 8), TrainingPass::FWD, c));
  // Nor when the weights do not fit beside the working set.
  MultiChipSystem tiny = smallSystem();
  tiny.chip.core.scratchpad.capacityBytes = base->scratchpadBytes + 100;
  EXPECT_TRUE(PerformanceModel(tiny).evaluate(lstm, TrainingPass::FWD, c) ==
              std::nullopt);
}

TEST(PerformanceModelTest, PreloadedWeightsAreNotFetched) {
  // DeepSpatialMatrix §III-B2, weight preloading for inference: weights held in
  // the scratchpads from before the job are not fetched from external memory.
  PerformanceModel model(smallSystem());
  LayerShape fc;
  fc.kind = OpKind::FullyConnected;
  fc.dims = {64, 32, 1, 1, 4};
  fc.params = 64 * 32;
  // Data parallel: one sample per chip; the 2 cores split the outputs, so
  // each works with 64 x 16 weights (2048 B).
  MappingConfig c = config(Parallelism::Data, kDataSplit, {1, 2, 1, 1, 1},
                           Dim::In, 8, Dim::Out, 8);
  EXPECT_EQ(model.weightBytesPerCore(fc, TrainingPass::FWD, c), 2048);
  auto memoryBytes = [&](int64_t preloaded) {
    c.memory.preloadedWeightBytes = preloaded;
    std::optional<Evaluation> e = model.evaluate(fc, TrainingPass::FWD, c);
    EXPECT_TRUE(e.has_value());
    const TransferGroup *stream = group(*e, "fetch_inp+fetch_ker+write_out");
    return stream ? stream->bytes[int(Link::MemoryBus)] : -1.0;
  };
  // Input 64 + Kernel 2048 + Output 32 elements x 2 B; half the weights
  // preloaded halve their fetch; all of them, none is fetched.
  EXPECT_DOUBLE_EQ(memoryBytes(0), (64 + 2048 + 32) * 2);
  EXPECT_DOUBLE_EQ(memoryBytes(1024), (64 + 1024 + 32) * 2);
  EXPECT_DOUBLE_EQ(memoryBytes(2048), (64 + 32) * 2);
  // Wholly preloaded weights live in the reserved space, not in the
  // working set: they are the stationary data, and double-buffered blocks
  // of the Input and the Output (8 elements each, a chunk of the array)
  // remain.
  c.memory.preloadedWeightBytes = 0;
  double streamed = model.evaluate(fc, TrainingPass::FWD, c)->scratchpadBytes;
  c.memory.preloadedWeightBytes = 2048;
  double resident = model.evaluate(fc, TrainingPass::FWD, c)->scratchpadBytes;
  EXPECT_LT(resident, streamed);
  EXPECT_DOUBLE_EQ(resident, (2 * 8 + 2 * 8) * 2);
  // More than the core's share, or outside an inference FWD, is illegal.
  std::string why;
  c.memory.preloadedWeightBytes = 2049;
  EXPECT_FALSE(model.evaluate(fc, TrainingPass::FWD, c, &why));
  EXPECT_NE(why.find("exceeds the core's share"), std::string::npos) << why;
  c.memory.preloadedWeightBytes = 1024;
  EXPECT_FALSE(model.evaluate(fc, TrainingPass::BWD, c, &why));
  EXPECT_NE(why.find("preloaded only for the FWD"), std::string::npos) << why;
}

TEST(PerformanceModelTest, RelayoutSwitchingParallelism) {
  PerformanceModel model(smallSystem());
  // 8192 elements, 4096 B per chip. Data -> model changes both directions:
  // an all-to-all in each row and column of 2 chips, each chip sending half
  // its block (2048 B) per direction, with the block read and written in each
  // phase (4096 B at 16 GB/s = 256 cycles -- memory is the bottleneck).
  TransferGroup g = model.relayout(8192, Parallelism::Data, Parallelism::Model);
  EXPECT_DOUBLE_EQ(g.bytes[int(Link::TorusX)], 2048);
  EXPECT_DOUBLE_EQ(g.bytes[int(Link::TorusY)], 2048);
  EXPECT_DOUBLE_EQ(g.cycles, 2 * 256);
  // data -> data_x_model_y changes only the Y role.
  TransferGroup y =
      model.relayout(8192, Parallelism::Data, Parallelism::DataXModelY);
  EXPECT_DOUBLE_EQ(y.bytes[int(Link::TorusX)], 0);
  EXPECT_DOUBLE_EQ(y.cycles, 256);
  EXPECT_DOUBLE_EQ(
      model.relayout(8192, Parallelism::Model, Parallelism::Model).cycles, 0);
}

TEST(PerformanceModelTest, ASwitchExchangesAndReducesByItsOwnAlgorithms) {
  // The small system's chips, 4 on a switch along X (10 GB/s a port each
  // way, 2 us a step) and a single row.
  MultiChipSystem s = smallSystem();
  s.torus.x = {4, NetworkTopology::Switch, /*bandwidth=*/10e9,
               /*latency=*/2e-6};
  s.torus.y = {};
  PerformanceModel model(s);
  // All-to-all of a 4096 B block a chip: 3/4 of it leaves each chip through
  // its port (3072 B at 10 GB/s = 307.2 cycles) in 3 steps of 2000 cycles;
  // a torus of the same ports would carry floor(16/4)/4 of it both ways.
  TransferGroup g = model.relayout(8192, Parallelism::Data, Parallelism::Model);
  EXPECT_DOUBLE_EQ(g.bytes[int(Link::TorusX)], 3072);
  EXPECT_DOUBLE_EQ(g.steps[int(Link::TorusX)], 3);
  EXPECT_DOUBLE_EQ(g.cycles, 307.2 + 3 * 2000);
  EXPECT_EQ(g.bottleneck, Link::TorusX);
  // A data-parallel UPD all-reduces its 4608 B of gradients over the 4
  // chips: 2 x 3/4 x 4608 B at 10 GB/s in 2 x 3 steps, 691.2 + 12000 cycles,
  // slower than the weight update's 3 x 4608 B on the memory bus (864).
  std::optional<Evaluation> e =
      model.evaluate(convLayer(16, 16, 64, 9, 8), TrainingPass::UPD,
                     config(Parallelism::Data, kDataSplit, {1, 2, 1, 1, 1},
                            Dim::In, 8, Dim::Out, 8));
  ASSERT_TRUE(e.has_value());
  const TransferGroup *grads = group(*e, "grad_reduce+weight_broadcast");
  ASSERT_NE(grads, nullptr);
  EXPECT_DOUBLE_EQ(grads->bytes[int(Link::TorusX)], 6912);
  EXPECT_DOUBLE_EQ(grads->steps[int(Link::TorusX)], 6);
  EXPECT_DOUBLE_EQ(grads->cycles, 691.2 + 12000);
  EXPECT_EQ(grads->bottleneck, Link::TorusX);
}

TEST(PerformanceModelTest, WorkingSetMustFitTheScratchpad) {
  MultiChipSystem s = smallSystem();
  s.chip.core.scratchpad.capacityBytes = 1024;
  PerformanceModel model(s);
  std::string why;
  std::optional<Evaluation> e =
      model.evaluate(convLayer(16, 16, 64, 9, 8), TrainingPass::FWD,
                     config(Parallelism::Data, kDataSplit, {1, 2, 1, 1, 1},
                            Dim::In, 8, Dim::IJ, 8),
                     &why);
  EXPECT_FALSE(e.has_value());
  EXPECT_NE(why.find("exceeds the scratchpad (1024)"), std::string::npos)
      << why;
}

TEST(PerformanceModelTest,
     ALibraryTiledChipWorksInChunksWhatItsScratchpadCannotHold) {
  const LayerShape layer = convLayer(16, 16, 64, 9, 8);
  const MappingConfig c = config(Parallelism::Data, kDataSplit, {1, 2, 1, 1, 1},
                                 Dim::In, 8, Dim::IJ, 8);
  MultiChipSystem roomy = smallSystem();
  std::optional<Evaluation> whole =
      PerformanceModel(roomy).evaluate(layer, TrainingPass::FWD, c);
  ASSERT_TRUE(whole.has_value());
  // Tiled by the library, a scratchpad that holds everything changes
  // nothing.
  MultiChipSystem library = roomy;
  library.chip.libraryTiling = true;
  std::optional<Evaluation> same =
      PerformanceModel(library).evaluate(layer, TrainingPass::FWD, c);
  ASSERT_TRUE(same.has_value());
  EXPECT_EQ(same->cycles.total, whole->cycles.total);
  // The working set is 4608 B, 2048 of them the stationary operand. With a
  // scratchpad of 4 KiB the DeepSpatialMatrix chip refuses; the library
  // works the stationary operand in 2 chunks of 1024 B beside the other
  // 2560 B, with 3 KiB in 4 chunks of 512 B, each chunk but the first
  // streaming the other input again -- never faster than with room.
  ASSERT_EQ(whole->scratchpadBytes, 4608);
  auto withScratchpad = [&](double bytes, bool byLibrary, std::string *why) {
    MultiChipSystem s = roomy;
    s.chip.core.scratchpad.capacityBytes = bytes;
    s.chip.libraryTiling = byLibrary;
    return PerformanceModel(s).evaluate(layer, TrainingPass::FWD, c, why);
  };
  EXPECT_FALSE(withScratchpad(4096, false, nullptr));
  std::optional<Evaluation> two = withScratchpad(4096, true, nullptr);
  std::optional<Evaluation> four = withScratchpad(3072, true, nullptr);
  ASSERT_TRUE(two && four);
  EXPECT_EQ(two->scratchpadBytes, 2560 + 2048 / 2);
  EXPECT_EQ(four->scratchpadBytes, 2560 + 2048 / 4);
  const double restream = two->ovldt - whole->ovldt;
  EXPECT_GT(restream, 0);
  EXPECT_DOUBLE_EQ(four->ovldt - whole->ovldt, 3 * restream);
  EXPECT_GE(two->cycles.total, whole->cycles.total);
  EXPECT_EQ(two->cycles.useful, whole->cycles.useful);
  // A scratchpad the rest of the working set fills leaves no room for a
  // chunk.
  std::string why;
  EXPECT_FALSE(withScratchpad(2560, true, &why));
  EXPECT_NE(why.find("exceeds the scratchpad (2560)"), std::string::npos)
      << why;
}

TEST(PerformanceModelTest, IllegalSplitsAreRejectedWithAReason) {
  PerformanceModel model(smallSystem());
  LayerShape layer = convLayer(16, 16, 64, 9, 8);
  std::string why;
  auto check = [&](MappingConfig c) {
    why.clear();
    EXPECT_FALSE(model.evaluate(layer, TrainingPass::FWD, c, &why).has_value());
    return why;
  };
  EXPECT_NE(check(config(Parallelism::Data, {1, 1, 1, 1, 2}, {1, 2, 1, 1, 1},
                         Dim::In, 8, Dim::IJ, 8))
                .find("chip split's product 2 is not the chip count 4"),
            std::string::npos);
  EXPECT_NE(check(config(Parallelism::Data, kDataSplit, {1, 1, 1, 1, 1},
                         Dim::In, 8, Dim::IJ, 8))
                .find("core split's product 1 is not the core count 2"),
            std::string::npos);
  EXPECT_NE(check(config(Parallelism::Data, kModelSplit, {1, 2, 1, 1, 1},
                         Dim::In, 8, Dim::IJ, 8))
                .find("not the one of data parallelism"),
            std::string::npos);
  layer.dims[int(Dim::KIJ)] = 1;
  EXPECT_NE(check(config(Parallelism::Data, kDataSplit, {1, 1, 1, 2, 1},
                         Dim::In, 8, Dim::IJ, 8))
                .find("the core split cuts 'kij' into 2 but a chip has only 1"),
            std::string::npos);
  EXPECT_NE(check(config(Parallelism::Data, kDataSplit, {1, 2, 1, 1, 1},
                         Dim::In, 16, Dim::IJ, 8))
                .find("row tile 16 exceeds the array (8)"),
            std::string::npos);
  EXPECT_NE(check(config(Parallelism::Data, kDataSplit, {1, 2, 1, 1, 1},
                         Dim::In, 8, Dim::In, 8))
                .find("same dimension"),
            std::string::npos);
  // Minibatch 2 cannot be split over 4 chips.
  layer.dims[int(Dim::MB)] = 2;
  EXPECT_FALSE(
      model.chipSplit(layer, TrainingPass::FWD, Parallelism::Data, &why));
  EXPECT_NE(why.find("splits 'mb' 4 ways but it has only 2"), std::string::npos)
      << why;
}

TEST(PerformanceModelTest, ParallelismsNeedTheirTorus) {
  MultiChipSystem one = smallSystem();
  one.chips = 1;
  one.torus = {};
  PerformanceModel single(one);
  EXPECT_TRUE(single.isAvailable(Parallelism::Data));
  EXPECT_FALSE(single.isAvailable(Parallelism::Model));
  EXPECT_FALSE(single.isAvailable(Parallelism::DataXModelY));
  MultiChipSystem row = smallSystem();
  row.torus = {};
  row.torus.x = {4, NetworkTopology::Torus, /*bandwidth=*/5e9};
  PerformanceModel line(row);
  EXPECT_TRUE(line.isAvailable(Parallelism::Model));
  EXPECT_FALSE(line.isAvailable(Parallelism::ModelXDataY));
}

} // namespace

TEST(PerformanceModelTest, AChipBelowItsPeakTakesLongerOnItsArrayOnly) {
  // A chip whose matrix products reach half its peak (CoreSpec::
  // matrixEfficiency) spends twice the array cycles, startup aside, and
  // does the same useful work; its transfers and AuxComp are the chip's.
  const LayerShape layer = convLayer(16, 16, 64, 9, 8);
  const MappingConfig c = config(Parallelism::Data, kDataSplit, {1, 2, 1, 1, 1},
                                 Dim::In, 8, Dim::IJ, 8);
  MultiChipSystem half = smallSystem();
  half.chip.core.matrixEfficiency = 0.5;
  const SplitCycles peak =
      PerformanceModel(smallSystem()).splitCycles(layer, TrainingPass::FWD, c);
  const SplitCycles slow =
      PerformanceModel(half).splitCycles(layer, TrainingPass::FWD, c);
  ASSERT_GT(peak.primaryCycles(c.array), peak.feedCycles);
  const double startup = peak.steps * peak.startupCycles;
  EXPECT_DOUBLE_EQ(slow.primaryCycles(c.array) - startup,
                   2 * (peak.primaryCycles(c.array) - startup));
  EXPECT_EQ(slow.ovldt, peak.ovldt);
  EXPECT_EQ(slow.auxComp, peak.auxComp);
  // The search's bounds stay bounds.
  EXPECT_LE(slow.lowerBound(), slow.totalCycles(c.array));
  EXPECT_LE(slow.computeBound(), slow.totalCycles(c.array));
  std::optional<Evaluation> e =
      PerformanceModel(half).evaluate(layer, TrainingPass::FWD, c);
  std::optional<Evaluation> f =
      PerformanceModel(smallSystem()).evaluate(layer, TrainingPass::FWD, c);
  ASSERT_TRUE(e && f);
  EXPECT_EQ(e->cycles.useful, f->cycles.useful);
  EXPECT_GT(e->cycles.underuse, f->cycles.underuse);
}

TEST(PerformanceModelTest, ElementwiseKernelsStreamTheirTensorsThroughMemory) {
  // The layer's auxiliary kernels read 2 MB and write 1 MB of fp16 in FWD
  // (1M and 0.5M elements), with a 0.25 MB dropout tensor and its mask.
  LayerShape layer = convLayer(16, 16, 64, 9, 8);
  layer.auxKernels = {1 << 20, 1 << 19, 1 << 18, 1 << 18};
  const MappingConfig c = config(Parallelism::Data, kDataSplit, {1, 2, 1, 1, 1},
                                 Dim::In, 8, Dim::IJ, 8);
  // Fused (DeepSpatialMatrix): AuxComp is the special-function time alone.
  const SplitCycles fused =
      PerformanceModel(smallSystem()).splitCycles(layer, TrainingPass::FWD, c);
  MultiChipSystem kernels = smallSystem();
  kernels.chip.elementwiseKernels = true;
  PerformanceModel model(kernels);
  // As kernels each chip streams its quarter of the minibatch's bytes at
  // 16 GB/s: FWD (1M + 0.5M + 2 x 0.25M) x 2 B + 0.25 MB, BWD (1M + 2 x
  // 0.5M + 2 x 0.25M) x 2 B + 0.25 MB; UPD runs none.
  const double mb = 1 << 20;
  const double fwdBytes = (mb + mb / 2 + mb / 2) * 2 + mb / 4;
  const double bwdBytes = (mb + mb + mb / 2) * 2 + mb / 4;
  EXPECT_DOUBLE_EQ(layer.auxKernels.bytes(TrainingPass::FWD, 2), fwdBytes);
  EXPECT_DOUBLE_EQ(layer.auxKernels.bytes(TrainingPass::BWD, 2), bwdBytes);
  EXPECT_EQ(layer.auxKernels.bytes(TrainingPass::UPD, 2), 0);
  const double perCycle = 16e9 / 1e9;
  EXPECT_DOUBLE_EQ(model.splitCycles(layer, TrainingPass::FWD, c).auxComp,
                   fwdBytes / 4 / perCycle);
  EXPECT_DOUBLE_EQ(model.splitCycles(layer, TrainingPass::BWD, c).auxComp,
                   bwdBytes / 4 / perCycle);
  EXPECT_GT(model.splitCycles(layer, TrainingPass::FWD, c).auxComp,
            fused.auxComp);
  EXPECT_EQ(model.splitCycles(layer, TrainingPass::UPD, c).auxComp,
            PerformanceModel(smallSystem())
                .splitCycles(layer, TrainingPass::UPD, c)
                .auxComp);
}

TEST(PerformanceModelTest, MegatronChipsReduceADownProjectionsOutputs) {
  // A linear layer from 64 features down to 16 (ij 8, minibatch 8) under
  // model parallelism over the 2 x 2 chips. DeepSpatialMatrix's chip splits
  // the output features and rotates the input under the compute; a chip
  // whose tensor parallelism is Megatron-LM's splits the wider input
  // features (row-parallel) and reduce-scatters its partial sums of the
  // whole output, then all-gathers the output's error in BWD -- both
  // blocking, along X then along Y on what X left.
  LayerShape down;
  down.kind = OpKind::FullyConnected;
  down.dims = {64, 16, 8, 1, 8};
  down.params = 64 * 16;
  LayerShape up = down;
  up.dims = {16, 64, 8, 1, 8};
  MultiChipSystem megatron = smallSystem();
  megatron.chip.megatronTensorParallel = true;
  PerformanceModel rotating(smallSystem()), reducing(megatron);
  EXPECT_FALSE(rotating.isRowParallel(down));
  EXPECT_TRUE(reducing.isRowParallel(down));
  EXPECT_FALSE(reducing.isRowParallel(up));
  EXPECT_EQ(*rotating.chipSplit(down, TrainingPass::FWD, Parallelism::Model),
            (DimSizes{1, 4, 1, 1, 1}));
  EXPECT_EQ(*reducing.chipSplit(down, TrainingPass::FWD, Parallelism::Model),
            (DimSizes{4, 1, 1, 1, 1}));

  const MappingConfig rows = config(Parallelism::Model, {4, 1, 1, 1, 1},
                                    {1, 1, 1, 1, 2}, Dim::In, 8, Dim::Out, 8);
  const double whole = 16.0 * 8 * 8 * 2; // a chip's partial output, bytes
  for (TrainingPass pass : {TrainingPass::FWD, TrainingPass::BWD}) {
    std::string why;
    std::optional<Evaluation> e = reducing.evaluate(down, pass, rows, &why);
    ASSERT_TRUE(e.has_value()) << why;
    EXPECT_EQ(group(*e, "rotate"), nullptr);
    const TransferGroup *reduce = group(*e, "reduce_outputs");
    ASSERT_NE(reduce, nullptr);
    EXPECT_FALSE(reduce->overlapped);
    const Collective collective = pass == TrainingPass::FWD
                                      ? Collective::ReduceScatter
                                      : Collective::AllGather;
    const CollectiveCost x =
        collectiveCost(collective, whole, megatron.torus.x, 2);
    const CollectiveCost y =
        collectiveCost(collective, whole / 2, megatron.torus.y, 2);
    EXPECT_DOUBLE_EQ(reduce->bytes[int(Link::TorusX)], x.bytes);
    EXPECT_DOUBLE_EQ(reduce->bytes[int(Link::TorusY)], y.bytes);
    EXPECT_GT(x.bytes, 0);
    EXPECT_DOUBLE_EQ(reduce->bytes[int(Link::MemoryBus)], x.bytes + y.bytes);
    EXPECT_GE(e->cycles.nonOvldt, reduce->cycles);
  }
  // UPD reads the error BWD gathered: no exchange.
  std::optional<Evaluation> upd =
      reducing.evaluate(down, TrainingPass::UPD, rows);
  ASSERT_TRUE(upd.has_value());
  EXPECT_EQ(group(*upd, "reduce_outputs"), nullptr);
  // The up projection stays column-parallel, its rotation blocking.
  std::optional<Evaluation> column =
      reducing.evaluate(up, TrainingPass::FWD,
                        config(Parallelism::Model, {1, 4, 1, 1, 1},
                               {1, 1, 1, 1, 2}, Dim::In, 8, Dim::Out, 8));
  ASSERT_TRUE(column.has_value());
  ASSERT_NE(group(*column, "rotate"), nullptr);
  EXPECT_FALSE(group(*column, "rotate")->overlapped);
}

TEST(PerformanceModelTest, GradientsReduceAlongEveryRailAtOnce) {
  // One chip per column and 4 rows on a switch of 10 GB/s ports whose chips
  // sit 2 to a node, each on its own rail, the nodes' links carrying 40
  // GB/s: the gradients' all-reduce runs a ring per rail, so each chip's
  // port carries half of what it would alone (NCCL's channels).
  MultiChipSystem s = smallSystem();
  s.torus.x = {1, NetworkTopology::Switch, /*bandwidth=*/0};
  s.torus.y = {4, NetworkTopology::Switch, /*bandwidth=*/10e9};
  const LayerShape layer = convLayer(16, 16, 64, 9, 8);
  const MappingConfig c = config(Parallelism::Data, kDataSplit, {1, 2, 1, 1, 1},
                                 Dim::In, 8, Dim::Out, 8);
  std::optional<Evaluation> alone =
      PerformanceModel(s).evaluate(layer, TrainingPass::UPD, c);
  s.torus.y.rails = 2;
  s.torus.y.railNodeBandwidth = 40e9;
  std::optional<Evaluation> railed =
      PerformanceModel(s).evaluate(layer, TrainingPass::UPD, c);
  ASSERT_TRUE(alone && railed);
  const TransferGroup *a = group(*alone, "grad_reduce+weight_broadcast");
  const TransferGroup *r = group(*railed, "grad_reduce+weight_broadcast");
  ASSERT_TRUE(a && r);
  // 2 x 3/4 x 4608 B alone; half of it on each chip's rail.
  EXPECT_DOUBLE_EQ(a->bytes[int(Link::TorusY)], 6912);
  EXPECT_DOUBLE_EQ(r->bytes[int(Link::TorusY)], 6912 / 2);
  EXPECT_EQ(r->steps[int(Link::TorusY)], a->steps[int(Link::TorusY)]);
  // Rails the node's links cannot carry add nothing: 4 rails of 10 GB/s
  // over 20 GB/s of node links go twice as fast, not four times.
  s.torus.y.rails = 4;
  s.torus.y.railNodeBandwidth = 20e9;
  EXPECT_DOUBLE_EQ(s.torus.y.railSpeedup(), 2);
}

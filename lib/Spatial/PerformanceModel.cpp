//===- PerformanceModel.cpp - The bandwidth-centric model -----------------===//
//
// Formulas and assumptions: docs/performance-model.md. Quantities are per chip
// (all chips do the same work at the same time) and per core where noted.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Spatial/PerformanceModel.h"
#include "dsm/Core/Spatial/MappingReport.h"
#include "dsm/Core/System/Collectives.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace dsm::core;

namespace {
/// Formats a short reason for an illegal configuration.
template <typename... Args> std::string reason(const Args &...args) {
  std::string text;
  llvm::raw_string_ostream os(text);
  (os << ... << args);
  return text;
}

/// Rejects a configuration: false, with the reason in `*whyNot` if the
/// caller asked for one. Searches reject many candidates they never
/// explain, so the reason is only formatted on request.
template <typename... Args>
bool reject(std::string *whyNot, const Args &...args) {
  if (whyNot)
    *whyNot = reason(args...);
  return false;
}
} // namespace

PerformanceModel::PerformanceModel(const MultiChipSystem &system)
    : system(system), rows(system.chip.core.peRows),
      columns(system.chip.core.peColumns * system.chip.core.simdWidth()),
      elementBytes(double(core::bytesPerElement(system.chip.core.precision))) {}

bool PerformanceModel::isAvailable(Parallelism p) const {
  switch (p) {
  case Parallelism::Data:
    return true;
  case Parallelism::Model:
    return system.chips > 1;
  case Parallelism::DataXModelY:
  case Parallelism::ModelXDataY:
    return system.torus.x.size > 1 && system.torus.y.size > 1;
  }
  return false;
}

DimSizes PerformanceModel::passDims(const LayerShape &layer,
                                    TrainingPass pass) const {
  DimSizes dims = layer.dims;
  if (pass == TrainingPass::UPD && layer.timesteps > 1)
    dims[int(Dim::MB)] *= layer.timesteps;
  return dims;
}

Dim PerformanceModel::spatialMinibatchDim(const LayerShape &layer,
                                          TrainingPass pass,
                                          const DimSizes &chipSplit) const {
  DimSizes dims = passDims(layer, pass);
  bool oneSample = splitSizes(dims, chipSplit)[int(Dim::MB)] == 1;
  if (oneSample && layer.hasPrimary && dims[int(Dim::KIJ)] == 1 &&
      dims[int(Dim::IJ)] > 1)
    return Dim::IJ;
  return Dim::MB;
}

DimSizes PerformanceModel::spatialPassDims(const LayerShape &layer,
                                           TrainingPass pass,
                                           const MemoryDecision &memory,
                                           const DimSizes &chipSplit) const {
  DimSizes dims = passDims(layer, pass);
  if (memory.spatialMinibatches > 1) {
    int d = int(spatialMinibatchDim(layer, pass, chipSplit));
    dims[d] = llvm::divideCeil(dims[d], memory.spatialMinibatches);
  }
  return dims;
}

std::optional<DimSizes> PerformanceModel::chipSplit(const LayerShape &layer,
                                                    TrainingPass pass,
                                                    Parallelism p,
                                                    std::string *whyNot) const {
  if (!isAvailable(p)) {
    reject(whyNot, stringifyParallelism(p), " parallelism needs ",
           p == Parallelism::Model ? "more than one chip"
                                   : "a torus of at least 2x2 chips");
    return std::nullopt;
  }
  int64_t x = system.torus.x.size, y = system.torus.y.size;
  DimSizes split = {1, 1, 1, 1, 1};
  // The features the model-parallel chips split: a row-parallel layer's
  // input features, any other's output features.
  const int features = int(isRowParallel(layer) ? Dim::In : Dim::Out);
  switch (p) {
  case Parallelism::Data:
    split[int(Dim::MB)] = x * y;
    break;
  case Parallelism::Model:
    split[features] = x * y;
    break;
  case Parallelism::DataXModelY:
    split[int(Dim::MB)] = x;
    split[features] = y;
    break;
  case Parallelism::ModelXDataY:
    split[features] = x;
    split[int(Dim::MB)] = y;
    break;
  }
  DimSizes dims = passDims(layer, pass);
  for (int d = 0; d < kNumDims; ++d) {
    if (split[d] > dims[d]) {
      reject(whyNot, stringifyParallelism(p), " parallelism splits '",
             stringifyDim(Dim(d)), "' ", split[d], " ways but it has only ",
             dims[d]);
      return std::nullopt;
    }
  }
  return split;
}

bool PerformanceModel::isRowParallel(const LayerShape &layer) const {
  return system.chip.megatronTensorParallel &&
         layer.kind == OpKind::FullyConnected && layer.hasWeights &&
         layer.get(Dim::In) >= layer.get(Dim::Out);
}

double PerformanceModel::linkCycles(double bytes, Link link) const {
  if (bytes <= 0)
    return 0;
  double bandwidth = 0;
  switch (link) {
  case Link::MemoryBus:
    bandwidth = system.chip.externalMemory.effectiveBandwidth();
    break;
  case Link::OnChip:
    bandwidth = system.chip.coreToCoreBandwidth;
    break;
  case Link::TorusX:
    bandwidth = system.torus.x.ringBandwidth();
    break;
  case Link::TorusY:
    bandwidth = system.torus.y.ringBandwidth();
    break;
  case Link::Host:
    bandwidth = system.chip.hostLink
                    ? system.chip.hostLink->bandwidthBytesPerSecond
                    : 0;
    break;
  }
  if (bandwidth <= 0)
    return std::numeric_limits<double>::infinity();
  return bytes / bandwidth * frequency();
}

double PerformanceModel::latencyCycles(double steps, Link link) const {
  if (steps <= 0)
    return 0;
  double latency = link == Link::TorusX   ? system.torus.x.latency
                   : link == Link::TorusY ? system.torus.y.latency
                                          : 0;
  return steps * latency * frequency();
}

void dsm::core::timeGroup(const PerformanceModel &model, TransferGroup &group) {
  group.cycles = 0;
  for (int l = 0; l < kNumLinks; ++l) {
    double cycles = model.linkCycles(group.bytes[l], Link(l)) +
                    model.latencyCycles(group.steps[l], Link(l));
    if (cycles > group.cycles) {
      group.cycles = cycles;
      group.bottleneck = Link(l);
    }
  }
}

TransferGroup PerformanceModel::relayout(double elements, Parallelism from,
                                         Parallelism to) const {
  TransferGroup group;
  group.name = "relayout";
  if (from == to || system.chips == 1)
    return group;
  int64_t x = system.torus.x.size, y = system.torus.y.size;
  double block = elements * elementBytes / double(system.chips);
  bool ring = system.chip.interconnect == ChipInterconnect::Ring;
  // All-to-all within each row (X) or column (Y) whose role changes, by the
  // dimension's topology (Collectives.h): on a torus of k chips every chip
  // sends block/k to each of the others the shortest way round, floor(k^2/4)
  // hop-blocks per chip, i.e. block * floor(k^2/4) / k bytes out of each
  // chip; on a switch (k-1)/k of the block.
  double phases = 0;
  auto phase = [&](const NetworkDimension &dimension, Link link) {
    TransferGroup part;
    CollectiveCost exchange =
        collectiveCost(Collective::AllToAll, block, dimension, dimension.size);
    part.bytes[int(link)] = exchange.bytes;
    part.steps[int(link)] = exchange.steps;
    part.bytes[int(Link::MemoryBus)] =
        block; // read out, written back (half each phase)
    part.bytes[int(Link::OnChip)] = ring ? block / 2 : block;
    timeGroup(*this, part);
    for (int l = 0; l < kNumLinks; ++l) {
      group.bytes[l] += part.bytes[l];
      group.steps[l] += part.steps[l];
    }
    if (part.cycles > phases / 2)
      group.bottleneck = part.bottleneck;
    phases += part.cycles;
  };
  if (x > 1 && roleAlongX(from) != roleAlongX(to))
    phase(system.torus.x, Link::TorusX);
  if (y > 1 && roleAlongY(from) != roleAlongY(to))
    phase(system.torus.y, Link::TorusY);
  group.cycles = phases;
  return group;
}

namespace {
/// The terms of DeepSpatialMatrix's model for one legal configuration of one
/// layer and pass. Sizes are elements per chip (ChipD) or per core (CoreD) and
/// per step; the caller multiplies by the steps. Transfer groups come unnamed:
/// evaluate() names those it records (a name is an allocation, and a search
/// costs many splits).
class PassCost {
public:
  PassCost(const PerformanceModel &model, const LayerShape &layer,
           TrainingPass pass, const MappingConfig &config, const DimSizes &dims)
      : model(model), system(model.getSystem()), layer(layer), pass(pass),
        config(config), roles(getPassRoles(pass)), dims(dims),
        chipD(splitSizes(dims, config.chipSplit)),
        coreD(splitSizes(chipD, config.coreSplit)),
        ring(system.chip.interconnect == ChipInterconnect::Ring),
        rowParallel(config.chipSplit[int(Dim::In)] > 1),
        eb(model.bytesPerElement()) {}

  const DimSizes &getChipD() const { return chipD; }
  const DimSizes &getCoreD() const { return coreD; }

  /// Sequential steps: timesteps of FWD and BWD (UPD sums over them at
  /// once), the directions of a bidirectional LSTM, the spatial minibatches
  /// of DySM.
  double steps() const {
    return double(pass != TrainingPass::UPD ? layer.timesteps : 1) *
           double(layer.directions) * double(config.memory.spatialMinibatches);
  }

  /// Elements of one data structure at the sizes `s`.
  double elements(Operand operand, const DimSizes &s) const {
    return operandElements(layer, operand, s);
  }

  double macs() const {
    if (!layer.hasPrimary)
      return 0;
    double perStep = 1;
    for (int64_t d : dims)
      perStep *= double(d);
    return perStep * steps();
  }

  /// PE-array cycles doing useful MACs, were the array always full.
  double usefulCycles() const {
    return macs() / (double(system.chips * system.chip.cores) *
                     double(model.arrayRows() * model.arrayColumns()));
  }

  /// What PriComp needs besides the array mapping (SplitCycles).
  void describePrimary(SplitCycles &split) const {
    split.hasPrimary = layer.hasPrimary;
    split.coreD = coreD;
    split.steps = steps();
    split.feedCycles = scratchpadFeedCycles();
    split.startupCycles = double(model.arrayRows() + model.arrayColumns());
    split.arrayRows = model.arrayRows();
    split.arrayColumns = model.arrayColumns();
    split.matrixEfficiency = system.chip.core.matrixEfficiency;
  }

  /// Cycles per step the core's scratchpad port needs to take in the core's
  /// CoreD share of both operands and hand out its result (DeepSpatialMatrix
  /// Fig. 10's scratchpad bandwidth). Multicast data is fetched once per chip
  /// but every core that shares it receives its own copy, so this is per core.
  /// When it exceeds the array's time the PE array waits for its operands:
  /// the "under-use due to data-flow" of DeepSpatialMatrix Fig. 13.
  double scratchpadFeedCycles() const {
    double bandwidth = system.chip.core.scratchpad.bandwidthBytesPerSecond;
    if (bandwidth <= 0)
      return 0; // a system without the figure: not modeled
    double received = 0;
    for (Operand operand : {roles.first, roles.second, roles.result}) {
      double e = elements(operand, coreD);
      // Weights kept across timesteps come in once per direction.
      if (operand == Operand::Kernel && config.memory.weightsAcrossSteps)
        e /= double(layer.timesteps);
      received += e;
    }
    return received * eb / bandwidth * model.frequency();
  }

  /// FetchInp, FetchKer, WriteOut: each operand and the result once per
  /// step, shared data multicast (per step; overlapped).
  TransferGroup memoryStreams() const {
    TransferGroup group;
    group.overlapped = true;
    double fetched = 0, written = 0;
    if (layer.hasPrimary) {
      fetched = inMemory(roles.first) + inMemory(roles.second);
      written = inMemory(roles.result);
      // The activations fused auxiliary computations read (a residual
      // shortcut), and in BWD the error passed back to them; with the
      // shortcut kept on chip (DeepSpatialMatrix §III-B1, residual layers) FWD
      // finds it in the scratchpads and BWD leaves its error there, for the
      // block's first layer to add to the error it computes.
      if (pass != TrainingPass::UPD && !config.memory.shortcutOnChip)
        fetched += layer.auxInputsPerOutput * elements(Operand::Output, chipD);
    } else {
      // An auxiliary-only layer streams its inputs in and its results out;
      // UPD (of an embedding) scatters the gradient rows it received.
      double outputs = elements(Operand::Output, chipD);
      fetched =
          outputs * (pass == TrainingPass::UPD ? 1 : layer.auxInputsPerOutput);
      written = outputs;
    }
    group.bytes[int(Link::MemoryBus)] = (fetched + written) * eb;
    // On a ring the data leaves the memory controller in both directions.
    group.bytes[int(Link::OnChip)] = onChip(group.bytes[int(Link::MemoryBus)]);
    timeGroup(model, group);
    return group;
  }

  /// Chips along X and Y that share the features (split `out`, so each
  /// holds a slice of the Input and the Input rotates among them).
  /// Chips along X and Y that split the output features, each rotating
  /// its slice of the input to the others (none for a row-parallel layer).
  double featureChipsX() const {
    return roleAlongX(config.parallelism) == TorusRole::Features && !rowParallel
               ? double(system.torus.x.size)
               : 1;
  }
  double featureChipsY() const {
    return roleAlongY(config.parallelism) == TorusRole::Features && !rowParallel
               ? double(system.torus.y.size)
               : 1;
  }
  /// Chips along X and Y that split a row-parallel layer's input features,
  /// each with its partial sums of the whole output.
  double reductionChipsX() const {
    return roleAlongX(config.parallelism) == TorusRole::Features && rowParallel
               ? double(system.torus.x.size)
               : 1;
  }
  double reductionChipsY() const {
    return roleAlongY(config.parallelism) == TorusRole::Features && rowParallel
               ? double(system.torus.y.size)
               : 1;
  }

  /// Elements of `operand` a chip moves between its external memory and its
  /// cores in one step. The Input under split features: only the chip's own
  /// slice, 1/(fx fy) of it -- the other slices arrive by rotation, which
  /// charges them to the memory bus once (rotation()); reading the whole
  /// Input as well would count the received slices twice. The Output (or its
  /// error): the fraction the layer stores -- an LSTM stores H of its 4H
  /// gates; a fused pooling stores the pooled tensor, the pre-pool output
  /// stays in the scratchpad (DeepSpatialMatrix Fig. 13: CONV1_2's 26% visible
  /// transfer is reading CONV1_1's output and writing the pooled one).
  double inMemory(Operand operand) const {
    double e = elements(operand, chipD);
    if (operand == Operand::Kernel) {
      // Preloaded weights are never fetched (DeepSpatialMatrix §III-B2).
      e *= 1 - residentWeightFraction();
      // Weights kept across timesteps: fetched once per direction, i.e.
      // 1/timesteps of them per step (double buffering spreads the first
      // step's fetch over the pass).
      if (config.memory.weightsAcrossSteps)
        return e / double(layer.timesteps);
    }
    // The previous layer left the Input in the scratchpads (FWD), the next
    // layer's BWD left the Output's error there (BWD, UPD).
    if (operand == Operand::Input && config.memory.inputOnChip)
      return 0;
    if (operand == Operand::Output && pass != TrainingPass::FWD &&
        config.memory.errorOnChip)
      return 0;
    // Inference: every reader finds the output on chip; it is not written.
    if (operand == Operand::Output && pass == TrainingPass::FWD &&
        config.memory.outputOnChip)
      return 0;
    if (operand == Operand::Input)
      return e / (featureChipsX() * featureChipsY());
    // A row-parallel layer writes its share of the reduced output and reads
    // the gathered error whole.
    if (operand == Operand::Output && pass == TrainingPass::FWD)
      e /= reductionChipsX() * reductionChipsY();
    if (operand == Operand::Output)
      return e * layer.writtenOutputFraction * layer.outputPixelRatio;
    return e;
  }

  /// RotateAlongX/Y: with the features split over fx x fy chips, each chip
  /// holds 1/(fx fy) of the Input (FWD, UPD) or of the Input's partial errors
  /// (BWD) and passes its slice on fx fy - 1 times: along X every iteration,
  /// along Y every fx-th. Received slices go through memory (per step).
  /// Overlapped with the compute in FWD and UPD, unless the chip's exchanges
  /// block (ChipSpec::megatronTensorParallel: a framework's collectives).
  TransferGroup rotation() const {
    if (rowParallel)
      return partialOutputs();
    TransferGroup group;
    group.overlapped = isOverlappedGroup("rotate", pass, system);
    double fx = featureChipsX(), fy = featureChipsY();
    if (layer.hasPrimary && fx * fy > 1) {
      double slice = elements(Operand::Input, chipD) / (fx * fy) * eb;
      group.bytes[int(Link::TorusX)] = slice * fy * (fx - 1);
      group.bytes[int(Link::TorusY)] = slice * (fy - 1);
      group.steps[int(Link::TorusX)] = fy * (fx - 1);
      group.steps[int(Link::TorusY)] = fy - 1;
      double moved =
          group.bytes[int(Link::TorusX)] + group.bytes[int(Link::TorusY)];
      group.bytes[int(Link::MemoryBus)] = moved;
      group.bytes[int(Link::OnChip)] = onChip(moved);
    }
    timeGroup(model, group);
    return group;
  }

  /// A row-parallel layer's exchange (Megatron-LM's row-parallel linear
  /// layer, under sequence parallelism): in FWD its chips reduce-scatter
  /// their partial sums of the whole output, each keeping its slice of the
  /// features -- a ring along X, then along Y on what X left; in BWD they
  /// all-gather the output's error, which BWD and UPD read whole. Not
  /// overlapped: the next layer needs the sums. Received bytes go through
  /// memory (per step).
  TransferGroup partialOutputs() const {
    TransferGroup group;
    group.overlapped = false;
    double rx = reductionChipsX(), ry = reductionChipsY();
    if (pass != TrainingPass::UPD && rx * ry > 1) {
      double whole = elements(Operand::Output, chipD) * eb;
      Collective collective = pass == TrainingPass::FWD
                                  ? Collective::ReduceScatter
                                  : Collective::AllGather;
      CollectiveCost alongX =
          collectiveCost(collective, whole, system.torus.x, int64_t(rx));
      CollectiveCost alongY =
          collectiveCost(collective, whole / rx, system.torus.y, int64_t(ry));
      group.bytes[int(Link::TorusX)] = alongX.bytes;
      group.bytes[int(Link::TorusY)] = alongY.bytes;
      group.steps[int(Link::TorusX)] = alongX.steps;
      group.steps[int(Link::TorusY)] = alongY.steps;
      double moved = alongX.bytes + alongY.bytes;
      group.bytes[int(Link::MemoryBus)] = moved;
      group.bytes[int(Link::OnChip)] = onChip(moved);
    }
    timeGroup(model, group);
    return group;
  }

  /// PartialSumAcc: cores that split a reduction reduce their partial
  /// results; batch-norm statistics and softmax sums likewise when the
  /// dimensions they reduce are split (per step; not overlapped).
  TransferGroup partialSums() const {
    TransferGroup group;
    auto add = [&](double cores, double bytesPerCore) {
      if (cores <= 1 || bytesPerCore <= 0)
        return;
      // Reduce-scatter: on a ring each link carries (g-1)/g of a core's
      // partials, in both directions; a bus carries every core's.
      double share = (cores - 1) / cores * bytesPerCore;
      group.bytes[int(Link::OnChip)] +=
          ring ? share / 2 : share * double(system.chip.cores);
    };
    const DimSizes &split = config.coreSplit;
    if (layer.hasPrimary) {
      double reduced = 1;
      DimSet reduction = reductionDims(layer, pass);
      for (int d = 0; d < kNumDims; ++d)
        if (reduction.contains(Dim(d)))
          reduced *= double(split[d]);
      add(reduced, elements(roles.result, coreD) * eb);
    }
    if (pass != TrainingPass::UPD) {
      if (layer.reducesStatistics) // mean and variance over (ij, mb)
        add(double(split[int(Dim::IJ)] * split[int(Dim::MB)]),
            2.0 * double(coreD[int(Dim::Out)]) * eb);
      if (layer.reducesFeatures) // max and sum over the features
        add(double(split[int(Dim::Out)]),
            2.0 * double(coreD[int(Dim::IJ)] * coreD[int(Dim::MB)]) * eb);
    }
    timeGroup(model, group);
    return group;
  }

  /// The parameters (weights and fused normalization parameters) a chip
  /// holds: the layer's share of its Kernel.
  double chipParameters() const {
    if (layer.params <= 0)
      return 0;
    if (!layer.hasPrimary)
      return layer.params / double(config.chipSplit[int(Dim::Out)]);
    double all = 1, chip = 1;
    DimSet kernel = layer.dimsOf(Operand::Kernel);
    for (int d = 0; d < kNumDims; ++d)
      if (kernel.contains(Dim(d)) && Dim(d) != Dim::MB) {
        all *= double(layer.dims[d]);
        chip *= double(chipD[d]);
      }
    return layer.params * chip / all;
  }

  /// Chips along X and Y that split the minibatch (and so reduce the
  /// gradients).
  double minibatchChipsX() const {
    return roleAlongX(config.parallelism) == TorusRole::Minibatch
               ? double(system.torus.x.size)
               : 1;
  }
  double minibatchChipsY() const {
    return roleAlongY(config.parallelism) == TorusRole::Minibatch
               ? double(system.torus.y.size)
               : 1;
  }
  /// Whether UPD reduces the gradients across chips (gradients()).
  bool gradientsCrossChips() const {
    return minibatchChipsX() * minibatchChipsY() > 1;
  }

  /// SumofGradAlongX/Y and BroadcastWAlongY/X, pipelined: UPD of a layer
  /// whose minibatch is split over gx x gy chips (once per pass); the weight
  /// update alone when it is not split.
  TransferGroup gradients() const {
    TransferGroup group;
    double gx = minibatchChipsX(), gy = minibatchChipsY();
    double w = chipParameters() * eb;
    if (pass != TrainingPass::UPD || w <= 0) {
      timeGroup(model, group);
      return group;
    }
    // The weight update reads the chip's gradients and weights from external
    // memory and writes the new weights back (DeepSpatialMatrix §V-B: gradient
    // reduction is memory-bound for CONV4_2-CONV5_3); it is pipelined with the
    // reduction, or is the whole group when nothing is reduced.
    group.bytes[int(Link::MemoryBus)] = 3 * w;
    group.bytes[int(Link::OnChip)] = onChip(3 * w);
    if (gx * gy > 1) {
      // A ring all-reduce along X, then along Y (Collectives.h); the X
      // reduction leaves 1/gx of the gradients for the Y direction.
      CollectiveCost alongX =
          collectiveCost(Collective::AllReduce, w, system.torus.x, int64_t(gx));
      CollectiveCost alongY =
          collectiveCost(Collective::AllReduce, w, system.torus.y, int64_t(gy));
      group.bytes[int(Link::TorusX)] = alongX.bytes;
      // Along rails each chip's link carries its ring's share: the other
      // rings leave the node on the other chips' links (Collectives.h).
      group.bytes[int(Link::TorusY)] =
          alongY.bytes / gx / system.torus.y.railSpeedup();
      group.steps[int(Link::TorusX)] = alongX.steps;
      group.steps[int(Link::TorusY)] = alongY.steps;
      group.bytes[int(Link::OnChip)] += onChip(2 * w);
    }
    timeGroup(model, group);
    return group;
  }

  /// AuxComp: the busiest core's share of the output elements of the fused
  /// auxiliary computations (their derivatives in BWD), or the weight update
  /// in UPD, on the special-function units. Where they run as kernels of
  /// their own (ChipSpec::elementwiseKernels) each streams its tensors
  /// through external memory, and takes as long as the longer of the two.
  double auxCycles() const {
    if (pass == TrainingPass::UPD) // w -= lr * g
      return 2.0 * chipParameters() / double(system.chip.cores) /
             system.chip.core.sfuOpsPerCycle;
    double share = 1;
    DimSet outputs = layer.dimsOf(Operand::Output);
    for (int d = 0; d < kNumDims; ++d)
      if (outputs.contains(Dim(d)))
        share *= double(coreD[d]) / double(dims[d]);
    double sfu = layer.auxOps * share / system.chip.core.sfuOpsPerCycle;
    if (!system.chip.elementwiseKernels)
      return sfu;
    // The chip's cores share its memory bus.
    double chipBytes =
        layer.auxKernels.bytes(pass, eb) * share * double(system.chip.cores);
    return std::max(sfu, model.linkCycles(chipBytes, Link::MemoryBus));
  }

  /// Bytes of the Kernel a core works with (its CoreD share).
  double weightBytesPerCore() const {
    if (!layer.hasPrimary || !layer.hasWeights)
      return 0;
    return elements(Operand::Kernel, coreD) * eb;
  }

  /// The part of the core's weight share preloaded in its scratchpad.
  double residentWeightFraction() const {
    double share = weightBytesPerCore();
    if (config.memory.preloadedWeightBytes <= 0 || share <= 0)
      return 0;
    return std::min(1.0, double(config.memory.preloadedWeightBytes) / share);
  }

  /// Bytes a chip keeps in external memory: its activations of every
  /// timestep and direction (BWD reads them; UPD's dimensions already span
  /// the timesteps) and its parameters.
  double externalMemoryBytes() const {
    double copies = double(pass != TrainingPass::UPD ? layer.timesteps : 1) *
                    double(layer.directions) *
                    double(config.memory.spatialMinibatches);
    return ((elements(Operand::Input, chipD) +
             elements(Operand::Output, chipD) /
                 (reductionChipsX() * reductionChipsY())) *
                copies +
            chipParameters()) *
           eb;
  }

private:
  double onChip(double bytes) const { return ring ? bytes / 2 : bytes; }

  const PerformanceModel &model;
  const MultiChipSystem &system;
  const LayerShape &layer;
  TrainingPass pass;
  const MappingConfig &config;
  PassRoles roles;
  DimSizes dims, chipD, coreD;
  bool ring;
  /// Whether the chips split the input features (isRowParallel()).
  bool rowParallel;
  double eb;
};
} // namespace

/// Whether `array` fits a PE array of `rows` x `columns` and a core's work
/// `coreD`: checkSplits()'s rules for the array mapping.
static bool arrayFits(const ArrayMapping &array, const DimSizes &coreD,
                      int64_t rows, int64_t columns, std::string *whyNot) {
  if (array.rowDim == array.colDim)
    return reject(whyNot,
                  "the PE array's rows and columns take the same dimension");
  if (array.rowTile < 1 || array.rowTile > rows ||
      array.rowTile > coreD[int(array.rowDim)])
    return reject(whyNot, "row tile ", array.rowTile, " exceeds the array (",
                  rows, ") or its work (", coreD[int(array.rowDim)], ")");
  if (array.colTile < 1 || array.colTile > columns ||
      array.colTile > coreD[int(array.colDim)])
    return reject(whyNot, "column tile ", array.colTile, " exceeds the array (",
                  columns, ") or its work (", coreD[int(array.colDim)], ")");
  return true;
}

bool PerformanceModel::splitsLegal(const LayerShape &layer, TrainingPass pass,
                                   const MappingConfig &config,
                                   std::string *whyNot) const {
  const int64_t chips = system.chips, cores = system.chip.cores;
  if (product(config.chipSplit) != chips)
    return reject(whyNot, "the chip split's product ",
                  product(config.chipSplit), " is not the chip count ", chips);
  if (product(config.coreSplit) != cores)
    return reject(whyNot, "the core split's product ",
                  product(config.coreSplit), " is not the core count ", cores);
  DimSizes dims = passDims(layer, pass);
  for (int d = 0; d < kNumDims; ++d)
    if (config.chipSplit[d] > dims[d])
      return reject(whyNot, "the chip split cuts '", stringifyDim(Dim(d)),
                    "' into ", config.chipSplit[d], " but it has only ",
                    dims[d]);
  std::optional<DimSizes> expected =
      chipSplit(layer, pass, config.parallelism, whyNot);
  if (!expected)
    return false;
  if (*expected != config.chipSplit)
    return reject(whyNot, "the chip split is not the one of ",
                  stringifyParallelism(config.parallelism),
                  " parallelism on a ", system.torus.x.size, "x",
                  system.torus.y.size, " torus");
  const int64_t spatial = config.memory.spatialMinibatches;
  if (spatial != 1) {
    Dim divided = spatialMinibatchDim(layer, pass, config.chipSplit);
    int64_t share = splitSizes(dims, config.chipSplit)[int(divided)];
    if (spatial < 1 || !layer.hasPrimary || layer.timesteps > 1 ||
        share % spatial != 0)
      return reject(whyNot, "a chip's ",
                    divided == Dim::MB ? "minibatch" : "positions",
                    " share of ", share, " is not run as ", spatial,
                    " spatial minibatches: DySM divides the share of a "
                    "layer that does not step through time");
  }
  DimSizes chipD =
      splitSizes(spatialPassDims(layer, pass, config.memory, config.chipSplit),
                 config.chipSplit);
  for (int d = 0; d < kNumDims; ++d)
    if (config.coreSplit[d] > chipD[d])
      return reject(whyNot, "the core split cuts '", stringifyDim(Dim(d)),
                    "' into ", config.coreSplit[d], " but a chip has only ",
                    chipD[d]);
  if (config.memory.weightsAcrossSteps &&
      (!layer.hasPrimary || !layer.hasWeights || layer.timesteps < 2 ||
       pass == TrainingPass::UPD))
    return reject(whyNot, "weights are kept across timesteps only in the FWD "
                          "or BWD of a recurrent layer with weights");
  if (config.memory.inputOnChip &&
      (!layer.hasPrimary || pass != TrainingPass::FWD || layer.timesteps > 1 ||
       config.chipSplit[int(Dim::Out)] > 1))
    return reject(whyNot,
                  "an input is reused from the scratchpad only in the FWD "
                  "of a layer that does not rotate it or step through time");
  if (config.memory.errorOnChip &&
      (!layer.hasPrimary || pass == TrainingPass::FWD || layer.timesteps > 1 ||
       config.chipSplit[int(Dim::Out)] > 1))
    return reject(
        whyNot,
        "an error is reused from the scratchpad only in the BWD or UPD "
        "of a layer that does not split its features or step through time");
  if (config.memory.shortcutOnChip &&
      (!layer.hasPrimary || !layer.hasWeights || pass == TrainingPass::UPD ||
       layer.timesteps > 1 || layer.auxInputsPerOutput <= 0))
    return reject(whyNot,
                  "a shortcut is kept in the scratchpad only for the FWD or "
                  "BWD of a layer with weights whose fused auxiliary "
                  "computations read one and that does not step through "
                  "time");
  if (config.memory.shortcutPerSpatialMinibatch &&
      !config.memory.shortcutOnChip)
    return reject(whyNot, "a shortcut is held one spatial minibatch at a "
                          "time only when it is kept in the scratchpad");
  if (config.memory.outputOnChip &&
      (!layer.hasPrimary || pass != TrainingPass::FWD || layer.timesteps > 1))
    return reject(whyNot, "an output stays only in the scratchpads in the FWD "
                          "of a layer that does not step through time");
  if (config.memory.preloadedWeightBytes < 0 ||
      (config.memory.preloadedWeightBytes > 0 &&
       (!layer.hasPrimary || !layer.hasWeights || pass != TrainingPass::FWD)))
    return reject(whyNot, "weights are preloaded only for the FWD of a layer "
                          "with weights");
  if (config.memory.preloadedWeightBytes > 0 &&
      config.memory.preloadedWeightBytes >
          weightBytesPerCore(layer, pass, config))
    return reject(whyNot, "preloading ", config.memory.preloadedWeightBytes,
                  " bytes per core exceeds the core's share of the weights (",
                  weightBytesPerCore(layer, pass, config), ")");
  return true;
}

std::optional<std::string>
PerformanceModel::checkSplits(const LayerShape &layer, TrainingPass pass,
                              const MappingConfig &config) const {
  std::string why;
  if (!splitsLegal(layer, pass, config, &why))
    return why;
  if (!layer.hasPrimary)
    return std::nullopt;
  DimSizes coreD = splitSizes(
      splitSizes(spatialPassDims(layer, pass, config.memory, config.chipSplit),
                 config.chipSplit),
      config.coreSplit);
  if (!arrayFits(config.array, coreD, rows, columns, &why))
    return why;
  return std::nullopt;
}

int64_t
PerformanceModel::weightBytesPerCore(const LayerShape &layer, TrainingPass pass,
                                     const MappingConfig &config) const {
  PassCost cost(*this, layer, pass, config,
                spatialPassDims(layer, pass, config.memory, config.chipSplit));
  double bytes = std::ceil(cost.weightBytesPerCore());
  return bytes < 9.0e18 ? int64_t(bytes) : std::numeric_limits<int64_t>::max();
}

double
PerformanceModel::parameterElementsPerChip(const LayerShape &layer,
                                           TrainingPass pass,
                                           const MappingConfig &config) const {
  PassCost cost(*this, layer, pass, config,
                spatialPassDims(layer, pass, config.memory, config.chipSplit));
  return cost.chipParameters();
}

TransferGroup
PerformanceModel::weightGather(const LayerShape &layer,
                               const MappingConfig &config) const {
  TransferGroup group;
  group.name = "weight_gather";
  if (layer.params <= 0)
    return group;
  const double bytes =
      parameterElementsPerChip(layer, TrainingPass::FWD, config) * elementBytes;
  const double copiesX = roleAlongX(config.parallelism) == TorusRole::Minibatch
                             ? double(system.torus.x.size)
                             : 1.0;
  const double copiesY = roleAlongY(config.parallelism) == TorusRole::Minibatch
                             ? double(system.torus.y.size)
                             : 1.0;
  // Along X each chip gathers its row's pieces of a Y-th of the share, then
  // along Y the rest.
  group.bytes[int(Link::TorusX)] = bytes / copiesY * (copiesX - 1) / copiesX;
  group.bytes[int(Link::TorusY)] = bytes * (copiesY - 1) / copiesY;
  group.steps[int(Link::TorusX)] = copiesX - 1;
  group.steps[int(Link::TorusY)] = copiesY - 1;
  double x = linkCycles(group.bytes[int(Link::TorusX)], Link::TorusX) +
             latencyCycles(group.steps[int(Link::TorusX)], Link::TorusX);
  double y = linkCycles(group.bytes[int(Link::TorusY)], Link::TorusY) +
             latencyCycles(group.steps[int(Link::TorusY)], Link::TorusY);
  group.cycles = x + y;
  group.bottleneck = y > x ? Link::TorusY : Link::TorusX;
  return group;
}

TransferGroup PerformanceModel::hostUpdate(double stateElements) const {
  TransferGroup group;
  group.name = "host_update";
  group.bytes[int(Link::Host)] = stateElements * elementBytes;
  group.cycles = linkCycles(group.bytes[int(Link::Host)], Link::Host);
  group.bottleneck = Link::Host;
  return group;
}

ForwardTraffic PerformanceModel::leastForwardTraffic(
    const LayerShape &layer, bool inputFromMemory, bool outputToMemory) const {
  // PassCost::memoryStreams() and rotation() per step, for the whole pass
  // dimensions: a chip's share (ChipD, rounded up) is at least an even share
  // of the whole, and DySM's spatial minibatches are steps that together
  // cover the minibatch.
  const DimSizes dims = passDims(layer, TrainingPass::FWD);
  const double steps = double(layer.timesteps) * double(layer.directions);
  ForwardTraffic traffic;
  if (!layer.hasPrimary) {
    // Every input and the result stream through; nothing is kept on chip.
    traffic.otherBytes = steps * (layer.auxInputsPerOutput + 1) *
                         operandElements(layer, Operand::Output, dims) *
                         elementBytes;
    return traffic;
  }
  double other = 0;
  // Only a learnable Kernel is preloaded or kept across timesteps (then
  // fetched once per direction: counted once here).
  if (layer.hasWeights)
    traffic.weightBytes =
        std::min(operandElements(layer, Operand::Kernel, dims), layer.params) *
        elementBytes;
  else
    other += steps * operandElements(layer, Operand::Kernel, dims);
  // The Input: the chip's slice read plus the slices rotated in, all
  // through memory; zero only when a producer left it on chip.
  if (inputFromMemory)
    other += steps * operandElements(layer, Operand::Input, dims);
  // The Output: unwritten only when every reader finds it on chip.
  if (outputToMemory)
    other += steps * operandElements(layer, Operand::Output, dims) *
             layer.writtenOutputFraction * layer.outputPixelRatio;
  traffic.otherBytes = other * elementBytes;
  return traffic;
}

SplitCost PerformanceModel::costSplits(const LayerShape &layer,
                                       TrainingPass pass,
                                       const MappingConfig &config) const {
  SplitCost split;
  split.layer = &layer;
  split.legal = splitsLegal(layer, pass, config, /*whyNot=*/nullptr);
  PassCost cost(*this, layer, pass, config,
                spatialPassDims(layer, pass, config.memory, config.chipSplit));
  split.macs = cost.macs();
  split.usefulCycles = cost.usefulCycles();
  split.scratchpadCapacity = system.chip.core.scratchpad.capacityBytes;
  split.libraryTiling = system.chip.libraryTiling;
  split.externalMemoryBytes = cost.externalMemoryBytes();
  split.externalMemoryCapacity = system.chip.externalMemory.capacityBytes;
  split.elementBytes = elementBytes;

  //--- The terms the array mapping does not change: the data-transfer
  // groups (Ovldt, NonOvldt) and AuxComp -- which is what makes
  // SplitCycles::lowerBound() a bound.
  split.stream = cost.memoryStreams();
  split.rotation = cost.rotation();
  split.partialSums = cost.partialSums();
  split.gradients = cost.gradients();
  split.gradientsCrossChips = cost.gradientsCrossChips();
  // FWD/UPD rotations run with the memory streams: one overlapped group.
  TransferGroup overlapped = split.stream;
  if (split.rotation.overlapped)
    for (int l = 0; l < kNumLinks; ++l) {
      overlapped.bytes[l] += split.rotation.bytes[l];
      overlapped.steps[l] += split.rotation.steps[l];
    }
  timeGroup(*this, overlapped);
  SplitCycles &terms = split.terms;
  const double steps = cost.steps();
  terms.ovldt = steps * overlapped.cycles;
  terms.nonOvldt =
      steps * (split.partialSums.cycles +
               (split.rotation.overlapped ? 0 : split.rotation.cycles)) +
      split.gradients.cycles;
  terms.auxComp = cost.auxCycles();
  cost.describePrimary(terms);

  //--- The working set's parts that the array mapping does not change
  // (SplitCost::scratchpadBytes).
  const PassRoles roles = getPassRoles(pass);
  const DimSizes &coreD = cost.getCoreD();
  split.operands = {roles.first, roles.second, roles.result};
  // Wholly preloaded weights live in the space reserved for preloading.
  const bool weightsResident = cost.residentWeightFraction() >= 1;
  for (int i = 0; i < 3; ++i) {
    split.resident[i] = weightsResident && split.operands[i] == Operand::Kernel;
    split.sizes[i] =
        split.resident[i] ? 0 : cost.elements(split.operands[i], coreD);
  }
  split.stationary =
      int(std::min_element(split.sizes.begin(), split.sizes.end()) -
          split.sizes.begin());
  if (split.libraryTiling) {
    // Every core's share of the input that is not stationary, each step,
    // through the memory bus once more.
    double restreamed = 0;
    for (int i = 0; i < 2; ++i)
      if (i != split.stationary)
        restreamed += split.sizes[i];
    split.restreamCycles = steps * linkCycles(restreamed * elementBytes *
                                                  double(system.chip.cores),
                                              Link::MemoryBus);
  }
  for (int d = 0; d < kNumDims; ++d)
    split.block[d] = std::min<int64_t>(coreD[d], rows);
  const Operand stationary = split.operands[split.stationary];
  const MemoryDecision &memory = config.memory;
  // Weights kept across timesteps stay whole (if not already stationary);
  // so does an Input left by the previous layer, and an Output error left
  // by the next layer's BWD; a retained shortcut below.
  split.keptWhole = {memory.weightsAcrossSteps && !weightsResident &&
                             stationary != Operand::Kernel
                         ? cost.elements(Operand::Kernel, coreD)
                         : 0.0,
                     memory.inputOnChip && stationary != Operand::Input
                         ? cost.elements(Operand::Input, coreD)
                         : 0.0,
                     memory.errorOnChip && stationary != Operand::Output
                         ? cost.elements(Operand::Output, coreD)
                         : 0.0,
                     0.0};
  // A kept shortcut stays whole for all the spatial minibatches (in FWD the
  // shortcut, in BWD its error: the Output's error, less what is already
  // kept of it) -- unless the whole residual block runs as one DySM group,
  // spatial minibatch by spatial minibatch (DeepSpatialMatrix §III-C), when the
  // cores hold that of one spatial minibatch.
  if (memory.shortcutOnChip) {
    double whole = layer.auxInputsPerOutput *
                   cost.elements(Operand::Output, coreD) *
                   (memory.shortcutPerSpatialMinibatch
                        ? 1.0
                        : double(memory.spatialMinibatches));
    if (pass == TrainingPass::BWD &&
        (split.keptWhole[2] > 0 || stationary == Operand::Output))
      whole = std::max(0.0, whole - cost.elements(Operand::Output, coreD));
    split.keptWhole[3] = whole;
  }
  return split;
}

/// Bytes a core's scratchpad needs: the smallest data structure kept
/// stationary and double-buffered blocks of the other two (a block spans
/// ArrayD on the array's dimensions, up to a chunk of `rows` on the others);
/// an auxiliary-only layer only streams. Wholly preloaded weights live in
/// the space reserved for preloading, not here. The additions are in one
/// fixed order (adding a 0 for data not kept whole changes no sum), so every
/// caller gets the same bytes.
double SplitCost::scratchpadBytes(const ArrayMapping &array) const {
  DimSizes tiled = block;
  if (layer->hasPrimary) {
    tiled[int(array.rowDim)] = array.rowTile;
    tiled[int(array.colDim)] = array.colTile;
  }
  auto blockElements = [&](int i) {
    return resident[i] ? 0 : operandElements(*layer, operands[i], tiled);
  };
  if (!layer->hasPrimary)
    return 2 * (blockElements(0) + blockElements(2)) * elementBytes;
  double need = sizes[stationary];
  for (int i = 0; i < 3; ++i)
    if (i != stationary)
      need += 2 * blockElements(i);
  for (double whole : keptWhole)
    need += whole;
  return need * elementBytes;
}

double SplitCost::stationaryChunks(double bytes) const {
  if (bytes <= scratchpadCapacity)
    return 1;
  if (!libraryTiling || !layer->hasPrimary)
    return 0;
  // The rest of the working set stays; the stationary operand shares what
  // it leaves.
  const double stationaryBytes = sizes[stationary] * elementBytes;
  const double room = scratchpadCapacity - (bytes - stationaryBytes);
  if (room <= 0)
    return 0;
  return std::ceil(stationaryBytes / room);
}

CandidateCost SplitCost::figures(const ArrayMapping &array) const {
  CandidateCost candidate;
  candidate.scratchpadBytes = scratchpadBytes(array);
  //--- TotCy = MAX(PriComp, Ovldt) + AuxComp + NonOvldt.
  const double priComp = terms.primaryCycles(array);
  double ovldt = terms.ovldt;
  // A library-tiled chip works a stationary operand the scratchpad cannot
  // hold in chunks, streaming the other input once per chunk.
  const double chunks = stationaryChunks(candidate.scratchpadBytes);
  if (chunks > 1) {
    ovldt += (chunks - 1) * restreamCycles;
    candidate.scratchpadBytes -=
        sizes[stationary] * elementBytes * (1 - 1 / chunks);
  }
  CycleBreakdown &c = candidate.cycles;
  c.useful = usefulCycles;
  c.underuse = std::max(0.0, priComp - usefulCycles);
  c.ovldtVisible = std::max(0.0, ovldt - priComp);
  c.nonOvldt = terms.nonOvldt;
  c.auxComp = terms.auxComp;
  c.total = std::max(priComp, ovldt) + c.auxComp + c.nonOvldt;
  candidate.ovldt = ovldt;
  return candidate;
}

std::optional<CandidateCost>
SplitCost::evaluate(const ArrayMapping &array) const {
  if (!legal || externalMemoryBytes > externalMemoryCapacity)
    return std::nullopt;
  if (layer->hasPrimary && !arrayFits(array, terms.coreD, terms.arrayRows,
                                      terms.arrayColumns, /*whyNot=*/nullptr))
    return std::nullopt;
  CandidateCost candidate = figures(array);
  if (candidate.scratchpadBytes > scratchpadCapacity)
    return std::nullopt;
  return candidate;
}

std::optional<Evaluation>
PerformanceModel::evaluate(const LayerShape &layer, TrainingPass pass,
                           const MappingConfig &config,
                           std::string *whyNot) const {
  // The rules first: costing needs splits that divide the work.
  if (!splitsLegal(layer, pass, config, whyNot))
    return std::nullopt;
  const SplitCost split = costSplits(layer, pass, config);
  if (layer.hasPrimary &&
      !arrayFits(config.array, split.terms.coreD, rows, columns, whyNot))
    return std::nullopt;
  const CandidateCost candidate = split.figures(config.array);
  if (candidate.scratchpadBytes > split.scratchpadCapacity) {
    // Printed whole as doubles: an absurd layer's figure may pass 2^63.
    reject(whyNot, "its working set of ",
           llvm::format("%.0f", std::floor(candidate.scratchpadBytes)),
           " bytes per core exceeds the scratchpad (",
           llvm::format("%.0f",
                        std::floor(system.chip.core.scratchpad.capacityBytes)),
           ")");
    return std::nullopt;
  }
  if (split.externalMemoryBytes > split.externalMemoryCapacity) {
    reject(whyNot, "a chip's share of ", int64_t(split.externalMemoryBytes),
           " bytes exceeds its external memory (",
           int64_t(system.chip.externalMemory.capacityBytes), ")");
    return std::nullopt;
  }

  Evaluation eval;
  eval.config = config;
  eval.macs = split.macs;
  eval.cycles = candidate.cycles;
  eval.ovldt = candidate.ovldt;
  eval.scratchpadBytes = candidate.scratchpadBytes;
  eval.utilization =
      eval.cycles.total > 0 ? split.usefulCycles / eval.cycles.total : 0;

  // Transfers over the whole pass, for the report.
  auto record = [&](const char *name, TransferGroup group, double times) {
    bool any = false;
    for (double &b : group.bytes) {
      b *= times;
      any |= b > 0;
    }
    if (!any)
      return;
    group.name = name;
    group.cycles *= times;
    eval.transfers.push_back(std::move(group));
  };
  const double steps = split.terms.steps;
  eval.transfers.reserve(4);
  record("fetch_inp+fetch_ker+write_out", split.stream, steps);
  record(config.chipSplit[int(Dim::In)] > 1 ? "reduce_outputs" : "rotate",
         split.rotation, steps);
  record("partial_sum_acc", split.partialSums, steps);
  record(split.gradientsCrossChips ? "grad_reduce+weight_broadcast"
                                   : "weight_update",
         split.gradients, 1);
  return eval;
}

SplitCycles PerformanceModel::splitCycles(const LayerShape &layer,
                                          TrainingPass pass,
                                          const MappingConfig &config) const {
  return costSplits(layer, pass, config).cycles();
}

double SplitCycles::primaryCycles(const ArrayMapping &array) const {
  if (!hasPrimary)
    return 0;
  // The busiest core's ArrayD chunks, the streamed dimensions and the
  // startup (the first data crossing the systolic array), once per step
  // since a timestep waits for the previous one; the array waits for its
  // operands when the scratchpad cannot feed it (DeepSpatialMatrix Fig. 13).
  double spatial =
      double(llvm::divideCeil(coreD[int(array.rowDim)], array.rowTile)) *
      double(llvm::divideCeil(coreD[int(array.colDim)], array.colTile));
  double temporal = 1;
  for (int d = 0; d < kNumDims; ++d)
    if (Dim(d) != array.rowDim && Dim(d) != array.colDim)
      temporal *= double(coreD[d]);
  return steps * (std::max(spatial * temporal / matrixEfficiency, feedCycles) +
                  startupCycles);
}

double SplitCycles::wholeArrayPasses() const {
  double work = 1;
  for (int64_t d : coreD)
    work *= double(d);
  return work / double(arrayRows * arrayColumns) / matrixEfficiency;
}

double SplitCycles::computeBound() const {
  double priComp = 0;
  if (hasPrimary)
    priComp = steps * (wholeArrayPasses() + startupCycles);
  return priComp + auxComp;
}

double SplitCycles::lowerBound() const {
  double priComp = 0;
  if (hasPrimary)
    priComp =
        steps * (std::max(wholeArrayPasses(), feedCycles) + startupCycles);
  return std::max(priComp, ovldt) + auxComp + nonOvldt;
}

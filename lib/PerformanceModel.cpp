//===- PerformanceModel.cpp - 000's bandwidth-centric model ---------------===//
//
// Formulas and assumptions: docs/performance-model.md. Quantities are per chip
// (all chips do the same work at the same time) and per core where noted.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/PerformanceModel.h"

#include "llvm/Support/Format.h"
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

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
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
    return system.torus.x > 1 && system.torus.y > 1;
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

std::optional<DimSizes> PerformanceModel::chipSplit(const LayerShape &layer,
                                                    TrainingPass pass,
                                                    Parallelism p,
                                                    std::string *whyNot) const {
  if (!isAvailable(p)) {
    if (whyNot)
      *whyNot = reason(stringifyParallelism(p).str(), " parallelism needs ",
                       p == Parallelism::Model ? "more than one chip"
                                               : "a torus of at least 2x2 chips");
    return std::nullopt;
  }
  int64_t x = system.torus.x, y = system.torus.y;
  DimSizes split = {1, 1, 1, 1, 1};
  switch (p) {
  case Parallelism::Data:
    split[int(Dim::MB)] = x * y;
    break;
  case Parallelism::Model:
    split[int(Dim::Out)] = x * y;
    break;
  case Parallelism::DataXModelY:
    split[int(Dim::MB)] = x;
    split[int(Dim::Out)] = y;
    break;
  case Parallelism::ModelXDataY:
    split[int(Dim::Out)] = x;
    split[int(Dim::MB)] = y;
    break;
  }
  DimSizes dims = passDims(layer, pass);
  for (int d = 0; d < kNumDims; ++d) {
    if (split[d] > dims[d]) {
      if (whyNot)
        *whyNot = reason(stringifyParallelism(p).str(), " parallelism splits '",
                         stringifyDim(Dim(d)).str(), "' ", split[d],
                         " ways but it has only ", dims[d]);
      return std::nullopt;
    }
  }
  return split;
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
    bandwidth = system.torus.linkBandwidthX;
    break;
  case Link::TorusY:
    bandwidth = system.torus.linkBandwidthY;
    break;
  }
  if (bandwidth <= 0)
    return std::numeric_limits<double>::infinity();
  return bytes / bandwidth * frequency();
}

void PerformanceModel::timeGroup(TransferGroup &group) const {
  group.cycles = 0;
  for (int l = 0; l < kNumLinks; ++l) {
    double cycles = linkCycles(group.bytes[l], Link(l));
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
  int64_t x = system.torus.x, y = system.torus.y;
  double block = elements * elementBytes / double(system.chips);
  bool ring = system.chip.interconnect == ChipInterconnect::Ring;
  // All-to-all within each row (X) or column (Y) whose role changes. On a
  // bidirectional ring of k chips every chip sends block/k to each of the
  // others: floor(k^2/4) hop-blocks per chip, i.e. block * floor(k^2/4) / k
  // bytes out of each chip.
  double phases = 0;
  auto phase = [&](int64_t k, Link link) {
    TransferGroup part;
    part.bytes[int(link)] = block * double((k * k) / 4) / double(k);
    part.bytes[int(Link::MemoryBus)] = block; // read out, written back (half each phase)
    part.bytes[int(Link::OnChip)] = ring ? block / 2 : block;
    timeGroup(part);
    for (int l = 0; l < kNumLinks; ++l)
      group.bytes[l] += part.bytes[l];
    if (part.cycles > phases / 2)
      group.bottleneck = part.bottleneck;
    phases += part.cycles;
  };
  if (x > 1 && roleAlongX(from) != roleAlongX(to))
    phase(x, Link::TorusX);
  if (y > 1 && roleAlongY(from) != roleAlongY(to))
    phase(y, Link::TorusY);
  group.cycles = phases;
  return group;
}

std::optional<Evaluation>
PerformanceModel::evaluate(const LayerShape &layer, TrainingPass pass,
                           const MappingConfig &config,
                           std::string *whyNot) const {
  auto fail = [&](std::string message) -> std::optional<Evaluation> {
    if (whyNot)
      *whyNot = std::move(message);
    return std::nullopt;
  };
  const int64_t chips = system.chips, cores = system.chip.cores;
  const int64_t x = system.torus.x, y = system.torus.y;
  if (product(config.chipSplit) != chips)
    return fail(reason("the chip split's product ", product(config.chipSplit),
                       " is not the chip count ", chips));
  if (product(config.coreSplit) != cores)
    return fail(reason("the core split's product ", product(config.coreSplit),
                       " is not the core count ", cores));
  DimSizes dims = passDims(layer, pass);
  for (int d = 0; d < kNumDims; ++d)
    if (config.chipSplit[d] > dims[d])
      return fail(reason("the chip split cuts '", stringifyDim(Dim(d)).str(),
                         "' into ", config.chipSplit[d], " but it has only ",
                         dims[d]));
  {
    std::string why;
    std::optional<DimSizes> expected = chipSplit(layer, pass, config.parallelism, &why);
    if (!expected)
      return fail(why);
    if (*expected != config.chipSplit)
      return fail(reason("the chip split is not the one of ",
                         stringifyParallelism(config.parallelism).str(),
                         " parallelism on a ", x, "x", y, " torus"));
  }
  DimSizes chipD = splitSizes(dims, config.chipSplit);
  for (int d = 0; d < kNumDims; ++d)
    if (config.coreSplit[d] > chipD[d])
      return fail(reason("the core split cuts '", stringifyDim(Dim(d)).str(),
                         "' into ", config.coreSplit[d], " but a chip has only ",
                         chipD[d]));
  DimSizes coreD = splitSizes(chipD, config.coreSplit);
  const ArrayMapping &array = config.array;
  if (layer.hasPrimary) {
    if (array.rowDim == array.colDim)
      return fail("the PE array's rows and columns take the same dimension");
    if (array.rowTile < 1 || array.rowTile > rows ||
        array.rowTile > coreD[int(array.rowDim)])
      return fail(reason("row tile ", array.rowTile, " exceeds the array (",
                         rows, ") or its work (", coreD[int(array.rowDim)], ")"));
    if (array.colTile < 1 || array.colTile > columns ||
        array.colTile > coreD[int(array.colDim)])
      return fail(reason("column tile ", array.colTile, " exceeds the array (",
                         columns, ") or its work (", coreD[int(array.colDim)],
                         ")"));
  }

  const double eb = elementBytes;
  const bool ring = system.chip.interconnect == ChipInterconnect::Ring;
  const PassRoles roles = getPassRoles(pass);
  // Elements of one data structure for one step at the sizes `s`.
  auto elements = [&](Operand operand, const DimSizes &s) {
    double e = 1;
    DimSet set = layer.dimsOf(operand);
    for (int d = 0; d < kNumDims; ++d)
      if (set.contains(Dim(d)))
        e *= double(s[d]);
    if (operand == Operand::Input) {
      e *= layer.inputPixelRatio;
      if (layer.groups > 1) {
        // Each output channel reads the input channels of its own group.
        double touched = std::ceil(double(s[int(Dim::Out)]) *
                                   double(layer.groups) /
                                   double(layer.dims[int(Dim::Out)]));
        e *= std::clamp(touched, 1.0, double(layer.groups));
      }
    }
    return e;
  };
  // Sequential steps: timesteps of FWD/BWD (UPD sums over them at once) and
  // the directions of a bidirectional LSTM.
  const double steps =
      double(pass != TrainingPass::UPD ? layer.timesteps : 1) *
      double(layer.directions);

  Evaluation eval;
  eval.config = config;

  //--- Primary computation on the PE array (per core, per step).
  double macsPerStep = 1;
  for (int64_t d : dims)
    macsPerStep *= double(d);
  eval.macs = layer.hasPrimary ? macsPerStep * steps : 0;
  double priComp = 0;
  if (layer.hasPrimary) {
    double spatial =
        double(ceilDiv(coreD[int(array.rowDim)], array.rowTile)) *
        double(ceilDiv(coreD[int(array.colDim)], array.colTile));
    double temporal = 1;
    for (int d = 0; d < kNumDims; ++d)
      if (Dim(d) != array.rowDim && Dim(d) != array.colDim)
        temporal *= double(coreD[d]);
    // Startup: the first data crosses the systolic array before results
    // leave it, once per step (a timestep waits for the previous one).
    double startup = double(rows + columns);
    priComp = steps * (spatial * temporal + startup);
  }
  double useful = eval.macs / (double(chips * cores) * double(rows * columns));

  //--- Core <-> external memory: FetchInp, FetchKer, WriteOut (overlapped).
  TransferGroup stream;
  stream.name = "fetch_inp+fetch_ker+write_out";
  stream.overlapped = true;
  double fetched = 0, written = 0;
  if (layer.hasPrimary) {
    fetched = elements(roles.first, chipD) + elements(roles.second, chipD);
    written = elements(roles.result, chipD) *
              (roles.result == Operand::Output ? layer.writtenOutputFraction : 1);
    if (pass != TrainingPass::UPD)
      fetched += layer.auxInputsPerOutput * elements(Operand::Output, chipD);
  } else {
    // An auxiliary-only layer streams its inputs in and its results out; UPD
    // (of an embedding) scatters the gradient rows it received.
    double outputs = elements(Operand::Output, chipD);
    fetched = outputs * (pass == TrainingPass::UPD ? 1 : layer.auxInputsPerOutput);
    written = outputs;
  }
  stream.bytes[int(Link::MemoryBus)] = (fetched + written) * eb;
  // Shared data is multicast once; on a ring it leaves the memory controller
  // in both directions.
  stream.bytes[int(Link::OnChip)] =
      ring ? stream.bytes[int(Link::MemoryBus)] / 2 : stream.bytes[int(Link::MemoryBus)];

  //--- Chip <-> chip feature rotation (model parallelism; 000 §II-D).
  const bool featuresAlongX = roleAlongX(config.parallelism) == TorusRole::Features && x > 1;
  const bool featuresAlongY = roleAlongY(config.parallelism) == TorusRole::Features && y > 1;
  const double fx = featuresAlongX ? double(x) : 1, fy = featuresAlongY ? double(y) : 1;
  TransferGroup rotation;
  rotation.name = "rotate";
  rotation.overlapped = pass != TrainingPass::BWD;
  if (layer.hasPrimary && fx * fy > 1 && config.chipSplit[int(Dim::Out)] > 1) {
    // FWD/UPD rotate the input activations; BWD rotates partial errors of
    // the input. Each chip holds 1/(fx*fy) of them and passes its slice on
    // fx*fy - 1 times: along X every iteration, along Y every fx-th.
    double slice = elements(Operand::Input, chipD) / (fx * fy) * eb;
    rotation.bytes[int(Link::TorusX)] = slice * fy * (fx - 1);
    rotation.bytes[int(Link::TorusY)] = slice * (fy - 1);
    double moved = rotation.bytes[int(Link::TorusX)] + rotation.bytes[int(Link::TorusY)];
    rotation.bytes[int(Link::MemoryBus)] = moved;
    rotation.bytes[int(Link::OnChip)] = ring ? moved / 2 : moved;
  }
  // FWD/UPD rotations run with the memory streams: one group.
  TransferGroup overlapped = stream;
  if (rotation.overlapped)
    for (int l = 0; l < kNumLinks; ++l)
      overlapped.bytes[l] += rotation.bytes[l];
  timeGroup(overlapped);
  timeGroup(stream);
  timeGroup(rotation);

  //--- Core <-> core partial sums (non-overlapped).
  TransferGroup partialSums;
  partialSums.name = "partial_sum_acc";
  auto addPartialSums = [&](double group, double bytesPerCore) {
    if (group <= 1 || bytesPerCore <= 0)
      return;
    // Reduce-scatter among `group` cores: on a ring each link carries
    // (g-1)/g of a core's partials (both directions); a bus carries every
    // core's.
    double share = (group - 1) / group * bytesPerCore;
    partialSums.bytes[int(Link::OnChip)] += ring ? share / 2 : share * double(cores);
  };
  if (layer.hasPrimary) {
    double reduced = 1;
    DimSet reduction = reductionDims(layer, pass);
    for (int d = 0; d < kNumDims; ++d)
      if (reduction.contains(Dim(d)))
        reduced *= double(config.coreSplit[d]);
    addPartialSums(reduced, elements(roles.result, coreD) * eb);
  }
  if (pass != TrainingPass::UPD) {
    // Batch-norm mean and variance over (ij, mb); softmax max and sum over
    // the features.
    if (layer.reducesStatistics)
      addPartialSums(double(config.coreSplit[int(Dim::IJ)] * config.coreSplit[int(Dim::MB)]),
                     2.0 * double(coreD[int(Dim::Out)]) * eb);
    if (layer.reducesFeatures)
      addPartialSums(double(config.coreSplit[int(Dim::Out)]),
                     2.0 * double(coreD[int(Dim::IJ)] * coreD[int(Dim::MB)]) * eb);
  }
  timeGroup(partialSums);

  //--- Gradient reduction and weight broadcast (UPD, data parallelism along
  // X then Y, pipelined; 000 §II-D). Once per pass, after all timesteps.
  TransferGroup gradients;
  gradients.name = "grad_reduce+weight_broadcast";
  double chipWeights = 0; // parameter elements per chip
  if (layer.params > 0) {
    double kernelAll = 1, kernelChip = 1;
    DimSet kernelDims = layer.dimsOf(Operand::Kernel);
    for (int d = 0; d < kNumDims; ++d)
      if (kernelDims.contains(Dim(d)) && Dim(d) != Dim::MB) {
        kernelAll *= double(layer.dims[d]);
        kernelChip *= double(chipD[d]);
      }
    chipWeights = layer.hasPrimary ? layer.params * kernelChip / kernelAll
                                   : layer.params / double(config.chipSplit[int(Dim::Out)]);
  }
  if (pass == TrainingPass::UPD && chipWeights > 0) {
    double gx = roleAlongX(config.parallelism) == TorusRole::Minibatch ? double(x) : 1;
    double gy = roleAlongY(config.parallelism) == TorusRole::Minibatch ? double(y) : 1;
    if (gx * gy > 1) {
      double w = chipWeights * eb;
      gradients.bytes[int(Link::TorusX)] = 2 * (gx - 1) / gx * w;
      // The X reduction leaves 1/gx of the gradients for the Y direction.
      gradients.bytes[int(Link::TorusY)] = 2 * (gy - 1) / gy * w / gx;
      gradients.bytes[int(Link::OnChip)] = ring ? w : 2 * w;
    }
  }
  timeGroup(gradients);

  //--- Auxiliary computations on the special-function units (PE array idle).
  double outputShare = 1; // the busiest core's share of the output elements
  DimSet outputDims = layer.dimsOf(Operand::Output);
  for (int d = 0; d < kNumDims; ++d)
    if (outputDims.contains(Dim(d)))
      outputShare *= double(coreD[d]) / double(dims[d]);
  double auxOps = 0;
  if (pass == TrainingPass::UPD)
    auxOps = 2.0 * chipWeights / double(cores); // w -= lr * g, per core
  else
    auxOps = layer.auxOps * outputShare;
  double auxCycles = auxOps / system.chip.core.sfuOpsPerCycle;

  //--- Capacity: the scratchpad must hold the stationary data structure and
  // double-buffered blocks of the other two; external memory a chip's share.
  {
    DimSizes block = coreD;
    for (int d = 0; d < kNumDims; ++d)
      block[d] = std::min<int64_t>(coreD[d], rows);
    if (layer.hasPrimary) {
      block[int(array.rowDim)] = array.rowTile;
      block[int(array.colDim)] = array.colTile;
    }
    double sizes[3], blocks[3];
    Operand operands[3] = {roles.first, roles.second, roles.result};
    for (int i = 0; i < 3; ++i) {
      sizes[i] = elements(operands[i], coreD);
      blocks[i] = elements(operands[i], block);
    }
    int stationary = int(std::min_element(sizes, sizes + 3) - sizes);
    double need = sizes[stationary];
    for (int i = 0; i < 3; ++i)
      if (i != stationary)
        need += 2 * blocks[i];
    if (!layer.hasPrimary)
      need = 2 * (blocks[0] + blocks[2]);
    eval.scratchpadBytes = need * eb;
    if (eval.scratchpadBytes > system.chip.core.scratchpad.capacityBytes)
      return fail(reason("its working set of ", int64_t(eval.scratchpadBytes),
                         " bytes per core exceeds the scratchpad (",
                         int64_t(system.chip.core.scratchpad.capacityBytes), ")"));
    // Activations of every timestep and direction stay in memory for BWD
    // (UPD's dimensions already span the timesteps).
    double activationCopies = double(pass != TrainingPass::UPD ? layer.timesteps : 1) *
                              double(layer.directions);
    double chipBytes = (elements(Operand::Input, chipD) + elements(Operand::Output, chipD)) *
                           activationCopies +
                       chipWeights;
    if (chipBytes * eb > system.chip.externalMemory.capacityBytes)
      return fail(reason("a chip's share of ", int64_t(chipBytes * eb),
                         " bytes exceeds its external memory (",
                         int64_t(system.chip.externalMemory.capacityBytes), ")"));
  }

  //--- TotCy = MAX(PriComp, Ovldt) + AuxComp + NonOvldt.
  double ovl = steps * overlapped.cycles;
  double nonOvl = steps * (partialSums.cycles + (rotation.overlapped ? 0 : rotation.cycles)) +
                  gradients.cycles;
  CycleBreakdown &c = eval.cycles;
  c.useful = useful;
  c.underuse = std::max(0.0, priComp - useful);
  c.ovlVisible = std::max(0.0, ovl - priComp);
  c.nonOvl = nonOvl;
  c.aux = auxCycles;
  c.total = std::max(priComp, ovl) + auxCycles + nonOvl;
  eval.ovlCycles = ovl;
  eval.utilization = c.total > 0 ? useful / c.total : 0;

  // Transfers over the whole pass, for the report.
  auto record = [&](TransferGroup group, double times) {
    bool any = false;
    for (double &b : group.bytes) {
      b *= times;
      any |= b > 0;
    }
    group.cycles *= times;
    if (any)
      eval.transfers.push_back(std::move(group));
  };
  record(stream, steps);
  record(rotation, steps);
  record(partialSums, steps);
  record(gradients, 1);
  return eval;
}

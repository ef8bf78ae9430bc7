//===- Mapping.cpp - Spatial mapping configurations and their cost --------===//

#include "dsm/Core/Spatial/Mapping.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace dsm::core;

llvm::StringRef dsm::core::stringifyParallelism(Parallelism p) {
  switch (p) {
  case Parallelism::Data:
    return "data";
  case Parallelism::Model:
    return "model";
  case Parallelism::DataXModelY:
    return "data_x_model_y";
  case Parallelism::ModelXDataY:
    return "model_x_data_y";
  }
  llvm_unreachable("unknown Parallelism");
}

TorusRole dsm::core::roleAlongX(Parallelism p) {
  return p == Parallelism::Data || p == Parallelism::DataXModelY
             ? TorusRole::Minibatch
             : TorusRole::Features;
}

TorusRole dsm::core::roleAlongY(Parallelism p) {
  return p == Parallelism::Data || p == Parallelism::ModelXDataY
             ? TorusRole::Minibatch
             : TorusRole::Features;
}

llvm::StringRef dsm::core::stringifyLink(Link link) {
  switch (link) {
  case Link::MemoryBus:
    return "memory_bus";
  case Link::OnChip:
    return "on_chip";
  case Link::TorusX:
    return "torus_x";
  case Link::TorusY:
    return "torus_y";
  }
  llvm_unreachable("unknown Link");
}

DimSizes ArrayMapping::arrayD() const {
  DimSizes sizes = {1, 1, 1, 1, 1};
  sizes[int(rowDim)] = rowTile;
  sizes[int(colDim)] = colTile;
  return sizes;
}

llvm::StringRef dsm::core::stringifyCycleCategory(CycleCategory category) {
  switch (category) {
  case CycleCategory::Useful:
    return "useful";
  case CycleCategory::Underuse:
    return "underuse";
  case CycleCategory::OvldtVisible:
    return "ovldt_visible";
  case CycleCategory::NonOvldt:
    return "non_ovldt";
  case CycleCategory::AuxComp:
    return "aux_comp";
  }
  llvm_unreachable("unknown cycle category");
}

double CycleBreakdown::get(CycleCategory category) const {
  switch (category) {
  case CycleCategory::Useful:
    return useful;
  case CycleCategory::Underuse:
    return underuse;
  case CycleCategory::OvldtVisible:
    return ovldtVisible;
  case CycleCategory::NonOvldt:
    return nonOvldt;
  case CycleCategory::AuxComp:
    return auxComp;
  }
  llvm_unreachable("unknown cycle category");
}

CycleBreakdown &CycleBreakdown::operator+=(const CycleBreakdown &o) {
  useful += o.useful;
  underuse += o.underuse;
  ovldtVisible += o.ovldtVisible;
  nonOvldt += o.nonOvldt;
  auxComp += o.auxComp;
  total += o.total;
  return *this;
}

void dsm::core::mergeTransfers(std::vector<TransferGroup> &groups,
                               const std::vector<TransferGroup> &more) {
  for (const TransferGroup &group : more) {
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const TransferGroup &g) {
          return g.name == group.name;
        });
    if (it == groups.end()) {
      groups.push_back(group);
      continue;
    }
    for (int l = 0; l < kNumLinks; ++l)
      it->bytes[l] += group.bytes[l];
    if (group.cycles > it->cycles)
      it->bottleneck = group.bottleneck;
    it->cycles += group.cycles;
  }
}

DimSizes dsm::core::splitSizes(const DimSizes &sizes, const DimSizes &split) {
  DimSizes result;
  for (int d = 0; d < kNumDims; ++d)
    result[d] = llvm::divideCeil(sizes[d], split[d]);
  return result;
}

int64_t dsm::core::product(const DimSizes &sizes) {
  int64_t result = 1;
  for (int64_t s : sizes)
    result *= s;
  return result;
}

CycleBreakdown dsm::core::recomputationCycles(CycleBreakdown forward) {
  forward.underuse += forward.useful;
  forward.useful = 0;
  return forward;
}

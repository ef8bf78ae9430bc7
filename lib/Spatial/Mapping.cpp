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

ParallelismDegrees dsm::core::degreesOf(Parallelism p, int64_t columns,
                                        int64_t rows) {
  switch (p) {
  case Parallelism::Data:
    return {1, columns * rows};
  case Parallelism::Model:
    return {columns * rows, 1};
  case Parallelism::DataXModelY:
    return {rows, columns};
  case Parallelism::ModelXDataY:
    return {columns, rows};
  }
  llvm_unreachable("unknown Parallelism");
}

llvm::Expected<Parallelism> dsm::core::parallelismOfDegrees(int64_t columns,
                                                            int64_t rows,
                                                            int64_t tensor,
                                                            int64_t data) {
  std::vector<Parallelism> matches;
  std::string offered;
  // The hybrids first: they name an axis for each degree.
  for (Parallelism p : {Parallelism::ModelXDataY, Parallelism::DataXModelY,
                        Parallelism::Model, Parallelism::Data}) {
    // The hybrids need a torus of at least 2 x 2 (PerformanceModel::
    // isAvailable).
    bool hybrid =
        p == Parallelism::ModelXDataY || p == Parallelism::DataXModelY;
    if (hybrid && (columns < 2 || rows < 2))
      continue;
    ParallelismDegrees d = degreesOf(p, columns, rows);
    offered += (offered.empty() ? "" : ", ") + std::to_string(d.tensor) +
               " x " + std::to_string(d.data) + " (" +
               stringifyParallelism(p).str() + ")";
    if ((tensor == 0 || tensor == d.tensor) && (data == 0 || data == d.data))
      matches.push_back(p);
  }
  auto named = [&] {
    return "tensor=" + std::to_string(tensor) +
           " data=" + std::to_string(data) + " on " + std::to_string(columns) +
           " x " + std::to_string(rows) + " chips";
  };
  if (matches.empty())
    return llvm::createStringError(
        named() + ": the degrees of tensor x data parallelism there are " +
        offered);
  if (matches.size() > 1)
    return llvm::createStringError(
        named() + " is " + stringifyParallelism(matches[0]).str() + " or " +
        stringifyParallelism(matches[1]).str() +
        ": name one with parallelism=");
  return matches.front();
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
  case Link::Host:
    return "host";
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
    for (int l = 0; l < kNumLinks; ++l) {
      it->bytes[l] += group.bytes[l];
      it->steps[l] += group.steps[l];
    }
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

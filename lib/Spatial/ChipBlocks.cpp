//===- ChipBlocks.cpp - Plans on part of the torus ------------------------===//

#include "dsm/Core/Spatial/ChipBlocks.h"

#include "llvm/ADT/STLExtras.h"

using namespace dsm::core;

MultiChipSystem dsm::core::blockSystem(const MultiChipSystem &system,
                                       int64_t rows, int64_t columns) {
  MultiChipSystem block = system;
  block.torus.x = system.torus.x.part(columns);
  block.torus.y = system.torus.y.part(rows);
  block.chips = rows * columns;
  return block;
}

llvm::Expected<MultiChipSystem>
dsm::core::regroupInnermost(const MultiChipSystem &system, int64_t columns) {
  const NetworkDimension &inner = system.torus.x;
  if (columns == inner.size)
    return system;
  if (columns < 1 || inner.size % columns != 0)
    return llvm::createStringError(std::to_string(columns) +
                                   " chips do not divide the network's "
                                   "innermost dimension of " +
                                   std::to_string(inner.size));
  if (inner.topology != NetworkTopology::Switch)
    return llvm::createStringError(
        "a group of " + std::to_string(columns) + " of the innermost " +
        std::to_string(inner.size) + " chips is a part of a " +
        stringifyNetworkTopology(inner.topology).str() +
        ", not a network dimension of its own: only a switch regroups");
  MultiChipSystem result = system;
  result.torus.x.size = columns;
  NetworkDimension &outer = result.torus.y;
  if (system.torus.y.size == 1)
    outer = inner;
  outer.size = inner.size / columns * system.torus.y.size;
  // The node's other chips reach the outer dimension each on its own link:
  // rails, crossing the node on its links (a single node's outer dimension
  // is the node's links themselves).
  if (system.torus.y.size > 1) {
    outer.rails = inner.size / columns;
    outer.railNodeBandwidth = inner.ringBandwidth();
  }
  if (columns == 1)
    result.torus.x.bandwidth = 0;
  return result;
}

static std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> result;
  for (int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) {
      result.push_back(d);
      if (d != n / d)
        result.push_back(n / d);
    }
  return result;
}

std::vector<ChipBlock> dsm::core::candidateBlocks(const TorusSpec &torus) {
  std::vector<ChipBlock> blocks;
  for (int64_t rows : divisors(torus.y.size))
    for (int64_t columns : divisors(torus.x.size))
      if (rows != torus.y.size || columns != torus.x.size)
        blocks.push_back({rows, columns});
  llvm::sort(blocks, [](const ChipBlock &a, const ChipBlock &b) {
    int64_t chipsA = a.rows * a.columns, chipsB = b.rows * b.columns;
    return chipsA != chipsB ? chipsA > chipsB : a.rows > b.rows;
  });
  return blocks;
}

CycleBreakdown dsm::core::chargeIdleChips(CycleBreakdown cycles,
                                          double activeShare) {
  double idle = cycles.useful * (1 - activeShare);
  cycles.useful -= idle;
  cycles.underuse += idle;
  return cycles;
}

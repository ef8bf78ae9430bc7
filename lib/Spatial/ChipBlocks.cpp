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

//===- ChipBlocks.h - Plans on part of the torus ----------------*- C++ -*-===//
//
// DeepSpatialMatrix splits every layer over every chip. A network that cannot
// (a minibatch of 1 over 64 chips by data parallelism, 32 channels over 64 by
// model parallelism), or that runs faster on fewer chips (more communication
// than work), runs on a block of the torus instead: `rows` x `columns` chips,
// the other chips idle. The mapper (SpatialMapper.h) maps the network on the
// whole torus and on every candidate block whose work could still beat the
// best plan so far, and keeps the fastest; so a plan on the torus is never
// slower than the best plan on any of its candidate blocks.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SPATIAL_CHIPBLOCKS_H
#define DSM_CORE_SPATIAL_CHIPBLOCKS_H

#include "dsm/Core/Spatial/Mapping.h"
#include "dsm/Core/System/SystemDescription.h"

#include "llvm/Support/Error.h"

#include <vector>

namespace dsm::core {

/// The network a block of `rows` x `columns` chips of `system` forms
/// (NetworkDimension::part): along a torus direction the block does not span
/// it has no wrap-around link, and a line of chips has half the bisection of
/// a ring, so it sees half the link bandwidth (none with a single chip along
/// it); a switch serves the block at full bandwidth. Requires 1 <= rows <=
/// torus.y.size and 1 <= columns <= torus.x.size.
MultiChipSystem blockSystem(const MultiChipSystem &system, int64_t rows,
                            int64_t columns);

/// `system` with its innermost dimension, a switch, regrouped so that it
/// holds `columns` chips (a divisor of its size): the tensor-parallel group
/// a user names inside a node (tensor 4 of a DGX's 8 GPUs). Every pair of a
/// switch is joined at full port bandwidth, so the `columns` chips are a
/// switch of their own; the node's other chips join the outer dimension,
/// which keeps its links where there are several nodes (the slower ones: a
/// ring through a node and the nodes' network runs at the latter) and takes
/// the switch's where there is one node. An error when the innermost
/// dimension is not a switch or `columns` does not divide it.
llvm::Expected<MultiChipSystem> regroupInnermost(const MultiChipSystem &system,
                                                 int64_t columns);

/// The blocks a plan may run on besides the whole torus: every rows x columns
/// whose sides divide the torus's (so that blocks tile it), the most chips
/// first, then the most rows.
std::vector<ChipBlock> candidateBlocks(const TorusSpec &torus);

/// `cycles` spent by `activeShare` (in (0, 1]) of the system's chips, charged
/// to the whole system: the idle chips' share of the useful cycles is
/// under-use, so useful / total is the system's utilization. The total is
/// unchanged.
CycleBreakdown chargeIdleChips(CycleBreakdown cycles, double activeShare);

} // namespace dsm::core

#endif // DSM_CORE_SPATIAL_CHIPBLOCKS_H

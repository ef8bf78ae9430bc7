//===- PlanBounds.h - What no plan of a problem can beat --------*- C++ -*-===//
//
// Lower bounds on the cycles of every plan of a MappingProblem, known before
// it is solved: what lets the mapper skip a mapping that cannot beat the
// best plan so far (SpatialMapper::mapOnBlocks).
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SPATIAL_PLANBOUNDS_H
#define DSM_CORE_SPATIAL_PLANBOUNDS_H

#include "dsm/Core/Spatial/MappingProblem.h"

namespace dsm::core {

/// At most the cycles of every plan the solver can give for `problem`,
/// whatever it selects and whatever its memory decisions -- on any
/// scratchpad, with weights preloaded into at most the problem's
/// scratchpad per core (every plan of a preloading sweep): each pass at
/// least its compute under the cheapest option
/// (DesignSpaceExplorer::computeBound), each FWD at least its unavoidable
/// external-memory traffic spread evenly over the chips
/// (PerformanceModel::leastForwardTraffic), less what preloading can keep
/// on chip; relayouts, transfers and savers only add. Layers that may run
/// as timestep pipe stages, whose passes overlap, count nothing. A bound
/// holds for plans whose layers each run on every chip of the problem's
/// torus.
double planCyclesLowerBound(const MappingProblem &problem);

} // namespace dsm::core

#endif // DSM_CORE_SPATIAL_PLANBOUNDS_H

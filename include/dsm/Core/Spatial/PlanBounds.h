//===- PlanBounds.h - What no plan of a problem can beat --------*- C++ -*-===//
//
// Lower bounds on the cycles of every plan of a MappingProblem, known before
// it is solved: what lets the mapper skip a mapping that cannot beat the
// best plan so far (MappingDriver::mapOnBlocks).
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SPATIAL_PLANBOUNDS_H
#define DSM_CORE_SPATIAL_PLANBOUNDS_H

#include "dsm/Core/Spatial/MappingProblem.h"

#include "llvm/Support/Error.h"

#include <limits>
#include <memory>
#include <vector>

namespace dsm::core {

class Executor;
struct SweepMemo;
/// What bounds a pipeline stage's plans that fit its chips' memory, of
/// each layer of a network (leastPipelinedCycles gives it).
struct LayerFitFigures;

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

/// Whether some plan of `problem` may fit its chips' memory: false when
/// even the least any plan holds per chip does not -- every layer's
/// parameters with their gradients and optimizer state sharded over all the
/// chips (the optimizer state on the host, where a host link is declared),
/// under any savers, before activations and buffers. A block of the torus
/// too small for that needs no mapping (MappingDriver::mapOnBlocks).
bool mayFitMemory(const MappingProblem &problem);

/// At most the cycles per microbatch of the passes of every pipeline stage
/// plan of `problem`'s layers (a network at a microbatch size on a stage's
/// torus, PipelineParallelism.h), less what a pipeline spends once a step
/// (oncePerStepCycles): each pass's least explored evaluation, which
/// realisation, relayouts and savers only add to. A pipeline of p stages
/// and m microbatches then takes at least (m + p - 1) / p of it a step
/// (MappingDriver::searchPipelines). Explores as a mapping does, into `memo`
/// when given (the stages' mappings then find the explorations there).
/// `perLayer`, when given, receives each layer's share (infinite for a
/// layer with no legal mapping).
/// `fitFigures`, when given, receives what leastStageCyclesThatFit needs of
/// the layers where that least is below `fitFiguresBelow` (null elsewhere:
/// no pipeline of it is planned).
llvm::Expected<double> leastPipelinedCycles(
    const MappingProblem &problem, Executor &executor,
    ExplorationProgress &progress, SweepMemo *memo = nullptr,
    std::vector<double> *perLayer = nullptr,
    std::shared_ptr<const LayerFitFigures> *fitFigures = nullptr,
    double fitFiguresBelow = std::numeric_limits<double>::infinity());

/// At most the cycles per microbatch, counted as leastPipelinedCycles
/// counts them, of every plan that fits its chips' memory, under any memory
/// savers, of `stage`: a pipeline stage (with its microbatches in flight,
/// MappingProblem::setActivationCopies) whose layer i is layer first + i of
/// the network whose `figures` leastPipelinedCycles gave, on the same
/// torus at the same microbatch size. Infinity where none fits. Far above
/// the explored least where memory binds: the pipeline search prunes with
/// it what would otherwise be mapped stage by stage.
double leastStageCyclesThatFit(const LayerFitFigures &figures, int first,
                               const MappingProblem &stage);

} // namespace dsm::core

#endif // DSM_CORE_SPATIAL_PLANBOUNDS_H

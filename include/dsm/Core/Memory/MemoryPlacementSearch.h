//===- MemoryPlacementSearch.h - Searches for a memory map ------*- C++ -*-===//
//
// The searches of Khadka et al. (EGRL), §4 "Baselines", each selected by name
// and seeded, with a budget of iterations = maps evaluated (the paper's
// "inference process on the physical hardware", counted across the
// population):
//
//   compiler   the rule-based baseline, greedy by reuse and by the order of
//              need: an activation (written once, read by each consumer)
//              asks for SRAM, weights (read once per inference, streamed as
//              a throughput-tuned compiler does) ask for the LLC, and the
//              rectifier's first-come-first-served allocation in topological
//              order (activation before weights) demotes what does not fit;
//              deterministic, one evaluation (docs/memory-placement.md says
//              why these rules)
//   greedy-dp  the paper's greedy dynamic programming: from the all-DRAM map
//              (App. B, "initial mapping action"), for each node in turn try
//              its 9 maps with the rest fixed and keep the best reward;
//              repeat passes until the budget ends or a pass changes nothing
//   ea         the evolutionary algorithm alone (App. B/C: population 20,
//              elites, tournament selection, single-point crossover with an
//              elite, mutation)
//   egrl       the paper's Algorithm 2: the EA's population with Boltzmann
//              chromosomes, a Graph U-Net policy trained by discrete SAC
//              from a replay buffer of every map evaluated, migrated into
//              the population (App. C-E; needs libtorch, DSM_ENABLE_TORCH)
//   pg         that policy-gradient learner alone, the paper's "PG"
//   ilp        the exact optimum of the same cost model as a mixed-integer
//              program (GLPK), which none of the paper's methods had
//
// Results depend only on the inputs, the options and the seed: populations
// are evaluated through the Executor into per-index slots. The searches
// report each map evaluated to the options' Progress and, asked to stop,
// return at the next generation (egrl, ea), node (greedy-dp) or branch
// (ilp) with the best map so far, marked `interrupted`.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_MEMORY_MEMORYPLACEMENTSEARCH_H
#define DSM_CORE_MEMORY_MEMORYPLACEMENTSEARCH_H

#include "dsm/Core/Memory/MemoryPlacementEvaluator.h"
#include "dsm/Core/Memory/MemorySearchOptions.h"
#include "dsm/Core/Support/Executor.h"
#include "dsm/Core/Support/Progress.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace dsm::core::memory {

enum class PlacementSearchKind { Compiler, GreedyDP, EA, EGRL, PG, ILP };

llvm::StringRef stringifyPlacementSearchKind(PlacementSearchKind kind);
std::optional<PlacementSearchKind>
symbolizePlacementSearchKind(llvm::StringRef name);
/// "compiler, greedy-dp, ea, egrl, pg, ilp" (for error messages and help).
llvm::StringRef getPlacementSearchNames();

/// Runs the search `kind`. Fails only for `ilp` when the solver is missing or
/// gives up without any solution, and for `egrl` and `pg` when built without
/// libtorch.
llvm::Expected<PlacementSearchResult>
runPlacementSearch(PlacementSearchKind kind,
                   const PlacementEvaluator &evaluator,
                   const PlacementSearchOptions &options, Executor &executor);

/// The error of a result its Progress interrupted: "interrupted after <n> of
/// <iterations> iterations" (an InterruptedError), for ilp "interrupted
/// before the ILP solver finished"; success when it was not interrupted.
llvm::Error checkNotInterrupted(PlacementSearchKind kind,
                                const PlacementSearchResult &result,
                                const PlacementSearchOptions &options);

/// Whether dsm-opt was built with the ILP solver (DSM_ENABLE_GLPK).
bool isIlpSolverAvailable();

/// Whether the learned searches, egrl and pg, can run: dsm-opt was built
/// with libtorch (DSM_ENABLE_TORCH) and its learner module loads (which this
/// does, once per process).
bool isPolicyLearnerAvailable();

} // namespace dsm::core::memory

#endif // DSM_CORE_MEMORY_MEMORYPLACEMENTSEARCH_H

//===- ExternalEvaluator.h - A map's latency measured elsewhere -*- C++ -*-===//
//
// The paper's loop runs every map on the NNP-I chip (Khadka et al., Alg. 1:
// "run an inference call on hardware"). With `evaluator=<program>` a user
// with hardware (or another simulator) does the same: the searches send each
// valid map to the program and optimise the latency it reports, instead of
// the cost model's. Validity and rectification stay the CapacityChecker's.
//
// The protocol (docs/memory-placement.md): the program is run as
// `<program> <map.json>`, where the file holds
//
//   {"nodes": [{"name": ..., "weights": {"bytes": N, "level": "sram"},
//               "activations": {"bytes": N, "level": "llc"}}, ...]}
//
// in schedule order, and prints the measured latency in seconds as the first
// word of its standard output, exiting 0. Anything else -- a non-zero exit,
// a signal, no number, a latency below 1 ns or above 1e15 s (no
// measurement), no answer within the time limit -- is an error that names
// the program and says why, and ends the search.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_MEMORY_EXTERNALEVALUATOR_H
#define DSM_CORE_MEMORY_EXTERNALEVALUATOR_H

#include "dsm/Core/Memory/MemoryGraph.h"
#include "dsm/Core/Memory/MemoryMap.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <string>

namespace dsm::core::memory {

/// A map's latency in seconds, or why it could not be measured.
using LatencyMeasure = std::function<llvm::Expected<double>(const MemoryMap &)>;

/// The measure that runs `program` (a path, or a name looked up in PATH) on
/// each map of `graph`'s nodes, waiting at most `timeoutSeconds` (> 0) for
/// each. Fails when the program cannot be found. `graph` must outlive it.
llvm::Expected<LatencyMeasure> makeExternalMeasure(const MemoryGraph &graph,
                                                   llvm::StringRef program,
                                                   unsigned timeoutSeconds);

/// The file the program reads: the map of `graph`'s nodes as JSON.
void writeMapForEvaluator(const MemoryGraph &graph, const MemoryMap &map,
                          llvm::raw_ostream &os);

} // namespace dsm::core::memory

#endif // DSM_CORE_MEMORY_EXTERNALEVALUATOR_H

//===- MemoryPlacementReport.h - What a memory map achieved -----*- C++ -*-===//
//
// The report of --dsm-place-memory, as a table or JSON
// (docs/memory-placement.md documents both): the search and its budget, the
// latency against the compiler's map, validity, every tensor with its bytes,
// level and live range, the peak bytes per level against its capacity, and the
// search's best-so-far speedup at each iteration where it improved.
// Deterministic: no wall-clock figures, so the same seed gives the same report.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_MEMORY_MEMORYPLACEMENTREPORT_H
#define DSM_CORE_MEMORY_MEMORYPLACEMENTREPORT_H

#include "dsm/Core/Memory/MemoryPlacementSearch.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <utility>
#include <vector>

namespace dsm::core::memory {

/// One graph (one function of the module) and its placement.
struct PlacementReport {
  std::string systemName;
  std::string graphName;
  const PlacementEvaluator *evaluator = nullptr;
  PlacementSearchKind kind = PlacementSearchKind::Compiler;
  PlacementSearchOptions options;
  PlacementSearchResult result;
  /// The program that measured the latencies (empty: the cost model).
  std::string evaluatorProgram;
  /// A signal stopped the search: the map is its best so far.
  bool interrupted = false;
  /// The search's wall-clock budget (0: none), and whether it ended it.
  double timeBudgetSeconds = 0;
  bool timeBudgetReached = false;
};

/// (iteration counted from 1, best speedup) wherever the best improved.
std::vector<std::pair<int64_t, double>>
getBestSoFarSteps(const PlacementSearchResult &result);

void printPlacementTable(llvm::ArrayRef<PlacementReport> reports,
                         llvm::raw_ostream &os);
/// Streamed with llvm::json::OStream: {"placements": [...]}.
void writePlacementJSON(llvm::ArrayRef<PlacementReport> reports,
                        llvm::raw_ostream &os);
/// One CSV row per tensor: function, node, tensor, bytes, level,
/// compiler_level, live_first, live_last.
void writePlacementCSV(llvm::ArrayRef<PlacementReport> reports,
                       llvm::raw_ostream &os);

} // namespace dsm::core::memory

#endif // DSM_CORE_MEMORY_MEMORYPLACEMENTREPORT_H

//===- DecisionRecords.h - How each memory decision is recorded -*- C++ -*-===//
//
// A layer pass's memory decisions (Mapping.h's MemoryDecision) come in
// records, one per add-on or strategy that makes them: reuse, spatial
// minibatching, preloading, the pipeline stage, recomputation and sharding.
// A record names its fields (the keys of #dsm.memory_decision and of the
// JSON report), says which of its values go together, and how the
// decision reads in the explain remarks, the HTML table and the memory
// savers' summary. Every consumer that writes or shows a decision walks
// the records, so a new decision is a field of its record and the add-on
// that decides it, not a branch in each writer.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SPATIAL_DECISIONRECORDS_H
#define DSM_CORE_SPATIAL_DECISIONRECORDS_H

#include "dsm/Core/Spatial/Mapping.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace dsm::core {

struct LayerNode;
class PerformanceModel;

/// What a report row's cell shows beside the decision: the share of the
/// pass's weights preloaded, and the pipeline stage it runs in as the HTML
/// report marks it ("" where it runs in none).
struct DecisionCellContext {
  double residentWeightFraction = 0;
  std::string stage;
};

/// "row 3" or "rows 0-7".
std::string describeTorusRows(int64_t firstRow, int64_t rows);

/// Where a pass's decision is made, for a record's checks in a plan
/// (verifyPlan, MappingPlan.h).
struct DecisionInPlan {
  const LayerNode &layer;
  TrainingPass pass;
  const MemoryDecision &decision;
  const PerformanceModel &model;
};

/// One value of a memory decision: a flag or a count, under the key the IR
/// (#dsm.memory_decision) and the JSON report give it.
struct DecisionField {
  llvm::StringLiteral key = "";
  /// The JSON report's key, where it differs from `key` ("": the same).
  llvm::StringLiteral reportKey = "";
  /// A flag (true/false) rather than a count.
  bool flag = false;
  int64_t defaultValue = 0;
  int64_t (*get)(const MemoryDecision &) = nullptr;
  void (*set)(MemoryDecision &, int64_t) = nullptr;
  /// The JSON report lists the field only where it is set (a decision only
  /// some systems can make), not on every row.
  bool reportedOnlyWhenSet = false;
  /// A memory saver (StepMemory.h) on a FWD pass: the summary counts the
  /// layers that use it under these words ("": not a saver), and the JSON
  /// under `<key>_layers`.
  llvm::StringLiteral saverWords = "";
  llvm::StringLiteral saverKey = "";

  llvm::StringRef jsonKey() const {
    return reportKey.empty() ? llvm::StringRef(key)
                             : llvm::StringRef(reportKey);
  }
  bool isSet(const MemoryDecision &decision) const {
    return get(decision) != defaultValue;
  }
};

/// The decisions one add-on or strategy makes, and how they read.
struct DecisionRecord {
  /// What the record decides, as the HTML table's column heads it.
  llvm::StringLiteral heading = "";
  llvm::ArrayRef<DecisionField> fields;
  /// Why the record's values do not go together ("": they do); the IR
  /// attribute's verifier.
  std::string (*check)(const MemoryDecision &) = nullptr;
  /// Why the record's decision cannot be this pass's in a plan ("": it can):
  /// the pass it belongs to, the layer it needs, the system it needs.
  std::string (*checkInPlan)(const DecisionInPlan &) = nullptr;
  /// The explain remark's words for the record's decision (none where it
  /// decides nothing).
  void (*explain)(const MemoryDecision &, std::vector<std::string> &) = nullptr;
  /// The HTML table's cell (HTML, "" where it decides nothing).
  std::string (*cell)(const MemoryDecision &,
                      const DecisionCellContext &) = nullptr;
  /// The cell is a number, right-aligned as the table's others.
  bool numeric = false;
};

/// The records, in the order the IR, explain and the reports list them.
llvm::ArrayRef<const DecisionRecord *> decisionRecords();

/// Every field of every record, in that order.
void forEachDecisionField(llvm::function_ref<void(const DecisionField &)> fn);

/// The field whose IR key is `key`, or nullptr.
const DecisionField *findDecisionField(llvm::StringRef key);

/// Why `decision`'s values do not go together ("": they do).
std::string checkDecision(const MemoryDecision &decision);
/// Why the decision cannot be its pass's in a plan, record by record ("": it
/// can).
std::string checkDecisionInPlan(const DecisionInPlan &where);

/// The explain remark's words for `decision`, record by record.
std::vector<std::string> explainDecision(const MemoryDecision &decision);

/// For the IR attribute's storage.
llvm::hash_code hash_value(const MemoryDecision &decision);

} // namespace dsm::core

#endif // DSM_CORE_SPATIAL_DECISIONRECORDS_H

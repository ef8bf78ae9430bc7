//===- DecisionRecords.cpp - How each memory decision is recorded ---------===//
//
// One record per add-on or strategy that makes a memory decision: its
// fields, which values go together, and how the decision reads. The
// records' order is the order in which the IR attribute, the explain
// remarks and the reports list them.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Spatial/DecisionRecords.h"

#include "dsm/Core/Spatial/LayerGraph.h"
#include "dsm/Core/Spatial/PerformanceModel.h"
#include "dsm/Core/Spatial/StepMemory.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <type_traits>

using namespace dsm::core;

namespace {

/// A field stored in `Member` of MemoryDecision (a flag where it is a bool).
template <auto Member>
DecisionField field(llvm::StringLiteral key, int64_t defaultValue = 0) {
  using Value =
      std::remove_reference_t<decltype(std::declval<MemoryDecision &>().*
                                       Member)>;
  DecisionField f;
  f.key = key;
  f.flag = std::is_same_v<Value, bool>;
  f.defaultValue = defaultValue;
  f.get = [](const MemoryDecision &d) { return int64_t(d.*Member); };
  f.set = [](MemoryDecision &d, int64_t value) { d.*Member = Value(value); };
  return f;
}

DecisionField reportedAs(DecisionField f, llvm::StringLiteral reportKey) {
  f.reportKey = reportKey;
  return f;
}

DecisionField saver(DecisionField f, llvm::StringLiteral words,
                    llvm::StringLiteral key) {
  f.saverWords = words;
  f.saverKey = key;
  return f;
}

DecisionField onlyWhenSet(DecisionField f) {
  f.reportedOnlyWhenSet = true;
  return f;
}

/// The explain words of a record whose set fields read as their keys.
template <const std::vector<DecisionField> &Fields>
void explainByKeys(const MemoryDecision &d, std::vector<std::string> &words) {
  for (const DecisionField &f : Fields)
    if (f.isSet(d))
      words.push_back(f.key.str());
}

/// `text`, then `word` after a comma where `text` has something already.
void append(std::string &text, llvm::StringRef word) {
  text += (text.empty() ? "" : ", ") + word.str();
}

//===----------------------------------------------------------------------===//
// Reuse (DeepSpatialMatrix §III-B): ActivationReuse, ShortcutRetention,
// ShortcutErrorRetention and SpatialMinibatchGroups decide what a pass finds
// in, or leaves in, the cores' scratchpads; an LSTM's explorer keeps its
// weights across timesteps.
//===----------------------------------------------------------------------===//

const std::vector<DecisionField> kReuseFields = {
    field<&MemoryDecision::weightsAcrossSteps>("weight_reuse"),
    field<&MemoryDecision::inputOnChip>("input_reuse"),
    field<&MemoryDecision::errorOnChip>("error_reuse"),
    field<&MemoryDecision::shortcutOnChip>("shortcut_reuse"),
    field<&MemoryDecision::shortcutPerSpatialMinibatch>(
        "shortcut_per_spatial_minibatch"),
    field<&MemoryDecision::outputOnChip>("output_reuse"),
};

const DecisionRecord kReuse = {
    "reuse",
    kReuseFields,
    [](const MemoryDecision &d) -> std::string {
      if (d.shortcutPerSpatialMinibatch && !d.shortcutOnChip)
        return "shortcut_per_spatial_minibatch without shortcut_reuse";
      return "";
    },
    [](const DecisionInPlan &in) -> std::string {
      const MemoryDecision &m = in.decision;
      if (m.errorOnChip && in.pass == TrainingPass::FWD)
        return "finds an error on chip in a forward pass";
      if (m.outputOnChip && (in.pass != TrainingPass::FWD || in.layer.bwd))
        return "keeps its output on chip outside an inference forward pass";
      return "";
    },
    explainByKeys<kReuseFields>,
    [](const MemoryDecision &m, const DecisionCellContext &) {
      std::string text;
      if (m.weightsAcrossSteps)
        append(text, "weights");
      if (m.inputOnChip)
        append(text, "input");
      if (m.errorOnChip)
        append(text, "error");
      if (m.shortcutOnChip)
        append(text, m.shortcutPerSpatialMinibatch ? "shortcut (per DySM part)"
                                                   : "shortcut");
      if (m.outputOnChip)
        append(text, "output");
      return text;
    }};

//===----------------------------------------------------------------------===//
// Dynamic spatial minibatching (DeepSpatialMatrix §III-C): the explorer's
// DySM factor, SpatialMinibatchGroups' groups.
//===----------------------------------------------------------------------===//

const std::vector<DecisionField> kSpatialMinibatchFields = {
    reportedAs(field<&MemoryDecision::spatialMinibatches>("dysm", 1),
               "dysm_factor"),
};

const DecisionRecord kSpatialMinibatches = {
    "DySM",
    kSpatialMinibatchFields,
    [](const MemoryDecision &d) -> std::string {
      if (d.spatialMinibatches < 1)
        return llvm::formatv("dysm factor must be at least 1, got {0}",
                             d.spatialMinibatches);
      return "";
    },
    [](const DecisionInPlan &) { return std::string(); },
    [](const MemoryDecision &d, std::vector<std::string> &words) {
      if (d.spatialMinibatches > 1)
        words.push_back("dysm " + std::to_string(d.spatialMinibatches));
    },
    [](const MemoryDecision &m, const DecisionCellContext &) {
      return m.spatialMinibatches > 1 ? std::to_string(m.spatialMinibatches)
                                      : std::string();
    },
    /*numeric=*/true};

//===----------------------------------------------------------------------===//
// Weight preloading for inference (DeepSpatialMatrix §III-B2): the mapper's
// preloading sweep gives each layer a budget, the explorer uses it.
//===----------------------------------------------------------------------===//

const std::vector<DecisionField> kPreloadFields = {
    reportedAs(field<&MemoryDecision::preloadedWeightBytes>("preload"),
               "preloaded_weight_bytes"),
};

const DecisionRecord kPreload = {
    "preload",
    kPreloadFields,
    [](const MemoryDecision &d) -> std::string {
      if (d.preloadedWeightBytes < 0)
        return llvm::formatv(
            "preloaded weight bytes must not be negative, got {0}",
            d.preloadedWeightBytes);
      return "";
    },
    [](const DecisionInPlan &in) -> std::string {
      if (in.decision.preloadedWeightBytes > 0 &&
          (in.pass != TrainingPass::FWD || in.layer.bwd || in.layer.upd))
        return "preloads weights outside an inference forward pass";
      return "";
    },
    [](const MemoryDecision &d, std::vector<std::string> &words) {
      if (d.preloadedWeightBytes > 0)
        words.push_back("preload " + std::to_string(d.preloadedWeightBytes) +
                        " B");
    },
    [](const MemoryDecision &m, const DecisionCellContext &context) {
      if (m.preloadedWeightBytes <= 0)
        return std::string();
      return formatBytes(double(m.preloadedWeightBytes)) +
             llvm::formatv(" ({0:F0}%)", 100 * context.residentWeightFraction)
                 .str();
    }};

//===----------------------------------------------------------------------===//
// The stage a layer runs in: a timestep pipe group (PipeGroupSelection,
// DeepSpatialMatrix §III-D) or a pipeline stage and its schedule (the
// pipeline strategies, PipelineSearch).
//===----------------------------------------------------------------------===//

const std::vector<DecisionField> kStageFields = {
    field<&MemoryDecision::pipeGroup>("pipe_group", -1),
    field<&MemoryDecision::pipeFirstRow>("pipe_first_row"),
    field<&MemoryDecision::pipeRows>("pipe_rows"),
    field<&MemoryDecision::microbatches>("microbatches", 1),
    field<&MemoryDecision::gpipe>("gpipe"),
};

std::string checkStage(const MemoryDecision &d) {
  if (d.pipeGroup < -1 || d.pipeFirstRow < 0 || d.pipeRows < 0)
    return "pipe group, first row and rows must not be negative (pipe_group "
           "= -1: not pipelined)";
  if ((d.pipeGroup >= 0) != (d.pipeRows > 0))
    return llvm::formatv("a pipe stage has a pipe group and at least one row, "
                         "got pipe_group = {0} and pipe_rows = {1}",
                         d.pipeGroup, d.pipeRows);
  if (d.pipeGroup < 0 && d.pipeFirstRow != 0)
    return "pipe_first_row without a pipe group";
  if (d.microbatches < 1)
    return llvm::formatv("microbatches must be at least 1, got {0}",
                         d.microbatches);
  if (d.microbatches > 1 && d.pipeGroup < 0)
    return "microbatches without a pipe group (only a pipeline stage runs "
           "microbatches)";
  if (d.gpipe && d.microbatches <= 1)
    return "gpipe without microbatches (it schedules a pipeline's "
           "microbatches)";
  return "";
}

const DecisionRecord kStage = {
    "stage",
    kStageFields,
    checkStage,
    [](const DecisionInPlan &in) -> std::string {
      const MemoryDecision &d = in.decision;
      const int64_t torusRows = in.model.getSystem().torus.y.size;
      if (d.pipelined() && d.pipeFirstRow + d.pipeRows > torusRows)
        return llvm::formatv("runs on torus rows {0}-{1} of {2}",
                             d.pipeFirstRow, d.pipeFirstRow + d.pipeRows - 1,
                             torusRows);
      return "";
    },
    [](const MemoryDecision &d, std::vector<std::string> &words) {
      if (!d.pipelined())
        return;
      const int64_t lastRow = d.pipeFirstRow + d.pipeRows - 1;
      words.push_back(
          d.microbatches > 1
              ? llvm::formatv("pipeline stage on torus rows {0}-{1}, {2} "
                              "microbatches",
                              d.pipeFirstRow, lastRow, d.microbatches)
                    .str()
              : llvm::formatv("pipe group {0} on torus rows {1}-{2}",
                              d.pipeGroup, d.pipeFirstRow, lastRow)
                    .str());
    },
    [](const MemoryDecision &m, const DecisionCellContext &context) {
      if (!m.pipelined())
        return std::string();
      return (context.stage.empty()
                  ? "pipe group " + std::to_string(m.pipeGroup)
                  : context.stage) +
             ", " + describeTorusRows(m.pipeFirstRow, m.pipeRows);
    }};

//===----------------------------------------------------------------------===//
// Sharding over the chips that hold copies of a weight (CapacityFit's
// savers, StepMemory.h): ZeRO stages 1, 2 and 3, and ZeRO-Offload.
//===----------------------------------------------------------------------===//

const std::vector<DecisionField> kShardingFields = {
    saver(field<&MemoryDecision::shardedState>("sharded_state"),
          "training state sharded", "sharded_state_layers"),
    saver(field<&MemoryDecision::shardedWeights>("sharded_weights"),
          "weights sharded", "sharded_weights_layers"),
    // Only on a system with a host link, where it can be chosen.
    onlyWhenSet(saver(field<&MemoryDecision::offloadedState>("offloaded_state"),
                      "optimizer state offloaded to the host",
                      "offloaded_state_layers")),
    // Only where named (zero=1, shard=optimizer).
    onlyWhenSet(
        saver(field<&MemoryDecision::shardedOptimizer>("sharded_optimizer"),
              "optimizer state sharded", "sharded_optimizer_layers")),
};

const DecisionRecord kSharding = {
    "sharded",
    kShardingFields,
    [](const MemoryDecision &d) -> std::string {
      if (d.shardedWeights && !d.shardedState)
        return "sharded_weights without sharded_state";
      if (d.offloadedState && !d.shardedState)
        return "offloaded_state without sharded_state";
      if (d.shardedOptimizer && d.shardedState)
        return "sharded_optimizer with sharded_state (which shards the "
               "optimizer state already)";
      return "";
    },
    [](const DecisionInPlan &in) -> std::string {
      const MemoryDecision &d = in.decision;
      if (!(d.shardedState || d.shardedWeights || d.shardedOptimizer ||
            d.offloadedState))
        return "";
      if (in.pass != TrainingPass::FWD || !(in.layer.shape.params > 0))
        return "shards parameters outside the forward pass of a layer with "
               "parameters";
      if (d.offloadedState && !in.model.hasHostLink())
        return "offloads its state on a system whose chips have no host link";
      return "";
    },
    explainByKeys<kShardingFields>,
    [](const MemoryDecision &m, const DecisionCellContext &) {
      std::string text;
      if (m.shardedState)
        append(text, "state");
      if (m.shardedWeights)
        append(text, "weights");
      if (m.offloadedState)
        append(text, "optimizer offloaded");
      if (m.shardedOptimizer)
        append(text, "optimizer");
      return text;
    }};

//===----------------------------------------------------------------------===//
// Activation recomputation (CapacityFit's saver, StepMemory.h).
//===----------------------------------------------------------------------===//

const std::vector<DecisionField> kRecomputeFields = {
    saver(field<&MemoryDecision::recomputed>("recompute"),
          "activations recomputed", "recomputed_layers"),
};

const DecisionRecord kRecompute = {
    "recompute",
    kRecomputeFields,
    [](const MemoryDecision &) { return std::string(); },
    [](const DecisionInPlan &in) -> std::string {
      if (in.decision.recomputed &&
          (in.pass != TrainingPass::FWD || !(in.layer.bwd || in.layer.upd)))
        return "recomputes outside the forward pass of a trained layer";
      return "";
    },
    explainByKeys<kRecomputeFields>,
    [](const MemoryDecision &m, const DecisionCellContext &) {
      return std::string(m.recomputed ? "yes" : "");
    }};

const DecisionRecord *const kRecords[] = {
    &kReuse, &kSpatialMinibatches, &kPreload, &kStage, &kSharding, &kRecompute,
};

} // namespace

std::string dsm::core::describeTorusRows(int64_t first, int64_t rows) {
  if (rows == 1)
    return "row " + std::to_string(first);
  return "rows " + std::to_string(first) + "-" +
         std::to_string(first + rows - 1);
}

llvm::ArrayRef<const DecisionRecord *> dsm::core::decisionRecords() {
  return kRecords;
}

void dsm::core::forEachDecisionField(
    llvm::function_ref<void(const DecisionField &)> fn) {
  for (const DecisionRecord *record : kRecords)
    for (const DecisionField &f : record->fields)
      fn(f);
}

const DecisionField *dsm::core::findDecisionField(llvm::StringRef key) {
  for (const DecisionRecord *record : kRecords)
    for (const DecisionField &f : record->fields)
      if (f.key == key)
        return &f;
  return nullptr;
}

std::string dsm::core::checkDecision(const MemoryDecision &decision) {
  for (const DecisionRecord *record : kRecords)
    if (std::string why = record->check(decision); !why.empty())
      return why;
  return "";
}

std::string dsm::core::checkDecisionInPlan(const DecisionInPlan &where) {
  for (const DecisionRecord *record : kRecords)
    if (std::string why = record->checkInPlan(where); !why.empty())
      return why;
  return "";
}

std::vector<std::string>
dsm::core::explainDecision(const MemoryDecision &decision) {
  std::vector<std::string> words;
  for (const DecisionRecord *record : kRecords)
    record->explain(decision, words);
  return words;
}

llvm::hash_code dsm::core::hash_value(const MemoryDecision &decision) {
  llvm::hash_code hash = llvm::hash_value(0);
  forEachDecisionField([&](const DecisionField &f) {
    hash = llvm::hash_combine(hash, f.get(decision));
  });
  return hash;
}

bool MemoryDecision::operator==(const MemoryDecision &o) const {
  bool equal = true;
  forEachDecisionField([&](const DecisionField &f) {
    equal = equal && f.get(*this) == f.get(o);
  });
  return equal;
}

//===- VerifyMapping.cpp - --dsm-verify-mapping ---------------------------===//
//
// The cross-op half of a tiled pass's verification: is its mapping legal on
// the module's system, and does it cost what it records? Op verifiers stay
// local (an op verifies alone, in any module); this pass decodes the system
// once and re-runs the performance model that chose the mapping.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Spatial/ChipBlocks.h"
#include "dsm/Core/Spatial/PipelineParallelism.h"
#include "dsm/Core/Spatial/SpatialMapper.h"
#include "dsm/Core/Spatial/TimestepPipelining.h"
#include "dsm/Dialect/DsmOps.h"
#include "dsm/Passes/Passes.h"
#include "dsm/Passes/Spatial/MappedMemory.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

namespace dsm {
#define GEN_PASS_DEF_DSMVERIFYMAPPING
#include "dsm/Passes/Passes.h.inc"
} // namespace dsm

using namespace mlir;
using namespace dsm;

namespace {
struct VerifyMappingPass
    : public dsm::impl::DsmVerifyMappingBase<VerifyMappingPass> {
  using DsmVerifyMappingBase::DsmVerifyMappingBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool anyTiled = false;
    module.walk([&](TiledPassOp) { anyTiled = true; });
    if (!anyTiled)
      return markAllAnalysesPreserved();
    FailureOr<core::MultiChipSystem> multiChip =
        getModuleMultiChipSystem(module, "checking a spatial mapping");
    if (failed(multiChip))
      return signalPassFailure();
    core::PerformanceModel model(*multiChip);
    // Preloaded weights (inference) stay in the scratchpads for the whole
    // job: every pass of the function works beside all of them.
    DenseMap<Operation *, int64_t> preloadedPerFunction;
    module.walk([&](TiledPassOp op) {
      if (MemoryDecisionAttr memory = op.getMemoryAttr())
        preloadedPerFunction[op->getParentOp()] +=
            memory.getDecision().preloadedWeightBytes;
    });
    // Memory savers charge passes for their layer's FWD: recomputation (a
    // FWD marked `recompute` runs again, charged to the layer's first
    // backward pass, BWD else UPD), sharded weights (FWD and BWD gather
    // the FWD's share first) and offloaded state (the UPD exchanges the
    // shard with the host).
    DenseMap<Operation *, Operation *> recomputedForwardOf, gatheringForwardOf;
    DenseSet<Operation *> updatesOnHost;
    module.walk([&](func::FuncOp func) {
      llvm::StringMap<TiledPassOp> forward, backward, update;
      func.walk([&](TiledPassOp op) {
        (op.getPass() == TrainingPass::FWD   ? forward
         : op.getPass() == TrainingPass::BWD ? backward
                                             : update)[op.getLayer()] = op;
      });
      for (auto &entry : forward) {
        core::MemoryDecision memory = entry.second.getConfig().memory;
        if (memory.shardedWeights) {
          gatheringForwardOf[entry.second] = entry.second;
          if (TiledPassOp bwd = backward.lookup(entry.getKey()))
            gatheringForwardOf[bwd] = entry.second;
        }
        if (memory.offloadedState)
          if (TiledPassOp upd = update.lookup(entry.getKey()))
            updatesOnHost.insert(upd);
        if (!memory.recomputed)
          continue;
        TiledPassOp carrier = backward.lookup(entry.getKey());
        if (!carrier)
          carrier = update.lookup(entry.getKey());
        if (carrier)
          recomputedForwardOf[carrier] = entry.second;
      }
    });
    DenseMap<Operation *, core::CycleBreakdown> evaluated;
    WalkResult result = module.walk([&](TiledPassOp op) {
      const core::CycleBreakdown *recomputation = nullptr;
      if (Operation *forward = recomputedForwardOf.lookup(op)) {
        auto it = evaluated.find(forward);
        if (it == evaluated.end()) {
          op.emitOpError("is charged the recomputation of its layer's FWD, "
                         "which does not come before it");
          return WalkResult::interrupt();
        }
        recomputation = &it->second;
      }
      std::optional<core::MappingConfig> gathered;
      if (auto forward =
              dyn_cast_or_null<TiledPassOp>(gatheringForwardOf.lookup(op)))
        gathered = forward.getConfig();
      return succeeded(verify(op, model,
                              preloadedPerFunction.lookup(op->getParentOp()),
                              recomputation, gathered,
                              updatesOnHost.contains(op), evaluated[op]))
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    });
    if (result.wasInterrupted() || failed(verifyPipeGroups(module)) ||
        failed(verifyPipelineIdle(module)) ||
        failed(verifyMemory(module, model)))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }

  /// A pipelined function records its stages' wait, which no pass carries
  /// (a pipe stage's cycles are its own work, checked above).
  static LogicalResult verifyPipelineIdle(ModuleOp module) {
    DsmDialect::PipelineIdleAttrHelper idleAttr(module.getContext());
    for (auto func : module.getOps<func::FuncOp>()) {
      bool pipelined = false;
      func.walk([&](TiledPassOp op) {
        MemoryDecisionAttr memory = op.getMemoryAttr();
        pipelined |= memory && memory.getDecision().microbatches > 1;
      });
      if (pipelined && !idleAttr.isAttrPresent(func))
        return mlir::emitError(func.getLoc(),
                               "a pipelined plan records no dsm.pipeline_idle: "
                               "its stages' wait would be in no cycles");
    }
    return success();
  }

  /// The plan's memory per chip (memoryOfPlan) fits a chip, and a figure
  /// the mapper recorded holds what the IR holds: the IR's own count sees
  /// only the tensors between tiled passes, so it may not exceed the record
  /// -- by category where the plan is not pipelined, in total where it is
  /// (the two counts may find different stages fullest).
  LogicalResult verifyMemory(ModuleOp module,
                             const core::PerformanceModel &model) {
    DsmDialect::ChipMemoryAttrHelper recordedAttr(module.getContext());
    for (auto func : module.getOps<func::FuncOp>()) {
      std::optional<PlanMemory> plan = memoryOfPlan(func, model, optimizer);
      if (!plan)
        continue;
      if (recordedAttr.isAttrPresent(func)) {
        core::MemoryPerChip counted =
            *memoryOfMappedStep(func, model, optimizer);
        if (failed(verifyRecordHolds(func, plan->memory, counted,
                                     /*byCategory=*/plan->stage < 0)))
          return failure();
      }
      if (!plan->memory.fits())
        return mlir::emitError(func.getLoc(), "the mapped step needs ")
               << core::describeMemory(plan->memory)
               << " of memory per chip: it does not fit";
    }
    return success();
  }

  static LogicalResult verifyRecordHolds(func::FuncOp func,
                                         const core::MemoryPerChip &recorded,
                                         const core::MemoryPerChip &counted,
                                         bool byCategory) {
    // Both counts round each tensor up to whole bytes per chip.
    auto exceeds = [](double ir, double record) {
      return ir > record * (1 + 1e-9) + 1;
    };
    struct Part {
      const char *name;
      double counted, recorded;
    };
    const Part parts[] = {
        {"weights", counted.weights, recorded.weights},
        {"gradients", counted.gradients, recorded.gradients},
        {"optimizer", counted.optimizer, recorded.optimizer},
        {"activations", counted.activations, recorded.activations},
        {"buffers", counted.buffers, recorded.buffers},
        {"offloaded", counted.offloaded, recorded.offloaded}};
    const Part total{"total", counted.total(), recorded.total()};
    const Part *more = nullptr;
    for (const Part &part :
         byCategory ? llvm::ArrayRef<Part>(parts) : llvm::ArrayRef<Part>(total))
      if (exceeds(part.counted, part.recorded)) {
        more = &part;
        break;
      }
    if (!more)
      return success();
    return mlir::emitError(func.getLoc(), "the plan records ")
           << core::describeMemory(recorded)
           << " of memory per chip (dsm.chip_memory), but its tiled passes "
              "hold "
           << core::describeMemory(counted) << ": more " << more->name;
  }

  /// The stages of one pipe group run at once, each on its own chips: no
  /// two stages of a group (in one function and pass) share a torus row.
  static LogicalResult verifyPipeGroups(ModuleOp module) {
    using StageKey = std::tuple<Operation *, int64_t, int>;
    std::map<StageKey, SmallVector<TiledPassOp>> stages;
    // The layers of one stage of a pipeline share its rows: one stands for
    // them.
    std::set<std::tuple<StageKey, int64_t, int64_t>> pipelineStages;
    module.walk([&](TiledPassOp op) {
      MemoryDecisionAttr memory = op.getMemoryAttr();
      if (!memory || memory.getDecision().pipeGroup < 0)
        return;
      StageKey key{op->getParentOp(), memory.getDecision().pipeGroup,
                   int(op.getPass())};
      if (memory.getDecision().microbatches > 1 &&
          !pipelineStages
               .insert({key, memory.getDecision().pipeFirstRow,
                        memory.getDecision().pipeRows})
               .second)
        return;
      stages[key].push_back(op);
    });
    for (auto &[key, ops] : stages)
      for (size_t a = 0; a < ops.size(); ++a)
        for (size_t b = a + 1; b < ops.size(); ++b) {
          MemoryDecisionAttr first = ops[a].getMemoryAttr(),
                             second = ops[b].getMemoryAttr();
          if (first.getDecision().pipeFirstRow <
                  second.getDecision().pipeFirstRow +
                      second.getDecision().pipeRows &&
              second.getDecision().pipeFirstRow <
                  first.getDecision().pipeFirstRow +
                      first.getDecision().pipeRows)
            return ops[b].emitOpError("shares torus rows with '")
                   << ops[a].getLayer() << "', another stage of pipe group "
                   << std::get<1>(key);
        }
    return success();
  }

  /// Checks `op`; `recomputation` is the FWD cycles it is charged again
  /// (or nullptr), `gathered` the FWD configuration whose share of sharded
  /// weights it gathers first, `updatesOnHost` whether it exchanges its
  /// layer's state shard with the host; `evaluated` gets the model's cycles
  /// for it.
  static LogicalResult
  verify(TiledPassOp op, const core::PerformanceModel &model,
         int64_t preloadedBytes, const core::CycleBreakdown *recomputation,
         const std::optional<core::MappingConfig> &gathered, bool updatesOnHost,
         core::CycleBreakdown &evaluated) {
    // A plan on part of the torus runs on a block of it; a pipe stage
    // (timestep pipelining) on its block of torus rows.
    core::MappingConfig config = op.getConfig();
    const core::MultiChipSystem &system = model.getSystem();
    std::optional<core::PerformanceModel> blockModel, stageModel;
    if (!config.block.whole()) {
      int64_t rows = config.block.rows, columns = config.block.columns;
      if (system.torus.y.size % rows != 0 || system.torus.x.size % columns != 0)
        return op.emitOpError("runs on a block of ")
               << rows << " x " << columns << " chips, whose sides do not "
               << "divide the torus's " << system.torus.y.size << " x "
               << system.torus.x.size;
      blockModel.emplace(core::blockSystem(system, rows, columns));
    }
    const core::PerformanceModel &planModel = blockModel ? *blockModel : model;
    if (config.memory.pipelined()) {
      const core::MultiChipSystem &planSystem = planModel.getSystem();
      int64_t first = config.memory.pipeFirstRow, rows = config.memory.pipeRows;
      // A pipeline of one stage (gradient accumulation) holds every row;
      // a timestep pipe stage leaves rows to the others.
      const bool leavesRows = config.memory.microbatches <= 1;
      if ((leavesRows && rows >= planSystem.torus.y.size) ||
          first + rows > planSystem.torus.y.size)
        return op.emitOpError("is a pipe stage on torus rows ")
               << first << "-" << first + rows - 1 << ", but a stage leaves "
               << "rows to the others of a torus of " << planSystem.torus.y.size
               << " rows";
      stageModel.emplace(core::pipeStageSystem(planSystem, rows));
    }
    // A pipeline stage's configuration splits one microbatch.
    const int64_t microbatches = config.memory.microbatches;
    std::string whyNot;
    std::optional<core::Evaluation> eval = core::evaluateMappedPass(
        stageModel ? *stageModel : planModel,
        core::microbatchShape(op.getWorkload().getShape(op.getLayer()),
                              microbatches),
        toCore(op.getPass()), config, &whyNot);
    if (!eval)
      return op.emitOpError("has an illegal mapping: ") << whyNot;
    evaluated = eval->cycles;
    double capacity = model.getSystem().chip.core.scratchpad.capacityBytes;
    if (preloadedBytes > 0 &&
        eval->scratchpadBytes + double(preloadedBytes) > capacity)
      return op.emitOpError("needs ")
             << int64_t(std::ceil(eval->scratchpadBytes))
             << " bytes of scratchpad per core beside the " << preloadedBytes
             << " bytes of preloaded weights, more than its "
             << int64_t(capacity);
    // The share of the system's chips the pass keeps busy; the idle ones'
    // share of the useful cycles is under-use (chargeIdleChips).
    const double blockShare =
        double(planModel.numChips()) / double(model.numChips());
    if (stageModel)
      return verifyPipeStageCycles(
          op, *eval,
          blockShare * double(config.memory.pipeRows) /
              double(planModel.getSystem().torus.y.size),
          microbatches);
    // What the mapper records: the evaluation plus the relayout of the
    // layer's inputs (FWD) or errors (BWD), a non-overlapped transfer. The
    // relayout is recorded rounded to whole cycles, so the non-overlapped
    // cycles and the total may differ from the recomputation by that
    // rounding: one cycle.
    core::CycleBreakdown expected = eval->cycles;
    int64_t slack = 0;
    if (DictionaryAttr transfers = op.getTransfersAttr())
      if (auto relayout = transfers.getAs<TransferAttr>("relayout")) {
        expected.nonOvldt += double(relayout.getCycles());
        expected.total += double(relayout.getCycles());
        slack = 1;
      }
    if (recomputation)
      expected += core::recomputationCycles(*recomputation);
    if (gathered) {
      double gather =
          planModel
              .weightGather(op.getWorkload().getShape(op.getLayer()), *gathered)
              .cycles;
      expected.nonOvldt += gather;
      expected.total += gather;
    }
    if (updatesOnHost) {
      double update =
          planModel
              .hostUpdate(op.getWorkload().getShape(op.getLayer()).params /
                          double(planModel.numChips()))
              .cycles;
      expected.nonOvldt += update;
      expected.total += update;
    }
    if (blockModel)
      expected = core::chargeIdleChips(expected, blockShare);
    CyclesAttr recomputed = CyclesAttr::get(op.getContext(), expected);
    CyclesAttr recorded = op.getCyclesAttr();
    auto near = [](int64_t a, int64_t b, int64_t tolerance) {
      return std::abs(a - b) <= tolerance;
    };
    bool same = recorded.getUseful() == recomputed.getUseful() &&
                recorded.getUnderuse() == recomputed.getUnderuse() &&
                recorded.getOvldtVisible() == recomputed.getOvldtVisible() &&
                recorded.getAuxComp() == recomputed.getAuxComp() &&
                near(recorded.getNonOvldt(), recomputed.getNonOvldt(), slack) &&
                near(recorded.getTotal(), recomputed.getTotal(), slack);
    if (!same)
      return op.emitOpError("records ")
             << recorded << " but the performance model gives " << recomputed;
    return success();
  }

  /// A pipe stage records its share (`share` of the torus's rows) of its
  /// group's wall-clock time: its own work scaled to the system, plus the
  /// time it waits for the pipeline (fill, drain, slower stages, links).
  /// That the group's schedule adds up is the mapper's; here, the stage's
  /// work must be what the model gives and fit in what it records.
  /// A pipeline stage runs `microbatches` of them, its gradients reduced
  /// and its weights updated once (the UPD's last transfer group).
  static LogicalResult verifyPipeStageCycles(TiledPassOp op,
                                             const core::Evaluation &eval,
                                             double share,
                                             int64_t microbatches) {
    CyclesAttr recorded = op.getCyclesAttr();
    // The pass's share of the step as the mapper records it (the stage's
    // wait for the pipeline aside): one definition of what it runs once.
    const core::TrainingPass pass = toCore(op.getPass());
    core::CycleBreakdown expected = core::pipelinedPassCycles(
        eval.cycles,
        core::oncePerStepCycles(pass, eval.transfers, eval.cycles.total),
        microbatches, share);
    int64_t useful = int64_t(std::llround(expected.useful));
    int64_t busy = int64_t(std::llround(expected.total));
    // Each category is rounded on its own: a few cycles of slack.
    if (std::abs(recorded.getUseful() - useful) > 1 ||
        recorded.getTotal() + core::kNumCycleCategories < busy)
      return op.emitOpError("records ")
             << recorded << " as a pipe stage, but the performance model "
             << "gives " << useful << " useful cycles and " << busy
             << " busy cycles as its share of the system";
    return success();
  }
};
} // namespace

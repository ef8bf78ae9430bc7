//===- MappingReportPass.cpp - --dsm-mapping-report -----------------------===//

#include "dsm/Core/Spatial/MappingProblem.h"
#include "dsm/Core/Spatial/MappingReport.h"
#include "dsm/Core/Spatial/PerformanceModel.h"
#include "dsm/Core/Spatial/TimestepPipelining.h"
#include "dsm/Dialect/DsmOps.h"
#include "dsm/Passes/Passes.h"
#include "dsm/Passes/Spatial/MappedMemory.h"
#include "dsm/Passes/StrategyFile.h"
#include "dsm/Support/ReportWriter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <map>
#include <memory>

namespace dsm {
#define GEN_PASS_DEF_DSMMAPPINGREPORT
#include "dsm/Passes/Passes.h.inc"
} // namespace dsm

using namespace mlir;
using namespace dsm;

/// The minibatch of the first function: its first argument's batch dimension.
static int64_t batchOf(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.getNumArguments() == 0)
      continue;
    auto type = dyn_cast<RankedTensorType>(func.getArgumentTypes().front());
    int64_t dim = findArgBatchDim(func, 0).value_or(0);
    if (type && dim >= 0 && dim < type.getRank())
      return type.getDimSize(dim);
  }
  return 0;
}

namespace {
struct MappingReportPass
    : public dsm::impl::DsmMappingReportBase<MappingReportPass> {
  using DsmMappingReportBase::DsmMappingReportBase;

  /// The strategy file of the module's mapped function (StrategyFile.h).
  LogicalResult writeStrategy(ModuleOp module) {
    DsmDialect::StrategyAttrHelper strategyAttr(&getContext());
    SmallVector<func::FuncOp> mapped;
    for (auto func : module.getOps<func::FuncOp>())
      if (strategyAttr.getAttr(func))
        mapped.push_back(func);
    if (mapped.size() != 1)
      return emitError(module.getLoc())
             << "a strategy report writes one function's strategy: "
             << (mapped.empty()
                     ? "no function records one (map it with "
                       "--dsm-select-mapping first)"
                     : llvm::formatv("{0} functions record one", mapped.size())
                           .str());
    func::FuncOp func = mapped.front();
    bool training = false;
    func.walk(
        [&](TiledPassOp op) { training |= op.getPass() != TrainingPass::FWD; });
    const std::string about =
        llvm::formatv(
            "@{0} on {1}, {2} at minibatch {3}", func.getSymName(),
            module->getAttrOfType<SystemAttr>(SystemAttr::kModuleAttrName)
                .getName(),
            training ? "trained" : "inferred", batchOf(module))
            .str();
    return writeReport(output, module.getLoc(), [&](llvm::raw_ostream &os) {
      writeStrategyFile(strategyAttr.getAttr(func), about, os);
    });
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<core::MultiChipSystem> multiChip =
        getModuleMultiChipSystem(module, "the mapping report");
    if (failed(multiChip))
      return signalPassFailure();
    if (format == ReportFormat::Strategy) {
      if (failed(writeStrategy(module)))
        return signalPassFailure();
      markAllAnalysesPreserved();
      return;
    }
    core::PerformanceModel model(*multiChip);

    core::MappingReport report;
    report.system =
        module->getAttrOfType<SystemAttr>(SystemAttr::kModuleAttrName)
            .getName()
            .str();
    report.frequencyHz = model.frequency();
    report.peakFlops = multiChip->peakFlops();
    report.torusRows = multiChip->torus.y.size;
    report.torusColumns = multiChip->torus.x.size;
    report.batch = batchOf(module);
    report.mode = "infer";
    DsmDialect::SelectionStatesKeptAttrHelper boundAttr(&getContext());
    for (auto func : module.getOps<func::FuncOp>())
      if (IntegerAttr bound = boundAttr.getAttr(func)) {
        report.selectionExact = false;
        report.selectionStatesKept =
            std::max(report.selectionStatesKept, bound.getInt());
      }
    bool any = false;
    BlockModels models(model);
    module.walk([&](TiledPassOp op) {
      any = true;
      core::LayerShape shape = op.getWorkload().getShape(op.getLayer());
      core::MappingReportRow row;
      row.layer = op.getLayer().str();
      row.pass = toCore(op.getPass());
      if (row.pass != core::TrainingPass::FWD)
        report.mode = "train";
      row.kind = op.getWorkload().getKind().str();
      core::MappingConfig config = op.getConfig();
      const core::PerformanceModel &passModel = models.of(config);
      row.parallelism = config.parallelism;
      row.block = config.block;
      row.chipSplit = config.chipSplit;
      row.coreSplit = config.coreSplit;
      row.memory = config.memory;
      if (int64_t share = passModel.weightBytesPerCore(shape, row.pass, config))
        row.residentWeightFraction =
            double(config.memory.preloadedWeightBytes) / double(share);
      // Under DySM, ChipD and CoreD of one spatial minibatch.
      row.chipD = core::splitSizes(passModel.spatialPassDims(shape, row.pass,
                                                             config.memory,
                                                             config.chipSplit),
                                   config.chipSplit);
      row.coreD = core::splitSizes(row.chipD, config.coreSplit);
      row.arrayD = shape.hasPrimary ? config.array.arrayD()
                                    : core::DimSizes{1, 1, 1, 1, 1};
      row.cycles = op.getCycles().getBreakdown();
      row.macs = core::passMacs(shape, row.pass);
      if (DictionaryAttr transfers = op.getTransfersAttr()) {
        for (NamedAttribute entry : transfers) {
          auto attr = cast<TransferAttr>(entry.getValue());
          core::TransferGroup group;
          group.name = entry.getName().str();
          group.overlapped =
              core::isOverlappedGroup(group.name, row.pass, *multiChip);
          group.bytes = {double(attr.getMemoryBus()), double(attr.getOnChip()),
                         double(attr.getTorusX()), double(attr.getTorusY()),
                         double(attr.getHost())};
          group.cycles = double(attr.getCycles());
          for (int l = 0; l < core::kNumLinks; ++l)
            if (core::stringifyLink(core::Link(l)) == attr.getBottleneck())
              group.bottleneck = core::Link(l);
          row.transfers.push_back(std::move(group));
        }
      }
      if (DictionaryAttr alternatives = op.getAlternativesAttr())
        for (NamedAttribute entry : alternatives)
          row.alternatives.push_back(
              {toCore(*symbolizeParallelism(entry.getName().strref())),
               double(cast<IntegerAttr>(entry.getValue()).getInt())});
      report.rows.push_back(std::move(row));
    });
    if (!any) {
      emitError(module.getLoc())
          << "nothing to report: no dsm.tiled_pass ops (run --dsm-map-system, "
             "or --dsm-expand-training, --dsm-select-mapping and "
             "--dsm-lower-tiled first)";
      return signalPassFailure();
    }
    // The fullest chip of any function; a plan that needs more memory than
    // a chip has is no plan to run, whatever its cycles.
    DsmDialect::PipelineIdleAttrHelper idleAttr(&getContext());
    for (auto func : module.getOps<func::FuncOp>())
      if (PipelineIdleAttr idle = idleAttr.getAttr(func)) {
        report.pipelineIdle.bubble += double(idle.getBubble());
        report.pipelineIdle.sends += double(idle.getSends());
      }
    for (auto func : module.getOps<func::FuncOp>()) {
      std::optional<PlanMemory> plan = memoryOfPlan(func, model, optimizer);
      if (!plan ||
          (report.memory && plan->memory.total() <= report.memory->total()))
        continue;
      report.memory = plan->memory;
      report.memoryStage = plan->stage;
      if (!plan->memory.fits())
        emitWarning(func.getLoc())
            << "the plan does not fit in a chip's memory: it "
               "needs "
            << core::describeMemory(plan->memory);
    }
    auto json = [&](llvm::raw_ostream &os) {
      core::writeMappingJSON(report, os);
    };
    LogicalResult written = writeFigureReport(
        output, module.getLoc(), format, json, [&](llvm::raw_ostream &os) {
          if (format == ReportFormat::HTML)
            core::writeMappingHTML(report, os);
          else if (format == ReportFormat::CSV)
            core::writeMappingCSV(report, os);
          else
            core::printMappingTable(report, os);
        });
    if (failed(written))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace

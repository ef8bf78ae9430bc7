//===- MapSystem.cpp - --dsm-map-system -----------------------------------===//
//
// The main job as one pass: attach the system, set the batch, then run the
// capability the system calls for. A pass (not a registered pipeline) so that
// its options are the passes' own, declared once in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "dsm/Passes/Passes.h"

#include "mlir/Pass/PassManager.h"

namespace dsm {
#define GEN_PASS_DEF_DSMMAPSYSTEM
#include "dsm/Passes/Passes.h.inc"
} // namespace dsm

using namespace mlir;
using namespace dsm;

namespace {
struct MapSystemPass : public dsm::impl::DsmMapSystemBase<MapSystemPass> {
  using DsmMapSystemBase::DsmMapSystemBase;

  /// Attaches the system and sets the batch.
  void buildPreparation(OpPassManager &pm) const {
    pm.addPass(createDsmAttachSystem(DsmAttachSystemOptions{system}));
    if (batch != -1)
      pm.addPass(createDsmSetBatch(DsmSetBatchOptions{batch}));
  }

  /// Spatial mapping onto a multi-chip system.
  void buildSpatialMapping(OpPassManager &pm) const {
    pm.addPass(createDsmExpandTraining(DsmExpandTrainingOptions{mode}));
    pm.addPass(createDsmSelectMapping(DsmSelectMappingOptions{
        search, parallelism, explain,
        SmallVector<std::string>(optimizations.begin(), optimizations.end())}));
    pm.addPass(createDsmLowerTiled());
    pm.addPass(createDsmVerifyMapping());
    if (report.empty())
      return;
    ReportFormat format = reportFormat;
    if (!reportFormat.hasValue() && StringRef(report).ends_with(".json"))
      format = ReportFormat::JSON;
    if (!reportFormat.hasValue() && StringRef(report).ends_with(".html"))
      format = ReportFormat::HTML;
    pm.addPass(createDsmMappingReport(DsmMappingReportOptions{format, report}));
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    OpPassManager pm(ModuleOp::getOperationName());
    buildPreparation(pm);
    buildSpatialMapping(pm);
    pm.getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpPassManager preparation(ModuleOp::getOperationName());
    buildPreparation(preparation);
    if (failed(runPipeline(preparation, module)))
      return signalPassFailure();
    OpPassManager mapping(ModuleOp::getOperationName());
    buildSpatialMapping(mapping);
    if (failed(runPipeline(mapping, module)))
      return signalPassFailure();
  }
};
} // namespace

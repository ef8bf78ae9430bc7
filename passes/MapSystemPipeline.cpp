//===- MapSystemPipeline.cpp - --dsm-map-system ---------------------------===//
//
// The spatial-mapping pipeline: attach the system, set the batch, expand the
// training passes, select the mapping, lower to tiled ops, report.
//
//===----------------------------------------------------------------------===//

#include "dsm/Passes/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace dsm;

namespace {
struct MapSystemOptions : public PassPipelineOptions<MapSystemOptions> {
  Option<std::string> system{
      *this, "system",
      llvm::cl::desc("Preset name (docs/systems.md) or path to a system file"),
      llvm::cl::init("dsm-8pf-asym")};
  Option<ExecutionMode> mode{
      *this, "mode", llvm::cl::desc("Training or inference"),
      llvm::cl::init(ExecutionMode::Train),
      llvm::cl::values(clEnumValN(ExecutionMode::Train, "train", "FWD, BWD, UPD"),
                       clEnumValN(ExecutionMode::Infer, "infer", "FWD only"))};
  Option<int64_t> batch{*this, "batch",
                        llvm::cl::desc("Minibatch size (-1 keeps the model's)"),
                        llvm::cl::init(-1)};
  Option<core::SearchMode> search{
      *this, "search", llvm::cl::desc("Design-space search"),
      llvm::cl::init(core::SearchMode::Heuristic),
      llvm::cl::values(
          clEnumValN(core::SearchMode::Heuristic, "heuristic", "pruned by the paper's principles"),
          clEnumValN(core::SearchMode::Exhaustive, "exhaustive", "every legal configuration"))};
  Option<unsigned> threads{*this, "threads",
                           llvm::cl::desc("Exploration threads (0: all)"),
                           llvm::cl::init(0)};
  Option<std::string> parallelism{
      *this, "parallelism",
      llvm::cl::desc("Force one parallelism for every layer"),
      llvm::cl::init("")};
  Option<std::string> report{
      *this, "report",
      llvm::cl::desc("Write the mapping report here ('-' for stdout; none if empty)"),
      llvm::cl::init("")};
  Option<ReportFormat> reportFormat{
      *this, "report-format",
      llvm::cl::desc("Report format (default: json for *.json, else table)"),
      llvm::cl::init(ReportFormat::Table),
      llvm::cl::values(clEnumValN(ReportFormat::Table, "table", "readable table"),
                       clEnumValN(ReportFormat::JSON, "json", "JSON"))};
};

void buildMapSystemPipeline(OpPassManager &pm, const MapSystemOptions &options) {
  pm.addPass(createDsmAttachSystem(DsmAttachSystemOptions{options.system}));
  if (options.batch != -1)
    pm.addPass(createDsmSetBatch(DsmSetBatchOptions{options.batch}));
  pm.addPass(createDsmExpandTraining(DsmExpandTrainingOptions{options.mode}));
  pm.addPass(createDsmSelectMapping(DsmSelectMappingOptions{
      options.search, options.threads, options.parallelism}));
  pm.addPass(createDsmLowerTiled());
  if (!options.report.empty()) {
    ReportFormat format = options.reportFormat;
    if (!options.reportFormat.hasValue() &&
        StringRef(options.report).ends_with(".json"))
      format = ReportFormat::JSON;
    pm.addPass(createDsmMappingReport(DsmMappingReportOptions{format, options.report}));
  }
}
} // namespace

void dsm::registerDsmPipelines() {
  PassPipelineRegistration<MapSystemOptions>(
      "dsm-map-system",
      "Map a network onto a multi-chip system (000): attach the system, set "
      "the batch, expand FWD/BWD/UPD, select the mapping, lower to tiled ops, "
      "report",
      buildMapSystemPipeline);
}

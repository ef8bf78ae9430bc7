//===- MapSystem.cpp - --dsm-map-system -----------------------------------===//
//
// The main job as one pass: attach the system, set the batch, then run the
// capability the system's kind calls for -- spatial mapping on a multi-chip
// system, memory placement on a memory hierarchy, device placement on a
// device graph. A pass (not a registered pipeline) so that its options are
// the passes' own, declared once in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "dsm/Passes/Passes.h"

#include "dsm/Dialect/DsmAttrs.h"
#include "dsm/Dialect/DsmOps.h"
#include "dsm/Passes/OptionCheck.h"
#include "dsm/Passes/StrategyFile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"

namespace dsm {
#define GEN_PASS_DEF_DSMMAPSYSTEM
#include "dsm/Passes/Passes.h.inc"
} // namespace dsm

using namespace mlir;
using namespace dsm;

namespace {
struct MapSystemPass : public dsm::impl::DsmMapSystemBase<MapSystemPass> {
  using DsmMapSystemBase::DsmMapSystemBase;

  /// The strategy file's options the command line does not give
  /// (readStrategy), for --dsm-select-mapping.
  std::string strategyOptions;

  /// Attaches the system and sets the batch.
  void buildPreparation(OpPassManager &pm) const {
    pm.addPass(createDsmAttachSystem(DsmAttachSystemOptions{system, nodes}));
    if (batch != -1)
      pm.addPass(createDsmSetBatch(DsmSetBatchOptions{batch}));
  }

  /// The report format: the one asked for, else by the file's extension.
  ReportFormat format() const {
    if (reportFormat.hasValue())
      return reportFormat;
    if (StringRef(report).ends_with(".json"))
      return ReportFormat::JSON;
    if (StringRef(report).ends_with(".html"))
      return ReportFormat::HTML;
    if (StringRef(report).ends_with(".csv"))
      return ReportFormat::CSV;
    if (StringRef(report).ends_with(".yaml") ||
        StringRef(report).ends_with(".yml"))
      return ReportFormat::Strategy;
    return ReportFormat::Table;
  }

  /// Spatial mapping onto a multi-chip system.
  void buildSpatialMapping(OpPassManager &pm) const {
    pm.addPass(createDsmExpandTraining(DsmExpandTrainingOptions{mode}));
    // The memory savers are the training step's: in inference they are
    // ignored (warnIgnoredOptions says so), not checked against the system.
    const bool training = mode == ExecutionMode::Train;
    std::unique_ptr<Pass> select =
        createDsmSelectMapping(DsmSelectMappingOptions{
            search, parallelism, explain,
            SmallVector<std::string>(optimizations.begin(),
                                     optimizations.end()),
            stages,
            SmallVector<int64_t>(stageLayers.begin(), stageLayers.end()),
            microbatches, microbatchSize, schedule, tensor, data,
            training ? recompute : core::RecomputeChoice::Auto,
            training ? shard : core::ShardChoice::Auto, training ? zero : -1,
            training ? offload : core::OffloadChoice::Auto,
            training && sequenceParallel, optimizer});
    // What the strategy file gives beside the command line, checked as
    // read (readStrategyFile).
    if (!strategyOptions.empty() &&
        failed(select->initializeOptions(
            strategyOptions, [](const llvm::Twine &) { return failure(); })))
      llvm::report_fatal_error("a strategy file's options, checked as read, "
                               "were refused");
    pm.addPass(std::move(select));
    pm.addPass(createDsmLowerTiled());
    pm.addPass(createDsmVerifyMapping(DsmVerifyMappingOptions{optimizer}));
    if (!report.empty())
      pm.addPass(createDsmMappingReport(
          DsmMappingReportOptions{format(), optimizer, report}));
  }

  /// Memory placement on a memory hierarchy (inference).
  void buildMemoryPlacement(OpPassManager &pm) const {
    DsmPlaceMemoryOptions options;
    options.placement = placement;
    options.seed = seed;
    options.timeBudget = timeBudget;
    options.iterations = iterations;
    options.ilpTimeLimit = ilpTimeLimit;
    options.evaluator = evaluator;
    options.evaluatorTimeout = evaluatorTimeout;
    options.report = report;
    options.format = format();
    pm.addPass(createDsmPlaceMemory(options));
  }

  /// Device placement on a device graph.
  void buildDevicePlacement(OpPassManager &pm) const {
    DsmPlaceDevicesOptions options;
    options.mode = mode;
    options.placement = placement;
    options.seed = seed;
    options.timeBudget = timeBudget;
    options.evaluations = evaluations;
    options.batches = batches;
    options.simulatedBatches = simulatedBatches;
    options.computeEfficiency = computeEfficiency;
    options.memoryFraction = memoryFraction;
    options.conventions = conventions;
    options.trace = trace;
    options.report = report;
    options.format = format();
    pm.addPass(createDsmPlaceDevices(options));
  }

  /// The options given that the system's kind does not use, each with the
  /// kinds it is for: a warning names them (a sweep may pass one option
  /// string to systems of every kind, so they are not errors).
  void warnIgnoredOptions(Location loc, const core::SystemDescription &system) {
    enum Use : unsigned { Spatial = 1, Memory = 2, Devices = 4 };
    auto given = [](const auto &option, unsigned uses) {
      return std::tuple<bool, llvm::StringRef, unsigned>{option.hasValue(),
                                                         option.ArgStr, uses};
    };
    std::tuple<bool, llvm::StringRef, unsigned> options[] = {
        given(search, Spatial),
        given(parallelism, Spatial),
        given(explain, Spatial),
        given(optimizations, Spatial),
        given(optimizer, Spatial),
        given(stages, Spatial),
        given(microbatches, Spatial),
        given(microbatchSize, Spatial),
        given(schedule, Spatial),
        given(tensor, Spatial),
        given(data, Spatial),
        given(recompute, Spatial),
        given(shard, Spatial),
        given(zero, Spatial),
        given(offload, Spatial),
        given(sequenceParallel, Spatial),
        given(stageLayers, Spatial),
        given(strategy, Spatial),
        given(placement, Memory | Devices),
        given(seed, Memory | Devices),
        given(timeBudget, Memory | Devices),
        given(evaluations, Devices),
        given(batches, Devices),
        given(simulatedBatches, Devices),
        given(computeEfficiency, Devices),
        given(memoryFraction, Devices),
        given(conventions, Devices),
        given(trace, Devices),
        given(iterations, Memory),
        given(ilpTimeLimit, Memory),
        given(evaluator, Memory),
        given(evaluatorTimeout, Memory),
    };
    unsigned use = system.getKind() == core::SystemKind::MultiChip ? Spatial
                   : system.getKind() == core::SystemKind::MemoryHierarchy
                       ? Memory
                       : Devices;
    const char *job = use == Spatial  ? "spatial mapping"
                      : use == Memory ? "memory placement"
                                      : "device placement";
    for (auto [set, name, uses] : options) {
      if (!set || (uses & use))
        continue;
      SmallVector<StringRef> kinds;
      if (uses & Spatial)
        kinds.push_back("multi_chip (spatial mapping)");
      if (uses & Memory)
        kinds.push_back("memory_hierarchy (memory placement)");
      if (uses & Devices)
        kinds.push_back("device_graph (device placement)");
      emitWarning(loc) << name << "= is ignored: '" << system.name << "' is a "
                       << core::stringifySystemKind(system.getKind())
                       << " system, which gets " << job << "; " << name
                       << "= applies to " << llvm::join(kinds, " and ")
                       << " systems";
    }
    // The memory savers are the training step's.
    if (use == Spatial && mode == ExecutionMode::Infer)
      for (auto [set, name, uses] :
           {given(recompute, Spatial), given(shard, Spatial),
            given(zero, Spatial), given(offload, Spatial),
            given(sequenceParallel, Spatial)})
        if (set)
          emitWarning(loc) << name
                           << "= is ignored in inference: it names a memory "
                              "saver of the training step";
  }

  /// The options of the strategy file `strategy` names that the command
  /// line does not give, as --dsm-select-mapping's option text; one it
  /// gives otherwise is an error at the file's line.
  LogicalResult readStrategy(Location loc) {
    std::unique_ptr<Pass> scratch = createDsmSelectMapping();
    FailureOr<SmallVector<StrategyEntry>> entries =
        readStrategyFile(strategy, loc, *scratch);
    if (failed(entries))
      return failure();
    // The command line's value of each strategy option it gives.
    llvm::StringMap<std::string> printed = printedOptionsOf(*this);
    llvm::StringMap<std::string> given;
    auto note = [&](const auto &option) {
      if (option.hasValue())
        given[option.ArgStr] = printed.lookup(option.ArgStr);
    };
    note(search);
    note(parallelism);
    note(optimizations);
    note(stages);
    note(stageLayers);
    note(microbatches);
    note(microbatchSize);
    note(schedule);
    note(tensor);
    note(data);
    note(recompute);
    note(shard);
    note(zero);
    note(offload);
    note(sequenceParallel);
    SmallVector<StrategyEntry> fromFile;
    for (StrategyEntry &entry : *entries) {
      auto it = given.find(entry.name);
      if (it == given.end()) {
        fromFile.push_back(entry);
        continue;
      }
      if (it->second != entry.value) {
        emitError(entry.loc)
            << entry.name << ": " << entry.value << " in the strategy file, "
            << entry.name << "=" << it->second << " on the command line";
        return failure();
      }
    }
    strategyOptions = strategyOptionText(fromFile);
    return success();
  }

  /// Whether some function holds an operation to map (layer formation
  /// skips weights, constants and returns).
  static bool hasLayers(ModuleOp module) {
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        for (Operation &op : func.getBody().getOps())
          if (!isa<WeightOp, func::ReturnOp>(op) &&
              !op.hasTrait<OpTrait::ConstantLike>())
            return true;
    return false;
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    OpPassManager pm(ModuleOp::getOperationName());
    buildPreparation(pm);
    buildSpatialMapping(pm);
    buildMemoryPlacement(pm);
    buildDevicePlacement(pm);
    pm.getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Said against the option the user wrote, not the pass it is passed on to.
    if (system.empty()) {
      emitError(module.getLoc())
          << "--dsm-map-system needs system=<preset|file>";
      return signalPassFailure();
    }
    if (batch != -1 &&
        failed(checkOptionRange(module.getLoc(), "batch", int64_t(batch), 1,
                                kMaxBatch, "", "-1 keeps the model's")))
      return signalPassFailure();
    OpPassManager preparation(ModuleOp::getOperationName());
    buildPreparation(preparation);
    if (failed(runPipeline(preparation, module)))
      return signalPassFailure();
    FailureOr<core::SystemDescription> description = getModuleSystem(module);
    if (failed(description))
      return signalPassFailure();

    warnIgnoredOptions(module.getLoc(), *description);

    // Only spatial mapping writes an HTML report or a strategy.
    if (description->getKind() != core::SystemKind::MultiChip &&
        (format() == ReportFormat::HTML ||
         format() == ReportFormat::Strategy)) {
      emitError(module.getLoc())
          << (format() == ReportFormat::HTML ? "an HTML report"
                                             : "a strategy report")
          << " exists for spatial mapping only; use a .json file or "
             "report-format=table";
      return signalPassFailure();
    }
    OpPassManager job(ModuleOp::getOperationName());
    switch (description->getKind()) {
    case core::SystemKind::MultiChip:
      // Said here: the passes after would each find nothing and the report
      // would ask for the mapping that just ran.
      if (!hasLayers(module)) {
        emitError(module.getLoc())
            << "the module has no layers to map: its functions hold no dsm "
               "operations but weights and constants (an empty model, or one "
               "not imported into the dsm dialect)";
        return signalPassFailure();
      }
      if (!strategy.empty() && failed(readStrategy(module.getLoc())))
        return signalPassFailure();
      buildSpatialMapping(job);
      break;
    case core::SystemKind::MemoryHierarchy:
      // The memory-placement paper places tensors for inference.
      if (mode.hasValue() && mode == ExecutionMode::Train) {
        emitError(module.getLoc())
            << "memory placement on '" << description->name
            << "' models inference: use mode=infer (or leave mode out)";
        return signalPassFailure();
      }
      buildMemoryPlacement(job);
      break;
    case core::SystemKind::DeviceGraph:
      buildDevicePlacement(job);
      break;
    }
    if (failed(runPipeline(job, module)))
      return signalPassFailure();
    // The nested passes ran on this module's analyses and invalidated what
    // each did not preserve; with --verify-each the last one that changed
    // the module verified it. Nothing is left to invalidate or to verify
    // again (on 10,000 transformer blocks, 0.3 s for the mapped module).
    markAllAnalysesPreserved();
  }
};
} // namespace

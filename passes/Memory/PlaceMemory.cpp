//===- PlaceMemory.cpp - --dsm-place-memory -------------------------------===//
//
// Reads each function into the core's MemoryGraph (one node per layer), runs
// the named placement search against the memory-hierarchy cost model,
// records each layer's decision on its ops as #dsm.memory and writes the
// report.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Memory/ExternalEvaluator.h"
#include "dsm/Core/Memory/MemoryPlacementReport.h"
#include "dsm/Core/Memory/MemoryPlacementSearch.h"
#include "dsm/Core/Support/ConsoleProgress.h"
#include "dsm/Core/Support/Progress.h"
#include "dsm/Dialect/DsmAttrs.h"
#include "dsm/Passes/Common/ContextExecutor.h"
#include "dsm/Passes/Memory/MemoryGraphBuilder.h"
#include "dsm/Passes/OptionCheck.h"
#include "dsm/Passes/Passes.h"
#include "dsm/Support/CoreError.h"

#include "dsm/Support/ReportWriter.h"
#include "llvm/Support/FormatVariadic.h"

#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"

#include <deque>
#include <optional>

namespace dsm {
#define GEN_PASS_DEF_DSMPLACEMEMORY
#include "dsm/Passes/Passes.h.inc"
} // namespace dsm

using namespace mlir;
using namespace dsm;
namespace memory = dsm::core::memory;

// The dialect's enum and the core's share their numbering.
static_assert(
    uint32_t(MemoryLevel::DRAM) == uint32_t(memory::MemoryLevel::DRAM) &&
    uint32_t(MemoryLevel::LLC) == uint32_t(memory::MemoryLevel::LLC) &&
    uint32_t(MemoryLevel::SRAM) == uint32_t(memory::MemoryLevel::SRAM));

static MemoryLevel toAttrLevel(memory::MemoryLevel level) {
  return static_cast<MemoryLevel>(uint32_t(level));
}

namespace {
/// What one function needs to outlive the search: the graph the evaluator
/// points into.
struct PlacedFunction {
  MemoryGraphWithLayers built;
  std::optional<memory::PlacementEvaluator> evaluator;
};

struct PlaceMemoryPass : public dsm::impl::DsmPlaceMemoryBase<PlaceMemoryPass> {
  using DsmPlaceMemoryBase::DsmPlaceMemoryBase;

  /// Emits a core error at the layer it names, or at `fallback`.
  static void emitCoreError(llvm::Error error,
                            const MemoryGraphWithLayers &built,
                            Location fallback, StringRef what) {
    dsm::emitCoreError(
        std::move(error), built.layers.size(),
        [&](size_t node) { return built.getAnchor(node); }, fallback, what);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Location loc = module.getLoc();
    if (!system.empty()) {
      OpPassManager attach(ModuleOp::getOperationName());
      attach.addPass(
          createDsmAttachSystem(DsmAttachSystemOptions{system, nodes}));
      if (failed(runPipeline(attach, module)))
        return signalPassFailure();
    }
    // The paper's evolutionary search is the default.
    std::optional<memory::PlacementSearchKind> kind =
        memory::symbolizePlacementSearchKind(
            placement.empty() ? StringRef("ea") : StringRef(placement));
    if (!kind) {
      emitError(loc) << "unknown memory placement '" << placement
                     << "'; expected one of "
                     << memory::getPlacementSearchNames();
      return signalPassFailure();
    }
    // Past this a search would run for days: a typo, not a study.
    constexpr int64_t kMaxIterations = 100'000'000;
    if (failed(checkOptionRange(loc, "iterations", int64_t(iterations), 1,
                                kMaxIterations)) ||
        failed(checkOptionRange(loc, "evaluator-timeout",
                                int64_t(evaluatorTimeout), 1,
                                int64_t(kMaxSearchSeconds), "seconds")) ||
        failed(checkOptionRange(loc, "time-budget", double(timeBudget), 0.0,
                                kMaxSearchSeconds, "seconds", "0: no limit")) ||
        // GLPK counts milliseconds.
        failed(checkOptionRange(loc, "ilp-time-limit", double(ilpTimeLimit),
                                0.001, kMaxSearchSeconds, "seconds")))
      return signalPassFailure();
    FailureOr<core::SystemDescription> description = getModuleSystem(module);
    if (failed(description))
      return signalPassFailure();
    const auto *hierarchy = description->getIf<core::MemoryHierarchySystem>();
    if (!hierarchy) {
      emitError(loc) << "memory placement needs a memory_hierarchy system; '"
                     << description->name << "' is a "
                     << core::stringifySystemKind(description->getKind());
      return signalPassFailure();
    }

    memory::PlacementSearchOptions options;
    options.iterations = iterations;
    options.seed = seed;
    options.ilpTimeLimitSeconds = ilpTimeLimit;

    // Populations are evaluated on the context's thread pool, or on this
    // thread with --mlir-disable-threading; the result is the same.
    MLIRContext *context = &getContext();
    ContextExecutor contextExecutor(context);
    core::Executor &executor = contextExecutor.get();

    int64_t elementBytes = core::bytesPerElement(hierarchy->precision);
    std::deque<PlacedFunction> placed; // stable addresses for the evaluators
    std::vector<memory::PlacementReport> reports;
    bool interrupted = false;
    DsmDialect::MemoryAttrHelper memoryAttr(context);
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      FailureOr<MemoryGraphWithLayers> built =
          buildMemoryGraph(func, elementBytes);
      if (failed(built))
        return signalPassFailure();
      if (built->graph.size() == 0)
        continue;
      PlacedFunction &function = placed.emplace_back();
      function.built = std::move(*built);
      memory::LatencyMeasure measure;
      if (!evaluator.empty()) {
        llvm::Expected<memory::LatencyMeasure> external =
            memory::makeExternalMeasure(function.built.graph, evaluator,
                                        evaluatorTimeout);
        if (!external) {
          emitError(loc) << llvm::toString(external.takeError());
          return signalPassFailure();
        }
        measure = std::move(*external);
      }
      llvm::Expected<memory::PlacementEvaluator> placementEvaluator =
          memory::PlacementEvaluator::create(function.built.graph, *hierarchy,
                                             std::move(measure));
      if (!placementEvaluator) {
        emitCoreError(placementEvaluator.takeError(), function.built,
                      func.getLoc(), "cannot place memory: ");
        return signalPassFailure();
      }
      function.evaluator.emplace(std::move(*placementEvaluator));
      // A line on a terminal; Ctrl-C (or SIGTERM) returns the best so far,
      // which is recorded and reported, marked interrupted, and then fails;
      // the time budget returns it as the search's answer.
      core::ConsoleProgress progress(
          (memory::stringifyPlacementSearchKind(*kind) +
           " memory placement of @" + func.getSymName())
              .str(),
          "speedup");
      core::DeadlineProgress deadline(progress, timeBudget);
      options.progress = &deadline;
      llvm::Expected<memory::PlacementSearchResult> result =
          memory::runPlacementSearch(*kind, *function.evaluator, options,
                                     executor);
      progress.finish();
      options.progress = &core::Progress::none();
      bool signalled = core::ConsoleProgress::wasInterrupted();
      // Without a map there is nothing to report.
      if (result && result->interrupted && result->map.empty())
        if (llvm::Error error =
                memory::checkNotInterrupted(*kind, *result, options))
          result = std::move(error);
      // A search whose budget ran out before it had a map (the ILP solver
      // before its first solution) says so: nothing interrupted it.
      if (!result && !signalled && deadline.expired()) {
        llvm::consumeError(result.takeError());
        emitBudgetRanOut(func.getLoc(), "place memory", timeBudget,
                         memory::stringifyPlacementSearchKind(*kind),
                         "had a map");
        return signalPassFailure();
      }
      if (!result) {
        emitCoreError(result.takeError(), function.built, func.getLoc(),
                      "cannot place memory: ");
        return signalPassFailure();
      }
      for (auto [layer, decision] :
           llvm::zip_equal(function.built.layers, result->map)) {
        auto attr =
            MemoryPlacementAttr::get(context, toAttrLevel(decision.weights),
                                     toAttrLevel(decision.activations));
        for (Operation *op : layer.ops)
          memoryAttr.setAttr(op, attr);
      }
      if (*kind != memory::PlacementSearchKind::Compiler &&
          result->evaluation.speedup < 1)
        emitWarning(func.getLoc())
            << "the " << memory::stringifyPlacementSearchKind(*kind)
            << " search ended with a map slower than the compiler's, its "
               "starting point (speedup "
            << llvm::formatv("{0:f4}", result->evaluation.speedup).str()
            << "): give it more iterations or time-budget";
      memory::PlacementReport &report = reports.emplace_back();
      report.interrupted = result->interrupted && signalled;
      report.timeBudgetSeconds = timeBudget;
      report.timeBudgetReached = result->interrupted && deadline.expired();
      interrupted |= report.interrupted;
      report.systemName = description->name;
      report.graphName = func.getSymName().str();
      report.evaluator = &*function.evaluator;
      report.evaluatorProgram = evaluator;
      report.kind = *kind;
      report.options = options;
      report.result = std::move(*result);
    }
    if (reports.empty()) {
      emitError(loc) << "the module has no operations to place in memory";
      return signalPassFailure();
    }
    if (failed(writePlacementReport(
            report, loc, format,
            [&](llvm::raw_ostream &os) {
              memory::writePlacementJSON(reports, os);
            },
            [&](llvm::raw_ostream &os) {
              memory::writePlacementCSV(reports, os);
            },
            [&](llvm::raw_ostream &os) {
              memory::printPlacementTable(reports, os);
            },
            interrupted)))
      return signalPassFailure();
  }
};
} // namespace

//===- PlaceDevices.cpp - --dsm-place-devices -----------------------------===//
//
// Reads the module into the core's OpGraph and the attached device-graph
// system into a DeviceNetwork, runs the named placement search against the
// execution simulator, records each op's device, and writes the report and
// the trace of the best placement.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Devices/ChromeTrace.h"
#include "dsm/Core/Devices/DevicePlacementReport.h"
#include "dsm/Core/Devices/DevicePlacementSearch.h"
#include "dsm/Core/Support/ConsoleProgress.h"
#include "dsm/Dialect/DsmAttrs.h"
#include "dsm/Dialect/DsmOps.h"
#include "dsm/Passes/Common/ContextExecutor.h"
#include "dsm/Passes/Common/WorkloadAnalysis.h"
#include "dsm/Passes/Devices/OpGraphBuilder.h"
#include "dsm/Passes/OptionCheck.h"
#include "dsm/Passes/Passes.h"
#include "dsm/Support/CoreError.h"
#include "dsm/Support/ReportWriter.h"
#include "llvm/Support/FormatVariadic.h"

#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"

#include <algorithm>
#include <chrono>
#include <optional>

namespace dsm {
#define GEN_PASS_DEF_DSMPLACEDEVICES
#include "dsm/Passes/Passes.h.inc"
} // namespace dsm

using namespace mlir;
using namespace dsm;
namespace devices = dsm::core::devices;

namespace {
struct PlaceDevicesPass
    : public dsm::impl::DsmPlaceDevicesBase<PlaceDevicesPass> {
  using DsmPlaceDevicesBase::DsmPlaceDevicesBase;

  /// Counts past these are a typo, not a study: the simulator keeps every
  /// simulated batch's events (memory grows with them), and a search of more
  /// evaluations would run for days.
  static constexpr int32_t kMaxBatches = 1000;
  static constexpr int64_t kMaxEvaluations = 100'000'000;

  LogicalResult validateOptions(Location loc) {
    if (failed(checkOptionRange(loc, "evaluations", int64_t(evaluations), 1,
                                kMaxEvaluations)) ||
        failed(checkOptionRange(loc, "time-budget", double(timeBudget), 0.0,
                                kMaxSearchSeconds, "seconds", "0: no limit")) ||
        failed(
            checkOptionRange(loc, "batches", int64_t(batches), 1, kMaxBatches)))
      return failure();
    // -1 (the default) or at least every batch in flight.
    if (simulatedBatches != -1 &&
        failed(checkOptionRange(loc, "simulated-batches",
                                int64_t(simulatedBatches), int64_t(batches),
                                kMaxBatches, "",
                                "at least batches; -1: the default")))
      return failure();
    // Tiny efficiencies are legal: an op time past 1e15 s is the located
    // error then, naming the op and the device.
    if (!(computeEfficiency > 0 && computeEfficiency <= 1))
      return emitError(loc) << "compute-efficiency must be in (0, 1], got "
                            << formatQuantity(computeEfficiency);
    if (!(memoryFraction > 0 && memoryFraction <= 1))
      return emitError(loc) << "memory-fraction must be in (0, 1], got "
                            << formatQuantity(memoryFraction);
    if (!trace.empty() && !report.empty() && namesSameFile(trace, report))
      return emitError(loc)
             << "report=" << report << " and trace=" << trace
             << " name one file: the trace would overwrite the report; give "
                "them two files";
    return success();
  }

  /// Sets `dsm.device` on every op and makes each value that changes device
  /// go through one `dsm.device_transfer` per destination device.
  void recordPlacement(llvm::ArrayRef<Operation *> operations,
                       llvm::ArrayRef<int32_t> placement) {
    MLIRContext *context = &getContext();
    OpBuilder builder(context);
    DsmDialect::DeviceAttrHelper deviceAttr(context);
    llvm::DenseMap<Operation *, int32_t> deviceOf;
    for (auto [op, device] : llvm::zip_equal(operations, placement)) {
      deviceAttr.setAttr(op, DeviceAttr::get(context, device));
      deviceOf[op] = device;
    }
    for (auto [op, device] : llvm::zip_equal(operations, placement)) {
      Operation *insertAfter = op;
      for (Value result : op->getResults()) {
        llvm::SmallDenseMap<int32_t, Value> moved;
        for (OpOperand &use : llvm::make_early_inc_range(result.getUses())) {
          auto consumer = deviceOf.find(use.getOwner());
          if (consumer == deviceOf.end() || consumer->second == device)
            continue;
          Value &copy = moved[consumer->second];
          if (!copy) {
            builder.setInsertionPointAfter(insertAfter);
            auto transfer = DeviceTransferOp::create(
                builder, op->getLoc(), result.getType(), result,
                DeviceAttr::get(context, device),
                DeviceAttr::get(context, consumer->second));
            insertAfter = transfer;
            copy = transfer.getResult();
          }
          use.set(copy);
        }
      }
    }
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
    // The thesis's best search is the default.
    std::optional<devices::SearchKind> kind = devices::symbolizeSearchKind(
        placement.empty() ? StringRef("ga") : StringRef(placement));
    if (!kind) {
      emitError(loc) << "unknown placement search '" << placement
                     << "'; expected one of " << devices::getSearchKindNames();
      return signalPassFailure();
    }
    if (failed(validateOptions(loc)))
      return signalPassFailure();

    FailureOr<core::SystemDescription> description = getModuleSystem(module);
    if (failed(description))
      return signalPassFailure();
    const auto *deviceGraph = description->getIf<core::DeviceGraphSystem>();
    if (!deviceGraph) {
      emitError(loc) << "device placement needs a device_graph system; '"
                     << description->name << "' is a "
                     << core::stringifySystemKind(description->getKind());
      return signalPassFailure();
    }
    llvm::Expected<devices::DeviceNetwork> network =
        devices::DeviceNetwork::fromSystem(*deviceGraph);
    if (!network) {
      emitCoreError(network.takeError(), ArrayRef<Operation *>(), loc,
                    "system '" + description->name +
                        "' cannot run a placement: ");
      return signalPassFailure();
    }

    // Transfers of an earlier placement go: this one decides afresh.
    module.walk([](DeviceTransferOp transfer) {
      transfer.getResult().replaceAllUsesWith(transfer.getInput());
      transfer.erase();
    });

    devices::Conventions rules = devices::getConventions(conventions);
    if (rules.paleoOpTimes)
      for (const devices::ComputeDevice &device : network->getDevices())
        if (!(device.memoryBandwidth > 0) || !(device.clockHz > 0)) {
          emitError(loc) << "conventions="
                         << devices::stringifyConventionsKind(conventions)
                         << " time memory traffic and clock cycles, but "
                            "device '"
                         << device.name << "' of system '" << description->name
                         << "' gives no memory_bandwidth or clock";
          return signalPassFailure();
        }
    FailureOr<OpGraphWithOps> built =
        buildOpGraph(module, getAnalysis<WorkloadAnalysis>(), rules);
    if (failed(built))
      return signalPassFailure();
    if (built->operations.empty()) {
      emitError(loc) << "the module has no operations to place";
      return signalPassFailure();
    }

    devices::SimulationOptions simulation;
    simulation.training = mode == ExecutionMode::Train;
    simulation.batchesInFlight = batches;
    // The thesis's pipelined runs simulate 10 batches.
    simulation.batches = simulatedBatches != -1 ? int32_t(simulatedBatches)
                         : batches > 1          ? std::max<int32_t>(batches, 10)
                                                : 1;
    simulation.computeEfficiency = computeEfficiency;
    simulation.usableMemoryFraction = memoryFraction;
    simulation.conventions = rules;
    if (llvm::Error error = built->graph.verify(simulation.batches)) {
      emitCoreError(std::move(error), built->operations, loc, "cannot place: ");
      return signalPassFailure();
    }

    devices::SearchOptions search;
    search.kind = *kind;
    search.evaluations = evaluations;
    search.seed = seed;

    // Populations are simulated on the context's thread pool, or on this
    // thread with --mlir-disable-threading; the result is the same.
    MLIRContext *context = &getContext();
    ContextExecutor contextExecutor(context);
    core::Executor &executor = contextExecutor.get();

    // A line on a terminal; Ctrl-C (or SIGTERM) returns the best so far,
    // which is recorded and reported, marked interrupted, and then fails;
    // the time budget returns it as the search's answer.
    core::ConsoleProgress progress(
        (devices::stringifySearchKind(search.kind) + " device placement").str(),
        "fitness");
    core::DeadlineProgress deadline(progress, timeBudget);
    search.progress = &deadline;
    auto start = std::chrono::steady_clock::now();
    llvm::Expected<devices::SearchResult> outcome = devices::searchPlacement(
        built->graph, *network, simulation, search, executor);
    std::chrono::duration<double> elapsed =
        std::chrono::steady_clock::now() - start;
    progress.finish();
    search.progress = &core::Progress::none();
    bool signalled = outcome && outcome->interrupted &&
                     core::ConsoleProgress::wasInterrupted();
    // Without a placement there is nothing to report: a search with no
    // starting placement (map-elites, ilp) whose budget ran out before it
    // placed anything says so; one stopped by a signal, where it stopped.
    if (outcome && outcome->interrupted && outcome->best.empty()) {
      if (!signalled && deadline.expired()) {
        emitBudgetRanOut(loc, "place", timeBudget,
                         devices::stringifySearchKind(search.kind),
                         llvm::formatv("placed anything ({0} of {1} "
                                       "evaluations)",
                                       outcome->evaluations, search.evaluations)
                             .str());
        return signalPassFailure();
      }
      outcome = llvm::make_error<core::InterruptedError>(
          outcome->evaluations, search.evaluations, "evaluations");
    }
    if (!outcome) {
      emitCoreError(outcome.takeError(), built->operations, loc,
                    "cannot place: ");
      return signalPassFailure();
    }

    devices::PlacementReport placementReport;
    placementReport.systemName = description->name;
    placementReport.graph = &built->graph;
    placementReport.network = &*network;
    placementReport.simulation = simulation;
    placementReport.search = search;
    placementReport.outcome = std::move(*outcome);
    placementReport.searchSeconds = elapsed.count();
    placementReport.interrupted = signalled;
    placementReport.timeBudgetSeconds = timeBudget;
    placementReport.timeBudgetReached =
        placementReport.outcome.interrupted && deadline.expired();
    devices::SimulationOptions tracing = simulation;
    tracing.recordTrace = !trace.empty();
    devices::ExecutionSimulator simulator(built->graph, *network, tracing);
    placementReport.best = simulator.run(placementReport.outcome.best);

    recordPlacement(built->operations, placementReport.outcome.best);

    // A search that ends slower than a single device -- where every search
    // may start -- wasted its budget: say so (the fastest single device
    // that fits, simulated apart from the search's books).
    if (search.kind != devices::SearchKind::SingleDevice) {
      std::optional<double> single;
      devices::ExecutionSimulator alone(built->graph, *network, simulation);
      for (size_t d = 0; d < network->getNumDevices(); ++d) {
        devices::SimulationResult run =
            alone.run(devices::Placement(built->graph.size(), int32_t(d)));
        if (run.memoryOverflowBytes == 0 &&
            (!single || run.fitness() < *single))
          single = run.fitness();
      }
      if (single && placementReport.best.fitness() > *single)
        emitWarning(loc) << "the " << devices::stringifySearchKind(search.kind)
                         << " search ended with a placement "
                         << llvm::formatv("{0:f2}",
                                          placementReport.best.fitness() /
                                              *single)
                                .str()
                         << "x slower than one device alone, its starting "
                            "point: give it more evaluations or time-budget";
    }

    if (placementReport.best.memoryOverflowBytes > 0)
      emitWarning(loc) << "the best placement found does not fit: devices "
                          "exceed their usable memory by "
                       << placementReport.best.memoryOverflowBytes
                       << " bytes in total";

    if (!trace.empty() &&
        failed(writeFigureReport(
            trace, loc, ReportFormat::JSON, [&](llvm::raw_ostream &os) {
              devices::writeChromeTrace(built->graph, *network,
                                        placementReport.best, os);
            })))
      return signalPassFailure();
    if (failed(writePlacementReport(
            report, loc, format,
            [&](llvm::raw_ostream &os) {
              devices::writePlacementJSON(placementReport, os);
            },
            [&](llvm::raw_ostream &os) {
              devices::writePlacementCSV(placementReport, os);
            },
            [&](llvm::raw_ostream &os) {
              devices::printPlacementTable(placementReport, os);
            },
            signalled)))
      return signalPassFailure();
  }
};
} // namespace

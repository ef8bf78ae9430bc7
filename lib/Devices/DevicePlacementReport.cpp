//===- DevicePlacementReport.cpp - What a device placement achieved -------===//

#include "dsm/Core/Devices/DevicePlacementReport.h"
#include "dsm/Core/Support/Csv.h"
#include "dsm/Core/Support/PrintableText.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace dsm::core;
using namespace dsm::core::devices;

namespace {
double perSecond(double count, double seconds) {
  return seconds > 0 ? count / seconds : 0;
}

std::vector<int64_t> opsPerDevice(const PlacementReport &report) {
  std::vector<int64_t> ops(report.network->getNumDevices(), 0);
  for (int32_t device : report.outcome.best)
    ++ops[device];
  return ops;
}
} // namespace

void devices::printPlacementTable(const PlacementReport &report,
                                  llvm::raw_ostream &os) {
  const SimulationResult &best = report.best;
  const DeviceNetwork &network = *report.network;
  double makespan = best.makespan;
  os << llvm::formatv(
      "device placement on {0}: {1}, {2} evaluations, seed "
      "{3}, {4}, {5} batch(es) in flight, {6} simulated, {7} conventions\n",
      core::printableText(report.systemName),
      stringifySearchKind(report.search.kind), report.outcome.evaluations,
      report.search.seed, report.simulation.training ? "training" : "inference",
      report.simulation.batchesInFlight, report.simulation.batches,
      stringifyConventionsKind(report.simulation.conventions.kind));
  os << llvm::formatv("step time {0:f3} ms (fitness {1:f3})\n",
                      best.stepTime * 1e3, best.fitness());
  if (best.memoryOverflowBytes > 0)
    os << llvm::formatv("DOES NOT FIT: devices exceed their memory by {0} "
                        "bytes in total\n",
                        best.memoryOverflowBytes);
  os << llvm::formatv("{0,-4} {1,-16} {2,6} {3,12} {4,6} {5,14} {6,14}\n", "id",
                      "device", "ops", "busy ms", "busy%", "peak memory",
                      "memory");
  std::vector<int64_t> ops = opsPerDevice(report);
  for (size_t d = 0; d < network.getNumDevices(); ++d) {
    const ComputeDevice &device = network.getDevice(int32_t(d));
    os << llvm::formatv(
        "{0,-4} {1,-16} {2,6} {3,12:f3} {4,6:f1} {5,14} {6,14:f0}\n", d,
        core::printableText(device.name), ops[d], best.deviceBusy[d] * 1e3,
        makespan > 0 ? 100 * best.deviceBusy[d] / makespan : 0.0,
        best.peakMemory[d],
        device.memoryBytes * report.simulation.usableMemoryFraction);
  }
  for (size_t c = 0; c < network.getNumChannels(); ++c)
    os << llvm::formatv(
        "channel {0,-2} {1,-16} busy {2:f3} ms ({3:f1}%)\n", c,
        core::printableText(network.getChannel(int32_t(c)).name),
        best.channelBusy[c] * 1e3,
        makespan > 0 ? 100 * best.channelBusy[c] / makespan : 0.0);
  os << llvm::formatv("transfers: {0} ({1} bytes)\n", best.transfers,
                      best.transferredBytes);
  os << "best by evaluation:";
  for (auto [evaluation, fitness] : report.outcome.bestByEvaluation)
    os << llvm::formatv(" {0}:{1:f3}", evaluation, fitness);
  os << "\n";
  os << llvm::formatv(
      "search: {0:f3} s, {1:f0} evaluations/s, {2:f0} events/s\n",
      report.searchSeconds,
      perSecond(double(report.outcome.evaluations), report.searchSeconds),
      perSecond(double(report.outcome.events), report.searchSeconds));
}

void devices::writePlacementJSON(const PlacementReport &report,
                                 llvm::raw_ostream &os) {
  const SimulationResult &best = report.best;
  const DeviceNetwork &network = *report.network;
  const OpGraph &graph = *report.graph;
  std::vector<int64_t> ops = opsPerDevice(report);
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.object([&] {
    // The report's contract (docs/schemas/dsm.device-report.schema.json).
    json.attribute("schema", "dsm.device-report/1");
    json.attribute("system", report.systemName);
    json.attribute("placement", stringifySearchKind(report.search.kind));
    json.attribute("seed", int64_t(report.search.seed));
    json.attribute("mode", report.simulation.training ? "train" : "infer");
    json.attribute("batches_in_flight", report.simulation.batchesInFlight);
    json.attribute("simulated_batches", report.simulation.batches);
    json.attribute("conventions", stringifyConventionsKind(
                                      report.simulation.conventions.kind));
    if (report.interrupted)
      json.attribute("interrupted", true);
    // Seconds beside the thesis's milliseconds (one unit across the reports).
    json.attribute("step_time_ms", best.stepTime * 1e3);
    json.attribute("step_time_s", best.stepTime);
    json.attribute("makespan_ms", best.makespan * 1e3);
    json.attribute("makespan_s", best.makespan);
    json.attribute("fitness", best.fitness());
    json.attribute("fits_memory", best.memoryOverflowBytes == 0);
    json.attribute("memory_overflow_bytes", best.memoryOverflowBytes);
    json.attributeArray("devices", [&] {
      for (size_t d = 0; d < network.getNumDevices(); ++d)
        json.object([&] {
          const ComputeDevice &device = network.getDevice(int32_t(d));
          json.attribute("id", int64_t(d));
          json.attribute("name", device.name);
          json.attribute("ops", ops[d]);
          json.attribute("busy_ms", best.deviceBusy[d] * 1e3);
          json.attribute("peak_memory_bytes", best.peakMemory[d]);
          json.attribute("usable_memory_bytes",
                         device.memoryBytes *
                             report.simulation.usableMemoryFraction);
        });
    });
    json.attributeArray("channels", [&] {
      for (size_t c = 0; c < network.getNumChannels(); ++c)
        json.object([&] {
          json.attribute("id", int64_t(c));
          json.attribute("name", network.getChannel(int32_t(c)).name);
          json.attribute("busy_ms", best.channelBusy[c] * 1e3);
        });
    });
    json.attributeObject("transfers", [&] {
      json.attribute("count", best.transfers);
      json.attribute("bytes", best.transferredBytes);
    });
    json.attributeObject("search", [&] {
      json.attribute("evaluations", report.outcome.evaluations);
      // Present when they apply, so reports of plain runs keep their shape.
      if (report.timeBudgetSeconds > 0) {
        json.attribute("time_budget_s", report.timeBudgetSeconds);
        json.attribute("time_budget_reached", report.timeBudgetReached);
      }
      json.attribute("events", report.outcome.events);
      json.attribute("seconds", report.searchSeconds);
      json.attribute(
          "evaluations_per_second",
          perSecond(double(report.outcome.evaluations), report.searchSeconds));
      json.attribute(
          "events_per_second",
          perSecond(double(report.outcome.events), report.searchSeconds));
      json.attributeArray("best_by_evaluation", [&] {
        for (const auto &best : report.outcome.bestByEvaluation)
          json.array([&] {
            json.value(best.first);
            json.value(best.second);
          });
      });
    });
    json.attributeArray("ops", [&] {
      for (size_t op = 0; op < graph.size(); ++op)
        json.object([&] {
          json.attribute("name", graph.getOp(int32_t(op)).name);
          json.attribute("device", report.outcome.best[op]);
        });
    });
  });
}

void devices::writePlacementCSV(const PlacementReport &report,
                                llvm::raw_ostream &os) {
  const OpGraph &graph = *report.graph;
  core::writeCsvRow(os, {"op", "device", "device_name"});
  for (size_t op = 0; op < graph.size(); ++op) {
    int32_t device = report.outcome.best[op];
    core::writeCsvRow(os,
                      {graph.getOp(int32_t(op)).name, std::to_string(device),
                       report.network->getDevice(device).name});
  }
}

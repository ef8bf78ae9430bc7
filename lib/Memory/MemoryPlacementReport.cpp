//===- MemoryPlacementReport.cpp - What a memory placement achieved -------===//

#include "dsm/Core/Memory/MemoryPlacementReport.h"
#include "dsm/Core/Support/Csv.h"
#include "dsm/Core/Support/PrintableText.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace dsm::core;
using namespace dsm::core::memory;

std::vector<std::pair<int64_t, double>>
memory::getBestSoFarSteps(const PlacementSearchResult &result) {
  std::vector<std::pair<int64_t, double>> steps;
  for (auto [index, speedup] : llvm::enumerate(result.bestSpeedupByIteration))
    if (steps.empty() || speedup != steps.back().second)
      steps.push_back({int64_t(index) + 1, speedup});
  return steps;
}

namespace {
/// A tensor row: node, which tensor, bytes, level, live range.
struct TensorRow {
  const MemoryNode *node;
  bool weights;
  int64_t bytes;
  MemoryLevel level;
  MemoryLevel compilerLevel;
  LiveRange live;
};

std::vector<TensorRow> tensorRows(const PlacementReport &report) {
  const PlacementEvaluator &evaluator = *report.evaluator;
  const MemoryGraph &graph = evaluator.getGraph();
  const MemoryMap &map = report.result.map;
  const MemoryMap &compiler = evaluator.getCompilerMap();
  std::vector<TensorRow> rows;
  LiveRange wholeRun{0, int32_t(graph.size()) - 1};
  for (size_t i = 0; i < graph.size(); ++i) {
    const MemoryNode &node = graph.getNode(i);
    if (node.weightBytes > 0)
      rows.push_back({&node, true, node.weightBytes, map[i].weights,
                      compiler[i].weights, wholeRun});
    rows.push_back({&node, false, node.outputBytes, map[i].activations,
                    compiler[i].activations, graph.getActivationRange(i)});
  }
  return rows;
}
} // namespace

void memory::printPlacementTable(llvm::ArrayRef<PlacementReport> reports,
                                 llvm::raw_ostream &os) {
  for (const PlacementReport &report : reports) {
    const PlacementEvaluator &evaluator = *report.evaluator;
    const PlacementSearchResult &result = report.result;
    const Evaluation &evaluation = result.evaluation;
    os << llvm::formatv(
        "memory placement of @{0} on {1}: placement={2} iterations={3} "
        "seed={4}, {5} layers, {6} maps evaluated\n",
        core::printableText(report.graphName),
        core::printableText(report.systemName),
        stringifyPlacementSearchKind(report.kind), report.options.iterations,
        report.options.seed, evaluator.getGraph().size(), result.evaluations);
    if (!report.evaluatorProgram.empty())
      os << "latencies measured by " << report.evaluatorProgram << "\n";
    if (report.interrupted)
      os << "interrupted: the best map found so far\n";
    if (report.timeBudgetReached)
      os << llvm::formatv("time budget of {0} s reached\n",
                          report.timeBudgetSeconds);
    os << llvm::formatv("latency {0:f3} us, compiler {1:f3} us, speedup "
                        "{2:f4}, valid {3}",
                        evaluation.latency * 1e6,
                        evaluator.getCompilerLatency() * 1e6,
                        evaluation.speedup, evaluation.valid ? "yes" : "no");
    if (result.rectified)
      os << llvm::formatv(", rectified (re-assigned ratio {0:f4})",
                          result.reassignedRatio);
    if (report.kind == PlacementSearchKind::ILP)
      os << llvm::formatv(", {0} (lower bound {1:f3} us)",
                          result.optimal ? "optimal" : "not proved optimal",
                          result.latencyLowerBound * 1e6);
    os << "\n";
    CapacityVerdict verdict = evaluator.getChecker().check(result.map);
    os << llvm::formatv("{0,-6} {1,14} {2,14}\n", "level", "peak bytes",
                        "capacity");
    for (MemoryLevel level : kMemoryLevels)
      os << llvm::formatv("{0,-6} {1,14} {2,14}\n", stringifyMemoryLevel(level),
                          verdict.peakBytes[int(level)],
                          evaluator.getChecker().getCapacity(level));
    std::vector<TensorRow> rows = tensorRows(report);
    std::vector<std::string> names;
    size_t width = 4;
    for (const TensorRow &row : rows) {
      names.push_back(core::printableText(row.node->name));
      width = std::max(width, names.back().size());
    }
    os << llvm::formatv("{0} {1,-11} {2,12} {3,-5} {4,-8} {5,11}\n",
                        llvm::left_justify("node", unsigned(width)), "tensor",
                        "bytes", "level", "compiler", "live");
    for (auto [row, name] : llvm::zip_equal(rows, names))
      os << llvm::formatv(
          "{0} {1,-11} {2,12} {3,-5} {4,-8} {5,11}\n",
          llvm::left_justify(name, unsigned(width)),
          row.weights ? "weights" : "activations", row.bytes,
          stringifyMemoryLevel(row.level),
          stringifyMemoryLevel(row.compilerLevel),
          llvm::formatv("{0}..{1}", row.live.first, row.live.last).str());
    os << "best speedup by iteration:";
    for (auto [iteration, speedup] : getBestSoFarSteps(result))
      os << llvm::formatv(" {0}:{1:f4}", iteration, speedup);
    os << "\n";
  }
}

void memory::writePlacementJSON(llvm::ArrayRef<PlacementReport> reports,
                                llvm::raw_ostream &os) {
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.object([&] {
    json.attributeArray("placements", [&] {
      for (const PlacementReport &report : reports) {
        const PlacementEvaluator &evaluator = *report.evaluator;
        const PlacementSearchResult &result = report.result;
        const Evaluation &evaluation = result.evaluation;
        json.object([&] {
          json.attribute("function", report.graphName);
          json.attribute("system", report.systemName);
          json.attribute("placement",
                         stringifyPlacementSearchKind(report.kind));
          json.attribute("iterations", report.options.iterations);
          json.attribute("seed", int64_t(report.options.seed));
          if (!report.evaluatorProgram.empty())
            json.attribute("evaluator", report.evaluatorProgram);
          json.attribute("evaluations", result.evaluations);
          // Present when they apply, so reports of plain runs keep their shape.
          if (report.timeBudgetSeconds > 0) {
            json.attribute("time_budget_s", report.timeBudgetSeconds);
            json.attribute("time_budget_reached", report.timeBudgetReached);
          }
          if (report.interrupted)
            json.attribute("interrupted", true);
          json.attribute("layers", int64_t(evaluator.getGraph().size()));
          // Seconds beside the paper's microseconds (one unit across the
          // reports).
          json.attribute("latency_us", evaluation.latency * 1e6);
          json.attribute("latency_s", evaluation.latency);
          json.attribute("compiler_latency_us",
                         evaluator.getCompilerLatency() * 1e6);
          json.attribute("compiler_latency_s", evaluator.getCompilerLatency());
          json.attribute("speedup", evaluation.speedup);
          json.attribute("valid", evaluation.valid);
          json.attribute("rectified", result.rectified);
          json.attribute("reassigned_ratio", result.reassignedRatio);
          if (report.kind == PlacementSearchKind::ILP) {
            json.attribute("optimal", result.optimal);
            json.attribute("latency_lower_bound_us",
                           result.latencyLowerBound * 1e6);
          }
          CapacityVerdict verdict = evaluator.getChecker().check(result.map);
          json.attributeArray("levels", [&] {
            for (MemoryLevel level : kMemoryLevels)
              json.object([&] {
                json.attribute("level", stringifyMemoryLevel(level));
                json.attribute("peak_bytes", verdict.peakBytes[int(level)]);
                json.attribute("capacity_bytes",
                               evaluator.getChecker().getCapacity(level));
                json.attribute("bandwidth_bytes_per_second",
                               evaluator.getCostModel().getBandwidth(level));
              });
          });
          json.attributeArray("tensors", [&] {
            for (const TensorRow &row : tensorRows(report))
              json.object([&] {
                json.attribute("node", row.node->name);
                json.attribute("tensor",
                               row.weights ? "weights" : "activations");
                json.attribute("bytes", row.bytes);
                json.attribute("level", stringifyMemoryLevel(row.level));
                json.attribute("compiler_level",
                               stringifyMemoryLevel(row.compilerLevel));
                json.attributeArray("live", [&] {
                  json.value(int64_t(row.live.first));
                  json.value(int64_t(row.live.last));
                });
              });
          });
          json.attributeArray("best_speedup_by_iteration", [&] {
            for (const auto &step : getBestSoFarSteps(result))
              json.array([&] {
                json.value(step.first);
                json.value(step.second);
              });
          });
        });
      }
    });
    // The report's contract (docs/schemas/dsm.memory-report.schema.json).
    json.attribute("schema", "dsm.memory-report/1");
  });
  os << "\n";
}

void memory::writePlacementCSV(llvm::ArrayRef<PlacementReport> reports,
                               llvm::raw_ostream &os) {
  core::writeCsvRow(os, {"function", "node", "tensor", "bytes", "level",
                         "compiler_level", "live_first", "live_last"});
  for (const PlacementReport &report : reports)
    for (const TensorRow &row : tensorRows(report))
      core::writeCsvRow(
          os, {report.graphName, row.node->name,
               row.weights ? "weights" : "activations",
               std::to_string(row.bytes), stringifyMemoryLevel(row.level).str(),
               stringifyMemoryLevel(row.compilerLevel).str(),
               std::to_string(row.live.first), std::to_string(row.live.last)});
}

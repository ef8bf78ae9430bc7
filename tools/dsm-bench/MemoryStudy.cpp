//===- MemoryStudy.cpp - The EGRL paper's experiment on our cost model ----===//
//
// Khadka et al., "Optimizing Memory Placement using Evolutionary Graph
// Reinforcement Learning", Fig. 3: speedup over the compiler's map against
// iterations (maps evaluated) for ResNet-50, ResNet-101 and BERT-base on
// NNP-I, 5 seeds, mean and standard deviation, for greedy-dp, ea, egrl and
// pg (the last two when built with libtorch), with the ILP's optimum as a
// line. Also the two properties §5 reports of good maps:
// the share of weight bytes left in DRAM and how often neighbouring layers
// keep their activations at the same level. docs/memory-placement.md
// records the output.
//
//   dsm-memory-study [iterations=4000] [seeds=5] [ilp-time-limit=60]
//                    [json=<file>]   (the curves, for plot_studies.py)
//                    [searches=greedy-dp,ea,egrl,pg] [models=resnet50,...]
//
//===----------------------------------------------------------------------===//

#include "ModelLoader.h"

#include "dsm/Core/Memory/MemoryPlacementSearch.h"
#include "dsm/Core/Support/ConsoleProgress.h"
#include "dsm/Dialect/DsmAttrs.h"
#include "dsm/Passes/Memory/MemoryGraphBuilder.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <optional>

using namespace dsm;
using namespace dsm::core;
using namespace dsm::core::memory;

namespace {
struct Options {
  int64_t iterations = 4000;
  int seeds = 5;
  double ilpTimeLimit = 60;
  std::vector<PlacementSearchKind> searches;
  std::vector<std::string> models = {"resnet50", "resnet101", "bert_base_s128"};
};

/// One model's curves, kept for json=<file> (plot_studies.py draws them).
struct ModelCurves {
  std::string model;
  std::vector<int64_t> iterations;
  /// A search's mean speedup at each checkpoint and its standard deviation.
  struct SearchCurve {
    std::string name;
    std::vector<double> means, deviations;
  };
  std::vector<SearchCurve> searches;
  double ilpSpeedup = 0;
  bool ilpOptimal = false;
};

/// Weight bytes in DRAM / all weight bytes.
double dramWeightShare(const MemoryGraph &graph, const MemoryMap &map) {
  double dram = 0, total = 0;
  for (size_t i = 0; i < graph.size(); ++i) {
    total += double(graph.getNode(i).weightBytes);
    if (map[i].weights == memory::MemoryLevel::DRAM)
      dram += double(graph.getNode(i).weightBytes);
  }
  return total > 0 ? dram / total : 0;
}

/// Share of consecutive layers whose activations share a level.
double contiguity(const MemoryMap &map) {
  if (map.size() < 2)
    return 1;
  int same = 0;
  for (size_t i = 1; i < map.size(); ++i)
    same += map[i].activations == map[i - 1].activations;
  return double(same) / double(map.size() - 1);
}

/// Runs one search with a progress line on a terminal; stops the study
/// (writing nothing) when it fails or is interrupted (Ctrl-C).
PlacementSearchResult search(PlacementSearchKind kind, llvm::StringRef model,
                             const PlacementEvaluator &evaluator,
                             PlacementSearchOptions options,
                             Executor &executor) {
  ConsoleProgress progress(llvm::formatv("{0} on {1}, seed {2}",
                                         stringifyPlacementSearchKind(kind),
                                         model, options.seed)
                               .str(),
                           "speedup");
  options.progress = &progress;
  llvm::Expected<PlacementSearchResult> result =
      runPlacementSearch(kind, evaluator, options, executor);
  progress.finish();
  if (result)
    if (llvm::Error error = checkNotInterrupted(kind, *result, options))
      result = std::move(error);
  if (!result) {
    llvm::errs() << "dsm-memory-study: " << stringifyPlacementSearchKind(kind)
                 << " on " << model << ": "
                 << llvm::toString(result.takeError()) << "\n";
    std::exit(1);
  }
  return std::move(*result);
}

ModelCurves study(mlir::MLIRContext &context, llvm::StringRef model,
                  const Options &options, Executor &executor) {
  ModelCurves kept;
  kept.model = model.str();
  mlir::OwningOpRef<mlir::ModuleOp> module = bench::runPipeline(
      context, bench::modelPath(model), "dsm-attach-system{system=nnp-i}");
  mlir::FailureOr<SystemDescription> description = getModuleSystem(*module);
  const auto &system = *description->getIf<MemoryHierarchySystem>();
  auto func = *module->getOps<mlir::func::FuncOp>().begin();
  mlir::FailureOr<MemoryGraphWithLayers> built =
      buildMemoryGraph(func, bytesPerElement(system.precision));
  if (mlir::failed(built))
    llvm::report_fatal_error("cannot build the memory graph");
  const MemoryGraph &graph = built->graph;
  auto evaluator = PlacementEvaluator::create(graph, system);
  if (!evaluator)
    llvm::report_fatal_error(evaluator.takeError());
  double weights = 0;
  for (const MemoryNode &node : graph.getNodes())
    weights += double(node.weightBytes);

  PlacementSearchOptions ilpOptions;
  ilpOptions.ilpTimeLimitSeconds = options.ilpTimeLimit;
  auto start = std::chrono::steady_clock::now();
  auto ilp =
      search(PlacementSearchKind::ILP, model, *evaluator, ilpOptions, executor);
  std::chrono::duration<double> ilpSeconds =
      std::chrono::steady_clock::now() - start;
  llvm::outs() << llvm::formatv(
      "\n{0}: {1} layers, {2:f1} MB of weights (int8), compiler {3:f2} us\n",
      model, graph.size(), weights / 1e6,
      evaluator->getCompilerLatency() * 1e6);
  llvm::outs() << llvm::formatv(
      "  ilp: {0:f2} us, speedup {1:f4}, {2} in {3:f1} s (lower bound {4:f2} "
      "us, speedup <= {5:f4})\n",
      ilp.evaluation.latency * 1e6, ilp.evaluation.speedup,
      ilp.optimal ? "optimal" : "NOT proved optimal", ilpSeconds.count(),
      ilp.latencyLowerBound * 1e6,
      evaluator->getCompilerLatency() / ilp.latencyLowerBound);

  std::vector<int64_t> checkpoints;
  for (int64_t at : {100, 250, 500, 1000, 2000, 4000, 10000, 20000})
    if (at < options.iterations)
      checkpoints.push_back(at);
  checkpoints.push_back(options.iterations);
  kept.iterations = checkpoints;
  kept.ilpSpeedup = ilp.evaluation.speedup;
  kept.ilpOptimal = ilp.optimal;
  llvm::outs() << llvm::formatv("  {0,-10}", "iterations");
  for (int64_t at : checkpoints)
    llvm::outs() << llvm::formatv(" {0,15}", at);
  llvm::outs() << llvm::formatv(" {0,8} {1,10} {2,8}\n", "s/run", "DRAM wts",
                                "contig.");
  for (PlacementSearchKind kind : options.searches) {
    std::vector<std::vector<double>> curves;
    double seconds = 0, dram = 0, contiguous = 0;
    for (int seed = 1; seed <= options.seeds; ++seed) {
      PlacementSearchOptions searchOptions;
      searchOptions.iterations = options.iterations;
      searchOptions.seed = uint64_t(seed);
      auto begin = std::chrono::steady_clock::now();
      auto result = search(kind, model, *evaluator, searchOptions, executor);
      seconds += std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - begin)
                     .count();
      curves.push_back(result.bestSpeedupByIteration);
      dram += dramWeightShare(graph, result.map);
      contiguous += contiguity(result.map);
    }
    llvm::outs() << llvm::formatv("  {0,-10}",
                                  stringifyPlacementSearchKind(kind));
    ModelCurves::SearchCurve &searchCurve = kept.searches.emplace_back();
    searchCurve.name = stringifyPlacementSearchKind(kind).str();
    for (int64_t at : checkpoints) {
      double sum = 0, squares = 0;
      for (const std::vector<double> &curve : curves) {
        // A search that stopped early (greedy-dp converged) keeps its best.
        double value =
            curve.empty()
                ? 0
                : curve[size_t(std::min<int64_t>(at, int64_t(curve.size()))) -
                        1];
        sum += value;
        squares += value * value;
      }
      double mean = sum / double(curves.size());
      double variance =
          std::max(0.0, squares / double(curves.size()) - mean * mean);
      llvm::outs() << llvm::formatv(" {0,7:f4}+-{1,-6:f4}", mean,
                                    std::sqrt(variance));
      searchCurve.means.push_back(mean);
      searchCurve.deviations.push_back(std::sqrt(variance));
    }
    llvm::outs() << llvm::formatv(" {0,8:f2} {1,10:f3} {2,8:f3}\n",
                                  seconds / options.seeds, dram / options.seeds,
                                  contiguous / options.seeds);
  }
  llvm::outs() << llvm::formatv(
      "  {0,-10} DRAM weights {1:f3}, contiguity {2:f3}; ilp: {3:f3}, {4:f3}\n",
      "compiler", dramWeightShare(graph, evaluator->getCompilerMap()),
      contiguity(evaluator->getCompilerMap()), dramWeightShare(graph, ilp.map),
      contiguity(ilp.map));
  return kept;
}

/// The curves as JSON, in the shape plot_studies.py reads (like dsm-study
/// --json's figures): one row per (model, search), the ILP's map as a flat
/// line.
void writeJson(llvm::raw_ostream &os, const std::vector<ModelCurves> &all) {
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.object([&] {
    json.attributeObject("memory_speedup_by_iterations", [&] {
      json.attribute("system", "nnp-i");
      json.attribute("speedup_over", "compiler");
      json.attributeArray("iterations", [&] {
        for (int64_t at :
             all.empty() ? std::vector<int64_t>() : all.front().iterations)
          json.value(at);
      });
      json.attributeArray("rows", [&] {
        for (const ModelCurves &curves : all) {
          for (const ModelCurves::SearchCurve &search : curves.searches)
            json.object([&] {
              json.attribute("network", curves.model);
              json.attribute("label", search.name);
              json.attributeArray("speedup", [&] {
                for (double mean : search.means)
                  json.value(mean);
              });
              json.attributeArray("std", [&] {
                for (double deviation : search.deviations)
                  json.value(deviation);
              });
            });
          json.object([&] {
            json.attribute("network", curves.model);
            json.attribute("label", curves.ilpOptimal ? "ilp (optimal)"
                                                      : "ilp (best found)");
            json.attributeArray("speedup", [&] {
              for (size_t i = 0; i < curves.iterations.size(); ++i)
                json.value(curves.ilpSpeedup);
            });
          });
        }
      });
    });
  });
  os << "\n";
}
} // namespace

int main(int argc, char **argv) {
  Options options;
  // The paper's searches; egrl and pg need libtorch (DSM_ENABLE_TORCH).
  options.searches = {PlacementSearchKind::GreedyDP, PlacementSearchKind::EA};
  if (isPolicyLearnerAvailable())
    options.searches.insert(options.searches.end(), {PlacementSearchKind::EGRL,
                                                     PlacementSearchKind::PG});
  std::optional<std::string> jsonPath;
  // The option style of every dsm tool: --key=value or --key value (and,
  // as before, key=value).
  const char *usage = "usage: dsm-memory-study [--iterations=N] [--seeds=N] "
                      "[--ilp-time-limit=S] [--json=<file>] "
                      "[--searches=greedy-dp,ea,egrl,pg] "
                      "[--models=resnet50,resnet101,bert_base_s128]\n";
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (arg == "--help" || arg == "-h") {
      llvm::outs() << usage;
      return 0;
    }
    auto [key, value] = arg.split('=');
    if (key.consume_front("--") && !arg.contains('=') && i + 1 < argc)
      value = argv[++i];
    bool bad = false;
    if (key == "iterations")
      bad =
          value.getAsInteger(10, options.iterations) || options.iterations < 1;
    else if (key == "seeds")
      bad = value.getAsInteger(10, options.seeds) || options.seeds < 1;
    else if (key == "ilp-time-limit")
      bad = value.getAsDouble(options.ilpTimeLimit) ||
            !(options.ilpTimeLimit > 0);
    else if (key == "json")
      bad = (jsonPath = value.str())->empty();
    else if (key == "searches") {
      llvm::SmallVector<llvm::StringRef> names;
      value.split(names, ',');
      options.searches.clear();
      for (llvm::StringRef name : names) {
        std::optional<PlacementSearchKind> kind =
            symbolizePlacementSearchKind(name);
        bad |= !kind || *kind == PlacementSearchKind::Compiler ||
               *kind == PlacementSearchKind::ILP;
        if (kind)
          options.searches.push_back(*kind);
      }
    } else if (key == "models") {
      llvm::SmallVector<llvm::StringRef> names;
      value.split(names, ',');
      options.models.assign(names.begin(), names.end());
      bad = llvm::any_of(names, [](llvm::StringRef name) {
        return !llvm::sys::fs::exists(bench::modelPath(name));
      });
    } else
      bad = true;
    if (bad) {
      llvm::errs() << usage;
      return 1;
    }
  }
  // Checked first, so a bad path fails before minutes of searching.
  if (jsonPath && !bench::checkOutputPath("dsm-memory-study", *jsonPath))
    return 1;
  std::unique_ptr<mlir::MLIRContext> context = bench::makeContext();
  SerialExecutor serial;
  llvm::outs() << llvm::formatv(
      "Memory placement on nnp-i: speedup over the compiler's map by "
      "iterations, mean+-std over seeds 1..{0}\n",
      options.seeds);
  std::vector<ModelCurves> all;
  for (const std::string &model : options.models)
    all.push_back(study(*context, model, options, serial));
  if (jsonPath &&
      !bench::writeOutput(*context, "dsm-memory-study", *jsonPath,
                          [&](llvm::raw_ostream &os) { writeJson(os, all); }))
    return 1;
  return 0;
}

//===- MappingStudy.cpp - The mapping checked against the paper -----------===//
//
// Prints the figures docs/spatial-mapping-results.md records:
//  1. the heuristic search against the exhaustive one, for every layer, pass
//     and parallelism of VGG16 and ResNet-50 (training, minibatch 512, the
//     8-PFLOP asymmetric torus): the gap in estimated cycles, worst and mean;
//  2. DeepSpatialMatrix's qualitative findings, each reported as holding or
//  not;
//  3. the sweeps: utilization against the minibatch, each optimization in
//     turn (Fig. 11a-c), inference on one chip (Fig. 11d-f), scaling with
//     the chip count (Fig. 14), the scratchpad capacity (Fig. 15);
//  4. VGG16's per-layer configuration, like DeepSpatialMatrix Fig. 12.
//
//   dsm-study [--quick] [--sweep-only] [--results=<file>] [--json=<file>]
//   dsm-study --list
//   dsm-study --point=<id>
//
// --quick skips the exhaustive search, --sweep-only prints the sweeps alone;
// --json also writes the tables of 2-3 as JSON (the input of
// tools/dsm-bench/plot_studies.py, which draws the paper's figures from it).
//
// Each cell of the sweeps is one mapping, a *point*, and the points run
// concurrently over this machine's cores. A larger sweep runs elsewhere
// with the same command per point: --list names the points, --point <id>
// maps one and prints its result as a JSON line, and --results <file> builds
// the tables from those lines instead of mapping (docs/spatial-mapping-
// results.md shows it with GNU parallel and a batch scheduler).
//
//===----------------------------------------------------------------------===//

#include "ModelLoader.h"

#include "dsm/Core/Spatial/MappingReport.h"
#include "dsm/Core/Support/BoundedFile.h"
#include "dsm/Core/Support/ConsoleProgress.h"
#include "dsm/Core/Support/Executor.h"
#include "dsm/Core/System/SystemLoader.h"
#include "dsm/Passes/Spatial/LayerGraphBuilder.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>

using namespace dsm::bench;
using dsm::ExpandedFunction;
using dsm::readLayerGraph;
namespace core = dsm::core;
using Parallelism = dsm::core::Parallelism;
using TrainingPass = dsm::core::TrainingPass;
using llvm::outs;

namespace {

struct Model {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  ExpandedFunction expanded;
};

Model expand(mlir::MLIRContext &context, llvm::StringRef name, int64_t batch,
             llvm::StringRef mode = "train") {
  Model model;
  model.module = runPipeline(context, modelPath(name),
                             ("dsm-set-batch{batch=" + std::to_string(batch) +
                              "},dsm-expand-training{mode=" + mode + "}")
                                 .str());
  auto func = *model.module->getOps<mlir::func::FuncOp>().begin();
  mlir::FailureOr<ExpandedFunction> expanded = readLayerGraph(func);
  if (failed(expanded))
    std::exit(1);
  model.expanded = std::move(*expanded);
  return model;
}

core::MultiChipSystem preset(llvm::StringRef name) {
  llvm::Expected<core::SystemDescription> system = core::loadSystem(name);
  if (!system) {
    llvm::errs() << llvm::toString(system.takeError()) << "\n";
    std::exit(1);
  }
  return *system->getIf<core::MultiChipSystem>();
}

/// The memory optimizations of DeepSpatialMatrix §III a study point uses: the
/// bars of Fig. 11. Training: inter-layer and weight reuse, then DySM and
/// timestep pipelining (the figure's last bar: DySM for VGG16 and ResNet-50, TP
/// for GNMT; each does nothing to the other kind of network). Inference:
/// feature (activation) reuse, then the weights kept on chip -- across
/// timesteps and, preloaded, across inputs.
enum class MemoryOptimizations {
  None,
  Reuse,
  ReuseDysmAndPipelining,
  Features,
  FeaturesAndWeights
};

std::string stringify(MemoryOptimizations memory) {
  switch (memory) {
  case MemoryOptimizations::None:
    return "none";
  case MemoryOptimizations::Reuse:
    return "reuse";
  case MemoryOptimizations::ReuseDysmAndPipelining:
    return "reuse+dysm+pipeline";
  case MemoryOptimizations::Features:
    return "features";
  case MemoryOptimizations::FeaturesAndWeights:
    return "features+weights";
  }
  llvm_unreachable("unknown memory optimizations");
}

/// The pool every mapping of the study runs on: the sweep's points and,
/// nested in them, each mapper's explorations.
core::Executor &studyExecutor() {
  static llvm::StdThreadPool pool(llvm::hardware_concurrency());
  static core::ThreadPoolExecutor executor(pool);
  return executor;
}

llvm::Expected<core::MappingPlan>
tryMap(const core::LayerGraph &graph, const core::MultiChipSystem &system,
       std::vector<Parallelism> allowed, MemoryOptimizations memory,
       core::SearchMode search, core::Progress &progress) {
  using M = MemoryOptimizations;
  core::MapperOptions options;
  options.search = search;
  options.parallelisms = std::move(allowed);
  options.reuseActivations = memory != M::None;
  options.reuseWeightsAcrossSteps = memory == M::Reuse ||
                                    memory == M::ReuseDysmAndPipelining ||
                                    memory == M::FeaturesAndWeights;
  options.spatialMinibatching = memory == M::ReuseDysmAndPipelining;
  options.pipelineTimesteps = memory == M::ReuseDysmAndPipelining;
  options.preloadWeights = memory == M::FeaturesAndWeights;
  options.progress = &progress;
  return core::SpatialMapper(system, options).map(graph, studyExecutor());
}

core::MappingPlan map(const core::LayerGraph &graph,
                      const core::MultiChipSystem &system,
                      std::vector<Parallelism> allowed = {},
                      MemoryOptimizations memory = MemoryOptimizations::None,
                      core::SearchMode search = core::SearchMode::Heuristic) {
  // A line on a terminal; Ctrl-C stops the study, writing nothing.
  core::ConsoleProgress progress(
      (core::stringifySearchMode(search) + " mapping").str(), "");
  llvm::Expected<core::MappingPlan> plan =
      tryMap(graph, system, std::move(allowed), memory, search, progress);
  progress.finish();
  if (!plan) {
    llvm::errs() << "dsm-study: " << llvm::toString(plan.takeError()) << "\n";
    std::exit(1);
  }
  return std::move(*plan);
}

/// One line of a study table: a network's bars (Fig. 11) or points (Figs. 14,
/// 15) under one minibatch or configuration, kept for --json.
struct StudyRow {
  std::string network;
  std::string label;
  int64_t minibatch = 0;
  std::vector<double> speedup, utilization;
  int64_t preloadedKiB = -1;
};

/// The tables of the study as the printed ones show them, with what each
/// column is (the bars' names or the x values).
struct StudyTables {
  std::vector<std::pair<bool, std::string>> findings;
  std::vector<int64_t> minibatches;
  std::vector<StudyRow> byMinibatch;
  std::vector<std::string> trainingBars;
  std::vector<StudyRow> training;
  std::vector<std::string> inferenceBars;
  int64_t scratchpadKiB = 0;
  std::vector<StudyRow> inference;
  std::vector<int64_t> chipCounts;
  std::vector<StudyRow> chips;
  std::vector<double> capacitiesMB;
  std::vector<StudyRow> scratchpad;
};

StudyTables tables;

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

//===----------------------------------------------------------------------===//
// 1. Heuristic against exhaustive
//===----------------------------------------------------------------------===//

void compareSearches(mlir::MLIRContext &context,
                     const core::MultiChipSystem &system) {
  outs() << "== Heuristic vs exhaustive search (dsm-8pf-asym, training, "
            "minibatch 512) ==\n\n";
  core::PerformanceModel model(system);
  core::DesignSpaceExplorer heuristic(model, core::SearchMode::Heuristic);
  core::DesignSpaceExplorer exhaustive(model, core::SearchMode::Exhaustive);
  for (const char *name : {"vgg16", "resnet50"}) {
    Model m = expand(context, name, 512);
    const core::LayerGraph &graph = m.expanded.graph;
    core::MappingPlan plan = map(graph, system);

    // Every (layer, pass, parallelism), explored once per distinct shape.
    struct Case {
      int layer;
      TrainingPass pass;
      Parallelism parallelism;
    };
    std::vector<Case> cases;
    for (size_t i = 0; i < graph.layers.size(); ++i) {
      const core::LayerNode &node = graph.layers[i];
      bool runs[3] = {node.fwd, node.bwd, node.upd};
      for (int pass = 0; pass < 3; ++pass)
        for (int p = 0; p < core::kNumParallelisms; ++p)
          if (runs[pass] && model.isAvailable(Parallelism(p)))
            cases.push_back({int(i), TrainingPass(pass), Parallelism(p)});
    }
    std::vector<core::ExplorationResult> h(cases.size()), e(cases.size());
    auto start = std::chrono::steady_clock::now();
    for (size_t c = 0; c < cases.size(); ++c)
      h[c] = heuristic.explore(graph.layers[cases[c].layer].shape,
                               cases[c].pass, cases[c].parallelism);
    double heuristicTime = seconds(start);
    start = std::chrono::steady_clock::now();
    {
      llvm::StdThreadPool pool(llvm::hardware_concurrency());
      for (size_t c = 0; c < cases.size(); ++c)
        pool.async([&, c] {
          e[c] = exhaustive.explore(graph.layers[cases[c].layer].shape,
                                    cases[c].pass, cases[c].parallelism);
        });
      pool.wait();
    }
    double exhaustiveTime = seconds(start);

    double worst = 0, sum = 0, chosenWorst = 0, chosenSum = 0;
    int compared = 0, chosenCompared = 0;
    std::string worstCase, chosenWorstCase;
    uint64_t evalH = 0, evalE = 0;
    for (size_t c = 0; c < cases.size(); ++c) {
      evalH += h[c].evaluated;
      evalE += e[c].evaluated;
      if (!h[c].best || !e[c].best)
        continue;
      double gap = h[c].best->cycles.total / e[c].best->cycles.total - 1;
      const Case &k = cases[c];
      std::string label =
          graph.layers[k.layer].shape.name + " " +
          core::stringifyTrainingPass(k.pass).str() + " " +
          core::stringifyParallelism(k.parallelism).str() +
          llvm::formatv(" ({0:F0} vs {1:F0} cycles)", h[c].best->cycles.total,
                        e[c].best->cycles.total)
              .str();
      ++compared;
      sum += gap;
      if (gap >= worst) {
        worst = gap;
        worstCase = label;
      }
      if (plan.layers[k.layer].parallelism == k.parallelism) {
        ++chosenCompared;
        chosenSum += gap;
        if (gap >= chosenWorst) {
          chosenWorst = gap;
          chosenWorstCase = label;
        }
      }
    }
    outs() << llvm::formatv(
        "{0}: {1} (layer, pass, parallelism) searches; heuristic {2} "
        "configurations in {3:F2} s, exhaustive {4} in {5:F1} s\n",
        name, compared, evalH, heuristicTime, evalE, exhaustiveTime);
    outs() << llvm::formatv(
        "  all parallelisms:    mean gap {0:F4}%, worst {1:F4}%: {2}\n",
        100 * sum / compared, 100 * worst, worstCase);
    outs() << llvm::formatv(
        "  chosen parallelism:  mean gap {0:F4}%, worst {1:F4}%: {2}\n\n",
        100 * chosenSum / chosenCompared, 100 * chosenWorst, chosenWorstCase);
  }

  // The whole mapping with every optimization, as dsm-opt runs it by
  // default: the options (parallelism, DySM factor, reuse, pipe groups)
  // chosen over each search's explorations.
  outs() << "Whole plans, every optimization (heuristic against exhaustive "
            "search):\n";
  for (const char *name : {"vgg16", "resnet50", "gnmt"}) {
    Model m = expand(context, name, 512);
    const auto all = MemoryOptimizations::ReuseDysmAndPipelining;
    auto start = std::chrono::steady_clock::now();
    core::MappingPlan h = map(m.expanded.graph, system, {}, all);
    double heuristicTime = seconds(start);
    start = std::chrono::steady_clock::now();
    core::MappingPlan e =
        map(m.expanded.graph, system, {}, all, core::SearchMode::Exhaustive);
    double exhaustiveTime = seconds(start);
    outs() << llvm::formatv(
        "  {0,-9} heuristic {1:F0} cycles ({2:F3} s), exhaustive {3:F0} "
        "cycles ({4:F1} s): heuristic {5:F3}% slower\n",
        name, h.totals.cycles.total, heuristicTime, e.totals.cycles.total,
        exhaustiveTime,
        100 * (h.totals.cycles.total / e.totals.cycles.total - 1));
  }
  outs() << "\n";
}

//===----------------------------------------------------------------------===//
// 2-4. The paper's findings
//===----------------------------------------------------------------------===//

const core::LayerPlan *find(const core::LayerGraph &graph,
                            const core::MappingPlan &plan,
                            llvm::StringRef name) {
  for (size_t i = 0; i < graph.layers.size(); ++i)
    if (graph.layers[i].shape.name == name)
      return &plan.layers[i];
  return nullptr;
}

void finding(bool holds, const llvm::Twine &text) {
  outs() << (holds ? "[holds]          " : "[does not hold]  ") << text << "\n";
  tables.findings.emplace_back(holds, text.str());
}

std::string alternatives(const core::LayerPlan &layer) {
  std::string text;
  for (int p = 0; p < core::kNumParallelisms; ++p)
    if (std::isfinite(layer.alternatives[p]))
      text += llvm::formatv("{0}{1} {2:F0}", text.empty() ? "" : ", ",
                            core::stringifyParallelism(Parallelism(p)),
                            layer.alternatives[p])
                  .str();
  return text;
}

std::string split(const core::DimSizes &s) {
  std::string text;
  for (int d = 0; d < core::kNumDims; ++d)
    if (s[d] > 1)
      text += llvm::formatv("{0}{1}:{2}", text.empty() ? "" : " ",
                            core::stringifyDim(core::Dim(d)), s[d])
                  .str();
  return text.empty() ? "-" : text;
}

void checkFindings(mlir::MLIRContext &context) {
  core::MultiChipSystem asym = preset("dsm-8pf-asym"),
                        sym = preset("dsm-8pf-sym");
  // The paper's findings are those of its final configuration: hybrids,
  // memory optimizations, DySM and timestep pipelining on.
  const MemoryOptimizations all = MemoryOptimizations::ReuseDysmAndPipelining;
  outs() << "== DeepSpatialMatrix's qualitative findings (training, minibatch "
            "512, dsm-8pf-asym, every optimization) ==\n\n";

  Model vgg = expand(context, "vgg16", 512);
  core::MappingPlan vggPlan = map(vgg.expanded.graph, asym, {}, all);
  int convData = 0, convs = 0;
  for (size_t i = 0; i < vgg.expanded.graph.layers.size(); ++i)
    if (vgg.expanded.graph.layers[i].shape.kind == core::OpKind::Convolution) {
      ++convs;
      convData += vggPlan.layers[i].parallelism == Parallelism::Data;
    }
  finding(
      convData == convs,
      llvm::formatv(
          "VGG16 convolutions choose data parallelism (Fig. 12): {0} of {1}",
          convData, convs));
  for (auto [layer, expected] :
       {std::pair<const char *, Parallelism>{"fcon1", Parallelism::Model},
        {"fcon2", Parallelism::DataXModelY},
        {"fcon3", Parallelism::DataXModelY}}) {
    const core::LayerPlan *plan = find(vgg.expanded.graph, vggPlan, layer);
    finding(
        plan->parallelism == expected,
        llvm::formatv("VGG16 {0} chooses {1} (Fig. 12): chose {2}; cycles by "
                      "parallelism: {3}",
                      layer, core::stringifyParallelism(expected),
                      core::stringifyParallelism(plan->parallelism),
                      alternatives(*plan)));
  }

  Model resnet = expand(context, "resnet50", 512);
  core::MappingPlan resnetPlan = map(resnet.expanded.graph, asym, {}, all);
  std::string chosen;
  int modelXDataY = 0, last = 0;
  for (size_t i = 0; i < resnet.expanded.graph.layers.size(); ++i) {
    const std::string &name = resnet.expanded.graph.layers[i].shape.name;
    if (llvm::StringRef(name).starts_with("layer4.") &&
        resnet.expanded.graph.layers[i].shape.kind ==
            core::OpKind::Convolution) {
      ++last;
      if (resnetPlan.layers[i].parallelism == Parallelism::ModelXDataY) {
        ++modelXDataY;
        chosen += (chosen.empty() ? "" : ", ") + name;
      }
    }
  }
  finding(modelXDataY > 0,
          llvm::formatv(
              "ResNet-50's last convolutions choose ModelXDataY (§V-A): {0} "
              "of the {1} in layer4 ({2})",
              modelXDataY, last, chosen));

  Model gnmt = expand(context, "gnmt", 512);
  core::MappingPlan gnmtPlan = map(gnmt.expanded.graph, asym, {}, all);
  int lstms = 0, lstmMxDy = 0;
  for (size_t i = 0; i < gnmt.expanded.graph.layers.size(); ++i)
    if (gnmt.expanded.graph.layers[i].shape.kind == core::OpKind::Lstm) {
      ++lstms;
      lstmMxDy += gnmtPlan.layers[i].parallelism == Parallelism::ModelXDataY;
    }
  finding(lstmMxDy == lstms,
          llvm::formatv(
              "GNMT's LSTM layers choose ModelXDataY (§III-A): {0} of {1}",
              lstmMxDy, lstms));

  // Fig. 11's first bar for GNMT (DSM: symmetric torus, data and model
  // parallelism, no optimization): "Increasing N_mb has a more pronounced
  // performance impact for ResNet50 and GNMT", from ~0.011 at mb 256 (0.36
  // at best / 32x). A rotation-bound model-parallel LSTM does not rise with
  // the minibatch (rotation and compute both grow with it); a data-parallel
  // one, bound by fetching its weights every timestep, does
  // (docs/spatial-mapping-results.md).
  double baseline[2], dataOnly[2];
  int lstmsModel = 0, lstmsBaseline = 0;
  for (int k = 0; k < 2; ++k) {
    Model m = expand(context, "gnmt", k == 0 ? 256 : 1024);
    core::MappingPlan plan =
        map(m.expanded.graph, sym, {Parallelism::Data, Parallelism::Model});
    baseline[k] = plan.totals.utilization;
    dataOnly[k] =
        map(m.expanded.graph, sym, {Parallelism::Data}).totals.utilization;
    if (k == 0)
      for (size_t i = 0; i < m.expanded.graph.layers.size(); ++i)
        if (m.expanded.graph.layers[i].shape.kind == core::OpKind::Lstm) {
          ++lstmsBaseline;
          lstmsModel += plan.layers[i].parallelism == Parallelism::Model;
        }
  }
  finding(baseline[1] >= 1.5 * baseline[0],
          llvm::formatv("GNMT's baseline (DSM, dsm-8pf-sym, no optimization) "
                        "rises with the minibatch (Fig. 11, ~0.011 at mb 256): "
                        "mb 256 {0:F3}, mb 1024 {1:F3}, {2} of {3} LSTMs model "
                        "parallel (rotation-bound); data parallelism only: "
                        "{4:F3} and {5:F3}",
                        baseline[0], baseline[1], lstmsModel, lstmsBaseline,
                        dataOnly[0], dataOnly[1]));
}

//===----------------------------------------------------------------------===//
// 3-4. The sweeps: one mapping per table cell
//===----------------------------------------------------------------------===//

/// One mapping a cell of the sweep tables shows. Its id names everything
/// that sets it, so that `dsm-study --point <id>` maps it alone, in a process
/// of its own, exactly as the whole study does.
struct StudyPoint {
  std::string network;
  std::string mode = "train";
  int64_t batch = 512;
  std::string system = "dsm-8pf-asym";
  /// The preset's when 0. Fig. 14 changes the chip count (4 chips along X),
  /// Fig. 15 the scratchpad.
  int64_t chips = 0;
  int64_t scratchpadKiB = 0;
  /// Data and model parallelism only: the paper's DSM bar.
  bool dataAndModelOnly = false;
  MemoryOptimizations memory = MemoryOptimizations::None;

  std::string id() const {
    std::string id =
        llvm::formatv("{0}/{1}/mb{2}/{3}", mode, network, batch, system);
    if (chips)
      id += llvm::formatv("/chips{0}", chips).str();
    if (scratchpadKiB)
      id += llvm::formatv("/spad{0}k", scratchpadKiB).str();
    if (dataAndModelOnly)
      id += "/data+model";
    return id + "/" + stringify(memory);
  }
};

/// What the tables show of a point's plan.
struct PointResult {
  double utilization = 0;
  double seconds = 0;
  int64_t preloadReservedBytes = 0;
};

/// One JSON line per point: what `--point` prints and `--results` reads.
/// Doubles print with every digit, so tables built from points mapped
/// elsewhere are the ones this process would print.
void writePointResult(llvm::raw_ostream &os, llvm::StringRef id,
                      const PointResult &result) {
  llvm::json::OStream json(os);
  json.object([&] {
    json.attribute("id", id);
    json.attribute("utilization", result.utilization);
    json.attribute("seconds", result.seconds);
    json.attribute("preload_reserved_bytes", result.preloadReservedBytes);
  });
  os << "\n";
}

/// Asks nothing of the run but whether the study was interrupted: the
/// sweep's points share one progress line.
struct StopWhenInterrupted final : core::Progress {
  bool shouldStop() override { return core::ConsoleProgress::wasInterrupted(); }
};

/// The points of the sweep tables. The tables are written once, as code
/// that asks the sweep for each cell's point (printSweepTables): a first run
/// of that code records the points and prints nowhere; the points are then
/// mapped -- fanned out over this machine's cores, or read from the results
/// of a larger sweep that ran `dsm-study --point <id>` for each of them
/// elsewhere --; a second run prints the tables. Results do not depend on
/// the thread count or the order the points ran in.
class Sweep {
public:
  /// While collecting, records `point` and returns a placeholder (a result
  /// of nothing: the tables print it nowhere); then, its result.
  const PointResult &operator()(const StudyPoint &point) {
    auto [it, inserted] = index.try_emplace(point.id(), points.size());
    if (collecting) {
      if (inserted)
        points.push_back(point);
      static const PointResult placeholder{0, 1, 0};
      return placeholder;
    }
    if (inserted)
      llvm::report_fatal_error("dsm-study: a table asked for a point it did "
                               "not ask for while collecting");
    return results[it->second];
  }

  void stopCollecting() {
    collecting = false;
    results.resize(points.size());
  }

  const std::vector<StudyPoint> &getPoints() const { return points; }

  /// Maps the points whose indices are given (all when empty): the models
  /// are expanded first, on this thread (the pass pipeline uses the
  /// context), then the points run concurrently, each mapper's explorations
  /// nested in the same pool. False, having said why, when one fails.
  bool mapPoints(mlir::MLIRContext &context, std::vector<size_t> which = {}) {
    if (which.empty())
      for (size_t i = 0; i < points.size(); ++i)
        which.push_back(i);
    std::map<std::tuple<std::string, int64_t, std::string>, Model> models;
    std::map<std::string, core::MultiChipSystem> systems;
    for (size_t i : which) {
      const StudyPoint &point = points[i];
      auto key = std::make_tuple(point.network, point.batch, point.mode);
      if (!models.count(key))
        models.emplace(key,
                       expand(context, point.network, point.batch, point.mode));
      if (!systems.count(point.system))
        systems.emplace(point.system, preset(point.system));
    }
    core::ConsoleProgress progress("study sweep", "");
    std::mutex stepping;
    size_t done = 0;
    std::vector<std::optional<std::string>> errors(which.size());
    studyExecutor().parallelFor(which.size(), [&](size_t k) {
      const StudyPoint &point = points[which[k]];
      core::MultiChipSystem system = systems.at(point.system);
      if (point.chips) {
        system.chips = point.chips;
        system.torus.x.size = 4;
        system.torus.y.size = point.chips / 4;
      }
      if (point.scratchpadKiB)
        system.chip.core.scratchpad.capacityBytes = point.scratchpadKiB * 1024;
      std::vector<Parallelism> allowed;
      if (point.dataAndModelOnly)
        allowed = {Parallelism::Data, Parallelism::Model};
      StopWhenInterrupted stop;
      llvm::Expected<core::MappingPlan> plan = tryMap(
          models.at(std::make_tuple(point.network, point.batch, point.mode))
              .expanded.graph,
          system, std::move(allowed), point.memory, core::SearchMode::Heuristic,
          stop);
      if (plan)
        results[which[k]] = {plan->totals.utilization, plan->totals.seconds,
                             plan->preloadReservedBytes};
      else
        errors[k] = point.id() + ": " + llvm::toString(plan.takeError());
      std::lock_guard<std::mutex> lock(stepping);
      progress.step(++done, which.size(), core::Progress::kNoBest);
    });
    progress.finish();
    for (const std::optional<std::string> &error : errors)
      if (error) {
        llvm::errs() << "dsm-study: " << *error << "\n";
        return false;
      }
    return true;
  }

  /// Takes every point's result from `path`, one JSON line per point as
  /// `--point` prints them, in any order. False, having said why, on a line
  /// that is not one, a point that is not the study's, twice, or missing.
  bool read(llvm::StringRef path) {
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> file =
        dsm::core::readBoundedFile(path);
    if (!file) {
      llvm::errs() << "dsm-study: cannot read '" << path
                   << "': " << llvm::toString(file.takeError()) << "\n";
      return false;
    }
    std::vector<bool> seen(points.size());
    llvm::SmallVector<llvm::StringRef> lines;
    (*file)->getBuffer().split(lines, '\n');
    for (auto [number, line] : llvm::enumerate(lines)) {
      auto fail = [&, number = number](const llvm::Twine &why) {
        llvm::errs() << "dsm-study: " << path << ":" << number + 1 << ": "
                     << why << "\n";
        return false;
      };
      if (line.trim().empty())
        continue;
      llvm::Expected<llvm::json::Value> value = llvm::json::parse(line);
      if (!value)
        return fail(llvm::toString(value.takeError()));
      const llvm::json::Object *object = value->getAsObject();
      std::optional<llvm::StringRef> id =
          object ? object->getString("id") : std::nullopt;
      std::optional<double> utilization =
          object ? object->getNumber("utilization") : std::nullopt;
      std::optional<double> seconds =
          object ? object->getNumber("seconds") : std::nullopt;
      std::optional<int64_t> preloaded =
          object ? object->getInteger("preload_reserved_bytes") : std::nullopt;
      if (!id || !utilization || !seconds || !preloaded)
        return fail("expected {\"id\": string, \"utilization\": number, "
                    "\"seconds\": number, \"preload_reserved_bytes\": "
                    "integer}, as dsm-study --point prints");
      if (!(*utilization >= 0 && *utilization <= 1) || !(*seconds > 0) ||
          !std::isfinite(*seconds) || *preloaded < 0)
        return fail("utilization must lie in [0, 1], seconds be positive "
                    "and preload_reserved_bytes not negative");
      auto it = index.find(*id);
      if (it == index.end())
        return fail("'" + *id +
                    "' is not a point of this study "
                    "(dsm-study --list names them)");
      if (seen[it->second])
        return fail("a second result for '" + *id + "'");
      seen[it->second] = true;
      results[it->second] = {*utilization, *seconds, *preloaded};
    }
    size_t missing = llvm::count(seen, false);
    if (missing) {
      size_t first = llvm::find(seen, false) - seen.begin();
      llvm::errs() << "dsm-study: " << path << ": no result for '"
                   << points[first].id() << "'";
      if (missing > 1)
        llvm::errs() << " and " << missing - 1
                     << (missing == 2 ? " more point" : " more points");
      llvm::errs() << "\n";
      return false;
    }
    return true;
  }

  /// The index of the point named `id`, if there is one.
  std::optional<size_t> find(llvm::StringRef id) const {
    auto it = index.find(id);
    if (it == index.end())
      return std::nullopt;
    return it->second;
  }

  const PointResult &result(size_t i) const { return results[i]; }

private:
  std::vector<StudyPoint> points;
  std::vector<PointResult> results;
  llvm::StringMap<size_t> index;
  bool collecting = true;
};

/// The sweep tables: utilization by minibatch, Fig. 11a-c, Fig. 11d-f,
/// Fig. 14 and Fig. 15, each cell one point of `sweep`, printed on `os`
/// and kept in `tables` for --json.
void printSweepTables(Sweep &sweep, llvm::raw_ostream &os,
                      StudyTables &tables) {
  using M = MemoryOptimizations;
  // Utilization against the minibatch.
  os << "\n== Utilization by minibatch (training, dsm-8pf-asym) ==\n\n";
  os << llvm::formatv("{0,-10}", "minibatch");
  const int64_t batches[] = {256, 512, 1024, 2048, 4096};
  tables.minibatches.assign(std::begin(batches), std::end(batches));
  for (int64_t b : batches)
    os << llvm::formatv("{0,10}", b);
  os << "\n";
  for (const char *name : {"vgg16", "resnet50", "gnmt"}) {
    os << llvm::formatv("{0,-10}", name);
    double previous = 0;
    bool rising = true;
    StudyRow &row = tables.byMinibatch.emplace_back();
    row.network = name;
    for (int64_t b : batches) {
      double u = sweep({name, "train", b}).utilization;
      row.utilization.push_back(u);
      rising &= u >= previous;
      previous = u;
      os << llvm::formatv("{0,10:F3}", u);
    }
    os << (rising ? "   rises" : "   does not rise throughout") << "\n";
  }

  // DeepSpatialMatrix Fig. 11's bars, each optimization added in turn: the
  // symmetric torus with data and model parallelism only (DSM), the asymmetric
  // torus with the hybrids (Hybrid), inter-layer and weight reuse (Mem-Opt),
  // dynamic spatial minibatching and timestep pipelining (DySM/TP).
  // Speedups are over DSM at minibatch 256, as in the figure.
  os << "\n== Each optimization in turn (DeepSpatialMatrix Fig. 11a-c, "
        "training; "
        "speedup over DSM at mb 256, utilization in brackets) ==\n\n";
  os << llvm::formatv("{0,-10} {1,4}  {2,-16} {3,-16} {4,-16} {5,-16}\n",
                      "network", "mb", "DSM", "+Hybrid", "+Mem-Opt",
                      "+DySM/TP");
  tables.trainingBars = {"DSM", "+Hybrid", "+Mem-Opt", "+DySM/TP"};
  for (const char *name : {"vgg16", "resnet50", "gnmt"}) {
    double reference = 0;
    for (int64_t batch : {256, 512, 1024}) {
      StudyPoint dsm{name, "train", batch, "dsm-8pf-sym"};
      dsm.dataAndModelOnly = true;
      const PointResult *bars[] = {
          &sweep(dsm), &sweep({name, "train", batch}),
          &sweep({name, "train", batch, "dsm-8pf-asym", 0, 0, false, M::Reuse}),
          &sweep({name, "train", batch, "dsm-8pf-asym", 0, 0, false,
                  M::ReuseDysmAndPipelining})};
      // Throughput (samples per second) against DSM's at mb 256.
      if (batch == 256)
        reference = double(batch) / bars[0]->seconds;
      os << llvm::formatv("{0,-10} {1,4}", name, batch);
      StudyRow &row = tables.training.emplace_back();
      row.network = name;
      row.minibatch = batch;
      for (const PointResult *bar : bars) {
        double speedup = double(batch) / bar->seconds / reference;
        row.speedup.push_back(speedup);
        row.utilization.push_back(bar->utilization);
        os << llvm::formatv(
            "  {0,-16}",
            llvm::formatv("{0:F2}x ({1:F3})", speedup, bar->utilization).str());
      }
      os << "\n";
    }
  }

  // DeepSpatialMatrix Fig. 11d-f: inference on one 128-TFLOP chip, minibatch
  // 1-16.
  os << "\n== Inference on one chip (DeepSpatialMatrix Fig. 11d-f, "
        "dsm-128tf; speedup over DSM at the same minibatch, utilization "
        "in brackets) ==\n\n";
  os << llvm::formatv("{0,-10} {1,4}  {2,-16} {3,-16} {4,-16} {5}\n", "network",
                      "mb", "DSM", "+Features", "+Weights",
                      "preloaded per core");
  tables.inferenceBars = {"DSM", "+Features", "+Weights"};
  const int64_t scratchpadKiB =
      int64_t(preset("dsm-128tf").chip.core.scratchpad.capacityBytes) / 1024;
  tables.scratchpadKiB = scratchpadKiB;
  for (const char *name : {"vgg16", "resnet50", "gnmt"}) {
    for (int64_t batch : {1, 2, 4, 8, 16}) {
      const PointResult *bars[3];
      const M memories[] = {M::None, M::Features, M::FeaturesAndWeights};
      for (int i = 0; i < 3; ++i)
        bars[i] = &sweep(
            {name, "infer", batch, "dsm-128tf", 0, 0, false, memories[i]});
      os << llvm::formatv("{0,-10} {1,4}", name, batch);
      StudyRow &row = tables.inference.emplace_back();
      row.network = name;
      row.minibatch = batch;
      row.preloadedKiB = bars[2]->preloadReservedBytes / 1024;
      for (const PointResult *bar : bars) {
        double speedup = bars[0]->seconds / bar->seconds;
        row.speedup.push_back(speedup);
        row.utilization.push_back(bar->utilization);
        os << llvm::formatv(
            "  {0,-16}",
            llvm::formatv("{0:F2}x ({1:F3})", speedup, bar->utilization).str());
      }
      os << llvm::formatv("  {0} KiB of {1} KiB\n",
                          bars[2]->preloadReservedBytes / 1024, scratchpadKiB);
    }
  }

  // DeepSpatialMatrix Fig. 14: 16 to 256 chips (2 to 32 PFLOPs), 4 chips along
  // X.
  os << "\n== Scaling with the chip count (DeepSpatialMatrix Fig. 14, "
        "training, minibatch 512; speedup over DSM on 16 chips, "
        "utilization in brackets) ==\n\n";
  const int64_t chipCounts[] = {16, 32, 64, 128, 256};
  tables.chipCounts.assign(std::begin(chipCounts), std::end(chipCounts));
  os << llvm::formatv("{0,-10} {1,-10}", "network", "");
  for (int64_t chips : chipCounts)
    os << llvm::formatv("{0,-16}", llvm::formatv("{0} chips", chips).str());
  os << "\n";
  for (const char *name : {"vgg16", "resnet50", "gnmt"}) {
    double reference = 0;
    for (bool optimized : {false, true}) {
      os << llvm::formatv("{0,-10} {1,-10}", name, optimized ? "all" : "DSM");
      StudyRow &row = tables.chips.emplace_back();
      row.network = name;
      row.label = optimized ? "all" : "DSM";
      row.minibatch = 512;
      for (int64_t chips : chipCounts) {
        StudyPoint point{name,  "train", 512,   "dsm-8pf-asym",
                         chips, 0,       false, M::ReuseDysmAndPipelining};
        if (!optimized) {
          point.system = "dsm-8pf-sym";
          point.dataAndModelOnly = true;
          point.memory = M::None;
        }
        const PointResult &result = sweep(point);
        if (!optimized && chips == chipCounts[0])
          reference = result.seconds;
        row.speedup.push_back(reference / result.seconds);
        row.utilization.push_back(result.utilization);
        os << llvm::formatv("{0,-16}", llvm::formatv("{0:F2}x ({1:F3})",
                                                     reference / result.seconds,
                                                     result.utilization)
                                           .str());
      }
      os << "\n";
    }
  }

  // DeepSpatialMatrix Fig. 15: the scratchpad from 0.5 to 4 MB.
  os << "\n== Scratchpad capacity (DeepSpatialMatrix Fig. 15, training, "
        "minibatch 512, dsm-8pf-asym; utilization) ==\n\n";
  const double capacities[] = {0.5, 1, 2, 4};
  tables.capacitiesMB.assign(std::begin(capacities), std::end(capacities));
  os << llvm::formatv("{0,-10} {1,-10}", "network", "");
  for (double mb : capacities)
    os << llvm::formatv("{0,-9}", llvm::formatv("{0} MB", mb).str());
  os << "\n";
  for (const char *name : {"vgg16", "resnet50", "gnmt"}) {
    for (auto [label, memory] : {std::pair<const char *, M>{"none", M::None},
                                 {"+Mem-Opt", M::Reuse},
                                 {"+DySM/TP", M::ReuseDysmAndPipelining}}) {
      os << llvm::formatv("{0,-10} {1,-10}", name, label);
      StudyRow &row = tables.scratchpad.emplace_back();
      row.network = name;
      row.label = label;
      row.minibatch = 512;
      for (double mb : capacities) {
        double u = sweep({name, "train", 512, "dsm-8pf-asym", 0,
                          int64_t(mb * 1024), false, memory})
                       .utilization;
        row.utilization.push_back(u);
        os << llvm::formatv("{0,-9:F3}", u);
      }
      os << "\n";
    }
  }
}

//===----------------------------------------------------------------------===//
// 5. VGG16 per layer
//===----------------------------------------------------------------------===//

void printVggLayers(mlir::MLIRContext &context) {
  Model vgg = expand(context, "vgg16", 512);
  core::MappingPlan vggPlan =
      map(vgg.expanded.graph, preset("dsm-8pf-asym"), {},
          MemoryOptimizations::ReuseDysmAndPipelining);
  // VGG16, layer by layer (like Fig. 12).
  outs() << "\n== VGG16 per-layer configuration (training, minibatch 512, "
            "dsm-8pf-asym, every optimization; like DeepSpatialMatrix Fig. "
            "12) ==\n\n";
  outs() << "| layer | parallelism | CoreD split FWD | CoreD split BWD | CoreD "
            "split UPD | "
            "util FWD | util BWD | util UPD | DySM | FWD limited by |\n";
  outs() << "|---|---|---|---|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < vgg.expanded.graph.layers.size(); ++i) {
    const core::LayerPlan &layer = vggPlan.layers[i];
    const core::LayerShape &shape = vgg.expanded.graph.layers[i].shape;
    if (!shape.hasPrimary)
      continue;
    std::string splits[3] = {"-", "-", "-"}, util[3] = {"-", "-", "-"}, limit;
    int64_t dysm = 1;
    for (const core::PassPlan &pass : layer.passes) {
      splits[int(pass.pass)] = split(pass.eval.config.coreSplit);
      util[int(pass.pass)] =
          llvm::formatv("{0:F2}", pass.cycles.useful / pass.cycles.total).str();
      if (pass.pass == TrainingPass::FWD) {
        dysm = pass.eval.config.memory.spatialMinibatches;
        core::MappingReportRow row;
        row.cycles = pass.cycles;
        row.transfers = pass.eval.transfers;
        if (pass.relayout.cycles > 0)
          row.transfers.push_back(pass.relayout);
        limit = row.limitedBy();
      }
    }
    outs() << llvm::formatv(
        "| {0} | {1} | {2} | {3} | {4} | {5} | {6} | {7} | {8} | {9} |\n",
        shape.name, core::stringifyParallelism(layer.parallelism), splits[0],
        splits[1], splits[2], util[0], util[1], util[2], dysm, limit);
  }
  outs() << llvm::formatv(
      "\nVGG16 total: {0:F3} ms per training step, utilization {1:F3}\n",
      1e3 * vggPlan.totals.seconds, vggPlan.totals.utilization);
}

template <typename T>
void writeArray(llvm::json::OStream &json, llvm::StringRef key,
                const std::vector<T> &values) {
  json.attributeArray(key, [&] {
    for (const T &value : values)
      json.value(value);
  });
}

void writeRows(llvm::json::OStream &json, const std::vector<StudyRow> &rows) {
  json.attributeArray("rows", [&] {
    for (const StudyRow &row : rows)
      json.object([&] {
        json.attribute("network", row.network);
        if (!row.label.empty())
          json.attribute("label", row.label);
        if (row.minibatch)
          json.attribute("minibatch", row.minibatch);
        if (!row.speedup.empty())
          writeArray(json, "speedup", row.speedup);
        writeArray(json, "utilization", row.utilization);
        if (row.preloadedKiB >= 0)
          json.attribute("preloaded_kib", row.preloadedKiB);
      });
  });
}

/// The tables as JSON: each figure names what its columns are ("bars" or the
/// x values) and lists one row per network and bar group or line; speedup
/// and utilization hold one value per column, in order.
void writeJson(llvm::raw_ostream &os) {
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.object([&] {
    json.attributeArray("findings", [&] {
      for (const std::pair<bool, std::string> &finding : tables.findings)
        json.object([&] {
          json.attribute("holds", finding.first);
          json.attribute("text", finding.second);
        });
    });
    json.attributeObject("utilization_by_minibatch", [&] {
      json.attribute("system", "dsm-8pf-asym");
      writeArray(json, "minibatches", tables.minibatches);
      writeRows(json, tables.byMinibatch);
    });
    json.attributeObject("fig11_training", [&] {
      json.attribute("system", "dsm-8pf-asym");
      json.attribute("speedup_over", "DSM at minibatch 256");
      writeArray(json, "bars", tables.trainingBars);
      writeRows(json, tables.training);
    });
    json.attributeObject("fig11_inference", [&] {
      json.attribute("system", "dsm-128tf");
      json.attribute("speedup_over", "DSM at the same minibatch");
      json.attribute("scratchpad_kib", tables.scratchpadKiB);
      writeArray(json, "bars", tables.inferenceBars);
      writeRows(json, tables.inference);
    });
    json.attributeObject("fig14_chips", [&] {
      json.attribute("system", "dsm-8pf-asym");
      json.attribute("speedup_over", "DSM on 16 chips");
      writeArray(json, "chips", tables.chipCounts);
      writeRows(json, tables.chips);
    });
    json.attributeObject("fig15_scratchpad", [&] {
      json.attribute("system", "dsm-8pf-asym");
      writeArray(json, "capacity_mb", tables.capacitiesMB);
      writeRows(json, tables.scratchpad);
    });
  });
  os << "\n";
}

} // namespace

/// The option style of every dsm tool: --key=value or --key value.
static const char *const kUsage =
    "usage: dsm-study [--quick] [--sweep-only] [--results=<file>] "
    "[--json=<file>]\n"
    "       dsm-study --list\n"
    "       dsm-study --point=<id>\n";

int main(int argc, char **argv) {
  bool quick = false, sweepOnly = false, list = false;
  std::optional<std::string> jsonPath, resultsPath, point;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    auto value = [&](llvm::StringRef name, std::optional<std::string> &into) {
      if (arg == name && i + 1 < argc)
        into = argv[++i];
      else if (arg.consume_front(name) && arg.consume_front("="))
        into = arg.str();
      else
        return false;
      return true;
    };
    if (arg == "--help" || arg == "-h") {
      llvm::outs() << kUsage;
      return 0;
    }
    if (arg == "--quick") {
      quick = true;
    } else if (arg == "--sweep-only") {
      sweepOnly = true;
    } else if (arg == "--list") {
      list = true;
    } else if (!value("--json", jsonPath) && !value("--results", resultsPath) &&
               !value("--point", point)) {
      llvm::errs() << kUsage;
      return 1;
    }
  }
  // Checked before the study runs, so a bad path fails in a second, not
  // after minutes of mapping.
  if (jsonPath && !checkOutputPath("dsm-study", *jsonPath))
    return 1;
  std::unique_ptr<mlir::MLIRContext> context = makeContext();

  // The sweep's points, recorded by a first run of the tables' code.
  Sweep sweep;
  StudyTables collected;
  printSweepTables(sweep, llvm::nulls(), collected);
  sweep.stopCollecting();
  if (list) {
    for (const StudyPoint &p : sweep.getPoints())
      outs() << p.id() << "\n";
    return 0;
  }
  if (point) {
    std::optional<size_t> index = sweep.find(*point);
    if (!index) {
      llvm::errs() << "dsm-study: '" << *point
                   << "' is not a point of this study (dsm-study --list "
                      "names them)\n";
      return 1;
    }
    if (!sweep.mapPoints(*context, {*index}))
      return 1;
    writePointResult(outs(), *point, sweep.result(*index));
    return 0;
  }
  // Points mapped elsewhere are read before anything runs here.
  if (resultsPath && !sweep.read(*resultsPath))
    return 1;

  if (!quick && !sweepOnly)
    compareSearches(*context, preset("dsm-8pf-asym"));
  if (!sweepOnly)
    checkFindings(*context);
  if (!resultsPath && !sweep.mapPoints(*context))
    return 1;
  printSweepTables(sweep, outs(), tables);
  if (!sweepOnly)
    printVggLayers(*context);
  if (jsonPath && !writeOutput(*context, "dsm-study", *jsonPath,
                               [](llvm::raw_ostream &os) { writeJson(os); }))
    return 1;
  return 0;
}

//===- MappingStudy.cpp - The mapping checked against the paper -----------===//
//
// Prints the figures docs/spatial-mapping-results.md records:
//  1. the heuristic search against the exhaustive one, for every layer, pass
//     and parallelism of VGG16 and ResNet-50 (training, minibatch 512, the
//     8-PFLOP asymmetric torus): the gap in estimated cycles, worst and mean;
//  2. DeepSpatialMatrix's qualitative findings, each reported as holding or
//  not;
//  3. utilization against the minibatch, and symmetric against asymmetric
//     torus;
//  4. each optimization in turn (Fig. 11a-c), inference on one chip
//     (Fig. 11d-f), scaling with the chip count (Fig. 14), the scratchpad
//     capacity (Fig. 15);
//  5. VGG16's per-layer configuration, like 000 Fig. 12.
//
//   dsm-study [--quick] [--json <file>]
//
// --quick skips the exhaustive search; --json also writes the tables of 2-4
// as JSON (the input of tools/dsm-bench/plot_studies.py, which draws the
// paper's figures from it).
//
//===----------------------------------------------------------------------===//

#include "ModelLoader.h"

#include "dsm/Core/Spatial/MappingReport.h"
#include "dsm/Core/Support/ConsoleProgress.h"
#include "dsm/Core/System/SystemLoader.h"
#include "dsm/Passes/Spatial/LayerGraphBuilder.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <map>

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

/// The memory optimizations of 000 §III a study point uses: the bars of
/// Fig. 11. Training: inter-layer and weight reuse, then DySM and timestep
/// pipelining (the figure's last bar: DySM for VGG16 and ResNet-50, TP for
/// GNMT; each does nothing to the other kind of network). Inference:
/// feature (activation) reuse, then the weights kept on chip -- across
/// timesteps and, preloaded, across inputs.
enum class MemoryOptimizations {
  None,
  Reuse,
  ReuseDysmAndPipelining,
  Features,
  FeaturesAndWeights
};

core::MappingPlan map(const core::LayerGraph &graph,
                      const core::MultiChipSystem &system,
                      std::vector<Parallelism> allowed = {},
                      MemoryOptimizations memory = MemoryOptimizations::None,
                      core::SearchMode search = core::SearchMode::Heuristic) {
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
  static llvm::StdThreadPool pool(llvm::hardware_concurrency());
  core::ThreadPoolExecutor executor(pool);
  // A line on a terminal; Ctrl-C stops the study, writing nothing.
  core::ConsoleProgress progress(
      (core::stringifySearchMode(search) + " mapping").str(), "");
  options.progress = &progress;
  llvm::Expected<core::MappingPlan> plan =
      core::SpatialMapper(system, options).map(graph, executor);
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

  // Utilization against the minibatch.
  outs() << "\n== Utilization by minibatch (training, dsm-8pf-asym) ==\n\n";
  outs() << llvm::formatv("{0,-10}", "minibatch");
  const int64_t batches[] = {256, 512, 1024, 2048, 4096};
  tables.minibatches.assign(std::begin(batches), std::end(batches));
  for (int64_t b : batches)
    outs() << llvm::formatv("{0,10}", b);
  outs() << "\n";
  for (const char *name : {"vgg16", "resnet50", "gnmt"}) {
    outs() << llvm::formatv("{0,-10}", name);
    double previous = 0;
    bool rising = true;
    StudyRow &row = tables.byMinibatch.emplace_back();
    row.network = name;
    for (int64_t b : batches) {
      Model m = expand(context, name, b);
      double u = map(m.expanded.graph, asym).totals.utilization;
      row.utilization.push_back(u);
      rising &= u >= previous;
      previous = u;
      outs() << llvm::formatv("{0,10:F3}", u);
    }
    outs() << (rising ? "   rises" : "   does not rise throughout") << "\n";
  }

  // 000 Fig. 11's bars, each optimization added in turn: the symmetric
  // torus with data and model parallelism only (DSM), the asymmetric torus
  // with the hybrids (Hybrid), inter-layer and weight reuse (Mem-Opt),
  // dynamic spatial minibatching and timestep pipelining (DySM/TP).
  // Speedups are over DSM at minibatch 256, as in the figure.
  outs() << "\n== Each optimization in turn (DeepSpatialMatrix Fig. 11a-c, "
            "training; "
            "speedup over DSM at mb 256, utilization in brackets) ==\n\n";
  outs() << llvm::formatv("{0,-10} {1,4}  {2,-16} {3,-16} {4,-16} {5,-16}\n",
                          "network", "mb", "DSM", "+Hybrid", "+Mem-Opt",
                          "+DySM/TP");
  tables.trainingBars = {"DSM", "+Hybrid", "+Mem-Opt", "+DySM/TP"};
  for (const char *name : {"vgg16", "resnet50", "gnmt"}) {
    double reference = 0;
    for (int64_t batch : {256, 512, 1024}) {
      Model m = expand(context, name, batch);
      core::MappingTotals bars[] = {
          map(m.expanded.graph, sym, {Parallelism::Data, Parallelism::Model})
              .totals,
          map(m.expanded.graph, asym).totals,
          map(m.expanded.graph, asym, {}, MemoryOptimizations::Reuse).totals,
          map(m.expanded.graph, asym, {},
              MemoryOptimizations::ReuseDysmAndPipelining)
              .totals};
      // Throughput (samples per second) against DSM's at mb 256.
      if (batch == 256)
        reference = double(batch) / bars[0].seconds;
      outs() << llvm::formatv("{0,-10} {1,4}", name, batch);
      StudyRow &row = tables.training.emplace_back();
      row.network = name;
      row.minibatch = batch;
      for (const core::MappingTotals &bar : bars) {
        double speedup = double(batch) / bar.seconds / reference;
        row.speedup.push_back(speedup);
        row.utilization.push_back(bar.utilization);
        outs() << llvm::formatv(
            "  {0,-16}",
            llvm::formatv("{0:F2}x ({1:F3})", speedup, bar.utilization).str());
      }
      outs() << "\n";
    }
  }

  // 000 Fig. 11d-f: inference on one 128-TFLOP chip, minibatch 1-16.
  outs() << "\n== Inference on one chip (DeepSpatialMatrix Fig. 11d-f, "
            "dsm-128tf; speedup over DSM at the same minibatch, utilization "
            "in brackets) ==\n\n";
  outs() << llvm::formatv("{0,-10} {1,4}  {2,-16} {3,-16} {4,-16} {5}\n",
                          "network", "mb", "DSM", "+Features", "+Weights",
                          "preloaded per core");
  core::MultiChipSystem chip = preset("dsm-128tf");
  tables.inferenceBars = {"DSM", "+Features", "+Weights"};
  tables.scratchpadKiB =
      int64_t(chip.chip.core.scratchpad.capacityBytes) / 1024;
  for (const char *name : {"vgg16", "resnet50", "gnmt"}) {
    for (int64_t batch : {1, 2, 4, 8, 16}) {
      Model m = expand(context, name, batch, "infer");
      core::MappingPlan bars[] = {
          map(m.expanded.graph, chip),
          map(m.expanded.graph, chip, {}, MemoryOptimizations::Features),
          map(m.expanded.graph, chip, {},
              MemoryOptimizations::FeaturesAndWeights)};
      outs() << llvm::formatv("{0,-10} {1,4}", name, batch);
      StudyRow &row = tables.inference.emplace_back();
      row.network = name;
      row.minibatch = batch;
      row.preloadedKiB = bars[2].preloadReservedBytes / 1024;
      for (const core::MappingPlan &bar : bars) {
        double speedup = bars[0].totals.seconds / bar.totals.seconds;
        row.speedup.push_back(speedup);
        row.utilization.push_back(bar.totals.utilization);
        outs() << llvm::formatv(
            "  {0,-16}",
            llvm::formatv("{0:F2}x ({1:F3})", speedup, bar.totals.utilization)
                .str());
      }
      outs() << llvm::formatv(
          "  {0} KiB of {1} KiB\n", bars[2].preloadReservedBytes / 1024,
          int64_t(chip.chip.core.scratchpad.capacityBytes) / 1024);
    }
  }

  // 000 Fig. 14: 16 to 256 chips (2 to 32 PFLOPs), 4 chips along X.
  outs() << "\n== Scaling with the chip count (DeepSpatialMatrix Fig. 14, "
            "training, minibatch 512; speedup over DSM on 16 chips, "
            "utilization in brackets) ==\n\n";
  const int64_t chipCounts[] = {16, 32, 64, 128, 256};
  tables.chipCounts.assign(std::begin(chipCounts), std::end(chipCounts));
  outs() << llvm::formatv("{0,-10} {1,-10}", "network", "");
  for (int64_t chips : chipCounts)
    outs() << llvm::formatv("{0,-16}", llvm::formatv("{0} chips", chips).str());
  outs() << "\n";
  auto withChips = [](core::MultiChipSystem system, int64_t chips) {
    system.chips = chips;
    system.torus.x = 4;
    system.torus.y = chips / 4;
    return system;
  };
  for (const char *name : {"vgg16", "resnet50", "gnmt"}) {
    Model m = expand(context, name, 512);
    double reference = 0;
    for (bool optimized : {false, true}) {
      outs() << llvm::formatv("{0,-10} {1,-10}", name,
                              optimized ? "all" : "DSM");
      StudyRow &row = tables.chips.emplace_back();
      row.network = name;
      row.label = optimized ? "all" : "DSM";
      row.minibatch = 512;
      for (int64_t chips : chipCounts) {
        core::MappingTotals totals =
            optimized ? map(m.expanded.graph, withChips(asym, chips), {},
                            MemoryOptimizations::ReuseDysmAndPipelining)
                            .totals
                      : map(m.expanded.graph, withChips(sym, chips),
                            {Parallelism::Data, Parallelism::Model})
                            .totals;
        if (!optimized && chips == chipCounts[0])
          reference = totals.seconds;
        row.speedup.push_back(reference / totals.seconds);
        row.utilization.push_back(totals.utilization);
        outs() << llvm::formatv("{0,-16}",
                                llvm::formatv("{0:F2}x ({1:F3})",
                                              reference / totals.seconds,
                                              totals.utilization)
                                    .str());
      }
      outs() << "\n";
    }
  }

  // 000 Fig. 15: the scratchpad from 0.5 to 4 MB.
  outs() << "\n== Scratchpad capacity (DeepSpatialMatrix Fig. 15, training, "
            "minibatch 512, dsm-8pf-asym; utilization) ==\n\n";
  const double capacities[] = {0.5, 1, 2, 4};
  tables.capacitiesMB.assign(std::begin(capacities), std::end(capacities));
  outs() << llvm::formatv("{0,-10} {1,-10}", "network", "");
  for (double mb : capacities)
    outs() << llvm::formatv("{0,-9}", llvm::formatv("{0} MB", mb).str());
  outs() << "\n";
  for (const char *name : {"vgg16", "resnet50", "gnmt"}) {
    Model m = expand(context, name, 512);
    for (auto [label, memory] :
         {std::pair<const char *, MemoryOptimizations>{
              "none", MemoryOptimizations::None},
          {"+Mem-Opt", MemoryOptimizations::Reuse},
          {"+DySM/TP", MemoryOptimizations::ReuseDysmAndPipelining}}) {
      outs() << llvm::formatv("{0,-10} {1,-10}", name, label);
      StudyRow &row = tables.scratchpad.emplace_back();
      row.network = name;
      row.label = label;
      row.minibatch = 512;
      for (double mb : capacities) {
        core::MultiChipSystem system = asym;
        system.chip.core.scratchpad.capacityBytes = mb * 1024 * 1024;
        double u = map(m.expanded.graph, system, {}, memory).totals.utilization;
        row.utilization.push_back(u);
        outs() << llvm::formatv("{0,-9:F3}", u);
      }
      outs() << "\n";
    }
  }

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

int main(int argc, char **argv) {
  bool quick = false;
  std::optional<std::string> jsonPath;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "--quick") {
      quick = true;
    } else if (arg == "--json" && i + 1 < argc) {
      jsonPath = argv[++i];
    } else if (arg.consume_front("--json=")) {
      jsonPath = arg.str();
    } else {
      llvm::errs() << "usage: dsm-study [--quick] [--json <file>]\n";
      return 1;
    }
  }
  // Checked before the study runs, so a bad path fails in a second, not
  // after minutes of mapping.
  if (jsonPath && !checkOutputPath("dsm-study", *jsonPath))
    return 1;
  std::unique_ptr<mlir::MLIRContext> context = makeContext();
  if (!quick)
    compareSearches(*context, preset("dsm-8pf-asym"));
  checkFindings(*context);
  if (jsonPath && !writeOutput(*context, "dsm-study", *jsonPath,
                               [](llvm::raw_ostream &os) { writeJson(os); }))
    return 1;
  return 0;
}

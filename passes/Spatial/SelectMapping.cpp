//===- SelectMapping.cpp - --dsm-select-mapping ---------------------------===//
//
// Adapter: reads the expanded layer passes into the core's LayerGraph, runs
// the SpatialMapper and records its decisions as attributes.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Spatial/ChipBlocks.h"
#include "dsm/Core/Spatial/DecisionRecords.h"
#include "dsm/Core/Spatial/SpatialMapper.h"
#include "dsm/Core/Support/ConsoleProgress.h"
#include "dsm/Dialect/DsmOps.h"
#include "dsm/Passes/Common/ContextExecutor.h"
#include "dsm/Passes/Passes.h"
#include "dsm/Passes/Spatial/LayerGraphBuilder.h"
#include "dsm/Passes/StrategyFile.h"
#include "dsm/Support/CoreError.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace dsm {
#define GEN_PASS_DEF_DSMSELECTMAPPING
#include "dsm/Passes/Passes.h.inc"
} // namespace dsm

using namespace mlir;
using namespace dsm;

namespace {
struct SelectMappingPass
    : public dsm::impl::DsmSelectMappingBase<SelectMappingPass> {
  using DsmSelectMappingBase::DsmSelectMappingBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<core::MultiChipSystem> multiChip =
        getModuleMultiChipSystem(module, "spatial mapping");
    if (failed(multiChip))
      return signalPassFailure();
    core::MapperOptions options;
    options.search = search;
    options.optimizer = optimizer;
    //--- optimizations=: which of DeepSpatialMatrix §III the mapper may use.
    bool hybrid = true, reuse = true, preload = true, dysm = true,
         pipeline = true, blocks = true;
    if (!optimizations.empty()) {
      hybrid = reuse = preload = dysm = pipeline = blocks = false;
      // all and none are whole lists: beside anything else they contradict
      // it (issue 46, item 8).
      for (StringRef whole : {"all", "none"})
        if (optimizations.size() > 1 &&
            llvm::is_contained(optimizations, whole)) {
          module.emitError() << "optimizations=" << whole
                             << " names every optimization or none: give it "
                                "alone, not with "
                             << llvm::join(llvm::make_filter_range(
                                               optimizations,
                                               [&](const std::string &name) {
                                                 return name != whole;
                                               }),
                                           ",");
          return signalPassFailure();
        }
      for (const std::string &name : optimizations) {
        if (name == "all") {
          hybrid = reuse = preload = dysm = pipeline = blocks = true;
        } else if (name == "none") {
          continue;
        } else if (name == "hybrid") {
          hybrid = true;
        } else if (name == "reuse") {
          reuse = true;
        } else if (name == "preload") {
          preload = true;
        } else if (name == "dysm") {
          dysm = true;
        } else if (name == "pipeline") {
          pipeline = true;
        } else if (name == "blocks") {
          blocks = true;
        } else {
          module.emitError() << "unknown optimization '" << name
                             << "' (expected hybrid, reuse, preload, dysm, "
                                "pipeline, blocks, all or none)";
          return signalPassFailure();
        }
      }
    }
    options.reuseWeightsAcrossSteps = reuse;
    options.reuseActivations = reuse;
    options.preloadWeights = preload;
    options.spatialMinibatching = dysm;
    options.pipelineTimesteps = pipeline;
    options.pipelineStages = pipeline;
    // A degree the user names is kept or the run refused: never a count
    // the search would take for unnamed.
    if (stages < 0 || microbatches < 0 || microbatchSize < 0) {
      auto [name, value] =
          stages < 0 ? std::pair("stages=", int64_t(stages))
          : microbatches < 0
              ? std::pair("microbatches=", int64_t(microbatches))
              : std::pair("microbatch-size=", int64_t(microbatchSize));
      module.emitError() << name << value
                         << ": must be positive (0, the default: searched)";
      return signalPassFailure();
    }
    if (microbatchSize != 0 &&
        (stages == 0 || data == 0 || microbatches != 0)) {
      module.emitError()
          << "microbatch-size=" << int64_t(microbatchSize)
          << (microbatches != 0
                  ? " and microbatches= name the same count: give one"
                  : " needs stages= and data= (the microbatches are the "
                    "minibatch over it times the data degree)");
      return signalPassFailure();
    }
    if (stages > 1 && !pipeline) {
      module.emitError() << "stages=" << int64_t(stages)
                         << " names a pipeline, which optimizations= leaves "
                            "out: add 'pipeline' to it, or leave stages= out";
      return signalPassFailure();
    }
    if (schedule != core::PipelineSchedule::OneFOneB && stages == 0) {
      module.emitError() << "schedule="
                         << core::stringifyPipelineSchedule(schedule)
                         << " is a pipeline's schedule: it needs stages=";
      return signalPassFailure();
    }
    if (!stageLayers.empty() && stages == 0) {
      module.emitError() << "stage-layers= cuts a pipeline: it needs stages=";
      return signalPassFailure();
    }
    if (stages == 1 && microbatches == 0 && microbatchSize == 0) {
      // One stage of the whole minibatch: no pipeline.
      options.pipelineStages = false;
    } else if (stages != 0) {
      // One stage of several microbatches is gradient accumulation: the
      // whole torus runs the microbatches one after another, the gradients
      // reduced and the weights updated once.
      options.givenPipeline.stages = stages;
      options.givenPipeline.microbatches =
          microbatches != 0 ? int64_t(microbatches) : 4 * stages;
      options.givenPipeline.microbatchSize = microbatchSize;
      options.givenPipeline.dataDegree = data;
      options.givenPipeline.schedule = schedule;
      options.givenPipeline.stageLayers.assign(stageLayers.begin(),
                                               stageLayers.end());
    } else if (microbatches != 0) {
      module.emitError() << "microbatches=" << int64_t(microbatches)
                         << " needs stages= (the pipeline it divides)";
      return signalPassFailure();
    }
    options.chipBlocks = blocks;
    options.savers.recompute = recompute;
    options.savers.shard = shard;
    // zero= is shard= by its ZeRO stage (Rajbhandari et al. 2020).
    if (zero != -1) {
      if (zero < -1 || zero > 3) {
        module.emitError() << "zero=" << int64_t(zero)
                           << ": ZeRO stages are 0, 1, 2 and 3";
        return signalPassFailure();
      }
      static constexpr core::ShardChoice byZeroStage[] = {
          core::ShardChoice::None, core::ShardChoice::Optimizer,
          core::ShardChoice::State, core::ShardChoice::Weights};
      const core::ShardChoice byStage = byZeroStage[zero];
      if (shard != core::ShardChoice::Auto && shard != byStage) {
        module.emitError() << "zero=" << int64_t(zero) << " is shard="
                           << core::stringifyShardChoice(byStage)
                           << ", not shard="
                           << core::stringifyShardChoice(shard);
        return signalPassFailure();
      }
      options.savers.shard = byStage;
    }
    options.savers.offload = offload;
    options.sequenceParallel = sequenceParallel;
    // Offloading keeps each chip's shard of the state on its host.
    if (offload == core::OffloadChoice::State) {
      if (!multiChip->chip.hostLink) {
        module.emitError() << "offload=state needs a system whose chips "
                              "declare a host link (chip.host_link, "
                              "docs/systems.md); this one has none";
        return signalPassFailure();
      }
      if (options.savers.shard == core::ShardChoice::None ||
          options.savers.shard == core::ShardChoice::Optimizer) {
        module.emitError()
            << "offload=state offloads each chip's shard of the optimizer "
               "state, sharded with the gradients (ZeRO-Offload): it needs "
               "shard=state or shard=weights, not shard="
            << core::stringifyShardChoice(options.savers.shard);
        return signalPassFailure();
      }
    }
    // ParallelismChoice lists the core parallelisms in order after Any.
    std::optional<core::Parallelism> named;
    if (parallelism != ParallelismChoice::Any)
      named = core::Parallelism(int(parallelism.getValue()) - 1);
    // A tensor degree smaller than a switch node is a switch of its own:
    // the node's other chips join the outer dimension, and the plan is made
    // (and recorded on the module) for the network so regrouped.
    if (tensor > 0 && tensor < multiChip->torus.x.size &&
        multiChip->torus.x.topology == core::NetworkTopology::Switch) {
      llvm::Expected<core::MultiChipSystem> regrouped =
          core::regroupInnermost(*multiChip, tensor);
      if (!regrouped) {
        module.emitError() << "tensor=" << int64_t(tensor) << ": "
                           << llvm::toString(regrouped.takeError());
        return signalPassFailure();
      }
      *multiChip = *regrouped;
      recordNetwork(module, *multiChip);
    }
    // tensor= and data= name the parallelism by its degrees on a stage's
    // chips (the torus's X columns, its rows over the stages).
    const int64_t torusRows = multiChip->torus.y.size;
    if ((tensor != 0 || data != 0) &&
        (stages == 0 || torusRows % int64_t(stages) == 0)) {
      const int64_t rows = stages != 0 ? torusRows / stages : torusRows;
      llvm::Expected<core::Parallelism> byDegrees = core::parallelismOfDegrees(
          multiChip->torus.x.size, rows, tensor, data);
      // Degrees two parallelisms share (a square stage) are the named one's.
      if (!byDegrees && named) {
        core::ParallelismDegrees d =
            core::degreesOf(*named, multiChip->torus.x.size, rows);
        if (d.tensor == tensor && d.data == data) {
          llvm::consumeError(byDegrees.takeError());
          byDegrees = *named;
        }
      }
      if (!byDegrees) {
        module.emitError() << llvm::toString(byDegrees.takeError());
        return signalPassFailure();
      }
      if (named && *named != *byDegrees) {
        core::ParallelismDegrees d =
            core::degreesOf(*named, multiChip->torus.x.size, rows);
        module.emitError() << "parallelism="
                           << core::stringifyParallelism(*named)
                           << " has tensor=" << d.tensor << " data=" << d.data
                           << " here, not tensor=" << int64_t(tensor)
                           << " data=" << int64_t(data);
        return signalPassFailure();
      }
      named = *byDegrees;
      // Without stages=, the degrees cover the whole torus: no pipeline,
      // whose stages would each have other degrees.
      if (stages <= 1)
        options.pipelineStages = false;
    }
    if (named) {
      core::Parallelism forced = *named;
      if (!hybrid && forced != core::Parallelism::Data &&
          forced != core::Parallelism::Model) {
        module.emitError() << "parallelism="
                           << core::stringifyParallelism(forced)
                           << " needs the 'hybrid' optimization";
        return signalPassFailure();
      }
      options.namedParallelism = forced;
    }
    if (!hybrid) {
      options.parallelisms = {core::Parallelism::Data,
                              core::Parallelism::Model};
    }
    // Tensor parallelism inside a switch node is searched when no degree
    // is named: the plan is made on the best regrouping of the node, which
    // the module then records -- one network, so for a module of one
    // function.
    auto funcs = module.getOps<func::FuncOp>();
    const bool regroup =
        tensor == 0 && data == 0 && !options.namedParallelism &&
        multiChip->torus.x.topology == core::NetworkTopology::Switch &&
        std::distance(funcs.begin(), funcs.end()) == 1;
    for (auto func : funcs) {
      FailureOr<core::MultiChipSystem> mapped =
          mapFunction(func, *multiChip, options, regroup);
      if (failed(mapped))
        return signalPassFailure();
      if (mapped->torus.x.size != multiChip->torus.x.size)
        recordNetwork(module, *mapped);
    }
  }

  /// Records on the module the network its plans are made for (a regrouping
  /// of the attached system's).
  void recordNetwork(ModuleOp module, const core::MultiChipSystem &network) {
    auto attr = module->getAttrOfType<SystemAttr>(SystemAttr::kModuleAttrName);
    core::SystemDescription description = attr.getDescription();
    description.target = network;
    module->setAttr(SystemAttr::kModuleAttrName,
                    SystemAttr::get(&getContext(), description));
  }

  /// The strategies the mapper priced and did not take, the fastest few:
  /// each with its step and, planned whole, its memory.
  static void explainRejected(func::FuncOp func, const core::MappingPlan &plan,
                              double frequency) {
    constexpr size_t kShown = 5;
    // Seconds, milliseconds or microseconds: a step of a small network is
    // microseconds.
    auto time = [&](double cycles) {
      const double seconds = cycles / frequency;
      return seconds >= 1 ? llvm::formatv("{0:F3} s", seconds).str()
             : seconds >= 1e-3
                 ? llvm::formatv("{0:F3} ms", seconds * 1e3).str()
                 : llvm::formatv("{0:F2} us", seconds * 1e6).str();
    };
    InFlightDiagnostic remark = mlir::emitRemark(func.getLoc());
    remark << "the plan (" << core::describeStrategy(plan) << ", "
           << time(plan.totals.cycles.total) << " a step) beat "
           << plan.rejected.size()
           << " other strategies priced; the fastest -- ";
    llvm::ListSeparator separator("; ");
    for (const core::RejectedStrategy &other :
         ArrayRef(plan.rejected).take_front(kShown)) {
      remark << StringRef(separator) << other.name << ": ";
      if (!other.complete)
        remark << "at least " << time(other.cycles)
               << " (cut short once its first stages showed it)";
      else
        remark << time(other.cycles) << ", "
               << core::formatBytes(other.memory.total()) << " of "
               << core::formatBytes(other.memory.capacity) << " a chip"
               << (other.memory.fits() ? "" : " (does not fit)");
    }
  }

  /// The plan's strategy as its function records it (StrategyFile.h): the
  /// strategy options this pass runs with, the pipeline's as planned.
  DictionaryAttr strategyOf(const core::MappingPlan &plan) {
    PlannedPipeline pipeline;
    if (plan.pipeline.pipelined()) {
      pipeline.stages = int64_t(plan.pipeline.stages.size());
      pipeline.microbatches = plan.pipeline.microbatches;
      pipeline.schedule =
          core::stringifyPipelineSchedule(plan.pipeline.schedule).str();
      for (const core::PipelineStageRecord &stage : plan.pipeline.stages)
        pipeline.stageLayers.push_back(stage.lastLayer - stage.firstLayer);
    }
    return recordStrategy(&getContext(), *this, pipeline);
  }

  /// parallelism= names the parallelism of the layers with weights; one it
  /// cannot split over the chips whatever the minibatch (fewer output
  /// features than chips), or that has no minibatch to split, takes the
  /// fastest legal one (MapperOptions::namedParallelism), as the layers
  /// without weights do. One warning names the layers with weights that do,
  /// at the first.
  static void warnNamedParallelismFallbacks(
      ArrayRef<LayerPassOps> layers, const core::LayerGraph &graph,
      const core::MappingPlan &plan, const core::MapperOptions &options) {
    if (!options.namedParallelism)
      return;
    SmallVector<std::string> fallbacks;
    LayerPassOp first;
    for (auto [ops, layerPlan, node] :
         llvm::zip_equal(layers, plan.layers, graph.layers)) {
      if (layerPlan.parallelism == *options.namedParallelism ||
          !node.shape.hasWeights)
        continue;
      LayerPassOp fwd = ops.fwd;
      if (!first)
        first = fwd;
      fallbacks.push_back((fwd.getLayer() + " (" +
                           core::stringifyParallelism(layerPlan.parallelism) +
                           ")")
                              .str());
    }
    if (fallbacks.empty())
      return;
    constexpr size_t kNamed = 4;
    InFlightDiagnostic warning = first.emitWarning();
    warning << "parallelism="
            << core::stringifyParallelism(*options.namedParallelism)
            << " cannot split " << fallbacks.size()
            << (fallbacks.size() == 1 ? " layer over the chips; it takes"
                                      : " layers over the chips; they take")
            << " the fastest legal parallelism: "
            << llvm::join(ArrayRef(fallbacks).take_front(kNamed), ", ");
    if (fallbacks.size() > kNamed)
      warning << " and " << fallbacks.size() - kNamed << " more";
  }

  /// The remark --dsm-select-mapping=explain puts on the first layer of a
  /// candidate pipe group (timestep pipelining): its schedule against the
  /// same layers one after another on the whole torus.
  static void explainPipeGroup(ArrayRef<LayerPassOps> layers,
                               const core::PipeGroupRecord &group) {
    LayerPassOp first = layers[group.layers.front()].fwd,
                last = layers[group.layers.back()].fwd;
    InFlightDiagnostic remark = first.emitRemark();
    remark << "pipe group of " << group.layers.size() << " layers ("
           << first.getLayer() << " to " << last.getLayer() << "): ";
    if (group.rows.empty()) {
      remark << "no block of torus rows holds every stage; not pipelined";
      return;
    }
    auto timing = [](const core::PipelineTiming &t) {
      return llvm::formatv("fill {0:F0} + period {1:F0} per timestep ({2})",
                           t.fill, t.period,
                           t.period > t.computePeriod ? "link-bound"
                                                      : "compute-bound")
          .str();
    };
    remark << "rows "
           << llvm::join(
                  llvm::map_range(group.rows,
                                  [](int64_t r) { return std::to_string(r); }),
                  "+")
           << "; FWD " << timing(group.forward);
    if (group.backward.total > 0)
      remark << ", BWD " << timing(group.backward) << ", UPD "
             << llvm::formatv("{0:F0}", group.update);
    remark << "; " << llvm::formatv("{0:F0}", group.cycles)
           << " cycles pipelined against "
           << llvm::formatv("{0:F0}", group.cyclesUnpipelined)
           << (group.adopted ? " one after another: pipelined"
                             : " one after another: not pipelined");
    // The choice is the network's (the groups are chosen with every
    // layer's parallelism), so it can go against the group's own balance.
    bool faster = group.cycles < group.cyclesUnpipelined;
    if (group.adopted != faster)
      remark << (group.adopted
                     ? ", since the layers around it then cost less"
                     : ", since the layers around it would cost more");
  }

  /// The remark --dsm-select-mapping=explain puts on each layer pass: why
  /// this parallelism (FWD: against the runner-up) and what bounds the pass.
  static void explainPass(LayerPassOp op, const core::LayerPlan &layerPlan,
                          const core::PassPlan &passPlan) {
    const core::MappingConfig &config = passPlan.eval.config;
    InFlightDiagnostic remark = op.emitRemark();
    if (passPlan.pass == core::TrainingPass::FWD && config.memory.pipelined()) {
      // The alternatives are the whole torus's; a stage chose on its rows.
      remark << "pipe stage on " << core::product(config.chipSplit)
             << " chips: parallelism "
             << core::stringifyParallelism(layerPlan.parallelism)
             << " was the fastest there over the layer's passes; ";
    } else if (passPlan.pass == core::TrainingPass::FWD) {
      int chosen = int(layerPlan.parallelism);
      remark << "parallelism "
             << core::stringifyParallelism(layerPlan.parallelism) << ": "
             << llvm::formatv("{0:F0}", layerPlan.alternatives[chosen])
             << " cycles over the layer's passes";
      int runnerUp = -1;
      for (int q = 0; q < core::kNumParallelisms; ++q)
        if (q != chosen && layerPlan.alternatives[q] <= core::kMaxCycles &&
            (runnerUp < 0 ||
             layerPlan.alternatives[q] < layerPlan.alternatives[runnerUp]))
          runnerUp = q;
      if (runnerUp < 0) {
        remark << "; no other parallelism is legal";
      } else {
        double cost = layerPlan.alternatives[runnerUp];
        double chosenCost = layerPlan.alternatives[chosen];
        remark << "; runner-up "
               << core::stringifyParallelism(core::Parallelism(runnerUp))
               << ": " << llvm::formatv("{0:F0}", cost) << " cycles ("
               << llvm::formatv("{0}{1:F1}%", cost >= chosenCost ? "+" : "",
                                100 * (cost - chosenCost) /
                                    std::max(chosenCost, 1.0))
                      .str()
               << ")";
        if (cost < chosenCost)
          remark << ", cheaper alone: relayouts with the neighbouring "
                    "layers decided";
      }
      remark << "; ";
    }
    const core::CycleBreakdown &cycles = passPlan.cycles;
    core::CycleCategory largest = core::CycleCategory::Useful;
    for (int k = 0; k < core::kNumCycleCategories; ++k)
      if (cycles.get(core::CycleCategory(k)) > cycles.get(largest))
        largest = core::CycleCategory(k);
    auto split = [](const core::DimSizes &sizes) {
      std::string text;
      for (int d = 0; d < core::kNumDims; ++d)
        if (sizes[d] != 1)
          text += (text.empty() ? "" : " ") +
                  core::stringifyDim(core::Dim(d)).str() + ":" +
                  std::to_string(sizes[d]);
      return text.empty() ? std::string("-") : text;
    };
    remark << core::stringifyTrainingPass(passPlan.pass) << ": chip split "
           << split(config.chipSplit) << ", core split "
           << split(config.coreSplit) << ", "
           << llvm::formatv("{0:F0}", cycles.total) << " cycles, mostly "
           << core::stringifyCycleCategory(largest)
           << llvm::formatv(" ({0:F1}%)",
                            cycles.total > 0
                                ? 100 * cycles.get(largest) / cycles.total
                                : 0.0);
    // The memory decisions (DeepSpatialMatrix §III), in the attribute's
    // words.
    std::vector<std::string> decisions = core::explainDecision(config.memory);
    if (!decisions.empty())
      remark << "; memory: " << llvm::join(decisions, ", ");
    if (!config.block.whole())
      remark << llvm::formatv("; on a {0}x{1} block of the torus",
                              config.block.rows, config.block.columns);
  }

  /// Maps `func` on `attached`, or with `regroup` on the best of its
  /// regroupings (core::mapOnRegroupings); the network the plan is made for.
  FailureOr<core::MultiChipSystem>
  mapFunction(func::FuncOp func, const core::MultiChipSystem &attached,
              core::MapperOptions options, bool regroup) {
    FailureOr<ExpandedFunction> expanded = readLayerGraph(func);
    if (failed(expanded))
      return failure();
    std::vector<LayerPassOps> &layers = expanded->layers;
    if (layers.empty())
      return attached;
    const core::LayerGraph &graph = expanded->graph;

    // Explorations run on the context's thread pool, or on this thread when
    // threading is disabled (--mlir-disable-threading).
    MLIRContext *context = &getContext();
    ContextExecutor contextExecutor(context);
    core::Executor &executor = contextExecutor.get();
    // A line on a terminal; Ctrl-C stops the explorations, which fails.
    core::ConsoleProgress progress((core::stringifySearchMode(options.search) +
                                    " spatial mapping of @" + func.getSymName())
                                       .str(),
                                   "");
    options.progress = &progress;
    core::MultiChipSystem system = attached;
    llvm::Expected<core::MappingPlan> plan = [&] {
      if (!regroup)
        return core::SpatialMapper(system, options).map(graph, executor);
      llvm::Expected<core::NetworkPlan> best =
          core::mapOnRegroupings(system, options, graph, executor);
      if (!best)
        return llvm::Expected<core::MappingPlan>(best.takeError());
      system = best->system;
      return llvm::Expected<core::MappingPlan>(std::move(best->plan));
    }();
    progress.finish();
    if (!plan) {
      // A layer's error goes to that layer's FWD op; any other to the function.
      emitCoreError(
          plan.takeError(), layers.size(),
          [&](size_t node) { return layers[node].fwd.getOperation(); },
          func.getLoc(), "cannot map onto the system: ");
      return failure();
    }
    if (!plan->fitsMemory()) {
      // The savers the closest plan uses (DecisionRecords.h), in the
      // records' order.
      SmallVector<StringRef> savers;
      core::forEachDecisionField([&](const core::DecisionField &saver) {
        if (saver.saverWords.empty())
          return;
        for (const core::LayerPlan &layerPlan : plan->layers)
          for (const core::PassPlan &passPlan : layerPlan.passes)
            if (saver.isSet(passPlan.eval.config.memory)) {
              savers.push_back(saver.saverWords);
              return;
            }
      });
      // At the function's location, without the function itself.
      InFlightDiagnostic error = mlir::emitError(func.getLoc());
      error << "no plan fits a chip's memory: the closest needs "
            << core::describeMemory(plan->memory) << " per chip";
      if (!savers.empty())
        error << ", with " << llvm::join(savers, " and ");
      return failure();
    }
    numConfigurations += plan->configurationsEvaluated;
    numExplorations += plan->explorations;
    numMemoized += plan->memoizedExplorations;
    DsmDialect::SelectionStatesKeptAttrHelper boundAttr(context);
    if (plan->selectionExact)
      func->removeAttr(boundAttr.getName());
    else
      boundAttr.setAttr(func,
                        IntegerAttr::get(IntegerType::get(context, 64),
                                         int64_t(plan->selectionStatesKept)));
    // The plan's one memory figure: its fullest chip (the first such stage;
    // none named where one stage, gradient accumulation, is every chip).
    int64_t fullestStage = -1;
    for (auto [s, stage] : llvm::enumerate(plan->pipeline.stages))
      if (fullestStage < 0 ||
          stage.memory.total() >
              plan->pipeline.stages[fullestStage].memory.total())
        fullestStage = int64_t(s);
    if (plan->pipeline.stages.size() == 1)
      fullestStage = -1;
    DsmDialect::ChipMemoryAttrHelper(context).setAttr(
        func, ChipMemoryAttr::get(context, plan->memory, fullestStage));
    if (options.sequenceParallel)
      DsmDialect::SequenceParallelAttrHelper(context).setAttr(
          func, UnitAttr::get(context));
    DsmDialect::StrategyAttrHelper(context).setAttr(func, strategyOf(*plan));
    // A pipeline's wait, beside the passes' cycles.
    DsmDialect::PipelineIdleAttrHelper idleAttr(context);
    if (plan->pipeline.pipelined())
      idleAttr.setAttr(
          func, PipelineIdleAttr::get(
                    context, int64_t(std::llround(plan->pipeline.idle.bubble)),
                    int64_t(std::llround(plan->pipeline.idle.sends))));
    else
      func->removeAttr(idleAttr.getName());
    if (!plan->selectionExact)
      emitWarning(func.getLoc())
          << "the layer graph is too dense to select exactly (skip "
             "connections): the parallelisms are the best of the "
          << plan->selectionStatesKept
          << " cheapest states kept per layer, not proven optimal";

    warnNamedParallelismFallbacks(layers, graph, *plan, options);
    if (explain)
      for (const core::PipeGroupRecord &group : plan->pipeGroups)
        explainPipeGroup(layers, group);
    // The savers: chosen where the fastest plan does not fit, or named.
    const std::string namedSavers = options.savers.describeNamed();
    if (explain && !plan->fastestMemory.fits())
      mlir::emitRemark(func.getLoc())
          << "the fastest plan needs "
          << core::describeMemory(plan->fastestMemory)
          << " per chip: memory savers chosen"
          << (namedSavers.empty() ? "" : " beside those named, " + namedSavers)
          << "; the plan needs " << core::describeMemory(plan->memory);
    else if (explain && !namedSavers.empty())
      mlir::emitRemark(func.getLoc())
          << "memory savers as named (" << namedSavers
          << "), though the fastest plan fits without them: the plan needs "
          << core::describeMemory(plan->memory);
    else if (explain)
      mlir::emitRemark(func.getLoc())
          << "the plan needs " << core::describeMemory(plan->memory)
          << " per chip, with no memory savers";
    if (explain && plan->pipeline.pipelined()) {
      const core::PipelineRecord &pipeline = plan->pipeline;
      InFlightDiagnostic remark = mlir::emitRemark(func.getLoc());
      remark << llvm::formatv(
          "pipeline parallelism: {0} stages of {1} torus rows, {2} "
          "microbatches ({3}); {4:F0} cycles per step, the bubble {5:F1}% "
          "of it; {6}",
          pipeline.stages.size(), pipeline.stages.front().rows,
          pipeline.microbatches,
          core::stringifyPipelineSchedule(pipeline.schedule),
          pipeline.timing.total, 100 * pipeline.timing.bubbleFraction,
          options.givenPipeline.given()
              ? "as given (stages=)"
              : "faster than every plan over the whole torus that fits");
      for (auto [s, stage] : llvm::enumerate(pipeline.stages))
        remark << llvm::formatv(
            "; stage {0} ({1} to {2}): {3:F0} + {4:F0} cycles per microbatch, "
            "{5:F0} per step, {6} in flight, {7}",
            s, layers[stage.firstLayer].fwd.getLayer(),
            layers[stage.lastLayer - 1].fwd.getLayer(), stage.forward,
            stage.backward, stage.update, stage.inFlight,
            core::describeMemory(stage.memory));
    }
    if (explain && !plan->rejected.empty())
      explainRejected(func, *plan, core::PerformanceModel(system).frequency());
    if (explain && !plan->block.whole())
      mlir::emitRemark(func.getLoc())
          << llvm::formatv("the plan runs on a {0}x{1} block of the torus, "
                           "the other chips idle: faster than every plan "
                           "on more chips, or the only one",
                           plan->block.rows, plan->block.columns);

    Builder builder(context);
    for (auto [ops, layerPlan] : llvm::zip_equal(layers, plan->layers)) {
      // A layer plan lists the passes the layer runs, FWD, BWD, UPD.
      for (const core::PassPlan &passPlan : layerPlan.passes) {
        LayerPassOp op = passPlan.pass == core::TrainingPass::FWD   ? ops.fwd
                         : passPlan.pass == core::TrainingPass::BWD ? ops.bwd
                                                                    : ops.upd;
        const core::MappingConfig &config = passPlan.eval.config;
        op.setParallelismAttr(
            ParallelismAttr::get(context, fromCore(config.parallelism)));
        op.setChipSplitAttr(getSplitAttr(context, config.chipSplit));
        op.setCoreSplitAttr(getSplitAttr(context, config.coreSplit));
        op.setArrayAttr(
            ArrayMapAttr::get(context, fromCore(config.array.rowDim),
                              fromCore(config.array.colDim),
                              config.array.rowTile, config.array.colTile));
        op.setCyclesAttr(CyclesAttr::get(context, passPlan.cycles));
        if (MemoryDecisionAttr memory =
                MemoryDecisionAttr::getIfAny(context, config.memory))
          op.setMemoryAttr(memory);
        if (!config.block.whole())
          op.setBlockAttr(ChipBlockAttr::get(context, config.block.rows,
                                             config.block.columns));
        SmallVector<NamedAttribute> transfers;
        for (const core::TransferGroup &group : passPlan.eval.transfers)
          transfers.emplace_back(builder.getStringAttr(group.name),
                                 TransferAttr::get(context, group));
        if (passPlan.relayout.cycles > 0)
          transfers.emplace_back(builder.getStringAttr("relayout"),
                                 TransferAttr::get(context, passPlan.relayout));
        op.setTransfersAttr(builder.getDictionaryAttr(transfers));
        if (explain)
          explainPass(op, layerPlan, passPlan);
        if (passPlan.pass == core::TrainingPass::FWD) {
          SmallVector<NamedAttribute> alternatives;
          for (int q = 0; q < core::kNumParallelisms; ++q)
            // Alternatives too slow to count (or illegal) are left out.
            if (layerPlan.alternatives[q] <= core::kMaxCycles)
              alternatives.emplace_back(
                  builder.getStringAttr(
                      core::stringifyParallelism(core::Parallelism(q))),
                  builder.getI64IntegerAttr(
                      int64_t(std::llround(layerPlan.alternatives[q]))));
          op.setAlternativesAttr(builder.getDictionaryAttr(alternatives));
        }
      }
    }
    return system;
  }
};
} // namespace

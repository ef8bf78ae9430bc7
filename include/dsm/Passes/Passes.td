//===- Passes.td - dsm passes ------------------------------*- tablegen -*-===//

#ifndef DSM_PASSES_PASSES_TD
#define DSM_PASSES_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Options, declared once: the passes and --dsm-map-system, which runs them,
// share these lists, so a name, default and help text exist in one place.
//===----------------------------------------------------------------------===//

class DsmSystemOption {
  list<Option> systemOption = [
    Option<"system", "system", "std::string", /*default=*/"",
           "Preset name (dsm-8pf-asym, dsm-8pf-sym, dsm-8pf-4096, dsm-128tf, "
           "a100-80g-1024, dgx-a100-80g, dgx-h100-80g, nnp-i, malvik, "
           "luke01) or path to a system file">,
    Option<"nodes", "nodes", "int64_t", /*default=*/"0",
           "Nodes of a multi-chip system whose network lists its dimensions: "
           "the outermost dimension's size, in place of the file's `nodes:` "
           "(0: the file's)">,
  ];
}

class DsmModeOption {
  list<Option> modeOption = [
    Option<"mode", "mode", "::dsm::ExecutionMode",
           /*default=*/"::dsm::ExecutionMode::Train", "Training or inference",
           [{::llvm::cl::values(
               clEnumValN(::dsm::ExecutionMode::Train, "train",
                          "FWD, BWD and UPD passes"),
               clEnumValN(::dsm::ExecutionMode::Infer, "infer", "FWD only"))}]>,
  ];
}

// The optimizer whose state a training step keeps per parameter (the memory
// per chip the mapping report counts; docs/mapping-report.md).
class DsmOptimizerOption {
  list<Option> optimizerOption = [
    Option<"optimizer", "optimizer", "::dsm::core::Optimizer",
           /*default=*/"::dsm::core::Optimizer::Adam",
           "Optimizer state per parameter in training",
           [{::llvm::cl::values(
               clEnumValN(::dsm::core::Optimizer::SGD, "sgd",
                          "a 32-bit master weight (4 bytes)"),
               clEnumValN(::dsm::core::Optimizer::Momentum, "momentum",
                          "master weight and one moment (8 bytes)"),
               clEnumValN(::dsm::core::Optimizer::Adam, "adam",
                          "mixed-precision Adam: master weight and two "
                          "moments (12 bytes; 16 with weight and gradient)"))}]>,
  ];
}

class DsmSpatialSearchOptions {
  list<Option> spatialSearchOptions = [
    Option<"search", "search", "::dsm::core::SearchMode",
           /*default=*/"::dsm::core::SearchMode::Heuristic",
           "Design-space search",
           [{::llvm::cl::values(
               clEnumValN(::dsm::core::SearchMode::Heuristic, "heuristic",
                          "the paper's pruning principles"),
               clEnumValN(::dsm::core::SearchMode::Exhaustive, "exhaustive",
                          "every legal configuration"))}]>,
    Option<"parallelism", "parallelism", "::dsm::ParallelismChoice",
           /*default=*/"::dsm::ParallelismChoice::Any",
           "Parallelism of the layers with weights (those without, and those "
           "it cannot split over the chips, take the fastest; a warning "
           "names the latter)",
           [{::llvm::cl::values(
               clEnumValN(::dsm::ParallelismChoice::Any, "any",
                          "chosen per layer, jointly over the graph"),
               clEnumValN(::dsm::ParallelismChoice::Data, "data",
                          "data parallelism"),
               clEnumValN(::dsm::ParallelismChoice::Model, "model",
                          "model parallelism"),
               clEnumValN(::dsm::ParallelismChoice::DataXModelY,
                          "data_x_model_y", "data along X, model along Y"),
               clEnumValN(::dsm::ParallelismChoice::ModelXDataY,
                          "model_x_data_y", "model along X, data along Y"))}]>,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark on every layer pass saying why it got its "
           "parallelism (with the runner-up and its cost), its splits and "
           "its memory decisions">,
    ListOption<"optimizations", "optimizations", "std::string",
               "Optimizations of DeepSpatialMatrix §III the mapper may use, a "
               "comma list: hybrid (the DataXModelY and ModelXDataY "
               "parallelisms), reuse (activations and errors left in the scratchpads for "
               "the next layer, LSTM weights kept across timesteps), preload "
               "(inference: weights kept in the scratchpads from before the "
               "job), dysm (dynamic spatial minibatching), pipeline (pipeline "
               "parallelism: runs of layers as stages on blocks of torus rows "
               "with microbatches where plans need memory savers, and the "
               "timestep pipe groups of unidirectional LSTM layers), blocks (the network on a block of "
               "the torus, the other chips idle, where no plan splits every "
               "layer over every chip or a block's plan is faster); all (the "
               "default) or none (data and model parallelism over every chip, "
               "no memory optimizations)">,
    Option<"stages", "stages", "int64_t", /*default=*/"0",
           "Pipeline parallelism as given instead of searched: the layers "
           "as this many stages on as many blocks of torus rows (it divides "
           "the rows; 1: no pipeline, the whole torus one stage; 0: "
           "pipelines are searched where plans need them)">,
    ListOption<"stageLayers", "stage-layers", "int64_t",
               "With stages= of 2 or more: the layers of each stage, first to "
               "last, a comma list summing to the network's layers (default: "
               "cut at the boundaries of its repeated blocks, balanced on the "
               "layers' cycles)">,
    Option<"microbatches", "microbatches", "int64_t", /*default=*/"0",
           "With stages=: the minibatch runs as this many microbatches (it "
           "divides the minibatch; 0: four per stage)">,
    Option<"microbatchSize", "microbatch-size", "int64_t", /*default=*/"0",
           "With stages= and data=, instead of microbatches=: the samples a "
           "data-parallel replica runs at once (Megatron-LM's "
           "--micro-batch-size); the microbatches are the minibatch over it "
           "times data=">,
    Option<"schedule", "schedule", "::dsm::core::PipelineSchedule",
           /*default=*/"::dsm::core::PipelineSchedule::OneFOneB",
           "With stages=: the pipeline's schedule",
           [{::llvm::cl::values(
               clEnumValN(::dsm::core::PipelineSchedule::OneFOneB, "1f1b",
                          "one forward, one backward (fewest microbatches in "
                          "flight)"),
               clEnumValN(::dsm::core::PipelineSchedule::GPipe, "gpipe",
                          "every forward, then every backward"))}]>,
    Option<"tensor", "tensor", "int64_t", /*default=*/"0",
           "The degree of tensor (weight) parallelism, with data=: the "
           "parallelism whose degrees they are on a stage's chips, or "
           "without stages= on the whole torus, unpipelined (0: any)">,
    Option<"data", "data", "int64_t", /*default=*/"0",
           "The degree of data (minibatch) parallelism, with tensor= (0: "
           "any)">,
    Option<"recompute", "recompute", "::dsm::core::RecomputeChoice",
           /*default=*/"::dsm::core::RecomputeChoice::Auto",
           "Training: activation recomputation",
           [{::llvm::cl::values(
               clEnumValN(::dsm::core::RecomputeChoice::Auto, "auto",
                          "where a plan does not fit without it"),
               clEnumValN(::dsm::core::RecomputeChoice::None, "none",
                          "never"),
               clEnumValN(::dsm::core::RecomputeChoice::Selective,
                          "selective",
                          "the attention cores': each layer keeping "
                          "attention's probabilities runs its FWD again"),
               clEnumValN(::dsm::core::RecomputeChoice::Full, "full",
                          "always, in the segments that leave the fewest "
                          "activations alive"))}]>,
    Option<"shard", "shard", "::dsm::core::ShardChoice",
           /*default=*/"::dsm::core::ShardChoice::Auto",
           "Training: sharding over the chips that hold copies of a weight",
           [{::llvm::cl::values(
               clEnumValN(::dsm::core::ShardChoice::Auto, "auto",
                          "where a plan does not fit without it"),
               clEnumValN(::dsm::core::ShardChoice::None, "none", "never"),
               clEnumValN(::dsm::core::ShardChoice::State, "state",
                          "gradients and optimizer state (ZeRO stage 2)"),
               clEnumValN(::dsm::core::ShardChoice::Optimizer, "optimizer",
                          "the optimizer state alone (ZeRO stage 1, "
                          "Megatron-LM's distributed optimizer)"),
               clEnumValN(::dsm::core::ShardChoice::Weights, "weights",
                          "those and the weights (ZeRO stage 3)"))}]>,
    Option<"zero", "zero", "int64_t", /*default=*/"-1",
           "Training: shard= by its ZeRO stage, as DeepSpeed and Megatron-LM "
           "name it -- 0 none, 1 the optimizer state, 2 that and the "
           "gradients, 3 those and the weights (-1: shard= decides)">,
    Option<"offload", "offload", "::dsm::core::OffloadChoice",
           /*default=*/"::dsm::core::OffloadChoice::Auto",
           "Training, on a system whose chips declare a host link: the "
           "optimizer state kept on the host",
           [{::llvm::cl::values(
               clEnumValN(::dsm::core::OffloadChoice::Auto, "auto",
                          "where a plan does not fit without it"),
               clEnumValN(::dsm::core::OffloadChoice::None, "none", "never"),
               clEnumValN(::dsm::core::OffloadChoice::State, "state",
                          "each chip's shard of it, the state sharded "
                          "(ZeRO-Offload)"))}]>,
    Option<"sequenceParallel", "sequence-parallel", "bool",
           /*default=*/"false",
           "Training: Megatron-LM's sequence parallelism -- the activations "
           "tensor parallelism replicates split along the sequence, each "
           "spread over all its layer's chips">,
  ];
}

class DsmReportFormatOption<string doc, string moreFormats = ""> {
  list<Option> reportFormatOption = [
    Option<"format", "format", "::dsm::ReportFormat",
           /*default=*/"::dsm::ReportFormat::Table", "Report format",
           [{::llvm::cl::values(
               clEnumValN(::dsm::ReportFormat::Table, "table", "readable table"),
               clEnumValN(::dsm::ReportFormat::JSON, "json",
                          "JSON for scripts (}] # doc # [{)")}] # moreFormats # [{)}]>,
  ];
}

// The formats only the mapping report has.
defvar DsmMappingReportFormats = [{,
    clEnumValN(::dsm::ReportFormat::HTML, "html",
               "one self-contained web page with charts"),
    clEnumValN(::dsm::ReportFormat::Strategy, "strategy",
               "the plan's strategy as a YAML strategy file, which "
               "--dsm-map-system's strategy= gives back")}];

def DsmAttachSystem : Pass<"dsm-attach-system", "mlir::ModuleOp">, DsmSystemOption {
  let summary = "Attach a target system description to the module";
  let description = [{
    Loads a system -- a preset name from `systems/` (compiled in) or a path to
    a YAML/JSON description (docs/systems.md) -- validates it and stores it on
    the module as `dsm.system = #dsm.system<...>`. Every later pass reads the
    system from the IR, so a lit test that starts from attached IR is
    reproducible without the file.

    A bad file is reported at its own location (file, line, column) naming the
    field, and the pass fails.
  }];
  let options = systemOption;
  let dependentDialects = ["dsm::DsmDialect"];
}

def DsmSetBatch : Pass<"dsm-set-batch", "mlir::ModuleOp"> {
  let summary = "Change the minibatch size of a model";
  let description = [{
    Sets the batch dimension of every tensor argument of every function to
    `batch` and re-infers all result types in order, so experiments can sweep
    the minibatch without editing model files. The batch dimension of an
    argument is 0 unless the argument carries `dsm.batch_dim = <d>` (e.g. 1 for
    a time-major LSTM input); `dsm.batch_dim = -1` marks an argument that has
    no batch dimension. Operations that cannot infer their result types stop
    the pass with an error naming them.
  }];
  let options = [
    Option<"batch", "batch", "int64_t", /*default=*/"0",
           "New minibatch size, in [1, 2147483647]">,
  ];
  let statistics = [
    Statistic<"numRetyped", "retyped-values", "Values whose type changed">,
  ];
}

def DsmWorkloadReport : Pass<"dsm-workload-report", "mlir::ModuleOp">,
    DsmReportFormatOption<"docs/workload-report.md"> {
  let summary = "Report per-layer and total MACs, parameters and activation bytes";
  let description = [{
    Prints the workload of every dsm operation -- N{in, out, ij, kij, mb},
    MACs, auxiliary operations, parameters, bytes -- and totals, as a table or
    as JSON (schema in docs/workload-report.md). Parameters shared by several
    operations are counted once. The report goes to stdout (`output=-`,
    default) or to a file, which is written only if the pass succeeds.
  }];
  let options = reportFormatOption # [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to write the report ('-' for stdout)">,
  ];
}


//===----------------------------------------------------------------------===//
// Spatial mapping (DeepSpatialMatrix: Venkataramani et al., "Memory and
// Interconnect Optimizations for Peta-Scale Deep Learning Systems")
//===----------------------------------------------------------------------===//

def DsmExpandTraining : Pass<"dsm-expand-training", "mlir::ModuleOp">,
    DsmModeOption {
  let summary = "Group ops into layers and expand them into FWD/BWD/UPD passes";
  let description = [{
    Groups each function's dsm ops into layers -- a primary computation with
    the auxiliary computations that follow it, or auxiliary computations
    alone -- and replaces them with one `dsm.layer_pass` per layer and pass,
    each carrying the layer's workload.

    In training mode every layer runs FWD; layers with parameters run UPD
    (weight gradients) and layers whose inputs come from layers that need an
    error run BWD. The expanded graph keeps the real dependencies: BWD of a
    layer reads the errors its consumers' BWD produce (the network outputs
    seed them: the loss gradient), UPD reads the layer's FWD inputs and the
    same errors. UPD is emitted before BWD (DeepSpatialMatrix §III-B). The
    function returns its outputs followed by every weight gradient. Inference
    runs FWD only.

    A dead layer -- one whose results nothing reads or returns -- is an
    error at its op naming it: it has no activation to give its FWD pass.
  }];
  let options = modeOption;
}

def DsmSelectMapping : Pass<"dsm-select-mapping", "mlir::ModuleOp">,
    DsmSpatialSearchOptions, DsmOptimizerOption {
  let summary = "Choose the spatial mapping of every layer and pass";
  let description = [{
    For every `dsm.layer_pass` of a function, explores the ChipD -> CoreD ->
    ArrayD design space under each parallelism with the bandwidth-centric
    performance model of DeepSpatialMatrix §II (docs/performance-model.md),
    then chooses one parallelism per layer jointly over the graph so that
    relayouts between layers are paid for. Records the decision on each op
    in its mapping attributes: `parallelism`, `chip_split`, `core_split`,
    `array`, `cycles`, `transfers` (the data-transfer groups charged) and, on
    FWD ops, `alternatives` (the layer's cycles under each parallelism: the
    why). Needs a multi-chip system on the module. With `explain`, every
    layer pass also gets a remark in the compiler's own channel: the
    parallelism chosen and its cycles over all the layer's passes, the
    runner-up and its cost (and, when the runner-up is cheaper alone, that
    relayouts with the neighbours decided it), and each pass's splits with
    the cycle category that bounds it.

    A plan whose parameters (with their gradients and `optimizer` state in
    training) and activations need more memory per chip than a chip has is
    chosen again with every byte of parameters priced in cycles, the least
    price whose plan fits (docs/performance-model.md); a plan that no price
    makes fit is kept, and the mapping report says what it needs.

    The exploration runs on the context's thread pool; with
    `--mlir-disable-threading` it runs on one thread. The decision does not
    depend on it. A layer that has no legal mapping gets the error.
  }];
  let options = spatialSearchOptions # optimizerOption;
  let statistics = [
    Statistic<"numConfigurations", "configurations", "Configurations costed">,
    Statistic<"numExplorations", "explorations", "Design-space searches run">,
    Statistic<"numMemoized", "memoized", "Searches answered from the memo">,
  ];
}

def DsmLowerTiled : Pass<"dsm-lower-tiled", "mlir::ModuleOp"> {
  let summary = "Lower mapped layer passes to tiled ops with explicit communication";
  let description = [{
    Turns every `dsm.layer_pass` mapped by `--dsm-select-mapping` into a
    `dsm.tiled_pass` and makes the chip-to-chip communication the
    performance model charged for explicit: `dsm.relayout` on activations
    entering (FWD) and errors leaving (BWD) a layer whose producer uses
    another parallelism, `dsm.rotate` on the features of model-parallel
    layers, and `dsm.grad_reduce` followed by `dsm.weight_broadcast` on the
    gradients of data-parallel UPD passes.
  }];
}

def DsmVerifyMapping : Pass<"dsm-verify-mapping", "mlir::ModuleOp">,
    DsmOptimizerOption {
  let summary = "Check every tiled pass against the system and the performance model";
  let description = [{
    The cross-op check of a spatial mapping, which op verifiers (local by
    design) cannot make: for every `dsm.tiled_pass`, against the module's
    `dsm.system` (decoded once), the same performance model that chose the
    mapping must find it legal -- split products equal the chip and core
    counts, the chip split is the parallelism's, the array tiles fit the PE
    array, the working set fits the scratchpad -- and must cost it exactly
    as recorded: the op's `cycles` equal the model's, plus the relayout
    recorded in its `transfers` (and, on the first backward pass of a layer
    whose FWD is marked `recompute`, that FWD's cycles once more, as
    under-use). A mismatch is an error at the op. Then, per function, the
    step's memory per chip counted from the IR (weights, gradients and
    `optimizer=` state, sharded where marked, and the activations alive at
    once, recomputed where marked) must fit a chip's memory; if not, an
    error at the function names the need by category. Run by
    `--dsm-map-system` after lowering; useful after hand-edits or when IR
    from elsewhere claims a mapping.
  }];
  let options = optimizerOption;
}

def DsmMappingReport : Pass<"dsm-mapping-report", "mlir::ModuleOp">,
    DsmReportFormatOption<"docs/mapping-report.md", DsmMappingReportFormats>,
    DsmOptimizerOption {
  let summary = "Report the mapping: per layer and pass, and totals";
  let description = [{
    Reads the tiled IR and prints, per layer and pass: the parallelism,
    ChipD/CoreD/ArrayD, the cycles by the categories of DeepSpatialMatrix
    Fig. 13 (useful, underuse, ovldt_visible, non_ovldt, aux_comp), the
    utilization, the bottleneck and the alternatives the parallelism was
    chosen over; and totals: cycles and seconds per training step (or
    inference), system utilization, and the memory the fullest chip needs
    over the step: weights (each distinct parameter once), gradients and
    `optimizer` state in training, and the peak of the activations alive at
    once; a plan that needs more than a chip's memory is warned of. Table,
    JSON or a self-contained HTML page with charts (docs/mapping-report.md),
    to stdout or to a file written only if the pass succeeds.
  }];
  let options = reportFormatOption # optimizerOption # [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to write the report ('-' for stdout)">,
  ];
}

//===----------------------------------------------------------------------===//
// The pipeline
//===----------------------------------------------------------------------===//


//===----------------------------------------------------------------------===//
// Placement searches (memory and devices)
//===----------------------------------------------------------------------===//

// The search that decides a placement, shared by --dsm-place-memory,
// --dsm-place-devices and --dsm-map-system. `placement` is a string, not an
// enum option: which names exist depends on the system's kind (one option
// of --dsm-map-system serves both), and an unknown name gets a located error
// listing the known ones.
class DsmPlacementSearchOptions {
  list<Option> placementSearchOptions = [
    Option<"placement", "placement", "std::string", /*default=*/"\"\"",
           "Placement search, empty for the default. Devices "
           "(docs/device-placement.md): single-device, expert, hc, sa, ga "
           "(default), map-elites. Memory (docs/memory-placement.md): "
           "compiler, greedy-dp, ea (default), egrl, pg, ilp">,
    Option<"seed", "seed", "uint64_t", /*default=*/"1",
           "Seed of the search (same seed, same placement)">,
    Option<"timeBudget", "time-budget", "double", /*default=*/"0",
           "Seconds of wall-clock time the search may take, in [0, 1e6]; "
           "past them it returns the best placement found so far, which the "
           "report marks (0: no limit but the budget of iterations or "
           "evaluations). Ctrl-C or SIGTERM also end a search with its best "
           "so far reported, marked \"interrupted\", and exit 130 or 143">,
  ];
}

//===----------------------------------------------------------------------===//
// Devices: device placement with an execution simulator
//===----------------------------------------------------------------------===//

// The options of device placement, shared with --dsm-map-system.
class DsmDevicePlacementOptions {
  list<Option> devicePlacementOptions = [
    Option<"evaluations", "evaluations", "int64_t", /*default=*/"20000",
           "Budget of the search in simulated placements, in [1, 1e8]">,
    Option<"batches", "batches", "int32_t", /*default=*/"1",
           "Batches in flight at once, in [1, 1000] (pipelined when > 1)">,
    Option<"simulatedBatches", "simulated-batches", "int32_t",
           /*default=*/"-1",
           "Batches simulated per evaluation, in [batches, 1000]; the step "
           "time is their average (-1: 1, or when pipelined 10 as the "
           "thesis, at least batches)">,
    Option<"computeEfficiency", "compute-efficiency", "double",
           /*default=*/"0.9",
           "Fraction of peak FLOP/s an op achieves, in (0, 1] (the thesis's "
           "computation penalty)">,
    Option<"memoryFraction", "memory-fraction", "double", /*default=*/"1.0",
           "Fraction of each device's memory a placement may use, in (0, 1]">,
    Option<"conventions", "conventions",
           "::dsm::core::devices::ConventionsKind",
           /*default=*/"::dsm::core::devices::ConventionsKind::Thesis",
           "How the simulator turns work into time "
           "(docs/device-placement.md)",
           [{::llvm::cl::values(
               clEnumValN(::dsm::core::devices::ConventionsKind::Thesis,
                          "thesis", "the thesis's model: FLOPs at the peak, "
                          "data and weight gradients, updates, the module's "
                          "batch"),
               clEnumValN(::dsm::core::devices::ConventionsKind::Exprimo,
                          "exprimo", "the peer tool's: Paleo's op times with "
                          "memory traffic, data gradients only, batch 128"))}]>,
    Option<"trace", "trace", "std::string", /*default=*/"\"\"",
           "Write the best placement's simulated schedule here as a "
           "Chrome/Perfetto trace (none if empty)">,
  ];
}

def DsmPlaceDevices : Pass<"dsm-place-devices", "mlir::ModuleOp">,
    DsmSystemOption, DsmModeOption, DsmPlacementSearchOptions,
    DsmDevicePlacementOptions,
    DsmReportFormatOption<"docs/device-placement.md"> {
  let summary = "Place every operation on a device of a device-graph system";
  let description = [{
    Device placement as in Andreassen, "Automatic Model Parallelism for Deep
    Learning Using Execution Time Modelling and Evolutionary Computation"
    (NTNU master's thesis, 2020): the module's operations become a graph
    with forward, backward (data and weight gradients) and update FLOPs,
    weights and output bytes from their workloads; a discrete-event execution simulator (the thesis's Algorithms
    4-7) times a training step of a placement on the system's devices and
    channels; a search (`placement=`) looks for the placement with the
    smallest step time, a memory overflow adding its MB to the milliseconds.

    Each op gets `dsm.device = #dsm.device<id>`, id being the device's
    position in the system. The report (`report=`, table or JSON,
    docs/device-placement.md) gives the step time, per-device busy time and
    peak memory, transfers, the best fitness by evaluation, and the rates of
    evaluations and simulated events; `trace=` writes the schedule for
    ui.perfetto.dev. When no placement found fits in memory the report says
    so and the pass warns.

    ```
    dsm-opt --dsm-place-devices="system=malvik placement=ga evaluations=20000 seed=1 report=-" model.mlir
    ```

    Impossible problems are errors: a system that is not a device graph, a
    disconnected device graph, a channel without bandwidth, an op larger
    than every device's memory, an unknown search name, `report=` and
    `trace=` naming one file. An op whose result nothing uses is placed
    like any other (it runs).
  }];
  let options = systemOption # modeOption # placementSearchOptions #
                devicePlacementOptions # reportFormatOption # [
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Write the placement report here ('-' for stdout; none if empty)">,
  ];
  let dependentDialects = ["dsm::DsmDialect"];
}

//===----------------------------------------------------------------------===//
// Memory: tensor placement on a memory hierarchy
//===----------------------------------------------------------------------===//

// The options of memory placement, shared with --dsm-map-system.
class DsmMemoryPlacementOptions {
  list<Option> memoryPlacementOptions = [
    Option<"iterations", "iterations", "int64_t", /*default=*/"4000",
           "Budget of the search in maps evaluated (the paper's iterations), "
           "in [1, 1e8]">,
    Option<"ilpTimeLimit", "ilp-time-limit", "double", /*default=*/"60",
           "Seconds the ILP solver may run before returning its best map, in "
           "[0.001, 1e6]">,
    Option<"evaluator", "evaluator", "std::string", /*default=*/"\"\"",
           "A program that measures each valid map's latency instead of the "
           "cost model: run as '<program> <map.json>', it prints seconds "
           "(docs/memory-placement.md)">,
    Option<"evaluatorTimeout", "evaluator-timeout", "unsigned",
           /*default=*/"300",
           "Seconds the evaluator may take per map, in [1, 1e6], before it is "
           "stopped and the placement fails">,
  ];
}

def DsmPlaceMemory : Pass<"dsm-place-memory", "mlir::ModuleOp">,
    DsmSystemOption, DsmPlacementSearchOptions, DsmMemoryPlacementOptions,
    DsmReportFormatOption<"docs/memory-placement.md"> {
  let summary = "Place every layer's weights and activations in DRAM, LLC or "
                "SRAM of a memory-hierarchy system";
  let description = [{
    Memory placement as in Khadka et al., "Optimizing Memory Placement using
    Evolutionary Graph Reinforcement Learning": each function's operations
    are grouped into layers (the layer formation of the spatial mapper: a
    primary computation with the auxiliary ones that follow it), each layer
    a node with weight and output-activation bytes at the system's
    precision, MACs and auxiliary operations from its workloads. A cost
    model gives single-batch inference latency (per layer, compute overlapped
    with the transfers at each level's bandwidth; layers in program order);
    liveness decides whether a map fits; a search (`placement=`) looks for
    the fastest valid map: `compiler` (the rule-based baseline every
    speedup is relative to), `greedy-dp` and `ea` (the paper's baselines),
    `egrl` (the paper's method: the EA with Boltzmann chromosomes and a
    graph neural network policy trained by SAC, with libtorch), `pg` (that
    policy alone), `ilp` (the exact optimum with GLPK).

    Every op of a layer gets `dsm.memory = #dsm.memory<weights = ..,
    activations = ..>`. The report (`report=`, table or JSON,
    docs/memory-placement.md) lists every tensor with its bytes, level and
    live range, the latency, the speedup over `compiler`, validity and the
    re-assigned ratio, and the best speedup by iteration.

    ```
    dsm-opt --dsm-place-memory="system=nnp-i placement=ea iterations=4000 seed=1 report=-" model.mlir
    ```

    Impossible problems are errors: a system that is not a memory hierarchy,
    a level without capacity or bandwidth, a tensor larger than DRAM, an
    unknown search name, a dead layer (its output would have no live range).
  }];
  let options = systemOption # placementSearchOptions # memoryPlacementOptions #
                reportFormatOption # [
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Write the placement report here ('-' for stdout; none if empty)">,
  ];
  let dependentDialects = ["dsm::DsmDialect"];
}

//===----------------------------------------------------------------------===//
// The main job
//===----------------------------------------------------------------------===//

def DsmMapSystem : Pass<"dsm-map-system", "mlir::ModuleOp">,
    DsmSystemOption, DsmModeOption, DsmSpatialSearchOptions,
    DsmPlacementSearchOptions, DsmDevicePlacementOptions,
    DsmMemoryPlacementOptions, DsmOptimizerOption {
  let summary = "Map a network onto a system: attach it, set the batch, "
                "decide, record, report";
  let description = [{
    The main job, as one pass pipeline on the module: `--dsm-attach-system`,
    `--dsm-set-batch` (when `batch` is given), then the capability the
    system's kind calls for:

    - `multi_chip` -- spatial mapping (Venkataramani et al., "Memory and
      Interconnect Optimizations for Peta-Scale Deep Learning Systems"):
      `--dsm-expand-training`, `--dsm-select-mapping`, `--dsm-lower-tiled`,
      `--dsm-verify-mapping` and, when `report` is given,
      `--dsm-mapping-report`;
    - `memory_hierarchy` -- memory placement (Khadka et al., "Optimizing
      Memory Placement using Evolutionary Graph Reinforcement Learning"),
      inference: `--dsm-place-memory`;
    - `device_graph` -- device placement (Andreassen, "Automatic Model
      Parallelism for Deep Learning Using Execution Time Modelling and
      Evolutionary Computation"): `--dsm-place-devices`.

    Its options are those passes' own (declared once in Passes.td), so they
    mean the same here as there, with the same ranges. An option of another
    capability is ignored with a warning naming it, the system's kind and
    the kinds it applies to (`placement=` on a multi-chip system, `search=`
    on a memory hierarchy): not an error, so one option string can be swept
    over systems of every kind. A module with no layers (no dsm operations)
    is an error on every kind.

    ```
    dsm-opt --dsm-map-system="system=dsm-8pf-asym mode=train batch=512 report=-" model.mlir
    dsm-opt --dsm-map-system="system=nnp-i mode=infer batch=1 placement=ilp report=r.json" model.mlir
    dsm-opt --dsm-map-system="system=malvik batch=64 placement=ga seed=1 report=r.json trace=t.json" model.mlir
    ```
  }];
  let options = systemOption # modeOption # spatialSearchOptions #
                placementSearchOptions # devicePlacementOptions #
                memoryPlacementOptions # optimizerOption # [
    Option<"batch", "batch", "int64_t", /*default=*/"-1",
           "Minibatch size, in [1, 2147483647] (-1 keeps the model's)">,
    Option<"report", "report", "std::string", /*default=*/"",
           "Write the report here ('-' for stdout; none if empty)">,
    Option<"reportFormat", "report-format", "::dsm::ReportFormat",
           /*default=*/"::dsm::ReportFormat::Table",
           "Report format (default: json for *.json, html for *.html, csv "
           "for *.csv, strategy for *.yaml, else table; html and strategy "
           "for spatial mapping only)",
           [{::llvm::cl::values(
               clEnumValN(::dsm::ReportFormat::Table, "table", "readable table"),
               clEnumValN(::dsm::ReportFormat::JSON, "json",
                          "JSON (docs/mapping-report.md, "
                          "docs/memory-placement.md, docs/device-placement.md)"),
               clEnumValN(::dsm::ReportFormat::HTML, "html",
                          "one self-contained web page with charts"),
               clEnumValN(::dsm::ReportFormat::CSV, "csv",
                          "the rows: per layer and pass, per tensor or per "
                          "op"),
               clEnumValN(::dsm::ReportFormat::Strategy, "strategy",
                          "the plan's strategy as a YAML strategy file "
                          "(docs/user-guide.md), to give back with "
                          "strategy="))}]>,
    Option<"strategy", "strategy", "std::string", /*default=*/"",
           "A strategy file (YAML; report=<file>.yaml writes the plan's): "
           "each key one of the spatial mapping's options above (stages, "
           "microbatches, stage-layers, tensor, data, recompute, ...), used "
           "where the command line does not give it; one it gives otherwise "
           "is an error">,
  ];
  let dependentDialects = ["dsm::DsmDialect"];
}

#endif // DSM_PASSES_PASSES_TD

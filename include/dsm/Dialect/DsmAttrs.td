//===- DsmAttrs.td - dsm enums and attributes --------------*- tablegen -*-===//

#ifndef DSM_DIALECT_DSMATTRS_TD
#define DSM_DIALECT_DSMATTRS_TD

include "dsm/Dialect/DsmDialect.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Tensor layouts
//===----------------------------------------------------------------------===//

def Dsm_DataLayout : I32EnumAttr<"DataLayout",
    "activation layout of spatial operations", [
  I32EnumAttrCase<"NCHW", 0, "nchw">,
  I32EnumAttrCase<"NHWC", 1, "nhwc">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::dsm";
}
def Dsm_DataLayoutAttr : EnumAttr<Dsm_Dialect, Dsm_DataLayout, "layout"> {
  let summary = "activation layout (nchw or nhwc)";
  let assemblyFormat = "`<` $value `>`";
}

def Dsm_KernelLayout : I32EnumAttr<"KernelLayout",
    "convolution kernel layout (O = output channels, I = input channels per group)", [
  I32EnumAttrCase<"OIHW", 0, "oihw">,
  I32EnumAttrCase<"HWIO", 1, "hwio">,
  I32EnumAttrCase<"OHWI", 2, "ohwi">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::dsm";
}
def Dsm_KernelLayoutAttr : EnumAttr<Dsm_Dialect, Dsm_KernelLayout, "kernel_layout"> {
  let summary = "convolution kernel layout (oihw, hwio or ohwi)";
  let assemblyFormat = "`<` $value `>`";
}

def Dsm_ReduceKind : I32EnumAttr<"ReduceKind", "reduction performed", [
  I32EnumAttrCase<"Sum", 0, "sum">,
  I32EnumAttrCase<"Mean", 1, "mean">,
  I32EnumAttrCase<"Max", 2, "max">,
  I32EnumAttrCase<"Min", 3, "min">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::dsm";
}
def Dsm_ReduceKindAttr : EnumAttr<Dsm_Dialect, Dsm_ReduceKind, "reduce"> {
  let summary = "reduction kind (sum, mean, max, min)";
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Mapping vocabulary (written by the mapping passes)
//===----------------------------------------------------------------------===//

def Dsm_Parallelism : I32EnumAttr<"Parallelism",
    "how a layer is spread over the chips of the 2D torus (DeepSpatialMatrix §II-D, §III-A)", [
  I32EnumAttrCase<"Data", 0, "data">,
  I32EnumAttrCase<"Model", 1, "model">,
  I32EnumAttrCase<"DataXModelY", 2, "data_x_model_y">,
  I32EnumAttrCase<"ModelXDataY", 3, "model_x_data_y">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::dsm";
}
def Dsm_ParallelismAttr : EnumAttr<Dsm_Dialect, Dsm_Parallelism, "parallelism"> {
  let summary = "parallelism on the torus: data, model, data_x_model_y, model_x_data_y";
  let description = [{
    `data` splits the minibatch over all chips, `model` the features. The
    hybrids of DeepSpatialMatrix §III-A split the minibatch along one torus direction and the
    features along the other: `data_x_model_y` reduces gradients along X and
    rotates features along Y; `model_x_data_y` the converse.
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Dsm_MemoryLevel : I32EnumAttr<"MemoryLevel",
    "where a tensor lives (DRAM, LLC or SRAM, as in the EGRL memory-placement paper)", [
  I32EnumAttrCase<"DRAM", 0, "dram">,
  I32EnumAttrCase<"LLC", 1, "llc">,
  I32EnumAttrCase<"SRAM", 2, "sram">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::dsm";
}
def Dsm_MemoryLevelAttr : EnumAttr<Dsm_Dialect, Dsm_MemoryLevel, "memory_level"> {
  let summary = "memory level: dram, llc or sram";
  let assemblyFormat = "`<` $value `>`";
}

def Dsm_MemoryPlacementAttr : Dsm_Attr<"MemoryPlacement", "memory"> {
  let summary = "where a layer's weights and output activation live";
  let description = [{
    The memory placement of Khadka et al., "Optimizing Memory Placement using
    Evolutionary Graph Reinforcement Learning": on a `memory_hierarchy`
    system every layer's weights and output activation each live in DRAM,
    the shared LLC or the engines' SRAM. `--dsm-place-memory` records the
    decision as `dsm.memory` on every op of the layer
    (docs/memory-placement.md).

    ```mlir
    %1 = dsm.conv2d %0, %w {dsm.memory = #dsm.memory<weights = sram, activations = llc>} : ...
    ```
  }];
  let parameters = (ins EnumParameter<Dsm_MemoryLevel>:$weights,
                        EnumParameter<Dsm_MemoryLevel>:$activations);
  let assemblyFormat = "`<` struct(params) `>`";
}

def Dsm_TrainingPass : I32EnumAttr<"TrainingPass",
    "the three passes of training a layer (DeepSpatialMatrix §II)", [
  I32EnumAttrCase<"FWD", 0, "fwd">,
  I32EnumAttrCase<"BWD", 1, "bwd">,
  I32EnumAttrCase<"UPD", 2, "upd">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::dsm";
}
def Dsm_TrainingPassAttr : EnumAttr<Dsm_Dialect, Dsm_TrainingPass, "pass"> {
  let summary = "training pass: fwd (activations), bwd (errors) or upd (weight gradients)";
  let assemblyFormat = "`<` $value `>`";
}

def Dsm_SplitAttr : Dsm_Attr<"Split", "split"> {
  let summary = "a work split over the dimensions {in, out, ij, kij, mb}";
  let description = [{
    How many parts each of the five workload dimensions of DeepSpatialMatrix Fig. 4 is cut
    into at one level of the hierarchy: across chips (ChipD), across the cores
    of a chip (CoreD) or across the PE array of a core (ArrayD). Every factor
    is at least 1.

    ```mlir
    #dsm.split<in = 1, out = 4, ij = 8, kij = 1, mb = 1>
    ```
  }];
  let parameters = (ins "int64_t":$in, "int64_t":$out, "int64_t":$ij,
                        "int64_t":$kij, "int64_t":$mb);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Product of the five factors.
    int64_t getProduct() const;
    /// The factor of dimension `dim` (0..4 in the order in, out, ij, kij, mb).
    int64_t getFactor(unsigned dim) const;
  }];
}

def Dsm_DeviceAttr : Dsm_Attr<"Device", "device"> {
  let summary = "a device of the target system, by id";
  let description = [{
    A device of a `device_graph` system, by its position in the system's
    device list. `--dsm-place-devices` records where each operation runs as
    `dsm.device = #dsm.device<id>` (device placement, Andreassen's thesis on
    device placement with an execution simulator; docs/device-placement.md).

    ```mlir
    %1 = dsm.relu %0 {dsm.device = #dsm.device<1>} : tensor<8x64xf32>
    ```
  }];
  let parameters = (ins "int64_t":$id);
  let assemblyFormat = "`<` $id `>`";
  let genVerifyDecl = 1;
}

def Dsm_SystemAttr : Dsm_Attr<"System", "system"> {
  let summary = "the target system the module is compiled for";
  let description = [{
    A complete system description (docs/systems.md) stored on the module as
    `dsm.system`, with every quantity in base units (bytes, bytes/s, Hz,
    FLOP/s), so that every pass -- and every lit test -- sees exactly the
    system that was attached. The verifier validates it with the same reader
    as system files.

    ```mlir
    module attributes {dsm.system = #dsm.system<"malvik", {kind = "device_graph", ...}>}
    ```
  }];
  let parameters = (ins StringRefParameter<"system name">:$name,
                        "::mlir::DictionaryAttr":$spec);
  let assemblyFormat = "`<` $name `,` $spec `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Stores `system`.
    static SystemAttr get(::mlir::MLIRContext *context,
                          const ::dsm::core::SystemDescription &system);
    /// Reads the description back (the verifier has checked it).
    ::dsm::core::SystemDescription getDescription() const;
    /// Name of the module attribute that holds the system.
    static constexpr ::llvm::StringLiteral kModuleAttrName = "dsm.system";
  }];
}


def Dsm_Dim : I32EnumAttr<"Dim", "a workload dimension of DeepSpatialMatrix Fig. 2", [
  I32EnumAttrCase<"In", 0, "in">,
  I32EnumAttrCase<"Out", 1, "out">,
  I32EnumAttrCase<"IJ", 2, "ij">,
  I32EnumAttrCase<"KIJ", 3, "kij">,
  I32EnumAttrCase<"MB", 4, "mb">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::dsm";
}

def Dsm_WorkloadAttr : Dsm_Attr<"Workload", "workload"> {
  let summary = "what one layer computes, for the performance model";
  let description = [{
    The workload of a layer -- a primary computation with its fused auxiliary
    computations, or auxiliary computations alone -- in the terms of DeepSpatialMatrix
    §II-A: the operation kind, N{in, out, ij, kij, mb} for one timestep and
    direction, the input pixels `ij_in` (strided convolutions read more than
    they write; 0 means `ij`), the output pixels `ij_out` the layer stores
    (a fused pooling stores the pooled tensor; 0 means `ij`), convolution
    `groups`, LSTM `timesteps` and
    `directions`, the special-function operations `aux_ops` of the fused
    auxiliary computations (all timesteps), activation elements `aux_inputs`
    they read besides the primary input (a residual shortcut), the learnable
    `params`, and `reduces`: fused computations whose statistics cores must
    reduce ("batch_norm", "softmax", or both joined by "+"). The `saved_*`
    elements are what the layer keeps for its backward pass; `aux_reads`,
    `aux_writes`, `aux_dropout` elements and `aux_mask_bytes` what its fused
    auxiliary computations move through external memory in FWD where each
    runs as a kernel of its own (a chip with `elementwise: kernels`).

    ```mlir
    #dsm.workload<kind = "conv", in = 64, out = 64, ij = 3136, kij = 9, mb = 512, aux_ops = 4816896, params = 36992, reduces = "batch_norm">
    ```
  }];
  let parameters = (ins
    StringRefParameter<"operation kind (docs/workloads.md)">:$kind,
    "int64_t":$in, "int64_t":$out, "int64_t":$ij, "int64_t":$kij, "int64_t":$mb,
    DefaultValuedParameter<"int64_t", "0">:$ij_in,
    DefaultValuedParameter<"int64_t", "0">:$ij_out,
    DefaultValuedParameter<"int64_t", "1">:$groups,
    DefaultValuedParameter<"int64_t", "1">:$timesteps,
    DefaultValuedParameter<"int64_t", "1">:$directions,
    DefaultValuedParameter<"int64_t", "0">:$aux_ops,
    DefaultValuedParameter<"int64_t", "0">:$aux_inputs,
    DefaultValuedParameter<"int64_t", "0">:$params,
    StringRefParameter<"fused reductions", "\"\"">:$reduces,
    DefaultValuedParameter<"int64_t", "0">:$saved_inputs,
    DefaultValuedParameter<"int64_t", "0">:$saved_kernels,
    DefaultValuedParameter<"int64_t", "0">:$saved_outputs,
    DefaultValuedParameter<"int64_t", "0">:$saved_masks,
    DefaultValuedParameter<"int64_t", "0">:$saved_attention,
    DefaultValuedParameter<"int64_t", "0">:$saved_attention_masks,
    DefaultValuedParameter<"int64_t", "0">:$aux_reads,
    DefaultValuedParameter<"int64_t", "0">:$aux_writes,
    DefaultValuedParameter<"int64_t", "0">:$aux_dropout,
    DefaultValuedParameter<"int64_t", "0">:$aux_mask_bytes);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Stores a layer's shape (its name is not part of the attribute).
    static WorkloadAttr get(::mlir::MLIRContext *context,
                            const ::dsm::core::LayerShape &shape);
    /// The performance model's view of the layer.
    ::dsm::core::LayerShape getShape(::llvm::StringRef name = "") const;
  }];
}

def Dsm_ArrayMapAttr : Dsm_Attr<"ArrayMap", "array_map"> {
  let summary = "ArrayD: how a core's work is laid onto its PE array";
  let description = [{
    The dimension laid across the PE array's rows (in chunks of `row_tile`)
    and the one across its columns (in chunks of `column_tile`); the others
    stream through in time.

    ```mlir
    #dsm.array_map<rows = out, columns = ij, row_tile = 32, column_tile = 32>
    ```
  }];
  let parameters = (ins EnumParameter<Dsm_Dim>:$rows,
                        EnumParameter<Dsm_Dim>:$columns,
                        "int64_t":$row_tile, "int64_t":$column_tile);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Dsm_ChipBlockAttr : Dsm_Attr<"ChipBlock", "chip_block"> {
  let summary = "the block of the torus a layer pass runs on";
  let description = [{
    A plan on part of the torus (ChipBlocks.h): the pass runs on a block of
    `rows` torus rows by `columns` torus columns, whose sides divide the
    torus's; the other chips idle, and their share of the useful cycles is
    recorded as under-use. Its chip split covers the block's chips. Absent:
    the whole torus.

    ```mlir
    #dsm.chip_block<rows = 2, columns = 4>
    ```
  }];
  let parameters = (ins "int64_t":$rows, "int64_t":$columns);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Dsm_ChipMemoryAttr : Dsm_Attr<"ChipMemory", "chip_memory"> {
  let summary = "the memory a plan needs on its fullest chip, by category";
  let description = [{
    The external memory the fullest chip of a mapped function needs over a
    step, as the mapper counts it when it chooses the plan (StepMemory.h):
    bytes of `weights`, `gradients`, `optimizer` state, `activations` (the
    peak of those alive at once) and `buffers`, and the optimizer state
    `offloaded` to the chip's host (not in the chip's total). On a pipelined
    plan, `stage` is the pipeline stage of that chip (-1: not pipelined).
    --dsm-select-mapping puts it on the function as `dsm.chip_memory`; every
    report format and the explain remarks show this figure, and
    --dsm-verify-mapping checks it against the tensors the IR holds.

    ```mlir
    #dsm.chip_memory<weights = 4194304, gradients = 4194304, optimizer = 25165824, activations = 49152, buffers = 0, offloaded = 0, stage = -1>
    ```
  }];
  let parameters = (ins "int64_t":$weights, "int64_t":$gradients,
                        "int64_t":$optimizer, "int64_t":$activations,
                        "int64_t":$buffers,
                        DefaultValuedParameter<"int64_t", "0">:$offloaded,
                        DefaultValuedParameter<"int64_t", "-1">:$stage);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The bytes of `memory` (rounded up to whole bytes); `stage` as above.
    static ChipMemoryAttr get(::mlir::MLIRContext *context,
                              const ::dsm::core::MemoryPerChip &memory,
                              int64_t stage);
    /// The figure by category; the capacities are the system's, not
    /// recorded.
    ::dsm::core::MemoryPerChip getMemory() const;
  }];
}

def Dsm_PipelineIdleAttr : Dsm_Attr<"PipelineIdle", "pipeline_idle"> {
  let summary = "the cycles a pipelined step's chips spend waiting";
  let description = [{
    A pipelined plan's time in no pass (PipelineParallelism.h), as a share
    of the whole system like a pass's cycles: `bubble`, the stages' wait
    for the pipeline to fill and drain and for slower stages were the links
    between stages free; `sends`, what the sends between stages add to that.
    The step is the passes' cycles plus both. --dsm-select-mapping puts it
    on a pipelined function as `dsm.pipeline_idle`; the reports show both as
    their own categories.

    ```mlir
    #dsm.pipeline_idle<bubble = 99841, sends = 6144>
    ```
  }];
  let parameters = (ins "int64_t":$bubble, "int64_t":$sends);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Dsm_CyclesAttr : Dsm_Attr<"Cycles", "cycles"> {
  let summary = "estimated cycles of a layer and pass, by the categories of DeepSpatialMatrix Fig. 13";
  let description = [{
    The cycle categories of the performance model (docs/performance-model.md),
    named as in the code and the mapping report: `useful` (PE array busy on
    useful MACs) and `underuse` (under-use due to data-flow, uneven splits,
    startup) make up PriComp; `ovldt_visible` is the part of the overlapped
    transfers (Ovldt) that PriComp does not hide; `non_ovldt` the
    non-overlapped transfers, relayouts included; `aux_comp` the auxiliary
    computations. They add up to `total` = MAX(PriComp, Ovldt) + AuxComp +
    NonOvldt.

    ```mlir
    #dsm.cycles<useful = 900, underuse = 20, ovldt_visible = 0, non_ovldt = 64, aux_comp = 16, total = 1000>
    ```
  }];
  let parameters = (ins "int64_t":$useful, "int64_t":$underuse,
                        "int64_t":$ovldt_visible, "int64_t":$non_ovldt,
                        "int64_t":$aux_comp, "int64_t":$total);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    static CyclesAttr get(::mlir::MLIRContext *context,
                          const ::dsm::core::CycleBreakdown &cycles);
    ::dsm::core::CycleBreakdown getBreakdown() const;
  }];
}

def Dsm_TransferAttr : Dsm_Attr<"Transfer", "transfer"> {
  let summary = "a data-transfer group: bytes per link (per chip) and its cycles";
  let description = [{
    What the performance model charged for a group of simultaneous transfers
    (DeepSpatialMatrix §II-D): the bytes each link of a chip carries, the group's cycles
    (set by its slowest link) and that link.
  }];
  let parameters = (ins DefaultValuedParameter<"int64_t", "0">:$memory_bus,
                        DefaultValuedParameter<"int64_t", "0">:$on_chip,
                        DefaultValuedParameter<"int64_t", "0">:$torus_x,
                        DefaultValuedParameter<"int64_t", "0">:$torus_y,
                        DefaultValuedParameter<"int64_t", "0">:$host,
                        "int64_t":$cycles,
                        StringRefParameter<"slowest link", "\"\"">:$bottleneck);
  let assemblyFormat = "`<` struct(params) `>`";
  let extraClassDeclaration = [{
    static TransferAttr get(::mlir::MLIRContext *context,
                            const ::dsm::core::TransferGroup &group);
  }];
}

def Dsm_MemoryDecisionAttr : Dsm_Attr<"MemoryDecision", "memory_decision"> {
  let summary = "the memory optimizations (DeepSpatialMatrix §III) a mapped pass uses";
  let description = [{
    Which data a mapped layer pass keeps in its cores' scratchpads instead of
    external memory. `weight_reuse`: an LSTM's FWD or BWD fetches its
    weights in the first timestep and keeps them for the others (Kernel/Weight
    Reuse, Venkataramani et al., "DeepSpatialMatrix", §III-B2). `input_reuse`:
    the FWD finds its input in the scratchpads, where the previous layer (same
    parallelism) left it, and does not read it from external memory
    (Activation/Error Reuse, §III-B1). `error_reuse`: the BWD or UPD finds
    the error of its output in the scratchpads, where the next layer's BWD
    (same parallelism) left it (the same optimization, backwards).
    `shortcut_reuse`: the FWD finds the activations its fused auxiliary
    computations read (a residual shortcut) in the scratchpads, kept there
    since their producer (same parallelism) several layers earlier (§III-B1:
    "the outputs may need to be retained longer, as a future layer may also
    use the outputs for short-cut addition"); the BWD leaves the shortcut's
    error there for the block's first layer to add (its producer then finds
    the whole error of its output on chip: `error_reuse`).
    `shortcut_per_spatial_minibatch`: with `shortcut_reuse`, the shortcut's
    producer, this layer and the layers in between run as one DySM group
    with this layer's `dysm` factor (§III-C: "we proceed to the next
    layer"), so the scratchpads hold the shortcut (or its error) of one
    spatial minibatch at a time, not of all of them. `output_reuse`:
    in inference, the FWD does not write its output to external memory,
    since every layer that reads it finds it in the scratchpads (§III-B1:
    "this optimization saves an external memory read and write for
    inference"). Absent means none. `dysm`: dynamic spatial minibatching (§III-C), the chip's
    minibatch share runs as this many spatial minibatches (1: off).
    `preload`: inference weight preloading (§III-B2), the bytes of the
    layer's weights each core holds in its scratchpad from before the job
    (never fetched from external memory; 0: none). `pipe_group`,
    `pipe_first_row`, `pipe_rows`: timestep pipelining (§III-D), the layer is
    a stage of that pipe group (-1: none) and runs on the torus rows
    [pipe_first_row, pipe_first_row + pipe_rows), every X column, one
    timestep behind the stage before it; its chip split covers those chips
    only. `microbatches` (with a pipe group): pipeline parallelism, the
    layer is in a stage of the network's pipeline that runs the minibatch
    as this many microbatches, one behind the other through the stages; its
    configuration splits one microbatch's work and its cycles are its
    stage's share of the step (1: the whole minibatch at once, as a
    timestep pipe stage runs it). `gpipe` (with `microbatches`): the
    stages run every microbatch's forward before any backward (GPipe),
    each keeping every microbatch's activations; otherwise one forward, one
    backward (1F1B), stage s of p keeping p - s. `recompute` (FWD, training): activation recomputation, the output
    is dropped after the forward half and recomputed before the backward
    half reads it, the layer's first backward pass charged the FWD once
    more. `sharded_state` (FWD of a layer with parameters, training): each
    chip keeps the gradient and optimizer state of its shard of them (ZeRO
    stage 2). `sharded_weights` (with `sharded_state`): each chip keeps a
    1/chips shard of the weights too, and the FWD and BWD passes first
    gather the chip's share (ZeRO stage 3, non-overlapped).
    `offloaded_state` (with `sharded_state`, on a system with a host link):
    the chip's shard of the optimizer state lives in host memory, and the
    UPD sends the gradient shard to the host and takes the updated weights
    back over the link (ZeRO-Offload, non-overlapped). All four are chosen
    only where a plan does not fit otherwise, or named.

    The keys are the fields of the decision records (DecisionRecords.h), one
    record per add-on or strategy that decides them; they parse in any
    order, each once, and print in the records' order, leaving out what is
    at its default (false, `dysm = 1`, `pipe_group = -1`, `microbatches =
    1`, 0).

    ```mlir
    #dsm.memory_decision<weight_reuse = true>
    #dsm.memory_decision<input_reuse = true>
    #dsm.memory_decision<error_reuse = true>
    #dsm.memory_decision<input_reuse = true, dysm = 4>
    #dsm.memory_decision<input_reuse = true, shortcut_reuse = true>
    #dsm.memory_decision<shortcut_reuse = true, shortcut_per_spatial_minibatch = true, dysm = 4>
    #dsm.memory_decision<preload = 65536>
    #dsm.memory_decision<weight_reuse = true, pipe_group = 0, pipe_first_row = 2, pipe_rows = 3>
    #dsm.memory_decision<pipe_group = 0, pipe_first_row = 4, pipe_rows = 4, microbatches = 16>
    #dsm.memory_decision<recompute = true, sharded_state = true>
    ```
  }];
  // One parameter, the decision; its keys are the fields of the decision
  // records (DecisionRecords.h), which the printer, the parser and the
  // verifier walk: a new decision is a field of its record, not a
  // parameter here.
  let parameters = (ins AttrParameter<"::dsm::core::MemoryDecision",
      "the decision", "const ::dsm::core::MemoryDecision &">:$decision);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The attribute recording `decision`, or null when it decides nothing.
    static MemoryDecisionAttr getIfAny(::mlir::MLIRContext *context,
                                       const ::dsm::core::MemoryDecision &decision);
  }];
}

// Typed dictionaries of the mapping record (the op verifiers check the
// entries: TransferAttr values; parallelism names with cycle counts).
def Dsm_TransfersAttr : DictionaryAttrBase<
    CPred<"::dsm::isTransferDictionary($_self)">,
    "dictionary of #dsm.transfer by transfer-group name"> {
  let storageType = "::mlir::DictionaryAttr";
}
def Dsm_AlternativesAttr : DictionaryAttrBase<
    CPred<"::dsm::isAlternativesDictionary($_self)">,
    "dictionary of i64 cycles by parallelism name"> {
  let storageType = "::mlir::DictionaryAttr";
}

#endif // DSM_DIALECT_DSMATTRS_TD

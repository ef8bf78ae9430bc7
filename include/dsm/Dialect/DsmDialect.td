//===- DsmDialect.td - The dsm dialect ---------------------*- tablegen -*-===//

#ifndef DSM_DIALECT_DSMDIALECT_TD
#define DSM_DIALECT_DSMDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Dsm_Dialect : Dialect {
  let name = "dsm";
  let cppNamespace = "::dsm";
  let summary = "Deep neural network workloads and their mapping onto accelerator systems";
  let description = [{
    The `dsm` dialect describes a DNN the way DeepSpatialMatrix sees it
    (Venkataramani et al., "Memory and Interconnect Optimizations for
    Peta-Scale Deep Learning Systems", §II-A): primary computations (convolution, matrix multiplication, LSTM)
    that run on PE arrays, auxiliary computations (bias and residual adds,
    activations, pooling, normalization) that run on special-function units,
    and the plumbing real models need. Every op reports its workload -- the
    dimensions N{in, out, ij, kij, mb}, stride, timesteps, MACs, auxiliary
    operations and bytes -- through `WorkloadOpInterface`.

    The dialect also carries the vocabulary the mapping passes write: work
    splits over {in, out, ij, kij, mb} (ChipD, CoreD, ArrayD), parallelism
    kinds on the 2D torus, memory levels, devices and training passes, and the
    target system itself (`#dsm.system`), stored on the module so that every
    pass reads the same description.
  }];
  let useDefaultAttributePrinterParser = 1;
  // Attributes the dialect's passes put on or read from ops of any dialect
  // (function arguments, placed ops), declared so that each has one name and
  // one type.
  let discardableAttrs = (ins
    // The dimension of a function argument that holds the minibatch (default
    // 0; -1: none), read by --dsm-set-batch and the reports.
    "::mlir::IntegerAttr":$batch_dim,
    // While an importer runs: what a constant it materialised is for
    // ("weight", "bias", ...); removed before the import ends.
    "::mlir::StringAttr":$import_role,
    // Memory placement (--dsm-place-memory): the levels of a layer's weights
    // and activations, on every op of the layer.
    "::dsm::MemoryPlacementAttr":$memory,
    // Device placement (--dsm-place-devices): the device that runs the op.
    "::dsm::DeviceAttr":$device,
    // Spatial mapping (--dsm-select-mapping), on a function whose layer
    // graph was too dense to select its parallelisms exactly: the states the
    // selection kept per layer, its bound (docs/scaling.md). Absent when the
    // choice is proven optimal; the mapping report carries it.
    "::mlir::IntegerAttr":$selection_states_kept,
    // Spatial mapping (--dsm-select-mapping), on each mapped function: the
    // memory its plan needs on the fullest chip, the one figure the reports
    // show and --dsm-verify-mapping checks.
    "::dsm::ChipMemoryAttr":$chip_memory,
    // Spatial mapping (--dsm-select-mapping), on a function whose plan is a
    // pipeline: the cycles its stages wait, beside the passes' cycles.
    "::dsm::PipelineIdleAttr":$pipeline_idle,
    // On a function whose model trains with dropout (GPT, BERT; LLaMA-style
    // models have none): its probability. The activations a layer keeps for
    // its backward pass then count dropout's masks (LayerFormation).
    "::mlir::FloatAttr":$dropout,
    // Spatial mapping (--dsm-select-mapping), on a function planned with
    // sequence parallelism: its layers keep their saved activations split
    // over all their chips (the reports and --dsm-verify-mapping count so).
    "::mlir::UnitAttr":$sequence_parallel,
    // Spatial mapping (--dsm-select-mapping), on each mapped function: the
    // plan's strategy, each option of it by name with its value as the
    // option reads it (StrategyFile.h); report=<file>.yaml writes it as a
    // strategy file for --dsm-map-system's strategy=.
    "::mlir::DictionaryAttr":$strategy
  );
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Registers the attributes (defined next to their storage classes).
    void registerAttributes();
  }];
}

class Dsm_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Dsm_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

class Dsm_Op<string mnemonic, list<Trait> traits = []>
    : Op<Dsm_Dialect, mnemonic, traits>;

#endif // DSM_DIALECT_DSMDIALECT_TD

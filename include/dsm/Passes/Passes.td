//===- Passes.td - dsm passes ------------------------------*- tablegen -*-===//

#ifndef DSM_PASSES_PASSES_TD
#define DSM_PASSES_PASSES_TD

include "mlir/Pass/PassBase.td"

def DsmAttachSystem : Pass<"dsm-attach-system", "mlir::ModuleOp"> {
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
  let options = [
    Option<"system", "system", "std::string", /*default=*/"",
           "Preset name (dsm-8pf-asym, dsm-8pf-sym, dsm-128tf, nnp-i, malvik, "
           "luke01) or path to a system file">,
  ];
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
           "New minibatch size (> 0)">,
  ];
  let statistics = [
    Statistic<"numRetyped", "retyped-values", "Values whose type changed">,
  ];
}

def DsmWorkloadReport : Pass<"dsm-workload-report", "mlir::ModuleOp"> {
  let summary = "Report per-layer and total MACs, parameters and activation bytes";
  let description = [{
    Prints the workload of every dsm operation -- N{in, out, ij, kij, mb},
    MACs, auxiliary operations, parameters, bytes -- and totals, as a table or
    as JSON (schema in docs/workload-report.md). Parameters shared by several
    operations are counted once. The report goes to stdout (`output=-`,
    default) or to a file, which is written only if the pass succeeds.
  }];
  let options = [
    Option<"format", "format", "::dsm::ReportFormat",
           /*default=*/"::dsm::ReportFormat::Table", "Report format",
           [{::llvm::cl::values(
               clEnumValN(::dsm::ReportFormat::Table, "table", "readable table"),
               clEnumValN(::dsm::ReportFormat::JSON, "json",
                          "JSON for scripts (docs/workload-report.md)"))}]>,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to write the report ('-' for stdout)">,
  ];
}

// Options shared by the import passes.
class DsmImportOptions {
  list<Option> importOptions = [
    Option<"mode", "mode", "::dsm::ImportMode",
           /*default=*/"::dsm::ImportMode::Strict",
           "What to do with an operation that is not recognised",
           [{::llvm::cl::values(
               clEnumValN(::dsm::ImportMode::Strict, "strict",
                          "stop at the first one with a located error"),
               clEnumValN(::dsm::ImportMode::Permissive, "permissive",
                          "keep it as dsm.opaque, charged by element count"))}]>,
    Option<"summary", "summary", "std::string", /*default=*/"",
           "Write the import summary to this file ('-' for stdout)">,
    Option<"batch", "batch", "int64_t", /*default=*/"0",
           "Size of a dynamic batch dimension (0: dynamic shapes are errors)">,
  ];
}

def DsmImportLinalg : Pass<"dsm-import-linalg", "mlir::ModuleOp">, DsmImportOptions {
  let summary = "Import a model from linalg on tensors into the dsm dialect";
  let description = [{
    Rewrites every function of the module -- as torch-mlir, IREE or TF emit
    linalg on tensors -- into dsm graph operations, in program order
    (docs/importers.md lists what maps to what):

    - convolutions, named (`linalg.conv_2d_*`, `depthwise_conv_2d_*`, grouped
      `conv_2d_ngchw_fgchw`) or generic, in NCHW or NHWC with any kernel
      layout, strided and dilated, become `dsm.conv2d`; a zero `tensor.pad`
      before them becomes their padding, a broadcast bias as their init or a
      following per-channel addition becomes their bias;
    - contractions (`linalg.matmul` with any indexing maps, `batch_matmul`,
      contraction-shaped generics) with a constant operand become
      `dsm.fully_connected` (the constant, through any transpose, is the
      [out, in] weight), between two activations `dsm.matmul`;
    - `linalg.pooling_*` become max or average pooling (a sum followed by the
      division by the window), global average pooling over the whole map;
    - elementwise generics are classified by evaluating their bodies, alone or
      composed along single-use chains: ReLU, clamp, sigmoid, tanh, GELU, hard
      sigmoid/swish, batch normalization, add/sub/mul/div; reductions become
      `dsm.reduce` (mean when divided by the count) and the softmax pieces
      `dsm.softmax`;
    - reshapes, transposes, slices and concatenations become their dsm
      counterparts; constants feeding weights become `dsm.weight`;
      `tensor.empty`, fills, `cf.assert` and unused `ml_program.global`s are
      dropped. Calls to functions of the module are inlined first.

    An operation that is not recognised stops the import with an error at it
    (`mode=strict`, default) or is kept as `dsm.opaque` with its element count
    and the operations of its body per element (`mode=permissive`).
    Elementwise functions that are understood but have no dsm counterpart (a
    scaling by a constant, `exp` alone) are kept as `dsm.opaque` with their
    exact operation count in either mode.
    `summary=<file|->` writes what became what. A dynamic batch dimension of
    a function argument is fixed with `batch=<N>`; other dynamic shapes are
    errors. Afterwards every function holds only dsm operations and its
    return, and re-batches with `--dsm-set-batch` where its shapes allow.
  }];
  let options = importOptions;
  let dependentDialects = ["dsm::DsmDialect"];
}

def DsmImportTosa : Pass<"dsm-import-tosa", "mlir::ModuleOp">, DsmImportOptions {
  let summary = "Import a model from TOSA into the dsm dialect";
  let description = [{
    Rewrites every function of the module from TOSA (as MLIR 22 spells it:
    zero-point operands, `acc_type`, `!tosa.shape` operands) into dsm graph
    operations (docs/importers.md): `tosa.conv2d` and `depthwise_conv2d`
    (NHWC, OHWI / HWCM weights, padding from the op or a zero `tosa.pad`),
    `matmul` (with a constant operand `dsm.fully_connected`, else
    `dsm.matmul`), `avg_pool2d` / `max_pool2d`, elementwise arithmetic and
    activations (classified alone or composed along chains, so GELU spelled
    with `tosa.erf` or hard swish from clamp and multiply are recognised),
    `reduce_sum/max/min`, softmax pieces, `reshape`, `transpose`, `slice`,
    `concat`, `gather` on a constant table (`dsm.embedding`) and constants.
    `tosa.rescale`, `cast` and `identity` pass their input through (int8
    models are imported in the activations' element type).

    Modes, the summary and dynamic batch sizes work as for
    `--dsm-import-linalg`.
  }];
  let options = importOptions;
  let dependentDialects = ["dsm::DsmDialect"];
}

#endif // DSM_PASSES_PASSES_TD

//===- Passes.td - Import passes: other IRs into the dsm dialect -*- tablegen -*-===//
//
// The MLIR front ends (linalg on tensors, TOSA). The ONNX front end is a
// translation (dsm-translate --import-onnx), not a pass.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_IMPORT_PASSES_TD
#define DSM_IMPORT_PASSES_TD

include "mlir/Pass/PassBase.td"

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
      sigmoid/swish, exp, batch normalization, add/sub/mul/div; reductions become
      `dsm.reduce` (mean when divided by the count) and the softmax pieces
      `dsm.softmax`;
    - reshapes, transposes, slices and concatenations become their dsm
      counterparts; constants feeding weights become `dsm.weight`;
      `tensor.empty`, fills, `cf.assert` and unused `ml_program.global`s are
      dropped. Calls to functions of the module are inlined first.

    An operation that is not recognised stops the import with an error at it
    (`mode=strict`, default) or is kept as `dsm.opaque` with its element count
    and the operations of its body per element (`mode=permissive`).
    An affine function alone (a scaling by a constant, a negation) becomes a
    `dsm.mul` and/or `dsm.add` of scalar constants. Elementwise functions that
    are understood but have no dsm counterpart (the maximum of two tensors)
    are kept as `dsm.opaque` with their exact operation count in either
    mode.
    The graph fusions of `--dsm-fuse-graph` run on the result.
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

def DsmFuseGraph : Pass<"dsm-fuse-graph"> {
  let summary = "Recognise composite functions spelled with several dsm ops";
  let description = [{
    Front ends translate one operation at a time; exporters spell some
    functions dsm has one operation for as several. These patterns replace
    such compositions of dsm ops, whatever front end made them, by the one
    op (include/dsm/Import/GraphFusion.h):

    - *composed activation*: elementwise ops from one input `x` (each
      value in between read once, at the result's full size, with scalar
      constants) whose composition, evaluated
      (include/dsm/Core/Workload/ElementwiseClass.h), is an activation dsm
      has an op for, become that op: torch.onnx's erf GELU
      `x * 0.5 * (1 + erf(x / sqrt(2)))` (in any order of the products)
      `dsm.gelu`, `x * clip(x + 3, 0, 6) / 6` `dsm.hard_swish`,
      `1 / (1 + exp(-x))` `dsm.sigmoid`, `relu(min(relu(x), 6))`
      `dsm.clamp`; also ReLU, tanh, hard sigmoid;
    - *decomposed LayerNorm*: `d = x - mean(x)`, `d / sqrt(mean(d * d) + eps)
      * scale + offset` (or `d * rsqrt(..)`), with means over the same
      trailing axes and `scale`, `offset` weights shaped like them, becomes
      `dsm.layer_norm`;
    - *decomposed RMSNorm*: `x * rsqrt(mean(x * x) + eps)` (or with
      `1 / sqrt`, or `x / sqrt`) times a weight shaped like the normalized
      trailing dimensions, `x` not centred by a mean, becomes
      `dsm.rms_norm`;
    - *bias add*: a `dsm.fully_connected` without bias plus a `[out]` weight
      becomes the layer with that bias;
    - *merged-rows fully connected*: a reshape of `[R.., in]` to rows
      `[r, in]`, a `dsm.fully_connected` and the reshape back to
      `[R.., out]` become one layer over `[R.., in]` (torch.export's
      `nn.Linear`), which re-batches;
    - *merged-batch matmul*: reshapes merging the batch dimensions of both
      operands (the right one possibly transposed after the merge), a
      `dsm.matmul`, and the reshape back become one `dsm.matmul` over the
      unmerged batch (TOSA's 3-D matmul, torch-mlir's per-head
      `batch_matmul`), which re-batches.

    Constants must be one-element splats of at most the result's rank, and
    every intermediate value must be read only inside the composition;
    otherwise the ops stay as they are. The import passes and
    `--import-onnx` run these patterns after translating, and their
    summaries count the matches under `patterns`.
  }];
}

#endif // DSM_IMPORT_PASSES_TD

//===- DsmOps.td - dsm graph-level operations --------------*- tablegen -*-===//
//
// Graph-level DNN operations on statically shaped tensors. Every operation
// infers its result type from its operands and attributes (so a model can be
// re-batched by changing its inputs) and reports its workload.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_DIALECT_DSMOPS_TD
#define DSM_DIALECT_DSMOPS_TD

include "dsm/Dialect/DsmDialect.td"
include "dsm/Dialect/DsmAttrs.td"
include "dsm/Dialect/DsmInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// Activations and weights: fp32, fp16, bf16 or int8, with static shapes.
def Dsm_Tensor : StaticShapeTensorOf<[F32, F16, BF16, I8]>;
/// Token ids for embedding lookups.
def Dsm_IdTensor : StaticShapeTensorOf<[I32, I64]>;
/// What data movement carries: activations and the integer tensors models
/// compute with besides them -- token ids, positions, indices, shapes (i32,
/// i64) and masks (i1). Moving them costs their bytes (8 per i64, 4 per i32,
/// 1 per i1), never arithmetic.
def Dsm_DataTensor : StaticShapeTensorOf<[F32, F16, BF16, I8, I1, I32, I64]>;

/// Verifies a graph op by running its shape inference first, so a bad shape
/// or attribute gets one precise error rather than a generic "failed to
/// infer" as well (dsm::VerifiesShapes in DsmTraits.h). Last in the
/// op's traits, so that it runs after the others' verifiers, and before the
/// op's own `verify()` where it has one (`hasVerifier`).
def Dsm_VerifiesShapes : NativeOpTrait<"VerifiesShapes"> {
  let cppNamespace = "::dsm";
}

/// A graph op: pure, result type inferred, workload reported, shapes
/// verified. The workload interface comes after type inference so that its
/// verifier sees checked shapes. `workloadMethods` names the interface
/// methods with a default that the op overrides (an op with parameters lists
/// "getParameterOperands"; one whose minibatch is not dimension 0 lists
/// "getBatchDim"; one whose getWorkload() is costly lists
/// "workloadOverflows").
class Dsm_GraphOp<string mnemonic, list<Trait> traits = [],
                  list<string> workloadMethods = []>
    : Dsm_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptor], traits,
                                   [DeclareOpInterfaceMethods<Dsm_WorkloadOpInterface,
                                        workloadMethods>,
                                    Dsm_VerifiesShapes])>;

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

def Dsm_WeightOp : Dsm_Op<"weight", [Pure]> {
  let summary = "a named parameter tensor";
  let description = [{
    Declares a parameter of the model (a weight, bias, normalization scale or
    running statistic). Only its shape and element type matter to mapping; the
    values live elsewhere. Importers turn constants that feed weight operands
    into `dsm.weight`.

    ```mlir
    %w = dsm.weight "conv1.weight" : tensor<64x3x7x7xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs Dsm_Tensor:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Primary computations
//===----------------------------------------------------------------------===//

def Dsm_Conv2DOp : Dsm_GraphOp<"conv2d", [], ["getParameterOperands"]> {
  let summary = "2D convolution (strided, padded, dilated, grouped)";
  let description = [{
    Convolves `input` with `weight` and adds the optional per-output-channel
    `bias`. `padding` is [top, left, bottom, right]. With `data_layout = nchw`
    (default) the input is [N, C, H, W]; with `nhwc` it is [N, H, W, C]. The
    kernel is [O, C / groups, KH, KW] for `oihw` (default), [KH, KW, C / groups,
    O] for `hwio` and [O, KH, KW, C / groups] for `ohwi`. Depthwise convolution
    is `groups = C`.

    Workload: in = C, out = O, ij = OH * OW, kij = KH * KW, mb = N, stride;
    MACs = N * O * OH * OW * (C / groups) * KH * KW.

    ```mlir
    %y = dsm.conv2d %x, %w, %b {padding = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>}
        : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
    ```
  }];
  let arguments = (ins Dsm_Tensor:$input, Dsm_Tensor:$weight,
                       Optional<Dsm_Tensor>:$bias,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups,
                       DefaultValuedAttr<Dsm_DataLayoutAttr, "::dsm::DataLayout::NCHW">:$data_layout,
                       DefaultValuedAttr<Dsm_KernelLayoutAttr, "::dsm::KernelLayout::OIHW">:$kernel_layout);
  let results = (outs Dsm_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Dsm_Conv3DOp : Dsm_GraphOp<"conv3d", [], ["getParameterOperands"]> {
  let summary = "3D convolution (strided, padded, dilated, grouped)";
  let description = [{
    `dsm.conv2d` with a depth: convolves `input` with `weight` and adds the
    optional per-output-channel `bias`. `padding` is [front, top, left, back,
    bottom, right]. With `data_layout = nchw` (default) the input is [N, C,
    D, H, W]; with `nhwc` it is [N, D, H, W, C]. The kernel is [O, C /
    groups, KD, KH, KW] for `oihw` (default), [KD, KH, KW, C / groups, O]
    for `hwio` and [O, KD, KH, KW, C / groups] for `ohwi`.

    Workload: in = C, out = O, ij = OD * OH * OW, kij = KD * KH * KW, mb = N;
    MACs = N * O * OD * OH * OW * (C / groups) * KD * KH * KW.

    ```mlir
    %y = dsm.conv3d %x, %w {padding = array<i64: 1, 1, 1, 1, 1, 1>}
        : (tensor<1x3x16x112x112xf32>, tensor<64x3x3x3x3xf32>) -> tensor<1x64x16x112x112xf32>
    ```
  }];
  let arguments = (ins Dsm_Tensor:$input, Dsm_Tensor:$weight,
                       Optional<Dsm_Tensor>:$bias,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0, 0, 0}">:$padding,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1, 1}">:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups,
                       DefaultValuedAttr<Dsm_DataLayoutAttr, "::dsm::DataLayout::NCHW">:$data_layout,
                       DefaultValuedAttr<Dsm_KernelLayoutAttr, "::dsm::KernelLayout::OIHW">:$kernel_layout);
  let results = (outs Dsm_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Dsm_ConvTranspose2DOp : Dsm_GraphOp<"conv_transpose2d", [], ["getParameterOperands"]> {
  let summary = "2D transposed convolution (upsampling by a learned kernel)";
  let description = [{
    The gradient of `dsm.conv2d` with respect to its input, used forward
    (U-Net and GAN decoders, ONNX ConvTranspose): each input pixel scatters
    `weight` [C, O / groups, KH, KW] times its value into a `strides` times
    larger output, then `padding` [top, left, bottom, right] is cut from it
    and `output_padding` [H, W] added at the bottom and right:
    OH = (H - 1) * SH - top - bottom + DH * (KH - 1) + output_padding[0] + 1.
    `data_layout` is `nchw` (default) or `nhwc`; `bias` is per output
    channel.

    Workload: in = C, out = O, ij = H * W (the input pixels, where the work
    is), kij = KH * KW, mb = N; MACs = N * O * H * W * (C / groups) * KH *
    KW; the layer writes OH * OW pixels (`ij_out`).

    ```mlir
    %y = dsm.conv_transpose2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>}
        : (tensor<1x64x28x28xf32>, tensor<64x32x3x3xf32>) -> tensor<1x32x56x56xf32>
    ```
  }];
  let arguments = (ins Dsm_Tensor:$input, Dsm_Tensor:$weight,
                       Optional<Dsm_Tensor>:$bias,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$output_padding,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups,
                       DefaultValuedAttr<Dsm_DataLayoutAttr, "::dsm::DataLayout::NCHW">:$data_layout);
  let results = (outs Dsm_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Dsm_FullyConnectedOp : Dsm_GraphOp<"fully_connected", [], ["getParameterOperands"]> {
  let summary = "fully connected layer: activations times a weight matrix";
  let description = [{
    `result[..., o] = sum_i input[..., i] * weight[o, i] + bias[o]`: the weight
    is [out, in] as in `torch.nn.Linear`. The input is [N, ..., in]: the first
    dimension is the minibatch, the middle ones (tokens) become `ij`.

    Workload: in, out, ij = product of middle dims, mb = N.

    ```mlir
    %y = dsm.fully_connected %x, %w, %b
        : (tensor<1x4096xf32>, tensor<1000x4096xf32>, tensor<1000xf32>) -> tensor<1x1000xf32>
    ```
  }];
  let arguments = (ins Dsm_Tensor:$input, Dsm_Tensor:$weight,
                       Optional<Dsm_Tensor>:$bias);
  let results = (outs Dsm_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Dsm_MatMulOp : Dsm_GraphOp<"matmul"> {
  let summary = "batched product of two activations (attention)";
  let description = [{
    `[B.., M, K] x [B.., K, N] -> [B.., M, N]`, or `[B.., N, K]` on the right
    with `transpose_rhs` (Q times K-transposed in attention). Neither operand is
    a parameter.

    Workload: in = K, out = N, ij = M, mb = product of the batch dims.
  }];
  let arguments = (ins Dsm_Tensor:$lhs, Dsm_Tensor:$rhs, UnitAttr:$transpose_rhs);
  let results = (outs Dsm_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

def Dsm_LstmOp : Dsm_GraphOp<"lstm", [], ["getParameterOperands", "getBatchDim"]> {
  let summary = "LSTM layer over all timesteps (optionally bidirectional)";
  let description = [{
    Time-major input [T, N, input]. Weights in the ONNX layout: `weights`
    [D, 4H, input], `recurrence` [D, 4H, H], optional `bias` [D, 8H], with
    D = 2 when `bidirectional`. The result is [T, N, D * H].

    Workload: in = input + H (each step also reads its previous output),
    out = 4H gate pre-activations, mb = N, timesteps = T.
  }];
  let arguments = (ins Dsm_Tensor:$input, Dsm_Tensor:$weights,
                       Dsm_Tensor:$recurrence, Optional<Dsm_Tensor>:$bias,
                       UnitAttr:$bidirectional);
  let results = (outs Dsm_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $weights `,` $recurrence (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Auxiliary computations: elementwise
//===----------------------------------------------------------------------===//

/// A binary elementwise op. Its methods are the same for every such op but
/// the workload's kind: `kind`, a C++ expression of type `core::OpKind`
/// evaluated inside the op (DsmOps.cpp has the helpers it names).
class Dsm_BinaryOp<string mnemonic, string what,
                   list<string> workloadMethods = [],
                   string kind = "::dsm::core::OpKind::Elementwise">
    : Dsm_GraphOp<mnemonic, [],
                  !listconcat(["getParameterOperands"], workloadMethods)> {
  let summary = "elementwise " # what # " with broadcasting";
  let description = [{
    Elementwise }] # what # [{ of two tensors of the same element type under
    NumPy broadcasting (trailing dimensions aligned; a dimension of 1
    stretches).
  }];
  let arguments = (ins Dsm_Tensor:$lhs, Dsm_Tensor:$rhs);
  let results = (outs Dsm_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, ::std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return inferBinary<$cppClass>(loc, adaptor, types);
    }
    ::llvm::SmallVector<::mlir::Value> $cppClass::getParameterOperands() {
      return weightOperands(getOperation());
    }
    ::dsm::core::Workload $cppClass::getWorkload() {
      return elementwiseWorkload(getOperation(), }] # kind # [{,
                                 weightElements(getOperation()));
    }
  }];
}

// Classifying an add searches the graph (`classifyAdd` in DsmOps.cpp): its
// verifier checks the counts without it, and a pass over the function asks
// what the function's InputDependence found instead.
def Dsm_AddOp : Dsm_BinaryOp<"add", "addition",
                             ["workloadOverflows", "getWorkloadGiven"],
                             "classifyAdd(*this)"> {
  let description = [{
    Elementwise addition under NumPy broadcasting. When both operands are
    computed from the network's inputs (activations) it is a residual
    (shortcut) addition; when one of them is a parameter, or is computed from
    parameters and constants alone (a bias, a position embedding), a bias
    addition. Both are auxiliary computations of DeepSpatialMatrix §II-A.
  }];
}
def Dsm_SubOp : Dsm_BinaryOp<"sub", "subtraction">;
def Dsm_MulOp : Dsm_BinaryOp<"mul", "multiplication">;
def Dsm_DivOp : Dsm_BinaryOp<"div", "division">;

/// An elementwise op of one input: the result has the input's type and the
/// workload is of `kind` (a `core::OpKind`). Ops with attributes to check
/// (clamp, softmax) set `hasVerifier` and write their own verifier.
class Dsm_UnaryOp<string mnemonic, string what, string kind>
    : Dsm_GraphOp<mnemonic> {
  let summary = what;
  let description = what # [{ applied elementwise (an auxiliary computation
    run on the special-function units).}];
  let arguments = (ins Dsm_Tensor:$input);
  let results = (outs Dsm_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, ::std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return inferUnary<$cppClass>(loc, adaptor, types);
    }
    ::dsm::core::Workload $cppClass::getWorkload() {
      return elementwiseWorkload(getOperation(), ::dsm::core::OpKind::}]
      # kind # [{);
    }
  }];
}

def Dsm_ReluOp : Dsm_UnaryOp<"relu", "rectified linear unit max(x, 0)", "ReLU">;
def Dsm_SigmoidOp : Dsm_UnaryOp<"sigmoid", "logistic sigmoid 1 / (1 + exp(-x))", "Sigmoid">;
def Dsm_TanhOp : Dsm_UnaryOp<"tanh", "hyperbolic tangent", "Tanh">;
def Dsm_GeluOp : Dsm_UnaryOp<"gelu", "Gaussian error linear unit", "GELU">;
def Dsm_HardSigmoidOp : Dsm_UnaryOp<"hard_sigmoid", "piecewise-linear sigmoid clamp(x / 6 + 1 / 2, 0, 1)", "HardSigmoid">;
def Dsm_HardSwishOp : Dsm_UnaryOp<"hard_swish", "x * hard_sigmoid(x)", "HardSwish">;
// The pieces front ends spell composite functions with (torch.onnx's erf
// GELU, decomposed layer norms); --dsm-fuse-graph recognises the composites.
def Dsm_ExpOp : Dsm_UnaryOp<"exp", "exponential exp(x)", "Math">;
def Dsm_ErfOp : Dsm_UnaryOp<"erf", "Gauss error function erf(x)", "Math">;
def Dsm_SqrtOp : Dsm_UnaryOp<"sqrt", "square root", "Math">;
def Dsm_RsqrtOp : Dsm_UnaryOp<"rsqrt", "reciprocal square root 1 / sqrt(x)", "Math">;

def Dsm_ClampOp : Dsm_UnaryOp<"clamp", "clamp", "Clamp"> {
  let summary = "clamp into [min, max] (ReLU6 is clamp 0..6)";
  let description = [{ Clamps every element into [`min`, `max`]. }];
  let arguments = (ins Dsm_Tensor:$input, F64Attr:$min, F64Attr:$max);
  let results = (outs Dsm_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  // min <= max, after the shapes.
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Auxiliary computations: pooling, normalization, reductions
//===----------------------------------------------------------------------===//

class Dsm_PoolOp<string mnemonic, string what, string kind>
    : Dsm_GraphOp<mnemonic> {
  let summary = what # " pooling over a 2D or 3D window";
  let description = [{
    }] # what # [{ pooling of [N, C, H, W] (`nchw`, default) or [N, H, W, C]
    (`nhwc`) activations over a `kernel` window (N_ws of DeepSpatialMatrix §II-A) moved by
    `strides`, after `padding` [top, left, bottom, right]. `ceil_mode` rounds
    the output size up as in PyTorch. A `kernel` of three values pools
    [N, C, D, H, W] (or [N, D, H, W, C]) over a 3-D window; `strides` and
    `padding` [front, top, left, back, bottom, right] then have three and
    six values (the defaults are the 2-D ones).
  }];
  let arguments = (ins Dsm_Tensor:$input, DenseI64ArrayAttr:$kernel,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
                       UnitAttr:$ceil_mode,
                       DefaultValuedAttr<Dsm_DataLayoutAttr, "::dsm::DataLayout::NCHW">:$data_layout);
  let results = (outs Dsm_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, ::std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return inferPool<$cppClass>(loc, adaptor, types);
    }
    ::dsm::core::Workload $cppClass::getWorkload() {
      return poolWorkload(*this, ::dsm::core::OpKind::}] # kind # [{);
    }
  }];
}

def Dsm_MaxPoolOp : Dsm_PoolOp<"max_pool", "max", "MaxPool">;
def Dsm_AvgPoolOp : Dsm_PoolOp<"avg_pool", "average", "AvgPool">;

def Dsm_GlobalAvgPoolOp : Dsm_GraphOp<"global_avg_pool"> {
  let summary = "average over the whole feature map";
  let description = [{
    Averages each channel over all H x W positions, keeping unit spatial
    dimensions: [N, C, H, W] -> [N, C, 1, 1] (`nchw`) or [N, H, W, C] ->
    [N, 1, 1, C] (`nhwc`).
  }];
  let arguments = (ins Dsm_Tensor:$input,
                       DefaultValuedAttr<Dsm_DataLayoutAttr, "::dsm::DataLayout::NCHW">:$data_layout);
  let results = (outs Dsm_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Dsm_SoftmaxOp : Dsm_UnaryOp<"softmax", "softmax", "Softmax"> {
  let summary = "softmax along one axis";
  let description = [{
    `exp(x) / sum(exp(x))` along `axis` (negative counts from the end). Split
    across cores, the exponent sums are reduced between cores (DeepSpatialMatrix Fig. 5).
  }];
  let arguments = (ins Dsm_Tensor:$input, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Dsm_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  // The axis, after the shapes.
  let hasVerifier = 1;
}

def Dsm_BatchNormOp : Dsm_GraphOp<"batch_norm", [], ["getParameterOperands"]> {
  let summary = "batch normalization";
  let description = [{
    Normalizes `input` per channel (`axis`, default 1) with `mean` and
    `variance`, then scales and shifts. `scale` and `offset` are learnable
    parameters; `mean` and `variance` are running statistics (state, not
    parameters, as torchvision counts them). All four are 1D of the channel
    count.
  }];
  let arguments = (ins Dsm_Tensor:$input, Dsm_Tensor:$scale, Dsm_Tensor:$offset,
                       Dsm_Tensor:$mean, Dsm_Tensor:$variance,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Dsm_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $scale `,` $offset `,` $mean `,` $variance attr-dict `:` functional-type(operands, results)
  }];
}

def Dsm_LayerNormOp : Dsm_GraphOp<"layer_norm", [], ["getParameterOperands"]> {
  let summary = "layer normalization over the trailing dimensions";
  let description = [{
    Normalizes over the dimensions from `axis` (default -1, the last) to the
    end, then applies the learnable `scale` and `offset`, both shaped like
    those normalized dimensions.
  }];
  let arguments = (ins Dsm_Tensor:$input, Dsm_Tensor:$scale, Dsm_Tensor:$offset,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Dsm_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $scale `,` $offset attr-dict `:` functional-type(operands, results)
  }];
}

def Dsm_RmsNormOp : Dsm_GraphOp<"rms_norm", [], ["getParameterOperands"]> {
  let summary = "RMS normalization over the trailing dimensions";
  let description = [{
    `x / sqrt(mean(x^2) + epsilon) * scale` over the dimensions from `axis`
    (default -1, the last) to the end: RMSNorm (Zhang & Sennrich 2019), as
    Llama's LlamaRMSNorm computes it, with the learnable `scale` shaped like
    those normalized dimensions.
  }];
  let arguments = (ins Dsm_Tensor:$input, Dsm_Tensor:$scale,
                       DefaultValuedAttr<F64Attr, "1.0e-6">:$epsilon,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Dsm_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $scale attr-dict `:` functional-type(operands, results)
  }];
}

def Dsm_ReduceOp : Dsm_GraphOp<"reduce"> {
  let summary = "sum, mean, max or min over some axes";
  let description = [{
    Reduces `input` over `axes` (distinct, negative counts from the end),
    keeping them as size 1 when `keep_dims` is set.
  }];
  let arguments = (ins Dsm_Tensor:$input, Dsm_ReduceKindAttr:$kind,
                       DenseI64ArrayAttr:$axes, UnitAttr:$keep_dims);
  let results = (outs Dsm_Tensor:$result);
  let assemblyFormat = "$kind $input attr-dict `:` functional-type(operands, results)";
}

def Dsm_EmbeddingOp : Dsm_GraphOp<"embedding", [], ["getParameterOperands"]> {
  let summary = "embedding lookup";
  let description = [{
    Gathers rows of `table` [V, D] for every id in `indices`: the result has
    the shape of `indices` followed by D.
  }];
  let arguments = (ins Dsm_IdTensor:$indices, Dsm_Tensor:$table);
  let results = (outs Dsm_Tensor:$result);
  let assemblyFormat = [{
    $indices `,` $table attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Dsm_ConcatOp : Dsm_GraphOp<"concat", [], ["getParameterOperands"]> {
  let summary = "concatenation along one axis";
  let description = [{
    Joins tensors of equal rank and element type along `axis`; all other
    dimensions must agree, except that along an axis other than 0 an input
    of one sample (dimension 0 of size 1) is broadcast over the batch of the
    others: a parameter such as ViT's class token, which the source expands
    over the batch, stays one when the model is re-batched. Integer tensors
    (ids, positions, masks) are joined as any other data.
  }];
  let arguments = (ins Variadic<Dsm_DataTensor>:$inputs, I64Attr:$axis);
  let results = (outs Dsm_DataTensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
}

def Dsm_ReshapeOp : Dsm_GraphOp<"reshape"> {
  let summary = "reshape with ONNX semantics (0 copies a dimension, -1 infers one)";
  let description = [{
    The result shape is `shape`, where 0 copies the input's dimension at the
    same position and a single -1 takes whatever size keeps the element count.
    Writing the batch dimension as 0 keeps the model re-batchable:
    `shape = array<i64: 0, -1>` flattens [N, C, H, W] to [N, C*H*W].
  }];
  let arguments = (ins Dsm_DataTensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs Dsm_DataTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Dsm_TransposeOp : Dsm_GraphOp<"transpose", [], ["getBatchDim"]> {
  let summary = "permutation of dimensions";
  let description = [{ Result dimension i is input dimension `permutation[i]`. }];
  let arguments = (ins Dsm_DataTensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Dsm_DataTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Dsm_SliceOp : Dsm_GraphOp<"slice"> {
  let summary = "contiguous slice";
  let description = [{
    Takes `sizes[i]` elements from `offsets[i]` along every dimension; a size
    of -1 runs to the end (keeping the slice re-batchable).
  }];
  let arguments = (ins Dsm_DataTensor:$input, DenseI64ArrayAttr:$offsets,
                       DenseI64ArrayAttr:$sizes);
  let results = (outs Dsm_DataTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Imported operations that were not recognised
//===----------------------------------------------------------------------===//

def Dsm_OpaqueOp : Dsm_Op<"opaque", [Pure,
    DeclareOpInterfaceMethods<Dsm_WorkloadOpInterface, ["getParameterOperands"]>]> {
  let summary = "an imported operation known only by its element count";
  let description = [{
    What an importer keeps, in permissive mode, of an operation it could not
    classify: the original op name, its operands and result, and an estimate
    of special-function operations per result element. It is charged as
    auxiliary work so that nothing is silently dropped from the workload;
    operands that are `dsm.weight`s (PRelu's slope) count as parameters.
  }];
  let arguments = (ins StrAttr:$origin, Variadic<AnyRankedTensor>:$inputs,
                       DefaultValuedAttr<F64Attr, "1.0">:$ops_per_element);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $origin `(` $inputs `)` attr-dict `:` functional-type($inputs, results)
  }];
  let hasVerifier = 1;
}


//===----------------------------------------------------------------------===//
// Expanded and mapped networks
//===----------------------------------------------------------------------===//

def Dsm_LayerPassOp : Dsm_Op<"layer_pass", [Pure, AttrSizedOperandSegments]> {
  let summary = "one pass (FWD, BWD or UPD) of one layer, before mapping";
  let description = [{
    Produced by `--dsm-expand-training`: a layer -- a primary computation and
    its fused auxiliary computations, or auxiliary computations alone -- in
    one training pass, with its workload. The operands keep the real
    dependencies:
    - `fwd`: `ins` are the activations the layer reads; results are the
      activations it produces;
    - `bwd`: `ins` are the errors of the layer's outputs (from the BWD of the
      layers that read them); results are the errors of its activation
      inputs;
    - `upd`: `ins` are the layer's FWD activation inputs followed by the
      errors of its outputs and, for a parameter later layers also read, the
      sum of their shares of its gradient; results are the gradients of its
      `weights` (for a shared parameter, the sum up to this layer: its first
      reader's is the whole gradient).
    `weights` are the parameters the pass reads.

    Syntax (as the declarative format would write it; printed and parsed by
    hand, `parsePassOp` and `printPassOp` in DsmOps.cpp):

    ```
    operation ::= `dsm.layer_pass` $layer $pass (`ins` `(` $ins^ `)`)?
                  (`weights` `(` $weights^ `)`)? attr-dict
                  `:` functional-type(operands, results)
    ```

    ```mlir
    %y = dsm.layer_pass "conv1" fwd ins(%x) weights(%w) {workload = #dsm.workload<...>}
        : (tensor<512x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<512x64x112x112xf32>
    ```
  }];
  let arguments = (ins StrAttr:$layer, Dsm_TrainingPassAttr:$pass,
                       Variadic<AnyRankedTensor>:$ins,
                       Variadic<AnyRankedTensor>:$weights,
                       Dsm_WorkloadAttr:$workload,
                       // The spatial mapping --dsm-select-mapping chose (the
                       // contract --dsm-lower-tiled reads): the first five
                       // go together; transfers and alternatives add to them.
                       OptionalAttr<Dsm_ParallelismAttr>:$parallelism,
                       OptionalAttr<Dsm_SplitAttr>:$chip_split,
                       OptionalAttr<Dsm_SplitAttr>:$core_split,
                       OptionalAttr<Dsm_ArrayMapAttr>:$array,
                       OptionalAttr<Dsm_CyclesAttr>:$cycles,
                       OptionalAttr<Dsm_TransfersAttr>:$transfers,
                       OptionalAttr<Dsm_AlternativesAttr>:$alternatives,
                       OptionalAttr<Dsm_MemoryDecisionAttr>:$memory,
                       OptionalAttr<Dsm_ChipBlockAttr>:$block);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  // $layer $pass (`ins` `(` $ins^ `)`)? (`weights` `(` $weights^ `)`)?
  // attr-dict `:` functional-type(operands, results), written in DsmOps.cpp
  // (parsePassOp, printPassOp).
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$results, "::llvm::StringRef":$layer,
                   "TrainingPass":$pass, "::mlir::ValueRange":$ins,
                   "::mlir::ValueRange":$weights, "WorkloadAttr":$workload), [{
      build($_builder, $_state, results, $_builder.getStringAttr(layer),
            TrainingPassAttr::get($_builder.getContext(), pass), ins, weights,
            workload, {}, {}, {}, {}, {}, {}, {}, {}, {});
    }]>,
  ];
  let extraClassDeclaration = [{
    /// Whether --dsm-select-mapping has recorded a mapping on the op.
    bool isMapped() { return static_cast<bool>(getParallelismAttr()); }
  }];
}

def Dsm_TiledPassOp : Dsm_Op<"tiled_pass", [Pure, AttrSizedOperandSegments]> {
  let summary = "one pass of one layer, mapped onto the system";
  let description = [{
    A `dsm.layer_pass` with its spatial mapping (DeepSpatialMatrix Fig. 4):
    the parallelism on the torus, the chip split (ChipD = work / chip_split),
    the core split (CoreD = ChipD / core_split), the PE-array mapping (ArrayD),
    the cycles the performance model estimates (by the categories of its
    Fig. 13), the transfer groups it charged, on FWD passes, the layer's
    cycles under each parallelism it could have used (`alternatives`), and
    the memory optimizations it uses (`memory`, absent for none) and the
    block of the torus it runs on (`block`, absent for the whole torus).

    The verifier checks the op alone: the pass structure, and that the chip
    and core splits do not cut a dimension finer than its size. Whether the
    mapping is legal on the target system and costs what it says is a
    cross-op question answered by `--dsm-verify-mapping`, which reads the
    module's `dsm.system` and re-runs the performance model.

    Communication between chips is explicit around these ops:
    `dsm.relayout`, `dsm.rotate`, `dsm.grad_reduce`, `dsm.weight_broadcast`.

    Syntax (that of `dsm.layer_pass`):

    ```
    operation ::= `dsm.tiled_pass` $layer $pass (`ins` `(` $ins^ `)`)?
                  (`weights` `(` $weights^ `)`)? attr-dict
                  `:` functional-type(operands, results)
    ```
  }];
  let arguments = (ins StrAttr:$layer, Dsm_TrainingPassAttr:$pass,
                       Variadic<AnyRankedTensor>:$ins,
                       Variadic<AnyRankedTensor>:$weights,
                       Dsm_WorkloadAttr:$workload,
                       Dsm_ParallelismAttr:$parallelism,
                       Dsm_SplitAttr:$chip_split,
                       Dsm_SplitAttr:$core_split,
                       Dsm_ArrayMapAttr:$array,
                       Dsm_CyclesAttr:$cycles,
                       OptionalAttr<Dsm_TransfersAttr>:$transfers,
                       OptionalAttr<Dsm_AlternativesAttr>:$alternatives,
                       OptionalAttr<Dsm_MemoryDecisionAttr>:$memory,
                       OptionalAttr<Dsm_ChipBlockAttr>:$block);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  // $layer $pass (`ins` `(` $ins^ `)`)? (`weights` `(` $weights^ `)`)?
  // attr-dict `:` functional-type(operands, results), written in DsmOps.cpp
  // (parsePassOp, printPassOp).
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The configuration the attributes describe.
    ::dsm::core::MappingConfig getConfig();
  }];
}

class Dsm_TransferOp<string mnemonic, string what> : Dsm_Op<mnemonic,
    [Pure, SameOperandsAndResultType]> {
  let summary = what;
  let arguments = (ins AnyRankedTensor:$input, Dsm_TransferAttr:$transfer);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Dsm_RelayoutOp : Dsm_TransferOp<"relayout",
    "re-lays out activations or errors between two parallelisms"> {
  let description = [{
    When a consumer uses another parallelism than its producer, every chip
    sends a distinct portion of its data to the chips of its row and/or
    column whose role changes (DeepSpatialMatrix Fig. 5 RelayoutAlongX/Y; non-overlapped).
  }];
  let arguments = (ins AnyRankedTensor:$input, Dsm_ParallelismAttr:$from,
                       Dsm_ParallelismAttr:$to, Dsm_TransferAttr:$transfer);
}

def Dsm_RotateOp : Dsm_TransferOp<"rotate",
    "rotates features around the torus (model parallelism)"> {
  let description = [{
    Each chip passes its slice of the features to its X neighbour every
    iteration and to its Y neighbour every M-th (DeepSpatialMatrix Fig. 5
    RotateAlongX/Y), so that every chip sees all features. Overlapped with
    the computation in FWD and UPD (`overlapped`), not in BWD.
  }];
  let arguments = (ins AnyRankedTensor:$input, UnitAttr:$overlapped,
                       Dsm_TransferAttr:$transfer);
}

def Dsm_GradReduceOp : Dsm_TransferOp<"grad_reduce",
    "sums weight gradients over the chips that split the minibatch"> {
  let description = [{
    Data parallelism (and the hybrids along their data direction): partial
    weight gradients are reduced along X, then along Y, pipelined (DeepSpatialMatrix Fig. 5
    SumofGradAlongX/Y; non-overlapped). `transfer` holds the whole pipelined
    group of the reduction and the weight broadcast that follows.
  }];
}

def Dsm_WeightBroadcastOp : Dsm_TransferOp<"weight_broadcast",
    "sends the updated weights back to every chip"> {
  let description = [{
    After the reduction, the updated weights go back along Y, then X
    (DeepSpatialMatrix Fig. 5 BroadcastWAlongY/X), pipelined with the reduction whose
    `dsm.grad_reduce` carries the group's cost; `transfer` shows the bytes
    of the broadcast alone.
  }];
}

//===----------------------------------------------------------------------===//
// Device placement
//===----------------------------------------------------------------------===//

def Dsm_DeviceTransferOp : Dsm_Op<"device_transfer",
    [Pure, SameOperandsAndResultType]> {
  let summary = "moves a tensor from the device that produced it to another";
  let description = [{
    Inserted by `--dsm-place-devices` where an operation reads a value
    produced on another device: one per (producer, destination device),
    shared by every consumer on that device, as the execution simulator sends
    it (Andreassen, "Automatic Model Parallelism for Deep Learning Using
    Execution Time Modelling and Evolutionary Computation", Algorithm 6). The
    tensor travels the fewest-hop route between the two devices of the
    system; its gradient goes back the same way in training.

    ```mlir
    %1 = dsm.device_transfer %0 {from = #dsm.device<1>, to = #dsm.device<2>} : tensor<8x64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, Dsm_DeviceAttr:$from,
                       Dsm_DeviceAttr:$to);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

#endif // DSM_DIALECT_DSMOPS_TD

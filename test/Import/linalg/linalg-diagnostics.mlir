// Diagnostics of --dsm-import-linalg (importers/linalg/ImportLinalg.cpp, and
// those of the shared importer only linalg input reaches) that no other test
// triggers. Strict mode (the default): what is not recognised is an error
// located at the operation, with a note about permissive mode.
// RUN: dsm-opt %s -split-input-file -verify-diagnostics --dsm-import-linalg

// A reshape into two dynamic dimensions has no size to infer.
func.func @reshape_two_dynamic(%x: tensor<4x8xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{cannot import a reshape to 'tensor<?x?xf32>'}}
  %y = tensor.cast %x : tensor<4x8xf32> to tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// An activation read at a shifted index (d1 + 1) is no dsm operand.
func.func @shifted_operand(%x: tensor<4x9xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @+1 {{cannot import the operand indexing (d0, d1) -> (d0, d1 + 1)}}
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1 + 1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x9xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// An activation read along its diagonal (d0, d0) is no dsm operand.
func.func @diagonal_operand(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  // expected-error @+1 {{cannot import an operand indexed twice by a loop}}
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// An elementwise op with two results is not a scalar function.
func.func @two_results(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+2 {{cannot import 'linalg.generic': elementwise op with several results, a non-identity result indexing, or a body that is not a plain scalar function}}
  // expected-note @+1 {{mode=permissive}}
  %y:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e, %e : tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32, %p: f32):
    %n = arith.negf %a : f32
    linalg.yield %a, %n : f32, f32
  } -> (tensor<4xf32>, tensor<4xf32>)
  return %y#0, %y#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A bias read from row 0 of a [2, 4] constant has 8 elements for 4.
func.func @bias_row_of_constant(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  // expected-error @+1 {{cannot declare the bias 'tensor<2x4xf32>' as a weight of shape [4]}}
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %c : tensor<4x4xf32>, tensor<2x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// A weight (here an added constant) in a type dsm lacks is refused.
func.func @f64_bias(%x: tensor<4xf64>) -> tensor<4xf64> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf64>
  %e = tensor.empty() : tensor<4xf64>
  // expected-error @+1 {{element type 'f64' is not supported by dsm (f32, f16, bf16, i8)}}
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %c : tensor<4xf64>, tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %s = arith.addf %a, %b : f64
    linalg.yield %s : f64
  } -> tensor<4xf64>
  return %y : tensor<4xf64>
}

// -----

// A batch normalization whose mean is an activation, not a constant.
func.func @batch_norm_activation_mean(%x: tensor<1x4x2x2xf32>, %mean: tensor<4xf32>) -> tensor<1x4x2x2xf32> {
  %var = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %gamma = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %beta = arith.constant dense<[1.0, 2.0, 3.0, 5.0]> : tensor<4xf32>
  %e = tensor.empty() : tensor<1x4x2x2xf32>
  // expected-error @+1 {{batch normalization statistics must be per-channel constants}}
  %y = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %mean, %var, %gamma, %beta : tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<1x4x2x2xf32>) {
  ^bb0(%a: f32, %m: f32, %v: f32, %g: f32, %b: f32, %o: f32):
    %eps = arith.constant 1.0e-5 : f32
    %d = arith.subf %a, %m : f32
    %ve = arith.addf %v, %eps : f32
    %r = math.rsqrt %ve : f32
    %n = arith.mulf %d, %r : f32
    %s = arith.mulf %n, %g : f32
    %t = arith.addf %s, %b : f32
    linalg.yield %t : f32
  } -> tensor<1x4x2x2xf32>
  return %y : tensor<1x4x2x2xf32>
}

// -----

// A quantized convolution (zero points as extra inputs) is convolution-like
// but has no inferable convolution dimensions.
func.func @quantized_conv(%x: tensor<1x8x8x4xi8>) -> tensor<1x6x6x8xi32> {
  %w = arith.constant dense<1> : tensor<3x3x4x8xi8>
  %zp = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x6x6x8xi32>
  %f = linalg.fill ins(%zp : i32) outs(%e : tensor<1x6x6x8xi32>) -> tensor<1x6x6x8xi32>
  // expected-error @+2 {{cannot import 'linalg.conv_2d_nhwc_hwcf_q': convolution-like op with an unsupported structure}}
  // expected-note @+1 {{mode=permissive}}
  %y = linalg.conv_2d_nhwc_hwcf_q ins(%x, %w, %zp, %zp : tensor<1x8x8x4xi8>, tensor<3x3x4x8xi8>, i32, i32) outs(%f : tensor<1x6x6x8xi32>) -> tensor<1x6x6x8xi32>
  return %y : tensor<1x6x6x8xi32>
}

// -----

// A window body reading a scalar argument is no scalar function of the
// window's operands.
func.func @window_body_captures(%x: tensor<1x4x8x8xf32>, %s: f32) -> tensor<1x4x4x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %w = tensor.empty() : tensor<2x2xf32>
  // expected-error @+2 {{cannot import 'linalg.generic': window body not recognised}}
  // expected-note @+1 {{mode=permissive}}
  %y = linalg.generic {indexing_maps = [affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>, affine_map<(n, c, oh, ow, kh, kw) -> (kh, kw)>, affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%f : tensor<1x4x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %s : f32
    %r = arith.maximumf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// A convolution without a batch dimension ([C, H, W]).
func.func @conv_without_batch(%x: tensor<4x8x8xf32>) -> tensor<8x6x6xf32> {
  %w = arith.constant dense<1.0> : tensor<8x4x3x3xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x6x6xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x6x6xf32>) -> tensor<8x6x6xf32>
  // expected-error @+2 {{cannot import 'linalg.generic': convolution with an unsupported dimension structure}}
  // expected-note @+1 {{mode=permissive}}
  %y = linalg.generic {indexing_maps = [affine_map<(f, oh, ow, c, kh, kw) -> (c, oh + kh, ow + kw)>, affine_map<(f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>, affine_map<(f, oh, ow, c, kh, kw) -> (f, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<4x8x8xf32>, tensor<8x4x3x3xf32>) outs(%f : tensor<8x6x6xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x6x6xf32>
  return %y : tensor<8x6x6xf32>
}

// -----

// A max pooling over [H, W] alone, without batch and channels.
func.func @pool_without_batch(%x: tensor<8x8xf32>) -> tensor<4x4xf32> {
  %z = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %w = tensor.empty() : tensor<2x2xf32>
  // expected-error @+2 {{cannot import 'linalg.generic': pooling with an unsupported dimension structure}}
  // expected-note @+1 {{mode=permissive}}
  %y = linalg.generic {indexing_maps = [affine_map<(oh, ow, kh, kw) -> (oh * 2 + kh, ow * 2 + kw)>, affine_map<(oh, ow, kh, kw) -> (kh, kw)>, affine_map<(oh, ow, kh, kw) -> (oh, ow)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<8x8xf32>, tensor<2x2xf32>) outs(%f : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %r = arith.maximumf %c, %a : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// A window whose rows slide with the output columns (oh + ow) and whose
// columns are the window alone (kh + kw): no filter loop per image dimension.
func.func @window_indexing(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %z = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %w = tensor.empty() : tensor<2x2xf32>
  // expected-error @+2 {{cannot import 'linalg.generic': window indexing not recognised}}
  // expected-note @+1 {{mode=permissive}}
  %y = linalg.generic {indexing_maps = [affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + ow, kh + kw)>, affine_map<(n, c, oh, ow, kh, kw) -> (kh, kw)>, affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%f : tensor<1x4x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %r = arith.maximumf %c, %a : f32
    linalg.yield %r : f32
  } -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// A pooling in the NHCW layout.
func.func @pool_nhcw(%x: tensor<1x8x4x8xf32>) -> tensor<1x4x4x4xf32> {
  %z = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %w = tensor.empty() : tensor<2x2xf32>
  // expected-error @+2 {{cannot import 'linalg.generic': only NCHW and NHWC (1-D: NCW and NWC) layouts are supported}}
  // expected-note @+1 {{mode=permissive}}
  %y = linalg.generic {indexing_maps = [affine_map<(n, c, oh, ow, kh, kw) -> (n, oh * 2 + kh, c, ow * 2 + kw)>, affine_map<(n, c, oh, ow, kh, kw) -> (kh, kw)>, affine_map<(n, c, oh, ow, kh, kw) -> (n, oh, c, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x4x8xf32>, tensor<2x2xf32>) outs(%f : tensor<1x4x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %r = arith.maximumf %c, %a : f32
    linalg.yield %r : f32
  } -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// A dilated max pooling.
func.func @dilated_pool(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x6x6xf32> {
  %z = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %w = tensor.empty() : tensor<2x2xf32>
  // expected-error @+2 {{cannot import 'linalg.pooling_nchw_max': dilated pooling is not supported}}
  // expected-note @+1 {{mode=permissive}}
  %y = linalg.pooling_nchw_max {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%f : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

// A convolution that reads nothing but low padding (10 rows and columns for
// a 3x3 window and 2 outputs): no padding of the dsm op gives its declared
// output: a located error names both shapes.
func.func @conv_reads_only_padding(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %w = arith.constant dense<1.0> : tensor<1x1x3x3xf32>
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 10, 10] high[0, 0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x1x4x4xf32> to tensor<1x1x14x14xf32>
  %e = tensor.empty() : tensor<1x1x2x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  // expected-error @+1 {{cannot import 'linalg.conv_2d_nchw_fchw': it declares a result of shape [1, 1, 2, 2] but as 'dsm.conv2d' it computes [1, 1, 12, 12] (an operation that reads only part of its input, which dsm cannot express)}}
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x1x14x14xf32>, tensor<1x1x3x3xf32>) outs(%f : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  return %y : tensor<1x1x2x2xf32>
}

// -----

// The named 3-D convolutions need a constant filter too.
func.func @conv3d_filter_argument(%x: tensor<1x2x4x4x4xf32>, %w: tensor<4x2x3x3x3xf32>) -> tensor<1x4x2x2x2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x2x2x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x2x2x2xf32>) -> tensor<1x4x2x2x2xf32>
  // expected-error @+2 {{cannot import 'linalg.conv_3d_ncdhw_fcdhw': the filter is not a constant}}
  // expected-note @+1 {{mode=permissive}}
  %y = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>} ins(%x, %w : tensor<1x2x4x4x4xf32>, tensor<4x2x3x3x3xf32>) outs(%f : tensor<1x4x2x2x2xf32>) -> tensor<1x4x2x2x2xf32>
  return %y : tensor<1x4x2x2x2xf32>
}

// -----

// A boolean product (and, then or) is a contraction to linalg, not to dsm.
func.func @boolean_contraction(%a: tensor<4x8xi1>, %b: tensor<8x4xi1>) -> tensor<4x4xi1> {
  %z = arith.constant false
  %e = tensor.empty() : tensor<4x4xi1>
  %f = linalg.fill ins(%z : i1) outs(%e : tensor<4x4xi1>) -> tensor<4x4xi1>
  // expected-error @+2 {{cannot import 'linalg.generic': contraction body is not a multiply-accumulate}}
  // expected-note @+1 {{mode=permissive}}
  %y = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<4x8xi1>, tensor<8x4xi1>) outs(%f : tensor<4x4xi1>) {
  ^bb0(%x: i1, %w: i1, %c: i1):
    %m = arith.andi %x, %w : i1
    %s = arith.ori %c, %m : i1
    linalg.yield %s : i1
  } -> tensor<4x4xi1>
  return %y : tensor<4x4xi1>
}

// -----

// A weight read through a copy that shifts its columns (d1 + 1): the
// contraction's operand indexing, seen through the copy, is no permutation.
func.func @shifted_weight_view(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %c = arith.constant dense<1.0> : tensor<8x5xf32>
  %e0 = tensor.empty() : tensor<8x4xf32>
  %v = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1 + 1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<8x5xf32>) outs(%e0 : tensor<8x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<8x4xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  // expected-error @+2 {{cannot import 'linalg.matmul': contraction indexing not supported}}
  // expected-note @+1 {{mode=permissive}}
  %y = linalg.matmul ins(%x, %v : tensor<4x8xf32>, tensor<8x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// A gather from a 1-D table (one index): not the embedding's shape.
func.func @gather_one_index(%ids: tensor<1x4xi64>) -> tensor<1x4x8xf32> {
  %table = arith.constant dense<1.0> : tensor<100xf32>
  %e = tensor.empty() : tensor<1x4x8xf32>
  // expected-error @+2 {{cannot import 'linalg.generic': a gather other than an embedding lookup (ids, then table[index_cast(id), linalg.index])}}
  // expected-note @+1 {{mode=permissive}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ids : tensor<1x4xi64>) outs(%e : tensor<1x4x8xf32>) {
  ^bb0(%id: i64, %o: f32):
    %i = arith.index_cast %id : i64 to index
    %v = tensor.extract %table[%i] : tensor<100xf32>
    linalg.yield %v : f32
  } -> tensor<1x4x8xf32>
  return %r : tensor<1x4x8xf32>
}

// -----

// An embedding lookup whose ids are read transposed.
func.func @embedding_transposed_ids(%ids: tensor<4x1xi64>) -> tensor<1x4x8xf32> {
  %table = arith.constant dense<1.0> : tensor<100x8xf32>
  %e = tensor.empty() : tensor<1x4x8xf32>
  // expected-error @+2 {{cannot import 'linalg.generic': embedding lookup with an unsupported indexing}}
  // expected-note @+1 {{mode=permissive}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ids : tensor<4x1xi64>) outs(%e : tensor<1x4x8xf32>) {
  ^bb0(%id: i64, %o: f32):
    %i = arith.index_cast %id : i64 to index
    %j = linalg.index 2 : index
    %v = tensor.extract %table[%i, %j] : tensor<100x8xf32>
    linalg.yield %v : f32
  } -> tensor<1x4x8xf32>
  return %r : tensor<1x4x8xf32>
}

// -----

// A vector constant the function returns is data, but no tensor: a located
// error, not a crash.
func.func @vector_constant_returned() -> vector<4xf32> {
  // expected-error @+1 {{cannot import the constant 'vector<4xf32>' as a tensor}}
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : vector<4xf32>
  return %c : vector<4xf32>
}

// -----

// A fully connected layer whose output features are a dynamic dimension (the
// weight is read through a cast that hides its size).
func.func @fc_dynamic_features(%x: tensor<4x8xf32>) -> tensor<4x?xf32> {
  %w = arith.constant dense<1.0> : tensor<8x6xf32>
  %v = tensor.cast %w : tensor<8x6xf32> to tensor<8x?xf32>
  %c1 = arith.constant 1 : index
  %n = tensor.dim %v, %c1 : tensor<8x?xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<4x?xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x?xf32>) -> tensor<4x?xf32>
  // expected-error @+1 {{cannot import a contraction with dynamic dimension d1}}
  %y = linalg.matmul ins(%x, %v : tensor<4x8xf32>, tensor<8x?xf32>) outs(%f : tensor<4x?xf32>) -> tensor<4x?xf32>
  return %y : tensor<4x?xf32>
}

// -----

// A product of two activations written transposed ([N, M]) whose N is a
// dynamic dimension: only a leading (batch) dimension may be dynamic.
func.func @matmul_transposed_dynamic(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) -> tensor<?x4xf32> {
  %v = tensor.cast %b : tensor<8x6xf32> to tensor<8x?xf32>
  %c1 = arith.constant 1 : index
  %n = tensor.dim %v, %c1 : tensor<8x?xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  // expected-error @+1 {{cannot import a contraction with dynamic dimension d1}}
  %y = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (n, m)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %v : tensor<4x8xf32>, tensor<8x?xf32>) outs(%f : tensor<?x4xf32>) {
  ^bb0(%x: f32, %w: f32, %o: f32):
    %m = arith.mulf %x, %w : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// A reduced loop only the left operand reads: b * sum over a row, a sum
// inside the product, which no dsm.matmul computes (mode=permissive keeps
// it as dsm.opaque).
#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @sum_inside_product(%a: tensor<4x8xf32>, %b: tensor<4xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{cannot import 'linalg.generic': a contraction whose reduced loops only one operand reads (a sum inside the product)}}
  // expected-note @+1 {{mode=permissive}}
  %r = linalg.generic {indexing_maps = [#rows, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%a, %b : tensor<4x8xf32>, tensor<4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// RUN: dsm-opt %s -split-input-file --dsm-import-linalg | FileCheck %s

// A zero pad folds into the padding, a broadcast bias init into the bias
// (torch-mlir); weights are named after their layer.
// CHECK-LABEL: func.func @conv_nchw_pad_bias
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x32x32xf32>)
// CHECK-DAG:     %[[W:.*]] = dsm.weight "conv2d_0.weight" : tensor<8x3x3x3xf32>
// CHECK-DAG:     %[[B:.*]] = dsm.weight "conv2d_0.bias" : tensor<8xf32>
// CHECK:         %[[Y:.*]] = dsm.conv2d %[[X]], %[[W]], %[[B]] {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
// CHECK-SAME:      -> tensor<2x8x16x16xf32>
// CHECK-NEXT:    return %[[Y]]
#bias = affine_map<(d0, d1, d2, d3) -> (d1)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_nchw_pad_bias(%x: tensor<2x3x32x32xf32>) -> tensor<2x8x16x16xf32> {
  %w = arith.constant dense_resource<__elided__> : tensor<8x3x3x3xf32>
  %b = arith.constant dense_resource<__elided__> : tensor<8xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x3x32x32xf32> to tensor<2x3x34x34xf32>
  %e = tensor.empty() : tensor<2x8x16x16xf32>
  %init = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<8xf32>) outs(%e : tensor<2x8x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x8x16x16xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%p, %w : tensor<2x3x34x34xf32>, tensor<8x3x3x3xf32>) outs(%init : tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32>
  return %y : tensor<2x8x16x16xf32>
}

// -----

// TF's NHWC/HWCF convolution with the bias added afterwards from a
// broadcast tensor, then ReLU as maximumf with a zero tensor.
// CHECK-LABEL: func.func @conv_nhwc_hwcf_bias_relu
// CHECK:         %[[W:.*]] = dsm.weight "conv2d_0.weight" : tensor<3x3x4x8xf32>
// CHECK:         %[[B:.*]] = dsm.weight "conv2d_0.bias" : tensor<8xf32>
// CHECK:         %[[Y:.*]] = dsm.conv2d %{{.*}}, %[[W]], %[[B]] {data_layout = #dsm.layout<nhwc>, kernel_layout = #dsm.kernel_layout<hwio>, strides = array<i64: 2, 2>}
// CHECK:         dsm.relu %[[Y]] : tensor<1x7x7x8xf32>
#c = affine_map<(d0, d1, d2, d3) -> (d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_nhwc_hwcf_bias_relu(%x: tensor<1x16x16x4xf32>) -> tensor<1x7x7x8xf32> {
  %w = arith.constant dense<0.5> : tensor<3x3x4x8xf32>
  %b = arith.constant dense<0.1> : tensor<8xf32>
  %zeros = arith.constant dense<0.0> : tensor<1x7x7x8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x7x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x16x16x4xf32>, tensor<3x3x4x8xf32>) outs(%f : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
  %bb = linalg.generic {indexing_maps = [#c, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<8xf32>) outs(%e : tensor<1x7x7x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x7x7x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y, %bb : tensor<1x7x7x8xf32>, tensor<1x7x7x8xf32>) outs(%e : tensor<1x7x7x8xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %0 = arith.addf %in, %in2 : f32
    linalg.yield %0 : f32
  } -> tensor<1x7x7x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s, %zeros : tensor<1x7x7x8xf32>, tensor<1x7x7x8xf32>) outs(%e : tensor<1x7x7x8xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %0 = arith.maximumf %in, %in2 : f32
    linalg.yield %0 : f32
  } -> tensor<1x7x7x8xf32>
  return %r : tensor<1x7x7x8xf32>
}

// -----

// CHECK-LABEL: func.func @conv_nhwc_fhwc_dilated
// CHECK:         dsm.weight "conv2d_0.weight" : tensor<8x3x3x4xf32>
// CHECK:         dsm.conv2d {{.*}} {data_layout = #dsm.layout<nhwc>, dilations = array<i64: 2, 2>, kernel_layout = #dsm.kernel_layout<ohwi>}
// CHECK-SAME:      -> tensor<1x12x12x8xf32>
func.func @conv_nhwc_fhwc_dilated(%x: tensor<1x16x16x4xf32>) -> tensor<1x12x12x8xf32> {
  %w = arith.constant dense_resource<__elided__> : tensor<8x3x3x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x12x12x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x12x12x8xf32>) -> tensor<1x12x12x8xf32>
  %y = linalg.conv_2d_nhwc_fhwc {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x16x4xf32>, tensor<8x3x3x4xf32>) outs(%f : tensor<1x12x12x8xf32>) -> tensor<1x12x12x8xf32>
  return %y : tensor<1x12x12x8xf32>
}

// -----

// Depthwise: groups = channels; the [C, KH, KW] kernel (after torch-mlir's
// collapse of [C, 1, KH, KW]) is declared OIHW.
// CHECK-LABEL: func.func @depthwise_nchw_chw
// CHECK:         %[[W:.*]] = dsm.weight "conv2d_0.weight" : tensor<16x1x3x3xf32>
// CHECK:         dsm.conv2d %{{.*}}, %[[W]] {groups = 16 : i64, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
// CHECK-SAME:      -> tensor<1x16x56x56xf32>
func.func @depthwise_nchw_chw(%x: tensor<1x16x112x112xf32>) -> tensor<1x16x56x56xf32> {
  %w = arith.constant dense_resource<__elided__> : tensor<16x1x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x16x112x112xf32> to tensor<1x16x114x114xf32>
  %e = tensor.empty() : tensor<1x16x56x56xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x56x56xf32>) -> tensor<1x16x56x56xf32>
  %wc = tensor.collapse_shape %w [[0, 1], [2], [3]] : tensor<16x1x3x3xf32> into tensor<16x3x3xf32>
  %y = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%p, %wc : tensor<1x16x114x114xf32>, tensor<16x3x3xf32>) outs(%f : tensor<1x16x56x56xf32>) -> tensor<1x16x56x56xf32>
  return %y : tensor<1x16x56x56xf32>
}

// -----

// CHECK-LABEL: func.func @depthwise_nhwc_hwc
// CHECK:         dsm.weight "conv2d_0.weight" : tensor<3x3x1x4xf32>
// CHECK:         dsm.conv2d {{.*}} {data_layout = #dsm.layout<nhwc>, groups = 4 : i64, kernel_layout = #dsm.kernel_layout<hwio>}
func.func @depthwise_nhwc_hwc(%x: tensor<1x10x10x4xf32>) -> tensor<1x8x8x4xf32> {
  %w = arith.constant dense_resource<__elided__> : tensor<3x3x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %y = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x10x10x4xf32>, tensor<3x3x4xf32>) outs(%f : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  return %y : tensor<1x8x8x4xf32>
}

// -----

// A channel multiplier: C * M outputs in C groups, reshaped back to the
// op's [N, H, W, C, M] result.
// CHECK-LABEL: func.func @depthwise_multiplier
// CHECK:         %[[W:.*]] = dsm.weight "conv2d_0.weight" : tensor<3x3x1x8xf32>
// CHECK:         %[[Y:.*]] = dsm.conv2d %{{.*}}, %[[W]] {data_layout = #dsm.layout<nhwc>, groups = 4 : i64, kernel_layout = #dsm.kernel_layout<hwio>}
// CHECK-SAME:      -> tensor<1x8x8x8xf32>
// CHECK:         dsm.reshape %[[Y]] {shape = array<i64: 0, 8, 8, 4, 2>}
func.func @depthwise_multiplier(%x: tensor<1x10x10x4xf32>) -> tensor<1x8x8x4x2xf32> {
  %w = arith.constant dense_resource<__elided__> : tensor<3x3x4x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x4x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x4x2xf32>) -> tensor<1x8x8x4x2xf32>
  %y = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x10x10x4xf32>, tensor<3x3x4x2xf32>) outs(%f : tensor<1x8x8x4x2xf32>) -> tensor<1x8x8x4x2xf32>
  return %y : tensor<1x8x8x4x2xf32>
}

// -----

// Grouped: the [N, G, C, H, W] input is merged to [N, G*C, H, W].
// CHECK-LABEL: func.func @grouped_ngchw
// CHECK-SAME:    (%[[X:.*]]: tensor<1x2x4x10x10xf32>)
// CHECK:         %[[M:.*]] = dsm.reshape %[[X]] {shape = array<i64: 0, 8, 10, 10>}
// CHECK:         %[[W:.*]] = dsm.weight "conv2d_0.weight" : tensor<12x4x3x3xf32>
// CHECK:         %[[Y:.*]] = dsm.conv2d %[[M]], %[[W]] {groups = 2 : i64}
// CHECK:         dsm.reshape %[[Y]] {shape = array<i64: 0, 2, 6, 8, 8>}
func.func @grouped_ngchw(%x: tensor<1x2x4x10x10xf32>) -> tensor<1x2x6x8x8xf32> {
  %w = arith.constant dense_resource<__elided__> : tensor<6x2x4x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x6x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x6x8x8xf32>) -> tensor<1x2x6x8x8xf32>
  %y = linalg.conv_2d_ngchw_fgchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x2x4x10x10xf32>, tensor<6x2x4x3x3xf32>) outs(%f : tensor<1x2x6x8x8xf32>) -> tensor<1x2x6x8x8xf32>
  return %y : tensor<1x2x6x8x8xf32>
}

// -----

// A convolution written as a generic.
// CHECK-LABEL: func.func @generic_conv
// CHECK:         dsm.conv2d {{.*}} {strides = array<i64: 2, 2>} : (tensor<1x3x9x9xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
#in = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>
#fl = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
func.func @generic_conv(%x: tensor<1x3x9x9xf32>) -> tensor<1x4x4x4xf32> {
  %w = arith.constant dense_resource<__elided__> : tensor<4x3x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %y = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x3x9x9xf32>, tensor<4x3x3x3xf32>) outs(%f : tensor<1x4x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// A constant [K, N] operand is an FC weight, declared [out, in] = [N, K].
// CHECK-LABEL: func.func @matmul_constant_rhs
// CHECK:         %[[W:.*]] = dsm.weight "fully_connected_0.weight" : tensor<8x16xf32>
// CHECK:         dsm.fully_connected %{{.*}}, %[[W]] : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
func.func @matmul_constant_rhs(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %w = arith.constant dense_resource<__elided__> : tensor<16x8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// torch-mlir's nn.Linear: a transposing generic of the [out, in] weight, the
// matmul, and the bias addition, which becomes the FC's bias.
// CHECK-LABEL: func.func @linear_transposed_weight_bias
// CHECK:         %[[W:.*]] = dsm.weight "fully_connected_0.weight" : tensor<8x16xf32>
// CHECK:         %[[B:.*]] = dsm.weight "fully_connected_0.bias" : tensor<8xf32>
// CHECK:         %[[Y:.*]] = dsm.fully_connected %{{.*}}, %[[W]], %[[B]]
// CHECK-NEXT:    return %[[Y]]
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#t2 = affine_map<(d0, d1) -> (d1, d0)>
#b2 = affine_map<(d0, d1) -> (0, d1)>
#v2 = affine_map<(d0, d1) -> (d1)>
func.func @linear_transposed_weight_bias(%x: tensor<1x16xf32>) -> tensor<1x8xf32> {
  %w = arith.constant dense_resource<__elided__> : tensor<8x16xf32>
  %b = arith.constant dense_resource<__elided__> : tensor<8xf32>
  %zero = arith.constant 0.0 : f32
  %te = tensor.empty() : tensor<16x8xf32>
  %wt = linalg.generic {indexing_maps = [#id2, #t2], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<8x16xf32>) outs(%te : tensor<16x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<16x8xf32>
  %e = tensor.empty() : tensor<1x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8xf32>) -> tensor<1x8xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<1x16xf32>, tensor<16x8xf32>) outs(%f : tensor<1x8xf32>) -> tensor<1x8xf32>
  %z = linalg.generic {indexing_maps = [#b2, #v2, #id2], iterator_types = ["parallel", "parallel"]} ins(%y, %b : tensor<1x8xf32>, tensor<8xf32>) outs(%e : tensor<1x8xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %0 = arith.addf %in, %in2 : f32
    linalg.yield %0 : f32
  } -> tensor<1x8xf32>
  return %z : tensor<1x8xf32>
}

// -----

// MLIR 22 spells matmul_transpose_b as a matmul with indexing maps; the
// weight through linalg.transpose works the same.
// CHECK-LABEL: func.func @matmul_maps_and_transpose
// CHECK:         dsm.weight "fully_connected_0.weight" : tensor<8x16xf32>
// CHECK:         dsm.fully_connected
// CHECK:         dsm.weight "fully_connected_1.weight" : tensor<8x16xf32>
// CHECK:         dsm.fully_connected
func.func @matmul_maps_and_transpose(%x: tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %w = arith.constant dense_resource<__elided__> : tensor<8x16xf32>
  %w2 = arith.constant dense_resource<__elided__> : tensor<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w : tensor<4x16xf32>, tensor<8x16xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %te = tensor.empty() : tensor<16x8xf32>
  %wt = linalg.transpose ins(%w2 : tensor<8x16xf32>) outs(%te : tensor<16x8xf32>) permutation = [1, 0]
  %y2 = linalg.matmul ins(%x, %wt : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y, %y2 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Token-wise FC: [B, S, K] rows times a constant, written as a generic.
// CHECK-LABEL: func.func @fc_over_tokens
// CHECK:         dsm.fully_connected %{{.*}}, %{{.*}} : (tensor<2x5x16xf32>, tensor<8x16xf32>) -> tensor<2x5x8xf32>
#x3 = affine_map<(b, s, n, k) -> (b, s, k)>
#w2 = affine_map<(b, s, n, k) -> (k, n)>
#o3 = affine_map<(b, s, n, k) -> (b, s, n)>
func.func @fc_over_tokens(%x: tensor<2x5x16xf32>) -> tensor<2x5x8xf32> {
  %w = arith.constant dense_resource<__elided__> : tensor<16x8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x5x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
  %y = linalg.generic {indexing_maps = [#x3, #w2, #o3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<2x5x16xf32>, tensor<16x8xf32>) outs(%f : tensor<2x5x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x5x8xf32>
  return %y : tensor<2x5x8xf32>
}

// -----

// Two activations: dsm.matmul; Q times K-transposed as a generic (attention)
// keeps K's layout with transpose_rhs.
// CHECK-LABEL: func.func @batch_matmul
// CHECK:         dsm.matmul %arg0, %arg1 : (tensor<2x8x16xf32>, tensor<2x16x8xf32>) -> tensor<2x8x8xf32>
func.func @batch_matmul(%q: tensor<2x8x16xf32>, %k: tensor<2x16x8xf32>) -> tensor<2x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %y = linalg.batch_matmul ins(%q, %k : tensor<2x8x16xf32>, tensor<2x16x8xf32>) outs(%f : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  return %y : tensor<2x8x8xf32>
}

// CHECK-LABEL: func.func @attention_scores
// CHECK:         dsm.matmul %arg0, %arg1 {transpose_rhs} : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x8xf32>
#q = affine_map<(b, h, m, n, k) -> (b, h, m, k)>
#k = affine_map<(b, h, m, n, k) -> (b, h, n, k)>
#o = affine_map<(b, h, m, n, k) -> (b, h, m, n)>
func.func @attention_scores(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>) -> tensor<1x4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %y = linalg.generic {indexing_maps = [#q, #k, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) outs(%f : tensor<1x4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

// Pooling: a -inf pad folds into max pooling; a sum divided by the window
// is average pooling, over the whole map global average pooling.
// CHECK-LABEL: func.func @pooling
// CHECK:         dsm.max_pool %arg0 {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
// CHECK:         dsm.avg_pool %arg0 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
// CHECK:         dsm.global_avg_pool %arg0 : (tensor<1x8x16x16xf32>) -> tensor<1x8x1x1xf32>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @pooling(%x: tensor<1x8x16x16xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>, tensor<1x8x1x1xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %four = arith.constant 4.0 : f32
  %n = arith.constant 256.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c1: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<1x8x16x16xf32> to tensor<1x8x18x18xf32>
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %k3 = tensor.empty() : tensor<3x3xf32>
  %m = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%p, %k3 : tensor<1x8x18x18xf32>, tensor<3x3xf32>) outs(%fm : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %k2 = tensor.empty() : tensor<2x2xf32>
  %s = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %k2 : tensor<1x8x16x16xf32>, tensor<2x2xf32>) outs(%fs : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<1x8x8x8xf32>) outs(%e : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %d = arith.divf %in, %four : f32
    linalg.yield %d : f32
  } -> tensor<1x8x8x8xf32>
  %e1 = tensor.empty() : tensor<1x8x1x1xf32>
  %fg = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32>
  %k16 = tensor.empty() : tensor<16x16xf32>
  %g = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %k16 : tensor<1x8x16x16xf32>, tensor<16x16xf32>) outs(%fg : tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32>
  %ga = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g : tensor<1x8x1x1xf32>) outs(%e1 : tensor<1x8x1x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %d = arith.divf %in, %n : f32
    linalg.yield %d : f32
  } -> tensor<1x8x1x1xf32>
  return %m, %a, %ga : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>, tensor<1x8x1x1xf32>
}

// -----

// CHECK-LABEL: func.func @pooling_nhwc_max
// CHECK:         dsm.max_pool %arg0 {data_layout = #dsm.layout<nhwc>, kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
func.func @pooling_nhwc_max(%x: tensor<1x8x8x3xf32>) -> tensor<1x4x4x3xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x4x4x3xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %k = tensor.empty() : tensor<2x2xf32>
  %m = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %k : tensor<1x8x8x3xf32>, tensor<2x2xf32>) outs(%f : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  return %m : tensor<1x4x4x3xf32>
}

// -----

// Activations are recognised by what their bodies compute, not how they are
// spelled.
// CHECK-LABEL: func.func @activations
// CHECK:         %[[R6:.*]] = dsm.clamp %arg0 {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
// CHECK:         %[[S:.*]] = dsm.sigmoid %[[R6]]
// CHECK:         %[[T:.*]] = dsm.tanh %[[S]]
// CHECK:         %[[G:.*]] = dsm.gelu %[[T]]
// CHECK:         dsm.relu %[[G]]
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @activations(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %rs2 = arith.constant 0.707106769 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %r6 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %a = arith.maximumf %in, %zero : f32
    %b = arith.minimumf %a, %six : f32
    linalg.yield %b : f32
  } -> tensor<4x8xf32>
  %sg = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%r6 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %n = arith.negf %in : f32
    %x1 = math.exp %n : f32
    %d = arith.addf %x1, %one : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %th = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%sg : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %ge = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%th : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %s = arith.mulf %in, %rs2 : f32
    %er = math.erf %s : f32
    %p = arith.addf %er, %one : f32
    %h = arith.mulf %in, %half : f32
    %r = arith.mulf %h, %p : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %re = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%ge : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %c = arith.cmpf ugt, %in, %zero : f32
    %s = arith.select %c, %in, %zero : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %re : tensor<4x8xf32>
}

// -----

// torch-mlir's inference batch norm, then MobileNetV3's hard swish spelled
// as five generics (x + 3, ReLU, min with a 0-d tensor holding sitofp(6),
// / 6, * x): one dsm.batch_norm and one dsm.hard_swish. The training check
// and the unused global are dropped.
// CHECK-LABEL: func.func @batch_norm_hard_swish
// CHECK-NOT:     ml_program
// CHECK-DAG:     %[[G:.*]] = dsm.weight "batch_norm_0.scale" : tensor<4xf32>
// CHECK-DAG:     %[[B:.*]] = dsm.weight "batch_norm_0.offset" : tensor<4xf32>
// CHECK-DAG:     %[[M:.*]] = dsm.weight "batch_norm_0.mean" : tensor<4xf32>
// CHECK-DAG:     %[[V:.*]] = dsm.weight "batch_norm_0.variance" : tensor<4xf32>
// CHECK:         %[[N:.*]] = dsm.batch_norm %arg0, %[[G]], %[[B]], %[[M]], %[[V]] {epsilon = 1.000000e-03 : f64}
// CHECK-NEXT:    %[[H:.*]] = dsm.hard_swish %[[N]] : tensor<1x4x8x8xf32>
// CHECK-NEXT:    return %[[H]]
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#b0 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#c = affine_map<(d0, d1, d2, d3) -> (d1)>
#s = affine_map<(d0, d1, d2, d3) -> ()>
#z = affine_map<() -> ()>
ml_program.global private mutable @global_seed(dense<0> : tensor<i64>) : tensor<i64>
func.func @batch_norm_hard_swish(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %g = arith.constant dense_resource<__elided__> : tensor<4xf32>
  %b = arith.constant dense_resource<__elided__> : tensor<4xf32>
  %m = arith.constant dense_resource<__elided__> : tensor<4xf32>
  %v = arith.constant dense_resource<__elided__> : tensor<4xf32>
  %eps = arith.constant 1.0e-3 : f64
  %three = arith.constant 3.0 : f32
  %zero = arith.constant 0.0 : f32
  %sixf = arith.constant 6.0 : f32
  %six = arith.constant 6 : i64
  %false = arith.constant false
  %ok = arith.cmpi eq, %false, %false : i1
  cf.assert %ok, "training is not supported for now"
  %bn = linalg.generic {indexing_maps = [#id, #c, #c, #c, #c, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %g, %b, %m, %v : tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) outs(%x : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %w: f32, %bi: f32, %me: f32, %va: f32, %out: f32):
    %e = arith.truncf %eps : f64 to f32
    %1 = arith.addf %va, %e : f32
    %2 = math.rsqrt %1 : f32
    %3 = arith.subf %in, %me : f32
    %4 = arith.mulf %3, %2 : f32
    %5 = arith.mulf %4, %w : f32
    %6 = arith.addf %5, %bi : f32
    linalg.yield %6 : f32
  } -> tensor<1x4x8x8xf32>
  %empty = tensor.empty() : tensor<1x4x8x8xf32>
  %a3 = linalg.generic {indexing_maps = [#b0, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bn : tensor<1x4x8x8xf32>) outs(%empty : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = arith.addf %in, %three : f32
    linalg.yield %1 : f32
  } -> tensor<1x4x8x8xf32>
  %r = linalg.generic {indexing_maps = [#b0, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a3 : tensor<1x4x8x8xf32>) outs(%empty : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = arith.cmpf ugt, %in, %zero : f32
    %2 = arith.select %1, %in, %zero : f32
    linalg.yield %2 : f32
  } -> tensor<1x4x8x8xf32>
  %ie = tensor.empty() : tensor<i64>
  %if = linalg.fill ins(%six : i64) outs(%ie : tensor<i64>) -> tensor<i64>
  %fe = tensor.empty() : tensor<f32>
  %sixt = linalg.generic {indexing_maps = [#z, #z], iterator_types = []} ins(%if : tensor<i64>) outs(%fe : tensor<f32>) {
  ^bb0(%in: i64, %out: f32):
    %1 = arith.sitofp %in : i64 to f32
    linalg.yield %1 : f32
  } -> tensor<f32>
  %mn = linalg.generic {indexing_maps = [#b0, #s, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r, %sixt : tensor<1x4x8x8xf32>, tensor<f32>) outs(%empty : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %lim: f32, %out: f32):
    %1 = arith.cmpf olt, %in, %lim : f32
    %2 = arith.select %1, %in, %lim : f32
    linalg.yield %2 : f32
  } -> tensor<1x4x8x8xf32>
  %d = linalg.generic {indexing_maps = [#b0, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mn : tensor<1x4x8x8xf32>) outs(%empty : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = arith.divf %in, %sixf : f32
    linalg.yield %1 : f32
  } -> tensor<1x4x8x8xf32>
  %hs = linalg.generic {indexing_maps = [#b0, #b0, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d, %bn : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) outs(%empty : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %1 = arith.mulf %in, %in2 : f32
    linalg.yield %1 : f32
  } -> tensor<1x4x8x8xf32>
  return %hs : tensor<1x4x8x8xf32>
}

// -----

// Binary ops broadcast NumPy-style: a per-sample scale is reshaped to
// [N, C, 1, 1] (batch kept as 0), a per-channel constant declared [C, 1, 1].
// CHECK-LABEL: func.func @binary_broadcast
// CHECK:         %[[R:.*]] = dsm.add %arg0, %arg1 : (tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
// CHECK:         %[[S:.*]] = dsm.reshape %arg2 {shape = array<i64: 0, 8, 1, 1>}
// CHECK:         %[[M:.*]] = dsm.mul %[[S]], %[[R]]
// CHECK:         %[[C:.*]] = dsm.weight "sub_0.constant" : tensor<8x1x1xf32>
// CHECK:         %[[D:.*]] = dsm.sub %[[M]], %[[C]]
// CHECK:         dsm.div %[[D]], %arg0
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#c = affine_map<(d0, d1, d2, d3) -> (d1)>
#nc = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @binary_broadcast(%x: tensor<2x8x4x4xf32>, %y: tensor<2x8x4x4xf32>, %s: tensor<2x8xf32>) -> tensor<2x8x4x4xf32> {
  %e = tensor.empty() : tensor<2x8x4x4xf32>
  %sc = arith.constant dense_resource<__elided__> : tensor<8xf32>
  %add = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %y : tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>) outs(%e : tensor<2x8x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x8x4x4xf32>
  %mul = linalg.generic {indexing_maps = [#id, #nc, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%add, %s : tensor<2x8x4x4xf32>, tensor<2x8xf32>) outs(%e : tensor<2x8x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %b, %a : f32
    linalg.yield %r : f32
  } -> tensor<2x8x4x4xf32>
  %sub = linalg.generic {indexing_maps = [#id, #c, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mul, %sc : tensor<2x8x4x4xf32>, tensor<8xf32>) outs(%e : tensor<2x8x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x8x4x4xf32>
  %div = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sub, %x : tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>) outs(%e : tensor<2x8x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x8x4x4xf32>
  return %div : tensor<2x8x4x4xf32>
}

// -----

// Softmax as torch-mlir decomposes it: max, exp(x - max), sum, divide.
// CHECK-LABEL: func.func @softmax_pieces
// CHECK-NEXT:    %[[S:.*]] = dsm.softmax %arg0 {axis = 2 : i64} : tensor<2x4x16xf32>
// CHECK-NEXT:    return %[[S]]
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#r3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @softmax_pieces(%x: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<2x4xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %max = linalg.generic {indexing_maps = [#id3, #r3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x4x16xf32>) outs(%fm : tensor<2x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %o : f32
    linalg.yield %m : f32
  } -> tensor<2x4xf32>
  %e3 = tensor.empty() : tensor<2x4x16xf32>
  %exp = linalg.generic {indexing_maps = [#id3, #r3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %max : tensor<2x4x16xf32>, tensor<2x4xf32>) outs(%e3 : tensor<2x4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %ex = math.exp %d : f32
    linalg.yield %ex : f32
  } -> tensor<2x4x16xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #r3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%exp : tensor<2x4x16xf32>) outs(%fs : tensor<2x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %s = arith.addf %in, %o : f32
    linalg.yield %s : f32
  } -> tensor<2x4xf32>
  %div = linalg.generic {indexing_maps = [#id3, #r3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%exp, %sum : tensor<2x4x16xf32>, tensor<2x4xf32>) outs(%e3 : tensor<2x4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.divf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<2x4x16xf32>
  return %div : tensor<2x4x16xf32>
}

// CHECK-LABEL: func.func @linalg_softmax
// CHECK:         dsm.softmax %arg0 {axis = 1 : i64} : tensor<2x16xf32>
func.func @linalg_softmax(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %e = tensor.empty() : tensor<2x16xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<2x16xf32>) outs(%e : tensor<2x16xf32>) -> tensor<2x16xf32>
  return %s : tensor<2x16xf32>
}

// -----

// Reductions: a sum divided by the count is a mean (dimensions kept as
// size 1 by the result's indexing), linalg.reduce a max.
// CHECK-LABEL: func.func @reductions
// CHECK:         dsm.reduce <mean> %arg0 {axes = array<i64: 2>, keep_dims} : (tensor<2x4x16xf32>) -> tensor<2x4x1xf32>
// CHECK:         dsm.reduce <max> %arg0 {axes = array<i64: 2>} : (tensor<2x4x16xf32>) -> tensor<2x4xf32>
// CHECK:         dsm.reduce <sum> %arg0 {axes = array<i64: 1, 2>} : (tensor<2x4x16xf32>) -> tensor<2xf32>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#r3k = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#r0 = affine_map<(d0, d1, d2) -> (d0)>
func.func @reductions(%x: tensor<2x4x16xf32>) -> (tensor<2x4x1xf32>, tensor<2x4xf32>, tensor<2xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 16.0 : f32
  %e = tensor.empty() : tensor<2x4x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #r3k], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x4x16xf32>) outs(%f : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %s = arith.addf %in, %o : f32
    linalg.yield %s : f32
  } -> tensor<2x4x1xf32>
  %mean = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sum : tensor<2x4x1xf32>) outs(%e : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %d = arith.divf %in, %n : f32
    linalg.yield %d : f32
  } -> tensor<2x4x1xf32>
  %e2 = tensor.empty() : tensor<2x4xf32>
  %r = linalg.reduce ins(%x : tensor<2x4x16xf32>) outs(%e2 : tensor<2x4xf32>) dimensions = [2]
    (%in: f32, %init: f32) {
      %m = arith.maxnumf %in, %init : f32
      linalg.yield %m : f32
    }
  %e3 = tensor.empty() : tensor<2xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2xf32>) -> tensor<2xf32>
  %t = linalg.generic {indexing_maps = [#id3, #r0], iterator_types = ["parallel", "reduction", "reduction"]} ins(%x : tensor<2x4x16xf32>) outs(%f3 : tensor<2xf32>) {
  ^bb0(%in: f32, %o: f32):
    %s = arith.addf %o, %in : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  return %mean, %r, %t : tensor<2x4x1xf32>, tensor<2x4xf32>, tensor<2xf32>
}

// -----

// Data movement: reshapes keep the batch as 0, slices over the whole batch
// run to its end (-1), so the model stays re-batchable; insertions that
// tile a tensor are a concatenation.
// CHECK-LABEL: func.func @data_movement
// CHECK-DAG:     dsm.reshape %arg0 {shape = array<i64: 0, 12>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
// CHECK-DAG:     dsm.reshape %arg0 {shape = array<i64: 0, 3, 2, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x2x2xf32>
// CHECK-DAG:     dsm.transpose %arg0 {permutation = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
// CHECK-DAG:     dsm.concat %arg0, %arg1 {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x8x4xf32>
// CHECK-DAG:     dsm.slice %arg1 {offsets = array<i64: 0, 1, 0>, sizes = array<i64: -1, 2, 4>}
// CHECK-DAG:     dsm.concat %arg1, %arg0 {axis = 1 : i64} : (tensor<2x5x4xf32>, tensor<2x3x4xf32>) -> tensor<2x8x4xf32>
func.func @data_movement(%x: tensor<2x3x4xf32>, %y: tensor<2x5x4xf32>) -> (tensor<2x12xf32>, tensor<2x3x2x2xf32>, tensor<2x4x3xf32>, tensor<2x8x4xf32>, tensor<2x2x4xf32>, tensor<2x8x4xf32>) {
  %c = tensor.collapse_shape %x [[0], [1, 2]] : tensor<2x3x4xf32> into tensor<2x12xf32>
  %x2 = tensor.expand_shape %x [[0], [1], [2, 3]] output_shape [2, 3, 2, 2] : tensor<2x3x4xf32> into tensor<2x3x2x2xf32>
  %e = tensor.empty() : tensor<2x4x3xf32>
  %t = linalg.transpose ins(%x : tensor<2x3x4xf32>) outs(%e : tensor<2x4x3xf32>) permutation = [0, 2, 1]
  %cat = tensor.concat dim(1) %x, %y : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x8x4xf32>
  %s = tensor.extract_slice %y[0, 1, 0] [2, 2, 4] [1, 1, 1] : tensor<2x5x4xf32> to tensor<2x2x4xf32>
  %e2 = tensor.empty() : tensor<2x8x4xf32>
  %i1 = tensor.insert_slice %x into %e2[0, 5, 0] [2, 3, 4] [1, 1, 1] : tensor<2x3x4xf32> into tensor<2x8x4xf32>
  %i2 = tensor.insert_slice %y into %i1[0, 0, 0] [2, 5, 4] [1, 1, 1] : tensor<2x5x4xf32> into tensor<2x8x4xf32>
  return %c, %x2, %t, %cat, %s, %i2 : tensor<2x12xf32>, tensor<2x3x2x2xf32>, tensor<2x4x3xf32>, tensor<2x8x4xf32>, tensor<2x2x4xf32>, tensor<2x8x4xf32>
}

// -----

// Calls to functions of the module are inlined, and the callees removed.
// CHECK-LABEL: func.func @model
// CHECK-NOT:     call
// CHECK:         dsm.relu %arg0
// CHECK-NOT:     func.func @relu
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}
func.func @model(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %y = func.call @relu(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// erf alone and sqrt(x + eps) (a layer norm's divisor) are dsm.erf and
// dsm.add + dsm.sqrt, as ONNX's Erf and Sqrt are, so that the graph fusions
// see the same pieces from every front end.
// CHECK-LABEL: func.func @erf_and_sqrt
// CHECK:         %[[E:.*]] = dsm.erf %arg0 : tensor<4x8xf32>
// CHECK:         %[[C:.*]] = arith.constant dense<9.99999974E-6> : tensor<f32>
// CHECK:         %[[A:.*]] = dsm.add %[[E]], %[[C]]
// CHECK:         dsm.sqrt %[[A]] : tensor<4x8xf32>
#id3 = affine_map<(d0, d1) -> (d0, d1)>
func.func @erf_and_sqrt(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %eps = arith.constant 1.0e-5 : f32
  %e0 = tensor.empty() : tensor<4x8xf32>
  %e = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.erf %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]} ins(%e : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.addf %a, %eps : f32
    %r = math.sqrt %p : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// -----

// An affine function (attention's scaling by a constant) is a dsm.mul of a
// scalar constant. A function whose every operation is known but that dsm
// has no operation for (the maximum of two tensors) is kept as dsm.opaque
// with its exact operation count, in either mode.
// CHECK-LABEL: func.func @known_without_dsm_op
// CHECK:         %[[C:.*]] = arith.constant dense<1.250000e-01> : tensor<f32>
// CHECK:         %[[S:.*]] = dsm.mul %arg0, %[[C]] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
// CHECK:         dsm.opaque "linalg.generic"(%[[S]], %arg1) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @known_without_dsm_op(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %scale = arith.constant 0.125 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %scale : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%s, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.maximumf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Pooling written as a generic; a convolution accumulating into an
// activation is the convolution plus an addition; a sum pool without a
// divisor is charged as average pooling (same workload).
// CHECK-LABEL: func.func @generic_max_pool
// CHECK:         dsm.max_pool %arg0 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
// CHECK-LABEL: func.func @conv_accumulate
// CHECK:         %[[C:.*]] = dsm.conv2d %arg0, %{{.*}} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK:         dsm.add %[[C]], %arg1
// CHECK-LABEL: func.func @sum_pool_nhwc
// CHECK:         dsm.avg_pool %arg0 {data_layout = #dsm.layout<nhwc>, kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>
#win = affine_map<(n, c, oh, ow, kh, kw) -> (kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
func.func @generic_max_pool(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %w = tensor.empty() : tensor<2x2xf32>
  %y = linalg.generic {indexing_maps = [#in, #win, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%f : tensor<1x4x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.maximumf %c, %a : f32
    linalg.yield %m : f32
  } -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}
func.func @conv_accumulate(%x: tensor<1x3x8x8xf32>, %r: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %w = arith.constant dense_resource<__elided__> : tensor<4x3x3x3xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%r : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}
func.func @sum_pool_nhwc(%x: tensor<1x8x8x3xf32>) -> tensor<1x4x4x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %k = tensor.empty() : tensor<2x2xf32>
  %s = linalg.pooling_nhwc_sum {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %k : tensor<1x8x8x3xf32>, tensor<2x2xf32>) outs(%f : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  return %s : tensor<1x4x4x3xf32>
}

// -----

// torch-mlir's aten.embedding: rows of a constant table gathered with
// tensor.extract. Fixed ids (BERT's position ids) stay a constant.
// CHECK-LABEL: func.func @embedding
// CHECK-DAG:     %[[TABLE:.*]] = dsm.weight "{{.*}}" : tensor<100x8xf32>
// CHECK-DAG:     %[[POSITIONS:.*]] = arith.constant dense<{{\[\[}}0, 1, 2]]> : tensor<1x3xi64>
// CHECK-DAG:     %[[WORDS:.*]] = dsm.embedding %arg0, %[[TABLE]] : (tensor<1x3xi64>, tensor<100x8xf32>) -> tensor<1x3x8xf32>
// CHECK-DAG:     %[[PLACES:.*]] = dsm.embedding %[[POSITIONS]], %{{.*}} : (tensor<1x3xi64>, tensor<16x8xf32>) -> tensor<1x3x8xf32>
// CHECK:         dsm.add
#ids = affine_map<(d0, d1, d2) -> (d0, d1)>
#rows = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @embedding(%ids: tensor<1x3xi64>) -> tensor<1x3x8xf32> {
  %table = arith.constant dense_resource<__elided__> : tensor<100x8xf32>
  %places = arith.constant dense_resource<__elided__> : tensor<16x8xf32>
  %positions = arith.constant dense<[[0, 1, 2]]> : tensor<1x3xi64>
  %e0 = tensor.empty() : tensor<1x3x8xf32>
  %words = linalg.generic {indexing_maps = [#ids, #rows], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ids : tensor<1x3xi64>) outs(%e0 : tensor<1x3x8xf32>) {
  ^bb0(%id: i64, %o: f32):
    %i = arith.index_cast %id : i64 to index
    %j = linalg.index 2 : index
    %v = tensor.extract %table[%i, %j] : tensor<100x8xf32>
    linalg.yield %v : f32
  } -> tensor<1x3x8xf32>
  %e1 = tensor.empty() : tensor<1x3x8xf32>
  %at = linalg.generic {indexing_maps = [#ids, #rows], iterator_types = ["parallel", "parallel", "parallel"]} ins(%positions : tensor<1x3xi64>) outs(%e1 : tensor<1x3x8xf32>) {
  ^bb0(%id: i64, %o: f32):
    %i = arith.index_cast %id : i64 to index
    %j = linalg.index 2 : index
    %v = tensor.extract %places[%i, %j] : tensor<16x8xf32>
    linalg.yield %v : f32
  } -> tensor<1x3x8xf32>
  %e2 = tensor.empty() : tensor<1x3x8xf32>
  %sum = linalg.generic {indexing_maps = [#rows, #rows, #rows], iterator_types = ["parallel", "parallel", "parallel"]} ins(%words, %at : tensor<1x3x8xf32>, tensor<1x3x8xf32>) outs(%e2 : tensor<1x3x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x3x8xf32>
  return %sum : tensor<1x3x8xf32>
}

// -----

// exp alone is dsm.exp (one special-function evaluation per element), the
// piece the graph fusions and the other front ends use too.
// CHECK-LABEL: func.func @exp_alone
// CHECK-NEXT: %[[E:.*]] = dsm.exp %arg0 : tensor<4x8xf32>
// CHECK-NEXT: return %[[E]]
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @exp_alone(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Results declared dynamic have the sizes the operands give the loops: a
// fully connected layer (4 rows, the weight's 6 features) and a product of
// two activations written transposed, one of them cast to a dynamic size.
// CHECK-LABEL: func.func @dynamic_results
// CHECK-SAME: -> (tensor<4x6xf32>, tensor<6x4xf32>)
// CHECK: dsm.fully_connected %arg0, %{{.*}} : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
// CHECK: %[[P:.*]] = dsm.matmul %arg0, %arg1 : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
// CHECK: dsm.transpose %[[P]] {permutation = array<i64: 1, 0>} : (tensor<4x6xf32>) -> tensor<6x4xf32>
func.func @dynamic_results(%x: tensor<4x8xf32>, %v: tensor<8x6xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %w = arith.constant dense<1.0> : tensor<8x6xf32>
  %z = arith.constant 0.0 : f32
  %c6 = arith.constant 6 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty(%c4, %c6) : tensor<?x?xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x6xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %xd = tensor.cast %x : tensor<4x8xf32> to tensor<?x8xf32>
  %et = tensor.empty(%c6, %c4) : tensor<?x?xf32>
  %ft = linalg.fill ins(%z : f32) outs(%et : tensor<?x?xf32>) -> tensor<?x?xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (n, m)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%xd, %v : tensor<?x8xf32>, tensor<8x6xf32>) outs(%ft : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %y, %t : tensor<?x?xf32>, tensor<?x?xf32>
}

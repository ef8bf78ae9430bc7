// RUN: dsm-opt %s -split-input-file --dsm-import-tosa | FileCheck %s

// NHWC convolution with an OHWI weight; TOSA's [top, bottom, left, right]
// padding becomes dsm's [top, left, bottom, right]; ReLU6 as tosa.clamp.
// CHECK-LABEL: func.func @conv2d_clamp
// CHECK-DAG:     %[[W:.*]] = dsm.weight "conv2d_0.weight" : tensor<8x3x3x4xf32>
// CHECK-DAG:     %[[B:.*]] = dsm.weight "conv2d_0.bias" : tensor<8xf32>
// CHECK:         %[[Y:.*]] = dsm.conv2d %arg0, %[[W]], %[[B]] {data_layout = #dsm.layout<nhwc>, kernel_layout = #dsm.kernel_layout<ohwi>, padding = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>}
// CHECK-SAME:      -> tensor<1x8x8x8xf32>
// CHECK:         dsm.clamp %[[Y]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
func.func @conv2d_clamp(%x: tensor<1x16x16x4xf32>) -> tensor<1x8x8x8xf32> {
  %w = "tosa.const"() {values = dense_resource<__elided__> : tensor<8x3x3x4xf32>} : () -> tensor<8x3x3x4xf32>
  %b = "tosa.const"() {values = dense_resource<__elided__> : tensor<8xf32>} : () -> tensor<8xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %y = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 0, 1, 0>, stride = array<i64: 2, 2>} : (tensor<1x16x16x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  %c = tosa.clamp %y {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %c : tensor<1x8x8x8xf32>
}

// -----

// A zero tosa.pad folds into the padding; a zero bias is no bias; ReLU is a
// clamp to the largest float.
// CHECK-LABEL: func.func @pad_conv_relu
// CHECK:         %[[Y:.*]] = dsm.conv2d %arg0, %{{[^,]*}} {data_layout = #dsm.layout<nhwc>, dilations = array<i64: 2, 2>, kernel_layout = #dsm.kernel_layout<ohwi>, padding = array<i64: 2, 2, 2, 2>}
// CHECK:         dsm.relu %[[Y]]
func.func @pad_conv_relu(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x8xf32> {
  %p = tosa.const_shape {values = dense<[0, 0, 2, 2, 2, 2, 0, 0]> : tensor<8xindex>} : () -> !tosa.shape<8>
  %v = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %xp = tosa.pad %x, %p, %v : (tensor<1x8x8x4xf32>, !tosa.shape<8>, tensor<1xf32>) -> tensor<1x12x12x4xf32>
  %w = "tosa.const"() {values = dense_resource<__elided__> : tensor<8x3x3x4xf32>} : () -> tensor<8x3x3x4xf32>
  %b = "tosa.const"() {values = dense<0.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %y = tosa.conv2d %xp, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x12x12x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  %r = tosa.clamp %y {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// -----

// Depthwise with a channel multiplier: the [KH, KW, C, M] weight is
// declared HWIO [KH, KW, 1, C * M] in C groups.
// CHECK-LABEL: func.func @depthwise
// CHECK:         %[[W:.*]] = dsm.weight "conv2d_0.weight" : tensor<3x3x1x8xf32>
// CHECK:         %[[B:.*]] = dsm.weight "conv2d_0.bias" : tensor<8xf32>
// CHECK:         dsm.conv2d %arg0, %[[W]], %[[B]] {data_layout = #dsm.layout<nhwc>, groups = 4 : i64, kernel_layout = #dsm.kernel_layout<hwio>, padding = array<i64: 1, 1, 1, 1>}
func.func @depthwise(%x: tensor<1x16x16x4xf32>) -> tensor<1x16x16x8xf32> {
  %w = "tosa.const"() {values = dense_resource<__elided__> : tensor<3x3x4x2xf32>} : () -> tensor<3x3x4x2xf32>
  %b = "tosa.const"() {values = dense_resource<__elided__> : tensor<8xf32>} : () -> tensor<8xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %y = tosa.depthwise_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x16x16x4xf32>, tensor<3x3x4x2xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x16x8xf32>
  return %y : tensor<1x16x16x8xf32>
}

// -----

// int8: the i32 accumulator is rescaled back to int8; dsm computes in the
// activations' type and the rescale passes its input through.
// CHECK-LABEL: func.func @int8_conv_rescale
// CHECK-SAME:    -> tensor<1x8x8x8xi8>
// CHECK:         %[[W:.*]] = dsm.weight "conv2d_0.weight" : tensor<8x1x1x4xi8>
// CHECK:         %[[B:.*]] = dsm.weight "conv2d_0.bias" : tensor<8xi8>
// CHECK:         %[[Y:.*]] = dsm.conv2d %arg0, %[[W]], %[[B]] {{.*}} -> tensor<1x8x8x8xi8>
// CHECK-NEXT:    return %[[Y]]
func.func @int8_conv_rescale(%x: tensor<1x8x8x4xi8>) -> tensor<1x8x8x8xi8> {
  %w = "tosa.const"() {values = dense_resource<__elided__> : tensor<8x1x1x4xi8>} : () -> tensor<8x1x1x4xi8>
  %b = "tosa.const"() {values = dense_resource<__elided__> : tensor<8xi32>} : () -> tensor<8xi32>
  %zp = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %y = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xi8>, tensor<8x1x1x4xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x8xi32>
  %mult = "tosa.const"() {values = dense<1073741824> : tensor<1xi32>} : () -> tensor<1xi32>
  %sh = "tosa.const"() {values = dense<30> : tensor<1xi8>} : () -> tensor<1xi8>
  %izp = "tosa.const"() {values = dense<0> : tensor<1xi32>} : () -> tensor<1xi32>
  %r = tosa.rescale %y, %mult, %sh, %izp, %zp {scale32 = true, rounding_mode = SINGLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<1x8x8x8xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x8xi8>
  return %r : tensor<1x8x8x8xi8>
}

// -----

// A constant [1, C, W] right operand is a fully connected layer: TF's
// reshapes around it keep the batch re-batchable (-1), and the bias after
// them stays a bias addition.
// CHECK-LABEL: func.func @fully_connected
// CHECK-SAME:    (%arg0: tensor<4x16xf32>) -> tensor<4x8xf32>
// CHECK:         %[[R:.*]] = dsm.reshape %arg0 {shape = array<i64: 1, -1, 16>}
// CHECK:         %[[W:.*]] = dsm.weight "fully_connected_0.weight" : tensor<8x16xf32>
// CHECK:         %[[F:.*]] = dsm.fully_connected %[[R]], %[[W]] : (tensor<1x4x16xf32>, tensor<8x16xf32>) -> tensor<1x4x8xf32>
// CHECK:         %[[O:.*]] = dsm.reshape %[[F]] {shape = array<i64: -1, 8>}
// CHECK:         %[[B:.*]] = dsm.weight "add_0.bias" : tensor<8xf32>
// CHECK:         dsm.add %[[O]], %[[B]]
func.func @fully_connected(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %s1 = tosa.const_shape {values = dense<[1, 4, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %r = tosa.reshape %x, %s1 : (tensor<4x16xf32>, !tosa.shape<3>) -> tensor<1x4x16xf32>
  %w = "tosa.const"() {values = dense_resource<__elided__> : tensor<1x16x8xf32>} : () -> tensor<1x16x8xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %m = tosa.matmul %r, %w, %zp, %zp : (tensor<1x4x16xf32>, tensor<1x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  %s2 = tosa.const_shape {values = dense<[4, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %y = tosa.reshape %m, %s2 : (tensor<1x4x8xf32>, !tosa.shape<2>) -> tensor<4x8xf32>
  %b = "tosa.const"() {values = dense_resource<__elided__> : tensor<1x8xf32>} : () -> tensor<1x8xf32>
  %z = tosa.add %y, %b : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  return %z : tensor<4x8xf32>
}

// -----

// Attention: a product of two activations (one transposed), softmax
// decomposed (reduce_max, sub, exp, reduce_sum, reciprocal, mul), and a
// gather from a constant table as the embedding.
// CHECK-LABEL: func.func @embedding_attention
// CHECK:         %[[T:.*]] = dsm.weight "embedding_0.table" : tensor<100x16xf32>
// CHECK:         %[[E:.*]] = dsm.embedding %arg0, %[[T]] : (tensor<1x6xi32>, tensor<100x16xf32>) -> tensor<1x6x16xf32>
// CHECK:         %[[K:.*]] = dsm.transpose %[[E]] {permutation = array<i64: 0, 2, 1>}
// CHECK:         %[[S:.*]] = dsm.matmul %[[E]], %[[K]] : (tensor<1x6x16xf32>, tensor<1x16x6xf32>) -> tensor<1x6x6xf32>
// CHECK:         dsm.softmax %[[S]] {axis = 2 : i64} : tensor<1x6x6xf32>
func.func @embedding_attention(%ids: tensor<1x6xi32>) -> tensor<1x6x6xf32> {
  %table = "tosa.const"() {values = dense_resource<__elided__> : tensor<1x100x16xf32>} : () -> tensor<1x100x16xf32>
  %e = tosa.gather %table, %ids : (tensor<1x100x16xf32>, tensor<1x6xi32>) -> tensor<1x6x16xf32>
  %t = tosa.transpose %e {perms = array<i32: 0, 2, 1>} : (tensor<1x6x16xf32>) -> tensor<1x16x6xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %s = tosa.matmul %e, %t, %zp, %zp : (tensor<1x6x16xf32>, tensor<1x16x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %m = tosa.reduce_max %s {axis = 2 : i32} : (tensor<1x6x6xf32>) -> tensor<1x6x1xf32>
  %d = tosa.sub %s, %m : (tensor<1x6x6xf32>, tensor<1x6x1xf32>) -> tensor<1x6x6xf32>
  %x = tosa.exp %d : (tensor<1x6x6xf32>) -> tensor<1x6x6xf32>
  %sum = tosa.reduce_sum %x {axis = 2 : i32} : (tensor<1x6x6xf32>) -> tensor<1x6x1xf32>
  %r = tosa.reciprocal %sum : (tensor<1x6x1xf32>) -> tensor<1x6x1xf32>
  %y = tosa.mul %x, %r, %shift : (tensor<1x6x6xf32>, tensor<1x6x1xf32>, tensor<1xi8>) -> tensor<1x6x6xf32>
  return %y : tensor<1x6x6xf32>
}

// -----

// CHECK-LABEL: func.func @pooling
// CHECK:         dsm.max_pool %arg1 {data_layout = #dsm.layout<nhwc>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
// CHECK:         dsm.avg_pool %arg0 {data_layout = #dsm.layout<nhwc>, kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
// CHECK:         dsm.global_avg_pool %arg0 {data_layout = #dsm.layout<nhwc>} : (tensor<1x8x8x4xf32>) -> tensor<1x1x1x4xf32>
func.func @pooling(%x: tensor<1x8x8x4xf32>, %y: tensor<1x7x7x4xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x1x1x4xf32>) {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %m = tosa.max_pool2d %y {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x7x7x4xf32>) -> tensor<1x4x4x4xf32>
  %a = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x4xf32>
  %g = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 8, 8>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x4xf32>
  return %m, %a, %g : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x1x1x4xf32>
}

// -----

// Batch normalization decomposed with rsqrt(variance + eps) computed from
// constants, GELU written with tosa.erf, hard swish from clamp and
// multiply: each becomes one dsm op.
// CHECK-LABEL: func.func @composites
// CHECK-DAG:     %[[G:.*]] = dsm.weight "batch_norm_0.scale" : tensor<4xf32>
// CHECK-DAG:     %[[B:.*]] = dsm.weight "batch_norm_0.offset" : tensor<4xf32>
// CHECK-DAG:     %[[M:.*]] = dsm.weight "batch_norm_0.mean" : tensor<4xf32>
// CHECK-DAG:     %[[V:.*]] = dsm.weight "batch_norm_0.variance" : tensor<4xf32>
// CHECK:         %[[N:.*]] = dsm.batch_norm %arg0, %[[G]], %[[B]], %[[M]], %[[V]] {axis = 3 : i64}
// CHECK:         %[[U:.*]] = dsm.gelu %[[N]]
// CHECK:         dsm.hard_swish %[[U]]
func.func @composites(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %mean = "tosa.const"() {values = dense_resource<__elided__> : tensor<1x1x1x4xf32>} : () -> tensor<1x1x1x4xf32>
  %var = "tosa.const"() {values = dense_resource<__elided__> : tensor<1x1x1x4xf32>} : () -> tensor<1x1x1x4xf32>
  %gamma = "tosa.const"() {values = dense_resource<__elided__> : tensor<1x1x1x4xf32>} : () -> tensor<1x1x1x4xf32>
  %beta = "tosa.const"() {values = dense_resource<__elided__> : tensor<1x1x1x4xf32>} : () -> tensor<1x1x1x4xf32>
  %eps = "tosa.const"() {values = dense<1.0e-5> : tensor<1x1x1x1xf32>} : () -> tensor<1x1x1x1xf32>
  %ve = tosa.add %var, %eps : (tensor<1x1x1x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x4xf32>
  %rs = tosa.rsqrt %ve : (tensor<1x1x1x4xf32>) -> tensor<1x1x1x4xf32>
  %c = tosa.sub %x, %mean : (tensor<1x8x8x4xf32>, tensor<1x1x1x4xf32>) -> tensor<1x8x8x4xf32>
  %n = tosa.mul %c, %rs, %shift : (tensor<1x8x8x4xf32>, tensor<1x1x1x4xf32>, tensor<1xi8>) -> tensor<1x8x8x4xf32>
  %g = tosa.mul %n, %gamma, %shift : (tensor<1x8x8x4xf32>, tensor<1x1x1x4xf32>, tensor<1xi8>) -> tensor<1x8x8x4xf32>
  %bn = tosa.add %g, %beta : (tensor<1x8x8x4xf32>, tensor<1x1x1x4xf32>) -> tensor<1x8x8x4xf32>
  %half = "tosa.const"() {values = dense<0.5> : tensor<1x1x1x1xf32>} : () -> tensor<1x1x1x1xf32>
  %one = "tosa.const"() {values = dense<1.0> : tensor<1x1x1x1xf32>} : () -> tensor<1x1x1x1xf32>
  %rs2 = "tosa.const"() {values = dense<0.707106769> : tensor<1x1x1x1xf32>} : () -> tensor<1x1x1x1xf32>
  %h = tosa.mul %bn, %half, %shift : (tensor<1x8x8x4xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x8x8x4xf32>
  %s = tosa.mul %bn, %rs2, %shift : (tensor<1x8x8x4xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x8x8x4xf32>
  %e = tosa.erf %s : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %p = tosa.add %e, %one : (tensor<1x8x8x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x8x8x4xf32>
  %gelu = tosa.mul %h, %p, %shift : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>, tensor<1xi8>) -> tensor<1x8x8x4xf32>
  %three = "tosa.const"() {values = dense<3.0> : tensor<1x1x1x1xf32>} : () -> tensor<1x1x1x1xf32>
  %sixth = "tosa.const"() {values = dense<0.166666672> : tensor<1x1x1x1xf32>} : () -> tensor<1x1x1x1xf32>
  %a3 = tosa.add %gelu, %three : (tensor<1x8x8x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x8x8x4xf32>
  %cl = tosa.clamp %a3 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %hx = tosa.mul %gelu, %cl, %shift : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>, tensor<1xi8>) -> tensor<1x8x8x4xf32>
  %hs = tosa.mul %hx, %sixth, %shift : (tensor<1x8x8x4xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x8x8x4xf32>
  return %hs : tensor<1x8x8x4xf32>
}

// -----

// Elementwise arithmetic broadcasts as TOSA does; sigmoid and tanh map
// directly; a sum times the reciprocal count is a mean.
// CHECK-LABEL: func.func @elementwise_reduce
// CHECK:         %[[A:.*]] = dsm.add %arg0, %arg1 : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
// CHECK:         %[[M:.*]] = dsm.mul %[[A]], %arg1
// CHECK:         %[[S:.*]] = dsm.sigmoid %[[M]]
// CHECK:         %[[T:.*]] = dsm.tanh %[[S]]
// CHECK:         %[[D:.*]] = dsm.sub %[[T]], %arg1
// CHECK:         dsm.reduce <mean> %[[D]] {axes = array<i64: 2>, keep_dims} : (tensor<2x4x8xf32>) -> tensor<2x4x1xf32>
// CHECK:         dsm.reduce <max> %arg0 {axes = array<i64: 0>, keep_dims}
func.func @elementwise_reduce(%x: tensor<2x4x8xf32>, %y: tensor<2x4x8xf32>) -> (tensor<2x4x1xf32>, tensor<1x4x8xf32>) {
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %a = tosa.add %x, %y : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %m = tosa.mul %a, %y, %shift : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<1xi8>) -> tensor<2x4x8xf32>
  %s = tosa.sigmoid %m : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %t = tosa.tanh %s : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %d = tosa.sub %t, %y : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %sum = tosa.reduce_sum %d {axis = 2 : i32} : (tensor<2x4x8xf32>) -> tensor<2x4x1xf32>
  %inv = "tosa.const"() {values = dense<0.125> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
  %mean = tosa.mul %sum, %inv, %shift : (tensor<2x4x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x4x1xf32>
  %max = tosa.reduce_max %x {axis = 0 : i32} : (tensor<2x4x8xf32>) -> tensor<1x4x8xf32>
  return %mean, %max : tensor<2x4x1xf32>, tensor<1x4x8xf32>
}

// -----

// Data movement.
// CHECK-LABEL: func.func @data_movement
// CHECK-DAG:     dsm.reshape %arg0 {shape = array<i64: 0, 32>}
// CHECK-DAG:     dsm.transpose %arg0 {permutation = array<i64: 0, 2, 1>}
// CHECK-DAG:     dsm.concat %arg0, %arg1 {axis = 1 : i64} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
// CHECK-DAG:     dsm.slice %arg0 {offsets = array<i64: 0, 1, 0>, sizes = array<i64: -1, 2, 8>}
func.func @data_movement(%x: tensor<2x4x8xf32>, %y: tensor<2x4x8xf32>) -> (tensor<2x32xf32>, tensor<2x8x4xf32>, tensor<2x8x8xf32>, tensor<2x2x8xf32>) {
  %shape = tosa.const_shape {values = dense<[2, 32]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %x, %shape : (tensor<2x4x8xf32>, !tosa.shape<2>) -> tensor<2x32xf32>
  %tr = tosa.transpose %x {perms = array<i32: 0, 2, 1>} : (tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
  %cat = tosa.concat %x, %y {axis = 1 : i32} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
  %start = tosa.const_shape {values = dense<[0, 1, 0]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %size = tosa.const_shape {values = dense<[2, 2, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %sl = tosa.slice %x, %start, %size : (tensor<2x4x8xf32>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<2x2x8xf32>
  return %r, %tr, %cat, %sl : tensor<2x32xf32>, tensor<2x8x4xf32>, tensor<2x8x8xf32>, tensor<2x2x8xf32>
}

// -----

// tosa.conv3d: NDHWC, weight [O, KD, KH, KW, I] (ohwi), pad [front, back,
// top, bottom, left, right] reordered to dsm's [front, top, left, back,
// bottom, right]; a non-zero bias is kept.
// CHECK-LABEL: func.func @conv3d
// CHECK:         %[[W:.*]] = dsm.weight "{{.*}}" : tensor<8x3x3x3x4xf32>
// CHECK:         %[[B:.*]] = dsm.weight "{{.*}}" : tensor<8xf32>
// CHECK:         dsm.conv3d %arg0, %[[W]], %[[B]] {data_layout = #dsm.layout<nhwc>, kernel_layout = #dsm.kernel_layout<ohwi>, padding = array<i64: 1, 0, 2, 1, 0, 2>, strides = array<i64: 1, 2, 2>} : (tensor<1x4x9x7x4xf32>, tensor<8x3x3x3x4xf32>, tensor<8xf32>) -> tensor<1x4x4x5x8xf32>
func.func @conv3d(%x: tensor<1x4x9x7x4xf32>) -> tensor<1x4x4x5x8xf32> {
  %w = "tosa.const"() {values = dense_resource<__elided__> : tensor<8x3x3x3x4xf32>} : () -> tensor<8x3x3x3x4xf32>
  %b = "tosa.const"() {values = dense_resource<__elided__> : tensor<8xf32>} : () -> tensor<8xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %y = tosa.conv3d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1, 1>, pad = array<i64: 1, 1, 0, 0, 2, 2>, stride = array<i64: 1, 2, 2>} : (tensor<1x4x9x7x4xf32>, tensor<8x3x3x3x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x5x8xf32>
  return %y : tensor<1x4x4x5x8xf32>
}

// -----

// tosa.transpose_conv2d: out_pad [top, bottom, left, right] negated is the
// padding, a positive bottom/right below the stride the output_padding; the
// weight [O, KH, KW, C] is declared [C, O, KH, KW].
// CHECK-LABEL: func.func @transpose_conv
// CHECK:         %[[W:.*]] = dsm.weight "{{.*}}" : tensor<4x8x3x3xf32>
// CHECK:         dsm.conv_transpose2d %arg0, %[[W]] {data_layout = #dsm.layout<nhwc>, output_padding = array<i64: 1, 1>, padding = array<i64: 2, 2, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>, tensor<4x8x3x3xf32>) -> tensor<1x16x16x8xf32>
func.func @transpose_conv(%x: tensor<1x8x8x4xf32>) -> tensor<1x16x16x8xf32> {
  %w = "tosa.const"() {values = dense_resource<__elided__> : tensor<8x3x3x4xf32>} : () -> tensor<8x3x3x4xf32>
  %b = "tosa.const"() {values = dense<0.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %y = tosa.transpose_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, out_pad = array<i64: -2, 1, -2, 1>, stride = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x16x8xf32>
  return %y : tensor<1x16x16x8xf32>
}

// -----

// tosa.exp alone is dsm.exp.
// CHECK-LABEL: func.func @exp_alone
// CHECK-NEXT: %[[E:.*]] = dsm.exp %arg0 : tensor<2x8xf32>
// CHECK-NEXT: return %[[E]]
func.func @exp_alone(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %y = tosa.exp %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// RUN: dsm-opt %s | FileCheck %s
// Round trip: the printed form parses back to the same printed form.
// RUN: dsm-opt %s | dsm-opt | FileCheck %s
// And the generic form too.
// RUN: dsm-opt %s --mlir-print-op-generic | dsm-opt | FileCheck %s

// CHECK-LABEL: func.func @cnn
// CHECK: %[[W:.*]] = dsm.weight "conv.weight" : tensor<8x3x3x3xf32>
// CHECK: %[[B:.*]] = dsm.weight "conv.bias" : tensor<8xf32>
// CHECK: %[[C:.*]] = dsm.conv2d %{{.*}}, %[[W]], %[[B]] {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x16x16xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x8x8xf32>
// CHECK: dsm.conv2d %[[C]], %{{.*}} {groups = 8 : i64} : (tensor<2x8x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<2x8x6x6xf32>
// CHECK: dsm.conv2d %{{.*}}, %{{.*}} {data_layout = #dsm.layout<nhwc>, dilations = array<i64: 2, 2>, kernel_layout = #dsm.kernel_layout<hwio>} : (tensor<2x8x8x8xf32>, tensor<3x3x8x4xf32>) -> tensor<2x4x4x4xf32>
// CHECK: dsm.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x8x6x6xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x6x6xf32>
// CHECK: dsm.relu %{{.*}} : tensor<2x8x6x6xf32>
// CHECK: dsm.clamp %{{.*}} {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<2x8x6x6xf32>
// CHECK: dsm.hard_swish %{{.*}} : tensor<2x8x6x6xf32>
// CHECK: dsm.hard_sigmoid %{{.*}} : tensor<2x8x6x6xf32>
// CHECK: dsm.max_pool %{{.*}} {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x8x6x6xf32>) -> tensor<2x8x3x3xf32>
// CHECK: dsm.avg_pool %{{.*}} {ceil_mode, kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<2x8x3x3xf32>) -> tensor<2x8x2x2xf32>
// CHECK: dsm.global_avg_pool %{{.*}} : (tensor<2x8x2x2xf32>) -> tensor<2x8x1x1xf32>
// CHECK: dsm.reshape %{{.*}} {shape = array<i64: 0, -1>} : (tensor<2x8x1x1xf32>) -> tensor<2x8xf32>
// CHECK: dsm.fully_connected %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x8xf32>, tensor<10x8xf32>, tensor<10xf32>) -> tensor<2x10xf32>
// CHECK: dsm.softmax %{{.*}} : tensor<2x10xf32>
func.func @cnn(%x: tensor<2x3x16x16xf32>) -> tensor<2x10xf32> {
  %w = dsm.weight "conv.weight" : tensor<8x3x3x3xf32>
  %b = dsm.weight "conv.bias" : tensor<8xf32>
  %c = dsm.conv2d %x, %w, %b {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<2x3x16x16xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x8x8xf32>
  %dw = dsm.weight "dw.weight" : tensor<8x1x3x3xf32>
  %d = dsm.conv2d %c, %dw {groups = 8 : i64} : (tensor<2x8x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<2x8x6x6xf32>
  %hw = dsm.weight "nhwc.weight" : tensor<3x3x8x4xf32>
  %h = dsm.conv2d %c, %hw {data_layout = #dsm.layout<nhwc>, kernel_layout = #dsm.kernel_layout<hwio>, dilations = array<i64: 2, 2>} : (tensor<2x8x8x8xf32>, tensor<3x3x8x4xf32>) -> tensor<2x4x4x4xf32>
  %g = dsm.weight "bn.weight" : tensor<8xf32>
  %be = dsm.weight "bn.bias" : tensor<8xf32>
  %m = dsm.weight "bn.running_mean" : tensor<8xf32>
  %v = dsm.weight "bn.running_var" : tensor<8xf32>
  %n = dsm.batch_norm %d, %g, %be, %m, %v : (tensor<2x8x6x6xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x6x6xf32>
  %r = dsm.relu %n : tensor<2x8x6x6xf32>
  %r6 = dsm.clamp %r {min = 0.0 : f64, max = 6.0 : f64} : tensor<2x8x6x6xf32>
  %hs = dsm.hard_swish %r6 : tensor<2x8x6x6xf32>
  %hsig = dsm.hard_sigmoid %hs : tensor<2x8x6x6xf32>
  %p = dsm.max_pool %hsig {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<2x8x6x6xf32>) -> tensor<2x8x3x3xf32>
  %a = dsm.avg_pool %p {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode} : (tensor<2x8x3x3xf32>) -> tensor<2x8x2x2xf32>
  %gap = dsm.global_avg_pool %a : (tensor<2x8x2x2xf32>) -> tensor<2x8x1x1xf32>
  %f = dsm.reshape %gap {shape = array<i64: 0, -1>} : (tensor<2x8x1x1xf32>) -> tensor<2x8xf32>
  %fw = dsm.weight "fc.weight" : tensor<10x8xf32>
  %fb = dsm.weight "fc.bias" : tensor<10xf32>
  %fc = dsm.fully_connected %f, %fw, %fb : (tensor<2x8xf32>, tensor<10x8xf32>, tensor<10xf32>) -> tensor<2x10xf32>
  %s = dsm.softmax %fc : tensor<2x10xf32>
  return %s : tensor<2x10xf32>
}

// CHECK-LABEL: func.func @transformer
// CHECK: dsm.embedding %{{.*}}, %{{.*}} : (tensor<2x16xi64>, tensor<100x32xbf16>) -> tensor<2x16x32xbf16>
// CHECK: dsm.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 9.9999999999999998E-13 : f64} : (tensor<2x16x32xbf16>, tensor<32xbf16>, tensor<32xbf16>) -> tensor<2x16x32xbf16>
// CHECK: dsm.reshape %{{.*}} {shape = array<i64: 0, 0, 4, 8>} : (tensor<2x16x32xbf16>) -> tensor<2x16x4x8xbf16>
// CHECK: dsm.transpose %{{.*}} {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x8xbf16>) -> tensor<2x4x16x8xbf16>
// CHECK: dsm.matmul %{{.*}}, %{{.*}} {transpose_rhs} : (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>) -> tensor<2x4x16x16xbf16>
// CHECK: dsm.matmul %{{.*}}, %{{.*}} : (tensor<2x4x16x16xbf16>, tensor<2x4x16x8xbf16>) -> tensor<2x4x16x8xbf16>
// CHECK: dsm.gelu %{{.*}} : tensor<2x16x32xbf16>
// CHECK: dsm.add %{{.*}}, %{{.*}} : (tensor<2x16x32xbf16>, tensor<32xbf16>) -> tensor<2x16x32xbf16>
// CHECK: dsm.sub %{{.*}}, %{{.*}} : (tensor<2x16x32xbf16>, tensor<2x16x32xbf16>) -> tensor<2x16x32xbf16>
// CHECK: dsm.mul %{{.*}}, %{{.*}} : (tensor<2x16x32xbf16>, tensor<2x1x32xbf16>) -> tensor<2x16x32xbf16>
// CHECK: dsm.div %{{.*}}, %{{.*}} : (tensor<2x16x32xbf16>, tensor<1xbf16>) -> tensor<2x16x32xbf16>
// CHECK: dsm.slice %{{.*}} {offsets = array<i64: 0, 0, 0>, sizes = array<i64: -1, 1, -1>} : (tensor<2x16x32xbf16>) -> tensor<2x1x32xbf16>
// CHECK: dsm.reduce <mean> %{{.*}} {axes = array<i64: 1>, keep_dims} : (tensor<2x16x32xbf16>) -> tensor<2x1x32xbf16>
// CHECK: dsm.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x16x32xbf16>, tensor<2x1x32xbf16>) -> tensor<2x17x32xbf16>
// CHECK: dsm.tanh %{{.*}} : tensor<2x17x32xbf16>
// CHECK: dsm.sigmoid %{{.*}} : tensor<2x17x32xbf16>
func.func @transformer(%ids: tensor<2x16xi64>) -> tensor<2x17x32xbf16> {
  %t = dsm.weight "emb" : tensor<100x32xbf16>
  %e = dsm.embedding %ids, %t : (tensor<2x16xi64>, tensor<100x32xbf16>) -> tensor<2x16x32xbf16>
  %g = dsm.weight "ln.weight" : tensor<32xbf16>
  %b = dsm.weight "ln.bias" : tensor<32xbf16>
  %ln = dsm.layer_norm %e, %g, %b {epsilon = 1.0e-12 : f64} : (tensor<2x16x32xbf16>, tensor<32xbf16>, tensor<32xbf16>) -> tensor<2x16x32xbf16>
  %h = dsm.reshape %ln {shape = array<i64: 0, 0, 4, 8>} : (tensor<2x16x32xbf16>) -> tensor<2x16x4x8xbf16>
  %q = dsm.transpose %h {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x8xbf16>) -> tensor<2x4x16x8xbf16>
  %s = dsm.matmul %q, %q {transpose_rhs} : (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>) -> tensor<2x4x16x16xbf16>
  %c = dsm.matmul %s, %q : (tensor<2x4x16x16xbf16>, tensor<2x4x16x8xbf16>) -> tensor<2x4x16x8xbf16>
  %gl = dsm.gelu %ln : tensor<2x16x32xbf16>
  %a = dsm.add %gl, %b : (tensor<2x16x32xbf16>, tensor<32xbf16>) -> tensor<2x16x32xbf16>
  %d = dsm.sub %a, %ln : (tensor<2x16x32xbf16>, tensor<2x16x32xbf16>) -> tensor<2x16x32xbf16>
  %first = dsm.slice %d {offsets = array<i64: 0, 0, 0>, sizes = array<i64: -1, 1, -1>} : (tensor<2x16x32xbf16>) -> tensor<2x1x32xbf16>
  %m = dsm.mul %d, %first : (tensor<2x16x32xbf16>, tensor<2x1x32xbf16>) -> tensor<2x16x32xbf16>
  %k = dsm.weight "scale" : tensor<1xbf16>
  %dv = dsm.div %m, %k : (tensor<2x16x32xbf16>, tensor<1xbf16>) -> tensor<2x16x32xbf16>
  %sl = dsm.slice %dv {offsets = array<i64: 0, 0, 0>, sizes = array<i64: -1, 1, -1>} : (tensor<2x16x32xbf16>) -> tensor<2x1x32xbf16>
  %mean = dsm.reduce <mean> %dv {axes = array<i64: 1>, keep_dims} : (tensor<2x16x32xbf16>) -> tensor<2x1x32xbf16>
  %cat = dsm.concat %dv, %mean {axis = 1 : i64} : (tensor<2x16x32xbf16>, tensor<2x1x32xbf16>) -> tensor<2x17x32xbf16>
  %th = dsm.tanh %cat : tensor<2x17x32xbf16>
  %sg = dsm.sigmoid %th : tensor<2x17x32xbf16>
  return %sg : tensor<2x17x32xbf16>
}

// CHECK-LABEL: func.func @recurrent
// CHECK: dsm.lstm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {bidirectional} : (tensor<5x2x16xf16>, tensor<2x32x16xf16>, tensor<2x32x8xf16>, tensor<2x64xf16>) -> tensor<5x2x16xf16>
// CHECK: dsm.lstm %{{.*}}, %{{.*}}, %{{.*}} : (tensor<5x2x16xf16>, tensor<1x32x16xf16>, tensor<1x32x8xf16>) -> tensor<5x2x8xf16>
// CHECK: dsm.opaque "linalg.generic"(%{{.*}}) {ops_per_element = 3.000000e+00 : f64} : (tensor<5x2x8xf16>) -> tensor<5x2x8xf16>
func.func @recurrent(%x: tensor<5x2x16xf16> {dsm.batch_dim = 1 : i64}) -> tensor<5x2x8xf16> {
  %w = dsm.weight "l0.w" : tensor<2x32x16xf16>
  %r = dsm.weight "l0.r" : tensor<2x32x8xf16>
  %b = dsm.weight "l0.b" : tensor<2x64xf16>
  %y = dsm.lstm %x, %w, %r, %b {bidirectional} : (tensor<5x2x16xf16>, tensor<2x32x16xf16>, tensor<2x32x8xf16>, tensor<2x64xf16>) -> tensor<5x2x16xf16>
  %w1 = dsm.weight "l1.w" : tensor<1x32x16xf16>
  %r1 = dsm.weight "l1.r" : tensor<1x32x8xf16>
  %z = dsm.lstm %y, %w1, %r1 : (tensor<5x2x16xf16>, tensor<1x32x16xf16>, tensor<1x32x8xf16>) -> tensor<5x2x8xf16>
  %o = dsm.opaque "linalg.generic"(%z) {ops_per_element = 3.0 : f64} : (tensor<5x2x8xf16>) -> tensor<5x2x8xf16>
  return %o : tensor<5x2x8xf16>
}

// CHECK-LABEL: func.func @int8
// CHECK: dsm.conv2d %{{.*}}, %{{.*}} : (tensor<1x4x4x4xi8>, tensor<4x4x1x1xi8>) -> tensor<1x4x4x4xi8>
func.func @int8(%x: tensor<1x4x4x4xi8>, %w: tensor<4x4x1x1xi8>) -> tensor<1x4x4x4xi8> {
  %y = dsm.conv2d %x, %w : (tensor<1x4x4x4xi8>, tensor<4x4x1x1xi8>) -> tensor<1x4x4x4xi8>
  return %y : tensor<1x4x4x4xi8>
}

// CHECK-LABEL: func.func @video
// CHECK: %[[C:.*]] = dsm.conv3d %{{.*}}, %{{.*}}, %{{.*}} {padding = array<i64: 1, 1, 1, 1, 1, 1>, strides = array<i64: 1, 2, 2>} : (tensor<2x3x8x16x16xf32>, tensor<8x3x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x8x8x8xf32>
// CHECK: dsm.conv3d %[[C]], %{{.*}} {data_layout = #dsm.layout<nhwc>, kernel_layout = #dsm.kernel_layout<hwio>} : (tensor<2x8x8x8x8xf32>, tensor<1x3x3x8x4xf32>) -> tensor<2x8x6x6x4xf32>
func.func @video(%x: tensor<2x3x8x16x16xf32>) -> tensor<2x8x6x6x4xf32> {
  %w = dsm.weight "c1.w" : tensor<8x3x3x3x3xf32>
  %b = dsm.weight "c1.b" : tensor<8xf32>
  %c = dsm.conv3d %x, %w, %b {strides = array<i64: 1, 2, 2>, padding = array<i64: 1, 1, 1, 1, 1, 1>} : (tensor<2x3x8x16x16xf32>, tensor<8x3x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x8x8x8xf32>
  %w2 = dsm.weight "c2.w" : tensor<1x3x3x8x4xf32>
  %d = dsm.conv3d %c, %w2 {data_layout = #dsm.layout<nhwc>, kernel_layout = #dsm.kernel_layout<hwio>} : (tensor<2x8x8x8x8xf32>, tensor<1x3x3x8x4xf32>) -> tensor<2x8x6x6x4xf32>
  return %d : tensor<2x8x6x6x4xf32>
}

// CHECK-LABEL: func.func @decoder
// CHECK: dsm.conv_transpose2d %{{.*}}, %{{.*}}, %{{.*}} {output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x16x7x7xf32>, tensor<16x8x3x3xf32>, tensor<8xf32>) -> tensor<2x8x14x14xf32>
func.func @decoder(%x: tensor<2x16x7x7xf32>) -> tensor<2x8x14x14xf32> {
  %w = dsm.weight "up.w" : tensor<16x8x3x3xf32>
  %b = dsm.weight "up.b" : tensor<8xf32>
  %y = dsm.conv_transpose2d %x, %w, %b {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>} : (tensor<2x16x7x7xf32>, tensor<16x8x3x3xf32>, tensor<8xf32>) -> tensor<2x8x14x14xf32>
  return %y : tensor<2x8x14x14xf32>
}

// A 3-D window: [N, C, D, H, W] or channels last.
// CHECK-LABEL: func.func @pool3d
// CHECK: dsm.max_pool %{{.*}} {kernel = array<i64: 2, 3, 3>, padding = array<i64: 0, 1, 1, 0, 1, 1>, strides = array<i64: 2, 2, 2>} : (tensor<2x8x8x16x16xf32>) -> tensor<2x8x4x8x8xf32>
// CHECK: dsm.avg_pool %{{.*}} {data_layout = #dsm.layout<nhwc>, kernel = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0, 0, 0, 0>, strides = array<i64: 2, 2, 2>} : (tensor<2x4x8x8x8xf32>) -> tensor<2x2x4x4x8xf32>
func.func @pool3d(%x: tensor<2x8x8x16x16xf32>, %y: tensor<2x4x8x8x8xf32>) -> (tensor<2x8x4x8x8xf32>, tensor<2x2x4x4x8xf32>) {
  %m = dsm.max_pool %x {kernel = array<i64: 2, 3, 3>, strides = array<i64: 2, 2, 2>, padding = array<i64: 0, 1, 1, 0, 1, 1>} : (tensor<2x8x8x16x16xf32>) -> tensor<2x8x4x8x8xf32>
  %a = dsm.avg_pool %y {kernel = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0, 0, 0, 0>, data_layout = #dsm.layout<nhwc>} : (tensor<2x4x8x8x8xf32>) -> tensor<2x2x4x4x8xf32>
  return %m, %a : tensor<2x8x4x8x8xf32>, tensor<2x2x4x4x8xf32>
}

// RMSNorm and the pieces exporters spell composite functions with.
// CHECK-LABEL: func.func @llm_pieces
// CHECK: dsm.rms_norm %arg0, %{{.*}} {epsilon = 1.000000e-05 : f64} : (tensor<1x8x64xf32>, tensor<64xf32>) -> tensor<1x8x64xf32>
// CHECK: dsm.rsqrt %{{.*}} : tensor<1x8x64xf32>
// CHECK: dsm.erf %{{.*}} : tensor<1x8x64xf32>
// CHECK: dsm.sqrt %{{.*}} : tensor<1x8x64xf32>
// CHECK: dsm.exp %{{.*}} : tensor<1x8x64xf32>
func.func @llm_pieces(%x: tensor<1x8x64xf32>) -> tensor<1x8x64xf32> {
  %w = dsm.weight "norm.weight" : tensor<64xf32>
  %n = dsm.rms_norm %x, %w {epsilon = 1.0e-5 : f64} : (tensor<1x8x64xf32>, tensor<64xf32>) -> tensor<1x8x64xf32>
  %r = dsm.rsqrt %n : tensor<1x8x64xf32>
  %e = dsm.erf %r : tensor<1x8x64xf32>
  %s = dsm.sqrt %e : tensor<1x8x64xf32>
  %y = dsm.exp %s : tensor<1x8x64xf32>
  return %y : tensor<1x8x64xf32>
}

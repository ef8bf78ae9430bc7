// A small CNN in TOSA with a dynamic batch: conv + bias + ReLU, max pooling,
// depthwise and pointwise convolutions, global average pooling, a TF-style
// fully connected layer (reshapes around a matmul, bias added after) and a
// decomposed softmax. Imported at batch 1 it re-batches with --dsm-set-batch.
// RUN: dsm-opt %s --dsm-import-tosa=batch=1 --dsm-workload-report=format=json -o /dev/null | FileCheck %s
// RUN: dsm-opt %s --dsm-import-tosa=batch=1 --dsm-set-batch=batch=4 --dsm-workload-report=format=json -o /dev/null | FileCheck %s --check-prefix=BATCH4
// RUN: dsm-opt %s --dsm-import-tosa=batch=1 --dsm-set-batch=batch=4 | FileCheck %s --check-prefix=IR

// MACs: 32*32*16*27 + 16*16*16*9 + 16*16*32*16 + 32*10 = 610,624;
// parameters: 16*27+16 + 16*9+16 + 32*16+32 + 320+10 = 1,482.
// CHECK:      "totals": {
// CHECK:        "conv_layers": 3,
// CHECK-NEXT:   "depthwise_conv_layers": 1,
// CHECK-NEXT:   "fc_layers": 1,
// CHECK-NEXT:   "lstm_layers": 0,
// CHECK-NEXT:   "macs": 610624,
// CHECK-NEXT:   "matmul_layers": 0,
// CHECK-NEXT:   "params": 1482,

// BATCH4:      "totals": {
// BATCH4:        "macs": 2442496,

// IR-LABEL: func.func @cnn(%arg0: tensor<4x32x32x3xf32>) -> tensor<4x10xf32>
// IR:         dsm.conv2d
// IR:         dsm.relu
// IR:         dsm.max_pool
// IR:         dsm.conv2d {{.*}}groups = 16
// IR:         dsm.conv2d
// IR:         dsm.global_avg_pool
// IR:         dsm.reshape {{.*}} {shape = array<i64: 0, 32>}
// At batch 1, TF's [N, 32] -> [1, N, 32] cannot be told from a unit middle
// dimension: the batch stays first, the same elements in the same order.
// IR:         dsm.reshape {{.*}} {shape = array<i64: 0, 1, 32>}
// IR:         dsm.fully_connected {{.*}} -> tensor<4x1x10xf32>
// IR:         dsm.reshape {{.*}} {shape = array<i64: 0, 10>}
// IR:         dsm.add
// IR:         dsm.softmax {{.*}} {axis = 1 : i64} : tensor<4x10xf32>

func.func @cnn(%x: tensor<?x32x32x3xf32>) -> tensor<?x10xf32> {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %w1 = "tosa.const"() {values = dense_resource<__elided__> : tensor<16x3x3x3xf32>} : () -> tensor<16x3x3x3xf32>
  %b1 = "tosa.const"() {values = dense_resource<__elided__> : tensor<16xf32>} : () -> tensor<16xf32>
  %c1 = tosa.conv2d %x, %w1, %b1, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x32x3xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x32x32x16xf32>
  %r1 = tosa.clamp %c1 {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<?x32x32x16xf32>) -> tensor<?x32x32x16xf32>
  %p1 = tosa.max_pool2d %r1 {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x32x32x16xf32>) -> tensor<?x16x16x16xf32>
  %w2 = "tosa.const"() {values = dense_resource<__elided__> : tensor<3x3x16x1xf32>} : () -> tensor<3x3x16x1xf32>
  %b2 = "tosa.const"() {values = dense_resource<__elided__> : tensor<16xf32>} : () -> tensor<16xf32>
  %d2 = tosa.depthwise_conv2d %p1, %w2, %b2, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x16x16x16xf32>, tensor<3x3x16x1xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x16x16x16xf32>
  %w3 = "tosa.const"() {values = dense_resource<__elided__> : tensor<32x1x1x16xf32>} : () -> tensor<32x1x1x16xf32>
  %b3 = "tosa.const"() {values = dense_resource<__elided__> : tensor<32xf32>} : () -> tensor<32xf32>
  %c3 = tosa.conv2d %d2, %w3, %b3, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<?x16x16x16xf32>, tensor<32x1x1x16xf32>, tensor<32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x16x16x32xf32>
  %g = tosa.avg_pool2d %c3, %zp, %zp {acc_type = f32, kernel = array<i64: 16, 16>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<?x16x16x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x1x1x32xf32>
  %s0 = tosa.const_shape {values = dense<[-1, 32]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %f = tosa.reshape %g, %s0 : (tensor<?x1x1x32xf32>, !tosa.shape<2>) -> tensor<?x32xf32>
  %s1 = tosa.const_shape {values = dense<[1, -1, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %f3 = tosa.reshape %f, %s1 : (tensor<?x32xf32>, !tosa.shape<3>) -> tensor<1x?x32xf32>
  %w4 = "tosa.const"() {values = dense_resource<__elided__> : tensor<1x32x10xf32>} : () -> tensor<1x32x10xf32>
  %m = tosa.matmul %f3, %w4, %zp, %zp : (tensor<1x?x32xf32>, tensor<1x32x10xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x?x10xf32>
  %s2 = tosa.const_shape {values = dense<[-1, 10]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %l = tosa.reshape %m, %s2 : (tensor<1x?x10xf32>, !tosa.shape<2>) -> tensor<?x10xf32>
  %b4 = "tosa.const"() {values = dense_resource<__elided__> : tensor<1x10xf32>} : () -> tensor<1x10xf32>
  %lb = tosa.add %l, %b4 : (tensor<?x10xf32>, tensor<1x10xf32>) -> tensor<?x10xf32>
  %mx = tosa.reduce_max %lb {axis = 1 : i32} : (tensor<?x10xf32>) -> tensor<?x1xf32>
  %sb = tosa.sub %lb, %mx : (tensor<?x10xf32>, tensor<?x1xf32>) -> tensor<?x10xf32>
  %ex = tosa.exp %sb : (tensor<?x10xf32>) -> tensor<?x10xf32>
  %sm = tosa.reduce_sum %ex {axis = 1 : i32} : (tensor<?x10xf32>) -> tensor<?x1xf32>
  %rc = tosa.reciprocal %sm : (tensor<?x1xf32>) -> tensor<?x1xf32>
  %y = tosa.mul %ex, %rc, %shift : (tensor<?x10xf32>, tensor<?x1xf32>, tensor<1xi8>) -> tensor<?x10xf32>
  return %y : tensor<?x10xf32>
}

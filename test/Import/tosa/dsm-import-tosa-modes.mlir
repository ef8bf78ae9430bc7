// Permissive mode keeps unrecognised TOSA ops as dsm.opaque (a convolution
// at two operations per weight element read), and batch=<N> fixes a dynamic
// batch dimension.
// RUN: dsm-opt %s --dsm-import-tosa="mode=permissive batch=2 summary=%t.summary" 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=SUMMARY < %t.summary

// CHECK: warning: 2 operation(s) kept as dsm.opaque
// CHECK-LABEL: func.func @mixed(%arg0: tensor<2x8x8x4xf32>, %arg1: tensor<8x1x1x4xf32>) -> tensor<2x8x8x8xf32>
// CHECK:         %[[C:.*]] = dsm.opaque "tosa.conv2d"(%arg0, %arg1) {ops_per_element = 8.000000e+00 : f64} : (tensor<2x8x8x4xf32>, tensor<8x1x1x4xf32>) -> tensor<2x8x8x8xf32>
// CHECK:         %[[S:.*]] = dsm.opaque "tosa.sin"(%[[C]]) : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
// CHECK:         dsm.sigmoid %[[S]] : tensor<2x8x8x8xf32>

// SUMMARY:      dsm-import-tosa summary (mode=permissive)
// SUMMARY-NEXT: @mixed: 5 source ops -> 3 dsm ops (imported 1, fused 0, folded 2, dropped 0, opaque 2)
// SUMMARY-NEXT:   tosa.const 2 folded 2 -> into its consumers 2
// SUMMARY-NEXT:   tosa.conv2d 1 opaque 1 -> dsm.opaque 1
// SUMMARY-NEXT:   tosa.sigmoid 1 imported 1 -> dsm.sigmoid 1
// SUMMARY-NEXT:   tosa.sin 1 opaque 1 -> dsm.opaque 1
// SUMMARY-NEXT:   opaque: 2
// SUMMARY-NEXT:     dsm-import-tosa-modes.mlir:{{[0-9]+}}:8: tosa.conv2d (8 ops/element x 1024 elements): the weight is not a constant
// SUMMARY-NEXT:     dsm-import-tosa-modes.mlir:{{[0-9]+}}:8: tosa.sin (1 ops/element x 1024 elements): elementwise function not recognised (1 operation(s); not modelled: tosa.sin)

func.func @mixed(%x: tensor<?x8x8x4xf32>, %w: tensor<8x1x1x4xf32>) -> tensor<?x8x8x8xf32> {
  %b = "tosa.const"() {values = dense<0.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %y = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<?x8x8x4xf32>, tensor<8x1x1x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x8x8x8xf32>
  %s = tosa.sin %y : (tensor<?x8x8x8xf32>) -> tensor<?x8x8x8xf32>
  %g = tosa.sigmoid %s : (tensor<?x8x8x8xf32>) -> tensor<?x8x8x8xf32>
  return %g : tensor<?x8x8x8xf32>
}

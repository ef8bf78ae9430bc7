// Integer data where dsm cannot convert it (issue 45): the error is located
// at the op and names it; the import fails.
// RUN: dsm-opt %s --dsm-import-linalg -verify-diagnostics -o /dev/null
// RUN: not dsm-opt %s --dsm-import-linalg -o /dev/null 2>&1 | FileCheck %s
// CHECK: int-casts-invalid.mlir:[[@LINE+8]]:8: error: cannot import 'linalg.conv_2d_nchw_fchw'

func.func @conv_of_ids(%x: tensor<1x3x8x8xi64>) -> tensor<1x4x6x6xf32> {
  %w = arith.constant dense_resource<__elided__> : tensor<4x3x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  // expected-error @+1 {{cannot import 'linalg.conv_2d_nchw_fchw': element type 'i64' is not supported by dsm (f32, f16, bf16, i8)}}
  %y = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x3x8x8xi64>, tensor<4x3x3x3xf32>) outs(%f : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

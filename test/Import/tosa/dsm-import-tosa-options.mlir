// RUN: not dsm-opt %s --dsm-import-tosa=batch=-2 2>&1 | FileCheck %s

// CHECK: error: the batch size must not be negative, got -2
func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}

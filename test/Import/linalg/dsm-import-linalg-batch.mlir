// A dynamic batch dimension is fixed with batch=<N>; shapes follow from it.
// RUN: dsm-opt %s --dsm-import-linalg=batch=8 | FileCheck %s
// The result re-batches like any dsm model.
// RUN: dsm-opt %s --dsm-import-linalg=batch=8 --dsm-set-batch=batch=2 | FileCheck %s --check-prefix=REBATCH
// A negative batch is an error.
// RUN: not dsm-opt %s --dsm-import-linalg=batch=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// CHECK-LABEL: func.func @dynamic_mlp
// CHECK-SAME:    (%arg0: tensor<8x16xf32>) -> tensor<8x2x2xf32>
// CHECK:         dsm.fully_connected %arg0, %{{.*}} : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
// CHECK:         dsm.relu %{{.*}} : tensor<8x4xf32>
// CHECK:         dsm.reshape %{{.*}} {shape = array<i64: 0, 2, 2>} : (tensor<8x4xf32>) -> tensor<8x2x2xf32>

// REBATCH: func.func @dynamic_mlp(%arg0: tensor<2x16xf32>) -> tensor<2x2x2xf32>

// NEGATIVE: error: the batch size must not be negative, got -1

#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @dynamic_mlp(%x: tensor<?x16xf32>) -> tensor<?x2x2xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %w = arith.constant dense_resource<__elided__> : tensor<16x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x16xf32>, tensor<16x4xf32>) outs(%f : tensor<?x4xf32>) -> tensor<?x4xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<?x4xf32>
  %s = tensor.expand_shape %r [[0], [1, 2]] output_shape [%n, 2, 2] : tensor<?x4xf32> into tensor<?x2x2xf32>
  return %s : tensor<?x2x2xf32>
}

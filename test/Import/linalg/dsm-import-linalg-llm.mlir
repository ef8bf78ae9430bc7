// RUN: dsm-opt %s -split-input-file --dsm-import-linalg | FileCheck %s
// RUN: dsm-opt %s -split-input-file --dsm-import-linalg --dsm-workload-report -o /dev/null | FileCheck %s --check-prefix=REPORT

// torch-mlir's aten.embedding (a gather of table[index_cast(id),
// linalg.index 2]) is dsm.embedding of the constant table. GPT-2's head
// reuses the table: the head's nn.Linear (transposed, broadcast over the
// batch, linalg.batch_matmul) declares the same [V, D] weight, counted once.
// CHECK-LABEL: func.func @tied_embedding
// CHECK-SAME: (%[[IDS:.*]]: tensor<1x4xi64>)
// CHECK: %[[TABLE:.*]] = dsm.weight {{.*}} : tensor<100x8xf32>
// CHECK: %[[X:.*]] = dsm.embedding %[[IDS]], %[[TABLE]] : (tensor<1x4xi64>, tensor<100x8xf32>) -> tensor<1x4x8xf32>
// CHECK-NOT: dsm.weight
// CHECK: dsm.fully_connected %[[X]], %[[TABLE]] : (tensor<1x4x8xf32>, tensor<100x8xf32>) -> tensor<1x4x100xf32>
// 4 tokens x 8 x 100 MACs; the table's 800 parameters once.
// REPORT: totals: 3,200 MACs, 800 parameters, 0 conv (0 depthwise), 1 fc, 0 matmul
#ids = affine_map<(d0, d1, d2) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @tied_embedding(%ids: tensor<1x4xi64>) -> tensor<1x4x100xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %table = arith.constant dense_resource<__elided__> : tensor<100x8xf32>
  %e = tensor.empty() : tensor<1x4x8xf32>
  %x = linalg.generic {indexing_maps = [#ids, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ids : tensor<1x4xi64>) outs(%e : tensor<1x4x8xf32>) {
  ^bb0(%id: i64, %o: f32):
    %i = arith.index_cast %id : i64 to index
    %j = linalg.index 2 : index
    %v = tensor.extract %table[%i, %j] : tensor<100x8xf32>
    linalg.yield %v : f32
  } -> tensor<1x4x8xf32>
  %et = tensor.empty() : tensor<8x100xf32>
  %t = linalg.transpose ins(%table : tensor<100x8xf32>) outs(%et : tensor<8x100xf32>) permutation = [1, 0]
  %eb = tensor.empty() : tensor<1x8x100xf32>
  %b = linalg.broadcast ins(%t : tensor<8x100xf32>) outs(%eb : tensor<1x8x100xf32>) dimensions = [0]
  %eo = tensor.empty() : tensor<1x4x100xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x4x100xf32>) -> tensor<1x4x100xf32>
  %logits = linalg.batch_matmul ins(%x, %b : tensor<1x4x8xf32>, tensor<1x8x100xf32>) outs(%acc : tensor<1x4x100xf32>) -> tensor<1x4x100xf32>
  return %logits : tensor<1x4x100xf32>
}

// -----

// A batch_matmul whose right operand is an activation broadcast over the
// batch stays a product of two activations (only constants are looked
// through).
// CHECK-LABEL: func.func @broadcast_activation
// CHECK: dsm.opaque "linalg.broadcast"
// CHECK: dsm.matmul
// REPORT: totals: 256 MACs, 0 parameters, 0 conv (0 depthwise), 0 fc, 1 matmul
func.func @broadcast_activation(%x: tensor<1x4x8xf32>, %w: tensor<8x8xf32>) -> tensor<1x4x8xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %eb = tensor.empty() : tensor<1x8x8xf32>
  %b = linalg.broadcast ins(%w : tensor<8x8xf32>) outs(%eb : tensor<1x8x8xf32>) dimensions = [0]
  %eo = tensor.empty() : tensor<1x4x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %y = linalg.batch_matmul ins(%x, %b : tensor<1x4x8xf32>, tensor<1x8x8xf32>) outs(%acc : tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

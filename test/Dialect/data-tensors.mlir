// RUN: dsm-opt %s -split-input-file | FileCheck %s
// RUN: dsm-opt %s -split-input-file --dsm-workload-report -o /dev/null | FileCheck %s --check-prefix=REPORT
// RUN: dsm-opt %s -split-input-file --dsm-set-batch=batch=8 | FileCheck %s --check-prefix=BATCH8

// Integer tensors are data: token ids, positions, indices (i32, i64) and
// masks (i1) are reshaped, transposed, sliced and concatenated as any
// activation, charged their bytes (8 per i64, 4 per i32, 1 per i1) and no
// arithmetic, and re-batched with the model.
// CHECK-LABEL: func.func @ids
// CHECK: dsm.reshape %arg0 {shape = array<i64: -1>} : (tensor<1x5xi64>) -> tensor<5xi64>
// CHECK: dsm.reshape %{{.*}} {shape = array<i64: -1, 5>} : (tensor<5xi64>) -> tensor<1x5xi64>
// CHECK: dsm.transpose %{{.*}} {permutation = array<i64: 1, 0>} : (tensor<1x5xi64>) -> tensor<5x1xi64>
// CHECK: dsm.slice %{{.*}} : (tensor<1x5xi64>) -> tensor<1x4xi64>
// CHECK: dsm.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<1x5xi64>, tensor<1x4xi64>) -> tensor<1x9xi64>
// CHECK: dsm.concat %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<1x5xi32>, tensor<1x5xi32>) -> tensor<2x5xi32>
// CHECK: dsm.reshape %arg1 {shape = array<i64: 0, 1, 5>} : (tensor<1x5xi1>) -> tensor<1x1x5xi1>
// 9 x 8 bytes, 10 x 4 bytes, 5 x 1 byte.
// REPORT: reshape_0 reshape 1 1 1 1 5 0 0 40
// REPORT: concat_0 concat 1 9 1 1 1 0 0 72
// REPORT: concat_1 concat 1 5 1 1 2 0 0 40
// REPORT: reshape_2 reshape 1 5 1 1 1 0 0 5
// REPORT: totals: 0 MACs, 0 parameters, 0 conv (0 depthwise), 0 fc, 0 matmul, 0 lstm layers, 184 activation bytes, 0 auxiliary ops
// BATCH8-LABEL: func.func @ids
// BATCH8: dsm.concat {{.*}} -> tensor<8x9xi64>
// BATCH8: dsm.reshape %arg1 {{.*}} -> tensor<8x1x5xi1>
func.func @ids(%ids: tensor<1x5xi64>, %mask: tensor<1x5xi1>, %ids32: tensor<1x5xi32>) -> (tensor<1x9xi64>, tensor<5x1xi64>, tensor<2x5xi32>, tensor<1x1x5xi1>) {
  %flat = dsm.reshape %ids {shape = array<i64: -1>} : (tensor<1x5xi64>) -> tensor<5xi64>
  %view = dsm.reshape %flat {shape = array<i64: -1, 5>} : (tensor<5xi64>) -> tensor<1x5xi64>
  %t = dsm.transpose %view {permutation = array<i64: 1, 0>} : (tensor<1x5xi64>) -> tensor<5x1xi64>
  %s = dsm.slice %view {offsets = array<i64: 0, 1>, sizes = array<i64: -1, -1>} : (tensor<1x5xi64>) -> tensor<1x4xi64>
  %cat = dsm.concat %view, %s {axis = 1 : i64} : (tensor<1x5xi64>, tensor<1x4xi64>) -> tensor<1x9xi64>
  %cat32 = dsm.concat %ids32, %ids32 {axis = 0 : i64} : (tensor<1x5xi32>, tensor<1x5xi32>) -> tensor<2x5xi32>
  %m = dsm.reshape %mask {shape = array<i64: 0, 1, 5>} : (tensor<1x5xi1>) -> tensor<1x1x5xi1>
  return %cat, %t, %cat32, %m : tensor<1x9xi64>, tensor<5x1xi64>, tensor<2x5xi32>, tensor<1x1x5xi1>
}

// RUN: dsm-opt %s | FileCheck %s
// RUN: dsm-opt %s --dsm-workload-report -o /dev/null | FileCheck %s --check-prefix=REPORT
// RUN: dsm-opt %s --dsm-set-batch=batch=8 | FileCheck %s --check-prefix=BATCH8

// A class token of one sample is joined to every sample of the batch: a
// parameter, counted once whatever the batch.
// CHECK-LABEL: func.func @class_token
// CHECK: dsm.concat %{{.*}}, %arg0 {axis = 1 : i64} : (tensor<1x1x32xf32>, tensor<2x16x32xf32>) -> tensor<2x17x32xf32>
// REPORT: concat_0 concat 1 544 1 1 2 0 32 4,352
// REPORT: totals: 0 MACs, 32 parameters
// BATCH8-LABEL: func.func @class_token
// BATCH8: -> tensor<8x17x32xf32>
func.func @class_token(%x: tensor<2x16x32xf32>) -> tensor<2x17x32xf32> {
  %cls = dsm.weight "class_token" : tensor<1x1x32xf32>
  %y = dsm.concat %cls, %x {axis = 1 : i64} : (tensor<1x1x32xf32>, tensor<2x16x32xf32>) -> tensor<2x17x32xf32>
  return %y : tensor<2x17x32xf32>
}

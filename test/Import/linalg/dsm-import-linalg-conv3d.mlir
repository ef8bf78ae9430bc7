// RUN: dsm-opt %S/../Inputs/conv3d-linalg.mlir --dsm-import-linalg | FileCheck %s
// RUN: dsm-opt %s --dsm-import-linalg | FileCheck %s --check-prefix=NDHWC
// RUN: dsm-opt %S/../Inputs/conv3d-linalg.mlir --dsm-import-linalg --dsm-workload-report -o /dev/null | FileCheck %s --check-prefix=REPORT

// torch-mlir's 3-D convolutions: the zero pad folded into the padding
// [front, top, left, back, bottom, right], the broadcast init as the bias.
// CHECK-LABEL: func.func @conv3d
// CHECK:         %[[W1:.*]] = dsm.weight "{{.*}}" : tensor<4x2x3x3x3xf32>
// CHECK:         %[[B1:.*]] = dsm.weight "{{.*}}" : tensor<4xf32>
// CHECK:         %[[C1:.*]] = dsm.conv3d %arg0, %[[W1]], %[[B1]] {padding = array<i64: 1, 1, 1, 1, 1, 1>} : (tensor<1x2x4x6x6xf32>, tensor<4x2x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x6x6xf32>
// CHECK:         %[[W2:.*]] = dsm.weight "{{.*}}" : tensor<8x4x3x3x3xf32>
// CHECK:         dsm.conv3d %[[C1]], %[[W2]] {strides = array<i64: 2, 2, 2>} : (tensor<1x4x4x6x6xf32>, tensor<8x4x3x3x3xf32>) -> tensor<1x8x1x2x2xf32>

// ij counts output voxels, kij kernel voxels: 1 x 4 x (4*6*6) x 2 x 27 and
// 1 x 8 x (1*2*2) x 4 x 27 MACs.
// REPORT: conv3d_0 conv 2 4 144 27 1 31,104 220
// REPORT: conv3d_1 conv 4 8 4 27 1 3,456 864

// The channels-last form: NDHWC input, DHWIO (hwio) kernel.
// NDHWC-LABEL: func.func @conv3d_ndhwc
// NDHWC:         dsm.conv3d %arg0, %{{.*}} {data_layout = #dsm.layout<nhwc>, dilations = array<i64: 2, 1, 1>, kernel_layout = #dsm.kernel_layout<hwio>} : (tensor<1x6x6x6x2xf32>, tensor<3x3x3x2x4xf32>) -> tensor<1x2x4x4x4xf32>
func.func @conv3d_ndhwc(%x: tensor<1x6x6x6x2xf32>) -> tensor<1x2x4x4x4xf32> {
  %w = arith.constant dense_resource<__elided__> : tensor<3x3x3x2x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x4x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x4x4x4xf32>) -> tensor<1x2x4x4x4xf32>
  %y = linalg.conv_3d_ndhwc_dhwcf {dilations = dense<[2, 1, 1]> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>} ins(%x, %w : tensor<1x6x6x6x2xf32>, tensor<3x3x3x2x4xf32>) outs(%f : tensor<1x2x4x4x4xf32>) -> tensor<1x2x4x4x4xf32>
  return %y : tensor<1x2x4x4x4xf32>
}

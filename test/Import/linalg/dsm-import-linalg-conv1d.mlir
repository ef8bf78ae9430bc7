// RUN: dsm-opt %s -split-input-file --dsm-import-linalg | FileCheck %s
// RUN: dsm-opt %s -split-input-file --dsm-import-linalg --dsm-workload-report=format=json -o /dev/null | FileCheck %s --check-prefix=WORK
// The reshapes keep the batch (written 0): the model re-batches.
// RUN: dsm-opt %s -split-input-file --dsm-import-linalg --dsm-set-batch=batch=4 --dsm-workload-report=format=json -o /dev/null | FileCheck %s --check-prefix=BATCH4

// 1-D convolutions and pooling (audio, sequence models) are 2-D ones over a
// unit height: the input is reshaped to [N, C, 1, W] (or [N, 1, W, C]), the
// filter declared with a unit kernel height, and the result reshaped back.
// The work is exactly the 1-D layer's: MACs = N x O x OW x C x K.

// torch.nn.Conv1d(4, 8, 3, padding=1, bias=True) as torch-mlir lowers it: a
// zero pad, a broadcast bias as init.
// CHECK-LABEL: func.func @conv1d_ncw
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x16xf32>)
// CHECK:         %[[X4:.*]] = dsm.reshape %[[X]] {shape = array<i64: 0, 4, 1, 16>} : (tensor<2x4x16xf32>) -> tensor<2x4x1x16xf32>
// CHECK-DAG:     %[[W:.*]] = dsm.weight "conv2d_0.weight" : tensor<8x4x1x3xf32>
// CHECK-DAG:     %[[B:.*]] = dsm.weight "conv2d_0.bias" : tensor<8xf32>
// CHECK:         %[[Y4:.*]] = dsm.conv2d %[[X4]], %[[W]], %[[B]] {padding = array<i64: 0, 1, 0, 1>} : (tensor<2x4x1x16xf32>, tensor<8x4x1x3xf32>, tensor<8xf32>) -> tensor<2x8x1x16xf32>
// CHECK:         %[[Y:.*]] = dsm.reshape %[[Y4]] {shape = array<i64: 0, 8, 16>} : (tensor<2x8x1x16xf32>) -> tensor<2x8x16xf32>
// CHECK:         return %[[Y]]
// 2 x 8 x 16 x 4 x 3; parameters 8 x 4 x 3 + 8:
// WORK: "macs": 3072,
// WORK: "params": 104,
// BATCH4: "macs": 6144,
#bias = affine_map<(d0, d1, d2) -> (d1)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @conv1d_ncw(%x: tensor<2x4x16xf32>) -> tensor<2x8x16xf32> {
  %w = arith.constant dense_resource<__elided__> : tensor<8x4x3xf32>
  %b = arith.constant dense_resource<__elided__> : tensor<8xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1] high[0, 0, 1] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %zero : f32
  } : tensor<2x4x16xf32> to tensor<2x4x18xf32>
  %e = tensor.empty() : tensor<2x8x16xf32>
  %init = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b : tensor<8xf32>) outs(%e : tensor<2x8x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<2x8x16xf32>
  %y = linalg.conv_1d_ncw_fcw {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} ins(%p, %w : tensor<2x4x18xf32>, tensor<8x4x3xf32>) outs(%init : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %y : tensor<2x8x16xf32>
}

// -----

// NWC with a [K, C, F] filter, stride 2 and dilation 2.
// CHECK-LABEL: func.func @conv1d_nwc
// CHECK:         dsm.reshape %arg0 {shape = array<i64: 0, 1, 20, 4>} : (tensor<1x20x4xf32>) -> tensor<1x1x20x4xf32>
// CHECK:         dsm.conv2d %{{.*}}, %{{.*}} {data_layout = #dsm.layout<nhwc>, dilations = array<i64: 1, 2>, kernel_layout = #dsm.kernel_layout<hwio>, strides = array<i64: 1, 2>} : (tensor<1x1x20x4xf32>, tensor<1x3x4x6xf32>) -> tensor<1x1x8x6xf32>
// CHECK:         dsm.reshape %{{.*}} {shape = array<i64: 0, 8, 6>} : (tensor<1x1x8x6xf32>) -> tensor<1x8x6xf32>
// 8 x 6 x 4 x 3:
// WORK: "macs": 576,
func.func @conv1d_nwc(%x: tensor<1x20x4xf32>) -> tensor<1x8x6xf32> {
  %w = arith.constant dense_resource<__elided__> : tensor<3x4x6xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x6xf32>) -> tensor<1x8x6xf32>
  %y = linalg.conv_1d_nwc_wcf {dilations = dense<2> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%x, %w : tensor<1x20x4xf32>, tensor<3x4x6xf32>) outs(%f : tensor<1x8x6xf32>) -> tensor<1x8x6xf32>
  return %y : tensor<1x8x6xf32>
}

// -----

// Depthwise: groups = C.
// CHECK-LABEL: func.func @depthwise_conv1d
// CHECK:         dsm.conv2d %{{.*}}, %{{.*}} {groups = 4 : i64} : (tensor<1x4x1x10xf32>, tensor<4x1x1x3xf32>) -> tensor<1x4x1x8xf32>
// 4 x 8 x 3:
// WORK: "macs": 96,
func.func @depthwise_conv1d(%x: tensor<1x4x10xf32>) -> tensor<1x4x8xf32> {
  %w = arith.constant dense_resource<__elided__> : tensor<4x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %y = linalg.depthwise_conv_1d_ncw_cw {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} ins(%x, %w : tensor<1x4x10xf32>, tensor<4x3xf32>) outs(%f : tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

// torch.nn.MaxPool1d(3, 2, padding=1) and AvgPool1d(2) (a sum divided by 2).
// CHECK-LABEL: func.func @pooling1d
// CHECK:         %[[M:.*]] = dsm.max_pool %{{.*}} {kernel = array<i64: 1, 3>, padding = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 2>} : (tensor<1x8x1x16xf32>) -> tensor<1x8x1x8xf32>
// CHECK:         dsm.reshape %[[M]] {shape = array<i64: 0, 8, 8>} : (tensor<1x8x1x8xf32>) -> tensor<1x8x8xf32>
// CHECK:         %[[A:.*]] = dsm.avg_pool %{{.*}} {kernel = array<i64: 1, 2>, strides = array<i64: 1, 2>} : (tensor<1x8x1x16xf32>) -> tensor<1x8x1x8xf32>
// CHECK:         dsm.reshape %[[A]] {shape = array<i64: 0, 8, 8>} : (tensor<1x8x1x8xf32>) -> tensor<1x8x8xf32>
// CHECK-NOT:     linalg
// 8 x 8 x 3 and 8 x 8 x 2:
// WORK: "aux_ops": 192,
// WORK: "aux_ops": 128,
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @pooling1d(%x: tensor<1x8x16xf32>) -> (tensor<1x8x8xf32>, tensor<1x8x8xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %p = tensor.pad %x low[0, 0, 1] high[0, 0, 1] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %ninf : f32
  } : tensor<1x8x16xf32> to tensor<1x8x18xf32>
  %e = tensor.empty() : tensor<1x8x8xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
  %k3 = tensor.empty() : tensor<3xf32>
  %m = linalg.pooling_ncw_max {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%p, %k3 : tensor<1x8x18xf32>, tensor<3xf32>) outs(%fm : tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
  %k2 = tensor.empty() : tensor<2xf32>
  %s = linalg.pooling_ncw_sum {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%x, %k2 : tensor<1x8x16xf32>, tensor<2xf32>) outs(%fs : tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
  %a = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<1x8x8xf32>) outs(%e : tensor<1x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %d = arith.divf %in, %two : f32
    linalg.yield %d : f32
  } -> tensor<1x8x8xf32>
  return %m, %a : tensor<1x8x8xf32>, tensor<1x8x8xf32>
}

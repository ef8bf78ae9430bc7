// RUN: dsm-opt %s -split-input-file --dsm-import-linalg | FileCheck %s
// RUN: dsm-opt %s -split-input-file --dsm-import-linalg --dsm-workload-report=format=json -o /dev/null | FileCheck %s --check-prefix=MACS

// linalg iterates over the output a window op declares, which may be smaller
// than its padded input allows: the dsm op is written (high padding, ceil
// mode, or a slice of an unread tail) so that its own shape rule gives the
// declared shape. The work follows: a pool's window operations are output
// elements x window (aux_ops), a convolution's MACs output elements x
// input channels x window.

// torch.nn.MaxPool2d(3, stride=2, ceil_mode=True) on 111 as torch-mlir lowers
// it: padded high by 2, declared 55 (the padded 113 would allow 56). The last
// window ends on the last input row: no padding is read.
// CHECK-LABEL: func.func @ceil_max_pool_unpadded
// CHECK:         %[[P:.*]] = dsm.max_pool %arg0 {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x64x111x111xf32>) -> tensor<1x64x55x55xf32>
// CHECK-NEXT:    return %[[P]]
// 64 x 55 x 55 x 9:
// MACS: "aux_ops": 1742400,
func.func @ceil_max_pool_unpadded(%x: tensor<1x64x111x111xf32>) -> tensor<1x64x55x55xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 0, 0, 0] high[0, 0, 2, 2] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<1x64x111x111xf32> to tensor<1x64x113x113xf32>
  %e = tensor.empty() : tensor<1x64x55x55xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x64x55x55xf32>) -> tensor<1x64x55x55xf32>
  %k = tensor.empty() : tensor<3x3xf32>
  %m = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%p, %k : tensor<1x64x113x113xf32>, tensor<3x3xf32>) outs(%f : tensor<1x64x55x55xf32>) -> tensor<1x64x55x55xf32>
  return %m : tensor<1x64x55x55xf32>
}

// -----

// The same pool on 112 declares 56, one window more than rounding down gives:
// PyTorch's ceil mode (its padding of 2 is more than dsm's half window).
// CHECK-LABEL: func.func @ceil_max_pool
// CHECK:         dsm.max_pool %arg0 {ceil_mode, kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
// 64 x 56 x 56 x 9:
// MACS: "aux_ops": 1806336,
func.func @ceil_max_pool(%x: tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 0, 0, 0] high[0, 0, 2, 2] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<1x64x112x112xf32> to tensor<1x64x114x114xf32>
  %e = tensor.empty() : tensor<1x64x56x56xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  %k = tensor.empty() : tensor<3x3xf32>
  %m = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%p, %k : tensor<1x64x114x114xf32>, tensor<3x3xf32>) outs(%f : tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  return %m : tensor<1x64x56x56xf32>
}

// -----

// Padding 1 and ceil mode: the high side holds 1 + 2; the declared 57 is
// rounding down with padding 1 on both sides plus the partial last window.
// CHECK-LABEL: func.func @ceil_max_pool_padded
// CHECK:         dsm.max_pool %arg0 {ceil_mode, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x112x112xf32>) -> tensor<1x8x57x57xf32>
// 8 x 57 x 57 x 9:
// MACS: "aux_ops": 233928,
func.func @ceil_max_pool_padded(%x: tensor<1x8x112x112xf32>) -> tensor<1x8x57x57xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 3, 3] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<1x8x112x112xf32> to tensor<1x8x116x116xf32>
  %e = tensor.empty() : tensor<1x8x57x57xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x8x57x57xf32>) -> tensor<1x8x57x57xf32>
  %k = tensor.empty() : tensor<3x3xf32>
  %m = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%p, %k : tensor<1x8x116x116xf32>, tensor<3x3xf32>) outs(%f : tensor<1x8x57x57xf32>) -> tensor<1x8x57x57xf32>
  return %m : tensor<1x8x57x57xf32>
}

// -----

// NHWC, and only W needs the partial window: 7x8 -> 4x4 with a 2x2/2 window
// (ceil mode along H, exact along W).
// CHECK-LABEL: func.func @ceil_max_pool_nhwc
// CHECK:         dsm.max_pool %arg0 {ceil_mode, data_layout = #dsm.layout<nhwc>, kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x7x8x16xf32>) -> tensor<1x4x4x16xf32>
// 4 x 4 x 16 x 4:
// MACS: "aux_ops": 1024,
func.func @ceil_max_pool_nhwc(%x: tensor<1x7x8x16xf32>) -> tensor<1x4x4x16xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 0, 0, 0] high[0, 2, 2, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<1x7x8x16xf32> to tensor<1x9x10x16xf32>
  %e = tensor.empty() : tensor<1x4x4x16xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %k = tensor.empty() : tensor<2x2xf32>
  %m = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%p, %k : tensor<1x9x10x16xf32>, tensor<2x2xf32>) outs(%f : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %m : tensor<1x4x4x16xf32>
}

// -----

// Ceil-mode average pooling (a zero pad, a sum, a division by the window).
// CHECK-LABEL: func.func @ceil_avg_pool
// CHECK:         %[[A:.*]] = dsm.avg_pool %arg0 {ceil_mode, kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    return %[[A]]
// 8 x 4 x 4 x 4:
// MACS: "aux_ops": 512,
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @ceil_avg_pool(%x: tensor<1x8x7x7xf32>) -> tensor<1x8x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %four = arith.constant 4.0 : f32
  %p = tensor.pad %x low[0, 0, 0, 0] high[0, 0, 2, 2] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x8x7x7xf32> to tensor<1x8x9x9xf32>
  %e = tensor.empty() : tensor<1x8x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %k = tensor.empty() : tensor<2x2xf32>
  %s = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%p, %k : tensor<1x8x9x9xf32>, tensor<2x2xf32>) outs(%f : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<1x8x4x4xf32>) outs(%e : tensor<1x8x4x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %d = arith.divf %in, %four : f32
    linalg.yield %d : f32
  } -> tensor<1x8x4x4xf32>
  return %a : tensor<1x8x4x4xf32>
}

// -----

// A convolution declaring 4x4 over an input padded [1, 2] (5 would fit):
// padding 1 on both sides. MACs: 4 * 4 outputs x 8 channels x 3 x 3 x 3.
// CHECK-LABEL: func.func @conv_declared_output
// CHECK:         dsm.conv2d %arg0, %{{.*}} {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x4x4xf32>
// MACS: "macs": 3456,
func.func @conv_declared_output(%x: tensor<1x3x8x8xf32>) -> tensor<1x8x4x4xf32> {
  %w = arith.constant dense_resource<__elided__> : tensor<8x3x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 2, 2] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x3x8x8xf32> to tensor<1x3x11x11xf32>
  %e = tensor.empty() : tensor<1x8x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %w : tensor<1x3x11x11xf32>, tensor<8x3x3x3xf32>) outs(%f : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

// A convolution whose windows never read the input's last rows and columns
// (3x3 outputs of a 3x3/2 window read 7 of 9): the tail is sliced off.
// MACs: 3 * 3 outputs x 8 channels x 3 x 3 x 3.
// CHECK-LABEL: func.func @conv_unread_tail
// CHECK:         %[[S:.*]] = dsm.slice %arg0 {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: -1, 3, 7, 7>} : (tensor<1x3x9x9xf32>) -> tensor<1x3x7x7xf32>
// CHECK:         dsm.conv2d %[[S]], %{{.*}} {strides = array<i64: 2, 2>} : (tensor<1x3x7x7xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x3x3xf32>
// MACS: "macs": 1944,
func.func @conv_unread_tail(%x: tensor<1x3x9x9xf32>) -> tensor<1x8x3x3xf32> {
  %w = arith.constant dense_resource<__elided__> : tensor<8x3x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x3x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x3x3xf32>) -> tensor<1x8x3x3xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x3x9x9xf32>, tensor<8x3x3x3xf32>) outs(%f : tensor<1x8x3x3xf32>) -> tensor<1x8x3x3xf32>
  return %y : tensor<1x8x3x3xf32>
}

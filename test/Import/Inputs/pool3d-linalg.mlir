// The 3-D pooling of test/Import/Inputs/onnx/pool3d.onnx channels last, as
// linalg's named 3-D pooling writes it: a -inf tensor.pad before
// linalg.pooling_ndhwc_max over a [2, 3, 3] window, then a 2x2x2 sum pool
// divided by its 8 elements.
#id = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
module {
  func.func @pool3d(%x: tensor<1x8x16x16x4xf32>) -> tensor<1x2x4x4x4xf32> {
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %eighth = arith.constant 0.125 : f32
    %p = tensor.pad %x low[0, 0, 1, 1, 0] high[0, 0, 1, 1, 0] {
    ^bb0(%i0: index, %i1: index, %i2: index, %i3: index, %i4: index):
      tensor.yield %ninf : f32
    } : tensor<1x8x16x16x4xf32> to tensor<1x8x18x18x4xf32>
    %e1 = tensor.empty() : tensor<1x4x8x8x4xf32>
    %f1 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<1x4x8x8x4xf32>) -> tensor<1x4x8x8x4xf32>
    %w1 = tensor.empty() : tensor<2x3x3xf32>
    %m = linalg.pooling_ndhwc_max {dilations = dense<1> : tensor<3xi64>, strides = dense<2> : tensor<3xi64>} ins(%p, %w1 : tensor<1x8x18x18x4xf32>, tensor<2x3x3xf32>) outs(%f1 : tensor<1x4x8x8x4xf32>) -> tensor<1x4x8x8x4xf32>
    %e2 = tensor.empty() : tensor<1x2x4x4x4xf32>
    %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x2x4x4x4xf32>) -> tensor<1x2x4x4x4xf32>
    %w2 = tensor.empty() : tensor<2x2x2xf32>
    %s = linalg.pooling_ndhwc_sum {dilations = dense<1> : tensor<3xi64>, strides = dense<2> : tensor<3xi64>} ins(%m, %w2 : tensor<1x4x8x8x4xf32>, tensor<2x2x2xf32>) outs(%f2 : tensor<1x2x4x4x4xf32>) -> tensor<1x2x4x4x4xf32>
    %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<1x2x4x4x4xf32>) outs(%e2 : tensor<1x2x4x4x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %v = arith.mulf %in, %eighth : f32
      linalg.yield %v : f32
    } -> tensor<1x2x4x4x4xf32>
    return %y : tensor<1x2x4x4x4xf32>
  }
}

// The 3-D network of test/Import/Inputs/onnx/conv3d.onnx as torch-mlir
// writes it: a zero tensor.pad before linalg.conv_3d_ncdhw_fcdhw, the bias
// broadcast into the accumulator, then a strided convolution without bias.
#bias = affine_map<(d0, d1, d2, d3, d4) -> (d1)>
#id = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
module {
  func.func @conv3d(%x: tensor<1x2x4x6x6xf32>) -> tensor<1x8x1x2x2xf32> {
    %w1 = arith.constant dense_resource<__elided__> : tensor<4x2x3x3x3xf32>
    %b1 = arith.constant dense_resource<__elided__> : tensor<4xf32>
    %w2 = arith.constant dense_resource<__elided__> : tensor<8x4x3x3x3xf32>
    %zero = arith.constant 0.0 : f32
    %p = tensor.pad %x low[0, 0, 1, 1, 1] high[0, 0, 1, 1, 1] {
    ^bb0(%i0: index, %i1: index, %i2: index, %i3: index, %i4: index):
      tensor.yield %zero : f32
    } : tensor<1x2x4x6x6xf32> to tensor<1x2x6x8x8xf32>
    %e1 = tensor.empty() : tensor<1x4x4x6x6xf32>
    %init = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%b1 : tensor<4xf32>) outs(%e1 : tensor<1x4x4x6x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x4x4x6x6xf32>
    %c1 = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : vector<3xi64>, strides = dense<1> : vector<3xi64>} ins(%p, %w1 : tensor<1x2x6x8x8xf32>, tensor<4x2x3x3x3xf32>) outs(%init : tensor<1x4x4x6x6xf32>) -> tensor<1x4x4x6x6xf32>
    %e2 = tensor.empty() : tensor<1x8x1x2x2xf32>
    %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8x1x2x2xf32>) -> tensor<1x8x1x2x2xf32>
    %y = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : vector<3xi64>, strides = dense<2> : vector<3xi64>} ins(%c1, %w2 : tensor<1x4x4x6x6xf32>, tensor<8x4x3x3x3xf32>) outs(%f2 : tensor<1x8x1x2x2xf32>) -> tensor<1x8x1x2x2xf32>
    return %y : tensor<1x8x1x2x2xf32>
  }
}

// The network of Inputs/onnx/conv1d.onnx (models/onnx/export.py) in linalg on
// tensors, as torch-mlir lowers torch.nn.Conv1d(4, 8, 3, padding=1),
// MaxPool1d(3, 2, padding=1), Conv1d(8, 8, 3, groups=8, bias=False) and
// AvgPool1d(2): zero and -inf pads, a broadcast bias as init, a sum divided
// by the window.
#bias = affine_map<(d0, d1, d2) -> (d1)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @conv1d(%x: tensor<2x4x16xf32>) -> tensor<2x8x3xf32> {
  %w1 = arith.constant dense_resource<__elided__> : tensor<8x4x3xf32>
  %b1 = arith.constant dense_resource<__elided__> : tensor<8xf32>
  %w2 = arith.constant dense_resource<__elided__> : tensor<8x3xf32>
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %two = arith.constant 2.0 : f32
  %p = tensor.pad %x low[0, 0, 1] high[0, 0, 1] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %zero : f32
  } : tensor<2x4x16xf32> to tensor<2x4x18xf32>
  %e1 = tensor.empty() : tensor<2x8x16xf32>
  %init = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b1 : tensor<8xf32>) outs(%e1 : tensor<2x8x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<2x8x16xf32>
  %c1 = linalg.conv_1d_ncw_fcw {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} ins(%p, %w1 : tensor<2x4x18xf32>, tensor<8x4x3xf32>) outs(%init : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %pm = tensor.pad %c1 low[0, 0, 1] high[0, 0, 1] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %ninf : f32
  } : tensor<2x8x16xf32> to tensor<2x8x18xf32>
  %e2 = tensor.empty() : tensor<2x8x8xf32>
  %f2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %k3 = tensor.empty() : tensor<3xf32>
  %m = linalg.pooling_ncw_max {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%pm, %k3 : tensor<2x8x18xf32>, tensor<3xf32>) outs(%f2 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %e3 = tensor.empty() : tensor<2x8x6xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x8x6xf32>) -> tensor<2x8x6xf32>
  %c2 = linalg.depthwise_conv_1d_ncw_cw {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} ins(%m, %w2 : tensor<2x8x8xf32>, tensor<8x3xf32>) outs(%f3 : tensor<2x8x6xf32>) -> tensor<2x8x6xf32>
  %e4 = tensor.empty() : tensor<2x8x3xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x8x3xf32>) -> tensor<2x8x3xf32>
  %k2 = tensor.empty() : tensor<2xf32>
  %s = linalg.pooling_ncw_sum {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%c2, %k2 : tensor<2x8x6xf32>, tensor<2xf32>) outs(%f4 : tensor<2x8x3xf32>) -> tensor<2x8x3xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<2x8x3xf32>) outs(%e4 : tensor<2x8x3xf32>) {
  ^bb0(%in: f32, %o: f32):
    %d = arith.divf %in, %two : f32
    linalg.yield %d : f32
  } -> tensor<2x8x3xf32>
  return %y : tensor<2x8x3xf32>
}

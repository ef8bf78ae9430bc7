// A small CNN as torch-mlir lowers one to linalg on tensors (NCHW, batch 64):
// a padded convolution with a broadcast bias, ReLU (a captured constant in
// the body), max pooling, a second convolution, flatten and a classifier
// (matmul with the transposed weight). Written for --dsm-export-shard tests.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bias4 = affine_map<(d0, d1, d2, d3) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#tr2 = affine_map<(d0, d1) -> (d1, d0)>
#bias2 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @forward(%x: tensor<64x3x32x32xf32>) -> tensor<64x256xf32> {
    %zero = arith.constant 0.000000e+00 : f32
    %ninf = arith.constant -3.40282347E+38 : f32
    %w1 = arith.constant dense_resource<__elided__> : tensor<64x3x3x3xf32>
    %b1 = arith.constant dense_resource<__elided__> : tensor<64xf32>
    %w2 = arith.constant dense_resource<__elided__> : tensor<128x64x3x3xf32>
    %w3 = arith.constant dense_resource<__elided__> : tensor<256x32768xf32>
    %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%a: index, %b: index, %c: index, %d: index):
      tensor.yield %zero : f32
    } : tensor<64x3x32x32xf32> to tensor<64x3x34x34xf32>
    %e1 = tensor.empty() : tensor<64x64x32x32xf32>
    %bias = linalg.generic {indexing_maps = [#bias4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b1 : tensor<64xf32>) outs(%e1 : tensor<64x64x32x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<64x64x32x32xf32>
    %conv1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %w1 : tensor<64x3x34x34xf32>, tensor<64x3x3x3xf32>) outs(%bias : tensor<64x64x32x32xf32>) -> tensor<64x64x32x32xf32>
    %relu = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv1 : tensor<64x64x32x32xf32>) outs(%e1 : tensor<64x64x32x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %gt = arith.cmpf ugt, %in, %zero : f32
      %r = arith.select %gt, %in, %zero : f32
      linalg.yield %r : f32
    } -> tensor<64x64x32x32xf32>
    %window = tensor.empty() : tensor<2x2xf32>
    %e2 = tensor.empty() : tensor<64x64x16x16xf32>
    %f2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<64x64x16x16xf32>) -> tensor<64x64x16x16xf32>
    %pool = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%relu, %window : tensor<64x64x32x32xf32>, tensor<2x2xf32>) outs(%f2 : tensor<64x64x16x16xf32>) -> tensor<64x64x16x16xf32>
    %padded2 = tensor.pad %pool low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%a: index, %b: index, %c: index, %d: index):
      tensor.yield %zero : f32
    } : tensor<64x64x16x16xf32> to tensor<64x64x18x18xf32>
    %e3 = tensor.empty() : tensor<64x128x16x16xf32>
    %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<64x128x16x16xf32>) -> tensor<64x128x16x16xf32>
    %conv2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded2, %w2 : tensor<64x64x18x18xf32>, tensor<128x64x3x3xf32>) outs(%f3 : tensor<64x128x16x16xf32>) -> tensor<64x128x16x16xf32>
    %flat = tensor.collapse_shape %conv2 [[0], [1, 2, 3]] : tensor<64x128x16x16xf32> into tensor<64x32768xf32>
    %e4 = tensor.empty() : tensor<32768x256xf32>
    %w3t = linalg.generic {indexing_maps = [#id2, #tr2], iterator_types = ["parallel", "parallel"]} ins(%w3 : tensor<256x32768xf32>) outs(%e4 : tensor<32768x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<32768x256xf32>
    %e5 = tensor.empty() : tensor<64x256xf32>
    %f5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<64x256xf32>) -> tensor<64x256xf32>
    %fc = linalg.matmul ins(%flat, %w3t : tensor<64x32768xf32>, tensor<32768x256xf32>) outs(%f5 : tensor<64x256xf32>) -> tensor<64x256xf32>
    return %fc : tensor<64x256xf32>
  }
}

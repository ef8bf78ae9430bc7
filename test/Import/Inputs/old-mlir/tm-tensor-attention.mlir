// torch-mlir fx's F.scaled_dot_product_attention: tm_tensor.attention, of a
// dialect dsm-opt does not load. As a BERT-base dump writes it (heads merged
// into the batch, [12, 7, 64], an additive f32 mask), and 4-D without a
// mask and with a boolean one (a causal mask). Hand-written after public
// torch-mlir output.
func.func @bert_heads(%q: tensor<12x7x64xf32>, %k: tensor<12x7x64xf32>, %v: tensor<12x7x64xf32>, %mask: tensor<12x7x7xf32>) -> tensor<12x7x64xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<12x7x64xf32>
  %init = linalg.fill ins(%cst : f32) outs(%e : tensor<12x7x64xf32>) -> tensor<12x7x64xf32>
  %0 = tm_tensor.attention ins(%q, %k, %v, %mask : tensor<12x7x64xf32>, tensor<12x7x64xf32>, tensor<12x7x64xf32>, tensor<12x7x7xf32>) outs(%init : tensor<12x7x64xf32>) -> tensor<12x7x64xf32>
  return %0 : tensor<12x7x64xf32>
}
func.func @plain(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x10x16xf32>, %v: tensor<2x4x10x32xf32>, %o: tensor<2x4x8x32xf32>) -> tensor<2x4x8x32xf32> {
  %0 = tm_tensor.attention ins(%q, %k, %v : tensor<2x4x8x16xf32>, tensor<2x4x10x16xf32>, tensor<2x4x10x32xf32>) outs(%o : tensor<2x4x8x32xf32>) -> tensor<2x4x8x32xf32>
  return %0 : tensor<2x4x8x32xf32>
}
func.func @causal(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>, %mask: tensor<1x4x8x8xi1>, %o: tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32> {
  %0 = tm_tensor.attention ins(%q, %k, %v, %mask : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x8xi1>) outs(%o : tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  return %0 : tensor<1x4x8x16xf32>
}

// Attention scores and a projection as MLIR before 22 spelled transposed
// matmuls (IREE and torch-mlir dumps): linalg.batch_matmul_transpose_b and
// linalg.matmul_transpose_b, gone as named ops in 22.
func.func @scores(%q: tensor<4x8x16xf32>, %k: tensor<4x8x16xf32>) -> tensor<4x8x8xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<4x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %s = linalg.batch_matmul_transpose_b ins(%q, %k : tensor<4x8x16xf32>, tensor<4x8x16xf32>) outs(%f : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  return %s : tensor<4x8x8xf32>
}

func.func @projection(%x: tensor<8x64xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %w = arith.constant dense_resource<__elided__> : tensor<32x64xf32>
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %y = linalg.matmul_transpose_b ins(%x, %w : tensor<8x64xf32>, tensor<32x64xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

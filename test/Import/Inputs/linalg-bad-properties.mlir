// Properties that are not a dictionary after a linalg op's name (reduced
// from dsm-fuzz-upgrade-mlir's crash of 2026-11-27; Import/invalid-bytes.test).
func.func @f(%a: tensor<1x4x4xf32>, %b: tensor<1x4x4xf32>) -> tensor<1x4x4xf32> {
  %c = linalg.batch_matmul_transpose_b<0.125> ins(%a, %b : tensor<1x4x4xf32>, tensor<1x4x4xf32>) outs(%a : tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  return %c : tensor<1x4x4xf32>
}

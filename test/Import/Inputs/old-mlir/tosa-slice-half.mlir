// tosa.slice with `start` but no `size`: neither spelling; --upgrade-mlir
// says so at the op.
func.func @f(%x: tensor<4xf32>) -> tensor<2xf32> {
  %s = tosa.slice %x {start = array<i64: 1>} : (tensor<4xf32>) -> tensor<2xf32>
  return %s : tensor<2xf32>
}

// linalg on tensors as MLIR 18 and older wrote it: expand_shape without
// output_shape. (A comment that mentions tensor.expand_shape %c [[0, 1]] :
// tensor<2xf32> into tensor<1x2xf32> is left alone.)
func.func @flatten_unflatten(%x: tensor<1x8x2x2xf32>) -> tensor<1x2x16xf32> {
  %c = tensor.collapse_shape %x [[0], [1, 2, 3]] : tensor<1x8x2x2xf32> into tensor<1x32xf32>
  %e = tensor.expand_shape %c [[0], [1, 2]] : tensor<1x32xf32> into tensor<1x2x16xf32>
  return %e : tensor<1x2x16xf32>
}

func.func @buffers(%m: memref<6xf32>, %out: memref<2x3xf32>) {
  %e = memref.expand_shape %m [[0, 1]]
      : memref<6xf32> into memref<2x3xf32>
  memref.copy %e, %out : memref<2x3xf32> to memref<2x3xf32>
  return
}

func.func @current(%x: tensor<6xf32>) -> tensor<2x3xf32> {
  %e = tensor.expand_shape %x [[0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
  return %e : tensor<2x3xf32>
}

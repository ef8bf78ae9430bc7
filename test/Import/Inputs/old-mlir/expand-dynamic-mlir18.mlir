// expand_shape with a dynamic result dimension before MLIR 19 (a
// ResNeXt-101 dump with a dynamic batch): output_shape needs that size as
// an SSA value, the source's dimension over the group's static sizes.
func.func @grouped(%x: tensor<?x2048xf32>) -> tensor<?x32x64xf32> {
  %e = tensor.expand_shape %x [[0], [1, 2]] : tensor<?x2048xf32> into tensor<?x32x64xf32>
  return %e : tensor<?x32x64xf32>
}
func.func @split_batch(%x: tensor<?x16xf32>) -> tensor<?x4x16xf32> {
  %e = tensor.expand_shape %x [[0, 1], [2]] : tensor<?x16xf32> into tensor<?x4x16xf32>
  return %e : tensor<?x4x16xf32>
}

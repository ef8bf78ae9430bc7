// TOSA as MLIR 20 and older wrote constants: `value`, not `values`, in
// properties or as an attribute. Other keys and string contents stay.
func.func @add_constants(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %c = "tosa.const"() <{value = dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>}> : () -> tensor<1x4xf32>
  %d = "tosa.const"() {note = "value = 1", value = dense<0.5> : tensor<1x4xf32>} : () -> tensor<1x4xf32>
  %s = tosa.add %x, %c : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %t = tosa.add %s, %d : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return %t : tensor<1x4xf32>
}

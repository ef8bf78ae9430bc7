// TOSA before 1.0 (MLIR 20 and older), as buddy-mlir's Llama and Stable
// Diffusion dumps write it: tosa.mul's `shift` and tosa.reshape's
// `new_shape` are attributes (TOSA 1.0 made them operands), in the custom
// and the generic form, with other attributes beside them.
func.func @scale_and_view(%x: tensor<1x8x64xf32>) -> tensor<1x8x4x16xf32> {
  %c = "tosa.const"() <{value = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %m = tosa.mul %x, %c {shift = 0 : i8} : (tensor<1x8x64xf32>, tensor<1x1x1xf32>) -> tensor<1x8x64xf32>
  %n = "tosa.mul"(%m, %c) <{shift = 0 : i8}> {note = "shift = 3"} : (tensor<1x8x64xf32>, tensor<1x1x1xf32>) -> tensor<1x8x64xf32>
  %r = tosa.reshape %n {new_shape = array<i64: 1, 8, 4, 16>} : (tensor<1x8x64xf32>) -> tensor<1x8x4x16xf32>
  %f = "tosa.reshape"(%r) <{new_shape = array<i64: 1, 512>}> : (tensor<1x8x4x16xf32>) -> tensor<1x512xf32>
  %g = tosa.reshape %f {new_shape = array<i64: 1, 8, 4, 16>, tag} : (tensor<1x512xf32>) -> tensor<1x8x4x16xf32>
  return %g : tensor<1x8x4x16xf32>
}

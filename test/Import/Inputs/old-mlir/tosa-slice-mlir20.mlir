// TOSA before 1.0 (MLIR 20 and older): tosa.slice's `start` and `size` are
// attributes (TOSA 1.0 made them !tosa.shape operands), in the custom and
// the generic form (properties in either order), with another attribute
// beside them; a legacy tosa.const `value` and tosa.reshape `new_shape`
// around them.
func.func @project_and_slice(%x: tensor<1x4x8xf32>) -> tensor<1x16xf32> {
  %zp = "tosa.const"() {value = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %w = "tosa.const"() {value = dense_resource<__elided__> : tensor<1x8x16xf32>} : () -> tensor<1x8x16xf32>
  %y = tosa.matmul %x, %w, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x16xf32>
  %s = tosa.slice %y {start = array<i64: 0, 1, 0>, size = array<i64: 1, 2, 16>} : (tensor<1x4x16xf32>) -> tensor<1x2x16xf32>
  %t = "tosa.slice"(%s) <{size = array<i64: 1, 1, 16>, start = array<i64: 0, 1, 0>}> {note = "start = 9"} : (tensor<1x2x16xf32>) -> tensor<1x1x16xf32>
  %r = tosa.reshape %t {new_shape = array<i64: 1, 16>} : (tensor<1x1x16xf32>) -> tensor<1x16xf32>
  return %r : tensor<1x16xf32>
}

// A module with a weight and no layer (Common/dead-layers.test).
func.func @nothing(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %w = dsm.weight "w" : tensor<4x4xf32>
  return %x : tensor<4x4xf32>
}

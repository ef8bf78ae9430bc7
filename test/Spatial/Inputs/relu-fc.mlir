// An activation with no parameters before a fully connected layer: as two
// pipeline stages, the activation crosses the boundary forward but no error
// crosses it back (nothing before the ReLU needs one).
func.func @relu_fc(%x: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
  %w = dsm.weight "w" : tensor<1024x1024xf32>
  %a = dsm.relu %x : tensor<512x1024xf32> loc("relu")
  %b = dsm.fully_connected %a, %w : (tensor<512x1024xf32>, tensor<1024x1024xf32>) -> tensor<512x1024xf32> loc("fc")
  return %b : tensor<512x1024xf32>
}

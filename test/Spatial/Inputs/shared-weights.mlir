// Three fully connected layers reading one weight (see shared-weights.test).
func.func @shared(%x: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
  %w = dsm.weight "w" : tensor<1024x1024xf32>
  %a = dsm.fully_connected %x, %w : (tensor<512x1024xf32>, tensor<1024x1024xf32>) -> tensor<512x1024xf32> loc("fc1")
  %b = dsm.fully_connected %a, %w : (tensor<512x1024xf32>, tensor<1024x1024xf32>) -> tensor<512x1024xf32> loc("fc2")
  %c = dsm.fully_connected %b, %w : (tensor<512x1024xf32>, tensor<1024x1024xf32>) -> tensor<512x1024xf32> loc("fc3")
  return %c : tensor<512x1024xf32>
}

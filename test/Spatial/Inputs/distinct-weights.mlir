// The twin of shared-weights.mlir with a weight per layer.
func.func @distinct(%x: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
  %w1 = dsm.weight "w1" : tensor<1024x1024xf32>
  %w2 = dsm.weight "w2" : tensor<1024x1024xf32>
  %w3 = dsm.weight "w3" : tensor<1024x1024xf32>
  %a = dsm.fully_connected %x, %w1 : (tensor<512x1024xf32>, tensor<1024x1024xf32>) -> tensor<512x1024xf32> loc("fc1")
  %b = dsm.fully_connected %a, %w2 : (tensor<512x1024xf32>, tensor<1024x1024xf32>) -> tensor<512x1024xf32> loc("fc2")
  %c = dsm.fully_connected %b, %w3 : (tensor<512x1024xf32>, tensor<1024x1024xf32>) -> tensor<512x1024xf32> loc("fc3")
  return %c : tensor<512x1024xf32>
}

// Two fully connected layers with a 1024x1024 weight each (memory-per-chip.test).
func.func @two(%x: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
  %w1 = dsm.weight "w1" : tensor<1024x1024xf32>
  %w2 = dsm.weight "w2" : tensor<1024x1024xf32>
  %a = dsm.fully_connected %x, %w1 : (tensor<512x1024xf32>, tensor<1024x1024xf32>) -> tensor<512x1024xf32> loc("fc1")
  %b = dsm.fully_connected %a, %w2 : (tensor<512x1024xf32>, tensor<1024x1024xf32>) -> tensor<512x1024xf32> loc("fc2")
  return %b : tensor<512x1024xf32>
}

// The second layer computes a result nothing reads or returns (Common/dead-layers.test).
func.func @dead(%x: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
  %w1 = dsm.weight "w1" : tensor<1024x1024xf32>
  %w2 = dsm.weight "w2" : tensor<1024x1024xf32>
  %a = dsm.fully_connected %x, %w1 : (tensor<512x1024xf32>, tensor<1024x1024xf32>) -> tensor<512x1024xf32>
  %b = dsm.fully_connected %a, %w2 : (tensor<512x1024xf32>, tensor<1024x1024xf32>) -> tensor<512x1024xf32>
  return %a : tensor<512x1024xf32>
}

// Two fully connected layers, for the output tests (output-full-device.test).
func.func @two_layers(%arg0: tensor<1x64xf32>) -> tensor<1x16xf32> {
  %w0 = dsm.weight "fc1.weight" : tensor<32x64xf32>
  %0 = dsm.fully_connected %arg0, %w0 : (tensor<1x64xf32>, tensor<32x64xf32>) -> tensor<1x32xf32>
  %w1 = dsm.weight "fc2.weight" : tensor<16x32xf32>
  %1 = dsm.fully_connected %0, %w1 : (tensor<1x32xf32>, tensor<16x32xf32>) -> tensor<1x16xf32>
  return %1 : tensor<1x16xf32>
}

// Three 1x1 convolutions in a chain (ResNet-50's layer3 sizes), memory-bound,
// each output read only by the next: the input of the inter-layer reuse
// checks of test/Spatial/dsm-optimizations.test.
func.func @conv_chain(%x: tensor<1x256x14x14xf32>) -> tensor<1x256x14x14xf32> {
  %w0 = dsm.weight "conv0.weight" : tensor<256x256x1x1xf32>
  %a = dsm.conv2d %x, %w0 : (tensor<1x256x14x14xf32>, tensor<256x256x1x1xf32>) -> tensor<1x256x14x14xf32> loc("conv0")
  %w1 = dsm.weight "conv1.weight" : tensor<256x256x1x1xf32>
  %b = dsm.conv2d %a, %w1 : (tensor<1x256x14x14xf32>, tensor<256x256x1x1xf32>) -> tensor<1x256x14x14xf32> loc("conv1")
  %w2 = dsm.weight "conv2.weight" : tensor<256x256x1x1xf32>
  %c = dsm.conv2d %b, %w2 : (tensor<1x256x14x14xf32>, tensor<256x256x1x1xf32>) -> tensor<1x256x14x14xf32> loc("conv2")
  return %c : tensor<1x256x14x14xf32>
}

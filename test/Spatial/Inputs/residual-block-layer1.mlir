// A bottleneck residual block at ResNet-50's layer1 sizes: x (conv0) feeds
// conv1 -> conv2 -> conv3, and the addition fused into conv3's layer reads x
// back as its shortcut. The input of test/Spatial/dysm-shortcut.test.
func.func @residual_block(%in: tensor<1x64x56x56xf32>) -> tensor<1x256x56x56xf32> {
  %w0 = dsm.weight "conv0.weight" : tensor<256x64x1x1xf32>
  %x = dsm.conv2d %in, %w0 : (tensor<1x64x56x56xf32>, tensor<256x64x1x1xf32>) -> tensor<1x256x56x56xf32> loc("conv0")
  %w1 = dsm.weight "conv1.weight" : tensor<64x256x1x1xf32>
  %a = dsm.conv2d %x, %w1 : (tensor<1x256x56x56xf32>, tensor<64x256x1x1xf32>) -> tensor<1x64x56x56xf32> loc("conv1")
  %w2 = dsm.weight "conv2.weight" : tensor<64x64x3x3xf32>
  %b = dsm.conv2d %a, %w2 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32> loc("conv2")
  %w3 = dsm.weight "conv3.weight" : tensor<256x64x1x1xf32>
  %c = dsm.conv2d %b, %w3 : (tensor<1x64x56x56xf32>, tensor<256x64x1x1xf32>) -> tensor<1x256x56x56xf32> loc("conv3")
  %y = dsm.add %c, %x : (tensor<1x256x56x56xf32>, tensor<1x256x56x56xf32>) -> tensor<1x256x56x56xf32> loc("residual")
  return %y : tensor<1x256x56x56xf32>
}

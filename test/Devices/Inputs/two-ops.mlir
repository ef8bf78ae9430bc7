func.func @two(%x: tensor<32x64xf32>) -> tensor<32x16xf32> {
  %w = dsm.weight "fc.w" : tensor<16x64xf32>
  %y = dsm.fully_connected %x, %w : (tensor<32x64xf32>, tensor<16x64xf32>) -> tensor<32x16xf32>
  %r = dsm.relu %y : tensor<32x16xf32>
  return %r : tensor<32x16xf32>
}

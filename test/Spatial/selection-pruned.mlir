// RUN: dsm-opt %s -split-input-file -verify-diagnostics --dsm-map-system="system=dsm-8pf-asym mode=train batch=512" -o /dev/null
// U-Net-style nested skips: the outputs of eight layers are all read again
// later, so 4^8 combinations of their parallelisms are live at once -- more
// than the selection keeps (4096). The mapper says its choice is not proven
// optimal instead of presenting it as exact.
// expected-warning @+1 {{too many layers' choices are live at once (nested skip connections): the parallelisms are the best of the states kept, not proven optimal}}
func.func @net(%x: tensor<512x64xf32>) -> tensor<512x64xf32> {
  %dw0 = dsm.weight "down0" : tensor<64x64xf32>
  %d0 = dsm.fully_connected %x, %dw0 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("down0")
  %dw1 = dsm.weight "down1" : tensor<64x64xf32>
  %d1 = dsm.fully_connected %d0, %dw1 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("down1")
  %dw2 = dsm.weight "down2" : tensor<64x64xf32>
  %d2 = dsm.fully_connected %d1, %dw2 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("down2")
  %dw3 = dsm.weight "down3" : tensor<64x64xf32>
  %d3 = dsm.fully_connected %d2, %dw3 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("down3")
  %dw4 = dsm.weight "down4" : tensor<64x64xf32>
  %d4 = dsm.fully_connected %d3, %dw4 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("down4")
  %dw5 = dsm.weight "down5" : tensor<64x64xf32>
  %d5 = dsm.fully_connected %d4, %dw5 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("down5")
  %dw6 = dsm.weight "down6" : tensor<64x64xf32>
  %d6 = dsm.fully_connected %d5, %dw6 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("down6")
  %dw7 = dsm.weight "down7" : tensor<64x64xf32>
  %d7 = dsm.fully_connected %d6, %dw7 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("down7")
  %uw0 = dsm.weight "up0" : tensor<64x64xf32>
  %u0 = dsm.fully_connected %d7, %uw0 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("up0")
  %s0 = dsm.add %u0, %d7 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %uw1 = dsm.weight "up1" : tensor<64x64xf32>
  %u1 = dsm.fully_connected %s0, %uw1 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("up1")
  %s1 = dsm.add %u1, %d6 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %uw2 = dsm.weight "up2" : tensor<64x64xf32>
  %u2 = dsm.fully_connected %s1, %uw2 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("up2")
  %s2 = dsm.add %u2, %d5 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %uw3 = dsm.weight "up3" : tensor<64x64xf32>
  %u3 = dsm.fully_connected %s2, %uw3 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("up3")
  %s3 = dsm.add %u3, %d4 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %uw4 = dsm.weight "up4" : tensor<64x64xf32>
  %u4 = dsm.fully_connected %s3, %uw4 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("up4")
  %s4 = dsm.add %u4, %d3 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %uw5 = dsm.weight "up5" : tensor<64x64xf32>
  %u5 = dsm.fully_connected %s4, %uw5 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("up5")
  %s5 = dsm.add %u5, %d2 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %uw6 = dsm.weight "up6" : tensor<64x64xf32>
  %u6 = dsm.fully_connected %s5, %uw6 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("up6")
  %s6 = dsm.add %u6, %d1 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %uw7 = dsm.weight "up7" : tensor<64x64xf32>
  %u7 = dsm.fully_connected %s6, %uw7 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("up7")
  %s7 = dsm.add %u7, %d0 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  return %s7 : tensor<512x64xf32>
}

// -----

// Five nested skips (4^5 states) are selected exactly: no warning.
func.func @net(%x: tensor<512x64xf32>) -> tensor<512x64xf32> {
  %dw0 = dsm.weight "down0" : tensor<64x64xf32>
  %d0 = dsm.fully_connected %x, %dw0 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("down0")
  %dw1 = dsm.weight "down1" : tensor<64x64xf32>
  %d1 = dsm.fully_connected %d0, %dw1 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("down1")
  %dw2 = dsm.weight "down2" : tensor<64x64xf32>
  %d2 = dsm.fully_connected %d1, %dw2 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("down2")
  %dw3 = dsm.weight "down3" : tensor<64x64xf32>
  %d3 = dsm.fully_connected %d2, %dw3 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("down3")
  %dw4 = dsm.weight "down4" : tensor<64x64xf32>
  %d4 = dsm.fully_connected %d3, %dw4 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("down4")
  %uw0 = dsm.weight "up0" : tensor<64x64xf32>
  %u0 = dsm.fully_connected %d4, %uw0 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("up0")
  %s0 = dsm.add %u0, %d4 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %uw1 = dsm.weight "up1" : tensor<64x64xf32>
  %u1 = dsm.fully_connected %s0, %uw1 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("up1")
  %s1 = dsm.add %u1, %d3 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %uw2 = dsm.weight "up2" : tensor<64x64xf32>
  %u2 = dsm.fully_connected %s1, %uw2 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("up2")
  %s2 = dsm.add %u2, %d2 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %uw3 = dsm.weight "up3" : tensor<64x64xf32>
  %u3 = dsm.fully_connected %s2, %uw3 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("up3")
  %s3 = dsm.add %u3, %d1 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %uw4 = dsm.weight "up4" : tensor<64x64xf32>
  %u4 = dsm.fully_connected %s3, %uw4 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("up4")
  %s4 = dsm.add %u4, %d0 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  return %s4 : tensor<512x64xf32>
}

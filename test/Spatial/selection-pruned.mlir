// RUN: dsm-opt %s -split-input-file -verify-diagnostics --dsm-map-system="system=dsm-8pf-asym mode=train batch=512" -o /dev/null
// The report says it too, with the bound; the exact splits say exact.
// RUN: dsm-opt %s -split-input-file -verify-diagnostics --dsm-map-system="system=dsm-8pf-asym mode=train batch=512 report=- report-format=json" -o /dev/null | FileCheck %s --check-prefix=JSON
// RUN: dsm-opt %s -split-input-file -verify-diagnostics --dsm-map-system="system=dsm-8pf-asym mode=train batch=512 report=- report-format=table" -o /dev/null | FileCheck %s --check-prefix=TABLE
// JSON:      "selection": {
// JSON-NEXT:   "exact": false,
// JSON-NEXT:   "states_kept": 4096
// JSON:      "selection": {
// JSON-NEXT:   "exact": true
// JSON:      "selection": {
// JSON-NEXT:   "exact": true
// TABLE: parallelisms not proven optimal: the layer graph is too dense to select exactly; the best of the 4096 cheapest states kept per layer
// TABLE-EMPTY:
// TABLE-NEXT: total:
// TABLE-NOT: parallelisms not proven optimal
// DenseNet-style: every layer reads the sum of all earlier outputs, so the
// layer graph is too dense for exact elimination (its tables would span too
// many layers' options) and too many choices are live at once for the
// dynamic program, which keeps the cheapest states. The mapper says its
// choice is not proven optimal instead of presenting it as exact.
// expected-warning @+1 {{the layer graph is too dense to select exactly (skip connections): the parallelisms are the best of the 4096 cheapest states kept per layer, not proven optimal}}
func.func @dense(%x: tensor<512x64xf32>) -> tensor<512x64xf32> {
  %w0 = dsm.weight "w0" : tensor<64x64xf32>
  %f0 = dsm.fully_connected %x, %w0 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("fc0")
  %w1 = dsm.weight "w1" : tensor<64x64xf32>
  %f1 = dsm.fully_connected %f0, %w1 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("fc1")
  %a1_0 = dsm.add %f0, %f1 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %w2 = dsm.weight "w2" : tensor<64x64xf32>
  %f2 = dsm.fully_connected %a1_0, %w2 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("fc2")
  %a2_0 = dsm.add %f0, %f1 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a2_1 = dsm.add %a2_0, %f2 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %w3 = dsm.weight "w3" : tensor<64x64xf32>
  %f3 = dsm.fully_connected %a2_1, %w3 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("fc3")
  %a3_0 = dsm.add %f0, %f1 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a3_1 = dsm.add %a3_0, %f2 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a3_2 = dsm.add %a3_1, %f3 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %w4 = dsm.weight "w4" : tensor<64x64xf32>
  %f4 = dsm.fully_connected %a3_2, %w4 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("fc4")
  %a4_0 = dsm.add %f0, %f1 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a4_1 = dsm.add %a4_0, %f2 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a4_2 = dsm.add %a4_1, %f3 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a4_3 = dsm.add %a4_2, %f4 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %w5 = dsm.weight "w5" : tensor<64x64xf32>
  %f5 = dsm.fully_connected %a4_3, %w5 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("fc5")
  %a5_0 = dsm.add %f0, %f1 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a5_1 = dsm.add %a5_0, %f2 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a5_2 = dsm.add %a5_1, %f3 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a5_3 = dsm.add %a5_2, %f4 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a5_4 = dsm.add %a5_3, %f5 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %w6 = dsm.weight "w6" : tensor<64x64xf32>
  %f6 = dsm.fully_connected %a5_4, %w6 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("fc6")
  %a6_0 = dsm.add %f0, %f1 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a6_1 = dsm.add %a6_0, %f2 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a6_2 = dsm.add %a6_1, %f3 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a6_3 = dsm.add %a6_2, %f4 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a6_4 = dsm.add %a6_3, %f5 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a6_5 = dsm.add %a6_4, %f6 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %w7 = dsm.weight "w7" : tensor<64x64xf32>
  %f7 = dsm.fully_connected %a6_5, %w7 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("fc7")
  %a7_0 = dsm.add %f0, %f1 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a7_1 = dsm.add %a7_0, %f2 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a7_2 = dsm.add %a7_1, %f3 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a7_3 = dsm.add %a7_2, %f4 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a7_4 = dsm.add %a7_3, %f5 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a7_5 = dsm.add %a7_4, %f6 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a7_6 = dsm.add %a7_5, %f7 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %w8 = dsm.weight "w8" : tensor<64x64xf32>
  %f8 = dsm.fully_connected %a7_6, %w8 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("fc8")
  %a8_0 = dsm.add %f0, %f1 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a8_1 = dsm.add %a8_0, %f2 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a8_2 = dsm.add %a8_1, %f3 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a8_3 = dsm.add %a8_2, %f4 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a8_4 = dsm.add %a8_3, %f5 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a8_5 = dsm.add %a8_4, %f6 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a8_6 = dsm.add %a8_5, %f7 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a8_7 = dsm.add %a8_6, %f8 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %w9 = dsm.weight "w9" : tensor<64x64xf32>
  %f9 = dsm.fully_connected %a8_7, %w9 : (tensor<512x64xf32>, tensor<64x64xf32>) -> tensor<512x64xf32> loc("fc9")
  %a9_0 = dsm.add %f0, %f1 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a9_1 = dsm.add %a9_0, %f2 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a9_2 = dsm.add %a9_1, %f3 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a9_3 = dsm.add %a9_2, %f4 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a9_4 = dsm.add %a9_3, %f5 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a9_5 = dsm.add %a9_4, %f6 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a9_6 = dsm.add %a9_5, %f7 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a9_7 = dsm.add %a9_6, %f8 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  %a9_8 = dsm.add %a9_7, %f9 : (tensor<512x64xf32>, tensor<512x64xf32>) -> tensor<512x64xf32>
  return %a9_8 : tensor<512x64xf32>
}

// -----

// U-Net-style nested skips: the outputs of eight layers are all read again
// later (4^8 combinations of their parallelisms live at once, more than the
// dynamic program keeps), but the graph is series-parallel and elimination
// selects exactly: no warning.
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

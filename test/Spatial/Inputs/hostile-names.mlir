// Layer names a table would write raw to a terminal (C1 controls, bidi
// overrides, bytes that are not UTF-8) or a spreadsheet would run as
// formulas in a CSV report (printable-names.test).
func.func @names(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %w1 = dsm.weight "w1" : tensor<64x64xf32>
  %w2 = dsm.weight "w2" : tensor<64x64xf32>
  %w3 = dsm.weight "w3" : tensor<64x64xf32>
  %w4 = dsm.weight "w4" : tensor<64x64xf32>
  %a = dsm.fully_connected %x, %w1 : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32> loc("fc\C2\9B2Jcsi")
  %b = dsm.fully_connected %a, %w2 : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32> loc("fc\E2\80\AEtxt.exe")
  %c = dsm.fully_connected %b, %w3 : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32> loc("=HYPERLINK(\22http://x\22)")
  %d = dsm.fully_connected %c, %w4 : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32> loc("@bad\FFbyte")
  return %d : tensor<8x64xf32>
}

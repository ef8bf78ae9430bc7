// Layer names with control characters (printable-names.test).
func.func @names(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %w1 = dsm.weight "w1" : tensor<64x64xf32>
  %w2 = dsm.weight "w2" : tensor<64x64xf32>
  %a = dsm.fully_connected %x, %w1 : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32> loc("fc\1B[2Jclear\07")
  %b = dsm.fully_connected %a, %w2 : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32> loc("next\\line\tname")
  return %b : tensor<8x64xf32>
}

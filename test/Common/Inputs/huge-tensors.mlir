// Tensors of 2.4e18 bytes over 1 KB/s DRAM: the placement's latency is
// 1.2e15 s, more than a report may hold (report-figures.test).
func.func @huge(%x: tensor<6x100000000000000000xf32>) -> tensor<6x100000000000000000xf32> {
  %a = dsm.relu %x : tensor<6x100000000000000000xf32>
  %b = dsm.relu %a : tensor<6x100000000000000000xf32>
  %c = dsm.relu %b : tensor<6x100000000000000000xf32>
  return %c : tensor<6x100000000000000000xf32>
}

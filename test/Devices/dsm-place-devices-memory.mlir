// An op larger than every device's memory is an error on that op.
// RUN: dsm-opt %s --dsm-place-devices="system=%S/Inputs/tiny-memory.yaml" -verify-diagnostics

func.func @too_big(%x: tensor<1x4096xf32>) -> tensor<1x4096xf32> {
  %w = dsm.weight "w" : tensor<4096x4096xf32>
  // expected-error @+1 {{cannot place: 'fully_connected_0' needs 67125248 bytes (weights and output), more than any device's usable memory (largest: 1000000 bytes)}}
  %y = dsm.fully_connected %x, %w : (tensor<1x4096xf32>, tensor<4096x4096xf32>) -> tensor<1x4096xf32>
  return %y : tensor<1x4096xf32>
}

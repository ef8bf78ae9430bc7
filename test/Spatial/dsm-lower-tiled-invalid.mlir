// RUN: dsm-opt %s --dsm-attach-system=system=%S/Inputs/tiny-system.yaml --dsm-lower-tiled -verify-diagnostics

func.func @unmapped(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %w = dsm.weight "w" : tensor<8x8xf32>
  // expected-error @+1 {{'dsm.layer_pass' op has no mapping; run --dsm-select-mapping first}}
  %y = dsm.layer_pass "fc" <fwd> ins(%x) weights(%w) {workload = #dsm.workload<kind = "fc", in = 8, out = 8, ij = 1, kij = 1, mb = 4, params = 64>} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// RUN: dsm-opt %s -split-input-file --dsm-expand-training -verify-diagnostics

// Mapping works on the dsm dialect only.
func.func @foreign(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'tensor.cast' op is not a dsm graph operation; import the model into the dsm dialect before mapping it}}
  %y = tensor.cast %x : tensor<2x4xf32> to tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// expected-error @+1 {{function @twice is already expanded into layer passes}}
func.func @twice(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %w = dsm.weight "w" : tensor<4x4xf32>
  %y = dsm.layer_pass "fc" <fwd> ins(%x) weights(%w) {workload = #dsm.workload<kind = "fc", in = 4, out = 4, ij = 1, kij = 1, mb = 2, params = 16>} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

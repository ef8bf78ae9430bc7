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

// -----

// A dead layer (nothing reads or returns its result) has no activation for
// its FWD pass: a located error naming it, not the verifier's "a fwd pass
// produces at least one activation" about an op the user never wrote.
func.func @dead(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %w1 = dsm.weight "w1" : tensor<4x4xf32>
  %w2 = dsm.weight "w2" : tensor<4x4xf32>
  %a = dsm.fully_connected %x, %w1 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  // expected-error @+1 {{layer 'fully_connected_1' is dead: nothing reads or returns its result, so it has no place in the step; remove it or return its result}}
  %b = dsm.fully_connected %a, %w2 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  return %a : tensor<2x4xf32>
}

// -----

// An auxiliary-only layer too.
func.func @deadAux(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{layer 'relu_0' is dead}}
  %r = dsm.relu %x : tensor<2x4xf32>
  return %x : tensor<2x4xf32>
}

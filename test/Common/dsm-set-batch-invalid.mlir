// RUN: dsm-opt %s -split-input-file --dsm-set-batch=batch=4 -verify-diagnostics -o /dev/null

// A reshape that fixes the batch size cannot follow a new batch.
func.func @fixed_reshape(%x: tensor<2x8xf32>) -> tensor<16xf32> {
  // expected-error @+2 {{'dsm.reshape' op shape [16] has 16 elements but the input [4, 8] has 32}}
  // expected-remark @+1 {{while setting the batch size to 4}}
  %y = dsm.reshape %x {shape = array<i64: 16>} : (tensor<2x8xf32>) -> tensor<16xf32>
  return %y : tensor<16xf32>
}

// -----

// Operations from other dialects do not infer their types.
func.func @foreign(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'tensor.cast' op cannot be re-batched: it does not infer its result types}}
  %y = tensor.cast %x : tensor<2x8xf32> to tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// expected-error @+1 {{argument #0 has dsm.batch_dim = 3 but rank 2}}
func.func @bad_batch_dim(%x: tensor<2x8xf32> {dsm.batch_dim = 3 : i64}) {
  return
}

// -----

// An opaque operation whose result is not shaped like its inputs cannot carry
// a new batch.
func.func @opaque_reduction(%x: tensor<2x8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'dsm.opaque' op cannot be re-batched: its result is not shaped like its inputs, so the new batch cannot be carried through it}}
  %y = dsm.opaque "onnx.ReduceSum"(%x) : (tensor<2x8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// Users that read different dimensions as the batch: re-batching a guessed one
// would be silently wrong.
// expected-error @+1 {{cannot tell which dimension of argument #0 is the batch: its users read it differently (a time-major dsm.lstm reads dimension 1); declare it with dsm.batch_dim}}
func.func @ambiguous(%x: tensor<3x3x16xf32>) -> (tensor<3x3x8xf32>, tensor<3x3x16xf32>) {
  %w = dsm.weight "w" : tensor<1x32x16xf32>
  %r = dsm.weight "r" : tensor<1x32x8xf32>
  %y = dsm.lstm %x, %w, %r : (tensor<3x3x16xf32>, tensor<1x32x16xf32>, tensor<1x32x8xf32>) -> tensor<3x3x8xf32>
  %z = dsm.relu %x : tensor<3x3x16xf32>
  return %y, %z : tensor<3x3x8xf32>, tensor<3x3x16xf32>
}

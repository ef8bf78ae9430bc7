// RUN: dsm-translate --upgrade-mlir -split-input-file -verify-diagnostics %s

// An expand_shape with a dynamic result dimension needs that size as an SSA
// value in output_shape: the step cannot write it.
func.func @dynamic(%x: tensor<?x32xf32>) -> tensor<?x2x16xf32> {
  // expected-error @+1 {{cannot upgrade 'tensor.expand_shape' to tensor<?x2x16xf32>: a dynamic result dimension needs its size as an SSA value in output_shape; write it by hand (output_shape [%d0, 4, ..])}}
  %e = tensor.expand_shape %x [[0], [1, 2]] : tensor<?x32xf32> into tensor<?x2x16xf32>
  return %e : tensor<?x2x16xf32>
}

// -----

!t = tensor<2x3xf32>
func.func @alias(%x: tensor<6xf32>) -> !t {
  // expected-error @+1 {{cannot upgrade 'tensor.expand_shape': cannot read its result type '!t' (type aliases are not resolved)}}
  %e = tensor.expand_shape %x [[0, 1]] : tensor<6xf32> into !t
  return %e : !t
}

// -----

func.func @truncated(%x: tensor<6xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{cannot upgrade 'tensor.expand_shape': expected a closed reassociation}}
  %e = tensor.expand_shape %x [[0, 1] : tensor<6xf32> into tensor<2x3xf32>
  return %e : tensor<2x3xf32>
}

// -----

func.func @no_types(%x: tensor<6xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{cannot upgrade 'tensor.expand_shape': expected 'into' and its result type}}
  %e = tensor.expand_shape %x [[0, 1]] : tensor<6xf32>
  return %e : tensor<2x3xf32>
}

// -----

// A spelling the step does not know (linalg.init_tensor, MLIR 15): the
// parser's error, and a note saying what the step rewrites.
func.func @unknown() -> tensor<4xf32> {
  // expected-error @+2 {{custom op 'linalg.init_tensor' is unknown}}
  // expected-note @+1 {{--upgrade-mlir rewrites expand_shape without output_shape, tosa.const with value, the transposed linalg matmuls and arith.maxf/minf; this spelling is not one of them}}
  %e = linalg.init_tensor [4] : tensor<4xf32>
  return %e : tensor<4xf32>
}

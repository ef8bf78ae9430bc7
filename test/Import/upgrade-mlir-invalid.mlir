// RUN: dsm-translate --upgrade-mlir -split-input-file -verify-diagnostics %s

// A dynamic result dimension is computed from its source dimension, unless
// its group has another one (MLIR allows one per group): the sizes are not
// known.
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{cannot upgrade 'tensor.expand_shape' to tensor<?x?xf32>: result dimension 0 is not the only dynamic one of its reassociation group; write output_shape by hand}}
  %e = tensor.expand_shape %x [[0, 1]] : tensor<?xf32> into tensor<?x?xf32>
  return %e : tensor<?x?xf32>
}

// -----

// tosa.mul's shift must be an integer, and the op needs its types.
func.func @shift(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot upgrade 'tosa.mul': expected an integer shift}}
  %m = tosa.mul %x, %x {shift = "none"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

func.func @shift_types(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot upgrade 'tosa.mul': expected a functional type}}
  %m = tosa.mul %x, %x {shift = 0 : i8} : tensor<4xf32>
  return %m : tensor<4xf32>
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

// -----

// tm_tensor.attention on buffers (no result) or with a mask that is not
// shaped like the scores is not upgraded.
func.func @attention_buffers(%q: memref<1x4x8xf32>, %o: memref<1x4x8xf32>) {
  // expected-error @+1 {{cannot upgrade 'tm_tensor.attention': expected '->' and a result type (attention on tensors)}}
  tm_tensor.attention ins(%q, %q, %q : memref<1x4x8xf32>, memref<1x4x8xf32>, memref<1x4x8xf32>) outs(%o : memref<1x4x8xf32>)
  return
}

// -----

func.func @attention_mask(%q: tensor<1x4x8xf32>, %m: tensor<1x4x5xf32>) -> tensor<1x4x8xf32> {
  // expected-error @+1 {{cannot upgrade 'tm_tensor.attention': expected a mask shaped like the scores}}
  %0 = tm_tensor.attention ins(%q, %q, %q, %m : tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x5xf32>) outs(%q : tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %0 : tensor<1x4x8xf32>
}

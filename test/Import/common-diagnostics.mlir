// Diagnostics of the shared importer (importers/common/Importer.cpp) that
// either front end reaches with the same input: each case is run through
// both passes. Permissive mode, so that the warning about an operation
// without a tensor result can be checked; every error below is independent
// of the mode.
// RUN: dsm-opt %s -split-input-file -verify-diagnostics --dsm-import-linalg="mode=permissive"
// RUN: dsm-opt %s -split-input-file -verify-diagnostics --dsm-import-tosa="mode=permissive"

// A result of unranked type is refused before anything is imported.
func.func @unranked_result(%x: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{has an unranked result ('tensor<*xf32>'); dsm needs ranked, static shapes (infer them first)}}
  %y = tensor.cast %x : tensor<4xf32> to tensor<*xf32>
  return %y : tensor<*xf32>
}

// -----

// A scalar argument the function returns is no tensor dsm can carry.
// expected-error @+1 {{argument #0 ('f32') is not a statically shaped tensor}}
func.func @scalar_argument_returned(%a: f32) -> f32 {
  return %a : f32
}

// -----

// Scalar bookkeeping is dropped, so a returned scalar result has no import.
func.func @scalar_result_returned(%a: f32, %b: f32) -> f32 {
  // expected-error @+1 {{the result of 'arith.addf' is read by 'func.return' but the import keeps no value for it (scalar bookkeeping and operations without tensor results are dropped)}}
  %c = arith.addf %a, %b : f32
  return %c : f32
}

// -----

// A scalar constant used as data would be a dsm.opaque of a non-tensor type.
func.func @scalar_constant_returned() -> f32 {
  // expected-error @+1 {{cannot import a result of type 'f32': dsm needs ranked tensors}}
  %c = arith.constant 1.0 : f32
  return %c : f32
}

// -----

// A constant used as data is declared a weight, which must be in a dsm type.
func.func @f64_constant_returned() -> tensor<2xf64> {
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf64>
  // expected-error @+1 {{element type 'f64' is not supported by dsm (f32, f16, bf16, i8)}}
  return %c : tensor<2xf64>
}

// -----

// A tensor kept as dsm.opaque needs a static shape.
func.func @dynamic_opaque_result() -> tensor<?xf32> {
  %d = arith.constant 4 : index
  // expected-error @+1 {{result type 'tensor<?xf32>' is dynamic; dsm needs static shapes (batch=<N> fixes a dynamic batch dimension)}}
  %e = tensor.empty(%d) : tensor<?xf32>
  return %e : tensor<?xf32>
}

// -----

// Called functions are inlined first, which needs a single block.
func.func private @branching(%x: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  cf.cond_br %c, ^a, ^b
^a:
  return %x : tensor<4xf32>
^b:
  return %x : tensor<4xf32>
}
func.func @calls_branching(%x: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  // expected-error @+1 {{cannot inline @branching: it has control flow}}
  %y = func.call @branching(%x, %c) : (tensor<4xf32>, i1) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Permissive mode drops a side effect that leaves no data to keep, warning.
func.func @side_effect_without_data(%x: tensor<4xf32>, %v: vector<4xf32>) -> tensor<4xf32> {
  // expected-warning @+1 {{dropping 'vector.print': it produces no tensor for dsm to keep}}
  vector.print %v : vector<4xf32>
  return %x : tensor<4xf32>
}

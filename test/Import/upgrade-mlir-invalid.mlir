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

// -----

// The other TMTensor ops: with a dynamic operand (the updates of an
// index_put whose count is not known), or on buffers (no results to read).
func.func @scatter_dynamic(%cache: tensor<10x8x6xf32>, %new: tensor<?xf32>, %idx: tensor<?x3xi64>) -> tensor<10x8x6xf32> {
  // expected-error @+1 {{cannot upgrade 'tm_tensor.scatter': expected operands and results as static tensors}}
  %0 = tm_tensor.scatter {dimension_map = array<i64: 0, 1, 2>} unique_indices(false) ins(%new, %idx : tensor<?xf32>, tensor<?x3xi64>) outs(%cache : tensor<10x8x6xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    tm_tensor.yield %arg3 : f32
  } -> tensor<10x8x6xf32>
  return %0 : tensor<10x8x6xf32>
}

// -----

func.func @scan_buffers(%0: memref<128xi32>, %1: memref<128xi32>) {
  %c0 = memref.alloc() : memref<i32>
  // expected-error @+1 {{cannot upgrade 'tm_tensor.scan': expected '->' and result types (the op on tensors; on buffers it has no results dsm could read)}}
  tm_tensor.scan dimension(0) inclusive(true)
    ins(%0 : memref<128xi32>) outs(%1, %c0 : memref<128xi32>, memref<i32>) {
    ^bb0(%arg0 : i32, %arg1 : i32):
      %sum = arith.addi %arg0, %arg1 : i32
      tm_tensor.yield %sum : i32
  }
  return
}

// -----

func.func @topk_dimension(%x: tensor<4x8xf32>, %v: tensor<4x2xf32>, %i: tensor<4x2xi64>) -> tensor<4x2xf32> {
  // expected-error @+1 {{cannot upgrade 'tm_tensor.topk': expected values (and indices) in, values and indices out, along a dimension of them}}
  %0:2 = tm_tensor.topk dimension(2) ins(%x : tensor<4x8xf32>) outs(%v, %i : tensor<4x2xf32>, tensor<4x2xi64>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf ogt, %a, %b : f32
    tm_tensor.yield %c : i1
  } -> tensor<4x2xf32>, tensor<4x2xi64>
  return %0#0 : tensor<4x2xf32>
}

// -----

// The static sizes of a group whose product passes 64 bits (a fuzzer's
// find): refused, not divided by a wrapped product.
func.func @overflow(%m: memref<?xf32>) -> memref<?x1152921504606846976x8xf32> {
  // expected-error @+1 {{cannot upgrade 'memref.expand_shape' to memref<?x1152921504606846976x8xf32>: the static sizes of result dimension 0's reassociation group overflow 64 bits}}
  %e = memref.expand_shape %m [[0, 1, 2]] : memref<?xf32> into memref<?x1152921504606846976x8xf32>
  return %e : memref<?x1152921504606846976x8xf32>
}

// -----

// tosa.mul's shift is one integer: a float or an array is refused, not read
// as its first digits (1.5 and [1, 2] both became 1), and TOSA's shift is
// in [0, 63].
func.func @shift_float(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{cannot upgrade 'tosa.mul': expected an integer shift, got '1.5 : f32'}}
  %m = tosa.mul %x, %x {shift = 1.5 : f32} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %m : tensor<4xi32>
}

// -----

func.func @shift_array(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{cannot upgrade 'tosa.mul': expected an integer shift, got '[1, 2]'}}
  %m = "tosa.mul"(%x, %x) {shift = [1, 2]} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %m : tensor<4xi32>
}

// -----

func.func @shift_range(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{cannot upgrade 'tosa.mul': its shift must be in [0, 63], got 300}}
  %m = tosa.mul %x, %x {shift = 300 : i32} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %m : tensor<4xi32>
}

// -----

// The TMTensor ops' attributes must fit their operands (they were upgraded
// into opaque ops, which check nothing): a scan along a dimension its input
// does not have, a scatter's dimension_map naming dimensions the original
// does not have (or twice, or not one per column of the indices), a topk
// taking more values than there are.
func.func @scan_dimension(%x: tensor<1x512xi64>, %o: tensor<1x512xi64>, %a: tensor<1xi64>) -> tensor<1x512xi64> {
  // expected-error @+1 {{cannot upgrade 'tm_tensor.scan': dimension(5) is not a dimension of its rank-2 operands}}
  %0:2 = tm_tensor.scan dimension(5) inclusive(true) ins(%x : tensor<1x512xi64>) outs(%o, %a : tensor<1x512xi64>, tensor<1xi64>) {
  ^bb0(%arg1: i64, %arg2: i64):
    %s = arith.addi %arg1, %arg2 : i64
    tm_tensor.yield %s : i64
  } -> tensor<1x512xi64>, tensor<1xi64>
  return %0#0 : tensor<1x512xi64>
}

// -----

func.func @scatter_map(%cache: tensor<10x8x6xf32>, %new: tensor<4xf32>, %idx: tensor<4x3xi64>) -> tensor<10x8x6xf32> {
  // expected-error @+1 {{cannot upgrade 'tm_tensor.scatter': dimension_map = [7, 9, 3] names dimension 7 of a rank-3 original}}
  %0 = tm_tensor.scatter {dimension_map = array<i64: 7, 9, 3>} unique_indices(false) ins(%new, %idx : tensor<4xf32>, tensor<4x3xi64>) outs(%cache : tensor<10x8x6xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    tm_tensor.yield %arg3 : f32
  } -> tensor<10x8x6xf32>
  return %0 : tensor<10x8x6xf32>
}

// -----

func.func @scatter_map_twice(%cache: tensor<10x8x6xf32>, %new: tensor<4xf32>, %idx: tensor<4x2xi64>) -> tensor<10x8x6xf32> {
  // expected-error @+1 {{cannot upgrade 'tm_tensor.scatter': dimension_map = [1, 1] names dimension 1 twice}}
  %0 = tm_tensor.scatter {dimension_map = array<i64: 1, 1>} unique_indices(false) ins(%new, %idx : tensor<4xf32>, tensor<4x2xi64>) outs(%cache : tensor<10x8x6xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    tm_tensor.yield %arg3 : f32
  } -> tensor<10x8x6xf32>
  return %0 : tensor<10x8x6xf32>
}

// -----

func.func @scatter_map_columns(%cache: tensor<10x8x6xf32>, %new: tensor<4xf32>, %idx: tensor<4x3xi64>) -> tensor<10x8x6xf32> {
  // expected-error @+1 {{cannot upgrade 'tm_tensor.scatter': dimension_map = [0, 1] has 2 entries for the 3 columns of its indices}}
  %0 = tm_tensor.scatter {dimension_map = array<i64: 0, 1>} unique_indices(false) ins(%new, %idx : tensor<4xf32>, tensor<4x3xi64>) outs(%cache : tensor<10x8x6xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    tm_tensor.yield %arg3 : f32
  } -> tensor<10x8x6xf32>
  return %0 : tensor<10x8x6xf32>
}

// -----

func.func @topk_k(%x: tensor<4x8xf32>, %v: tensor<4x100xf32>, %i: tensor<4x100xi64>) -> tensor<4x100xf32> {
  // expected-error @+1 {{cannot upgrade 'tm_tensor.topk': it takes the top 100 (its results along dimension(1)) of 8 values}}
  %0:2 = tm_tensor.topk dimension(1) ins(%x : tensor<4x8xf32>) outs(%v, %i : tensor<4x100xf32>, tensor<4x100xi64>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf ogt, %a, %b : f32
    tm_tensor.yield %c : i1
  } -> tensor<4x100xf32>, tensor<4x100xi64>
  return %0#0 : tensor<4x100xf32>
}

// -----

// tm_tensor.attention is written as linalg only when that linalg parses;
// otherwise the op and the cause (the text written had `inf` for the scale
// of a head dimension of 0, and an i8 mask added to f32 scores: a type error
// at column 2,446 of a generated line).
func.func @attention_no_head(%q: tensor<2x8x0xf32>, %k: tensor<2x8x0xf32>, %v: tensor<2x8x16xf32>, %o: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{cannot upgrade 'tm_tensor.attention': its head dimension (the query's last) is 0, so its scale 1/sqrt(0) is infinite}}
  %0 = tm_tensor.attention ins(%q, %k, %v : tensor<2x8x0xf32>, tensor<2x8x0xf32>, tensor<2x8x16xf32>) outs(%o : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %0 : tensor<2x8x16xf32>
}

// -----

func.func @attention_i8_mask(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>, %mask: tensor<1x4x8x8xi8>, %o: tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32> {
  // expected-error @+1 {{cannot upgrade 'tm_tensor.attention': its mask's element type is 'i8': a mask is boolean (i1) or of the query's element type 'f32', added to the scores}}
  %0 = tm_tensor.attention ins(%q, %k, %v, %mask : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x8xi8>) outs(%o : tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  return %0 : tensor<1x4x8x16xf32>
}

// -----

func.func @attention_shapes(%q: tensor<2x8x16xf32>, %k: tensor<2x10x32xf32>, %v: tensor<2x10x16xf32>, %o: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{cannot upgrade 'tm_tensor.attention': query 'tensor<2x8x16xf32>', key 'tensor<2x10x32xf32>' and value 'tensor<2x10x16xf32>' do not agree}}
  %0 = tm_tensor.attention ins(%q, %k, %v : tensor<2x8x16xf32>, tensor<2x10x32xf32>, tensor<2x10x16xf32>) outs(%o : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %0 : tensor<2x8x16xf32>
}

// -----

func.func @attention_result(%q: tensor<2x8x16xf32>, %k: tensor<2x10x16xf32>, %v: tensor<2x10x32xf32>, %o: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{cannot upgrade 'tm_tensor.attention': its result 'tensor<2x8x16xf32>' is not 'tensor<2x8x32xf32>', what it computes ([.., L, Ev])}}
  %0 = tm_tensor.attention ins(%q, %k, %v : tensor<2x8x16xf32>, tensor<2x10x16xf32>, tensor<2x10x32xf32>) outs(%o : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %0 : tensor<2x8x16xf32>
}

// -----

// A boolean mask over f16 scores: -inf is written in f16's bits (0xFC00),
// and the upgraded file parses.
func.func @attention_f16_causal(%q: tensor<1x4x8x16xf16>, %k: tensor<1x4x8x16xf16>, %v: tensor<1x4x8x16xf16>, %mask: tensor<1x4x8x8xi1>, %o: tensor<1x4x8x16xf16>) -> tensor<1x4x8x16xf16> {
  %0 = tm_tensor.attention ins(%q, %k, %v, %mask : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x8xi1>) outs(%o : tensor<1x4x8x16xf16>) -> tensor<1x4x8x16xf16>
  return %0 : tensor<1x4x8x16xf16>
}

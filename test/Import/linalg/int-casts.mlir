// Integer tensors converted to floats (issue 45): a mask or positions
// computed in i64 (i32, i1) and converted by arith.sitofp, uitofp or
// extsi + sitofp inside a linalg.generic, then used in f32 arithmetic. The
// conversion is a dsm.opaque of 1 operation per element (as ONNX Cast) from
// the integer tensor to the float type, located at the op that converts;
// the arithmetic is in f32. Integer arithmetic itself (positions offset in
// i64) and a float converted to integers (arith.fptosi) are opaque work
// with their count; integer constants stay constants (data, never
// parameters).
// RUN: dsm-opt %s --dsm-import-linalg="summary=%t.summary" 2>/dev/null | FileCheck %s
// RUN: FileCheck %s --check-prefix=SUMMARY < %t.summary
// RUN: dsm-opt %s --dsm-import-linalg --dsm-workload-report -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=REPORT

// By hand: the only MACs are @one_hot's fully connected layer, [4, 8] ids
// converted and multiplied by an [8, 16] weight: 4 x 8 x 16 = 512 MACs and
// 16 x 8 = 128 parameters. Nothing else is a parameter: @const_mask's
// [1, 5] i1 constant stays an arith.constant.
// Auxiliary operations, 1 per element of each conversion and each
// elementwise arithmetic op:
//   conversions: 5 (@mask_cast) + 5 (@in_body) + 5 (@extended_mask)
//                + 10 (@widened) + 5 (@offset_positions) + 5 (@to_int)
//                + 5 (@const_mask) + 32 (@one_hot)                = 72
//   arithmetic:  5 (@mask_cast) + 5 (@in_body) + 15 (@extended_mask: mul,
//                add, add) + 10 (@widened) + 10 (@offset_positions: the
//                i64 add and the f32 add) + 5 (@const_mask)       = 50
//   total                                                         = 122

#map2 = affine_map<(d0, d1) -> (d0, d1)>

// A mask converted in a generic of its own, then multiplied.
// CHECK-LABEL: func.func @mask_cast
// CHECK-NEXT: %[[M:.*]] = dsm.opaque "linalg.generic"(%arg1) : (tensor<1x5xi64>) -> tensor<1x5xf32>
// CHECK-NEXT: %[[Y:.*]] = dsm.mul %arg0, %[[M]] : (tensor<1x5xf32>, tensor<1x5xf32>) -> tensor<1x5xf32>
// CHECK-NEXT: return %[[Y]]
func.func @mask_cast(%x: tensor<1x5xf32>, %mask: tensor<1x5xi64>) -> tensor<1x5xf32> {
  %e = tensor.empty() : tensor<1x5xf32>
  %m = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%mask : tensor<1x5xi64>) outs(%e : tensor<1x5xf32>) {
  ^bb0(%in: i64, %out: f32):
    %f = arith.sitofp %in : i64 to f32
    linalg.yield %f : f32
  } -> tensor<1x5xf32>
  %y = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<1x5xf32>, tensor<1x5xf32>) outs(%e : tensor<1x5xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<1x5xf32>
  return %y : tensor<1x5xf32>
}

// Converted in the body of the product.
// CHECK-LABEL: func.func @in_body
// CHECK-NEXT: %[[M:.*]] = dsm.opaque "linalg.generic"(%arg1) : (tensor<1x5xi64>) -> tensor<1x5xf32>
// CHECK-NEXT: dsm.mul %[[M]], %arg0 : (tensor<1x5xf32>, tensor<1x5xf32>) -> tensor<1x5xf32>
func.func @in_body(%x: tensor<1x5xf32>, %mask: tensor<1x5xi64>) -> tensor<1x5xf32> {
  %e = tensor.empty() : tensor<1x5xf32>
  %y = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%x, %mask : tensor<1x5xf32>, tensor<1x5xi64>) outs(%e : tensor<1x5xf32>) {
  ^bb0(%a: f32, %b: i64, %out: f32):
    %f = arith.sitofp %b : i64 to f32
    %p = arith.mulf %a, %f : f32
    linalg.yield %p : f32
  } -> tensor<1x5xf32>
  return %y : tensor<1x5xf32>
}

// Hugging Face's extended attention mask, (1 - mask) * min(f32), added to
// the scores.
// CHECK-LABEL: func.func @extended_mask
// CHECK-NEXT: %[[M:.*]] = dsm.opaque "linalg.generic"(%arg1) : (tensor<1x5xi64>) -> tensor<1x5xf32>
// CHECK: dsm.mul %[[M]]
// CHECK: dsm.add
// CHECK: dsm.add %arg0
func.func @extended_mask(%s: tensor<1x5xf32>, %mask: tensor<1x5xi64>) -> tensor<1x5xf32> {
  %one = arith.constant 1.0 : f32
  %min = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<1x5xf32>
  %m = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%mask : tensor<1x5xi64>) outs(%e : tensor<1x5xf32>) {
  ^bb0(%in: i64, %out: f32):
    %f = arith.sitofp %in : i64 to f32
    %d = arith.subf %one, %f : f32
    %r = arith.mulf %d, %min : f32
    linalg.yield %r : f32
  } -> tensor<1x5xf32>
  %y = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%s, %m : tensor<1x5xf32>, tensor<1x5xf32>) outs(%e : tensor<1x5xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %p = arith.addf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<1x5xf32>
  return %y : tensor<1x5xf32>
}

// i32 widened by extsi then converted, an i1 mask by uitofp: each converted
// where it is read.
// CHECK-LABEL: func.func @widened
// CHECK-NEXT: %[[A:.*]] = dsm.opaque "linalg.generic"(%arg1) : (tensor<1x5xi32>) -> tensor<1x5xf32>
// CHECK-NEXT: %[[B:.*]] = dsm.opaque "linalg.generic"(%arg2) : (tensor<1x5xi1>) -> tensor<1x5xf32>
// CHECK-NEXT: %[[P:.*]] = dsm.mul %arg0, %[[A]]
// CHECK-NEXT: dsm.mul %[[P]], %[[B]]
func.func @widened(%x: tensor<1x5xf32>, %mask: tensor<1x5xi32>, %keep: tensor<1x5xi1>) -> tensor<1x5xf32> {
  %e = tensor.empty() : tensor<1x5xf32>
  %m = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%mask : tensor<1x5xi32>) outs(%e : tensor<1x5xf32>) {
  ^bb0(%in: i32, %out: f32):
    %w = arith.extsi %in : i32 to i64
    %f = arith.sitofp %w : i64 to f32
    linalg.yield %f : f32
  } -> tensor<1x5xf32>
  %k = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%keep : tensor<1x5xi1>) outs(%e : tensor<1x5xf32>) {
  ^bb0(%in: i1, %out: f32):
    %f = arith.uitofp %in : i1 to f32
    linalg.yield %f : f32
  } -> tensor<1x5xf32>
  %y = linalg.generic {indexing_maps = [#map2, #map2, #map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%x, %m, %k : tensor<1x5xf32>, tensor<1x5xf32>, tensor<1x5xf32>) outs(%e : tensor<1x5xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %out: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.mulf %p, %c : f32
    linalg.yield %q : f32
  } -> tensor<1x5xf32>
  return %y : tensor<1x5xf32>
}

// Positions offset in i64 (opaque, 1 operation per element), then
// converted and added.
// CHECK-LABEL: func.func @offset_positions
// CHECK-NEXT: %[[P:.*]] = dsm.opaque "linalg.generic"(%arg1) : (tensor<1x5xi64>) -> tensor<1x5xi64>
// CHECK-NEXT: %[[F:.*]] = dsm.opaque "linalg.generic"(%[[P]]) : (tensor<1x5xi64>) -> tensor<1x5xf32>
// CHECK-NEXT: dsm.add %[[F]], %arg0
func.func @offset_positions(%x: tensor<1x5xf32>, %pos: tensor<1x5xi64>) -> tensor<1x5xf32> {
  %c2 = arith.constant 2 : i64
  %e = tensor.empty() : tensor<1x5xf32>
  %ei = tensor.empty() : tensor<1x5xi64>
  %p = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%pos : tensor<1x5xi64>) outs(%ei : tensor<1x5xi64>) {
  ^bb0(%in: i64, %out: i64):
    %f = arith.addi %in, %c2 : i64
    linalg.yield %f : i64
  } -> tensor<1x5xi64>
  %y = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%x, %p : tensor<1x5xf32>, tensor<1x5xi64>) outs(%e : tensor<1x5xf32>) {
  ^bb0(%a: f32, %b: i64, %out: f32):
    %f = arith.sitofp %b : i64 to f32
    %q = arith.addf %a, %f : f32
    linalg.yield %q : f32
  } -> tensor<1x5xf32>
  return %y : tensor<1x5xf32>
}

// A float converted to integers.
// CHECK-LABEL: func.func @to_int
// CHECK-NEXT: dsm.opaque "linalg.generic"(%arg0) : (tensor<1x5xf32>) -> tensor<1x5xi64>
func.func @to_int(%x: tensor<1x5xf32>) -> tensor<1x5xi64> {
  %ei = tensor.empty() : tensor<1x5xi64>
  %p = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x5xf32>) outs(%ei : tensor<1x5xi64>) {
  ^bb0(%in: f32, %out: i64):
    %f = arith.fptosi %in : f32 to i64
    linalg.yield %f : i64
  } -> tensor<1x5xi64>
  return %p : tensor<1x5xi64>
}

// An i1 constant mask converted in the body: a constant, not a parameter.
// CHECK-LABEL: func.func @const_mask
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<[{{\[}}true, true, true, false, false]]> : tensor<1x5xi1>
// CHECK-NEXT: %[[M:.*]] = dsm.opaque "linalg.generic"(%[[C]]) : (tensor<1x5xi1>) -> tensor<1x5xf32>
// CHECK-NEXT: dsm.mul %[[M]], %arg0
// CHECK-NOT: dsm.weight
// CHECK: return
func.func @const_mask(%x: tensor<1x5xf32>) -> tensor<1x5xf32> {
  %keep = arith.constant dense<[[true, true, true, false, false]]> : tensor<1x5xi1>
  %e = tensor.empty() : tensor<1x5xf32>
  %y = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%x, %keep : tensor<1x5xf32>, tensor<1x5xi1>) outs(%e : tensor<1x5xf32>) {
  ^bb0(%a: f32, %b: i1, %out: f32):
    %f = arith.uitofp %b : i1 to f32
    %p = arith.mulf %a, %f : f32
    linalg.yield %p : f32
  } -> tensor<1x5xf32>
  return %y : tensor<1x5xf32>
}

// Ids converted in a contraction's body (a one-hot product): the product
// of the converted ids and the weight.
// CHECK-LABEL: func.func @one_hot
// CHECK-NEXT: %[[F:.*]] = dsm.opaque "linalg.generic"(%arg0) : (tensor<4x8xi64>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[W:.*]] = dsm.weight "fully_connected_0.weight" : tensor<16x8xf32>
// CHECK-NEXT: dsm.fully_connected %[[F]], %[[W]] : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
func.func @one_hot(%ids: tensor<4x8xi64>) -> tensor<4x16xf32> {
  %w = arith.constant dense_resource<__elided__> : tensor<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ids, %w : tensor<4x8xi64>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) {
  ^bb0(%a: i64, %b: f32, %out: f32):
    %c = arith.sitofp %a : i64 to f32
    %p = arith.mulf %c, %b : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// SUMMARY: @mask_cast: {{.*}} opaque 0)
// SUMMARY: conversion of i64 data to f32
// SUMMARY: @offset_positions:
// SUMMARY: linalg.generic (1 ops/element x 5 elements): arithmetic on i64 data, which dsm has no operation for
// SUMMARY: linalg.generic (1 ops/element x 5 elements): conversion of i64 data to f32
// SUMMARY: @to_int:
// SUMMARY: linalg.generic (1 ops/element x 5 elements): a conversion of f32 data to i64, which dsm has no operation for
// SUMMARY: @one_hot:
// SUMMARY: linalg.generic 1 imported 1 -> dsm.fully_connected 1
// SUMMARY: linalg.generic (1 ops/element x 32 elements): conversion of i64 data to f32

// REPORT: fully_connected_0 fc 8 16 1 1 4 512 128
// REPORT: totals: 512 MACs, 128 parameters, {{.*}}, 122 auxiliary ops

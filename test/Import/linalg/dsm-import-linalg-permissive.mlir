// Permissive mode keeps what it does not recognise as dsm.opaque, charged
// per element by the operations of its body (times the reduction for
// reductions), warns once per function and lists each in the summary.
// RUN: dsm-opt %s -verify-diagnostics --dsm-import-linalg="mode=permissive summary=%t.summary" | FileCheck %s
// RUN: FileCheck %s --check-prefix=SUMMARY < %t.summary
// The summary goes to stdout with summary=-.
// RUN: dsm-opt %s --dsm-import-linalg="mode=permissive summary=-" -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=SUMMARY
// A summary that cannot be written fails the pass.
// RUN: not dsm-opt %s --dsm-import-linalg="mode=permissive summary=%t.missing/s.txt" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NODIR

// CHECK-LABEL: func.func @partly_known
// CHECK:         %[[S:.*]] = dsm.opaque "linalg.generic"(%arg0) {ops_per_element = 2.000000e+00 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK:         %[[R:.*]] = dsm.relu %[[S]]
// CHECK:         dsm.opaque "linalg.generic"(%[[R]]) {ops_per_element = 1.600000e+01 : f64} : (tensor<4x8xf32>) -> tensor<4xf32>
// A loop is charged what its body executes: this one's body is empty.
// CHECK:         dsm.opaque "scf.forall"() {ops_per_element = 0.000000e+00 : f64} : () -> tensor<8x4xf32>

// SUMMARY:      dsm-import-linalg summary (mode=permissive)
// SUMMARY-NEXT: @partly_known: 9 source ops -> 4 dsm ops (imported 1, fused 0, folded 1, dropped 4, opaque 3)
// SUMMARY:        linalg.fill 1 folded 1 -> into its consumers 1
// SUMMARY-NEXT:   linalg.generic 3 imported 1 opaque 2 -> dsm.opaque 2, dsm.relu 1
// SUMMARY-NEXT:   scf.forall 1 opaque 1 -> dsm.opaque 1
// SUMMARY:        opaque: 3
// SUMMARY-NEXT:     dsm-import-linalg-permissive.mlir:{{[0-9]+}}:8: linalg.generic (2 ops/element x 32 elements): elementwise function not recognised (2 operation(s); not modelled: math.sin)
// SUMMARY-NEXT:     dsm-import-linalg-permissive.mlir:{{[0-9]+}}:8: linalg.generic (16 ops/element x 4 elements): neither a convolution, pooling, contraction, elementwise op nor a plain sum/max/min reduction
// SUMMARY-NEXT:     dsm-import-linalg-permissive.mlir:{{[0-9]+}}:8: scf.forall (0 ops/element x 32 elements): no dsm counterpart is known

// NODIR: error: cannot write '{{.*}}s.txt'

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// expected-warning @+1 {{3 operation(s) kept as dsm.opaque, charged by element count (see the import summary)}}
func.func @partly_known(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %a = math.sin %in : f32
    %b = arith.mulf %a, %in : f32
    linalg.yield %b : f32
  } -> tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  // A sum of absolute values (an L1 norm; a sum of squares is a dsm.mul and
  // a dsm.reduce): 2 operations per element reduced, 8 reduced per result.
  %e1 = tensor.empty() : tensor<4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %q = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%r : tensor<4x8xf32>) outs(%f1 : tensor<4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %sq = math.absf %in : f32
    %acc = arith.addf %o, %sq : f32
    linalg.yield %acc : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<8x4xf32>
  %t = scf.forall (%i) in (4) shared_outs(%o = %e2) -> tensor<8x4xf32> {
    scf.forall.in_parallel {
    }
  }
  return %q, %t : tensor<4xf32>, tensor<8x4xf32>
}

// RMSNorm, x * rsqrt(mean(x^2) + eps) * weight, in the spellings linalg
// elementwise fusion and hand-written kernels leave (torch-mlir's separate
// generics are in llama-prefill.test): the sum of squares in one reduction
// body (`in * in + acc`, a linalg.generic or a linalg.reduce),
// rsqrt(sum / n + eps) or 1 / sqrt(sum / n + eps) in one body, and
// x * r * weight in one body of three inputs (in any order). The importer
// writes them as the pieces (dsm.mul of x by itself, dsm.reduce <sum>,
// dsm.mul by 1/n, dsm.add of eps, dsm.rsqrt, dsm.mul chain) and the
// decomposed-RMSNorm graph fusion makes one dsm.rms_norm of each.
// RUN: dsm-opt %s --dsm-import-linalg="summary=%t.summary" | FileCheck %s
// RUN: FileCheck %s --check-prefix=SUMMARY < %t.summary
// RUN: dsm-opt %s --dsm-import-linalg --dsm-workload-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// By hand: an RMSNorm has no MACs, its weight's parameters (the normalized
// dimension: 64) and 3 auxiliary operations per element (docs/workloads.md:
// mean square, normalise, scale):
//   @fused        [1, 8, 64]: 0 MACs, 64 parameters, 3 x 512 = 1,536 ops
//   @reduce_sqrt  [2, 64]:    0 MACs, 64 parameters, 3 x 128 =   384 ops
//                 (the report: 64 out features, a minibatch of 2)
//   @other_square [2, 64]:    no RMSNorm (the square is of another tensor):
//     u * u and its sum, the scale and epsilon, the rsqrt, then x * r * w
//     as two dsm.mul; 64 parameters (w, declared as the scale of the
//     second product); no MACs.
// Totals: 0 MACs, 192 parameters.

#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#last3 = affine_map<(d0, d1, d2) -> (d2)>
#map2 = affine_map<(d0, d1) -> (d0, d1)>
#col2 = affine_map<(d0, d1) -> (d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
#map1 = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @fused
// CHECK-NEXT: %[[W:.*]] = dsm.weight "rms_norm_0.scale" : tensor<64xf32>
// CHECK-NEXT: %[[N:.*]] = dsm.rms_norm %arg0, %[[W]] : (tensor<1x8x64xf32>, tensor<64xf32>) -> tensor<1x8x64xf32>
// CHECK-NEXT: return %[[N]]
func.func @fused(%x: tensor<1x8x64xf32>) -> tensor<1x8x64xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %n = arith.constant 6.400000e+01 : f32
  %eps = arith.constant 9.99999997E-7 : f32
  %w = arith.constant dense_resource<__elided__> : tensor<64xf32>
  %e0 = tensor.empty() : tensor<1x8x64xf32>
  %e1 = tensor.empty() : tensor<1x8x1xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8x1xf32>) -> tensor<1x8x1xf32>
  %sum = linalg.generic {indexing_maps = [#map3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<1x8x64xf32>) outs(%f1 : tensor<1x8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = arith.mulf %in, %in : f32
    %a = arith.addf %p, %out : f32
    linalg.yield %a : f32
  } -> tensor<1x8x1xf32>
  %rstd = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sum : tensor<1x8x1xf32>) outs(%e1 : tensor<1x8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.divf %in, %n : f32
    %a = arith.addf %d, %eps : f32
    %r = math.rsqrt %a : f32
    linalg.yield %r : f32
  } -> tensor<1x8x1xf32>
  %y = linalg.generic {indexing_maps = [#map3, #row3, #last3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %rstd, %w : tensor<1x8x64xf32>, tensor<1x8x1xf32>, tensor<64xf32>) outs(%e0 : tensor<1x8x64xf32>) {
  ^bb0(%in: f32, %in_0: f32, %in_1: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %m2 = arith.mulf %m, %in_1 : f32
    linalg.yield %m2 : f32
  } -> tensor<1x8x64xf32>
  return %y : tensor<1x8x64xf32>
}

// linalg.reduce with the square in its body, the rows not kept, the root as
// 1 / sqrt, the weight the first factor of the product.
// CHECK-LABEL: func.func @reduce_sqrt
// CHECK-NEXT: %[[W:.*]] = dsm.weight "rms_norm_1.scale" : tensor<64xf32>
// CHECK-NEXT: %[[N:.*]] = dsm.rms_norm %arg0, %[[W]] {epsilon = 1.000000e-05 : f64} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32>
// CHECK-NEXT: return %[[N]]
func.func @reduce_sqrt(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %n = arith.constant 6.400000e+01 : f32
  %eps = arith.constant 1.000000e-05 : f32
  %w = arith.constant dense_resource<__elided__> : tensor<64xf32>
  %e0 = tensor.empty() : tensor<2x64xf32>
  %e1 = tensor.empty() : tensor<2xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2xf32>) -> tensor<2xf32>
  %sum = linalg.reduce ins(%x : tensor<2x64xf32>) outs(%f1 : tensor<2xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %p = arith.mulf %in, %in : f32
      %a = arith.addf %acc, %p : f32
      linalg.yield %a : f32
    }
  %rstd = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%sum : tensor<2xf32>) outs(%e1 : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.divf %in, %n : f32
    %a = arith.addf %d, %eps : f32
    %s = math.sqrt %a : f32
    %r = arith.divf %one, %s : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  %y = linalg.generic {indexing_maps = [#col2, #map2, #row2, #map2], iterator_types = ["parallel", "parallel"]} ins(%w, %x, %rstd : tensor<64xf32>, tensor<2x64xf32>, tensor<2xf32>) outs(%e0 : tensor<2x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    %m2 = arith.mulf %m, %c : f32
    linalg.yield %m2 : f32
  } -> tensor<2x64xf32>
  return %y : tensor<2x64xf32>
}

// The square of another tensor than the one normalized: the pieces stay.
// CHECK-LABEL: func.func @other_square
// CHECK-NOT: dsm.rms_norm
// CHECK: %[[SQ:.*]] = dsm.mul %arg1, %arg1
// CHECK: dsm.reduce <sum> %[[SQ]]
// CHECK: dsm.rsqrt
// CHECK: %[[XR:.*]] = dsm.mul %arg0, %{{.*}} : (tensor<2x64xf32>, tensor<2x1xf32>) -> tensor<2x64xf32>
// CHECK: dsm.mul %[[XR]], %{{.*}} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32>
// CHECK-NOT: dsm.rms_norm
func.func @other_square(%x: tensor<2x64xf32>, %u: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %n = arith.constant 6.400000e+01 : f32
  %eps = arith.constant 1.000000e-05 : f32
  %w = arith.constant dense_resource<__elided__> : tensor<64xf32>
  %e0 = tensor.empty() : tensor<2x64xf32>
  %e1 = tensor.empty() : tensor<2xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2xf32>) -> tensor<2xf32>
  %sum = linalg.reduce ins(%u : tensor<2x64xf32>) outs(%f1 : tensor<2xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %p = arith.mulf %in, %in : f32
      %a = arith.addf %acc, %p : f32
      linalg.yield %a : f32
    }
  %rstd = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%sum : tensor<2xf32>) outs(%e1 : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.divf %in, %n : f32
    %a = arith.addf %d, %eps : f32
    %r = math.rsqrt %a : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  %y = linalg.generic {indexing_maps = [#map2, #row2, #col2, #map2], iterator_types = ["parallel", "parallel"]} ins(%x, %rstd, %w : tensor<2x64xf32>, tensor<2xf32>, tensor<64xf32>) outs(%e0 : tensor<2x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    %m2 = arith.mulf %m, %c : f32
    linalg.yield %m2 : f32
  } -> tensor<2x64xf32>
  return %y : tensor<2x64xf32>
}

// SUMMARY: @fused: {{.*}} opaque 0)
// SUMMARY: linalg.generic 3 imported 3 -> dsm.mul 1, dsm.reduce 1, dsm.rsqrt 1
// SUMMARY: decomposed RMSNorm 1 -> dsm.rms_norm 1
// SUMMARY: @reduce_sqrt: {{.*}} opaque 0)
// SUMMARY: linalg.reduce 1 imported 1 -> dsm.reduce 1
// SUMMARY: decomposed RMSNorm 1 -> dsm.rms_norm 1
// SUMMARY: @other_square: {{.*}} opaque 0)
// SUMMARY-NOT: RMSNorm

// REPORT: rms_norm_0 rms_norm 1 512 1 1 1 0 64
// REPORT: rms_norm_1 rms_norm 1 64 1 1 2 0 64
// REPORT: totals: 0 MACs, 192 parameters

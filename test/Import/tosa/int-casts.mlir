// An i64 mask cast to f32 by tosa.cast, then multiplied (issue 45): the
// cast is a dsm.opaque of 1 operation per element, located at tosa.cast,
// and the product is in f32 (it was "'dsm.mul' op rhs element type 'i64'
// does not match 'f32'").
// RUN: dsm-opt %s --dsm-import-tosa="summary=%t.summary" 2>/dev/null | FileCheck %s
// RUN: FileCheck %s --check-prefix=SUMMARY < %t.summary
// RUN: dsm-opt %s --dsm-import-tosa --dsm-workload-report -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=REPORT

// By hand: no MACs, no parameters; 5 operations for the cast, 5 for the
// product.

// CHECK-LABEL: func.func @mask
// CHECK-NEXT: %[[M:.*]] = dsm.opaque "tosa.cast"(%arg1) : (tensor<1x5xi64>) -> tensor<1x5xf32>
// CHECK-NEXT: %[[Y:.*]] = dsm.mul %arg0, %[[M]] : (tensor<1x5xf32>, tensor<1x5xf32>) -> tensor<1x5xf32>
// CHECK-NEXT: return %[[Y]]
func.func @mask(%x: tensor<1x5xf32>, %mask: tensor<1x5xi64>) -> tensor<1x5xf32> {
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %m = tosa.cast %mask : (tensor<1x5xi64>) -> tensor<1x5xf32>
  %y = tosa.mul %x, %m, %shift : (tensor<1x5xf32>, tensor<1x5xf32>, tensor<1xi8>) -> tensor<1x5xf32>
  return %y : tensor<1x5xf32>
}

// SUMMARY: tosa.cast 1 opaque 1 -> dsm.opaque 1
// SUMMARY: tosa.cast (1 ops/element x 5 elements): conversion of i64 data to f32

// REPORT: totals: 0 MACs, 0 parameters, {{.*}}, 10 auxiliary ops

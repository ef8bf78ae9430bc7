// Partially lowered programs mix linalg with vector, memref, scf,
// bufferization, affine, math, arith, func and tensor operations. dsm-opt
// loads those dialects; the importer takes what it recognises. In
// permissive mode what is no DNN operation is charged as dsm.opaque work and
// named in the import summary; in strict mode the first one is a located
// error (dsm-import-linalg-mixed-strict.mlir).
// RUN: dsm-opt %s -split-input-file --dsm-import-linalg="mode=permissive" 2>/dev/null | FileCheck %s
// RUN: dsm-opt %s -split-input-file --dsm-import-linalg="mode=permissive" 2>&1 >/dev/null | FileCheck %s --check-prefix=WARN --implicit-check-not=warning:
// RUN: dsm-opt %s -split-input-file --dsm-import-linalg="mode=permissive summary=-" -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=SUMMARY
// RUN: dsm-opt %s -split-input-file --dsm-import-linalg="mode=permissive" --dsm-workload-report=format=json -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=WORK

// A ReLU, then an exponential computed on vectors: each vector operation is
// kept as a dsm.opaque of the vector's shape, reading what the previous one
// produced.
// CHECK-LABEL: func.func @vectors
// CHECK-SAME:    (%[[X:.*]]: tensor<1x64xf32>)
// CHECK:         %[[R:.*]] = dsm.relu %[[X]]
// CHECK:         %[[V:.*]] = dsm.opaque "vector.transfer_read"(%[[R]]) : (tensor<1x64xf32>) -> tensor<1x64xf32>
// CHECK:         %[[E:.*]] = dsm.opaque "math.exp"(%[[V]]) : (tensor<1x64xf32>) -> tensor<1x64xf32>
// CHECK:         %[[W:.*]] = dsm.opaque "vector.transfer_write"(%[[E]]) : (tensor<1x64xf32>) -> tensor<1x64xf32>
// CHECK:         return %[[W]]
// SUMMARY:      @vectors: {{.*}}, opaque 3)
// SUMMARY:        linalg.generic 1 imported 1 -> dsm.relu 1
// SUMMARY:        math.exp 1 opaque 1 -> dsm.opaque 1
// SUMMARY:        vector.transfer_read 1 opaque 1 -> dsm.opaque 1
// SUMMARY:        vector.transfer_write 1 opaque 1 -> dsm.opaque 1
// SUMMARY:        opaque: 3
// SUMMARY-NEXT:     {{.*}}mixed.mlir:{{[0-9]+}}:{{[0-9]+}}: vector.transfer_read (1 ops/element x 64 elements): no dsm counterpart is known
// SUMMARY-NEXT:     {{.*}}: math.exp (1 ops/element x 64 elements)
// SUMMARY-NEXT:     {{.*}}: vector.transfer_write (1 ops/element x 64 elements)
// WORK: "aux_ops": 64,
// WARN: warning: 3 operation(s) kept as dsm.opaque
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @vectors(%x: tensor<1x64xf32>) -> tensor<1x64xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<1x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x64xf32>) outs(%e : tensor<1x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x64xf32>
  %v = vector.transfer_read %r[%c0, %c0], %zero : tensor<1x64xf32>, vector<1x64xf32>
  %ex = math.exp %v : vector<1x64xf32>
  %w = vector.transfer_write %ex, %e[%c0, %c0] : vector<1x64xf32>, tensor<1x64xf32>
  return %w : tensor<1x64xf32>
}

// -----

// After bufferization: a matmul on buffers. The buffer made from the input
// stands for it; the fill and the matmul are charged as what they write
// (the matmul 2 x 8 operations per element of its 4x16 result), and the
// tensor read back from the buffer is the matmul's. The allocation does no
// work: it is dropped without a warning (WARN checks there is no other).
// CHECK-LABEL: func.func @buffers
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>)
// CHECK:         %[[F:.*]] = dsm.opaque "linalg.fill"() : () -> tensor<4x16xf32>
// CHECK:         %[[M:.*]] = dsm.opaque "linalg.matmul"(%[[X]], %{{.*}}, %[[F]]) {ops_per_element = 1.600000e+01 : f64} : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK:         return %[[M]]
// SUMMARY:      @buffers:
// SUMMARY:        bufferization.to_buffer 2 dropped 2 -> pass-through 2
// SUMMARY:        bufferization.to_tensor 1 dropped 1 -> pass-through 1
// SUMMARY:        linalg.fill 1 opaque 1 -> dsm.opaque 1
// SUMMARY:        linalg.matmul 1 opaque 1 -> dsm.opaque 1
// SUMMARY:        memref.alloc 1 dropped 1 -> no tensor result 1
// SUMMARY:        opaque: 2
// SUMMARY-NEXT:     {{.*}}: linalg.fill (1 ops/element x 64 elements): linalg on buffers is not supported (import before bufferization)
// SUMMARY-NEXT:     {{.*}}: linalg.matmul (16 ops/element x 64 elements): linalg on buffers
// 64 elements x 16 and the fill's 64:
// WORK: "aux_ops": 1088,
// WARN: warning: 2 operation(s) kept as dsm.opaque
func.func @buffers(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense_resource<__elided__> : tensor<8x16xf32>
  %a = bufferization.to_buffer %x : tensor<4x8xf32> to memref<4x8xf32>
  %b = bufferization.to_buffer %w : tensor<8x16xf32> to memref<8x16xf32>
  %out = memref.alloc() : memref<4x16xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%out : memref<4x16xf32>)
  %t = bufferization.to_tensor %out : memref<4x16xf32> to tensor<4x16xf32>
  return %t : tensor<4x16xf32>
}

// -----

// Loops: an scf.for writing a buffer row by row through views, and an
// affine.for: each is charged as the buffer it writes, with what its body
// executes (trip count x operations) per element.
// CHECK-LABEL: func.func @loops
// CHECK:         %[[L:.*]] = dsm.opaque "scf.for"() {ops_per_element = 1.062500e+00 : f64} : () -> tensor<4x16xf32>
// CHECK:         %[[A:.*]] = dsm.opaque "affine.for"(%[[L]]) {ops_per_element = 3.000000e+00 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK:         return %[[A]]
// SUMMARY:      @loops:
// SUMMARY:        affine.for 1 opaque 1 -> dsm.opaque 1
// SUMMARY:        scf.for 1 opaque 1 -> dsm.opaque 1
// SUMMARY:        opaque: 2
// SUMMARY-NEXT:     {{.*}}: scf.for (1.0625 ops/element x 64 elements)
// SUMMARY-NEXT:     {{.*}}: affine.for (3 ops/element x 64 elements)
// 64 x (1.0625 + 3):
// WORK: "aux_ops": 260,
// WARN: warning: 2 operation(s) kept as dsm.opaque
func.func @loops() -> tensor<4x16xf32> {
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %out = memref.alloc() : memref<4x16xf32>
  // 4 x (a view, a 16-element fill) = 68 operations on 64 elements.
  scf.for %i = %c0 to %c4 step %c1 {
    %row = memref.subview %out[%i, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<1x16xf32, strided<[16, 1], offset: ?>>
    linalg.fill ins(%one : f32) outs(%row : memref<1x16xf32, strided<[16, 1], offset: ?>>)
  }
  // 4 x 16 x (a load, an add, a store) = 192 operations on 64 elements.
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 16 {
      %v = affine.load %out[%i, %j] : memref<4x16xf32>
      %s = arith.addf %v, %one : f32
      affine.store %s, %out[%i, %j] : memref<4x16xf32>
    }
  }
  %t = bufferization.to_tensor %out : memref<4x16xf32> to tensor<4x16xf32>
  return %t : tensor<4x16xf32>
}

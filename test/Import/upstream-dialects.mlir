// dsm-opt loads every upstream dialect found in public dumps and partially
// lowered programs (dsm::registerImportDialects): such files parse, verify
// and print back.
// RUN: dsm-opt %s | dsm-opt | FileCheck %s

// CHECK-LABEL: func.func @every_dialect
// CHECK: affine.apply
// CHECK: arith.addi
// CHECK: bufferization.alloc_tensor
// CHECK: complex.create
// CHECK: index.add
// CHECK: linalg.fill
// CHECK: llvm.mlir.constant
// CHECK: math.exp
// CHECK: memref.alloc
// CHECK: scf.for
// CHECK: shape.const_shape
// CHECK: tensor.empty
// CHECK: tosa.const_shape
// CHECK: ub.poison
// CHECK: vector.broadcast
// CHECK: cf.assert
#map = affine_map<(d0) -> (d0 * 2)>
#sparse = #sparse_tensor.encoding<{map = (d0) -> (d0 : compressed)}>
ml_program.global private @w(dense<1.0> : tensor<4xf32>) : tensor<4xf32>
func.func @every_dialect(%i: index, %x: f32, %s: tensor<8xf32, #sparse>,
                         %q: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> vector<4xf32> {
  %a = affine.apply #map(%i)
  %b = arith.addi %a, %i : index
  %t = bufferization.alloc_tensor() : tensor<4xf32>
  %c = complex.create %x, %x : complex<f32>
  %d = index.add %a, %b
  %f = linalg.fill ins(%x : f32) outs(%t : tensor<4xf32>) -> tensor<4xf32>
  %l = llvm.mlir.constant(1 : i32) : i32
  %e = math.exp %x : f32
  %m = memref.alloc() : memref<4xf32>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %k = %c0 to %c4 step %c1 {
    memref.store %e, %m[%k] : memref<4xf32>
  }
  %shape = shape.const_shape [4] : tensor<1xindex>
  %empty = tensor.empty() : tensor<4xf32>
  %ts = tosa.const_shape {values = dense<4> : tensor<1xindex>} : () -> !tosa.shape<1>
  %p = ub.poison : f32
  %v = vector.broadcast %e : f32 to vector<4xf32>
  %true = arith.constant true
  cf.assert %true, "kept"
  return %v : vector<4xf32>
}

// GPU kernels.
// CHECK: gpu.module @kernels
gpu.module @kernels {
  gpu.func @k() kernel {
    gpu.return
  }
}

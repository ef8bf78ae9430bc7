// RUN: dsm-opt %s -split-input-file -verify-diagnostics --dsm-import-linalg

// In strict mode (the default) the first operation of a partially lowered
// program that is no DNN operation stops the import, located and named.

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
  // expected-error @+2 {{cannot import 'vector.transfer_read': no dsm counterpart is known}}
  // expected-note @+1 {{mode=permissive keeps unrecognised operations as dsm.opaque}}
  %v = vector.transfer_read %r[%c0, %c0], %zero : tensor<1x64xf32>, vector<1x64xf32>
  %ex = math.exp %v : vector<1x64xf32>
  %w = vector.transfer_write %ex, %e[%c0, %c0] : vector<1x64xf32>, tensor<1x64xf32>
  return %w : tensor<1x64xf32>
}

// -----

// A reduction of a vector to a scalar is work, not scalar bookkeeping.
func.func @vector_reduction(%x: tensor<64xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %v = arith.constant dense<1.0> : vector<64xf32>
  // expected-error @+2 {{cannot import 'vector.reduction'}}
  // expected-note @+1 {{mode=permissive}}
  %s = vector.reduction <add>, %v : vector<64xf32> into f32
  %t = tensor.splat %s : tensor<64xf32>
  return %t : tensor<64xf32>
}

// -----

// Bufferized: the allocation is the first operation that is not DNN work
// (the buffer made from the input stands for it).
func.func @buffers(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = bufferization.to_buffer %x : tensor<4x8xf32> to memref<4x8xf32>
  // expected-error @+2 {{cannot import 'memref.alloc'}}
  // expected-note @+1 {{mode=permissive}}
  %out = memref.alloc() : memref<4x8xf32>
  memref.copy %a, %out : memref<4x8xf32> to memref<4x8xf32>
  %t = bufferization.to_tensor %out : memref<4x8xf32> to tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}

// -----

// Loops.
func.func @loop(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+2 {{cannot import 'scf.for'}}
  // expected-note @+1 {{mode=permissive}}
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<4xf32>) {
    %v = tensor.extract %acc[%i] : tensor<4xf32>
    %d = arith.addf %v, %v : f32
    %n = tensor.insert %d into %acc[%i] : tensor<4xf32>
    scf.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

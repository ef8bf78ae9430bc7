// RUN: dsm-opt %s -split-input-file -verify-diagnostics --dsm-import-linalg
// A product of two constants is not a layer: fold it first.
func.func @constant_product() -> tensor<4x4xf32> {
  %a = arith.constant dense_resource<__elided__> : tensor<4x8xf32>
  %b = arith.constant dense_resource<__elided__> : tensor<8x4xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  // expected-error @+2 {{contraction of two constants}}
  // expected-note @+1 {{mode=permissive}}
  %y = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// A window whose body multiplies the accumulator is no convolution or pooling.
func.func @window_body(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %w = tensor.empty() : tensor<2x2xf32>
  // expected-error @+2 {{window body is neither multiply-accumulate, max nor sum}}
  // expected-note @+1 {{mode=permissive}}
  %y = linalg.generic {indexing_maps = [affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>, affine_map<(n, c, oh, ow, kh, kw) -> (kh, kw)>, affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%f : tensor<1x4x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %c, %a : f32
    linalg.yield %m : f32
  } -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// Pooling into an argument: the init is not a -inf/0 fill.
func.func @pool_not_filled(%x: tensor<1x4x8x8xf32>, %acc: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %w = tensor.empty() : tensor<2x2xf32>
  // expected-error @+2 {{pooling must accumulate into a filled tensor}}
  // expected-note @+1 {{mode=permissive}}
  %y = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%acc : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// Control flow around the layers is not a graph dsm can hold.
func.func @nested(%x: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  // expected-error @+2 {{cannot import 'scf.if': no dsm counterpart is known}}
  // expected-note @+1 {{mode=permissive}}
  %y = scf.if %c -> tensor<4xf32> {
    %e = tensor.empty() : tensor<4xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%a: f32, %o: f32):
      %m = arith.mulf %a, %a : f32
      linalg.yield %m : f32
    } -> tensor<4xf32>
    scf.yield %r : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

// An unranked argument has no shape to import.
// expected-error @+1 {{argument #0 is unranked ('tensor<*xf32>'); dsm needs static shapes}}
func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  return %x : tensor<*xf32>
}

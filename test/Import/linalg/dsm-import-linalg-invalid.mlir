// RUN: dsm-opt %s -split-input-file -verify-diagnostics --dsm-import-linalg

// Strict mode (the default) stops at the first operation it cannot import,
// naming it at its location.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @unknown_body(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @+2 {{cannot import 'linalg.generic': elementwise function not recognised (1 operation(s); not modelled: math.sin)}}
  // expected-note @+1 {{mode=permissive keeps unrecognised operations as dsm.opaque}}
  %s = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %a = math.sin %in : f32
    linalg.yield %a : f32
  } -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// -----

func.func @unknown_op(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  // expected-error @+2 {{cannot import 'scf.forall': no dsm counterpart is known}}
  // expected-note @+1 {{mode=permissive}}
  %r = scf.forall (%i) in (4) shared_outs(%o = %e) -> tensor<8x4xf32> {
    scf.forall.in_parallel {
    }
  }
  return %r : tensor<8x4xf32>
}

// -----

// A convolution whose filter is not a constant has no weight to declare.
func.func @filter_argument(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  // expected-error @+2 {{cannot import 'linalg.conv_2d_nchw_fchw': the filter is not a constant}}
  // expected-note @+1 {{mode=permissive}}
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%f : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

#in = affine_map<(n, oh, kh) -> (n, oh + kh)>
#fl = affine_map<(n, oh, kh) -> (kh)>
#out = affine_map<(n, oh, kh) -> (n, oh)>
func.func @conv1d(%x: tensor<1x10xf32>) -> tensor<1x8xf32> {
  %w = arith.constant dense<1.0> : tensor<3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8xf32>) -> tensor<1x8xf32>
  // expected-error @+2 {{cannot import 'linalg.generic': convolution without channels}}
  // expected-note @+1 {{mode=permissive}}
  %y = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<1x10xf32>, tensor<3xf32>) outs(%f : tensor<1x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

// A 3-D window that convolves but is none of the named 3-D convolutions
// dsm.conv3d takes (a depthwise one).
func.func @depthwise_conv3d(%x: tensor<1x6x6x6x4xf32>) -> tensor<1x4x4x4x4xf32> {
  %w = arith.constant dense<1.0> : tensor<3x3x3x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x4x4xf32>) -> tensor<1x4x4x4x4xf32>
  // expected-error @+2 {{cannot import 'linalg.depthwise_conv_3d_ndhwc_dhwc': only 1-D and 2-D convolutions, 1-D to 3-D pooling, and the named 3-D convolutions are supported}}
  // expected-note @+1 {{mode=permissive}}
  %y = linalg.depthwise_conv_3d_ndhwc_dhwc {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>} ins(%x, %w : tensor<1x6x6x6x4xf32>, tensor<3x3x3x4xf32>) outs(%f : tensor<1x4x4x4x4xf32>) -> tensor<1x4x4x4x4xf32>
  return %y : tensor<1x4x4x4x4xf32>
}

// -----

func.func @buffers(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  // expected-error @+2 {{cannot import 'linalg.copy': linalg on buffers is not supported (import before bufferization)}}
  // expected-note @+1 {{mode=permissive}}
  linalg.copy ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>)
  return
}

// -----

// Dynamic shapes: a dynamic batch needs batch=<N>; nothing else can be
// fixed.
// expected-error @+1 {{argument #0 has dynamic shape 'tensor<?x8xf32>'; dsm needs static shapes: pass batch=<N> to fix its batch dimension}}
func.func @dynamic_batch(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  return %x : tensor<?x8xf32>
}

// -----

// expected-error @+1 {{argument #0 has dynamic shape 'tensor<2x?xf32>'; dsm needs static shapes and only a dynamic batch dimension (dimension 0) can be fixed, with batch=<N>}}
func.func @dynamic_features(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  return %x : tensor<2x?xf32>
}

// -----

// dsm tensors are f32, f16, bf16 or int8.
func.func @f64(%x: tensor<4x16xf64>) -> tensor<4x8xf64> {
  %w = arith.constant dense<1.0> : tensor<16x8xf64>
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<4x8xf64>
  %f = linalg.fill ins(%zero : f64) outs(%e : tensor<4x8xf64>) -> tensor<4x8xf64>
  // expected-error @+1 {{element type 'f64' is not supported by dsm}}
  %y = linalg.matmul ins(%x, %w : tensor<4x16xf64>, tensor<16x8xf64>) outs(%f : tensor<4x8xf64>) -> tensor<4x8xf64>
  return %y : tensor<4x8xf64>
}

// -----

// expected-error @+1 {{cannot import a function with control flow (3 blocks)}}
func.func @control_flow(%x: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  cf.cond_br %c, ^a, ^b
^a:
  return %x : tensor<4xf32>
^b:
  return %x : tensor<4xf32>
}

// -----

func.func @recursive(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot import recursive calls: @recursive calls itself}}
  %y = func.call @recursive(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Issue 26: two mutually recursive one-op functions reached 3.8 GB before
// the old 32-round limit; the call closing the cycle is named at once.
func.func @model(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @ping(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func private @ping(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = math.exp %x : tensor<4xf32>
  %y = func.call @pong(%e) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func private @pong(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = math.exp %x : tensor<4xf32>
  // expected-error @+1 {{cannot import recursive calls: @ping calls @pong, which calls @ping}}
  %y = func.call @ping(%e) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

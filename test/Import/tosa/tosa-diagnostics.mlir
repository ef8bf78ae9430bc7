// Diagnostics of --dsm-import-tosa (importers/tosa/ImportTosa.cpp, and
// shared ones reached through TOSA's own paths) that no other test triggers.
// Strict mode (the default): what is not recognised is an error located at
// the operation, with a note about permissive mode.
// RUN: dsm-opt %s -split-input-file -verify-diagnostics --dsm-import-tosa

// A !tosa.shape constant used as data is no tensor.
func.func @shape_constant_returned() -> !tosa.shape<2> {
  // expected-error @+1 {{cannot import the constant '!tosa.shape<2>' as a tensor}}
  %s = tosa.const_shape {values = dense<[4, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  return %s : !tosa.shape<2>
}

// -----

// A transposed convolution's weight must be a constant.
func.func @transpose_conv_weight_argument(%x: tensor<1x8x8x4xf32>, %w: tensor<8x3x3x4xf32>) -> tensor<1x17x17x8xf32> {
  %b = "tosa.const"() {values = dense<0.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  // expected-error @+2 {{cannot import 'tosa.transpose_conv2d': the weight is not a constant}}
  // expected-note @+1 {{mode=permissive}}
  %y = tosa.transpose_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x17x17x8xf32>
  return %y : tensor<1x17x17x8xf32>
}

// -----

// A transposed convolution's non-zero bias must be a constant.
func.func @transpose_conv_bias_argument(%x: tensor<1x8x8x4xf32>, %b: tensor<8xf32>) -> tensor<1x17x17x8xf32> {
  %w = "tosa.const"() {values = dense<1.0> : tensor<8x3x3x4xf32>} : () -> tensor<8x3x3x4xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  // expected-error @+2 {{cannot import 'tosa.transpose_conv2d': the bias is not a constant}}
  // expected-note @+1 {{mode=permissive}}
  %y = tosa.transpose_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x17x17x8xf32>
  return %y : tensor<1x17x17x8xf32>
}

// -----

// Data movement without a dsm counterpart is kept opaque, which needs a
// static result (here a reverse into a dynamic column count).
func.func @dynamic_reverse(%x: tensor<4x8xf32>) -> tensor<4x?xf32> {
  // expected-error @+1 {{result type 'tensor<4x?xf32>' is dynamic; dsm needs static shapes (batch=<N> fixes a dynamic batch dimension)}}
  %y = tosa.reverse %x {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4x?xf32>
  return %y : tensor<4x?xf32>
}

// -----

// A decomposed batch normalization whose mean is an activation: the chain is
// recognised, its statistics are not constants.
func.func @batch_norm_activation_mean(%x: tensor<1x2x2x4xf32>, %mean: tensor<1x1x1x4xf32>) -> tensor<1x2x2x4xf32> {
  %var = "tosa.const"() {values = dense<[[[[1.0, 2.0, 3.0, 4.0]]]]> : tensor<1x1x1x4xf32>} : () -> tensor<1x1x1x4xf32>
  %gamma = "tosa.const"() {values = dense<[[[[1.0, 2.0, 3.0, 4.0]]]]> : tensor<1x1x1x4xf32>} : () -> tensor<1x1x1x4xf32>
  %beta = "tosa.const"() {values = dense<[[[[1.0, 2.0, 3.0, 5.0]]]]> : tensor<1x1x1x4xf32>} : () -> tensor<1x1x1x4xf32>
  %eps = "tosa.const"() {values = dense<1.0e-5> : tensor<1x1x1x1xf32>} : () -> tensor<1x1x1x1xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  // expected-error @+1 {{batch normalization statistics must be per-channel constants}}
  %d = tosa.sub %x, %mean : (tensor<1x2x2x4xf32>, tensor<1x1x1x4xf32>) -> tensor<1x2x2x4xf32>
  %ve = tosa.add %var, %eps : (tensor<1x1x1x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x4xf32>
  %r = tosa.rsqrt %ve : (tensor<1x1x1x4xf32>) -> tensor<1x1x1x4xf32>
  %n = tosa.mul %d, %r, %shift : (tensor<1x2x2x4xf32>, tensor<1x1x1x4xf32>, tensor<1xi8>) -> tensor<1x2x2x4xf32>
  %s = tosa.mul %n, %gamma, %shift : (tensor<1x2x2x4xf32>, tensor<1x1x1x4xf32>, tensor<1xi8>) -> tensor<1x2x2x4xf32>
  %t = tosa.add %s, %beta : (tensor<1x2x2x4xf32>, tensor<1x1x1x4xf32>) -> tensor<1x2x2x4xf32>
  return %t : tensor<1x2x2x4xf32>
}

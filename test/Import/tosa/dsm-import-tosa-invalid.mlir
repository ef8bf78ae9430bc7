// RUN: dsm-opt %s -split-input-file -verify-diagnostics --dsm-import-tosa

// Rows added before the output have no dsm.conv_transpose2d counterpart.
func.func @transpose_conv_extra_rows(%x: tensor<1x8x8x4xf32>) -> tensor<1x18x17x8xf32> {
  %w = "tosa.const"() {values = dense_resource<__elided__> : tensor<8x3x3x4xf32>} : () -> tensor<8x3x3x4xf32>
  %b = "tosa.const"() {values = dense<0.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  // expected-error @+2 {{cannot import 'tosa.transpose_conv2d': out_pad adds rows before the output or a whole stride after it}}
  // expected-note @+1 {{mode=permissive keeps unrecognised operations as dsm.opaque}}
  %y = tosa.transpose_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, out_pad = array<i64: 1, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x18x17x8xf32>
  return %y : tensor<1x18x17x8xf32>
}

// -----

// Weights must be constants: a function argument is an activation.
func.func @weight_argument(%x: tensor<1x8x8x4xf32>, %w: tensor<8x1x1x4xf32>) -> tensor<1x8x8x8xf32> {
  %b = "tosa.const"() {values = dense<0.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  // expected-error @+2 {{cannot import 'tosa.conv2d': the weight is not a constant}}
  // expected-note @+1 {{mode=permissive}}
  %y = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<8x1x1x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// -----

func.func @sin(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{cannot import 'tosa.sin': elementwise function not recognised (1 operation(s); not modelled: tosa.sin)}}
  // expected-note @+1 {{mode=permissive}}
  %y = tosa.sin %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @argmax(%x: tensor<4x8xf32>) -> tensor<4xi32> {
  // expected-error @+2 {{cannot import 'tosa.argmax': no dsm counterpart is known}}
  // expected-note @+1 {{mode=permissive}}
  %y = tosa.argmax %x {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4xi32>
  return %y : tensor<4xi32>
}

// -----

func.func @table(%x: tensor<4x8xi8>) -> tensor<4x8xi8> {
  %t = "tosa.const"() {values = dense<0> : tensor<256xi8>} : () -> tensor<256xi8>
  // expected-error @+2 {{cannot import 'tosa.table': table lookup (an int8 activation) is not classified}}
  // expected-note @+1 {{mode=permissive}}
  %y = tosa.table %x, %t : (tensor<4x8xi8>, tensor<256xi8>) -> tensor<4x8xi8>
  return %y : tensor<4x8xi8>
}

// -----

// dsm pools pad at most half the window.
func.func @wide_pool_padding(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
  // expected-error @+2 {{cannot import 'tosa.max_pool2d': padding of more than half the window}}
  // expected-note @+1 {{mode=permissive}}
  %m = tosa.max_pool2d %x {kernel = array<i64: 3, 3>, pad = array<i64: 2, 0, 2, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  return %m : tensor<1x8x8x4xf32>
}

// -----

// expected-error @+1 {{argument #0 has dynamic shape 'tensor<?x8xf32>'; dsm needs static shapes: pass batch=<N> to fix its batch dimension}}
func.func @dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %y = tosa.sigmoid %x : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// Legacy quantized element types parse (the quant dialect is loaded) but dsm
// computes on plain integers and floats (TOSA 1.0 int8 is i8 with rescales).
// expected-error @+1 {{argument #0 has element type '!quant.uniform<i8:f32, 5.000000e-01>', which dsm does not compute in (integers and floats)}}
func.func @quantized_argument(%a: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.5>> {
  %0 = tosa.abs %a : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.5>>
  return %0 : tensor<4x!quant.uniform<i8:f32, 0.5>>
}

// -----

func.func @quantized_result(%a: tensor<4xi8>) -> tensor<4x!quant.uniform<i8:f32, 0.5>> {
  // expected-error @+1 {{has a result of element type '!quant.uniform<i8:f32, 5.000000e-01>', which dsm does not compute in}}
  %0 = tosa.cast %a : (tensor<4xi8>) -> tensor<4x!quant.uniform<i8:f32, 0.5>>
  return %0 : tensor<4x!quant.uniform<i8:f32, 0.5>>
}

// -----

// The bias must be a constant too.
func.func @bias_argument(%x: tensor<1x8x8x4xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %w = "tosa.const"() {values = dense_resource<__elided__> : tensor<8x1x1x4xf32>} : () -> tensor<8x1x1x4xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  // expected-error @+2 {{cannot import 'tosa.conv2d': the bias is not a constant}}
  // expected-note @+1 {{mode=permissive}}
  %y = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<8x1x1x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// -----

func.func @product_of_constants() -> tensor<1x4x4xf32> {
  %a = "tosa.const"() {values = dense_resource<__elided__> : tensor<1x4x8xf32>} : () -> tensor<1x4x8xf32>
  %b = "tosa.const"() {values = dense_resource<__elided__> : tensor<1x8x4xf32>} : () -> tensor<1x8x4xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  // expected-error @+2 {{cannot import 'tosa.matmul': product of two constants}}
  // expected-note @+1 {{mode=permissive}}
  %y = tosa.matmul %a, %b, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4xf32>
  return %y : tensor<1x4x4xf32>
}

// -----

// A gather of activations is not an embedding.
func.func @gather_activations(%t: tensor<1x10x4xf32>, %ids: tensor<1x3xi32>) -> tensor<1x3x4xf32> {
  // expected-error @+2 {{cannot import 'tosa.gather': only gathers from a constant table are embeddings}}
  // expected-note @+1 {{mode=permissive}}
  %y = tosa.gather %t, %ids : (tensor<1x10x4xf32>, tensor<1x3xi32>) -> tensor<1x3x4xf32>
  return %y : tensor<1x3x4xf32>
}

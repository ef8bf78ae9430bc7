// --dsm-fuse-graph replaces compositions of dsm ops by the one op dsm has
// for them, and leaves everything else alone: a piece read elsewhere, a
// constant that is not the composition's, a weight of the wrong shape.
// RUN: dsm-opt %s -split-input-file --dsm-fuse-graph | FileCheck %s

// x * 0.5 * (1 + erf(x / sqrt(2))), the half applied last.
// CHECK-LABEL: func.func @gelu_half_last
// CHECK-NEXT: %[[G:.*]] = dsm.gelu %arg0 : tensor<2x8xf32>
// CHECK-NEXT: return %[[G]]
func.func @gelu_half_last(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %sqrt2 = arith.constant dense<1.41421354> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %d = dsm.div %x, %sqrt2 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %e = dsm.erf %d : tensor<2x8xf32>
  %a = dsm.add %e, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %m = dsm.mul %x, %a : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = dsm.mul %m, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// (0.5 * x) * (1 + erf(0.7071 * x)), constants on the left.
// CHECK-LABEL: func.func @gelu_half_first
// CHECK-NEXT: %[[G:.*]] = dsm.gelu %arg0 : tensor<2x8xf32>
// CHECK-NEXT: return %[[G]]
func.func @gelu_half_first(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %rsqrt2 = arith.constant dense<0.707106769> : tensor<1xf32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %h = dsm.mul %half, %x : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = dsm.mul %rsqrt2, %x : (tensor<1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %e = dsm.erf %s : tensor<2x8xf32>
  %a = dsm.add %one, %e : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = dsm.mul %h, %a : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// The erf is also returned: the pieces stay.
// CHECK-LABEL: func.func @gelu_piece_read_elsewhere
// CHECK-NOT: dsm.gelu
// CHECK: dsm.erf
func.func @gelu_piece_read_elsewhere(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %sqrt2 = arith.constant dense<1.41421354> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %d = dsm.div %x, %sqrt2 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %e = dsm.erf %d : tensor<2x8xf32>
  %a = dsm.add %e, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %m = dsm.mul %x, %a : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = dsm.mul %m, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %y, %e : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// Divided by 2, not sqrt(2): not a GELU.
// CHECK-LABEL: func.func @gelu_wrong_constant
// CHECK-NOT: dsm.gelu
// CHECK: dsm.erf
func.func @gelu_wrong_constant(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %two = arith.constant dense<2.0> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %d = dsm.div %x, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %e = dsm.erf %d : tensor<2x8xf32>
  %a = dsm.add %e, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %m = dsm.mul %x, %a : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = dsm.mul %m, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// Hard swish as torch.onnx writes it before opset 14: x * clip(x + 3, 0, 6)
// / 6 (the clip a dsm.clamp). The pieces' constants go with them.
// CHECK-LABEL: func.func @hard_swish_spelled
// CHECK-NEXT: %[[H:.*]] = dsm.hard_swish %arg0 : tensor<2x8xf32>
// CHECK-NEXT: return %[[H]]
func.func @hard_swish_spelled(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %three = arith.constant dense<3.0> : tensor<f32>
  %six = arith.constant dense<6.0> : tensor<f32>
  %a = dsm.add %x, %three : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %c = dsm.clamp %a {min = 0.0 : f64, max = 6.0 : f64} : tensor<2x8xf32>
  %m = dsm.mul %x, %c : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = dsm.div %m, %six : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// The logistic sigmoid 1 / (1 + exp(-x)) of a sum: the sum (a second input)
// stays, the rest is one dsm.sigmoid of it; multiplied by the sum again it
// is SiLU, which dsm has no operation for.
// CHECK-LABEL: func.func @sigmoid_spelled
// CHECK: %[[S:.*]] = dsm.add %arg0, %arg1
// CHECK-NEXT: %[[G:.*]] = dsm.sigmoid %[[S]] : tensor<2x8xf32>
// CHECK-NEXT: %[[Y:.*]] = dsm.mul %[[S]], %[[G]]
// CHECK-NEXT: return %[[Y]]
func.func @sigmoid_spelled(%a: tensor<2x8xf32>, %b: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %minus = arith.constant dense<-1.0> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %s = dsm.add %a, %b : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %n = dsm.mul %s, %minus : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %e = dsm.exp %n : tensor<2x8xf32>
  %d = dsm.add %e, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %g = dsm.div %one, %d : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = dsm.mul %s, %g : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// relu(clamp(relu(x), -inf, 6)) is ReLU6: one dsm.clamp.
// CHECK-LABEL: func.func @relu6_spelled
// CHECK-NEXT: %[[C:.*]] = dsm.clamp %arg0 {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<2x8xf32>
// CHECK-NEXT: return %[[C]]
func.func @relu6_spelled(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %r = dsm.relu %x : tensor<2x8xf32>
  %c = dsm.clamp %r {min = 0xFFF0000000000000 : f64, max = 6.0 : f64} : tensor<2x8xf32>
  %y = dsm.relu %c : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// 1 / (1 + exp(x)) is sigmoid(-x), which dsm has no one operation for:
// the pieces stay.
// CHECK-LABEL: func.func @mirrored_sigmoid_is_not_fused
// CHECK-NOT: dsm.sigmoid
// CHECK: dsm.exp
func.func @mirrored_sigmoid_is_not_fused(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %one = arith.constant dense<1.0> : tensor<f32>
  %e = dsm.exp %x : tensor<2x8xf32>
  %d = dsm.add %e, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %g = dsm.div %one, %d : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %g : tensor<2x8xf32>
}

// -----

// A layer norm over the last axis, epsilon stored as f32.
// CHECK-LABEL: func.func @layer_norm
// CHECK: %[[S:.*]] = dsm.weight "ln.weight"
// CHECK: %[[O:.*]] = dsm.weight "ln.bias"
// CHECK-NEXT: %[[N:.*]] = dsm.layer_norm %arg0, %[[S]], %[[O]] : (tensor<2x6x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x6x16xf32>
// CHECK-NEXT: return %[[N]]
func.func @layer_norm(%x: tensor<2x6x16xf32>) -> tensor<2x6x16xf32> {
  %eps = arith.constant dense<9.99999974E-6> : tensor<f32>
  %scale = dsm.weight "ln.weight" : tensor<16xf32>
  %offset = dsm.weight "ln.bias" : tensor<16xf32>
  %m = dsm.reduce <mean> %x {axes = array<i64: -1>, keep_dims} : (tensor<2x6x16xf32>) -> tensor<2x6x1xf32>
  %d = dsm.sub %x, %m : (tensor<2x6x16xf32>, tensor<2x6x1xf32>) -> tensor<2x6x16xf32>
  %sq = dsm.mul %d, %d : (tensor<2x6x16xf32>, tensor<2x6x16xf32>) -> tensor<2x6x16xf32>
  %v = dsm.reduce <mean> %sq {axes = array<i64: 2>, keep_dims} : (tensor<2x6x16xf32>) -> tensor<2x6x1xf32>
  %ve = dsm.add %v, %eps : (tensor<2x6x1xf32>, tensor<f32>) -> tensor<2x6x1xf32>
  %s = dsm.sqrt %ve : tensor<2x6x1xf32>
  %n = dsm.div %d, %s : (tensor<2x6x16xf32>, tensor<2x6x1xf32>) -> tensor<2x6x16xf32>
  %y = dsm.mul %n, %scale : (tensor<2x6x16xf32>, tensor<16xf32>) -> tensor<2x6x16xf32>
  %z = dsm.add %offset, %y : (tensor<16xf32>, tensor<2x6x16xf32>) -> tensor<2x6x16xf32>
  return %z : tensor<2x6x16xf32>
}

// -----

// Over the last two axes: axis 1 of the layer norm.
// CHECK-LABEL: func.func @layer_norm_two_axes
// CHECK: dsm.layer_norm %arg0, %{{.*}}, %{{.*}} {axis = 1 : i64, epsilon = 1.000000e-03 : f64}
func.func @layer_norm_two_axes(%x: tensor<2x6x16xf32>) -> tensor<2x6x16xf32> {
  %eps = arith.constant dense<1.0e-3> : tensor<f32>
  %scale = dsm.weight "ln.weight" : tensor<6x16xf32>
  %offset = dsm.weight "ln.bias" : tensor<6x16xf32>
  %m = dsm.reduce <mean> %x {axes = array<i64: 1, 2>, keep_dims} : (tensor<2x6x16xf32>) -> tensor<2x1x1xf32>
  %d = dsm.sub %x, %m : (tensor<2x6x16xf32>, tensor<2x1x1xf32>) -> tensor<2x6x16xf32>
  %sq = dsm.mul %d, %d : (tensor<2x6x16xf32>, tensor<2x6x16xf32>) -> tensor<2x6x16xf32>
  %v = dsm.reduce <mean> %sq {axes = array<i64: -2, -1>, keep_dims} : (tensor<2x6x16xf32>) -> tensor<2x1x1xf32>
  %ve = dsm.add %v, %eps : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %s = dsm.sqrt %ve : tensor<2x1x1xf32>
  %n = dsm.div %d, %s : (tensor<2x6x16xf32>, tensor<2x1x1xf32>) -> tensor<2x6x16xf32>
  %y = dsm.mul %n, %scale : (tensor<2x6x16xf32>, tensor<6x16xf32>) -> tensor<2x6x16xf32>
  %z = dsm.add %y, %offset : (tensor<2x6x16xf32>, tensor<6x16xf32>) -> tensor<2x6x16xf32>
  return %z : tensor<2x6x16xf32>
}

// -----

// The variance over another axis than the mean: not a layer norm.
// CHECK-LABEL: func.func @layer_norm_axes_differ
// CHECK-NOT: dsm.layer_norm
// CHECK: dsm.sqrt
func.func @layer_norm_axes_differ(%x: tensor<2x6x16xf32>) -> tensor<2x6x16xf32> {
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %scale = dsm.weight "ln.weight" : tensor<16xf32>
  %offset = dsm.weight "ln.bias" : tensor<16xf32>
  %m = dsm.reduce <mean> %x {axes = array<i64: -1>, keep_dims} : (tensor<2x6x16xf32>) -> tensor<2x6x1xf32>
  %d = dsm.sub %x, %m : (tensor<2x6x16xf32>, tensor<2x6x1xf32>) -> tensor<2x6x16xf32>
  %sq = dsm.mul %d, %d : (tensor<2x6x16xf32>, tensor<2x6x16xf32>) -> tensor<2x6x16xf32>
  %v = dsm.reduce <mean> %sq {axes = array<i64: 1, 2>, keep_dims} : (tensor<2x6x16xf32>) -> tensor<2x1x1xf32>
  %ve = dsm.add %v, %eps : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %s = dsm.sqrt %ve : tensor<2x1x1xf32>
  %n = dsm.div %d, %s : (tensor<2x6x16xf32>, tensor<2x1x1xf32>) -> tensor<2x6x16xf32>
  %y = dsm.mul %n, %scale : (tensor<2x6x16xf32>, tensor<16xf32>) -> tensor<2x6x16xf32>
  %z = dsm.add %y, %offset : (tensor<2x6x16xf32>, tensor<16xf32>) -> tensor<2x6x16xf32>
  return %z : tensor<2x6x16xf32>
}

// -----

// Scaled by an activation, not a weight: not a layer norm.
// CHECK-LABEL: func.func @layer_norm_scale_not_a_weight
// CHECK-NOT: dsm.layer_norm
// CHECK: dsm.sqrt
func.func @layer_norm_scale_not_a_weight(%x: tensor<2x6x16xf32>, %scale: tensor<16xf32>) -> tensor<2x6x16xf32> {
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %offset = dsm.weight "ln.bias" : tensor<16xf32>
  %m = dsm.reduce <mean> %x {axes = array<i64: -1>, keep_dims} : (tensor<2x6x16xf32>) -> tensor<2x6x1xf32>
  %d = dsm.sub %x, %m : (tensor<2x6x16xf32>, tensor<2x6x1xf32>) -> tensor<2x6x16xf32>
  %sq = dsm.mul %d, %d : (tensor<2x6x16xf32>, tensor<2x6x16xf32>) -> tensor<2x6x16xf32>
  %v = dsm.reduce <mean> %sq {axes = array<i64: -1>, keep_dims} : (tensor<2x6x16xf32>) -> tensor<2x6x1xf32>
  %ve = dsm.add %v, %eps : (tensor<2x6x1xf32>, tensor<f32>) -> tensor<2x6x1xf32>
  %s = dsm.sqrt %ve : tensor<2x6x1xf32>
  %n = dsm.div %d, %s : (tensor<2x6x16xf32>, tensor<2x6x1xf32>) -> tensor<2x6x16xf32>
  %y = dsm.mul %n, %scale : (tensor<2x6x16xf32>, tensor<16xf32>) -> tensor<2x6x16xf32>
  %z = dsm.add %y, %offset : (tensor<2x6x16xf32>, tensor<16xf32>) -> tensor<2x6x16xf32>
  return %z : tensor<2x6x16xf32>
}

// -----

// A bias weight added after a fully connected layer becomes its bias.
// CHECK-LABEL: func.func @bias_add
// CHECK: %[[W:.*]] = dsm.weight "fc.weight"
// CHECK: %[[B:.*]] = dsm.weight "fc.bias"
// CHECK-NEXT: %[[Y:.*]] = dsm.fully_connected %arg0, %[[W]], %[[B]] : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: return %[[Y]]
func.func @bias_add(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %w = dsm.weight "fc.weight" : tensor<16x8xf32>
  %b = dsm.weight "fc.bias" : tensor<16xf32>
  %y = dsm.fully_connected %x, %w : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %z = dsm.add %b, %y : (tensor<16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %z : tensor<4x16xf32>
}

// -----

// A residual addition (of an activation) is no bias, nor is an addition
// to a layer that already has one.
// CHECK-LABEL: func.func @not_a_bias
// CHECK: dsm.fully_connected %arg0, %{{.*}} :
// CHECK: dsm.add
// CHECK: dsm.fully_connected %{{.*}}, %{{.*}}, %{{.*}} :
// CHECK: dsm.add
func.func @not_a_bias(%x: tensor<4x8xf32>, %r: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %w = dsm.weight "fc.weight" : tensor<16x8xf32>
  %w2 = dsm.weight "fc2.weight" : tensor<16x16xf32>
  %b = dsm.weight "fc.bias" : tensor<16xf32>
  %b2 = dsm.weight "fc2.bias" : tensor<16xf32>
  %y = dsm.fully_connected %x, %w : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %z = dsm.add %y, %r : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %y2 = dsm.fully_connected %z, %w2, %b : (tensor<4x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %z2 = dsm.add %y2, %b2 : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %z2 : tensor<4x16xf32>
}

// -----

// Heads merged into a 3-D product's batch (as TOSA's matmul needs), the keys
// transposed after the merge: one product over [B, H, T, d], re-batchable.
// CHECK-LABEL: func.func @merged_batch_matmul
// CHECK-NEXT: %[[S:.*]] = dsm.matmul %arg0, %arg1 {transpose_rhs} : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT: return %[[S]]
func.func @merged_batch_matmul(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>) -> tensor<1x4x8x8xf32> {
  %q3 = dsm.reshape %q {shape = array<i64: -1, 8, 16>} : (tensor<1x4x8x16xf32>) -> tensor<4x8x16xf32>
  %k3 = dsm.reshape %k {shape = array<i64: -1, 8, 16>} : (tensor<1x4x8x16xf32>) -> tensor<4x8x16xf32>
  %kt = dsm.transpose %k3 {permutation = array<i64: 0, 2, 1>} : (tensor<4x8x16xf32>) -> tensor<4x16x8xf32>
  %s = dsm.matmul %q3, %kt : (tensor<4x8x16xf32>, tensor<4x16x8xf32>) -> tensor<4x8x8xf32>
  %s4 = dsm.reshape %s {shape = array<i64: 1, -1, 8, 8>} : (tensor<4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %s4 : tensor<1x4x8x8xf32>
}

// -----

// The result is not reshaped back to the operands' batch dimensions
// ([2, 2] is no unmerge of [1, 4]): the product stays as it is.
// CHECK-LABEL: func.func @merged_batch_elsewhere
// CHECK: dsm.matmul %{{.*}}, %{{.*}} : (tensor<4x8x16xf32>, tensor<4x16x8xf32>) -> tensor<4x8x8xf32>
// CHECK: dsm.reshape
func.func @merged_batch_elsewhere(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x16x8xf32>) -> tensor<2x2x8x8xf32> {
  %q3 = dsm.reshape %q {shape = array<i64: -1, 8, 16>} : (tensor<1x4x8x16xf32>) -> tensor<4x8x16xf32>
  %k3 = dsm.reshape %k {shape = array<i64: -1, 16, 8>} : (tensor<1x4x16x8xf32>) -> tensor<4x16x8xf32>
  %s = dsm.matmul %q3, %k3 : (tensor<4x8x16xf32>, tensor<4x16x8xf32>) -> tensor<4x8x8xf32>
  %s4 = dsm.reshape %s {shape = array<i64: 2, 2, 8, 8>} : (tensor<4x8x8xf32>) -> tensor<2x2x8x8xf32>
  return %s4 : tensor<2x2x8x8xf32>
}

// -----

// nn.Linear on [B, T, in] after torch.export: rows merged around the
// product, then a bias: one layer over [B, T, in] with its bias.
// CHECK-LABEL: func.func @merged_rows
// CHECK: %[[W:.*]] = dsm.weight "fc.weight"
// CHECK: %[[B:.*]] = dsm.weight "fc.bias"
// CHECK-NEXT: %[[Y:.*]] = dsm.fully_connected %arg0, %[[W]], %[[B]] : (tensor<2x8x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
// CHECK-NEXT: return %[[Y]]
func.func @merged_rows(%x: tensor<2x8x64xf32>) -> tensor<2x8x32xf32> {
  %w = dsm.weight "fc.weight" : tensor<32x64xf32>
  %b = dsm.weight "fc.bias" : tensor<32xf32>
  %rows = dsm.reshape %x {shape = array<i64: -1, 64>} : (tensor<2x8x64xf32>) -> tensor<16x64xf32>
  %p = dsm.fully_connected %rows, %w : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
  %y = dsm.reshape %p {shape = array<i64: 2, 8, 32>} : (tensor<16x32xf32>) -> tensor<2x8x32xf32>
  %z = dsm.add %y, %b : (tensor<2x8x32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
  return %z : tensor<2x8x32xf32>
}

// -----

// Reshaped back to other row dimensions: not the same rows, stays.
// CHECK-LABEL: func.func @rows_reshaped_elsewhere
// CHECK: dsm.fully_connected %{{.*}}, %{{.*}} : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
func.func @rows_reshaped_elsewhere(%x: tensor<2x8x64xf32>) -> tensor<4x4x32xf32> {
  %w = dsm.weight "fc.weight" : tensor<32x64xf32>
  %rows = dsm.reshape %x {shape = array<i64: -1, 64>} : (tensor<2x8x64xf32>) -> tensor<16x64xf32>
  %p = dsm.fully_connected %rows, %w : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
  %y = dsm.reshape %p {shape = array<i64: 4, 4, 32>} : (tensor<16x32xf32>) -> tensor<4x4x32xf32>
  return %y : tensor<4x4x32xf32>
}

// -----

// RMSNorm as torch-mlir's pieces arrive: the mean without kept dimensions,
// the per-row factor reshaped to [N, T, 1] for the product, the weight
// first.
// CHECK-LABEL: func.func @rms_norm
// CHECK: %[[W:.*]] = dsm.weight "norm.weight" : tensor<64xf32>
// CHECK-NEXT: %[[N:.*]] = dsm.rms_norm %arg0, %[[W]] {epsilon = 1.000000e-05 : f64} : (tensor<1x8x64xf32>, tensor<64xf32>) -> tensor<1x8x64xf32>
// CHECK-NEXT: return %[[N]]
func.func @rms_norm(%x: tensor<1x8x64xf32>) -> tensor<1x8x64xf32> {
  %eps = arith.constant dense<9.99999974E-6> : tensor<f32>
  %w = dsm.weight "norm.weight" : tensor<64xf32>
  %sq = dsm.mul %x, %x : (tensor<1x8x64xf32>, tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  %v = dsm.reduce <mean> %sq {axes = array<i64: 2>} : (tensor<1x8x64xf32>) -> tensor<1x8xf32>
  %ve = dsm.add %v, %eps : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
  %r = dsm.rsqrt %ve : tensor<1x8xf32>
  %r3 = dsm.reshape %r {shape = array<i64: 0, 8, 1>} : (tensor<1x8xf32>) -> tensor<1x8x1xf32>
  %n = dsm.mul %x, %r3 : (tensor<1x8x64xf32>, tensor<1x8x1xf32>) -> tensor<1x8x64xf32>
  %y = dsm.mul %w, %n : (tensor<64xf32>, tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  return %y : tensor<1x8x64xf32>
}

// -----

// As ONNX exporters write it: 1 / sqrt, the weight broadcast as [1, 1, 64]
// (declared again with the normalized shape), x also read by a residual.
// CHECK-LABEL: func.func @rms_norm_reciprocal
// CHECK: %[[W:.*]] = dsm.weight "norm.weight" : tensor<64xf32>
// CHECK-NEXT: %[[N:.*]] = dsm.rms_norm %arg0, %[[W]] : (tensor<1x8x64xf32>, tensor<64xf32>) -> tensor<1x8x64xf32>
// CHECK-NEXT: dsm.add %[[N]], %arg0
// CHECK-NOT: dsm.weight
func.func @rms_norm_reciprocal(%x: tensor<1x8x64xf32>) -> tensor<1x8x64xf32> {
  %eps = arith.constant dense<1.0e-6> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %w = dsm.weight "norm.weight" : tensor<1x1x64xf32>
  %sq = dsm.mul %x, %x : (tensor<1x8x64xf32>, tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  %v = dsm.reduce <mean> %sq {axes = array<i64: -1>, keep_dims} : (tensor<1x8x64xf32>) -> tensor<1x8x1xf32>
  %ve = dsm.add %eps, %v : (tensor<f32>, tensor<1x8x1xf32>) -> tensor<1x8x1xf32>
  %s = dsm.sqrt %ve : tensor<1x8x1xf32>
  %r = dsm.div %one, %s : (tensor<f32>, tensor<1x8x1xf32>) -> tensor<1x8x1xf32>
  %n = dsm.mul %r, %x : (tensor<1x8x1xf32>, tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  %y = dsm.mul %n, %w : (tensor<1x8x64xf32>, tensor<1x1x64xf32>) -> tensor<1x8x64xf32>
  %z = dsm.add %y, %x : (tensor<1x8x64xf32>, tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  return %z : tensor<1x8x64xf32>
}

// -----

// The square of another value than the one normalized: not an RMSNorm.
// CHECK-LABEL: func.func @rms_norm_other_square
// CHECK-NOT: dsm.rms_norm
// CHECK: dsm.rsqrt
func.func @rms_norm_other_square(%x: tensor<1x8x64xf32>, %u: tensor<1x8x64xf32>) -> tensor<1x8x64xf32> {
  %eps = arith.constant dense<1.0e-6> : tensor<f32>
  %w = dsm.weight "norm.weight" : tensor<64xf32>
  %sq = dsm.mul %u, %u : (tensor<1x8x64xf32>, tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  %v = dsm.reduce <mean> %sq {axes = array<i64: -1>, keep_dims} : (tensor<1x8x64xf32>) -> tensor<1x8x1xf32>
  %ve = dsm.add %v, %eps : (tensor<1x8x1xf32>, tensor<f32>) -> tensor<1x8x1xf32>
  %r = dsm.rsqrt %ve : tensor<1x8x1xf32>
  %n = dsm.mul %x, %r : (tensor<1x8x64xf32>, tensor<1x8x1xf32>) -> tensor<1x8x64xf32>
  %y = dsm.mul %n, %w : (tensor<1x8x64xf32>, tensor<64xf32>) -> tensor<1x8x64xf32>
  return %y : tensor<1x8x64xf32>
}

// -----

// A layer norm as torch-mlir decomposes it: means without kept dimensions
// reshaped for the broadcasts, d * rsqrt(var + eps).
// CHECK-LABEL: func.func @layer_norm_rsqrt
// CHECK: %[[S:.*]] = dsm.weight "ln.weight"
// CHECK: %[[O:.*]] = dsm.weight "ln.bias"
// CHECK-NEXT: %[[N:.*]] = dsm.layer_norm %arg0, %[[S]], %[[O]] {epsilon = 9.9999999999999998E-13 : f64} : (tensor<1x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<1x8x32xf32>
// CHECK-NEXT: return %[[N]]
func.func @layer_norm_rsqrt(%x: tensor<1x8x32xf32>) -> tensor<1x8x32xf32> {
  %eps = arith.constant dense<9.99999996E-13> : tensor<f32>
  %scale = dsm.weight "ln.weight" : tensor<32xf32>
  %offset = dsm.weight "ln.bias" : tensor<32xf32>
  %m = dsm.reduce <mean> %x {axes = array<i64: 2>} : (tensor<1x8x32xf32>) -> tensor<1x8xf32>
  %m3 = dsm.reshape %m {shape = array<i64: 0, 8, 1>} : (tensor<1x8xf32>) -> tensor<1x8x1xf32>
  %d = dsm.sub %x, %m3 : (tensor<1x8x32xf32>, tensor<1x8x1xf32>) -> tensor<1x8x32xf32>
  %sq = dsm.mul %d, %d : (tensor<1x8x32xf32>, tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
  %v = dsm.reduce <mean> %sq {axes = array<i64: 2>} : (tensor<1x8x32xf32>) -> tensor<1x8xf32>
  %ve = dsm.add %v, %eps : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
  %r = dsm.rsqrt %ve : tensor<1x8xf32>
  %r3 = dsm.reshape %r {shape = array<i64: 0, 8, 1>} : (tensor<1x8xf32>) -> tensor<1x8x1xf32>
  %n = dsm.mul %d, %r3 : (tensor<1x8x32xf32>, tensor<1x8x1xf32>) -> tensor<1x8x32xf32>
  %y = dsm.mul %n, %scale : (tensor<1x8x32xf32>, tensor<32xf32>) -> tensor<1x8x32xf32>
  %z = dsm.add %y, %offset : (tensor<1x8x32xf32>, tensor<32xf32>) -> tensor<1x8x32xf32>
  return %z : tensor<1x8x32xf32>
}

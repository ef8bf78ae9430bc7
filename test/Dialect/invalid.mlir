// RUN: dsm-opt %s -split-input-file -verify-diagnostics

// Every verifier error of the dsm dialect, one case each.

func.func @conv_input_rank(%x: tensor<3x224x224xf32>, %w: tensor<64x3x7x7xf32>) {
  // expected-error @+1 {{'dsm.conv2d' op input must have rank 4, got 3}}
  %y = dsm.conv2d %x, %w : (tensor<3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x218x218xf32>
  return
}

// -----

func.func @conv_weight_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<64x27xf32>) {
  // expected-error @+1 {{'dsm.conv2d' op weight must have rank 4, got 2}}
  %y = dsm.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<64x27xf32>) -> tensor<1x64x8x8xf32>
  return
}

// -----

func.func @conv_element_types(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x1x1xf16>) {
  // expected-error @+1 {{'dsm.conv2d' op weight element type 'f16' does not match 'f32'}}
  %y = dsm.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf16>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_negative_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'dsm.conv2d' op strides must be positive, got [-1, 1]}}
  %y = dsm.conv2d %x, %w {strides = array<i64: -1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_stride_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'dsm.conv2d' op strides must have 2 values, got 3}}
  %y = dsm.conv2d %x, %w {strides = array<i64: 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_padding_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'dsm.conv2d' op padding must have 4 values [top, left, bottom, right], got 2}}
  %y = dsm.conv2d %x, %w {padding = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_negative_padding(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'dsm.conv2d' op padding must not be negative, got [0, -1, 0, 0]}}
  %y = dsm.conv2d %x, %w {padding = array<i64: 0, -1, 0, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x5xf32>
  return
}

// -----

func.func @conv_dilation_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'dsm.conv2d' op dilations must have 2 values, got 1}}
  %y = dsm.conv2d %x, %w {dilations = array<i64: 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

func.func @conv_zero_dilation(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'dsm.conv2d' op dilations must be positive, got [0, 1]}}
  %y = dsm.conv2d %x, %w {dilations = array<i64: 0, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_kernel_too_large(%x: tensor<1x3x4x4xf32>, %w: tensor<4x3x7x7xf32>) {
  // expected-error @+1 {{'dsm.conv2d' op window of 7 does not fit the padded input of 4 along H}}
  %y = dsm.conv2d %x, %w : (tensor<1x3x4x4xf32>, tensor<4x3x7x7xf32>) -> tensor<1x4x1x1xf32>
  return
}

// -----

func.func @conv_zero_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x1x1xf32>) {
  // expected-error @+1 {{'dsm.conv2d' op groups must be positive, got 0}}
  %y = dsm.conv2d %x, %w {groups = 0 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_groups_do_not_divide(%x: tensor<1x6x8x8xf32>, %w: tensor<4x2x1x1xf32>) {
  // expected-error @+1 {{'dsm.conv2d' op groups (4) must divide the input channels (6) and the output channels (4)}}
  %y = dsm.conv2d %x, %w {groups = 4 : i64} : (tensor<1x6x8x8xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_channel_mismatch(%x: tensor<1x3x8x8xf32>, %w: tensor<4x5x1x1xf32>) {
  // expected-error @+1 {{'dsm.conv2d' op weight has 5 input channels per group but input has 3 channels in 1 group(s)}}
  %y = dsm.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x5x1x1xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_bias_size(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x1x1xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{'dsm.conv2d' op bias has 5 elements but the convolution has 4 output channels}}
  %y = dsm.conv2d %x, %w, %b : (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>, tensor<5xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_bias_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x1x1xf32>, %b: tensor<4x1xf32>) {
  // expected-error @+1 {{'dsm.conv2d' op bias must have rank 1, got 2}}
  %y = dsm.conv2d %x, %w, %b : (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>, tensor<4x1xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_wrong_result(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'dsm.conv2d' op inferred type(s) 'tensor<1x4x6x6xf32>' are incompatible with return type(s) of operation 'tensor<1x4x8x8xf32>'}}
  // expected-error @+1 {{'dsm.conv2d' op failed to infer returned types}}
  %y = dsm.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @dynamic_shape(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x1x1xf32>) {
  // expected-error @+1 {{'dsm.conv2d' op operand #0 must be statically shaped tensor}}
  %y = dsm.conv2d %x, %w : (tensor<?x3x8x8xf32>, tensor<4x3x1x1xf32>) -> tensor<?x4x8x8xf32>
  return
}

// -----

func.func @unsupported_element_type(%x: tensor<4xf64>) {
  // expected-error @+1 {{'dsm.relu' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 8-bit signless integer values}}
  %y = dsm.relu %x : tensor<4xf64>
  return
}

// -----

func.func @fc_input_rank(%x: tensor<8xf32>, %w: tensor<4x8xf32>) {
  // expected-error @+1 {{'dsm.fully_connected' op input must have rank >= 2 ([batch, ..., in]), got 1}}
  %y = dsm.fully_connected %x, %w : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @fc_weight_shape(%x: tensor<1x8xf32>, %w: tensor<8x4xf32>) {
  // expected-error @+1 {{'dsm.fully_connected' op weight is [out, in] = [8, 4] but the input has 8 features}}
  %y = dsm.fully_connected %x, %w : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x8xf32>
  return
}

// -----

func.func @fc_bias_size(%x: tensor<1x8xf32>, %w: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'dsm.fully_connected' op bias has 8 elements but the layer has 4 outputs}}
  %y = dsm.fully_connected %x, %w, %b : (tensor<1x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<1x4xf32>
  return
}

// -----

func.func @matmul_ranks(%a: tensor<2x4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{'dsm.matmul' op operands must have the same rank >= 2, got 3 and 2}}
  %y = dsm.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x4xf32>) -> tensor<2x4x4xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x4xf32>) {
  // expected-error @+1 {{'dsm.matmul' op batch dimensions [2] and [3] differ}}
  %y = dsm.matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x4xf32>) -> tensor<2x4x4xf32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) {
  // expected-error @+1 {{'dsm.matmul' op contraction sizes differ: lhs has 8, rhs has 4}}
  %y = dsm.matmul %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @lstm_input_rank(%x: tensor<2x16xf32>, %w: tensor<1x32x16xf32>, %r: tensor<1x32x8xf32>) {
  // expected-error @+1 {{'dsm.lstm' op input ([T, N, features]) must have rank 3, got 2}}
  %y = dsm.lstm %x, %w, %r : (tensor<2x16xf32>, tensor<1x32x16xf32>, tensor<1x32x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @lstm_direction_mismatch(%x: tensor<5x2x16xf32>, %w: tensor<1x32x16xf32>, %r: tensor<1x32x8xf32>) {
  // expected-error @+1 {{'dsm.lstm' op recurrence must be [2, 32, 8] for 2 direction(s), 8 hidden units and 16 input features, got [1, 32, 8]}}
  %y = dsm.lstm %x, %w, %r {bidirectional} : (tensor<5x2x16xf32>, tensor<1x32x16xf32>, tensor<1x32x8xf32>) -> tensor<5x2x16xf32>
  return
}

// -----

func.func @lstm_weights(%x: tensor<5x2x16xf32>, %w: tensor<1x32x12xf32>, %r: tensor<1x32x8xf32>) {
  // expected-error @+1 {{'dsm.lstm' op weights must be [1, 32, 16] for 1 direction(s), 8 hidden units and 16 input features, got [1, 32, 12]}}
  %y = dsm.lstm %x, %w, %r : (tensor<5x2x16xf32>, tensor<1x32x12xf32>, tensor<1x32x8xf32>) -> tensor<5x2x8xf32>
  return
}

// -----

func.func @lstm_bias(%x: tensor<5x2x16xf32>, %w: tensor<1x32x16xf32>, %r: tensor<1x32x8xf32>, %b: tensor<1x32xf32>) {
  // expected-error @+1 {{'dsm.lstm' op bias must be [1, 64]}}
  %y = dsm.lstm %x, %w, %r, %b : (tensor<5x2x16xf32>, tensor<1x32x16xf32>, tensor<1x32x8xf32>, tensor<1x32xf32>) -> tensor<5x2x8xf32>
  return
}

// -----

func.func @broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'dsm.add' op operand shapes [2, 3] and [4] are not broadcast-compatible}}
  %y = dsm.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @binary_element_types(%a: tensor<4xf32>, %b: tensor<4xbf16>) {
  // expected-error @+1 {{'dsm.mul' op rhs element type 'bf16' does not match 'f32'}}
  %y = dsm.mul %a, %b : (tensor<4xf32>, tensor<4xbf16>) -> tensor<4xf32>
  return
}

// -----

func.func @pool_kernel(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'dsm.max_pool' op kernel must have 2 or 3 values, got 1}}
  %y = dsm.max_pool %x {kernel = array<i64: 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

// A 3-D window keeps the 2-D default strides only if it says otherwise.
func.func @pool3d_default_strides(%x: tensor<1x4x8x8x8xf32>) {
  // expected-error @+1 {{'dsm.max_pool' op strides must have 3 values, got 2}}
  %y = dsm.max_pool %x {kernel = array<i64: 2, 2, 2>} : (tensor<1x4x8x8x8xf32>) -> tensor<1x4x7x7x7xf32>
  return
}

// -----

func.func @pool3d_rank(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'dsm.avg_pool' op}}
  %y = dsm.avg_pool %x {kernel = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0, 0, 0, 0>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

func.func @pool_padding(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'dsm.avg_pool' op padding [2, 2, 2, 2] must be at most half the kernel [2, 2]}}
  %y = dsm.avg_pool %x {kernel = array<i64: 2, 2>, padding = array<i64: 2, 2, 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x11x11xf32>
  return
}

// -----

func.func @pool_rank(%x: tensor<4x8x8xf32>) {
  // expected-error @+1 {{'dsm.global_avg_pool' op input must have rank 4, got 3}}
  %y = dsm.global_avg_pool %x : (tensor<4x8x8xf32>) -> tensor<4x1x1xf32>
  return
}

// -----

func.func @batch_norm_channels(%x: tensor<1x4x8x8xf32>, %s: tensor<3xf32>, %o: tensor<4xf32>) {
  // expected-error @+1 {{'dsm.batch_norm' op scale has 3 elements but the input has 4 channels along axis 1}}
  %y = dsm.batch_norm %x, %s, %o, %o, %o : (tensor<1x4x8x8xf32>, tensor<3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @batch_norm_epsilon(%x: tensor<1x4x8x8xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'dsm.batch_norm' op epsilon must be positive}}
  %y = dsm.batch_norm %x, %s, %s, %s, %s {epsilon = 0.0 : f64} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @batch_norm_axis(%x: tensor<1x4x8x8xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'dsm.batch_norm' op axis 4 is out of range for rank 4}}
  %y = dsm.batch_norm %x, %s, %s, %s, %s {axis = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @layer_norm_shape(%x: tensor<2x16x32xf32>, %s: tensor<16xf32>) {
  // expected-error @+1 {{'dsm.layer_norm' op scale must have the normalized shape [32], got [16]}}
  %y = dsm.layer_norm %x, %s, %s : (tensor<2x16x32xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16x32xf32>
  return
}

// -----

func.func @rms_norm_shape(%x: tensor<2x16x32xf32>, %s: tensor<2x32xf32>) {
  // expected-error @+1 {{'dsm.rms_norm' op scale must have the normalized shape [32], got [2, 32]}}
  %y = dsm.rms_norm %x, %s : (tensor<2x16x32xf32>, tensor<2x32xf32>) -> tensor<2x16x32xf32>
  return
}

// -----

func.func @rms_norm_epsilon(%x: tensor<2x16x32xf32>, %s: tensor<32xf32>) {
  // expected-error @+1 {{'dsm.rms_norm' op epsilon must be positive}}
  %y = dsm.rms_norm %x, %s {epsilon = 0.0 : f64} : (tensor<2x16x32xf32>, tensor<32xf32>) -> tensor<2x16x32xf32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<2x16xf32>) {
  // expected-error @+1 {{'dsm.softmax' op axis -3 is out of range for rank 2}}
  %y = dsm.softmax %x {axis = -3 : i64} : tensor<2x16xf32>
  return
}

// -----

func.func @clamp_bounds(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dsm.clamp' op min (6.000000e+00) must not exceed max (0.000000e+00)}}
  %y = dsm.clamp %x {min = 6.0 : f64, max = 0.0 : f64} : tensor<4xf32>
  return
}

// -----

func.func @reduce_repeated_axis(%x: tensor<2x16xf32>) {
  // expected-error @+1 {{'dsm.reduce' op axis -1 is repeated}}
  %y = dsm.reduce <sum> %x {axes = array<i64: 1, -1>} : (tensor<2x16xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @reduce_no_axes(%x: tensor<2x16xf32>) {
  // expected-error @+1 {{'dsm.reduce' op axes must not be empty}}
  %y = dsm.reduce <max> %x {axes = array<i64>} : (tensor<2x16xf32>) -> tensor<2x16xf32>
  return
}

// -----

func.func @embedding_table(%ids: tensor<2x4xi32>, %t: tensor<100xf32>) {
  // expected-error @+1 {{'dsm.embedding' op table must have rank 2, got 1}}
  %y = dsm.embedding %ids, %t : (tensor<2x4xi32>, tensor<100xf32>) -> tensor<2x4x1xf32>
  return
}

// -----

func.func @concat_shapes(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+1 {{'dsm.concat' op input #1 has shape [3, 3], incompatible with [2, 3] outside axis 1}}
  %y = dsm.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'dsm.reshape' op shape [2, 5] has 10 elements but the input [2, 8] has 16}}
  %y = dsm.reshape %x {shape = array<i64: 2, 5>} : (tensor<2x8xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @reshape_two_inferred(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'dsm.reshape' op shape [-1, -1] has more than one -1}}
  %y = dsm.reshape %x {shape = array<i64: -1, -1>} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @reshape_negative(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'dsm.reshape' op shape entry 1 is -4; entries must be positive, 0 (copy) or -1 (infer)}}
  %y = dsm.reshape %x {shape = array<i64: 0, -4>} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @reshape_copy_out_of_range(%x: tensor<16xf32>) {
  // expected-error @+1 {{'dsm.reshape' op shape entry 1 is 0 (copy) but the input has rank 1}}
  %y = dsm.reshape %x {shape = array<i64: 16, 0>} : (tensor<16xf32>) -> tensor<16x1xf32>
  return
}

// -----

func.func @transpose_perm(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'dsm.transpose' op permutation [0, 0] is not a permutation of 0..1}}
  %y = dsm.transpose %x {permutation = array<i64: 0, 0>} : (tensor<2x8xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_bounds(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'dsm.slice' op slice [4, 12) does not fit dimension 1 of size 8}}
  %y = dsm.slice %x {offsets = array<i64: 0, 4>, sizes = array<i64: -1, 8>} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @opaque_ops(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dsm.opaque' op ops_per_element must be a number in [0, 2^32], got -1}}
  %y = dsm.opaque "x.y"(%x) {ops_per_element = -1.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// NaN, infinity and absurd counts per element are refused like negative
// ones (before, they reached the cost models and wrapped).
func.func @opaque_ops_nan(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dsm.opaque' op ops_per_element must be a number in [0, 2^32], got nan}}
  %y = dsm.opaque "x.y"(%x) {ops_per_element = 0x7FF8000000000000 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @opaque_ops_inf(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dsm.opaque' op ops_per_element must be a number in [0, 2^32], got inf}}
  %y = dsm.opaque "x.y"(%x) {ops_per_element = 0x7FF0000000000000 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @opaque_ops_huge(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dsm.opaque' op ops_per_element must be a number in [0, 2^32], got 1e+16}}
  %y = dsm.opaque "x.y"(%x) {ops_per_element = 1.0e16 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Per element plausible, in total past 2^62.
func.func @opaque_ops_total(%x: tensor<1099511627776xf32>) {
  // expected-error @+1 {{'dsm.opaque' op workload is too large: its element or operation counts overflow 64 bits}}
  %y = dsm.opaque "x.y"(%x) {ops_per_element = 4294967296.0 : f64} : (tensor<1099511627776xf32>) -> tensor<1099511627776xf32>
  return
}

// -----

// A result whose size in bytes overflows 64 bits (it counted as 0 bytes).
func.func @opaque_result_size(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dsm.opaque' op result 'tensor<4294967296x4294967296x4xf32>' is too large: its size in bytes overflows 64 bits}}
  %y = dsm.opaque "x.y"(%x) : (tensor<4xf32>) -> tensor<4294967296x4294967296x4xf32>
  return
}

// -----

func.func @overflow(%x: tensor<16777216x16777216xf32>, %w: tensor<16777216x16777216xf32>) {
  // expected-error @+1 {{'dsm.fully_connected' op workload is too large: its element or operation counts overflow 64 bits}}
  %y = dsm.fully_connected %x, %w : (tensor<16777216x16777216xf32>, tensor<16777216x16777216xf32>) -> tensor<16777216x16777216xf32>
  return
}

// -----

func.func @unknown_op(%x: tensor<4xf32>) {
  // expected-error @+1 {{custom op 'dsm.convolution' is unknown}}
  %y = dsm.convolution %x : tensor<4xf32>
  return
}

// -----

// A tensor whose size in bytes overflows 64 bits: every count starts there.
func.func @huge_parameter() {
  // expected-error @+1 {{'dsm.weight' op parameter 'tensor<9223372036854775807x768xf32>' is too large: its size in bytes overflows 64 bits}}
  %w = dsm.weight "w" : tensor<9223372036854775807x768xf32>
  return
}

// -----

func.func @huge_lstm_input(%x: tensor<4611686018427387904x1x16xf32>) {
  %w = dsm.weight "w" : tensor<1x32x16xf32>
  %r = dsm.weight "r" : tensor<1x32x8xf32>
  // expected-error @+1 {{'dsm.lstm' op input ([T, N, features]) 'tensor<4611686018427387904x1x16xf32>' is too large: its size in bytes overflows 64 bits}}
  %y = dsm.lstm %x, %w, %r : (tensor<4611686018427387904x1x16xf32>, tensor<1x32x16xf32>, tensor<1x32x8xf32>) -> tensor<4611686018427387904x1x8xf32>
  return
}

// -----

// Padding near 2^63: the window arithmetic is checked, not wrapped.
func.func @huge_padding(%x: tensor<1x3x8x8xf32>) {
  %w = dsm.weight "w" : tensor<4x3x3x3xf32>
  // expected-error @+1 {{'dsm.conv2d' op window arithmetic overflows 64 bits}}
  %y = dsm.conv2d %x, %w {padding = array<i64: 9223372036854775807, 0, 9223372036854775807, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x6xf32>
  return
}

// -----

func.func @huge_reshape(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'dsm.reshape' op shape [4611686018427387904, 4, -1] has more elements than 64 bits can count}}
  %y = dsm.reshape %x {shape = array<i64: 4611686018427387904, 4, -1>} : (tensor<2x4xf32>) -> tensor<1x1x1xf32>
  return
}

// -----

func.func @conv3d_padding_count(%x: tensor<1x3x4x8x8xf32>, %w: tensor<4x3x3x3x3xf32>) {
  // expected-error @+1 {{'dsm.conv3d' op padding must have 6 values [front, top, left, back, bottom, right], got 4}}
  %y = dsm.conv3d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x4x8x8xf32>, tensor<4x3x3x3x3xf32>) -> tensor<1x4x4x8x8xf32>
  return
}

// -----

func.func @conv3d_depth_too_small(%x: tensor<1x3x2x8x8xf32>, %w: tensor<4x3x3x3x3xf32>) {
  // expected-error @+1 {{'dsm.conv3d' op window of 3 does not fit the padded input of 2 along D}}
  %y = dsm.conv3d %x, %w : (tensor<1x3x2x8x8xf32>, tensor<4x3x3x3x3xf32>) -> tensor<1x4x1x6x6xf32>
  return
}

// -----

func.func @conv3d_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3x3xf32>) {
  // expected-error @+1 {{'dsm.conv3d' op input must have rank 5, got 4 ('tensor<1x3x8x8xf32>')}}
  %y = dsm.conv3d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3x3xf32>) -> tensor<1x4x6x6x6xf32>
  return
}

// -----

func.func @conv3d_channels(%x: tensor<1x3x4x8x8xf32>, %w: tensor<4x2x3x3x3xf32>) {
  // expected-error @+1 {{'dsm.conv3d' op weight has 2 input channels per group but input has 3 channels in 1 group(s)}}
  %y = dsm.conv3d %x, %w : (tensor<1x3x4x8x8xf32>, tensor<4x2x3x3x3xf32>) -> tensor<1x4x2x6x6xf32>
  return
}

// -----

func.func @conv_transpose_channels(%x: tensor<1x8x7x7xf32>, %w: tensor<4x8x3x3xf32>) {
  // expected-error @+1 {{'dsm.conv_transpose2d' op weight has 4 input channels but input has 8}}
  %y = dsm.conv_transpose2d %x, %w : (tensor<1x8x7x7xf32>, tensor<4x8x3x3xf32>) -> tensor<1x8x9x9xf32>
  return
}

// -----

func.func @conv_transpose_output_padding(%x: tensor<1x8x7x7xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{'dsm.conv_transpose2d' op output_padding must be smaller than the stride or the dilation, got [1, 1]}}
  %y = dsm.conv_transpose2d %x, %w {output_padding = array<i64: 1, 1>} : (tensor<1x8x7x7xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x10x10xf32>
  return
}

// -----

func.func @conv_transpose_result(%x: tensor<1x8x7x7xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+2 {{'dsm.conv_transpose2d' op inferred type(s) 'tensor<1x4x15x15xf32>' are incompatible with return type(s) of operation 'tensor<1x4x14x14xf32>'}}
  // expected-error @+1 {{'dsm.conv_transpose2d' op failed to infer returned types}}
  %y = dsm.conv_transpose2d %x, %w {strides = array<i64: 2, 2>} : (tensor<1x8x7x7xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x14x14xf32>
  return
}

// -----

// Data movement takes integer tensors, arithmetic does not.
func.func @relu_of_ids(%x: tensor<2x4xi64>) {
  // expected-error @+1 {{'dsm.relu' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 8-bit signless integer values, but got 'tensor<2x4xi64>'}}
  %y = dsm.relu %x : tensor<2x4xi64>
  return
}

// -----

func.func @reshape_f64(%x: tensor<2x4xf64>) {
  // expected-error @+1 {{'dsm.reshape' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 8-bit signless integer or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2x4xf64>'}}
  %y = dsm.reshape %x {shape = array<i64: 8>} : (tensor<2x4xf64>) -> tensor<8xf64>
  return
}

// -----

// Only a batch of one sample is broadcast, and only along another axis.
func.func @concat_batch_axis(%a: tensor<1x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{'dsm.concat' op input #1 has shape [2, 4], incompatible with [1, 3] outside axis 0}}
  %y = dsm.concat %a, %b {axis = 0 : i64} : (tensor<1x3xf32>, tensor<2x4xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @concat_batches(%a: tensor<1x3xf32>, %b: tensor<2x3xf32>, %c: tensor<3x3xf32>) {
  // expected-error @+1 {{'dsm.concat' op input #2 has shape [3, 3], incompatible with [1, 3] outside axis 1}}
  %y = dsm.concat %a, %b, %c {axis = 1 : i64} : (tensor<1x3xf32>, tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x9xf32>
  return
}

// The front of a decoder as buddy-mlir writes it in TOSA 1.0 (today's
// syntax: shapes as !tosa.shape operands): i64 token ids reshaped and cast
// to i32 for tosa.gather (embedding 100 x 16, T = 6), positions an i64
// constant reshaped to [1, 6], a causal mask computed from them
// (tosa.greater of i64 tensors, an i1 [6, 6]), applied to the scores with
// tosa.select, and the ids concatenated with the positions. Hand-written.
func.func @decoder_front(%ids: tensor<1x6xi64>) -> (tensor<1x6x6xf32>, tensor<2x6xi64>) {
  %table = "tosa.const"() {values = dense_resource<__elided__> : tensor<1x100x16xf32>} : () -> tensor<1x100x16xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %neg = "tosa.const"() {values = dense<-3.40282347E+38> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
  %arange = "tosa.const"() {values = dense<[0, 1, 2, 3, 4, 5]> : tensor<6xi64>} : () -> tensor<6xi64>
  %s16 = tosa.const_shape {values = dense<[1, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s61 = tosa.const_shape {values = dense<[6, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s166 = tosa.const_shape {values = dense<[1, 6, 6]> : tensor<3xindex>} : () -> !tosa.shape<3>
  // input_ids.view(1, -1)
  %r = tosa.reshape %ids, %s16 : (tensor<1x6xi64>, !tosa.shape<2>) -> tensor<1x6xi64>
  %i32 = tosa.cast %r : (tensor<1x6xi64>) -> tensor<1x6xi32>
  %x = tosa.gather %table, %i32 : (tensor<1x100x16xf32>, tensor<1x6xi32>) -> tensor<1x6x16xf32>
  // position_ids = arange(6).view(1, 6); mask = positions[:, None] > positions[None, :]
  %pos = tosa.reshape %arange, %s16 : (tensor<6xi64>, !tosa.shape<2>) -> tensor<1x6xi64>
  %col = tosa.reshape %arange, %s61 : (tensor<6xi64>, !tosa.shape<2>) -> tensor<6x1xi64>
  %mask = tosa.greater %pos, %col : (tensor<1x6xi64>, tensor<6x1xi64>) -> tensor<6x6xi1>
  %mask3 = tosa.reshape %mask, %s166 : (tensor<6x6xi1>, !tosa.shape<3>) -> tensor<1x6x6xi1>
  %t = tosa.transpose %x {perms = array<i32: 0, 2, 1>} : (tensor<1x6x16xf32>) -> tensor<1x16x6xf32>
  %s = tosa.matmul %x, %t, %zp, %zp : (tensor<1x6x16xf32>, tensor<1x16x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6xf32>
  %m = tosa.select %mask3, %neg, %s : (tensor<1x6x6xi1>, tensor<1x1x1xf32>, tensor<1x6x6xf32>) -> tensor<1x6x6xf32>
  %cat = tosa.concat %r, %pos {axis = 0 : i32} : (tensor<1x6xi64>, tensor<1x6xi64>) -> tensor<2x6xi64>
  return %m, %cat : tensor<1x6x6xf32>, tensor<2x6xi64>
}

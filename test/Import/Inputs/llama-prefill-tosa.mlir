// The Llama decoder layer of llama-prefill-linalg.mlir (hidden 64, 4 heads
// of 16, SwiGLU FFN 176, RMSNorm eps 1e-6, no biases, a prompt of T = 8
// tokens) in TOSA 1.0, as torch-mlir's TOSA backend writes it (weights
// elided, stored [1, in, out] for tosa.matmul): RMSNorm as mul, reduce_sum,
// mul by 1/64, add eps, rsqrt and two muls; rotate_half as two tosa.slice,
// tosa.negate and tosa.concat; the scores as a tosa.transpose of the keys and
// tosa.matmul over the 4 heads; softmax as reduce_max, sub, exp, reduce_sum,
// reciprocal and mul; SiLU as tosa.sigmoid and tosa.mul. Hand-written.
func.func @llama_prefill(%hidden: tensor<1x8x64xf32>, %cos: tensor<1x8x16xf32>, %sin: tensor<1x8x16xf32>, %mask: tensor<1x1x8x8xf32>) -> tensor<1x8x64xf32> {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %inv_dim = "tosa.const"() {values = dense<0.015625> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
  %eps = "tosa.const"() {values = dense<9.99999997E-7> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
  %scale = "tosa.const"() {values = dense<0.25> : tensor<1x1x1x1xf32>} : () -> tensor<1x1x1x1xf32>
  %ln1 = "tosa.const"() {values = dense_resource<__elided__> : tensor<1x1x64xf32>} : () -> tensor<1x1x64xf32>
  %wq = "tosa.const"() {values = dense_resource<__elided__> : tensor<1x64x64xf32>} : () -> tensor<1x64x64xf32>
  %wk = "tosa.const"() {values = dense_resource<__elided__> : tensor<1x64x64xf32>} : () -> tensor<1x64x64xf32>
  %wv = "tosa.const"() {values = dense_resource<__elided__> : tensor<1x64x64xf32>} : () -> tensor<1x64x64xf32>
  %wo = "tosa.const"() {values = dense_resource<__elided__> : tensor<1x64x64xf32>} : () -> tensor<1x64x64xf32>
  %ln2 = "tosa.const"() {values = dense_resource<__elided__> : tensor<1x1x64xf32>} : () -> tensor<1x1x64xf32>
  %wg = "tosa.const"() {values = dense_resource<__elided__> : tensor<1x64x176xf32>} : () -> tensor<1x64x176xf32>
  %wu = "tosa.const"() {values = dense_resource<__elided__> : tensor<1x64x176xf32>} : () -> tensor<1x64x176xf32>
  %wd = "tosa.const"() {values = dense_resource<__elided__> : tensor<1x176x64xf32>} : () -> tensor<1x176x64xf32>
  // input_layernorm (RMSNorm): x * rsqrt(mean(x^2) + eps) * weight
  %v1 = tosa.mul %hidden, %hidden, %shift : (tensor<1x8x64xf32>, tensor<1x8x64xf32>, tensor<1xi8>) -> tensor<1x8x64xf32>
  %v2 = tosa.reduce_sum %v1 {axis = 2 : i32} : (tensor<1x8x64xf32>) -> tensor<1x8x1xf32>
  %v3 = tosa.mul %v2, %inv_dim, %shift : (tensor<1x8x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x8x1xf32>
  %v4 = tosa.add %v3, %eps : (tensor<1x8x1xf32>, tensor<1x1x1xf32>) -> tensor<1x8x1xf32>
  %v5 = tosa.rsqrt %v4 : (tensor<1x8x1xf32>) -> tensor<1x8x1xf32>
  %v6 = tosa.mul %hidden, %v5, %shift : (tensor<1x8x64xf32>, tensor<1x8x1xf32>, tensor<1xi8>) -> tensor<1x8x64xf32>
  %v7 = tosa.mul %v6, %ln1, %shift : (tensor<1x8x64xf32>, tensor<1x1x64xf32>, tensor<1xi8>) -> tensor<1x8x64xf32>
  // self_attn.q_proj, k_proj, v_proj (weights stored [in, out])
  %v8 = tosa.matmul %v7, %wq, %zp, %zp : (tensor<1x8x64xf32>, tensor<1x64x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x64xf32>
  // k_proj
  %v9 = tosa.matmul %v7, %wk, %zp, %zp : (tensor<1x8x64xf32>, tensor<1x64x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x64xf32>
  // v_proj
  %v10 = tosa.matmul %v7, %wv, %zp, %zp : (tensor<1x8x64xf32>, tensor<1x64x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x64xf32>
  // view(1, 8, 4, 16).transpose(1, 2)
  %s11 = tosa.const_shape {values = dense<[1, 8, 4, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %v12 = tosa.reshape %v8, %s11 : (tensor<1x8x64xf32>, !tosa.shape<4>) -> tensor<1x8x4x16xf32>
  %v13 = tosa.transpose %v12 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x8x4x16xf32>) -> tensor<1x4x8x16xf32>
  %s14 = tosa.const_shape {values = dense<[1, 8, 4, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %v15 = tosa.reshape %v9, %s14 : (tensor<1x8x64xf32>, !tosa.shape<4>) -> tensor<1x8x4x16xf32>
  %v16 = tosa.transpose %v15 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x8x4x16xf32>) -> tensor<1x4x8x16xf32>
  %s17 = tosa.const_shape {values = dense<[1, 8, 4, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %v18 = tosa.reshape %v10, %s17 : (tensor<1x8x64xf32>, !tosa.shape<4>) -> tensor<1x8x4x16xf32>
  %v19 = tosa.transpose %v18 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x8x4x16xf32>) -> tensor<1x4x8x16xf32>
  // apply_rotary_pos_emb with cos/sin [1, 8, 16] unsqueezed over the heads
  %s20 = tosa.const_shape {values = dense<[1, 1, 8, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %v21 = tosa.reshape %cos, %s20 : (tensor<1x8x16xf32>, !tosa.shape<4>) -> tensor<1x1x8x16xf32>
  %s22 = tosa.const_shape {values = dense<[1, 1, 8, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %v23 = tosa.reshape %sin, %s22 : (tensor<1x8x16xf32>, !tosa.shape<4>) -> tensor<1x1x8x16xf32>
  %v24 = tosa.mul %v13, %v21, %shift : (tensor<1x4x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1xi8>) -> tensor<1x4x8x16xf32>
  %s25 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s26 = tosa.const_shape {values = dense<[1, 4, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %v27 = tosa.slice %v13, %s25, %s26 : (tensor<1x4x8x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x4x8x8xf32>
  %s28 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s29 = tosa.const_shape {values = dense<[1, 4, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %v30 = tosa.slice %v13, %s28, %s29 : (tensor<1x4x8x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x4x8x8xf32>
  %v31 = tosa.negate %v30, %zp, %zp : (tensor<1x4x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8x8xf32>
  %v32 = tosa.concat %v31, %v27 {axis = 3 : i32} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x16xf32>
  %v33 = tosa.mul %v32, %v23, %shift : (tensor<1x4x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1xi8>) -> tensor<1x4x8x16xf32>
  %v34 = tosa.add %v24, %v33 : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  %v35 = tosa.mul %v16, %v21, %shift : (tensor<1x4x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1xi8>) -> tensor<1x4x8x16xf32>
  %s36 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s37 = tosa.const_shape {values = dense<[1, 4, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %v38 = tosa.slice %v16, %s36, %s37 : (tensor<1x4x8x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x4x8x8xf32>
  %s39 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s40 = tosa.const_shape {values = dense<[1, 4, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %v41 = tosa.slice %v16, %s39, %s40 : (tensor<1x4x8x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x4x8x8xf32>
  %v42 = tosa.negate %v41, %zp, %zp : (tensor<1x4x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8x8xf32>
  %v43 = tosa.concat %v42, %v38 {axis = 3 : i32} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x16xf32>
  %v44 = tosa.mul %v43, %v23, %shift : (tensor<1x4x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1xi8>) -> tensor<1x4x8x16xf32>
  %v45 = tosa.add %v35, %v44 : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  // scores = q @ k^T / sqrt(16) + mask, per head
  %s46 = tosa.const_shape {values = dense<[4, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %v47 = tosa.reshape %v34, %s46 : (tensor<1x4x8x16xf32>, !tosa.shape<3>) -> tensor<4x8x16xf32>
  %s48 = tosa.const_shape {values = dense<[4, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %v49 = tosa.reshape %v45, %s48 : (tensor<1x4x8x16xf32>, !tosa.shape<3>) -> tensor<4x8x16xf32>
  %v50 = tosa.transpose %v49 {perms = array<i32: 0, 2, 1>} : (tensor<4x8x16xf32>) -> tensor<4x16x8xf32>
  %v51 = tosa.matmul %v47, %v50, %zp, %zp : (tensor<4x8x16xf32>, tensor<4x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x8xf32>
  %s52 = tosa.const_shape {values = dense<[1, 4, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %v53 = tosa.reshape %v51, %s52 : (tensor<4x8x8xf32>, !tosa.shape<4>) -> tensor<1x4x8x8xf32>
  %v54 = tosa.mul %v53, %scale, %shift : (tensor<1x4x8x8xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x8x8xf32>
  %v55 = tosa.add %v54, %mask : (tensor<1x4x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x4x8x8xf32>
  // softmax(dim=-1)
  %v56 = tosa.reduce_max %v55 {axis = 3 : i32} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x1xf32>
  %v57 = tosa.sub %v55, %v56 : (tensor<1x4x8x8xf32>, tensor<1x4x8x1xf32>) -> tensor<1x4x8x8xf32>
  %v58 = tosa.exp %v57 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %v59 = tosa.reduce_sum %v58 {axis = 3 : i32} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x1xf32>
  %v60 = tosa.reciprocal %v59 : (tensor<1x4x8x1xf32>) -> tensor<1x4x8x1xf32>
  %v61 = tosa.mul %v58, %v60, %shift : (tensor<1x4x8x8xf32>, tensor<1x4x8x1xf32>, tensor<1xi8>) -> tensor<1x4x8x8xf32>
  // context = probs @ v
  %s62 = tosa.const_shape {values = dense<[4, 8, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %v63 = tosa.reshape %v61, %s62 : (tensor<1x4x8x8xf32>, !tosa.shape<3>) -> tensor<4x8x8xf32>
  %s64 = tosa.const_shape {values = dense<[4, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %v65 = tosa.reshape %v19, %s64 : (tensor<1x4x8x16xf32>, !tosa.shape<3>) -> tensor<4x8x16xf32>
  %v66 = tosa.matmul %v63, %v65, %zp, %zp : (tensor<4x8x8xf32>, tensor<4x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x16xf32>
  %s67 = tosa.const_shape {values = dense<[1, 4, 8, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %v68 = tosa.reshape %v66, %s67 : (tensor<4x8x16xf32>, !tosa.shape<4>) -> tensor<1x4x8x16xf32>
  %v69 = tosa.transpose %v68 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x4x8x16xf32>) -> tensor<1x8x4x16xf32>
  %s70 = tosa.const_shape {values = dense<[1, 8, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %v71 = tosa.reshape %v69, %s70 : (tensor<1x8x4x16xf32>, !tosa.shape<3>) -> tensor<1x8x64xf32>
  // self_attn.o_proj and the residual
  %v72 = tosa.matmul %v71, %wo, %zp, %zp : (tensor<1x8x64xf32>, tensor<1x64x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x64xf32>
  %v73 = tosa.add %hidden, %v72 : (tensor<1x8x64xf32>, tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  // post_attention_layernorm (RMSNorm): x * rsqrt(mean(x^2) + eps) * weight
  %v74 = tosa.mul %v73, %v73, %shift : (tensor<1x8x64xf32>, tensor<1x8x64xf32>, tensor<1xi8>) -> tensor<1x8x64xf32>
  %v75 = tosa.reduce_sum %v74 {axis = 2 : i32} : (tensor<1x8x64xf32>) -> tensor<1x8x1xf32>
  %v76 = tosa.mul %v75, %inv_dim, %shift : (tensor<1x8x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x8x1xf32>
  %v77 = tosa.add %v76, %eps : (tensor<1x8x1xf32>, tensor<1x1x1xf32>) -> tensor<1x8x1xf32>
  %v78 = tosa.rsqrt %v77 : (tensor<1x8x1xf32>) -> tensor<1x8x1xf32>
  %v79 = tosa.mul %v73, %v78, %shift : (tensor<1x8x64xf32>, tensor<1x8x1xf32>, tensor<1xi8>) -> tensor<1x8x64xf32>
  %v80 = tosa.mul %v79, %ln2, %shift : (tensor<1x8x64xf32>, tensor<1x1x64xf32>, tensor<1xi8>) -> tensor<1x8x64xf32>
  // mlp: down_proj(silu(gate_proj(x)) * up_proj(x))
  %v81 = tosa.matmul %v80, %wg, %zp, %zp : (tensor<1x8x64xf32>, tensor<1x64x176xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x176xf32>
  // up_proj
  %v82 = tosa.matmul %v80, %wu, %zp, %zp : (tensor<1x8x64xf32>, tensor<1x64x176xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x176xf32>
  %v83 = tosa.sigmoid %v81 : (tensor<1x8x176xf32>) -> tensor<1x8x176xf32>
  %v84 = tosa.mul %v81, %v83, %shift : (tensor<1x8x176xf32>, tensor<1x8x176xf32>, tensor<1xi8>) -> tensor<1x8x176xf32>
  %v85 = tosa.mul %v84, %v82, %shift : (tensor<1x8x176xf32>, tensor<1x8x176xf32>, tensor<1xi8>) -> tensor<1x8x176xf32>
  %v86 = tosa.matmul %v85, %wd, %zp, %zp : (tensor<1x8x176xf32>, tensor<1x176x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x64xf32>
  %v87 = tosa.add %v73, %v86 : (tensor<1x8x64xf32>, tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  return %v87 : tensor<1x8x64xf32>
}

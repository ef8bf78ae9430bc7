// One Llama decoder layer (Hugging Face LlamaDecoderLayer) at a decode step,
// as torch-mlir writes it in linalg on tensors: hidden size 64, 4 heads of
// 16, SwiGLU FFN 176, RMSNorm eps 1e-6, no biases; one new token at
// position 7 of a static KV cache of 16 positions. Hand-written in the
// shapes torch-mlir emits (weights elided):
// - nn.Linear as a transposed weight broadcast over the batch and
//   linalg.batch_matmul ([1, T, in] x [1, in, out]);
// - RMSNorm as powf, a sum reduction with divf (mean), addf eps, rsqrt and
//   two mulf (by the normalizer, by the weight);
// - RoPE (apply_rotary_pos_emb) with the layer's cos/sin inputs
//   ([1, T, 16], unsqueezed over the heads): q * cos + rotate_half(q) * sin,
//   rotate_half as two tensor.extract_slice, a negf and a tensor.concat;
// - the cache update as tensor.insert_slice of the new key/value into the
//   cache argument at position 7, read back as tensor.extract_slice of
//   positions 0..7;
// - attention scores and context as 5-loop linalg.generic contractions of
//   two activations, scaled by 1/sqrt(16) (divf 4.0), softmax as
//   torch-mlir's max, sub, exp, sum and div;
// - SiLU as one linalg.generic (x / (1 + exp(-x))), SwiGLU as its product
//   with the up projection.
// Results: the layer output and the two updated caches.
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#last3 = affine_map<(d0, d1, d2) -> (d2)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#heads4 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#qk_q = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#qk_k = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#qk_s = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
#pv_v = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
module {
  func.func @llama_decode(%hidden: tensor<1x1x64xf32>, %cos: tensor<1x1x16xf32>, %sin: tensor<1x1x16xf32>, %k_cache: tensor<1x4x16x16xf32>, %v_cache: tensor<1x4x16x16xf32>) -> (tensor<1x1x64xf32>, tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>) {
    %zero = arith.constant 0.000000e+00 : f32
    %one = arith.constant 1.000000e+00 : f32
    %two = arith.constant 2.000000e+00 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %dim = arith.constant 6.400000e+01 : f32
    %eps = arith.constant 9.99999997E-7 : f32
    %sqrt_hd = arith.constant 4.000000e+00 : f32
    %ln1 = arith.constant dense_resource<__elided__> : tensor<64xf32>
    %wq = arith.constant dense_resource<__elided__> : tensor<64x64xf32>
    %wk = arith.constant dense_resource<__elided__> : tensor<64x64xf32>
    %wv = arith.constant dense_resource<__elided__> : tensor<64x64xf32>
    %wo = arith.constant dense_resource<__elided__> : tensor<64x64xf32>
    %ln2 = arith.constant dense_resource<__elided__> : tensor<64xf32>
    %wg = arith.constant dense_resource<__elided__> : tensor<176x64xf32>
    %wu = arith.constant dense_resource<__elided__> : tensor<176x64xf32>
    %wd = arith.constant dense_resource<__elided__> : tensor<64x176xf32>

    // input_layernorm (RMSNorm).
    %e0 = tensor.empty() : tensor<1x1x64xf32>
    %sq = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%hidden : tensor<1x1x64xf32>) outs(%e0 : tensor<1x1x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %p = math.powf %in, %two : f32
      linalg.yield %p : f32
    } -> tensor<1x1x64xf32>
    %e1 = tensor.empty() : tensor<1x1x1xf32>
    %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
    %sum = linalg.generic {indexing_maps = [#map3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%sq : tensor<1x1x64xf32>) outs(%f1 : tensor<1x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %a = arith.addf %in, %out : f32
      linalg.yield %a : f32
    } -> tensor<1x1x1xf32>
    %mean = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sum : tensor<1x1x1xf32>) outs(%e1 : tensor<1x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %d = arith.divf %in, %dim : f32
      linalg.yield %d : f32
    } -> tensor<1x1x1xf32>
    %var = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mean : tensor<1x1x1xf32>) outs(%e1 : tensor<1x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %a = arith.addf %in, %eps : f32
      linalg.yield %a : f32
    } -> tensor<1x1x1xf32>
    %rstd = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%var : tensor<1x1x1xf32>) outs(%e1 : tensor<1x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = math.rsqrt %in : f32
      linalg.yield %r : f32
    } -> tensor<1x1x1xf32>
    %normed = linalg.generic {indexing_maps = [#map3, #row3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%hidden, %rstd : tensor<1x1x64xf32>, tensor<1x1x1xf32>) outs(%e0 : tensor<1x1x64xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %m = arith.mulf %in, %in_0 : f32
      linalg.yield %m : f32
    } -> tensor<1x1x64xf32>
    %x = linalg.generic {indexing_maps = [#last3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ln1, %normed : tensor<64xf32>, tensor<1x1x64xf32>) outs(%e0 : tensor<1x1x64xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %m = arith.mulf %in, %in_0 : f32
      linalg.yield %m : f32
    } -> tensor<1x1x64xf32>

    // self_attn.q_proj, k_proj, v_proj: 64 -> 64 each.
    %acc = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x1x64xf32>) -> tensor<1x1x64xf32>
    %et = tensor.empty() : tensor<64x64xf32>
    %eb = tensor.empty() : tensor<1x64x64xf32>
    %wq_t = linalg.transpose ins(%wq : tensor<64x64xf32>) outs(%et : tensor<64x64xf32>) permutation = [1, 0]
    %wq_b = linalg.broadcast ins(%wq_t : tensor<64x64xf32>) outs(%eb : tensor<1x64x64xf32>) dimensions = [0]
    %q = linalg.batch_matmul ins(%x, %wq_b : tensor<1x1x64xf32>, tensor<1x64x64xf32>) outs(%acc : tensor<1x1x64xf32>) -> tensor<1x1x64xf32>
    %wk_t = linalg.transpose ins(%wk : tensor<64x64xf32>) outs(%et : tensor<64x64xf32>) permutation = [1, 0]
    %wk_b = linalg.broadcast ins(%wk_t : tensor<64x64xf32>) outs(%eb : tensor<1x64x64xf32>) dimensions = [0]
    %k = linalg.batch_matmul ins(%x, %wk_b : tensor<1x1x64xf32>, tensor<1x64x64xf32>) outs(%acc : tensor<1x1x64xf32>) -> tensor<1x1x64xf32>
    %wv_t = linalg.transpose ins(%wv : tensor<64x64xf32>) outs(%et : tensor<64x64xf32>) permutation = [1, 0]
    %wv_b = linalg.broadcast ins(%wv_t : tensor<64x64xf32>) outs(%eb : tensor<1x64x64xf32>) dimensions = [0]
    %v = linalg.batch_matmul ins(%x, %wv_b : tensor<1x1x64xf32>, tensor<1x64x64xf32>) outs(%acc : tensor<1x1x64xf32>) -> tensor<1x1x64xf32>

    // view(1, 1, 4, 16).transpose(1, 2)
    %eh = tensor.empty() : tensor<1x4x1x16xf32>
    %q_4 = tensor.expand_shape %q [[0], [1], [2, 3]] output_shape [1, 1, 4, 16] : tensor<1x1x64xf32> into tensor<1x1x4x16xf32>
    %q_h = linalg.transpose ins(%q_4 : tensor<1x1x4x16xf32>) outs(%eh : tensor<1x4x1x16xf32>) permutation = [0, 2, 1, 3]
    %k_4 = tensor.expand_shape %k [[0], [1], [2, 3]] output_shape [1, 1, 4, 16] : tensor<1x1x64xf32> into tensor<1x1x4x16xf32>
    %k_h = linalg.transpose ins(%k_4 : tensor<1x1x4x16xf32>) outs(%eh : tensor<1x4x1x16xf32>) permutation = [0, 2, 1, 3]
    %v_4 = tensor.expand_shape %v [[0], [1], [2, 3]] output_shape [1, 1, 4, 16] : tensor<1x1x64xf32> into tensor<1x1x4x16xf32>
    %v_h = linalg.transpose ins(%v_4 : tensor<1x1x4x16xf32>) outs(%eh : tensor<1x4x1x16xf32>) permutation = [0, 2, 1, 3]

    // apply_rotary_pos_emb: cos/sin unsqueezed over the heads.
    %cos_4 = tensor.expand_shape %cos [[0, 1], [2], [3]] output_shape [1, 1, 1, 16] : tensor<1x1x16xf32> into tensor<1x1x1x16xf32>
    %sin_4 = tensor.expand_shape %sin [[0, 1], [2], [3]] output_shape [1, 1, 1, 16] : tensor<1x1x16xf32> into tensor<1x1x1x16xf32>
    %eh2 = tensor.empty() : tensor<1x4x1x8xf32>
    // q * cos + rotate_half(q) * sin
    %q_cos = linalg.generic {indexing_maps = [#map4, #heads4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q_h, %cos_4 : tensor<1x4x1x16xf32>, tensor<1x1x1x16xf32>) outs(%eh : tensor<1x4x1x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %m = arith.mulf %in, %in_0 : f32
      linalg.yield %m : f32
    } -> tensor<1x4x1x16xf32>
    %q_lo = tensor.extract_slice %q_h[0, 0, 0, 0] [1, 4, 1, 8] [1, 1, 1, 1] : tensor<1x4x1x16xf32> to tensor<1x4x1x8xf32>
    %q_hi = tensor.extract_slice %q_h[0, 0, 0, 8] [1, 4, 1, 8] [1, 1, 1, 1] : tensor<1x4x1x16xf32> to tensor<1x4x1x8xf32>
    %q_neg = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q_hi : tensor<1x4x1x8xf32>) outs(%eh2 : tensor<1x4x1x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %n = arith.negf %in : f32
      linalg.yield %n : f32
    } -> tensor<1x4x1x8xf32>
    %q_rot = tensor.concat dim(3) %q_neg, %q_lo : (tensor<1x4x1x8xf32>, tensor<1x4x1x8xf32>) -> tensor<1x4x1x16xf32>
    %q_sin = linalg.generic {indexing_maps = [#map4, #heads4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q_rot, %sin_4 : tensor<1x4x1x16xf32>, tensor<1x1x1x16xf32>) outs(%eh : tensor<1x4x1x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %m = arith.mulf %in, %in_0 : f32
      linalg.yield %m : f32
    } -> tensor<1x4x1x16xf32>
    %q_r = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q_cos, %q_sin : tensor<1x4x1x16xf32>, tensor<1x4x1x16xf32>) outs(%eh : tensor<1x4x1x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %a = arith.addf %in, %in_0 : f32
      linalg.yield %a : f32
    } -> tensor<1x4x1x16xf32>
    // k * cos + rotate_half(k) * sin
    %k_cos = linalg.generic {indexing_maps = [#map4, #heads4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k_h, %cos_4 : tensor<1x4x1x16xf32>, tensor<1x1x1x16xf32>) outs(%eh : tensor<1x4x1x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %m = arith.mulf %in, %in_0 : f32
      linalg.yield %m : f32
    } -> tensor<1x4x1x16xf32>
    %k_lo = tensor.extract_slice %k_h[0, 0, 0, 0] [1, 4, 1, 8] [1, 1, 1, 1] : tensor<1x4x1x16xf32> to tensor<1x4x1x8xf32>
    %k_hi = tensor.extract_slice %k_h[0, 0, 0, 8] [1, 4, 1, 8] [1, 1, 1, 1] : tensor<1x4x1x16xf32> to tensor<1x4x1x8xf32>
    %k_neg = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k_hi : tensor<1x4x1x8xf32>) outs(%eh2 : tensor<1x4x1x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %n = arith.negf %in : f32
      linalg.yield %n : f32
    } -> tensor<1x4x1x8xf32>
    %k_rot = tensor.concat dim(3) %k_neg, %k_lo : (tensor<1x4x1x8xf32>, tensor<1x4x1x8xf32>) -> tensor<1x4x1x16xf32>
    %k_sin = linalg.generic {indexing_maps = [#map4, #heads4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k_rot, %sin_4 : tensor<1x4x1x16xf32>, tensor<1x1x1x16xf32>) outs(%eh : tensor<1x4x1x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %m = arith.mulf %in, %in_0 : f32
      linalg.yield %m : f32
    } -> tensor<1x4x1x16xf32>
    %k_r = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k_cos, %k_sin : tensor<1x4x1x16xf32>, tensor<1x4x1x16xf32>) outs(%eh : tensor<1x4x1x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %a = arith.addf %in, %in_0 : f32
      linalg.yield %a : f32
    } -> tensor<1x4x1x16xf32>

    // StaticCache.update at position 7, then positions 0..7 attended.
    %k_cache_1 = tensor.insert_slice %k_r into %k_cache[0, 0, 7, 0] [1, 4, 1, 16] [1, 1, 1, 1] : tensor<1x4x1x16xf32> into tensor<1x4x16x16xf32>
    %v_cache_1 = tensor.insert_slice %v_h into %v_cache[0, 0, 7, 0] [1, 4, 1, 16] [1, 1, 1, 1] : tensor<1x4x1x16xf32> into tensor<1x4x16x16xf32>
    %keys = tensor.extract_slice %k_cache_1[0, 0, 0, 0] [1, 4, 8, 16] [1, 1, 1, 1] : tensor<1x4x16x16xf32> to tensor<1x4x8x16xf32>
    %values = tensor.extract_slice %v_cache_1[0, 0, 0, 0] [1, 4, 8, 16] [1, 1, 1, 1] : tensor<1x4x16x16xf32> to tensor<1x4x8x16xf32>

    // scores = q @ k^T / sqrt(16): [1, 4, 1, 16] x [1, 4, 8, 16] -> [1, 4, 1, 8]
    %es = tensor.empty() : tensor<1x4x1x8xf32>
    %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<1x4x1x8xf32>) -> tensor<1x4x1x8xf32>
    %scores = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q_r, %keys : tensor<1x4x1x16xf32>, tensor<1x4x8x16xf32>) outs(%fs : tensor<1x4x1x8xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %m = arith.mulf %in, %in_0 : f32
      %a = arith.addf %out, %m : f32
      linalg.yield %a : f32
    } -> tensor<1x4x1x8xf32>
    %scaled = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%scores : tensor<1x4x1x8xf32>) outs(%es : tensor<1x4x1x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %d = arith.divf %in, %sqrt_hd : f32
      linalg.yield %d : f32
    } -> tensor<1x4x1x8xf32>

    // softmax(dim=-1)
    %em = tensor.empty() : tensor<1x4x1x1xf32>
    %fm = linalg.fill ins(%ninf : f32) outs(%em : tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf32>
    %max = linalg.generic {indexing_maps = [#map4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%scaled : tensor<1x4x1x8xf32>) outs(%fm : tensor<1x4x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.maximumf %in, %out : f32
      linalg.yield %m : f32
    } -> tensor<1x4x1x1xf32>
    %shifted = linalg.generic {indexing_maps = [#map4, #row4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%scaled, %max : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>) outs(%es : tensor<1x4x1x8xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %s = arith.subf %in, %in_0 : f32
      linalg.yield %s : f32
    } -> tensor<1x4x1x8xf32>
    %exp = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%shifted : tensor<1x4x1x8xf32>) outs(%es : tensor<1x4x1x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %e = math.exp %in : f32
      linalg.yield %e : f32
    } -> tensor<1x4x1x8xf32>
    %fz = linalg.fill ins(%zero : f32) outs(%em : tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf32>
    %total = linalg.generic {indexing_maps = [#map4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%exp : tensor<1x4x1x8xf32>) outs(%fz : tensor<1x4x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %a = arith.addf %in, %out : f32
      linalg.yield %a : f32
    } -> tensor<1x4x1x1xf32>
    %probs = linalg.generic {indexing_maps = [#map4, #row4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%exp, %total : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>) outs(%es : tensor<1x4x1x8xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %d = arith.divf %in, %in_0 : f32
      linalg.yield %d : f32
    } -> tensor<1x4x1x8xf32>

    // context = probs @ v: [1, 4, 1, 8] x [1, 4, 8, 16] -> [1, 4, 1, 16]
    %fc = linalg.fill ins(%zero : f32) outs(%eh : tensor<1x4x1x16xf32>) -> tensor<1x4x1x16xf32>
    %context = linalg.generic {indexing_maps = [#qk_q, #pv_v, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%probs, %values : tensor<1x4x1x8xf32>, tensor<1x4x8x16xf32>) outs(%fc : tensor<1x4x1x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %m = arith.mulf %in, %in_0 : f32
      %a = arith.addf %out, %m : f32
      linalg.yield %a : f32
    } -> tensor<1x4x1x16xf32>
    // transpose(1, 2).reshape(1, 1, 64)
    %em2 = tensor.empty() : tensor<1x1x4x16xf32>
    %merged_4 = linalg.transpose ins(%context : tensor<1x4x1x16xf32>) outs(%em2 : tensor<1x1x4x16xf32>) permutation = [0, 2, 1, 3]
    %merged = tensor.collapse_shape %merged_4 [[0], [1], [2, 3]] : tensor<1x1x4x16xf32> into tensor<1x1x64xf32>

    // self_attn.o_proj and the residual.
    %wo_t = linalg.transpose ins(%wo : tensor<64x64xf32>) outs(%et : tensor<64x64xf32>) permutation = [1, 0]
    %wo_b = linalg.broadcast ins(%wo_t : tensor<64x64xf32>) outs(%eb : tensor<1x64x64xf32>) dimensions = [0]
    %o = linalg.batch_matmul ins(%merged, %wo_b : tensor<1x1x64xf32>, tensor<1x64x64xf32>) outs(%acc : tensor<1x1x64xf32>) -> tensor<1x1x64xf32>
    %h1 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%hidden, %o : tensor<1x1x64xf32>, tensor<1x1x64xf32>) outs(%e0 : tensor<1x1x64xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %a = arith.addf %in, %in_0 : f32
      linalg.yield %a : f32
    } -> tensor<1x1x64xf32>

    // post_attention_layernorm (RMSNorm).
    %sq2 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h1 : tensor<1x1x64xf32>) outs(%e0 : tensor<1x1x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %p = math.powf %in, %two : f32
      linalg.yield %p : f32
    } -> tensor<1x1x64xf32>
    %sum2 = linalg.generic {indexing_maps = [#map3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%sq2 : tensor<1x1x64xf32>) outs(%f1 : tensor<1x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %a = arith.addf %in, %out : f32
      linalg.yield %a : f32
    } -> tensor<1x1x1xf32>
    %mean2 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sum2 : tensor<1x1x1xf32>) outs(%e1 : tensor<1x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %d = arith.divf %in, %dim : f32
      linalg.yield %d : f32
    } -> tensor<1x1x1xf32>
    %var2 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mean2 : tensor<1x1x1xf32>) outs(%e1 : tensor<1x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %a = arith.addf %in, %eps : f32
      linalg.yield %a : f32
    } -> tensor<1x1x1xf32>
    %rstd2 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%var2 : tensor<1x1x1xf32>) outs(%e1 : tensor<1x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = math.rsqrt %in : f32
      linalg.yield %r : f32
    } -> tensor<1x1x1xf32>
    %normed2 = linalg.generic {indexing_maps = [#map3, #row3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h1, %rstd2 : tensor<1x1x64xf32>, tensor<1x1x1xf32>) outs(%e0 : tensor<1x1x64xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %m = arith.mulf %in, %in_0 : f32
      linalg.yield %m : f32
    } -> tensor<1x1x64xf32>
    %x2 = linalg.generic {indexing_maps = [#last3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ln2, %normed2 : tensor<64xf32>, tensor<1x1x64xf32>) outs(%e0 : tensor<1x1x64xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %m = arith.mulf %in, %in_0 : f32
      linalg.yield %m : f32
    } -> tensor<1x1x64xf32>

    // mlp: down_proj(silu(gate_proj(x)) * up_proj(x)), 64 -> 176 -> 64.
    %ef = tensor.empty() : tensor<1x1x176xf32>
    %acc_f = linalg.fill ins(%zero : f32) outs(%ef : tensor<1x1x176xf32>) -> tensor<1x1x176xf32>
    %etf = tensor.empty() : tensor<64x176xf32>
    %ebf = tensor.empty() : tensor<1x64x176xf32>
    %wg_t = linalg.transpose ins(%wg : tensor<176x64xf32>) outs(%etf : tensor<64x176xf32>) permutation = [1, 0]
    %wg_b = linalg.broadcast ins(%wg_t : tensor<64x176xf32>) outs(%ebf : tensor<1x64x176xf32>) dimensions = [0]
    %gate = linalg.batch_matmul ins(%x2, %wg_b : tensor<1x1x64xf32>, tensor<1x64x176xf32>) outs(%acc_f : tensor<1x1x176xf32>) -> tensor<1x1x176xf32>
    %wu_t = linalg.transpose ins(%wu : tensor<176x64xf32>) outs(%etf : tensor<64x176xf32>) permutation = [1, 0]
    %wu_b = linalg.broadcast ins(%wu_t : tensor<64x176xf32>) outs(%ebf : tensor<1x64x176xf32>) dimensions = [0]
    %up = linalg.batch_matmul ins(%x2, %wu_b : tensor<1x1x64xf32>, tensor<1x64x176xf32>) outs(%acc_f : tensor<1x1x176xf32>) -> tensor<1x1x176xf32>
    %silu = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%gate : tensor<1x1x176xf32>) outs(%ef : tensor<1x1x176xf32>) {
    ^bb0(%in: f32, %out: f32):
      %n = arith.negf %in : f32
      %e = math.exp %n : f32
      %a = arith.addf %e, %one : f32
      %d = arith.divf %in, %a : f32
      linalg.yield %d : f32
    } -> tensor<1x1x176xf32>
    %glu = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%silu, %up : tensor<1x1x176xf32>, tensor<1x1x176xf32>) outs(%ef : tensor<1x1x176xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %m = arith.mulf %in, %in_0 : f32
      linalg.yield %m : f32
    } -> tensor<1x1x176xf32>
    %etd = tensor.empty() : tensor<176x64xf32>
    %ebd = tensor.empty() : tensor<1x176x64xf32>
    %wd_t = linalg.transpose ins(%wd : tensor<64x176xf32>) outs(%etd : tensor<176x64xf32>) permutation = [1, 0]
    %wd_b = linalg.broadcast ins(%wd_t : tensor<176x64xf32>) outs(%ebd : tensor<1x176x64xf32>) dimensions = [0]
    %down = linalg.batch_matmul ins(%glu, %wd_b : tensor<1x1x176xf32>, tensor<1x176x64xf32>) outs(%acc : tensor<1x1x64xf32>) -> tensor<1x1x64xf32>
    %out = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h1, %down : tensor<1x1x64xf32>, tensor<1x1x64xf32>) outs(%e0 : tensor<1x1x64xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out_0: f32):
      %a = arith.addf %in, %in_0 : f32
      linalg.yield %a : f32
    } -> tensor<1x1x64xf32>
    return %out, %k_cache_1, %v_cache_1 : tensor<1x1x64xf32>, tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>
  }
}

// The Llama decoder layer of llama-decode-linalg.mlir (hidden 64, 4 heads of
// 16, SwiGLU FFN 176, RMSNorm eps 1e-6, no biases) at prefill: a prompt of
// T = 8 tokens, as torch-mlir writes it after torch.export's decompositions
// (aten.linear as view + mm + view). Hand-written, weights elided:
// - nn.Linear as tensor.collapse_shape to [T, in], a transposing
//   linalg.generic of the weight and linalg.matmul, expanded back;
// - attention scores as linalg.batch_matmul over the 4 heads with
//   indexing_maps that transpose the keys (what batch_matmul_transpose_b
//   was), the context as a plain linalg.batch_matmul;
// - the causal mask as the additive [1, 1, T, T] mask input, broadcast
//   over the heads; softmax as linalg.softmax;
// - RoPE with rotate_half's torch.cat as two tensor.insert_slice into an
//   empty tensor;
// - the prompt's keys and values written into the static caches at 0..7;
// - SwiGLU, silu(gate) * up with silu(x) = x * sigmoid(x), as one
//   linalg.generic (as linalg elementwise fusion leaves it).
#map2 = affine_map<(d0, d1) -> (d0, d1)>
#map2t = affine_map<(d0, d1) -> (d1, d0)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#last3 = affine_map<(d0, d1, d2) -> (d2)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#heads4 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#bmm_a = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#bmm_bt = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#bmm_c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
module {
  func.func @llama_prefill(%hidden: tensor<1x8x64xf32>, %cos: tensor<1x8x16xf32>, %sin: tensor<1x8x16xf32>, %mask: tensor<1x1x8x8xf32>, %k_cache: tensor<1x4x16x16xf32>, %v_cache: tensor<1x4x16x16xf32>) -> (tensor<1x8x64xf32>, tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>) {
    %zero = arith.constant 0.000000e+00 : f32
    %one = arith.constant 1.000000e+00 : f32
    %two = arith.constant 2.000000e+00 : f32
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
    %e0 = tensor.empty() : tensor<1x8x64xf32>
    %sq = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%hidden : tensor<1x8x64xf32>) outs(%e0 : tensor<1x8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %p = math.powf %in, %two : f32
      linalg.yield %p : f32
    } -> tensor<1x8x64xf32>
    %e1 = tensor.empty() : tensor<1x8x1xf32>
    %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8x1xf32>) -> tensor<1x8x1xf32>
    %sum = linalg.generic {indexing_maps = [#map3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%sq : tensor<1x8x64xf32>) outs(%f1 : tensor<1x8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %a = arith.addf %in, %out : f32
      linalg.yield %a : f32
    } -> tensor<1x8x1xf32>
    %mean = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sum : tensor<1x8x1xf32>) outs(%e1 : tensor<1x8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %d = arith.divf %in, %dim : f32
      linalg.yield %d : f32
    } -> tensor<1x8x1xf32>
    %var = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mean : tensor<1x8x1xf32>) outs(%e1 : tensor<1x8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %a = arith.addf %in, %eps : f32
      linalg.yield %a : f32
    } -> tensor<1x8x1xf32>
    %rstd = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%var : tensor<1x8x1xf32>) outs(%e1 : tensor<1x8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = math.rsqrt %in : f32
      linalg.yield %r : f32
    } -> tensor<1x8x1xf32>
    %normed = linalg.generic {indexing_maps = [#map3, #row3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%hidden, %rstd : tensor<1x8x64xf32>, tensor<1x8x1xf32>) outs(%e0 : tensor<1x8x64xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %m = arith.mulf %in, %in_0 : f32
      linalg.yield %m : f32
    } -> tensor<1x8x64xf32>
    %x = linalg.generic {indexing_maps = [#last3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ln1, %normed : tensor<64xf32>, tensor<1x8x64xf32>) outs(%e0 : tensor<1x8x64xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %m = arith.mulf %in, %in_0 : f32
      linalg.yield %m : f32
    } -> tensor<1x8x64xf32>

    // self_attn.q_proj, k_proj, v_proj: 64 -> 64 each, over the 8 tokens.
    %q_rows = tensor.collapse_shape %x [[0, 1], [2]] : tensor<1x8x64xf32> into tensor<8x64xf32>
    %q_et = tensor.empty() : tensor<64x64xf32>
    %q_wt = linalg.generic {indexing_maps = [#map2t, #map2], iterator_types = ["parallel", "parallel"]} ins(%wq : tensor<64x64xf32>) outs(%q_et : tensor<64x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<64x64xf32>
    %q_e = tensor.empty() : tensor<8x64xf32>
    %q_acc = linalg.fill ins(%zero : f32) outs(%q_e : tensor<8x64xf32>) -> tensor<8x64xf32>
    %q_mm = linalg.matmul ins(%q_rows, %q_wt : tensor<8x64xf32>, tensor<64x64xf32>) outs(%q_acc : tensor<8x64xf32>) -> tensor<8x64xf32>
    %q = tensor.expand_shape %q_mm [[0, 1], [2]] output_shape [1, 8, 64] : tensor<8x64xf32> into tensor<1x8x64xf32>
    // k_proj
    %k_rows = tensor.collapse_shape %x [[0, 1], [2]] : tensor<1x8x64xf32> into tensor<8x64xf32>
    %k_et = tensor.empty() : tensor<64x64xf32>
    %k_wt = linalg.generic {indexing_maps = [#map2t, #map2], iterator_types = ["parallel", "parallel"]} ins(%wk : tensor<64x64xf32>) outs(%k_et : tensor<64x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<64x64xf32>
    %k_e = tensor.empty() : tensor<8x64xf32>
    %k_acc = linalg.fill ins(%zero : f32) outs(%k_e : tensor<8x64xf32>) -> tensor<8x64xf32>
    %k_mm = linalg.matmul ins(%k_rows, %k_wt : tensor<8x64xf32>, tensor<64x64xf32>) outs(%k_acc : tensor<8x64xf32>) -> tensor<8x64xf32>
    %k = tensor.expand_shape %k_mm [[0, 1], [2]] output_shape [1, 8, 64] : tensor<8x64xf32> into tensor<1x8x64xf32>
    // v_proj
    %v_rows = tensor.collapse_shape %x [[0, 1], [2]] : tensor<1x8x64xf32> into tensor<8x64xf32>
    %v_et = tensor.empty() : tensor<64x64xf32>
    %v_wt = linalg.generic {indexing_maps = [#map2t, #map2], iterator_types = ["parallel", "parallel"]} ins(%wv : tensor<64x64xf32>) outs(%v_et : tensor<64x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<64x64xf32>
    %v_e = tensor.empty() : tensor<8x64xf32>
    %v_acc = linalg.fill ins(%zero : f32) outs(%v_e : tensor<8x64xf32>) -> tensor<8x64xf32>
    %v_mm = linalg.matmul ins(%v_rows, %v_wt : tensor<8x64xf32>, tensor<64x64xf32>) outs(%v_acc : tensor<8x64xf32>) -> tensor<8x64xf32>
    %v = tensor.expand_shape %v_mm [[0, 1], [2]] output_shape [1, 8, 64] : tensor<8x64xf32> into tensor<1x8x64xf32>
    // view(1, 8, 4, 16).transpose(1, 2)
    %q_4 = tensor.expand_shape %q [[0], [1], [2, 3]] output_shape [1, 8, 4, 16] : tensor<1x8x64xf32> into tensor<1x8x4x16xf32>
    %q_eh = tensor.empty() : tensor<1x4x8x16xf32>
    %q_h = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q_4 : tensor<1x8x4x16xf32>) outs(%q_eh : tensor<1x4x8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x4x8x16xf32>
    %k_4 = tensor.expand_shape %k [[0], [1], [2, 3]] output_shape [1, 8, 4, 16] : tensor<1x8x64xf32> into tensor<1x8x4x16xf32>
    %k_eh = tensor.empty() : tensor<1x4x8x16xf32>
    %k_h = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k_4 : tensor<1x8x4x16xf32>) outs(%k_eh : tensor<1x4x8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x4x8x16xf32>
    %v_4 = tensor.expand_shape %v [[0], [1], [2, 3]] output_shape [1, 8, 4, 16] : tensor<1x8x64xf32> into tensor<1x8x4x16xf32>
    %v_eh = tensor.empty() : tensor<1x4x8x16xf32>
    %v_h = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v_4 : tensor<1x8x4x16xf32>) outs(%v_eh : tensor<1x4x8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x4x8x16xf32>
    // apply_rotary_pos_emb: cos/sin unsqueezed over the heads.
    %cos_4 = tensor.expand_shape %cos [[0, 1], [2], [3]] output_shape [1, 1, 8, 16] : tensor<1x8x16xf32> into tensor<1x1x8x16xf32>
    %sin_4 = tensor.expand_shape %sin [[0, 1], [2], [3]] output_shape [1, 1, 8, 16] : tensor<1x8x16xf32> into tensor<1x1x8x16xf32>
    %e_h = tensor.empty() : tensor<1x4x8x16xf32>
    %e_half = tensor.empty() : tensor<1x4x8x8xf32>
    // q * cos + rotate_half(q) * sin
    %q_cos = linalg.generic {indexing_maps = [#map4, #heads4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q_h, %cos_4 : tensor<1x4x8x16xf32>, tensor<1x1x8x16xf32>) outs(%e_h : tensor<1x4x8x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %r = arith.mulf %in, %in_0 : f32
      linalg.yield %r : f32
    } -> tensor<1x4x8x16xf32>
    %q_lo = tensor.extract_slice %q_h[0, 0, 0, 0] [1, 4, 8, 8] [1, 1, 1, 1] : tensor<1x4x8x16xf32> to tensor<1x4x8x8xf32>
    %q_hi = tensor.extract_slice %q_h[0, 0, 0, 8] [1, 4, 8, 8] [1, 1, 1, 1] : tensor<1x4x8x16xf32> to tensor<1x4x8x8xf32>
    %q_neg = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q_hi : tensor<1x4x8x8xf32>) outs(%e_half : tensor<1x4x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = arith.negf %in : f32
      linalg.yield %r : f32
    } -> tensor<1x4x8x8xf32>
    %q_cat0 = tensor.insert_slice %q_neg into %e_h[0, 0, 0, 0] [1, 4, 8, 8] [1, 1, 1, 1] : tensor<1x4x8x8xf32> into tensor<1x4x8x16xf32>
    %q_rot = tensor.insert_slice %q_lo into %q_cat0[0, 0, 0, 8] [1, 4, 8, 8] [1, 1, 1, 1] : tensor<1x4x8x8xf32> into tensor<1x4x8x16xf32>
    %q_sin = linalg.generic {indexing_maps = [#map4, #heads4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q_rot, %sin_4 : tensor<1x4x8x16xf32>, tensor<1x1x8x16xf32>) outs(%e_h : tensor<1x4x8x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %r = arith.mulf %in, %in_0 : f32
      linalg.yield %r : f32
    } -> tensor<1x4x8x16xf32>
    %q_r = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q_cos, %q_sin : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) outs(%e_h : tensor<1x4x8x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %r = arith.addf %in, %in_0 : f32
      linalg.yield %r : f32
    } -> tensor<1x4x8x16xf32>
    // k * cos + rotate_half(k) * sin
    %k_cos = linalg.generic {indexing_maps = [#map4, #heads4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k_h, %cos_4 : tensor<1x4x8x16xf32>, tensor<1x1x8x16xf32>) outs(%e_h : tensor<1x4x8x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %r = arith.mulf %in, %in_0 : f32
      linalg.yield %r : f32
    } -> tensor<1x4x8x16xf32>
    %k_lo = tensor.extract_slice %k_h[0, 0, 0, 0] [1, 4, 8, 8] [1, 1, 1, 1] : tensor<1x4x8x16xf32> to tensor<1x4x8x8xf32>
    %k_hi = tensor.extract_slice %k_h[0, 0, 0, 8] [1, 4, 8, 8] [1, 1, 1, 1] : tensor<1x4x8x16xf32> to tensor<1x4x8x8xf32>
    %k_neg = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k_hi : tensor<1x4x8x8xf32>) outs(%e_half : tensor<1x4x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = arith.negf %in : f32
      linalg.yield %r : f32
    } -> tensor<1x4x8x8xf32>
    %k_cat0 = tensor.insert_slice %k_neg into %e_h[0, 0, 0, 0] [1, 4, 8, 8] [1, 1, 1, 1] : tensor<1x4x8x8xf32> into tensor<1x4x8x16xf32>
    %k_rot = tensor.insert_slice %k_lo into %k_cat0[0, 0, 0, 8] [1, 4, 8, 8] [1, 1, 1, 1] : tensor<1x4x8x8xf32> into tensor<1x4x8x16xf32>
    %k_sin = linalg.generic {indexing_maps = [#map4, #heads4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k_rot, %sin_4 : tensor<1x4x8x16xf32>, tensor<1x1x8x16xf32>) outs(%e_h : tensor<1x4x8x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %r = arith.mulf %in, %in_0 : f32
      linalg.yield %r : f32
    } -> tensor<1x4x8x16xf32>
    %k_r = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k_cos, %k_sin : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) outs(%e_h : tensor<1x4x8x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %r = arith.addf %in, %in_0 : f32
      linalg.yield %r : f32
    } -> tensor<1x4x8x16xf32>

    // StaticCache.update: the prompt fills positions 0..7.
    %k_cache_1 = tensor.insert_slice %k_r into %k_cache[0, 0, 0, 0] [1, 4, 8, 16] [1, 1, 1, 1] : tensor<1x4x8x16xf32> into tensor<1x4x16x16xf32>
    %v_cache_1 = tensor.insert_slice %v_h into %v_cache[0, 0, 0, 0] [1, 4, 8, 16] [1, 1, 1, 1] : tensor<1x4x8x16xf32> into tensor<1x4x16x16xf32>

    // scores = q @ k^T / sqrt(16) + mask, per head: [4, 8, 16] x [4, 8, 16]^T -> [4, 8, 8]
    %q3 = tensor.collapse_shape %q_r [[0, 1], [2], [3]] : tensor<1x4x8x16xf32> into tensor<4x8x16xf32>
    %k3 = tensor.collapse_shape %k_r [[0, 1], [2], [3]] : tensor<1x4x8x16xf32> into tensor<4x8x16xf32>
    %es = tensor.empty() : tensor<4x8x8xf32>
    %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %scores3 = linalg.batch_matmul indexing_maps = [#bmm_a, #bmm_bt, #bmm_c] ins(%q3, %k3 : tensor<4x8x16xf32>, tensor<4x8x16xf32>) outs(%fs : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %scores = tensor.expand_shape %scores3 [[0, 1], [2], [3]] output_shape [1, 4, 8, 8] : tensor<4x8x8xf32> into tensor<1x4x8x8xf32>
    %e_s = tensor.empty() : tensor<1x4x8x8xf32>
    %scaled = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%scores : tensor<1x4x8x8xf32>) outs(%e_s : tensor<1x4x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %d = arith.divf %in, %sqrt_hd : f32
      linalg.yield %d : f32
    } -> tensor<1x4x8x8xf32>
    %masked = linalg.generic {indexing_maps = [#map4, #heads4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%scaled, %mask : tensor<1x4x8x8xf32>, tensor<1x1x8x8xf32>) outs(%e_s : tensor<1x4x8x8xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %a = arith.addf %in, %in_0 : f32
      linalg.yield %a : f32
    } -> tensor<1x4x8x8xf32>
    %probs = linalg.softmax dimension(3) ins(%masked : tensor<1x4x8x8xf32>) outs(%e_s : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>

    // context = probs @ v: [4, 8, 8] x [4, 8, 16] -> [4, 8, 16]
    %p3 = tensor.collapse_shape %probs [[0, 1], [2], [3]] : tensor<1x4x8x8xf32> into tensor<4x8x8xf32>
    %v3 = tensor.collapse_shape %v_h [[0, 1], [2], [3]] : tensor<1x4x8x16xf32> into tensor<4x8x16xf32>
    %ec = tensor.empty() : tensor<4x8x16xf32>
    %fc = linalg.fill ins(%zero : f32) outs(%ec : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
    %context3 = linalg.batch_matmul ins(%p3, %v3 : tensor<4x8x8xf32>, tensor<4x8x16xf32>) outs(%fc : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
    %context = tensor.expand_shape %context3 [[0, 1], [2], [3]] output_shape [1, 4, 8, 16] : tensor<4x8x16xf32> into tensor<1x4x8x16xf32>
    // transpose(1, 2).reshape(1, 8, 64)
    %em = tensor.empty() : tensor<1x8x4x16xf32>
    %merged_4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%context : tensor<1x4x8x16xf32>) outs(%em : tensor<1x8x4x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x8x4x16xf32>
    %merged = tensor.collapse_shape %merged_4 [[0], [1], [2, 3]] : tensor<1x8x4x16xf32> into tensor<1x8x64xf32>

    // self_attn.o_proj and the residual.
    %o_rows = tensor.collapse_shape %merged [[0, 1], [2]] : tensor<1x8x64xf32> into tensor<8x64xf32>
    %o_et = tensor.empty() : tensor<64x64xf32>
    %o_wt = linalg.generic {indexing_maps = [#map2t, #map2], iterator_types = ["parallel", "parallel"]} ins(%wo : tensor<64x64xf32>) outs(%o_et : tensor<64x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<64x64xf32>
    %o_e = tensor.empty() : tensor<8x64xf32>
    %o_acc = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x64xf32>) -> tensor<8x64xf32>
    %o_mm = linalg.matmul ins(%o_rows, %o_wt : tensor<8x64xf32>, tensor<64x64xf32>) outs(%o_acc : tensor<8x64xf32>) -> tensor<8x64xf32>
    %o = tensor.expand_shape %o_mm [[0, 1], [2]] output_shape [1, 8, 64] : tensor<8x64xf32> into tensor<1x8x64xf32>
    %h1 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%hidden, %o : tensor<1x8x64xf32>, tensor<1x8x64xf32>) outs(%e0 : tensor<1x8x64xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %a = arith.addf %in, %in_0 : f32
      linalg.yield %a : f32
    } -> tensor<1x8x64xf32>

    // post_attention_layernorm (RMSNorm).
    %sq2 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h1 : tensor<1x8x64xf32>) outs(%e0 : tensor<1x8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %p = math.powf %in, %two : f32
      linalg.yield %p : f32
    } -> tensor<1x8x64xf32>
    %sum2 = linalg.generic {indexing_maps = [#map3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%sq2 : tensor<1x8x64xf32>) outs(%f1 : tensor<1x8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %a = arith.addf %in, %out : f32
      linalg.yield %a : f32
    } -> tensor<1x8x1xf32>
    %mean2 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sum2 : tensor<1x8x1xf32>) outs(%e1 : tensor<1x8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %d = arith.divf %in, %dim : f32
      linalg.yield %d : f32
    } -> tensor<1x8x1xf32>
    %var2 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mean2 : tensor<1x8x1xf32>) outs(%e1 : tensor<1x8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %a = arith.addf %in, %eps : f32
      linalg.yield %a : f32
    } -> tensor<1x8x1xf32>
    %rstd2 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%var2 : tensor<1x8x1xf32>) outs(%e1 : tensor<1x8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = math.rsqrt %in : f32
      linalg.yield %r : f32
    } -> tensor<1x8x1xf32>
    %normed2 = linalg.generic {indexing_maps = [#map3, #row3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h1, %rstd2 : tensor<1x8x64xf32>, tensor<1x8x1xf32>) outs(%e0 : tensor<1x8x64xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %m = arith.mulf %in, %in_0 : f32
      linalg.yield %m : f32
    } -> tensor<1x8x64xf32>
    %x2 = linalg.generic {indexing_maps = [#last3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ln2, %normed2 : tensor<64xf32>, tensor<1x8x64xf32>) outs(%e0 : tensor<1x8x64xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %m = arith.mulf %in, %in_0 : f32
      linalg.yield %m : f32
    } -> tensor<1x8x64xf32>

    // mlp: down_proj(silu(gate_proj(x)) * up_proj(x)), 64 -> 176 -> 64.
    %gate_rows = tensor.collapse_shape %x2 [[0, 1], [2]] : tensor<1x8x64xf32> into tensor<8x64xf32>
    %gate_et = tensor.empty() : tensor<64x176xf32>
    %gate_wt = linalg.generic {indexing_maps = [#map2t, #map2], iterator_types = ["parallel", "parallel"]} ins(%wg : tensor<176x64xf32>) outs(%gate_et : tensor<64x176xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<64x176xf32>
    %gate_e = tensor.empty() : tensor<8x176xf32>
    %gate_acc = linalg.fill ins(%zero : f32) outs(%gate_e : tensor<8x176xf32>) -> tensor<8x176xf32>
    %gate_mm = linalg.matmul ins(%gate_rows, %gate_wt : tensor<8x64xf32>, tensor<64x176xf32>) outs(%gate_acc : tensor<8x176xf32>) -> tensor<8x176xf32>
    %gate = tensor.expand_shape %gate_mm [[0, 1], [2]] output_shape [1, 8, 176] : tensor<8x176xf32> into tensor<1x8x176xf32>
    // up_proj
    %up_rows = tensor.collapse_shape %x2 [[0, 1], [2]] : tensor<1x8x64xf32> into tensor<8x64xf32>
    %up_et = tensor.empty() : tensor<64x176xf32>
    %up_wt = linalg.generic {indexing_maps = [#map2t, #map2], iterator_types = ["parallel", "parallel"]} ins(%wu : tensor<176x64xf32>) outs(%up_et : tensor<64x176xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<64x176xf32>
    %up_e = tensor.empty() : tensor<8x176xf32>
    %up_acc = linalg.fill ins(%zero : f32) outs(%up_e : tensor<8x176xf32>) -> tensor<8x176xf32>
    %up_mm = linalg.matmul ins(%up_rows, %up_wt : tensor<8x64xf32>, tensor<64x176xf32>) outs(%up_acc : tensor<8x176xf32>) -> tensor<8x176xf32>
    %up = tensor.expand_shape %up_mm [[0, 1], [2]] output_shape [1, 8, 176] : tensor<8x176xf32> into tensor<1x8x176xf32>
    %ef = tensor.empty() : tensor<1x8x176xf32>
    %glu = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%gate, %up : tensor<1x8x176xf32>, tensor<1x8x176xf32>) outs(%ef : tensor<1x8x176xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %n = arith.negf %in : f32
      %e = math.exp %n : f32
      %a = arith.addf %e, %one : f32
      %s = arith.divf %one, %a : f32
      %silu = arith.mulf %in, %s : f32
      %m = arith.mulf %silu, %in_0 : f32
      linalg.yield %m : f32
    } -> tensor<1x8x176xf32>
    // down_proj
    %down_rows = tensor.collapse_shape %glu [[0, 1], [2]] : tensor<1x8x176xf32> into tensor<8x176xf32>
    %down_et = tensor.empty() : tensor<176x64xf32>
    %down_wt = linalg.generic {indexing_maps = [#map2t, #map2], iterator_types = ["parallel", "parallel"]} ins(%wd : tensor<64x176xf32>) outs(%down_et : tensor<176x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<176x64xf32>
    %down_e = tensor.empty() : tensor<8x64xf32>
    %down_acc = linalg.fill ins(%zero : f32) outs(%down_e : tensor<8x64xf32>) -> tensor<8x64xf32>
    %down_mm = linalg.matmul ins(%down_rows, %down_wt : tensor<8x176xf32>, tensor<176x64xf32>) outs(%down_acc : tensor<8x64xf32>) -> tensor<8x64xf32>
    %down = tensor.expand_shape %down_mm [[0, 1], [2]] output_shape [1, 8, 64] : tensor<8x64xf32> into tensor<1x8x64xf32>
    %out = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h1, %down : tensor<1x8x64xf32>, tensor<1x8x64xf32>) outs(%e0 : tensor<1x8x64xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out_0: f32):
      %a = arith.addf %in, %in_0 : f32
      linalg.yield %a : f32
    } -> tensor<1x8x64xf32>
    return %out, %k_cache_1, %v_cache_1 : tensor<1x8x64xf32>, tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>
  }
}

// The front of a GPT-2 (embedding 16, vocabulary 100, 32 positions, a prompt
// of T = 5 tokens, one attention head) as torch-mlir's linalg backend writes
// Hugging Face's GPT2Model: the ids viewed as [-1, 5] (collapse to
// tensor<5xi64>, expand back), the positions an aten.arange generic
// yielding linalg.index as i64, unsqueezed; both looked up (aten.embedding)
// and added; the causal mask a slice of the i1 `bias` buffer, applied with
// a select; the ids also compared with a pad id (an i1 attention mask) and
// concatenated with the positions (a [2, 5] i64 tensor returned). Weights
// elided. Hand-written.
#m1 = affine_map<(d0) -> (d0)>
#ids = affine_map<(d0, d1, d2) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#mask4 = affine_map<(d0, d1, d2, d3) -> (0, 0, d2, d3)>
#x4 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#q = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#k = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#s = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
module attributes {torch.debug_module_name = "GPT2Front"} {
func.func @forward(%arg0: tensor<1x5xi64>) -> (tensor<1x1x5x5xf32>, tensor<1x5xi1>, tensor<2x5xi64>) {
  %c0_i64 = arith.constant 0 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %min = arith.constant -3.40282347E+38 : f32
  %wte = arith.constant dense_resource<__elided__> : tensor<100x16xf32>
  %wpe = arith.constant dense_resource<__elided__> : tensor<32x16xf32>
  %bias = arith.constant dense_resource<__elided__> : tensor<1x1x32x32xi1>
  // input_ids.view(-1, input_shape[-1])
  %collapsed = tensor.collapse_shape %arg0 [[0, 1]] : tensor<1x5xi64> into tensor<5xi64>
  %ids = tensor.expand_shape %collapsed [[0, 1]] output_shape [1, 5] : tensor<5xi64> into tensor<1x5xi64>
  // torch.arange(0, 5).unsqueeze(0)
  %e5 = tensor.empty() : tensor<5xi64>
  %arange = linalg.generic {indexing_maps = [#m1], iterator_types = ["parallel"]} outs(%e5 : tensor<5xi64>) {
  ^bb0(%out: i64):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  } -> tensor<5xi64>
  %pos = tensor.expand_shape %arange [[0, 1]] output_shape [1, 5] : tensor<5xi64> into tensor<1x5xi64>
  // wte(input_ids), wpe(position_ids)
  %e3 = tensor.empty() : tensor<1x5x16xf32>
  %tok = linalg.generic {indexing_maps = [#ids, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ids : tensor<1x5xi64>) outs(%e3 : tensor<1x5x16xf32>) {
  ^bb0(%id: i64, %o: f32):
    %i = arith.index_cast %id : i64 to index
    %j = linalg.index 2 : index
    %v = tensor.extract %wte[%i, %j] : tensor<100x16xf32>
    linalg.yield %v : f32
  } -> tensor<1x5x16xf32>
  %pe = linalg.generic {indexing_maps = [#ids, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%pos : tensor<1x5xi64>) outs(%e3 : tensor<1x5x16xf32>) {
  ^bb0(%id: i64, %o: f32):
    %i = arith.index_cast %id : i64 to index
    %j = linalg.index 2 : index
    %v = tensor.extract %wpe[%i, %j] : tensor<32x16xf32>
    linalg.yield %v : f32
  } -> tensor<1x5x16xf32>
  %h = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%tok, %pe : tensor<1x5x16xf32>, tensor<1x5x16xf32>) outs(%e3 : tensor<1x5x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.addf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x5x16xf32>
  // scores = h @ h^T (one head of 16)
  %es = tensor.empty() : tensor<1x5x5xf32>
  %fs = linalg.fill ins(%cst : f32) outs(%es : tensor<1x5x5xf32>) -> tensor<1x5x5xf32>
  %scores = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%h, %h : tensor<1x5x16xf32>, tensor<1x5x16xf32>) outs(%fs : tensor<1x5x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %v = arith.addf %o, %m : f32
    linalg.yield %v : f32
  } -> tensor<1x5x5xf32>
  %scores4 = tensor.expand_shape %scores [[0, 1], [2], [3]] output_shape [1, 1, 5, 5] : tensor<1x5x5xf32> into tensor<1x1x5x5xf32>
  // causal_mask = self.bias[:, :, 0:5, :5]; torch.where(causal_mask, w, min)
  %causal = tensor.extract_slice %bias[0, 0, 0, 0] [1, 1, 5, 5] [1, 1, 1, 1] : tensor<1x1x32x32xi1> to tensor<1x1x5x5xi1>
  %e4 = tensor.empty() : tensor<1x1x5x5xf32>
  %masked = linalg.generic {indexing_maps = [#mask4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%causal, %scores4 : tensor<1x1x5x5xi1>, tensor<1x1x5x5xf32>) outs(%e4 : tensor<1x1x5x5xf32>) {
  ^bb0(%m: i1, %w: f32, %o: f32):
    %v = arith.select %m, %w, %min : f32
    linalg.yield %v : f32
  } -> tensor<1x1x5x5xf32>
  // attention_mask = input_ids != pad_token_id (0)
  %eb = tensor.empty() : tensor<1x5xi1>
  %am = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<1x5xi64>) outs(%eb : tensor<1x5xi1>) {
  ^bb0(%id: i64, %o: i1):
    %v = arith.cmpi ne, %id, %c0_i64 : i64
    linalg.yield %v : i1
  } -> tensor<1x5xi1>
  // torch.cat([input_ids, position_ids])
  %cat = tensor.concat dim(0) %ids, %pos : (tensor<1x5xi64>, tensor<1x5xi64>) -> tensor<2x5xi64>
  return %masked, %am, %cat : tensor<1x1x5x5xf32>, tensor<1x5xi1>, tensor<2x5xi64>
}
}

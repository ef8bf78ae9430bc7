// torch-mlir's other TMTensor operations, as its TorchToTMTensor conversion
// writes them (hand-written after public torch-mlir output and tests):
// cumsum (aten.cumsum -> tm_tensor.scan, positions from an attention mask),
// index_put into a KV cache (tm_tensor.scatter that overwrites),
// scatter_add (a scatter whose region adds), and an MoE router's sort and
// topk over 8 experts, the topk reading the sort's `%0#0`.
func.func @positions(%mask: tensor<1x512xi64>) -> tensor<1x512xi64> {
  %c0_i64 = arith.constant 0 : i64
  %0 = tensor.empty() : tensor<1x512xi64>
  %1 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<1x512xi64>) -> tensor<1x512xi64>
  %2 = tensor.empty() : tensor<1xi64>
  %3 = linalg.fill ins(%c0_i64 : i64) outs(%2 : tensor<1xi64>) -> tensor<1xi64>
  %4:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%mask : tensor<1x512xi64>) outs(%1, %3 : tensor<1x512xi64>, tensor<1xi64>) {
  ^bb0(%arg1: i64, %arg2: i64):
    %5 = arith.addi %arg1, %arg2 : i64
    tm_tensor.yield %5 : i64
  } -> tensor<1x512xi64>, tensor<1xi64>
  return %4#0 : tensor<1x512xi64>
}
func.func @kv_cache(%cache: tensor<1x32x128x64xf32>, %new: tensor<2048xf32>, %idx: tensor<2048x4xi64>) -> tensor<1x32x128x64xf32> {
  %0 = tm_tensor.scatter {dimension_map = array<i64: 0, 1, 2, 3>} unique_indices(false) ins(%new, %idx : tensor<2048xf32>, tensor<2048x4xi64>) outs(%cache : tensor<1x32x128x64xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    tm_tensor.yield %arg3 : f32
  } -> tensor<1x32x128x64xf32>
  return %0 : tensor<1x32x128x64xf32>
}
func.func @scatter_add(%acc: tensor<4x8xf32>, %upd: tensor<16xf32>, %idx: tensor<16x2xi64>) -> tensor<4x8xf32> {
  %0 = tm_tensor.scatter {dimension_map = array<i64: 0, 1>} unique_indices(false) ins(%upd, %idx : tensor<16xf32>, tensor<16x2xi64>) outs(%acc : tensor<4x8xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    %1 = arith.addf %arg3, %arg4 : f32
    tm_tensor.yield %1 : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
func.func @router(%logits: tensor<4x8xf32>, %ids: tensor<4x8xi64>) -> (tensor<4x2xf32>, tensor<4x2xi64>) {
  %0:2 = tm_tensor.sort dimension(1) outs(%logits, %ids : tensor<4x8xf32>, tensor<4x8xi64>) {
  ^bb0(%arg1: f32, %arg2: f32, %arg3: i64, %arg4: i64):
    %c = arith.cmpf ogt, %arg1, %arg2 : f32
    tm_tensor.yield %c : i1
  } -> tensor<4x8xf32>, tensor<4x8xi64>
  %cst = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<4x2xf32>
  %v = linalg.fill ins(%cst : f32) outs(%e : tensor<4x2xf32>) -> tensor<4x2xf32>
  %ei = tensor.empty() : tensor<4x2xi64>
  %i = linalg.fill ins(%c0 : i64) outs(%ei : tensor<4x2xi64>) -> tensor<4x2xi64>
  %1:2 = tm_tensor.topk dimension(1) ins(%0#0 : tensor<4x8xf32>) outs(%v, %i : tensor<4x2xf32>, tensor<4x2xi64>) {
  ^bb0(%arg1: f32, %arg2: f32):
    %c = arith.cmpf ogt, %arg1, %arg2 : f32
    tm_tensor.yield %c : i1
  } -> tensor<4x2xf32>, tensor<4x2xi64>
  return %1#0, %1#1 : tensor<4x2xf32>, tensor<4x2xi64>
}

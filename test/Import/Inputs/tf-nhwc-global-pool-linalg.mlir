// TF ResNet-50 v1's global average pool as its linalg dump writes it (NHWC):
// a linalg.generic over (n, c, h, w) reading the [N, H, W, C] input through
// a permuted map, summing the two reduction loops, then a division by 49.
#in = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @gap(%x: tensor<1x7x7x2048xf32>) -> tensor<1x2048xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 4.900000e+01 : f32
  %e = tensor.empty() : tensor<1x2048xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2048xf32>) -> tensor<1x2048xf32>
  %s = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x : tensor<1x7x7x2048xf32>) outs(%f : tensor<1x2048xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x2048xf32>
  %m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<1x2048xf32>) outs(%e : tensor<1x2048xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.divf %a, %n : f32
    linalg.yield %r : f32
  } -> tensor<1x2048xf32>
  return %m : tensor<1x2048xf32>
}

// A ReLU6 and a max of two tensors as MLIR before 18 spelled them
// (torch-mlir dumps of 2023): arith.maxf and arith.minf, since renamed
// arith.maximumf and arith.minimumf. A comment naming arith.maxf stays.
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu6(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %six = arith.constant 6.000000e+00 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %lo = arith.maxf %in, %zero : f32
    %hi = arith.minf %lo, %six : f32
    linalg.yield %hi : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

func.func @max_generic(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %z: f32, %out: f32):
    %m = "arith.maxf"(%x, %z) : (f32, f32) -> f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

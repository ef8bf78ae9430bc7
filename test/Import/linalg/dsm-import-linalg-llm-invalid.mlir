// RUN: dsm-opt %s -split-input-file -verify-diagnostics --dsm-import-linalg

// What the LLM layers' front end cannot import is a located error (strict
// mode, the default).

// A gather from a table that is an activation, not a constant: no embedding.
#ids = affine_map<(d0, d1, d2) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @gather_from_activation(%ids: tensor<1x4xi64>, %table: tensor<100x8xf32>) -> tensor<1x4x8xf32> {
  %e = tensor.empty() : tensor<1x4x8xf32>
  // expected-error @+2 {{cannot import 'linalg.generic': a gather from a table that is not a constant (only embedding lookups are supported)}}
  // expected-note @+1 {{mode=permissive}}
  %r = linalg.generic {indexing_maps = [#ids, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ids : tensor<1x4xi64>) outs(%e : tensor<1x4x8xf32>) {
  ^bb0(%id: i64, %o: f32):
    %i = arith.index_cast %id : i64 to index
    %j = linalg.index 2 : index
    %v = tensor.extract %table[%i, %j] : tensor<100x8xf32>
    linalg.yield %v : f32
  } -> tensor<1x4x8xf32>
  return %r : tensor<1x4x8xf32>
}

// -----

// A gather indexing the table by column: not torch-mlir's embedding.
#ids = affine_map<(d0, d1, d2) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @gather_by_column(%ids: tensor<1x4xi64>) -> tensor<1x4x8xf32> {
  %table = arith.constant dense_resource<__elided__> : tensor<8x100xf32>
  %e = tensor.empty() : tensor<1x4x8xf32>
  // expected-error @+2 {{cannot import 'linalg.generic': a gather other than an embedding lookup (ids, then table[index_cast(id), linalg.index])}}
  // expected-note @+1 {{mode=permissive}}
  %r = linalg.generic {indexing_maps = [#ids, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ids : tensor<1x4xi64>) outs(%e : tensor<1x4x8xf32>) {
  ^bb0(%id: i64, %o: f32):
    %i = arith.index_cast %id : i64 to index
    %j = linalg.index 2 : index
    %v = tensor.extract %table[%j, %i] : tensor<8x100xf32>
    linalg.yield %v : f32
  } -> tensor<1x4x8xf32>
  return %r : tensor<1x4x8xf32>
}

// -----

// A decode step reading the KV cache up to a runtime length: the attention's
// work depends on it, and dsm needs static shapes.
#q = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#k = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#s = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
func.func @cache_read_of_dynamic_length(%q: tensor<1x4x1x16xf32>, %cache: tensor<1x4x16x16xf32>, %len: index) -> tensor<1x4x1x?xf32> {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{cannot import a slice of dynamic size along dimension 2 (of 16): dsm needs static shapes; import the graph specialized to one length (a decode step at a given position)}}
  %keys = tensor.extract_slice %cache[0, 0, 0, 0] [1, 4, %len, 16] [1, 1, 1, 1] : tensor<1x4x16x16xf32> to tensor<1x4x?x16xf32>
  %e = tensor.empty(%len) : tensor<1x4x1x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x1x?xf32>) -> tensor<1x4x1x?xf32>
  %r = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %keys : tensor<1x4x1x16xf32>, tensor<1x4x?x16xf32>) outs(%f : tensor<1x4x1x?xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x1x?xf32>
  return %r : tensor<1x4x1x?xf32>
}

// -----

// Scores as a max-plus product (no multiply-accumulate): not a contraction.
#q = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#k = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#s = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
func.func @scores_max_plus(%q: tensor<1x4x1x16xf32>, %k: tensor<1x4x8x16xf32>) -> tensor<1x4x1x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x4x1x8xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x4x1x8xf32>) -> tensor<1x4x1x8xf32>
  // expected-error @+2 {{cannot import 'linalg.generic': neither a convolution, pooling, contraction, elementwise op nor a plain sum/max/min reduction}}
  // expected-note @+1 {{mode=permissive}}
  %r = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x4x1x16xf32>, tensor<1x4x8x16xf32>) outs(%f : tensor<1x4x1x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.addf %a, %b : f32
    %s = arith.maximumf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x1x8xf32>
  return %r : tensor<1x4x1x8xf32>
}

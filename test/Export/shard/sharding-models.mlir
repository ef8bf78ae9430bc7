// RUN: dsm-opt %s -split-input-file -verify-diagnostics --pass-pipeline="builtin.module(func.func(shard-partition))" | FileCheck %s

// Each of dsm-opt's sharding models partitions what a clone can compute
// alone and refuses, at the operation, any other split.

// tensor.extract_slice (BERT's pooler takes the first token): a dimension
// taken whole may be split, and each chip slices its local extent.
shard.grid @grid(shape = 4)
// CHECK-LABEL: func.func @slice_keeps_split_dim
// CHECK-SAME:    (%[[X:.*]]: tensor<2x8x4xf32>) -> tensor<2x1x4xf32>
// CHECK-NEXT:    %[[S:.*]] = tensor.extract_slice %[[X]][0, 0, 0] [2, 1, 4] [1, 1, 1] : tensor<2x8x4xf32> to tensor<2x1x4xf32>
// CHECK-NEXT:    return %[[S]]
func.func @slice_keeps_split_dim(%x: tensor<2x8x16xf32>) -> tensor<2x1x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %0 = shard.shard %x to %s : tensor<2x8x16xf32>
  %1 = shard.shard %0 to %s annotate_for_users : tensor<2x8x16xf32>
  %2 = tensor.extract_slice %1[0, 0, 0] [2, 1, 16] [1, 1, 1] : tensor<2x8x16xf32> to tensor<2x1x16xf32>
  %3 = shard.shard %2 to %s : tensor<2x1x16xf32>
  return %3 : tensor<2x1x16xf32>
}

// -----

// A split of the dimension the slice cuts would need the other chips' rows.
shard.grid @grid(shape = 4)
func.func @slice_of_split_dim(%x: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %0 = shard.shard %x to %s : tensor<2x8x16xf32>
  %1 = shard.shard %0 to %s annotate_for_users : tensor<2x8x16xf32>
  // expected-error @+1 {{cannot be partitioned along dimension 1, which it slices}}
  %2 = tensor.extract_slice %1[0, 4, 0] [2, 4, 16] [1, 1, 1] : tensor<2x8x16xf32> to tensor<2x4x16xf32>
  %3 = shard.shard %2 to %s : tensor<2x4x16xf32>
  return %3 : tensor<2x4x16xf32>
}

// -----

// A rank-reducing slice: its result skips the dropped dimension.
shard.grid @grid(shape = 4)
// CHECK-LABEL: func.func @rank_reducing_slice
// CHECK-SAME:    (%[[X:.*]]: tensor<2x8x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[S:.*]] = tensor.extract_slice %[[X]][0, 0, 0] [2, 1, 4] [1, 1, 1] : tensor<2x8x4xf32> to tensor<2x4xf32>
// CHECK-NEXT:    return %[[S]]
func.func @rank_reducing_slice(%x: tensor<2x8x16xf32>) -> tensor<2x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %r = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %0 = shard.shard %x to %s : tensor<2x8x16xf32>
  %1 = shard.shard %0 to %s annotate_for_users : tensor<2x8x16xf32>
  %2 = tensor.extract_slice %1[0, 0, 0] [2, 1, 16] [1, 1, 1] : tensor<2x8x16xf32> to tensor<2x16xf32>
  %3 = shard.shard %2 to %r : tensor<2x16xf32>
  return %3 : tensor<2x16xf32>
}

// -----

// An embedding gather reads its column index in the body: a split of that
// loop would gather the wrong columns.
shard.grid @grid(shape = 4)
func.func @gather_split_on_its_index(%ids: tensor<1x3xi64>) -> tensor<1x3x8xf32> {
  %table = arith.constant dense<1.0> : tensor<100x8xf32>
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %r = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %0 = shard.shard %ids to %r annotate_for_users : tensor<1x3xi64>
  %e = tensor.empty() : tensor<1x3x8xf32>
  %1 = shard.shard %e to %s annotate_for_users : tensor<1x3x8xf32>
  // expected-error @+1 {{cannot be partitioned along dimension 2, which it reduces or whose index its body reads}}
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%0 : tensor<1x3xi64>) outs(%1 : tensor<1x3x8xf32>) {
  ^bb0(%id: i64, %o: f32):
    %i = arith.index_cast %id : i64 to index
    %j = linalg.index 2 : index
    %v = tensor.extract %table[%i, %j] : tensor<100x8xf32>
    linalg.yield %v : f32
  } -> tensor<1x3x8xf32>
  %3 = shard.shard %2 to %s : tensor<1x3x8xf32>
  return %3 : tensor<1x3x8xf32>
}

// -----

// tensor.pad: a split of a padded dimension would need the neighbours' rows.
shard.grid @grid(shape = 4)
func.func @pad_split_padded(%x: tensor<4x8xf32>) -> tensor<4x10xf32> {
  %zero = arith.constant 0.0 : f32
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %0 = shard.shard %x to %s : tensor<4x8xf32>
  %1 = shard.shard %0 to %s annotate_for_users : tensor<4x8xf32>
  // expected-error @+1 {{cannot be partitioned along padded dimension 1}}
  %2 = tensor.pad %1 low[0, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x8xf32> to tensor<4x10xf32>
  %3 = shard.shard %2 to %s : tensor<4x10xf32>
  return %3 : tensor<4x10xf32>
}

// -----

// collapse_shape: a dimension merged behind the group's leading one cannot
// be split (its shards would interleave).
shard.grid @grid(shape = 4)
func.func @collapse_merged(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %r = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %0 = shard.shard %x to %s : tensor<4x8xf32>
  %1 = shard.shard %0 to %s annotate_for_users : tensor<4x8xf32>
  // expected-error @+1 {{cannot split dimension 1, which is merged behind dimension 0}}
  %2 = tensor.collapse_shape %1 [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %3 = shard.shard %2 to %r : tensor<32xf32>
  return %3 : tensor<32xf32>
}

// -----

// collapse_shape: the collapsed side must be split as the group's leading
// dimension is.
shard.grid @grid(shape = 4)
func.func @collapse_unlike(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %r = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %0 = shard.shard %x to %s : tensor<4x8xf32>
  %1 = shard.shard %0 to %s annotate_for_users : tensor<4x8xf32>
  // expected-error @+1 {{splits dimension 0 of its collapsed side unlike its leading dimension 0}}
  %2 = tensor.collapse_shape %1 [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %3 = shard.shard %2 to %r : tensor<32xf32>
  return %3 : tensor<32xf32>
}

// -----

// expand_shape: the leading dimension of a group must split evenly.
shard.grid @grid(shape = 4)
func.func @expand_uneven(%x: tensor<12xf32>) -> tensor<6x2xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %0 = shard.shard %x to %s : tensor<12xf32>
  %1 = shard.shard %0 to %s annotate_for_users : tensor<12xf32>
  // expected-error @+1 {{cannot split dimension 0 of size 6 evenly in 4 shards}}
  %2 = tensor.expand_shape %1 [[0, 1]] output_shape [6, 2] : tensor<12xf32> into tensor<6x2xf32>
  %3 = shard.shard %2 to %s : tensor<6x2xf32>
  return %3 : tensor<6x2xf32>
}

// -----

// Halos are never produced by a spatial mapping: refused.
shard.grid @grid(shape = 4)
func.func @pad_halo(%x: tensor<8x8xf32>) -> tensor<8x10xf32> {
  %zero = arith.constant 0.0 : f32
  %s = shard.sharding @grid split_axes = [[0]] halo_sizes = [1, 1] : !shard.sharding
  %0 = shard.shard %x to %s : tensor<8x8xf32>
  %1 = shard.shard %0 to %s annotate_for_users : tensor<8x8xf32>
  // expected-error @+1 {{cannot be partitioned with halos or uneven shards}}
  %2 = tensor.pad %1 low[0, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<8x8xf32> to tensor<8x10xf32>
  %3 = shard.shard %2 to %s : tensor<8x10xf32>
  return %3 : tensor<8x10xf32>
}

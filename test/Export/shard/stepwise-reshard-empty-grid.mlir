// RUN: dsm-opt %s -split-input-file -verify-diagnostics --pass-pipeline="builtin.module(func.func(sharding-propagation,dsm-stepwise-reshard,shard-partition))"

// A grid with a dimension of size 0 crashed upstream's shard-partition
// (LLVM 22 divides by it) through the documented export pipeline (issue
// 26); --dsm-stepwise-reshard, which runs just before it, stops it at the
// first operation naming the grid.
// expected-note @+1 {{the grid is declared here}}
shard.grid @chips(shape = 0x4)
func.func @split(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{shard grid @chips has a dimension of size 0 (shape 0x4): nothing can be split over it, and upstream's shard-partition cannot partition for it}}
  %s = shard.sharding @chips split_axes = [[0]] : !shard.sharding
  %a = shard.shard %x to %s : tensor<8x16xf32>
  %r = tosa.abs %a : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// The second axis too.
// expected-note @+1 {{the grid is declared here}}
shard.grid @chips(shape = 4x0)
func.func @replicated(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{shard grid @chips has a dimension of size 0 (shape 4x0)}}
  %s = shard.sharding @chips split_axes = [[]] : !shard.sharding
  %a = shard.shard %x to %s : tensor<8x16xf32>
  return %a : tensor<8x16xf32>
}

// -----

// A grid nothing uses is not partitioned for: left alone.
shard.grid @unused(shape = 0x4)
shard.grid @chips(shape = 2x4)
func.func @fine(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @chips split_axes = [[0]] : !shard.sharding
  %a = shard.shard %x to %s : tensor<8x16xf32>
  return %a : tensor<8x16xf32>
}

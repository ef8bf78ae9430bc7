// RUN: dsm-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(dsm-stepwise-reshard))" | FileCheck %s
// RUN: dsm-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(dsm-stepwise-reshard,shard-partition))" | FileCheck %s --check-prefix=SPMD

// A whole weight split by both axes of a 2x4 grid: one axis at a time.
shard.grid @grid(shape = 2x4)
// CHECK-LABEL: func @replicated_to_two_axes
// SPMD-LABEL: func @replicated_to_two_axes
func.func @replicated_to_two_axes(%w: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // CHECK:      %[[REP:.*]] = shard.sharding @grid split_axes = {{\[\[}}]]
  // CHECK-NEXT: %[[W:.*]] = shard.shard %{{.*}} to %[[REP]]
  // CHECK:      %[[S0:.*]] = shard.sharding @grid split_axes = {{\[\[}}0]]
  // CHECK-NEXT: %[[A0:.*]] = shard.shard %[[W]] to %[[S0]] annotate_for_users
  // CHECK-NEXT: %[[R0:.*]] = shard.shard %[[A0]] to %[[S0]] :
  // CHECK-NEXT: shard.shard %[[R0]] to %{{.*}} annotate_for_users
  // SPMD:      shard.all_slice %{{.*}} on @grid grid_axes = [0] slice_axis = 0 : tensor<16x8xf32> -> tensor<8x8xf32>
  // SPMD-NEXT: shard.all_slice %{{.*}} on @grid grid_axes = [1] slice_axis = 0 : tensor<8x8xf32> -> tensor<2x8xf32>
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %0 = shard.shard %w to %rep : tensor<16x8xf32>
  %both = shard.sharding @grid split_axes = [[0, 1]] : !shard.sharding
  %1 = shard.shard %0 to %both annotate_for_users : tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}

// -----

// Data to model parallelism: the minibatch's two axes gathered, last
// first, then the features split by both.
shard.grid @grid(shape = 2x4)
// SPMD-LABEL: func @data_to_model
func.func @data_to_model(%x: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // SPMD:      shard.all_gather %{{.*}} on @grid grid_axes = [1] gather_axis = 0 : tensor<2x8xf32> -> tensor<8x8xf32>
  // SPMD:      shard.all_gather %{{.*}} on @grid grid_axes = [0] gather_axis = 0 : tensor<8x8xf32> -> tensor<16x8xf32>
  // SPMD:      shard.all_slice %{{.*}} on @grid grid_axes = [0] slice_axis = 1 : tensor<16x8xf32> -> tensor<16x4xf32>
  // SPMD-NEXT: shard.all_slice %{{.*}} on @grid grid_axes = [1] slice_axis = 1 : tensor<16x4xf32> -> tensor<16x1xf32>
  %data = shard.sharding @grid split_axes = [[0, 1]] : !shard.sharding
  %0 = shard.shard %x to %data : tensor<16x8xf32>
  %model = shard.sharding @grid split_axes = [[], [0, 1]] : !shard.sharding
  %1 = shard.shard %0 to %model annotate_for_users : tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}

// -----

// One step already: left as it is.
shard.grid @grid(shape = 2x4)
// CHECK-LABEL: func @one_step
// SPMD-LABEL: func @one_step
func.func @one_step(%x: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // CHECK-COUNT-2: shard.shard %
  // CHECK-NOT: shard.shard %
  // SPMD: shard.all_slice %{{.*}} on @grid grid_axes = [1] slice_axis = 0 : tensor<8x8xf32> -> tensor<2x8xf32>
  %s0 = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %0 = shard.shard %x to %s0 : tensor<16x8xf32>
  %s01 = shard.sharding @grid split_axes = [[0, 1]] : !shard.sharding
  %1 = shard.shard %0 to %s01 annotate_for_users : tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}

// RUN: dsm-opt %s -split-input-file --dsm-set-batch=batch=32 | FileCheck %s
// RUN: not dsm-opt %s --dsm-set-batch=batch=0 -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: batch must be in [1, 2147483647], got 0

// Every value follows the new batch; weights and reshapes written with 0
// ("copy") keep their meaning.
// CHECK-LABEL: func.func @cnn
// CHECK-SAME: (%{{.*}}: tensor<32x3x8x8xf32>) -> tensor<32x4xf32>
// CHECK: dsm.weight "w" : tensor<4x3x3x3xf32>
// CHECK: dsm.conv2d {{.*}} -> tensor<32x4x8x8xf32>
// CHECK: dsm.global_avg_pool {{.*}} -> tensor<32x4x1x1xf32>
// CHECK: dsm.reshape {{.*}} -> tensor<32x4xf32>
// CHECK: return {{.*}} : tensor<32x4xf32>
func.func @cnn(%x: tensor<1x3x8x8xf32>) -> tensor<1x4xf32> {
  %w = dsm.weight "w" : tensor<4x3x3x3xf32>
  %c = dsm.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %g = dsm.global_avg_pool %c : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  %f = dsm.reshape %g {shape = array<i64: 0, -1>} : (tensor<1x4x1x1xf32>) -> tensor<1x4xf32>
  return %f : tensor<1x4xf32>
}

// -----

// A time-major LSTM input names its batch dimension; an argument with
// dsm.batch_dim = -1 has none.
// CHECK-LABEL: func.func @rnn
// CHECK-SAME: tensor<5x32xi64> {dsm.batch_dim = 1 : i64}, %{{.*}}: tensor<7xf32> {dsm.batch_dim = -1 : i64}) -> tensor<5x32x8xf32>
// CHECK: dsm.embedding {{.*}} -> tensor<5x32x16xf32>
// CHECK: dsm.lstm {{.*}} -> tensor<5x32x8xf32>
func.func @rnn(%ids: tensor<5x1xi64> {dsm.batch_dim = 1 : i64}, %unbatched: tensor<7xf32> {dsm.batch_dim = -1 : i64}) -> tensor<5x1x8xf32> {
  %t = dsm.weight "emb" : tensor<10x16xf32>
  %e = dsm.embedding %ids, %t : (tensor<5x1xi64>, tensor<10x16xf32>) -> tensor<5x1x16xf32>
  %w = dsm.weight "w" : tensor<1x32x16xf32>
  %r = dsm.weight "r" : tensor<1x32x8xf32>
  %y = dsm.lstm %e, %w, %r : (tensor<5x1x16xf32>, tensor<1x32x16xf32>, tensor<1x32x8xf32>) -> tensor<5x1x8xf32>
  return %y : tensor<5x1x8xf32>
}

// -----

// An imported elementwise operation known only by its element count follows
// the batch: its result had the broadcast shape of its inputs.
// CHECK-LABEL: func.func @opaque
// CHECK: dsm.opaque "onnx.Cast"(%{{.*}}) : (tensor<32x16xi64>) -> tensor<32x16xf32>
// CHECK: dsm.opaque "onnx.Where"(%{{.*}}, %{{.*}}) : (tensor<32x16xf32>, tensor<1x16xf32>) -> tensor<32x16xf32>
func.func @opaque(%mask: tensor<1x16xi64>, %bias: tensor<1x16xf32> {dsm.batch_dim = -1 : i64}) -> tensor<1x16xf32> {
  %f = dsm.opaque "onnx.Cast"(%mask) : (tensor<1x16xi64>) -> tensor<1x16xf32>
  %w = dsm.opaque "onnx.Where"(%f, %bias) : (tensor<1x16xf32>, tensor<1x16xf32>) -> tensor<1x16xf32>
  return %w : tensor<1x16xf32>
}

// -----

// A time-major LSTM reads its input as [T, N, C]: without a declaration, the
// argument's batch is the dimension the LSTM reads as N, not the sequence.
// CHECK-LABEL: func.func @time_major
// CHECK-SAME: (%{{.*}}: tensor<7x32x16xf32>) -> tensor<7x32x8xf32>
func.func @time_major(%x: tensor<7x3x16xf32>) -> tensor<7x3x8xf32> {
  %w = dsm.weight "w" : tensor<1x32x16xf32>
  %r = dsm.weight "r" : tensor<1x32x8xf32>
  %y = dsm.lstm %x, %w, %r : (tensor<7x3x16xf32>, tensor<1x32x16xf32>, tensor<1x32x8xf32>) -> tensor<7x3x8xf32>
  return %y : tensor<7x3x8xf32>
}

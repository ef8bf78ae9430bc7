// RUN: dsm-opt %s -split-input-file --dsm-expand-training | FileCheck %s
// RUN: dsm-opt %s -split-input-file --dsm-expand-training=mode=infer | FileCheck %s --check-prefix=INFER

// A small residual network: conv1 with its batch norm and ReLU; conv2, whose
// output is added to conv1's and then pooled -- the addition, ReLU, pooling
// and flattening all join conv2's layer -- and a classifier.
//
// CHECK-LABEL: func.func @residual
// CHECK-SAME: (%[[X:.*]]: tensor<4x3x8x8xf32>) -> (tensor<4x10xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8x8x3x3xf32>, tensor<10x8xf32>, tensor<10xf32>)
// CHECK-DAG: %[[W1:.*]] = dsm.weight "conv1.weight"
// CHECK-DAG: %[[G:.*]] = dsm.weight "bn1.weight"
// CHECK-DAG: %[[B:.*]] = dsm.weight "bn1.bias"
// CHECK-DAG: %[[M:.*]] = dsm.weight "bn1.running_mean"
// CHECK-DAG: %[[V:.*]] = dsm.weight "bn1.running_var"
// CHECK-DAG: %[[W2:.*]] = dsm.weight "conv2.weight"
// CHECK-DAG: %[[FW:.*]] = dsm.weight "fc.weight"
// CHECK-DAG: %[[FB:.*]] = dsm.weight "fc.bias"
//
// FWD in program order; the fused ops' work is in the workload: conv1's batch
// norm (2 ops per element) and ReLU, conv2's residual input (aux_inputs); and
// what each keeps for its backward pass: conv1 its batch norm's input and
// its ReLU's output (its own input is the function's), conv2 its ReLU's
// output (its input is conv1's, counted there). As kernels of their own
// (aux_reads, aux_writes) conv1's batch norm reads the convolution's 2048
// elements and writes 2048, its ReLU reads and writes them again; conv2's
// addition reads both of its operands and hands its sum through the ReLU to
// the pooling in registers, which writes the 32 pooled elements.
// CHECK: %[[A1:.*]] = dsm.layer_pass "conv1" <fwd> ins(%[[X]]) weights(%[[W1]], %[[G]], %[[B]], %[[M]], %[[V]]) {workload = #dsm.workload<kind = "conv", in = 3, out = 8, ij = 64, kij = 9, mb = 4, aux_ops = 6144, params = 232, reduces = "batch_norm", saved_outputs = 4096, aux_reads = 4096, aux_writes = 4096>} : {{.*}} -> tensor<4x8x8x8xf32>
// CHECK: %[[A2:.*]] = dsm.layer_pass "conv2" <fwd> ins(%[[A1]]) weights(%[[W2]]) {workload = #dsm.workload<kind = "conv", in = 8, out = 8, ij = 64, kij = 9, mb = 4, ij_out = 1, aux_ops = 6144, aux_inputs = 2048, params = 576, saved_outputs = 2048, aux_reads = 4096, aux_writes = 32>} : {{.*}} -> tensor<4x8xf32>
// CHECK: %[[Y:.*]] = dsm.layer_pass "fc" <fwd> ins(%[[A2]]) weights(%[[FW]], %[[FB]])
//
// Backward in reverse order, UPD before BWD. The loss gradient comes from the
// network output; conv1 reads only the network input, so it has no BWD.
// CHECK: %[[GFC:.*]]:2 = dsm.layer_pass "fc" <upd> ins(%[[A2]], %[[Y]]) weights(%[[FW]], %[[FB]]) {{.*}} -> (tensor<10x8xf32>, tensor<10xf32>)
// CHECK: %[[EFC:.*]] = dsm.layer_pass "fc" <bwd> ins(%[[Y]]) weights(%[[FW]], %[[FB]]) {{.*}} -> tensor<4x8xf32>
// CHECK: %[[G2:.*]] = dsm.layer_pass "conv2" <upd> ins(%[[A1]], %[[EFC]]) weights(%[[W2]])
// CHECK: %[[E2:.*]] = dsm.layer_pass "conv2" <bwd> ins(%[[EFC]]) weights(%[[W2]]) {{.*}} -> tensor<4x8x8x8xf32>
// Batch-norm statistics are read but get no gradient.
// CHECK: %[[G1:.*]]:3 = dsm.layer_pass "conv1" <upd> ins(%[[X]], %[[E2]]) weights(%[[W1]], %[[G]], %[[B]])
// CHECK-NOT: "conv1" <bwd>
// CHECK: return %[[Y]], %[[G1]]#0, %[[G1]]#1, %[[G1]]#2, %[[G2]], %[[GFC]]#0, %[[GFC]]#1

// INFER-LABEL: func.func @residual
// INFER-SAME: -> tensor<4x10xf32>
// INFER-COUNT-3: <fwd>
// INFER-NOT: <bwd>
// INFER-NOT: <upd>
func.func @residual(%x: tensor<4x3x8x8xf32>) -> tensor<4x10xf32> {
  %w1 = dsm.weight "conv1.weight" : tensor<8x3x3x3xf32>
  %c1 = dsm.conv2d %x, %w1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<4x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<4x8x8x8xf32> loc("conv1")
  %g = dsm.weight "bn1.weight" : tensor<8xf32>
  %b = dsm.weight "bn1.bias" : tensor<8xf32>
  %m = dsm.weight "bn1.running_mean" : tensor<8xf32>
  %v = dsm.weight "bn1.running_var" : tensor<8xf32>
  %n = dsm.batch_norm %c1, %g, %b, %m, %v : (tensor<4x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8x8x8xf32> loc("bn1")
  %r1 = dsm.relu %n : tensor<4x8x8x8xf32>
  %w2 = dsm.weight "conv2.weight" : tensor<8x8x3x3xf32>
  %c2 = dsm.conv2d %r1, %w2 {padding = array<i64: 1, 1, 1, 1>} : (tensor<4x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<4x8x8x8xf32> loc("conv2")
  %s = dsm.add %c2, %r1 : (tensor<4x8x8x8xf32>, tensor<4x8x8x8xf32>) -> tensor<4x8x8x8xf32>
  %r2 = dsm.relu %s : tensor<4x8x8x8xf32>
  %p = dsm.global_avg_pool %r2 : (tensor<4x8x8x8xf32>) -> tensor<4x8x1x1xf32> loc("pool")
  %f = dsm.reshape %p {shape = array<i64: 0, -1>} : (tensor<4x8x1x1xf32>) -> tensor<4x8xf32>
  %fw = dsm.weight "fc.weight" : tensor<10x8xf32>
  %fb = dsm.weight "fc.bias" : tensor<10xf32>
  %y = dsm.fully_connected %f, %fw, %fb : (tensor<4x8xf32>, tensor<10x8xf32>, tensor<10xf32>) -> tensor<4x10xf32> loc("fc")
  return %y : tensor<4x10xf32>
}

// -----

// Layer names stay unique when locations repeat. A weight shared by two
// layers is a parameter of each: the second's UPD computes its share of the
// gradient, the first's adds its own to it (after the second's error) and
// returns the one gradient of the weight.
// CHECK-LABEL: func.func @repeated_names
// CHECK-SAME: -> (tensor<2x4xf32>, tensor<4x4xf32>)
// CHECK: %[[W:.*]] = dsm.weight "w"
// CHECK: %[[A:.*]] = dsm.layer_pass "block" <fwd> ins(%{{.*}}) weights(%[[W]]) {workload = {{.*}}params = 16>}
// CHECK: %[[B:.*]] = dsm.layer_pass "block#2" <fwd> ins(%[[A]]) weights(%[[W]]) {workload = {{.*}}params = 16, saved_inputs = 8>}
// CHECK: %[[P:.*]] = dsm.layer_pass "block#2" <upd> ins(%[[A]], %[[B]]) weights(%[[W]]) {{.*}} -> tensor<4x4xf32>
// CHECK: %[[E:.*]] = dsm.layer_pass "block#2" <bwd> ins(%[[B]])
// CHECK: %[[G:.*]] = dsm.layer_pass "block" <upd> ins(%{{.*}}, %[[E]], %[[P]]) weights(%[[W]]) {{.*}} -> tensor<4x4xf32>
// CHECK-NOT: "block" <bwd>
// CHECK: return %[[B]], %[[G]] :
func.func @repeated_names(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %w = dsm.weight "w" : tensor<4x4xf32>
  %a = dsm.fully_connected %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32> loc("block")
  %b = dsm.fully_connected %a, %w : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32> loc("block")
  return %b : tensor<2x4xf32>
}

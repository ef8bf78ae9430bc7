// Where a value changes device the pass inserts one dsm.device_transfer per
// destination device; placing again replaces the old transfers.
// RUN: dsm-opt %s --dsm-place-devices="system=%S/Inputs/limited.yaml placement=expert" | FileCheck %s
// RUN: dsm-opt %s --dsm-place-devices="system=%S/Inputs/limited.yaml placement=expert" --dsm-place-devices="placement=single-device" | FileCheck %s --check-prefix=AGAIN

// Each layer holds 64 MB of weights and a GPU 100 MB: the expert rule puts
// fc1 on gpu0, fc2 and the residual add on gpu1, fc3 on gpu2. fc1's output is
// read by two ops on gpu1 and moves there once.
// CHECK-LABEL: func.func @three_layers
// CHECK: %[[FC1:.*]] = dsm.fully_connected {{.*}}dsm.device = #dsm.device<1>
// CHECK-NEXT: %[[MOVED:.*]] = dsm.device_transfer %[[FC1]] {from = #dsm.device<1>, to = #dsm.device<2>}
// CHECK-NOT: dsm.device_transfer %[[FC1]]
// CHECK: %[[FC2:.*]] = dsm.fully_connected %[[MOVED]], {{.*}}dsm.device = #dsm.device<2>
// CHECK: %[[SUM:.*]] = dsm.add %[[FC2]], %[[MOVED]] {dsm.device = #dsm.device<2>}
// CHECK-NEXT: %[[SENT:.*]] = dsm.device_transfer %[[SUM]] {from = #dsm.device<2>, to = #dsm.device<3>}
// CHECK: dsm.fully_connected %[[SENT]], {{.*}}dsm.device = #dsm.device<3>

// The single-device rule finds no GPU that holds all three layers: all on the
// CPU, no transfer left.
// AGAIN-LABEL: func.func @three_layers
// AGAIN-NOT: dsm.device_transfer
// AGAIN: dsm.fully_connected {{.*}}dsm.device = #dsm.device<0>
// AGAIN-NOT: dsm.device_transfer
func.func @three_layers(%x: tensor<8x4000xf32>) -> tensor<8x4000xf32> {
  %w1 = dsm.weight "w1" : tensor<4000x4000xf32>
  %a = dsm.fully_connected %x, %w1 : (tensor<8x4000xf32>, tensor<4000x4000xf32>) -> tensor<8x4000xf32>
  %w2 = dsm.weight "w2" : tensor<4000x4000xf32>
  %b = dsm.fully_connected %a, %w2 : (tensor<8x4000xf32>, tensor<4000x4000xf32>) -> tensor<8x4000xf32>
  %s = dsm.add %b, %a : (tensor<8x4000xf32>, tensor<8x4000xf32>) -> tensor<8x4000xf32>
  %w3 = dsm.weight "w3" : tensor<4000x4000xf32>
  %c = dsm.fully_connected %s, %w3 : (tensor<8x4000xf32>, tensor<4000x4000xf32>) -> tensor<8x4000xf32>
  return %c : tensor<8x4000xf32>
}

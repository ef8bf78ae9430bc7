// RUN: dsm-opt %s --dsm-attach-system=system=%S/Inputs/tiny-system.yaml --dsm-lower-tiled | FileCheck %s
// The tiled IR verifies and prints back the same.
// RUN: dsm-opt %s --dsm-attach-system=system=%S/Inputs/tiny-system.yaml --dsm-lower-tiled | dsm-opt | FileCheck %s

// Lowering a mapping decided by hand (the decision is --dsm-select-mapping's
// business, tested on its own): fc1 is data parallel, fc2 model parallel.
//
// CHECK-LABEL: func.func @two_layers
// CHECK-SAME: (%[[X:.*]]: tensor<64x256xf32>)
// fc1 reads the network input as it is.
// CHECK: %[[A:.*]] = dsm.tiled_pass "fc1" <fwd> ins(%[[X]]) weights(%[[W1:.*]]) {array = #dsm.array_map<rows = in, columns = out, row_tile = 8, column_tile = 8>, chip_split = #dsm.split<in = 1, out = 1, ij = 1, kij = 1, mb = 4>, core_split = #dsm.split<in = 1, out = 2, ij = 1, kij = 1, mb = 1>, cycles = #dsm.cycles<useful = 1, underuse = 2, ovldt_visible = 3, non_ovldt = 4, aux_comp = 5, total = 15>,
// fc2's input is re-laid out from data to model parallelism (both torus
// directions change role: 16384 elements, 8192 B per chip, two all-to-all
// phases of 512 cycles each, memory-bound), then rotates while fc2 computes.
// CHECK: %[[R:.*]] = dsm.relayout %[[A]] {from = #dsm.parallelism<data>, to = #dsm.parallelism<model>, transfer = #dsm.transfer<memory_bus = 16384, on_chip = 8192, torus_x = 4096, torus_y = 4096, cycles = 1024, bottleneck = "memory_bus">} : tensor<64x256xf32>
// CHECK: %[[ROT:.*]] = dsm.rotate %[[R]] {overlapped, transfer = #dsm.transfer<torus_x = 100, cycles = 10, bottleneck = "torus_x">}
// CHECK: %[[Y:.*]] = dsm.tiled_pass "fc2" <fwd> ins(%[[ROT]]) weights(%[[W2:.*]]) {{.*}}parallelism = #dsm.parallelism<model>
// UPD of fc2 reads the activation as its FWD did (re-laid out); no gradient
// reduction in model parallelism.
// CHECK: %[[ROT2:.*]] = dsm.rotate %[[R]] {overlapped,
// CHECK: %[[G2:.*]] = dsm.tiled_pass "fc2" <upd> ins(%[[ROT2]], %[[Y]]) weights(%[[W2]])
// CHECK-NOT: dsm.grad_reduce %[[G2]]
// BWD of fc2: the partial errors rotate (not overlapped), then go back to
// fc1's layout.
// CHECK: %[[E:.*]] = dsm.tiled_pass "fc2" <bwd> ins(%[[Y]]) weights(%[[W2]])
// CHECK: %[[EROT:.*]] = dsm.rotate %[[E]] {transfer = #dsm.transfer<torus_x = 200, cycles = 20, bottleneck = "torus_x">}
// CHECK: %[[EREL:.*]] = dsm.relayout %[[EROT]] {from = #dsm.parallelism<model>, to = #dsm.parallelism<data>
// UPD of fc1, data parallel: its gradients are reduced and broadcast.
// CHECK: %[[G1:.*]] = dsm.tiled_pass "fc1" <upd> ins(%[[X]], %[[EREL]]) weights(%[[W1]])
// CHECK: %[[RED:.*]] = dsm.grad_reduce %[[G1]] {transfer = #dsm.transfer<torus_x = 500, torus_y = 250, cycles = 60, bottleneck = "torus_x">} : tensor<256x256xf32>
// CHECK: %[[BC:.*]] = dsm.weight_broadcast %[[RED]] {transfer = #dsm.transfer<torus_x = 500, torus_y = 250, cycles = 0, bottleneck = "torus_x">} : tensor<256x256xf32>
// CHECK: return %[[Y]], %[[BC]], %[[G2]]
func.func @two_layers(%x: tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>) {
  %w1 = dsm.weight "w1" : tensor<256x256xf32>
  %w2 = dsm.weight "w2" : tensor<256x256xf32>
  %a = dsm.layer_pass "fc1" <fwd> ins(%x) weights(%w1) {workload = #dsm.workload<kind = "fc", in = 256, out = 256, ij = 1, kij = 1, mb = 64, params = 65536>,
      parallelism = #dsm.parallelism<data>, chip_split = #dsm.split<in = 1, out = 1, ij = 1, kij = 1, mb = 4>, core_split = #dsm.split<in = 1, out = 2, ij = 1, kij = 1, mb = 1>,
      array = #dsm.array_map<rows = in, columns = out, row_tile = 8, column_tile = 8>, cycles = #dsm.cycles<useful = 1, underuse = 2, ovldt_visible = 3, non_ovldt = 4, aux_comp = 5, total = 15>} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
  %y = dsm.layer_pass "fc2" <fwd> ins(%a) weights(%w2) {workload = #dsm.workload<kind = "fc", in = 256, out = 256, ij = 1, kij = 1, mb = 64, params = 65536>,
      parallelism = #dsm.parallelism<model>, chip_split = #dsm.split<in = 1, out = 4, ij = 1, kij = 1, mb = 1>, core_split = #dsm.split<in = 1, out = 1, ij = 1, kij = 1, mb = 2>,
      array = #dsm.array_map<rows = in, columns = out, row_tile = 8, column_tile = 8>, cycles = #dsm.cycles<useful = 1, underuse = 0, ovldt_visible = 0, non_ovldt = 0, aux_comp = 0, total = 1>,
      transfers = {rotate = #dsm.transfer<torus_x = 100, cycles = 10, bottleneck = "torus_x">}} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
  %g2 = dsm.layer_pass "fc2" <upd> ins(%a, %y) weights(%w2) {workload = #dsm.workload<kind = "fc", in = 256, out = 256, ij = 1, kij = 1, mb = 64, params = 65536>,
      parallelism = #dsm.parallelism<model>, chip_split = #dsm.split<in = 1, out = 4, ij = 1, kij = 1, mb = 1>, core_split = #dsm.split<in = 2, out = 1, ij = 1, kij = 1, mb = 1>,
      array = #dsm.array_map<rows = in, columns = out, row_tile = 8, column_tile = 8>, cycles = #dsm.cycles<useful = 1, underuse = 0, ovldt_visible = 0, non_ovldt = 0, aux_comp = 0, total = 1>,
      transfers = {rotate = #dsm.transfer<torus_x = 100, cycles = 10, bottleneck = "torus_x">}} : (tensor<64x256xf32>, tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %e = dsm.layer_pass "fc2" <bwd> ins(%y) weights(%w2) {workload = #dsm.workload<kind = "fc", in = 256, out = 256, ij = 1, kij = 1, mb = 64, params = 65536>,
      parallelism = #dsm.parallelism<model>, chip_split = #dsm.split<in = 1, out = 4, ij = 1, kij = 1, mb = 1>, core_split = #dsm.split<in = 1, out = 1, ij = 1, kij = 1, mb = 2>,
      array = #dsm.array_map<rows = in, columns = out, row_tile = 8, column_tile = 8>, cycles = #dsm.cycles<useful = 1, underuse = 0, ovldt_visible = 0, non_ovldt = 0, aux_comp = 0, total = 1>,
      transfers = {rotate = #dsm.transfer<torus_x = 200, cycles = 20, bottleneck = "torus_x">}} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
  %g1 = dsm.layer_pass "fc1" <upd> ins(%x, %e) weights(%w1) {workload = #dsm.workload<kind = "fc", in = 256, out = 256, ij = 1, kij = 1, mb = 64, params = 65536>,
      parallelism = #dsm.parallelism<data>, chip_split = #dsm.split<in = 1, out = 1, ij = 1, kij = 1, mb = 4>, core_split = #dsm.split<in = 1, out = 2, ij = 1, kij = 1, mb = 1>,
      array = #dsm.array_map<rows = in, columns = out, row_tile = 8, column_tile = 8>, cycles = #dsm.cycles<useful = 1, underuse = 0, ovldt_visible = 0, non_ovldt = 0, aux_comp = 0, total = 1>,
      transfers = {"grad_reduce+weight_broadcast" = #dsm.transfer<torus_x = 1000, torus_y = 500, cycles = 60, bottleneck = "torus_x">}} : (tensor<64x256xf32>, tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %y, %g1, %g2 : tensor<64x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>
}

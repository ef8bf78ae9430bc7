// RUN: dsm-opt %s -split-input-file --dsm-attach-system=system=%S/Inputs/tiny-system.yaml --dsm-select-mapping | FileCheck %s
// RUN: dsm-opt %s -split-input-file --dsm-attach-system=system=%S/Inputs/tiny-system.yaml --dsm-select-mapping=parallelism=model | FileCheck %s --check-prefix=MODEL
// The exhaustive search finds the same optimum here, and threads do not
// change the result.
// RUN: dsm-opt %s -split-input-file --dsm-attach-system=system=%S/Inputs/tiny-system.yaml --dsm-select-mapping="search=exhaustive" | FileCheck %s

// A compute-bound 3x3 convolution (hand-computed in
// unittests/PerformanceModelTest.cpp): 2304 useful cycles plus 16 of startup;
// its memory traffic hides under the computation.
// CHECK-LABEL: func.func @compute_bound
// CHECK: dsm.layer_pass "conv" <fwd>
// CHECK-SAME: alternatives = {data = 2320 : i64, data_x_model_y = 2320 : i64, model = 2320 : i64, model_x_data_y = 2320 : i64}
// CHECK-SAME: chip_split = #dsm.split<in = 1, out = 1, ij = 1, kij = 1, mb = 4>
// CHECK-SAME: cycles = #dsm.cycles<useful = 2304, underuse = 16, ovldt_visible = 0, non_ovldt = 0, aux_comp = 0, total = 2320>
// CHECK-SAME: parallelism = #dsm.parallelism<data>
// CHECK-SAME: transfers = {"fetch_inp+fetch_ker+write_out" = #dsm.transfer<memory_bus = 12800, on_chip = 6400, cycles = 800, bottleneck = "memory_bus">}

// Forcing model parallelism: the output channels are split over the chips
// and the input features rotate (overlapped in FWD).
// MODEL-LABEL: func.func @compute_bound
// MODEL: chip_split = #dsm.split<in = 1, out = 4, ij = 1, kij = 1, mb = 1>
// MODEL-SAME: parallelism = #dsm.parallelism<model>
// MODEL-SAME: rotate = #dsm.transfer<memory_bus = 12288, on_chip = 6144, torus_x = 8192, torus_y = 4096, cycles = 819, bottleneck = "torus_x">
func.func @compute_bound(%x: tensor<8x16x8x8xf32>) -> tensor<8x16x8x8xf32> {
  %w = dsm.weight "w" : tensor<16x16x3x3xf32>
  %y = dsm.layer_pass "conv" <fwd> ins(%x) weights(%w) {workload = #dsm.workload<kind = "conv", in = 16, out = 16, ij = 64, kij = 9, mb = 8, params = 2304>} : (tensor<8x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<8x16x8x8xf32>
  return %y : tensor<8x16x8x8xf32>
}

// -----

// Every pass of a layer is mapped, with the same parallelism; UPD of a
// data-parallel layer reduces the gradients over the chips.
// CHECK-LABEL: func.func @training
// CHECK: "fc1" <fwd> {{.*}}parallelism = #dsm.parallelism<[[P1:[a-z_]+]]>
// CHECK: "fc2" <fwd> {{.*}}parallelism = #dsm.parallelism<[[P2:[a-z_]+]]>
// CHECK: "fc2" <upd> {{.*}}parallelism = #dsm.parallelism<[[P2]]>
// CHECK: "fc2" <bwd> {{.*}}parallelism = #dsm.parallelism<[[P2]]>
// CHECK: "fc1" <upd> {{.*}}parallelism = #dsm.parallelism<[[P1]]>
func.func @training(%x: tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>) {
  %w1 = dsm.weight "w1" : tensor<256x256xf32>
  %w2 = dsm.weight "w2" : tensor<256x256xf32>
  %a = dsm.layer_pass "fc1" <fwd> ins(%x) weights(%w1) {workload = #dsm.workload<kind = "fc", in = 256, out = 256, ij = 1, kij = 1, mb = 64, params = 65536>} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
  %y = dsm.layer_pass "fc2" <fwd> ins(%a) weights(%w2) {workload = #dsm.workload<kind = "fc", in = 256, out = 256, ij = 1, kij = 1, mb = 64, params = 65536>} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
  %g2 = dsm.layer_pass "fc2" <upd> ins(%a, %y) weights(%w2) {workload = #dsm.workload<kind = "fc", in = 256, out = 256, ij = 1, kij = 1, mb = 64, params = 65536>} : (tensor<64x256xf32>, tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %e = dsm.layer_pass "fc2" <bwd> ins(%y) weights(%w2) {workload = #dsm.workload<kind = "fc", in = 256, out = 256, ij = 1, kij = 1, mb = 64, params = 65536>} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
  %g1 = dsm.layer_pass "fc1" <upd> ins(%x, %e) weights(%w1) {workload = #dsm.workload<kind = "fc", in = 256, out = 256, ij = 1, kij = 1, mb = 64, params = 65536>} : (tensor<64x256xf32>, tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %y, %g1, %g2 : tensor<64x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>
}

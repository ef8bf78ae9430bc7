// RUN: dsm-opt %s --dsm-attach-system=system=%S/Inputs/tiny-system.yaml --dsm-expand-training --dsm-select-mapping=explain=true -o /dev/null -mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s
// RUN: dsm-opt %s --dsm-map-system="system=%S/Inputs/tiny-system.yaml explain=true" -o /dev/null -mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s
// RUN: dsm-opt %s --dsm-map-system="system=%S/Inputs/tiny-system.yaml" -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty

// explain=true says, in the compiler's own channel, why each layer got its
// parallelism (against the runner-up and its cost) and what bounds each of
// its passes: one remark per layer pass, at the layer.
// CHECK: remark: loc("fc1"): parallelism [[P1:data|model|data_x_model_y|model_x_data_y]]: [[C1:[0-9]+]] cycles over the layer's passes; runner-up {{[a-z_]+}}: {{[0-9]+}} cycles ({{[-+][0-9.]+}}%{{.*}}); fwd: chip split {{.*}}, core split {{.*}}, {{[0-9]+}} cycles, mostly {{useful|underuse|ovldt_visible|non_ovldt|aux_comp}} ({{[0-9.]+}}%)
// CHECK: remark: loc("fc1"): upd: chip split {{.*}}, core split {{.*}}, {{[0-9]+}} cycles, mostly
// CHECK: remark: loc("fc2"): parallelism
// CHECK-DAG: remark: loc("fc2"): bwd: chip split
// CHECK-DAG: remark: loc("fc2"): upd: chip split
// QUIET-NOT: remark

func.func @two_fc(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %w1 = dsm.weight "w1" : tensor<256x256xf32>
  %a = dsm.fully_connected %x, %w1 : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32> loc("fc1")
  %w2 = dsm.weight "w2" : tensor<256x256xf32>
  %y = dsm.fully_connected %a, %w2 : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32> loc("fc2")
  return %y : tensor<64x256xf32>
}

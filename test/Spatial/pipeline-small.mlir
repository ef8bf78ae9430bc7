// The stages one by one and the --dsm-map-system pipeline give the same IR.
// RUN: dsm-opt %s --dsm-attach-system=system=%S/Inputs/tiny-system.yaml --dsm-expand-training --dsm-select-mapping --dsm-lower-tiled > %t.stages.mlir
// RUN: dsm-opt %s --dsm-map-system="system=%S/Inputs/tiny-system.yaml" > %t.pipeline.mlir
// RUN: diff %t.stages.mlir %t.pipeline.mlir
// The report's JSON holds together.
// RUN: dsm-opt %t.pipeline.mlir --dsm-mapping-report="format=json output=%t.json" -o /dev/null
// RUN: %python %S/Inputs/check_report.py %t.json 1e9 8 | FileCheck %s --check-prefix=CHECKED
// CHECKED: ok: 8 rows
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: dsm-opt %t.pipeline.mlir --dsm-mapping-report -o /dev/null | FileCheck %s --check-prefix=TABLE

// JSON:      "batch": 4,
// JSON:      "layers": [
// JSON:            "arrayD": {
// JSON-NEXT:         "ij":
// JSON-NEXT:         "in":
// JSON-NEXT:         "kij":
// JSON-NEXT:         "mb":
// JSON-NEXT:         "out":
// JSON:            "cycles": {
// JSON-NEXT:         "aux_comp":
// JSON-NEXT:         "non_ovl":
// JSON-NEXT:         "non_ovldt":
// JSON-NEXT:         "ovl":
// JSON-NEXT:         "ovldt_visible":
// JSON-NEXT:         "pri_comp":
// JSON-NEXT:         "total":
// JSON-NEXT:         "underuse":
// JSON-NEXT:         "useful":
// JSON:            "name": "conv1",
// JSON-NEXT:       "parallelism": "{{data|model|data_x_model_y|model_x_data_y}}",
// JSON-NEXT:       "pass": "fwd",
// JSON:      "mode": "train",
// JSON:      "system": "tiny",
// JSON:      "totals": {
// JSON:        "cycles":
// JSON:        "seconds":
// JSON:        "utilization":

// TABLE: system tiny, train, batch 4
// TABLE: conv1 fwd
// TABLE: conv2 fwd
// TABLE: fc fwd
// TABLE: fc upd
// TABLE: fc bwd
// TABLE: conv2 upd
// TABLE: conv2 bwd
// TABLE: conv1 upd
// TABLE: total: {{[0-9]+}} cycles = {{.*}} s per training step, utilization

func.func @residual(%x: tensor<4x3x8x8xf32>) -> tensor<4x10xf32> {
  %w1 = dsm.weight "conv1.weight" : tensor<8x3x3x3xf32>
  %c1 = dsm.conv2d %x, %w1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<4x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<4x8x8x8xf32> loc("conv1")
  %r1 = dsm.relu %c1 : tensor<4x8x8x8xf32>
  %w2 = dsm.weight "conv2.weight" : tensor<8x8x3x3xf32>
  %c2 = dsm.conv2d %r1, %w2 {padding = array<i64: 1, 1, 1, 1>} : (tensor<4x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<4x8x8x8xf32> loc("conv2")
  %s = dsm.add %c2, %r1 : (tensor<4x8x8x8xf32>, tensor<4x8x8x8xf32>) -> tensor<4x8x8x8xf32>
  %p = dsm.global_avg_pool %s : (tensor<4x8x8x8xf32>) -> tensor<4x8x1x1xf32>
  %f = dsm.reshape %p {shape = array<i64: 0, -1>} : (tensor<4x8x1x1xf32>) -> tensor<4x8xf32>
  %fw = dsm.weight "fc.weight" : tensor<10x8xf32>
  %y = dsm.fully_connected %f, %fw : (tensor<4x8xf32>, tensor<10x8xf32>) -> tensor<4x10xf32> loc("fc")
  return %y : tensor<4x10xf32>
}

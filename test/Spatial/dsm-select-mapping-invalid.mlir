// Every layer over every chip (no `blocks`), so that a layer can be impossible.
// RUN: dsm-opt %s -split-input-file --dsm-attach-system=system=%S/Inputs/tiny-system.yaml --dsm-select-mapping=optimizations=hybrid,reuse,preload,dysm,pipeline -verify-diagnostics
// RUN: not dsm-opt %s -split-input-file --dsm-attach-system=system=%S/Inputs/tiny-system.yaml --dsm-select-mapping=parallelism=pipeline 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not dsm-opt %s -split-input-file --dsm-attach-system=system=malvik --dsm-select-mapping 2>&1 | FileCheck %s --check-prefix=KIND
// RUN: not dsm-opt %s -split-input-file --dsm-select-mapping 2>&1 | FileCheck %s --check-prefix=NOSYSTEM
// RUN: not dsm-opt %s -split-input-file --dsm-attach-system=system=%S/Inputs/tiny-scratchpad.yaml --dsm-select-mapping 2>&1 | FileCheck %s --check-prefix=SCRATCHPAD

// UNKNOWN: dsm-opt: error: --dsm-select-mapping: parallelism=pipeline is not one of: any, data, model, data_x_model_y, model_x_data_y
// KIND: error: spatial mapping needs a multi-chip system; 'malvik' is a device_graph
// NOSYSTEM: error: no target system on the module: attach one with --dsm-attach-system="system=<preset|file>"
// SCRATCHPAD: error: cannot map onto the system: layer 'fc' has no legal mapping on this system; data (fwd): its working set of {{[0-9]+}} bytes per core exceeds the scratchpad (16)

// A minibatch of 1 with 2 output features cannot cover 4 chips (on a block of
// them it could: test/Spatial/chip-blocks.test).
func.func @impossible(%x: tensor<1x8xf32>) -> tensor<1x2xf32> {
  %w = dsm.weight "w" : tensor<2x8xf32>
  // expected-error @+1 {{cannot map onto the system: layer 'tiny' has no legal mapping on this system; data (fwd): data parallelism splits 'mb' 4 ways but it has only 1; model (fwd): model parallelism splits 'out' 4 ways but it has only 2}}
  %y = dsm.layer_pass "tiny" <fwd> ins(%x) weights(%w) {workload = #dsm.workload<kind = "fc", in = 8, out = 2, ij = 1, kij = 1, mb = 1, params = 16>} : (tensor<1x8xf32>, tensor<2x8xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

func.func @orphan(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %w = dsm.weight "w" : tensor<8x8xf32>
  // expected-error @+1 {{'dsm.layer_pass' op has no fwd pass of layer 'fc' before it}}
  %e = dsm.layer_pass "fc" <bwd> ins(%x) weights(%w) {workload = #dsm.workload<kind = "fc", in = 8, out = 8, ij = 1, kij = 1, mb = 4, params = 64>} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}

// -----

func.func @fc(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %w = dsm.weight "w" : tensor<8x8xf32>
  %y = dsm.layer_pass "fc" <fwd> ins(%x) weights(%w) {workload = #dsm.workload<kind = "fc", in = 8, out = 8, ij = 1, kij = 1, mb = 4, params = 64>} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// RUN: dsm-opt %s -split-input-file --dsm-place-memory="system=nnp-i placement=egrl-typo" -verify-diagnostics
// RUN: not dsm-opt %s -split-input-file --dsm-place-memory="system=malvik" 2>&1 | FileCheck %s --check-prefix=KIND
// RUN: not dsm-opt %s -split-input-file --dsm-place-memory="system=nnp-i iterations=0" 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not dsm-opt %s -split-input-file --dsm-place-memory="system=nnp-i iterations=1000000000000" 2>&1 | FileCheck %s --check-prefix=MANY
// RUN: not dsm-opt %s -split-input-file --dsm-place-memory="system=%S/Inputs/zero-llc.yaml" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not dsm-opt %s -split-input-file --dsm-place-memory="system=%S/Inputs/tiny-dram.yaml" 2>&1 | FileCheck %s --check-prefix=DRAM

// KIND: error: memory placement needs a memory_hierarchy system; 'malvik' is a device_graph
// BUDGET: error: iterations must be in [1, 100000000], got 0
// MANY: error: iterations must be in [1, 100000000], got 1000000000000
// ZERO: zero-llc.yaml:{{[0-9]+}}:17: error: field 'llc.capacity' must be positive, got '0 B'
// DRAM: dsm-place-memory-invalid.mlir:[[@LINE+6]]:10: error: cannot place memory: the weights of 'fully_connected_0' (2048 bytes) do not fit in DRAM (1024 bytes)

// expected-error @below {{unknown memory placement 'egrl-typo'; expected one of compiler, greedy-dp, ea, egrl, pg, ilp}}
module {
  func.func @f(%arg0: tensor<1x64xf32>) -> tensor<1x32xf32> {
    %w0 = dsm.weight "fc1.weight" : tensor<32x64xf32>
    %0 = dsm.fully_connected %arg0, %w0 : (tensor<1x64xf32>, tensor<32x64xf32>) -> tensor<1x32xf32>
    return %0 : tensor<1x32xf32>
  }
}

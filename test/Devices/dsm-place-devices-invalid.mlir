// RUN: dsm-opt %s -split-input-file --dsm-place-devices="system=malvik placement=random" -verify-diagnostics
// RUN: not dsm-opt %s -split-input-file --dsm-place-devices="system=nnp-i" 2>&1 | FileCheck %s --check-prefix=KIND
// RUN: not dsm-opt %s -split-input-file --dsm-place-devices="system=%S/Inputs/disconnected.yaml" 2>&1 | FileCheck %s --check-prefix=DISCONNECTED
// RUN: not dsm-opt %s -split-input-file --dsm-place-devices="system=%S/Inputs/zero-bandwidth.yaml" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not dsm-opt %s -split-input-file --dsm-place-devices="system=malvik evaluations=0" 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not dsm-opt %s -split-input-file --dsm-place-devices="system=malvik batches=4 simulated-batches=2" 2>&1 | FileCheck %s --check-prefix=BATCHES

// KIND: error: device placement needs a device_graph system; 'nnp-i' is a memory_hierarchy
// DISCONNECTED: error: system 'disconnected' cannot run a placement: device 'gpu1' cannot be reached from device 'cpu': the device graph is disconnected
// ZERO: zero-bandwidth.yaml:8:33: error: field 'links[0].bandwidth' must be positive, got '0 Gbit/s'
// BUDGET: error: evaluations must be at least 1, got 0
// BATCHES: error: simulated-batches must be at least batches (4), got 2

// expected-error @below {{unknown placement search 'random'; expected one of single-device, expert, hc, sa, ga, map-elites}}
module {
  func.func @f(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
    %a = dsm.relu %x : tensor<8x64xf32>
    return %a : tensor<8x64xf32>
  }
}

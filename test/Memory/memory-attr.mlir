// RUN: dsm-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// #dsm.memory round-trips, parameters in either order.
// CHECK-LABEL: func.func @placed
// CHECK-SAME: a = #dsm.memory<weights = dram, activations = sram>
// CHECK-SAME: b = #dsm.memory<weights = llc, activations = llc>
func.func @placed() attributes {
    a = #dsm.memory<activations = sram, weights = dram>,
    b = #dsm.memory<weights = llc, activations = llc>} {
  return
}

// -----

// expected-error @below {{expected ::dsm::MemoryLevel to be one of: dram, llc, sram}}
// expected-error @below {{failed to parse Dsm_MemoryPlacementAttr parameter 'weights'}}
func.func @unknown_level() attributes {m = #dsm.memory<weights = l2, activations = llc>} {
  return
}

// -----

// expected-error @below {{expected ','}}
func.func @missing_activations() attributes {m = #dsm.memory<weights = sram>} {
  return
}

// RUN: dsm-opt %s -split-input-file | FileCheck %s
// RUN: dsm-opt %s -split-input-file | dsm-opt -split-input-file | FileCheck %s

// The mapping vocabulary round-trips.
// CHECK-LABEL: func.func @vocabulary
// CHECK-SAME: dsm.chip_split = #dsm.split<in = 1, out = 4, ij = 8, kij = 1, mb = 2>
// CHECK-SAME: dsm.device = #dsm.device<3>
// CHECK-SAME: dsm.memory = #dsm.memory<weights = sram, activations = llc>
// CHECK-SAME: dsm.parallelism = #dsm.parallelism<data_x_model_y>
// CHECK-SAME: dsm.pass = #dsm.pass<bwd>
func.func @vocabulary() attributes {
    dsm.chip_split = #dsm.split<mb = 2, in = 1, out = 4, ij = 8, kij = 1>,
    dsm.parallelism = #dsm.parallelism<data_x_model_y>,
    dsm.memory = #dsm.memory<activations = llc, weights = sram>,
    dsm.pass = #dsm.pass<bwd>,
    dsm.device = #dsm.device<3>} {
  return
}

// -----

// Every enumerator parses.
// CHECK-LABEL: func.func @enumerators
// CHECK-SAME: m = [#dsm.memory_level<dram>, #dsm.memory_level<llc>, #dsm.memory_level<sram>]
// CHECK-SAME: p = [#dsm.parallelism<data>, #dsm.parallelism<model>, #dsm.parallelism<model_x_data_y>]
// CHECK-SAME: t = [#dsm.pass<fwd>, #dsm.pass<upd>]
func.func @enumerators() attributes {
    p = [#dsm.parallelism<data>, #dsm.parallelism<model>, #dsm.parallelism<model_x_data_y>],
    m = [#dsm.memory_level<dram>, #dsm.memory_level<llc>, #dsm.memory_level<sram>],
    t = [#dsm.pass<fwd>, #dsm.pass<upd>]} {
  return
}

// -----

// A system written by hand in base units verifies.
// CHECK: module attributes {dsm.system = #dsm.system<"two-gpus", {devices = [{id = 0 : i64, memory = 16000000000 : i64, name = "a", peak = 1.000000e+13 : f64, type = "gpu"}
module attributes {dsm.system = #dsm.system<"two-gpus", {kind = "device_graph",
    devices = [{id = 0, name = "a", type = "gpu", peak = 1.0e13, memory = 16000000000},
               {id = 1, name = "b", type = "gpu", peak = 1.0e13, memory = 16000000000}],
    links = [{from = 0, to = 1, bandwidth = 25000000000, efficiency = 0.5}]}>} {
}

// -----

// CHECK-LABEL: func.func @memory_decisions
// CHECK-SAME: a = #dsm.memory_decision<input_reuse = true, dysm = 4>
// CHECK-SAME: b = #dsm.memory_decision<preload = 65536>
// Keys in any order print in the records' order; false flags and defaults
// do not print.
// CHECK-SAME: c = #dsm.memory_decision<weight_reuse = true, error_reuse = true, shortcut_reuse = true, shortcut_per_spatial_minibatch = true, dysm = 2, pipe_group = 0, pipe_first_row = 4, pipe_rows = 4, microbatches = 8, gpipe = true, sharded_state = true, sharded_weights = true, offloaded_state = true, recompute = true>
// CHECK-SAME: d = #dsm.memory_decision<sharded_optimizer = true>
func.func @memory_decisions() attributes {a = #dsm.memory_decision<input_reuse = true, dysm = 4>, b = #dsm.memory_decision<preload = 65536>, c = #dsm.memory_decision<recompute = true, offloaded_state = true, sharded_weights = true, sharded_state = true, gpipe = true, microbatches = 8, pipe_rows = 4, pipe_first_row = 4, pipe_group = 0, dysm = 2, shortcut_per_spatial_minibatch = true, shortcut_reuse = true, output_reuse = false, error_reuse = true, weight_reuse = true>, d = #dsm.memory_decision<sharded_optimizer = true>} {
  return
}

// -----

// CHECK-LABEL: func.func @chip_blocks
// CHECK-SAME: a = #dsm.chip_block<rows = 2, columns = 4>
func.func @chip_blocks() attributes {a = #dsm.chip_block<rows = 2, columns = 4>} {
  return
}

// RUN: dsm-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{split factor 'ij' must be at least 1, got 0}}
func.func @zero_split() attributes {s = #dsm.split<in = 1, out = 1, ij = 0, kij = 1, mb = 1>} {
  return
}

// -----

// expected-error @+1 {{expected ','}}
func.func @missing_split_dim() attributes {s = #dsm.split<in = 1, out = 1, ij = 1, kij = 1>} {
  return
}

// -----

// expected-error @+1 {{device id must not be negative, got -1}}
func.func @negative_device() attributes {d = #dsm.device<-1>} {
  return
}

// -----

// expected-error @+2 {{expected ::dsm::Parallelism to be one of: data, model, data_x_model_y, model_x_data_y}}
// expected-error @+1 {{failed to parse Dsm_ParallelismAttr parameter 'value'}}
func.func @bad_parallelism() attributes {p = #dsm.parallelism<pipeline>} {
  return
}

// -----

// The system attribute is validated by the same reader as system files.
// expected-error @+1 {{invalid #dsm.system 'bad': field 'links[0].bandwidth' must be positive, got '0';}}
module attributes {dsm.system = #dsm.system<"bad", {kind = "device_graph",
    devices = [{id = 0, name = "a", type = "gpu", peak = 1.0e13, memory = 16000000000},
               {id = 1, name = "b", type = "gpu", peak = 1.0e13, memory = 16000000000}],
    links = [{from = 0, to = 1, bandwidth = 0}]}>} {
}

// -----

// expected-error @+1 {{invalid #dsm.system 'x': missing field 'kind';}}
module attributes {dsm.system = #dsm.system<"x", {}>} {
}

// -----

// expected-error @+1 {{a chip block has at least one row and one column, got 0 x 4}}
func.func @empty_block() attributes {m = #dsm.chip_block<rows = 0, columns = 4>} {
  return
}

// -----

// The keys are the decision records' fields (DecisionRecords.h).
// expected-error @+1 {{unknown memory decision 'input_on_chip'; expected one of: weight_reuse, input_reuse}}
func.func @unknown_decision() attributes {m = #dsm.memory_decision<input_on_chip = true>} {
  return
}

// -----

// expected-error @+1 {{memory decision 'dysm' given twice}}
func.func @decision_twice() attributes {m = #dsm.memory_decision<dysm = 2, dysm = 4>} {
  return
}

// -----

// expected-error @+1 {{expected true or false for 'recompute'}}
func.func @flag_as_count() attributes {m = #dsm.memory_decision<recompute = 1>} {
  return
}

// -----

// expected-error @+1 {{dysm factor must be at least 1, got 0}}
func.func @zero_dysm() attributes {m = #dsm.memory_decision<dysm = 0>} {
  return
}

// -----

// expected-error @+1 {{shortcut_per_spatial_minibatch without shortcut_reuse}}
func.func @spatial_shortcut_not_kept() attributes {m = #dsm.memory_decision<dysm = 4, shortcut_per_spatial_minibatch = true>} {
  return
}

// -----

// expected-error @+1 {{offloaded_state without sharded_state}}
func.func @offload_unsharded() attributes {m = #dsm.memory_decision<offloaded_state = true>} {
  return
}

// -----

// expected-error @+1 {{sharded_optimizer with sharded_state (which shards the optimizer state already)}}
func.func @optimizer_sharded_twice() attributes {m = #dsm.memory_decision<sharded_state = true, sharded_optimizer = true>} {
  return
}

// -----

// expected-error @+1 {{sharded_weights without sharded_state}}
func.func @weights_unsharded_state() attributes {m = #dsm.memory_decision<sharded_weights = true>} {
  return
}

// -----

// expected-error @+1 {{preloaded weight bytes must not be negative, got -1}}
func.func @negative_preload() attributes {m = #dsm.memory_decision<preload = -1>} {
  return
}

// -----

// expected-error @+1 {{a pipe stage has a pipe group and at least one row, got pipe_group = 0 and pipe_rows = 0}}
func.func @pipe_group_without_rows() attributes {m = #dsm.memory_decision<pipe_group = 0>} {
  return
}

// -----

// expected-error @+1 {{pipe_first_row without a pipe group}}
func.func @pipe_row_without_group() attributes {m = #dsm.memory_decision<pipe_first_row = 2>} {
  return
}

// -----

// expected-error @+1 {{pipe group, first row and rows must not be negative (pipe_group = -1: not pipelined)}}
func.func @negative_pipe_rows() attributes {m = #dsm.memory_decision<pipe_group = 0, pipe_rows = -2>} {
  return
}

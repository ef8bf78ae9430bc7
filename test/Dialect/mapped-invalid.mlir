// RUN: dsm-opt %s -split-input-file -verify-diagnostics

// What the verifiers of mapped ops and the mapping attributes check alone,
// without a system (test/Spatial/dsm-verify-mapping-*.mlir: the rest).

#tiny = #dsm.system<"tiny", {kind = "multi_chip",
  system = {chips = 4, topology = "torus_2d", torus = {x = 2, y = 2}, link_bandwidth = {x = 10000000000, y = 8000000000}},
  chip = {cores = 2, interconnect = "ring", core_to_core_bandwidth = 64000000000, external_memory = {capacity = 1000000000, bandwidth = 32000000000, efficiency = 0.5}},
  core = {macs = 64, pe_array = {rows = 8, columns = 8}, scratchpad = {capacity = 65536, bandwidth = 64000000000}, sfu_ops_per_cycle = 4, frequency = 1000000000, precision = "fp16"}}>
#fc = #dsm.workload<kind = "fc", in = 256, out = 256, ij = 1, kij = 1, mb = 64, params = 65536>
#array = #dsm.array_map<rows = in, columns = out, row_tile = 8, column_tile = 8>
#cycles = #dsm.cycles<useful = 1, underuse = 0, ovldt_visible = 0, non_ovldt = 0, aux_comp = 0, total = 1>


module attributes {dsm.system = #tiny} {
  func.func @split_exceeds_dimension(%x: tensor<2x256xf32>, %w: tensor<256x256xf32>) {
    // expected-error @+1 {{'dsm.tiled_pass' op splits dimension mb of size 2 over 4 chips}}
    %y = dsm.tiled_pass "fc" <fwd> ins(%x) weights(%w) {workload = #dsm.workload<kind = "fc", in = 256, out = 256, ij = 1, kij = 1, mb = 2, params = 65536>,
        parallelism = #dsm.parallelism<data>,
        chip_split = #dsm.split<in = 1, out = 1, ij = 1, kij = 1, mb = 4>, core_split = #dsm.split<in = 1, out = 2, ij = 1, kij = 1, mb = 1>,
        array = #array, cycles = #cycles} : (tensor<2x256xf32>, tensor<256x256xf32>) -> tensor<2x256xf32>
    return
  }
}

// -----
#tiny = #dsm.system<"tiny", {kind = "multi_chip",
  system = {chips = 4, topology = "torus_2d", torus = {x = 2, y = 2}, link_bandwidth = {x = 10000000000, y = 8000000000}},
  chip = {cores = 2, interconnect = "ring", core_to_core_bandwidth = 64000000000, external_memory = {capacity = 1000000000, bandwidth = 32000000000, efficiency = 0.5}},
  core = {macs = 64, pe_array = {rows = 8, columns = 8}, scratchpad = {capacity = 65536, bandwidth = 64000000000}, sfu_ops_per_cycle = 4, frequency = 1000000000, precision = "fp16"}}>
#fc = #dsm.workload<kind = "fc", in = 256, out = 256, ij = 1, kij = 1, mb = 64, params = 65536>
#array = #dsm.array_map<rows = in, columns = out, row_tile = 8, column_tile = 8>
#cycles = #dsm.cycles<useful = 1, underuse = 0, ovldt_visible = 0, non_ovldt = 0, aux_comp = 0, total = 1>


func.func @upd_results(%x: tensor<64x256xf32>, %e: tensor<64x256xf32>, %w: tensor<256x256xf32>) {
  // expected-error @+1 {{'dsm.layer_pass' op an upd pass returns one gradient of each weight's type}}
  %g = dsm.layer_pass "fc" <upd> ins(%x, %e) weights(%w) {workload = #fc} : (tensor<64x256xf32>, tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
  return
}

// -----
#tiny = #dsm.system<"tiny", {kind = "multi_chip",
  system = {chips = 4, topology = "torus_2d", torus = {x = 2, y = 2}, link_bandwidth = {x = 10000000000, y = 8000000000}},
  chip = {cores = 2, interconnect = "ring", core_to_core_bandwidth = 64000000000, external_memory = {capacity = 1000000000, bandwidth = 32000000000, efficiency = 0.5}},
  core = {macs = 64, pe_array = {rows = 8, columns = 8}, scratchpad = {capacity = 65536, bandwidth = 64000000000}, sfu_ops_per_cycle = 4, frequency = 1000000000, precision = "fp16"}}>
#fc = #dsm.workload<kind = "fc", in = 256, out = 256, ij = 1, kij = 1, mb = 64, params = 65536>
#array = #dsm.array_map<rows = in, columns = out, row_tile = 8, column_tile = 8>
#cycles = #dsm.cycles<useful = 1, underuse = 0, ovldt_visible = 0, non_ovldt = 0, aux_comp = 0, total = 1>


func.func @fwd_results(%x: tensor<64x256xf32>) {
  // expected-error @+1 {{'dsm.layer_pass' op a fwd pass produces at least one activation}}
  dsm.layer_pass "fc" <fwd> ins(%x) {workload = #fc} : (tensor<64x256xf32>) -> ()
  return
}

// -----

// expected-error @+1 {{unknown workload kind 'convolution'}}
func.func @bad_kind() attributes {w = #dsm.workload<kind = "convolution", in = 1, out = 1, ij = 1, kij = 1, mb = 1>} {
  return
}

// -----

// expected-error @+1 {{workload 'mb' must be at least 1, got 0}}
func.func @zero_batch() attributes {w = #dsm.workload<kind = "fc", in = 1, out = 1, ij = 1, kij = 1, mb = 0>} {
  return
}

// -----

// expected-error @+1 {{workload groups (3) must divide 'in' and 'out'}}
func.func @bad_groups() attributes {w = #dsm.workload<kind = "conv", in = 4, out = 6, ij = 1, kij = 9, mb = 1, groups = 3>} {
  return
}

// -----

// expected-error @+1 {{workload 'reduces' must be "", "batch_norm", "softmax" or "batch_norm+softmax", got "layer_norm"}}
func.func @bad_reduction() attributes {w = #dsm.workload<kind = "fc", in = 1, out = 1, ij = 1, kij = 1, mb = 1, reduces = "layer_norm">} {
  return
}

// -----

// What a layer keeps for its backward pass is a count of elements.
// expected-error @+1 {{workload 'saved_attention_masks' must not be negative, got -4}}
func.func @negative_saved() attributes {w = #dsm.workload<kind = "matmul", in = 1, out = 1, ij = 1, kij = 1, mb = 1, saved_inputs = 1, saved_attention_masks = -4>} {
  return
}

// -----

// expected-error @+1 {{the PE array's rows and columns must take different dimensions, both are 'ij'}}
func.func @bad_array() attributes {a = #dsm.array_map<rows = ij, columns = ij, row_tile = 1, column_tile = 1>} {
  return
}

// -----

func.func @partial_mapping(%x: tensor<64x256xf32>, %w: tensor<256x256xf32>) {
  // expected-error @+1 {{'dsm.layer_pass' op has a partial mapping: parallelism, chip_split, core_split, array and cycles go together (transfers and alternatives may follow)}}
  %y = dsm.layer_pass "fc" <fwd> ins(%x) weights(%w) {workload = #dsm.workload<kind = "fc", in = 256, out = 256, ij = 1, kij = 1, mb = 64, params = 65536>,
      parallelism = #dsm.parallelism<data>} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
  return
}

// -----

// expected-error @+1 {{cycle categories add up to 3, not the total 4}}
func.func @cycles_do_not_add_up() attributes {c = #dsm.cycles<useful = 1, underuse = 1, ovldt_visible = 1, non_ovldt = 0, aux_comp = 0, total = 4>} {
  return
}

// -----

// expected-error @+1 {{cycle categories add up to 5, not the total 4}}
func.func @cycles_exceed_the_total() attributes {c = #dsm.cycles<useful = 2, underuse = 1, ovldt_visible = 1, non_ovldt = 1, aux_comp = 0, total = 4>} {
  return
}

// -----

func.func @bad_alternatives(%x: tensor<64x256xf32>, %w: tensor<256x256xf32>) {
  // expected-error @+1 {{'dsm.layer_pass' op attribute 'alternatives' failed to satisfy constraint: dictionary of i64 cycles by parallelism name}}
  %y = dsm.layer_pass "fc" <fwd> ins(%x) weights(%w) {workload = #dsm.workload<kind = "fc", in = 256, out = 256, ij = 1, kij = 1, mb = 64, params = 65536>,
      parallelism = #dsm.parallelism<data>, chip_split = #dsm.split<in = 1, out = 1, ij = 1, kij = 1, mb = 4>, core_split = #dsm.split<in = 1, out = 2, ij = 1, kij = 1, mb = 1>,
      array = #dsm.array_map<rows = in, columns = out, row_tile = 8, column_tile = 8>,
      cycles = #dsm.cycles<useful = 1, underuse = 0, ovldt_visible = 0, non_ovldt = 0, aux_comp = 0, total = 1>,
      alternatives = {pipeline = 5 : i64}} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
  return
}

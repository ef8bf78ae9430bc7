// RUN: dsm-opt %s -split-input-file --dsm-verify-mapping -verify-diagnostics

// A tiled op verifies alone; --dsm-verify-mapping checks its mapping against
// the module's system with the performance model that chose it.

#tiny = #dsm.system<"tiny", {kind = "multi_chip",
  system = {chips = 4, topology = "torus_2d", torus = {x = 2, y = 2}, link_bandwidth = {x = 10000000000, y = 8000000000}},
  chip = {cores = 2, interconnect = "ring", core_to_core_bandwidth = 64000000000, external_memory = {capacity = 1000000000, bandwidth = 32000000000, efficiency = 0.5}},
  core = {macs = 64, pe_array = {rows = 8, columns = 8}, scratchpad = {capacity = 65536, bandwidth = 64000000000}, sfu_ops_per_cycle = 4, frequency = 1000000000, precision = "fp16"}}>
#fc = #dsm.workload<kind = "fc", in = 256, out = 256, ij = 1, kij = 1, mb = 64, params = 65536>
#array = #dsm.array_map<rows = in, columns = out, row_tile = 8, column_tile = 8>
#cycles = #dsm.cycles<useful = 1, underuse = 0, ovldt_visible = 0, non_ovldt = 0, aux_comp = 0, total = 1>

module attributes {dsm.system = #tiny} {
  func.func @chip_product(%x: tensor<64x256xf32>, %w: tensor<256x256xf32>) {
    // expected-error @+1 {{'dsm.tiled_pass' op has an illegal mapping: the chip split's product 8 is not the chip count 4}}
    %y = dsm.tiled_pass "fc" <fwd> ins(%x) weights(%w) {workload = #fc, parallelism = #dsm.parallelism<data>,
        chip_split = #dsm.split<in = 1, out = 1, ij = 1, kij = 1, mb = 8>, core_split = #dsm.split<in = 1, out = 2, ij = 1, kij = 1, mb = 1>,
        array = #array, cycles = #cycles} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
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


module attributes {dsm.system = #tiny} {
  func.func @core_product(%x: tensor<64x256xf32>, %w: tensor<256x256xf32>) {
    // expected-error @+1 {{'dsm.tiled_pass' op has an illegal mapping: the core split's product 4 is not the core count 2}}
    %y = dsm.tiled_pass "fc" <fwd> ins(%x) weights(%w) {workload = #fc, parallelism = #dsm.parallelism<data>,
        chip_split = #dsm.split<in = 1, out = 1, ij = 1, kij = 1, mb = 4>, core_split = #dsm.split<in = 1, out = 4, ij = 1, kij = 1, mb = 1>,
        array = #array, cycles = #cycles} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
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


module attributes {dsm.system = #tiny} {
  func.func @wrong_parallelism(%x: tensor<64x256xf32>, %w: tensor<256x256xf32>) {
    // expected-error @+1 {{'dsm.tiled_pass' op has an illegal mapping: the chip split is not the one of model parallelism on a 2x2 torus}}
    %y = dsm.tiled_pass "fc" <fwd> ins(%x) weights(%w) {workload = #fc, parallelism = #dsm.parallelism<model>,
        chip_split = #dsm.split<in = 1, out = 1, ij = 1, kij = 1, mb = 4>, core_split = #dsm.split<in = 1, out = 2, ij = 1, kij = 1, mb = 1>,
        array = #array, cycles = #cycles} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
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


module attributes {dsm.system = #tiny} {
  func.func @tile_too_large(%x: tensor<64x256xf32>, %w: tensor<256x256xf32>) {
    // expected-error @+1 {{'dsm.tiled_pass' op has an illegal mapping: row tile 16 exceeds the array (8) or its work (256)}}
    %y = dsm.tiled_pass "fc" <fwd> ins(%x) weights(%w) {workload = #fc, parallelism = #dsm.parallelism<data>,
        chip_split = #dsm.split<in = 1, out = 1, ij = 1, kij = 1, mb = 4>, core_split = #dsm.split<in = 1, out = 2, ij = 1, kij = 1, mb = 1>,
        array = #dsm.array_map<rows = in, columns = out, row_tile = 16, column_tile = 8>, cycles = #cycles} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
    return
  }
}

// -----
#tiny = #dsm.system<"tiny", {kind = "multi_chip",
  system = {chips = 4, topology = "torus_2d", torus = {x = 2, y = 2}, link_bandwidth = {x = 10000000000, y = 8000000000}},
  chip = {cores = 2, interconnect = "ring", core_to_core_bandwidth = 64000000000, external_memory = {capacity = 1000000000, bandwidth = 32000000000, efficiency = 0.5}},
  core = {macs = 64, pe_array = {rows = 8, columns = 8}, scratchpad = {capacity = 65536, bandwidth = 64000000000}, sfu_ops_per_cycle = 4, frequency = 1000000000, precision = "fp16"}}>

// A legal mapping that claims other cycles than the model's.
module attributes {dsm.system = #tiny} {
  func.func @wrong_cycles(%x: tensor<64x256xf32>, %w: tensor<256x256xf32>) {
    // expected-error @+1 {{'dsm.tiled_pass' op records #dsm.cycles<useful = 1, underuse = 0, ovldt_visible = 0, non_ovldt = 0, aux_comp = 0, total = 1> but the performance model gives #dsm.cycles<}}
    %y = dsm.tiled_pass "fc" <fwd> ins(%x) weights(%w) {workload = #dsm.workload<kind = "fc", in = 256, out = 256, ij = 1, kij = 1, mb = 64, params = 65536>,
        parallelism = #dsm.parallelism<data>,
        chip_split = #dsm.split<in = 1, out = 1, ij = 1, kij = 1, mb = 4>, core_split = #dsm.split<in = 1, out = 2, ij = 1, kij = 1, mb = 1>,
        array = #dsm.array_map<rows = in, columns = out, row_tile = 8, column_tile = 8>,
        cycles = #dsm.cycles<useful = 1, underuse = 0, ovldt_visible = 0, non_ovldt = 0, aux_comp = 0, total = 1>} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
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

// A pipe stage (timestep pipelining) runs on its block of torus rows: here one row of the 2x2 torus, 2 chips.
module attributes {dsm.system = #tiny} {
  func.func @stage_chips(%x: tensor<64x256xf32>, %w: tensor<256x256xf32>) {
    // expected-error @+1 {{'dsm.tiled_pass' op has an illegal mapping: the chip split's product 4 is not the chip count 2}}
    %fc = dsm.tiled_pass "fc" <fwd> ins(%x) weights(%w) {workload = #fc, parallelism = #dsm.parallelism<data>,
        chip_split = #dsm.split<in = 1, out = 1, ij = 1, kij = 1, mb = 4>, core_split = #dsm.split<in = 1, out = 2, ij = 1, kij = 1, mb = 1>,
        array = #array, cycles = #dsm.cycles<useful = 8192, underuse = 8, ovldt_visible = 0, non_ovldt = 0, aux_comp = 0, total = 8200>,
        memory = #dsm.memory_decision<pipe_group = 0, pipe_rows = 1>} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
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

// A stage must leave rows to the other stages.
module attributes {dsm.system = #tiny} {
  func.func @stage_rows(%x: tensor<64x256xf32>, %w: tensor<256x256xf32>) {
    // expected-error @+1 {{'dsm.tiled_pass' op is a pipe stage on torus rows 0-1, but a stage leaves rows to the others of a torus of 2 rows}}
    %fc = dsm.tiled_pass "fc" <fwd> ins(%x) weights(%w) {workload = #fc, parallelism = #dsm.parallelism<data>,
        chip_split = #dsm.split<in = 1, out = 1, ij = 1, kij = 1, mb = 4>, core_split = #dsm.split<in = 1, out = 2, ij = 1, kij = 1, mb = 1>,
        array = #array, cycles = #dsm.cycles<useful = 8192, underuse = 8, ovldt_visible = 0, non_ovldt = 0, aux_comp = 0, total = 8200>,
        memory = #dsm.memory_decision<pipe_group = 0, pipe_rows = 2>} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
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

// A stage records at least its own work, scaled to the system (1 of 2 rows).
module attributes {dsm.system = #tiny} {
  func.func @stage_cycles(%x: tensor<64x256xf32>, %w: tensor<256x256xf32>) {
    // expected-error @+1 {{'dsm.tiled_pass' op records #dsm.cycles<useful = 1, underuse = 0, ovldt_visible = 0, non_ovldt = 0, aux_comp = 0, total = 1> as a pipe stage, but the performance model gives 8192 useful cycles and 8200 busy cycles as its share of the system}}
    %fc = dsm.tiled_pass "fc" <fwd> ins(%x) weights(%w) {workload = #fc, parallelism = #dsm.parallelism<data>,
        chip_split = #dsm.split<in = 1, out = 1, ij = 1, kij = 1, mb = 2>, core_split = #dsm.split<in = 1, out = 2, ij = 1, kij = 1, mb = 1>,
        array = #array, cycles = #dsm.cycles<useful = 1, underuse = 0, ovldt_visible = 0, non_ovldt = 0, aux_comp = 0, total = 1>,
        memory = #dsm.memory_decision<pipe_group = 0, pipe_rows = 1>} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
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

// Two stages of one group run at once: they cannot share a row.
module attributes {dsm.system = #tiny} {
  func.func @stage_overlap(%x: tensor<64x256xf32>, %w: tensor<256x256xf32>) {
    %fc_a = dsm.tiled_pass "fc-a" <fwd> ins(%x) weights(%w) {workload = #fc, parallelism = #dsm.parallelism<data>,
        chip_split = #dsm.split<in = 1, out = 1, ij = 1, kij = 1, mb = 2>, core_split = #dsm.split<in = 1, out = 2, ij = 1, kij = 1, mb = 1>,
        array = #array, cycles = #dsm.cycles<useful = 8192, underuse = 8, ovldt_visible = 0, non_ovldt = 0, aux_comp = 0, total = 8200>,
        memory = #dsm.memory_decision<pipe_group = 0, pipe_rows = 1>} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
    // expected-error @+1 {{'dsm.tiled_pass' op shares torus rows with 'fc-a', another stage of pipe group 0}}
    %fc_b = dsm.tiled_pass "fc-b" <fwd> ins(%x) weights(%w) {workload = #fc, parallelism = #dsm.parallelism<data>,
        chip_split = #dsm.split<in = 1, out = 1, ij = 1, kij = 1, mb = 2>, core_split = #dsm.split<in = 1, out = 2, ij = 1, kij = 1, mb = 1>,
        array = #array, cycles = #dsm.cycles<useful = 8192, underuse = 8, ovldt_visible = 0, non_ovldt = 0, aux_comp = 0, total = 8200>,
        memory = #dsm.memory_decision<pipe_group = 0, pipe_rows = 1>} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
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

// A plan on part of the torus runs on a block whose sides divide the torus's.
module attributes {dsm.system = #tiny} {
  func.func @block_sides(%x: tensor<64x256xf32>, %w: tensor<256x256xf32>) {
    // expected-error @+1 {{'dsm.tiled_pass' op runs on a block of 3 x 1 chips, whose sides do not divide the torus's 2 x 2}}
    %y = dsm.tiled_pass "fc" <fwd> ins(%x) weights(%w) {workload = #fc, parallelism = #dsm.parallelism<data>,
        block = #dsm.chip_block<rows = 3, columns = 1>,
        chip_split = #dsm.split<in = 1, out = 1, ij = 1, kij = 1, mb = 3>, core_split = #dsm.split<in = 1, out = 2, ij = 1, kij = 1, mb = 1>,
        array = #array, cycles = #cycles} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
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

// On a block, the chip split covers the block's chips, not the torus's.
module attributes {dsm.system = #tiny} {
  func.func @block_split(%x: tensor<64x256xf32>, %w: tensor<256x256xf32>) {
    // expected-error @+1 {{'dsm.tiled_pass' op has an illegal mapping: the chip split's product 4 is not the chip count 2}}
    %y = dsm.tiled_pass "fc" <fwd> ins(%x) weights(%w) {workload = #fc, parallelism = #dsm.parallelism<data>,
        block = #dsm.chip_block<rows = 1, columns = 2>,
        chip_split = #dsm.split<in = 1, out = 1, ij = 1, kij = 1, mb = 4>, core_split = #dsm.split<in = 1, out = 2, ij = 1, kij = 1, mb = 1>,
        array = #array, cycles = #cycles} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
    return
  }
}

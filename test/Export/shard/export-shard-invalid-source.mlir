// RUN: not dsm-opt %s -split-input-file --dsm-export-shard="source=%S/../../Import/Inputs/small-cnn.mlir output=%t.out" 2>&1 | FileCheck %s
// RUN: not test -e %t.out
// RUN: not dsm-opt %s -split-input-file --dsm-export-shard="source=%t.missing.mlir output=%t.out" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not test -e %t.out

// What --dsm-export-shard refuses once it has a source: nothing located in
// it (a module never mapped, a layer without a file location, a layer whose
// location holds no linalg operation) or a source it cannot read. Nothing
// is written.

#tiny = #dsm.system<"tiny", {kind = "multi_chip",
  system = {chips = 4, topology = "torus_2d", torus = {x = 4, y = 1}, link_bandwidth = {x = 10000000000, y = 8000000000}},
  chip = {cores = 2, interconnect = "ring", core_to_core_bandwidth = 64000000000, external_memory = {capacity = 1000000000, bandwidth = 32000000000, efficiency = 0.5}},
  core = {macs = 64, pe_array = {rows = 8, columns = 8}, scratchpad = {capacity = 65536, bandwidth = 64000000000}, sfu_ops_per_cycle = 4, frequency = 1000000000, precision = "fp16"}}>

// CHECK: export-shard-invalid-source.mlir:[[# @LINE + 1]]:1: error: nothing to export: run --dsm-map-system first
module attributes {dsm.system = #tiny} {
  func.func @never_mapped(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    return %x : tensor<4x8xf32>
  }
}

// -----

#tiny = #dsm.system<"tiny", {kind = "multi_chip",
  system = {chips = 4, topology = "torus_2d", torus = {x = 4, y = 1}, link_bandwidth = {x = 10000000000, y = 8000000000}},
  chip = {cores = 2, interconnect = "ring", core_to_core_bandwidth = 64000000000, external_memory = {capacity = 1000000000, bandwidth = 32000000000, efficiency = 0.5}},
  core = {macs = 64, pe_array = {rows = 8, columns = 8}, scratchpad = {capacity = 65536, bandwidth = 64000000000}, sfu_ops_per_cycle = 4, frequency = 1000000000, precision = "fp16"}}>
#fc = #dsm.workload<kind = "fc", in = 256, out = 256, ij = 1, kij = 1, mb = 64, params = 65536>
#array = #dsm.array_map<rows = in, columns = out, row_tile = 8, column_tile = 8>
#cycles = #dsm.cycles<useful = 1, underuse = 0, ovldt_visible = 0, non_ovldt = 0, aux_comp = 0, total = 1>

// A layer from the zoo's dsm files carries only its name.
module attributes {dsm.system = #tiny} {
  func.func @named_only(%x: tensor<64x256xf32>, %w: tensor<256x256xf32>) {
    // CHECK: error: loc("fc"): 'dsm.tiled_pass' op has no file location: it was not imported from a source program --dsm-export-shard can read
    %y = dsm.tiled_pass "fc" <fwd> ins(%x) weights(%w) {workload = #fc, parallelism = #dsm.parallelism<model>,
        chip_split = #dsm.split<in = 1, out = 4, ij = 1, kij = 1, mb = 1>, core_split = #dsm.split<in = 1, out = 2, ij = 1, kij = 1, mb = 1>,
        array = #array, cycles = #cycles} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32> loc("fc")
    return
  }
}

// -----

#tiny = #dsm.system<"tiny", {kind = "multi_chip",
  system = {chips = 4, topology = "torus_2d", torus = {x = 4, y = 1}, link_bandwidth = {x = 10000000000, y = 8000000000}},
  chip = {cores = 2, interconnect = "ring", core_to_core_bandwidth = 64000000000, external_memory = {capacity = 1000000000, bandwidth = 32000000000, efficiency = 0.5}},
  core = {macs = 64, pe_array = {rows = 8, columns = 8}, scratchpad = {capacity = 65536, bandwidth = 64000000000}, sfu_ops_per_cycle = 4, frequency = 1000000000, precision = "fp16"}}>
#fc = #dsm.workload<kind = "fc", in = 256, out = 256, ij = 1, kij = 1, mb = 64, params = 65536>
#array = #dsm.array_map<rows = in, columns = out, row_tile = 8, column_tile = 8>
#cycles = #dsm.cycles<useful = 1, underuse = 0, ovldt_visible = 0, non_ovldt = 0, aux_comp = 0, total = 1>

// small-cnn.mlir has its padding's tensor.pad at 18:15: no linalg operation
// to annotate.
// CHECK: small-cnn.mlir:18:15: error: 'tensor.pad' op is the anchor of layer 'fc', but only linalg operations with one result can carry its sharding
module attributes {dsm.system = #tiny} {
  func.func @not_linalg(%x: tensor<64x256xf32>, %w: tensor<256x256xf32>) {
    %y = dsm.tiled_pass "fc" <fwd> ins(%x) weights(%w) {workload = #fc, parallelism = #dsm.parallelism<model>,
        chip_split = #dsm.split<in = 1, out = 4, ij = 1, kij = 1, mb = 1>, core_split = #dsm.split<in = 1, out = 2, ij = 1, kij = 1, mb = 1>,
        array = #array, cycles = #cycles} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32> loc("small-cnn.mlir":18:15)
    return
  }
}
// MISSING: error: cannot read the source program '{{.*}}missing.mlir'

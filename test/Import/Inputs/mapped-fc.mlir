// One mapped layer located in a source program (line 3 of whatever file
// source= names): --dsm-export-shard reads that program.
#tiny = #dsm.system<"tiny", {kind = "multi_chip",
  system = {chips = 4, topology = "torus_2d", torus = {x = 4, y = 1}, link_bandwidth = {x = 10000000000, y = 8000000000}},
  chip = {cores = 2, interconnect = "ring", core_to_core_bandwidth = 64000000000, external_memory = {capacity = 1000000000, bandwidth = 32000000000, efficiency = 0.5}},
  core = {macs = 64, pe_array = {rows = 8, columns = 8}, scratchpad = {capacity = 65536, bandwidth = 64000000000}, sfu_ops_per_cycle = 4, frequency = 1000000000, precision = "fp16"}}>
#fc = #dsm.workload<kind = "fc", in = 256, out = 256, ij = 1, kij = 1, mb = 64, params = 65536>
#array = #dsm.array_map<rows = in, columns = out, row_tile = 8, column_tile = 8>
#cycles = #dsm.cycles<useful = 1, underuse = 0, ovldt_visible = 0, non_ovldt = 0, aux_comp = 0, total = 1>
module attributes {dsm.system = #tiny} {
  func.func @fc(%x: tensor<64x256xf32>, %w: tensor<256x256xf32>) {
    %y = dsm.tiled_pass "fc" <fwd> ins(%x) weights(%w) {workload = #fc, parallelism = #dsm.parallelism<model>,
        chip_split = #dsm.split<in = 1, out = 4, ij = 1, kij = 1, mb = 1>, core_split = #dsm.split<in = 1, out = 2, ij = 1, kij = 1, mb = 1>,
        array = #array, cycles = #cycles} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32> loc("source.mlir":3:8)
    return
  }
}

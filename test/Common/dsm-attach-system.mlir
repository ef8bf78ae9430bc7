// Every preset attaches, by name or by path, and the attached IR re-parses to
// the same system.
// RUN: dsm-opt %s --dsm-attach-system=system=dsm-8pf-asym | FileCheck %s --check-prefix=ASYM
// RUN: dsm-opt %s --dsm-attach-system=system=dsm-8pf-asym | dsm-opt | FileCheck %s --check-prefix=ASYM
// RUN: dsm-opt %s --dsm-attach-system=system=dsm-8pf-sym | FileCheck %s --check-prefix=SYM
// RUN: dsm-opt %s --dsm-attach-system=system=dsm-128tf | FileCheck %s --check-prefix=INFER
// RUN: dsm-opt %s --dsm-attach-system=system=%systems/nnp-i.yaml | FileCheck %s --check-prefix=NNPI
// RUN: dsm-opt %s --dsm-attach-system=system=malvik | FileCheck %s --check-prefix=MALVIK
// RUN: dsm-opt %s --dsm-attach-system=system=luke01 | FileCheck %s --check-prefix=LUKE

// ASYM: module attributes {dsm.system = #dsm.system<"dsm-8pf-asym",
// ASYM-SAME: chip = {core_to_core_bandwidth = 256000000000 : i64, cores = 32 : i64, external_memory = {bandwidth = 256000000000 : i64, capacity = 8000000000 : i64, efficiency = 8.000000e-01 : f64}, interconnect = "ring"}
// ASYM-SAME: core = {frequency = 2000000000 : i64, macs = 1024 : i64, pe_array = {columns = 32 : i64, rows = 32 : i64}, precision = "fp16", scratchpad = {bandwidth = 128000000000 : i64, capacity = 1048576 : i64}, sfu_ops_per_cycle = 256 : i64}
// ASYM-SAME: kind = "multi_chip"
// ASYM-SAME: system = {chips = 64 : i64, link_bandwidth = {x = 120000000000 : i64, y = 40000000000 : i64}, topology = "torus_2d", torus = {x = 4 : i64, y = 16 : i64}}

// SYM: link_bandwidth = {x = 80000000000 : i64, y = 80000000000 : i64}

// INFER: #dsm.system<"dsm-128tf",
// INFER-SAME: system = {chips = 1 : i64, link_bandwidth = {x = 0 : i64, y = 0 : i64}, topology = "torus_2d", torus = {x = 1 : i64, y = 1 : i64}}

// NNPI: #dsm.system<"nnp-i",
// NNPI-SAME: dram = {bandwidth = 68000000000 : i64, capacity = 32000000000 : i64, efficiency = 1 : i64}
// NNPI-SAME: engines = {count = 12 : i64, frequency = 1000000000 : i64, macs = 4096 : i64, precision = "int8", sram = {bandwidth = 6800000000000 : i64, capacity = 4000000 : i64, efficiency = 1 : i64}}
// NNPI-SAME: kind = "memory_hierarchy"
// NNPI-SAME: llc = {bandwidth = 680000000000 : i64, capacity = 24000000 : i64, efficiency = 1 : i64}

// MALVIK: #dsm.system<"malvik",
// MALVIK-SAME: devices = [{id = 0 : i64, memory = 755000000000 : i64, name = "cpu", peak = 1800000000000 : i64, type = "cpu"}, {id = 1 : i64, memory = 32000000000 : i64, name = "gpu0", peak = 14000000000000 : i64, type = "gpu"}, {id = 2 : i64, memory = 32000000000 : i64, name = "gpu1", peak = 14000000000000 : i64, type = "gpu"}]
// MALVIK-SAME: links = [{bandwidth = 16000000000 : i64, efficiency = 2.500000e-01 : f64, from = 0 : i64, to = 1 : i64}, {bandwidth = 16000000000 : i64, efficiency = 2.500000e-01 : f64, from = 0 : i64, to = 2 : i64}]

// LUKE: #dsm.system<"luke01",
// LUKE-SAME: {id = 1 : i64, memory = 16000000000 : i64, name = "gpu0", peak = 9300000000000 : i64, type = "gpu"}

func.func @empty() {
  return
}

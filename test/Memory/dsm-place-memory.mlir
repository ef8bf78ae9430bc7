// Two fully connected layers on Inputs/small.yaml (int8; one engine: SRAM
// 2 KiB at 200 GB/s, LLC 4 KiB at 10 GB/s, DRAM at 1 GB/s; 32 MACs at 1 GHz).
// Layer fc1 (+ relu): weights 2048 B, output 32 B, model input 64 B from
// DRAM, 2048 MACs + 32 aux ops = 65 ns of compute. Layer fc2: weights 512 B,
// output 16 B, 512 MACs = 16 ns.
//
// compiler: activations ask for SRAM and get it, weights ask for the LLC and
// get it (2048 + 512 <= 4096):
//   fc1 = 2048/10G + 32/200G + 64/1G = 268.96 ns,
//   fc2 = max(16, 512/10G + 32/200G + 16/200G) = 51.44 ns, total 320.40 ns.
// optimum: fc1's weights in SRAM, everything else in the LLC:
//   fc1 = 10.24 + 3.2 + 64 = 77.44 ns, fc2 = 51.2 + 3.2 + 1.6 = 56 ns,
//   total 133.44 ns, speedup 2.4011. 81 maps: greedy-dp and ea find it too.

// RUN: dsm-opt %s --dsm-place-memory="system=%S/Inputs/small.yaml placement=compiler" | FileCheck %s --check-prefix=COMPILER
// placement=ilp needs GLPK (DSM_ENABLE_GLPK, the default).
// RUN: %if glpk %{ dsm-opt %s --dsm-place-memory="system=%S/Inputs/small.yaml placement=ilp" | FileCheck %s --check-prefix=BEST %}
// RUN: dsm-opt %s --dsm-place-memory="system=%S/Inputs/small.yaml placement=greedy-dp iterations=200" | FileCheck %s --check-prefix=BEST
// RUN: dsm-opt %s --dsm-place-memory="system=%S/Inputs/small.yaml placement=ea iterations=400 seed=3" | FileCheck %s --check-prefix=BEST
// placement=egrl and pg need libtorch (DSM_ENABLE_TORCH, the default).
// RUN: %if torch %{ dsm-opt %s --dsm-place-memory="system=%S/Inputs/small.yaml placement=egrl iterations=300 seed=2" | FileCheck %s --check-prefix=BEST %}
// pg alone (the paper's weakest) need not find the optimum: a valid map.
// RUN: %if torch %{ dsm-opt %s --dsm-place-memory="system=%S/Inputs/small.yaml placement=pg iterations=300 seed=2 report=-" | FileCheck %s --check-prefix=PG %}
// RUN: dsm-opt %s --dsm-place-memory="system=%S/Inputs/small.yaml placement=compiler report=-" -o /dev/null | FileCheck %s --check-prefix=TABLE
// RUN: %if glpk %{ dsm-opt %s --dsm-place-memory="system=%S/Inputs/small.yaml placement=ilp report=- format=json" -o /dev/null | FileCheck %s --check-prefix=JSON %}
// Same seed, same map and report, with or without threads.
// RUN: dsm-opt %s --dsm-place-memory="system=%S/Inputs/small.yaml placement=ea iterations=300 seed=5 report=%t.threads.json format=json" -o %t.threads.mlir
// RUN: dsm-opt %s --mlir-disable-threading --dsm-place-memory="system=%S/Inputs/small.yaml placement=ea iterations=300 seed=5 report=%t.serial.json format=json" -o %t.serial.mlir
// RUN: diff %t.threads.json %t.serial.json
// RUN: diff %t.threads.mlir %t.serial.mlir
// RUN: dsm-opt %s --dsm-place-memory="system=%S/Inputs/small.yaml placement=greedy-dp report=%t.gdp.threads.json format=json" -o %t.gdp.threads.mlir
// RUN: dsm-opt %s --mlir-disable-threading --dsm-place-memory="system=%S/Inputs/small.yaml placement=greedy-dp report=%t.gdp.serial.json format=json" -o %t.gdp.serial.mlir
// RUN: diff %t.gdp.threads.json %t.gdp.serial.json
// RUN: diff %t.gdp.threads.mlir %t.gdp.serial.mlir
// RUN: %if torch %{ dsm-opt %s --dsm-place-memory="system=%S/Inputs/small.yaml placement=egrl iterations=200 seed=4 report=%t.egrl.threads.json format=json" -o %t.egrl.threads.mlir %}
// RUN: %if torch %{ dsm-opt %s --mlir-disable-threading --dsm-place-memory="system=%S/Inputs/small.yaml placement=egrl iterations=200 seed=4 report=%t.egrl.serial.json format=json" -o %t.egrl.serial.mlir %}
// RUN: %if torch %{ diff %t.egrl.threads.json %t.egrl.serial.json %}
// RUN: %if torch %{ diff %t.egrl.threads.mlir %t.egrl.serial.mlir %}
// --dsm-map-system runs it on a memory_hierarchy system.
// RUN: %if torch %{ dsm-opt %s --dsm-map-system="system=%S/Inputs/small.yaml mode=infer batch=1 placement=egrl iterations=200 report=%t.map-system.json" -o /dev/null %}
// RUN: %if torch %{ FileCheck %s --check-prefix=MAPSYSTEM --input-file=%t.map-system.json %}
// MAPSYSTEM: "placement": "egrl",

// COMPILER-LABEL: func.func @two_layers
// COMPILER: dsm.fully_connected {{.*}}dsm.memory = #dsm.memory<weights = llc, activations = sram>
// COMPILER: dsm.relu {{.*}}dsm.memory = #dsm.memory<weights = llc, activations = sram>
// COMPILER: dsm.fully_connected {{.*}}dsm.memory = #dsm.memory<weights = llc, activations = sram>

// PG: memory placement of @two_layers on small: placement=pg iterations=300 seed=2, 2 layers, 300 maps evaluated
// PG-NEXT: latency {{.*}}, valid yes
// PG-LABEL: func.func @two_layers
// PG: dsm.fully_connected {{.*}}dsm.memory = #dsm.memory<weights = {{dram|llc|sram}}, activations = {{dram|llc|sram}}>

// BEST-LABEL: func.func @two_layers
// BEST: dsm.fully_connected {{.*}}dsm.memory = #dsm.memory<weights = sram, activations = llc>
// BEST: dsm.relu {{.*}}dsm.memory = #dsm.memory<weights = sram, activations = llc>
// BEST: dsm.fully_connected {{.*}}dsm.memory = #dsm.memory<weights = llc, activations = llc>

// TABLE: memory placement of @two_layers on small: placement=compiler iterations=4000 seed=1, 2 layers, 1 maps evaluated
// TABLE-NEXT: latency 0.320 us, compiler 0.320 us, speedup 1.0000, valid yes
// TABLE-NEXT: level      peak bytes       capacity
// TABLE-NEXT: dram                0        1048576
// TABLE-NEXT: llc              2560           4096
// TABLE-NEXT: sram               48           2048
// TABLE-NEXT: node              tensor             bytes level compiler        live
// TABLE-NEXT: fully_connected_0 weights             2048 llc   llc             0..1
// TABLE-NEXT: fully_connected_0 activations           32 sram  sram            0..1
// TABLE-NEXT: fully_connected_1 weights              512 llc   llc             0..1
// TABLE-NEXT: fully_connected_1 activations           16 sram  sram            1..1
// TABLE-NEXT: best speedup by iteration: 1:1.0000

// JSON: "placements": [
// JSON: "function": "two_layers",
// JSON: "system": "small",
// JSON: "placement": "ilp",
// JSON: "latency_us": 0.13344
// JSON: "compiler_latency_us": 0.3203999
// JSON: "speedup": 2.401
// JSON: "valid": true,
// JSON: "rectified": false,
// JSON: "reassigned_ratio": 0,
// JSON: "optimal": true,
// JSON: "level": "sram",
// JSON-NEXT: "peak_bytes": 2048,
// JSON-NEXT: "capacity_bytes": 2048,
// JSON: "tensors": [
// JSON: "node": "fully_connected_0",
// JSON-NEXT: "tensor": "weights",
// JSON-NEXT: "bytes": 2048,
// JSON-NEXT: "level": "sram",
// JSON-NEXT: "compiler_level": "llc",
// JSON-NEXT: "live": [
// JSON-NEXT: 0,
// JSON-NEXT: 1
// JSON: "node": "fully_connected_1",
// JSON-NEXT: "tensor": "weights",
// JSON: "node": "fully_connected_1",
// JSON-NEXT: "tensor": "activations",
// JSON-NEXT: "bytes": 16,
// JSON-NEXT: "level": "llc",
// JSON: "best_speedup_by_iteration": [
// JSON-NEXT: [
// JSON-NEXT: 1,
// JSON-NEXT: 2.401

func.func @two_layers(%arg0: tensor<1x64xf32>) -> tensor<1x16xf32> {
  %w0 = dsm.weight "fc1.weight" : tensor<32x64xf32>
  %0 = dsm.fully_connected %arg0, %w0 : (tensor<1x64xf32>, tensor<32x64xf32>) -> tensor<1x32xf32>
  %1 = dsm.relu %0 : tensor<1x32xf32>
  %w1 = dsm.weight "fc2.weight" : tensor<16x32xf32>
  %2 = dsm.fully_connected %1, %w1 : (tensor<1x32xf32>, tensor<16x32xf32>) -> tensor<1x16xf32>
  return %2 : tensor<1x16xf32>
}

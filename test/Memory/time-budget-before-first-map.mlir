// A time budget that ends before the search evaluates its first map: the
// answer is the compiler's map (nothing better was seen), marked
// time_budget_reached, and the run succeeds. It used to crash rectifying the
// best-reward map, which did not exist (issue 46, item 1).
// RUN: dsm-opt %s --dsm-place-memory="system=%S/Inputs/small.yaml placement=ea time-budget=1e-9 report=%t.ea.json format=json" | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.ea.json
// RUN: dsm-opt %s --dsm-place-memory="system=%S/Inputs/small.yaml placement=ea time-budget=1e-9 report=-" -o /dev/null | FileCheck %s --check-prefix=TABLE
// greedy-dp too: it evaluated its all-DRAM start before looking at the
// budget, and answered with that (speedup 0.13 here, one evaluation, a
// warning calling it the compiler's map); it now looks first, as ea does.
// RUN: dsm-opt %s --dsm-place-memory="system=%S/Inputs/small.yaml placement=greedy-dp time-budget=1e-9 report=%t.greedy.json format=json" 2>&1 | FileCheck %s --check-prefixes=CHECK,NO-WARNING
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.greedy.json
// RUN: dsm-opt %s --dsm-place-memory="system=%S/Inputs/small.yaml placement=greedy-dp time-budget=1e-9 report=-" -o /dev/null | FileCheck %s --check-prefix=TABLE-GREEDY
// NO-WARNING-NOT: warning
// TABLE-GREEDY: memory placement of @one_layer on small: placement=greedy-dp {{.*}}, 1 layers, 0 maps evaluated
// TABLE-GREEDY-NEXT: time budget of {{.*}} s reached
// TABLE-GREEDY-NEXT: latency {{.*}}, speedup 1.0000, valid yes
// RUN: %if torch %{ dsm-opt %s --dsm-place-memory="system=%S/Inputs/small.yaml placement=egrl time-budget=1e-9 report=%t.egrl.json format=json" | FileCheck %s %}
// RUN: %if torch %{ FileCheck %s --check-prefix=REPORT --input-file=%t.egrl.json %}
// RUN: %if torch %{ dsm-opt %s --dsm-place-memory="system=%S/Inputs/small.yaml placement=pg time-budget=1e-9 report=%t.pg.json format=json" | FileCheck %s %}
// RUN: %if torch %{ FileCheck %s --check-prefix=REPORT --input-file=%t.pg.json %}

// The compiler's map on Inputs/small.yaml: weights in the LLC, activations
// in SRAM.
// CHECK-LABEL: func.func @one_layer
// CHECK: dsm.fully_connected {{.*}}dsm.memory = #dsm.memory<weights = llc, activations = sram>

// REPORT: "evaluations": 0,
// REPORT: "time_budget_reached": true,
// REPORT: "speedup": 1,
// REPORT-NEXT: "valid": true,
// REPORT-NEXT: "rectified": false,

// TABLE: memory placement of @one_layer on small: placement=ea {{.*}}, 1 layers, 0 maps evaluated
// TABLE-NEXT: time budget of {{.*}} s reached
// TABLE-NEXT: latency {{.*}}, speedup 1.0000, valid yes

func.func @one_layer(%arg0: tensor<1x64xf32>) -> tensor<1x32xf32> {
  %w = dsm.weight "fc.weight" : tensor<32x64xf32>
  %0 = dsm.fully_connected %arg0, %w : (tensor<1x64xf32>, tensor<32x64xf32>) -> tensor<1x32xf32>
  return %0 : tensor<1x32xf32>
}

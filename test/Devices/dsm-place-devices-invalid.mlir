// RUN: dsm-opt %s -split-input-file --dsm-place-devices="system=malvik placement=random" -verify-diagnostics
// RUN: not dsm-opt %s -split-input-file --dsm-place-devices="system=nnp-i" 2>&1 | FileCheck %s --check-prefix=KIND
// RUN: not dsm-opt %s -split-input-file --dsm-place-devices="system=%S/Inputs/disconnected.yaml" 2>&1 | FileCheck %s --check-prefix=DISCONNECTED
// RUN: not dsm-opt %s -split-input-file --dsm-place-devices="system=%S/Inputs/zero-bandwidth.yaml" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not dsm-opt %s -split-input-file --dsm-place-devices="system=malvik evaluations=0" 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not dsm-opt %s -split-input-file --dsm-place-devices="system=malvik batches=4 simulated-batches=2" 2>&1 | FileCheck %s --check-prefix=BATCHES
// Counts past any study are refused before they run out of memory or time.
// RUN: not dsm-opt %s -split-input-file --dsm-place-devices="system=malvik batches=2000000000" 2>&1 | FileCheck %s --check-prefix=MANY-BATCHES
// RUN: not dsm-opt %s -split-input-file --dsm-place-devices="system=malvik batches=4 simulated-batches=100000" 2>&1 | FileCheck %s --check-prefix=MANY-SIMULATED
// RUN: not dsm-opt %s -split-input-file --dsm-place-devices="system=malvik evaluations=1000000000000" 2>&1 | FileCheck %s --check-prefix=MANY-EVALUATIONS
// An op time that is not a number of seconds (a denormal efficiency makes it
// infinite) is an error at the op in every search; all but single-device
// crashed on it.
// RUN: not dsm-opt %s -split-input-file --dsm-place-devices="system=malvik placement=ga compute-efficiency=1e-320" 2>&1 | FileCheck %s --check-prefix=INFINITE
// RUN: not dsm-opt %s -split-input-file --dsm-place-devices="system=malvik placement=hc compute-efficiency=1e-320" 2>&1 | FileCheck %s --check-prefix=INFINITE
// RUN: not dsm-opt %s -split-input-file --dsm-place-devices="system=malvik placement=sa compute-efficiency=1e-320" 2>&1 | FileCheck %s --check-prefix=INFINITE
// RUN: not dsm-opt %s -split-input-file --dsm-place-devices="system=malvik placement=map-elites compute-efficiency=1e-320" 2>&1 | FileCheck %s --check-prefix=INFINITE
// RUN: not dsm-opt %s -split-input-file --dsm-place-devices="system=malvik placement=expert compute-efficiency=1e-320" 2>&1 | FileCheck %s --check-prefix=INFINITE
// RUN: not dsm-opt %s -split-input-file --dsm-place-devices="system=malvik placement=single-device compute-efficiency=1e-320" 2>&1 | FileCheck %s --check-prefix=INFINITE
// report= and trace= naming one file (the same text, a symbolic link to
// it, another spelling of its path) is an error before any work: the trace
// overwrote the report. Nothing is written (the file stays empty).
// RUN: rm -rf %t.same && mkdir -p %t.same && touch %t.same/out.json && ln -s out.json %t.same/link.json
// RUN: not dsm-opt %s -split-input-file --dsm-place-devices="system=malvik report=%t.same/out.json trace=%t.same/out.json" 2>&1 | FileCheck %s --check-prefix=SAME
// RUN: not dsm-opt %s -split-input-file --dsm-place-devices="system=malvik report=%t.same/out.json trace=%t.same/link.json" 2>&1 | FileCheck %s --check-prefix=SAME
// RUN: not dsm-opt %s -split-input-file --dsm-place-devices="system=malvik report=%t.same/out.json trace=%t.same/./out.json" 2>&1 | FileCheck %s --check-prefix=SAME
// RUN: not dsm-opt %s -split-input-file --dsm-map-system="system=malvik report=- trace=-" 2>&1 | FileCheck %s --check-prefix=SAME
// RUN: not test -s %t.same/out.json
// SAME: error: report={{.*}} and trace={{.*}} name one file: the trace would overwrite the report; give them two files

// KIND: error: device placement needs a device_graph system; 'nnp-i' is a memory_hierarchy
// DISCONNECTED: error: system 'disconnected' cannot run a placement: device 'gpu1' cannot be reached from device 'cpu': the device graph is disconnected
// ZERO: zero-bandwidth.yaml:8:33: error: field 'links[0].bandwidth' must be positive, got '0 Gbit/s'
// BUDGET: error: evaluations must be in [1, 100000000], got 0
// BATCHES: error: simulated-batches must be in [4, 1000] (at least batches; -1: the default), got 2
// MANY-BATCHES: error: batches must be in [1, 1000], got 2000000000
// MANY-SIMULATED: error: simulated-batches must be in [4, 1000] (at least batches; -1: the default), got 100000
// MANY-EVALUATIONS: error: evaluations must be in [1, 100000000], got 1000000000000
// INFINITE: dsm-place-devices-invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: cannot place: '{{[^']+}}' would take inf s on device '{{[^']+}}' (at most 1e+15 s): its peak FLOP/s, clock or memory bandwidth, times the compute efficiency, is implausibly small

// expected-error @below {{unknown placement search 'random'; expected one of single-device, expert, hc, sa, ga, map-elites}}
module {
  func.func @f(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
    %a = dsm.relu %x : tensor<8x64xf32>
    return %a : tensor<8x64xf32>
  }
}

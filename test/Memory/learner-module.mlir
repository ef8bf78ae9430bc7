// placement=egrl and pg load libtorch's learner module, DsmMemoryLearning.so,
// when they start (lib/Memory/Learning/LearnerModule.cpp): dsm-opt itself
// never links libtorch, so no other run pays its start-up.
// REQUIRES: torch
// RUN: llvm-readelf --needed-libs %dsm_tools_dir/dsm-opt | FileCheck %s --check-prefix=NEEDED
// NEEDED: NeededLibraries [
// NEEDED-NOT: torch
// NEEDED-NOT: c10
// NEEDED: ]

// An installed or moved prefix: bin/dsm-opt finds lib/DsmMemoryLearning.so.
// RUN: rm -rf %t && mkdir -p %t/bin %t/lib
// RUN: cp %dsm_tools_dir/dsm-opt %t/bin/ && cp %dsm_obj_root/lib/DsmMemoryLearning.so %t/lib/
// RUN: %t/bin/dsm-opt %s --dsm-place-memory="system=%S/Inputs/small.yaml placement=pg iterations=30 seed=2" | FileCheck %s --check-prefix=PLACED
// PLACED: dsm.fully_connected {{.*}} {dsm.memory = #dsm.memory<weights = {{[a-z]+}}, activations = {{[a-z]+}}>}

// DSM_LEARNING_MODULE names it, and only it is tried.
// RUN: env DSM_LEARNING_MODULE=%t/lib/DsmMemoryLearning.so dsm-opt %s --dsm-place-memory="system=%S/Inputs/small.yaml placement=pg iterations=30 seed=2" | FileCheck %s --check-prefix=PLACED
// RUN: env DSM_LEARNING_MODULE=%t/none.so not dsm-opt %s --dsm-place-memory="system=%S/Inputs/small.yaml placement=egrl" -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not test -e %t/out.mlir
// MISSING: learner-module.mlir:[[@LINE+9]]:3: error: cannot place memory: placement 'egrl' needs libtorch's learner module: cannot find DsmMemoryLearning.so (looked at {{.*}}none.so; set DSM_LEARNING_MODULE to its path)

// Not a shared object, or one without the entry point (a stale build).
// RUN: env DSM_LEARNING_MODULE=%s not dsm-opt %s --dsm-place-memory="system=%S/Inputs/small.yaml placement=pg" 2>&1 | FileCheck %s --check-prefix=NOT-ELF
// NOT-ELF: error: cannot place memory: placement 'pg' needs libtorch's learner module: cannot load {{.*}}learner-module.mlir: {{.*}}learner-module.mlir: invalid ELF header
// RUN: env DSM_LEARNING_MODULE=%dsm_plugin not dsm-opt %s --dsm-place-memory="system=%S/Inputs/small.yaml placement=pg" 2>&1 | FileCheck %s --check-prefix=STALE
// STALE: error: cannot place memory: placement 'pg' needs libtorch's learner module: {{.*}}DsmPlugin.so is not this build's learner module (no dsmCreateGraphPolicyLearnerV1)

module {
  func.func @f(%arg0: tensor<1x64xf32>) -> tensor<1x32xf32> {
    %w0 = dsm.weight "fc1.weight" : tensor<32x64xf32>
    %0 = dsm.fully_connected %arg0, %w0 : (tensor<1x64xf32>, tensor<32x64xf32>) -> tensor<1x32xf32>
    return %0 : tensor<1x32xf32>
  }
}

// Built without libtorch (DSM_ENABLE_TORCH=OFF, as the sanitized build is),
// the learned searches say what is missing, at the function they could not
// place.
// UNSUPPORTED: torch
// RUN: not dsm-opt %s --dsm-place-memory="system=nnp-i placement=egrl" 2>&1 | FileCheck %s --check-prefix=EGRL
// RUN: not dsm-opt %s --dsm-place-memory="system=nnp-i placement=pg" 2>&1 | FileCheck %s --check-prefix=PG

// EGRL: dsm-place-memory-no-torch.mlir:[[@LINE+4]]:3: error: cannot place memory: placement 'egrl' needs libtorch: install libtorch-dev (scripts/install-deps.sh) and configure with DSM_ENABLE_TORCH=ON
// PG: dsm-place-memory-no-torch.mlir:[[@LINE+3]]:3: error: cannot place memory: placement 'pg' needs libtorch

module {
  func.func @f(%arg0: tensor<1x64xf32>) -> tensor<1x32xf32> {
    %w0 = dsm.weight "fc1.weight" : tensor<32x64xf32>
    %0 = dsm.fully_connected %arg0, %w0 : (tensor<1x64xf32>, tensor<32x64xf32>) -> tensor<1x32xf32>
    return %0 : tensor<1x32xf32>
  }
}

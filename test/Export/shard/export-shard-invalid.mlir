// RUN: dsm-opt %s --dsm-export-shard -split-input-file -verify-diagnostics

// expected-error @+1 {{--dsm-export-shard needs source=<the linalg program the model was imported from>}}
module {
  func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    return %x : tensor<4x8xf32>
  }
}

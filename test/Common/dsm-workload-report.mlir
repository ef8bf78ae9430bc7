// RUN: dsm-opt %s --dsm-workload-report -o /dev/null | FileCheck %s --check-prefix=TABLE --strict-whitespace
// RUN: dsm-opt %s --dsm-workload-report=format=json -o /dev/null | FileCheck %s --check-prefix=JSON
// The report file is written next to the IR output.
// RUN: rm -f %t.json
// RUN: dsm-opt %s --dsm-workload-report="format=json output=%t.json" | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// A report that cannot be written fails the pass.
// RUN: not dsm-opt %s --dsm-workload-report="output=%t.missing-dir/r.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NODIR

// The name and kind columns are as wide as their longest entry.
// TABLE: layer             kind             in    out       ij  kij     mb               MACs         params      out bytes
// TABLE: conv1             conv              3     64    12544   49      2        236,027,904          9,408      6,422,528
// TABLE: bn1               batch_norm
// TABLE-SAME:  128
// TABLE: fc                fc               64     10        1    1      2              1,280            650             80
// TABLE: fc_shared         fc               64     10        1    1      2              1,280              0             80
// TABLE: totals: 236,030,464 MACs, 10,186 parameters, 1 conv (0 depthwise), 2 fc, 0 matmul, 0 lstm layers

// JSON:      "layers": [
// JSON:          "class": "primary",
// JSON-NEXT:     "dims": {
// JSON-NEXT:       "ij": 12544,
// JSON-NEXT:       "in": 3,
// JSON-NEXT:       "kij": 49,
// JSON-NEXT:       "mb": 2,
// JSON-NEXT:       "out": 64
// JSON-NEXT:     },
// JSON:          "kind": "conv",
// JSON-NEXT:     "macs": 236027904,
// JSON-NEXT:     "name": "conv1",
// JSON-NEXT:     "op": "dsm.conv2d",
// JSON-NEXT:     "output_bytes": 6422528,
// JSON-NEXT:     "params": 9408,
// JSON-NEXT:     "stride": [
// JSON-NEXT:       2,
// JSON-NEXT:       2
// JSON-NEXT:     ],
// JSON:      "totals": {
// JSON-NEXT:   "activation_bytes":
// JSON-NEXT:   "aux_ops":
// JSON-NEXT:   "conv_layers": 1,
// JSON-NEXT:   "depthwise_conv_layers": 0,
// JSON-NEXT:   "fc_layers": 2,
// JSON-NEXT:   "lstm_layers": 0,
// JSON-NEXT:   "macs": 236030464,
// JSON-NEXT:   "matmul_layers": 0,
// JSON-NEXT:   "params": 10186,
// JSON-NEXT:   "weight_bytes":

// IR: func.func @net

// NODIR: error: cannot write '{{.*}}r.json':

func.func @net(%x: tensor<2x3x224x224xf32>) -> tensor<2x10xf32> {
  %w = dsm.weight "conv1.weight" : tensor<64x3x7x7xf32>
  %c = dsm.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 3, 3, 3, 3>} : (tensor<2x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<2x64x112x112xf32> loc("conv1")
  %g = dsm.weight "bn1.weight" : tensor<64xf32>
  %b = dsm.weight "bn1.bias" : tensor<64xf32>
  %m = dsm.weight "bn1.running_mean" : tensor<64xf32>
  %v = dsm.weight "bn1.running_var" : tensor<64xf32>
  %n = dsm.batch_norm %c, %g, %b, %m, %v : (tensor<2x64x112x112xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x64x112x112xf32> loc("bn1")
  %p = dsm.global_avg_pool %n : (tensor<2x64x112x112xf32>) -> tensor<2x64x1x1xf32>
  %f = dsm.reshape %p {shape = array<i64: 0, -1>} : (tensor<2x64x1x1xf32>) -> tensor<2x64xf32>
  %fw = dsm.weight "fc.weight" : tensor<10x64xf32>
  %fb = dsm.weight "fc.bias" : tensor<10xf32>
  %y = dsm.fully_connected %f, %fw, %fb : (tensor<2x64xf32>, tensor<10x64xf32>, tensor<10xf32>) -> tensor<2x10xf32> loc("fc")
  // The same weights used again count once.
  %z = dsm.fully_connected %f, %fw, %fb : (tensor<2x64xf32>, tensor<10x64xf32>, tensor<10xf32>) -> tensor<2x10xf32> loc("fc_shared")
  %s = dsm.add %y, %z : (tensor<2x10xf32>, tensor<2x10xf32>) -> tensor<2x10xf32>
  return %s : tensor<2x10xf32>
}

// -----

// Re-batching BERT-base to 2^31 makes its total MACs overflow 64 bits: an
// error, not wrapped totals.
// RUN: not dsm-opt --dsm-set-batch=batch=2147483647 --dsm-workload-report=format=json %models/bert_base_s128.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOTALS
// TOTALS: error: the model's total MACs, parameters or bytes overflow 64 bits

// RUN: dsm-opt %s -split-input-file --dsm-place-devices="system=malvik placement=single-device" | FileCheck %s --check-prefix=SINGLE
// RUN: dsm-opt %s -split-input-file --dsm-place-devices="system=malvik placement=ga evaluations=500 seed=3" | FileCheck %s --check-prefix=GA
// RUN: dsm-opt %s -split-input-file --dsm-place-devices="system=malvik placement=map-elites evaluations=500 seed=3" | FileCheck %s --check-prefix=GA

// Every op gets the device of the placement; a small chain is fastest on one
// GPU, gpu0 (id 1) for the rule, either GPU for a search.

// SINGLE-LABEL: func.func @chain
// SINGLE: dsm.conv2d {{.*}}dsm.device = #dsm.device<1>
// SINGLE: dsm.relu {{.*}}dsm.device = #dsm.device<1>
// SINGLE: dsm.fully_connected {{.*}}dsm.device = #dsm.device<1>
// GA-LABEL: func.func @chain
// GA: dsm.conv2d {{.*}}dsm.device = #dsm.device<[[GPU:1|2]]>
// GA: dsm.relu {{.*}}dsm.device = #dsm.device<[[GPU]]>
// GA: dsm.reshape {{.*}}dsm.device = #dsm.device<[[GPU]]>
// GA: dsm.fully_connected {{.*}}dsm.device = #dsm.device<[[GPU]]>
func.func @chain(%x: tensor<32x3x32x32xf32>) -> tensor<32x10xf32> {
  %w = dsm.weight "conv.w" : tensor<16x3x3x3xf32>
  %c = dsm.conv2d %x, %w : (tensor<32x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<32x16x30x30xf32>
  %r = dsm.relu %c : tensor<32x16x30x30xf32>
  %f = dsm.reshape %r {shape = array<i64: 0, -1>} : (tensor<32x16x30x30xf32>) -> tensor<32x14400xf32>
  %v = dsm.weight "fc.w" : tensor<10x14400xf32>
  %y = dsm.fully_connected %f, %v : (tensor<32x14400xf32>, tensor<10x14400xf32>) -> tensor<32x10xf32>
  return %y : tensor<32x10xf32>
}

// -----

// Two branches joined by a concat: placed too, the join included.
// SINGLE-LABEL: func.func @branches
// SINGLE-COUNT-4: dsm.device = #dsm.device<1>
// GA-LABEL: func.func @branches
// GA: dsm.relu {{.*}}#dsm.device<[[GPU2:1|2]]>
// GA-COUNT-3: dsm.device = #dsm.device<[[GPU2]]>
func.func @branches(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %a = dsm.relu %x : tensor<8x64xf32>
  %b = dsm.sigmoid %x : tensor<8x64xf32>
  %c = dsm.concat %a, %b {axis = 1 : i64} : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x128xf32>
  %s = dsm.slice %c {offsets = array<i64: 0, 0>, sizes = array<i64: 8, 64>} : (tensor<8x128xf32>) -> tensor<8x64xf32>
  return %s : tensor<8x64xf32>
}

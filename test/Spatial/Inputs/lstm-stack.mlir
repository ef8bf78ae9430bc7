// Two stacked GNMT-sized LSTM layers (1024 units, 128 timesteps, time-major
// [T, N]), the input of test/Spatial/dsm-optimizations.test: small enough to
// map quickly, large enough that the weights matter.
func.func @lstm_stack(%x: tensor<128x1x1024xf32> {dsm.batch_dim = 1 : i64}) -> tensor<128x1x1024xf32> {
  %w0 = dsm.weight "lstm0.weight_ih" : tensor<1x4096x1024xf32>
  %u0 = dsm.weight "lstm0.weight_hh" : tensor<1x4096x1024xf32>
  %b0 = dsm.weight "lstm0.bias" : tensor<1x8192xf32>
  %h0 = dsm.lstm %x, %w0, %u0, %b0 : (tensor<128x1x1024xf32>, tensor<1x4096x1024xf32>, tensor<1x4096x1024xf32>, tensor<1x8192xf32>) -> tensor<128x1x1024xf32> loc("lstm0")
  %w1 = dsm.weight "lstm1.weight_ih" : tensor<1x4096x1024xf32>
  %u1 = dsm.weight "lstm1.weight_hh" : tensor<1x4096x1024xf32>
  %b1 = dsm.weight "lstm1.bias" : tensor<1x8192xf32>
  %h1 = dsm.lstm %h0, %w1, %u1, %b1 : (tensor<128x1x1024xf32>, tensor<1x4096x1024xf32>, tensor<1x4096x1024xf32>, tensor<1x8192xf32>) -> tensor<128x1x1024xf32> loc("lstm1")
  return %h1 : tensor<128x1x1024xf32>
}

//===- DeviceTestHelpers.h - Graphs and networks for tests ------*- C++ -*-===//

#ifndef DSM_UNITTESTS_DEVICES_DEVICETESTHELPERS_H
#define DSM_UNITTESTS_DEVICES_DEVICETESTHELPERS_H

#include "dsm/Core/Devices/DeviceNetwork.h"
#include "dsm/Core/Devices/OpGraph.h"

#include <gtest/gtest.h>

namespace dsm::core::devices::testing {

constexpr double kGiga = 1e9;

/// `n` devices of 1 GFLOP/s and 1 GB, every one joined to device 0 by its own
/// 1 GB/s channel (a star, like a CPU with GPUs on PCIe).
inline DeviceNetwork makeStar(int n, double memory = 1e9) {
  DeviceNetwork network;
  for (int d = 0; d < n; ++d)
    network.addDevice({"d" + std::to_string(d), kGiga, memory, 0, 0});
  for (int d = 1; d < n; ++d)
    network.connect(0, d,
                    network.addChannel({"c" + std::to_string(d), kGiga, 1.0}));
  EXPECT_FALSE(bool(network.finalize()));
  return network;
}

/// An op of `gflop` forward GFLOP producing `outBytes`, reading `inputs`.
inline Op makeOp(const char *name, double gflop, int64_t outBytes,
                 std::initializer_list<int32_t> inputs = {},
                 double backwardGflop = 0, int64_t weightBytes = 0) {
  Op op;
  op.name = name;
  op.forwardFlops = gflop * kGiga;
  op.backwardFlops = backwardGflop * kGiga;
  op.outputBytes = outBytes;
  op.weightBytes = weightBytes;
  op.inputs.assign(inputs.begin(), inputs.end());
  return op;
}

} // namespace dsm::core::devices::testing

#endif // DSM_UNITTESTS_DEVICES_DEVICETESTHELPERS_H

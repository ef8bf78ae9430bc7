//===- DeviceNetworkTest.cpp - Routes and impossible networks -------------===//

#include "dsm/Core/Devices/DeviceNetwork.h"
#include "dsm/Core/Support/NodeError.h"

#include "DeviceTestHelpers.h"

#include <sys/resource.h>

using namespace dsm::core;
using namespace dsm::core::devices;
using namespace dsm::core::devices::testing;

namespace {

/// The NodeError's node, or -2 when the error is of another kind.
int64_t errorNode(llvm::Error error) {
  int64_t node = -2;
  llvm::handleAllErrors(std::move(error),
                        [&](const NodeError &e) { node = e.getNode(); });
  return node;
}

TEST(DeviceNetwork, StarRoutesGoThroughTheHub) {
  DeviceNetwork network = makeStar(3);
  EXPECT_TRUE(network.getRoute(1, 1).empty());
  EXPECT_EQ(network.getRoute(0, 2), std::vector<int32_t>{1});
  EXPECT_EQ(network.getRoute(1, 2), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(network.getRouteDevices(1, 2), (std::vector<int32_t>{1, 0, 2}));
  EXPECT_EQ(network.getNextChannel(1, 2), 0);
  EXPECT_EQ(network.getNextDevice(1, 2), 0);
}

/// The peak resident memory of this process so far, in bytes.
size_t peakResidentBytes() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return size_t(usage.ru_maxrss) * 1024;
}

// Issue 26: whole routes kept per device pair took over 5.7 GB for a chain
// of 1,200 devices (a route per pair, 600 hops long on average). One hop per
// pair takes 8 bytes: 11.5 MB.
TEST(DeviceNetwork, ChainOf1200DevicesKeepsOneHopPerPair) {
  constexpr int kDevices = 1200;
  size_t before = peakResidentBytes();
  DeviceNetwork network;
  for (int d = 0; d < kDevices; ++d)
    network.addDevice({"d" + std::to_string(d), 1e12, 1e9, 0, 0});
  for (int d = 0; d + 1 < kDevices; ++d)
    network.connect(d, d + 1, network.addChannel({"c", 1e9, 1}));
  ASSERT_FALSE(bool(network.finalize()));
  EXPECT_LT(peakResidentBytes() - before, size_t(64) << 20);
  std::vector<int32_t> route = network.getRoute(0, kDevices - 1);
  ASSERT_EQ(route.size(), size_t(kDevices - 1));
  for (int d = 0; d + 1 < kDevices; ++d)
    EXPECT_EQ(route[d], d);
  EXPECT_EQ(network.getRouteDevices(kDevices - 1, 0).back(), 0);
  EXPECT_EQ(network.getNextDevice(700, 3), 699);
  EXPECT_EQ(network.getNextChannel(700, 3), 699);
  EXPECT_EQ(network.getNextDevice(3, 700), 4);
}

// Between devices joined by two routes of equal length, a transfer takes the
// first hop of each device's own search, hop after hop; getRoute reports
// that path. In a ring of 4, from 0 to 2: through 1 (0's first connection).
TEST(DeviceNetwork, RouteFollowsTheFirstHopFromEachDevice) {
  DeviceNetwork network;
  for (int d = 0; d < 4; ++d)
    network.addDevice({"d" + std::to_string(d), 1e12, 1e9, 0, 0});
  for (int d = 0; d < 4; ++d)
    network.connect(d, (d + 1) % 4, network.addChannel({"c", 1e9, 1}));
  ASSERT_FALSE(bool(network.finalize()));
  EXPECT_EQ(network.getRouteDevices(0, 2), (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(network.getRoute(0, 2), (std::vector<int32_t>{0, 1}));
  // From 2 to 0: 2's own connection (to 3) first.
  EXPECT_EQ(network.getRouteDevices(2, 0), (std::vector<int32_t>{2, 3, 0}));
}

TEST(DeviceNetwork, MalvikFromTheSystemDescription) {
  DeviceGraphSystem system;
  system.devices = {{0, "cpu", DeviceType::CPU, 1.8e12, 755e9},
                    {1, "gpu0", DeviceType::GPU, 14e12, 32e9},
                    {2, "gpu1", DeviceType::GPU, 14e12, 32e9}};
  system.links = {{0, 1, 16e9, 0.25}, {0, 2, 16e9, 0.25}};
  llvm::Expected<DeviceNetwork> network = DeviceNetwork::fromSystem(system);
  ASSERT_TRUE(bool(network));
  EXPECT_EQ(network->getNumChannels(), 2u);
  EXPECT_DOUBLE_EQ(network->getChannel(0).effectiveBandwidth(), 4e9);
  EXPECT_EQ(network->getRoute(1, 2).size(), 2u);
}

TEST(DeviceNetwork, DisconnectedDeviceIsNamed) {
  DeviceNetwork network;
  network.addDevice({"a", 1, 1, 0, 0});
  network.addDevice({"b", 1, 1, 0, 0});
  network.addDevice({"lonely", 1, 1, 0, 0});
  network.connect(0, 1, network.addChannel({"ab", 1, 1}));
  EXPECT_EQ(errorNode(network.finalize()), 2);
}

TEST(DeviceNetwork, ZeroBandwidthChannelIsRejected) {
  DeviceNetwork network;
  network.addDevice({"a", 1, 1, 0, 0});
  network.addDevice({"b", 1, 1, 0, 0});
  network.connect(0, 1, network.addChannel({"ab", 0, 1}));
  EXPECT_EQ(errorNode(network.finalize()), 0);
}

TEST(DeviceNetwork, DeviceWithoutComputeIsRejected) {
  DeviceNetwork network;
  network.addDevice({"a", 1, 1, 0, 0});
  network.addDevice({"idle", 0, 1, 0, 0});
  network.connect(0, 1, network.addChannel({"ab", 1, 1}));
  EXPECT_EQ(errorNode(network.finalize()), 1);
}

} // namespace

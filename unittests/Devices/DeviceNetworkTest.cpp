//===- DeviceNetworkTest.cpp - Routes and impossible networks -------------===//

#include "dsm/Core/Devices/DeviceNetwork.h"
#include "dsm/Core/Support/NodeError.h"

#include "DeviceTestHelpers.h"

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
  EXPECT_EQ(network.getRoute(0, 2).vec(), std::vector<int32_t>{1});
  EXPECT_EQ(network.getRoute(1, 2).vec(), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(network.getRouteDevices(1, 2).vec(),
            (std::vector<int32_t>{1, 0, 2}));
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

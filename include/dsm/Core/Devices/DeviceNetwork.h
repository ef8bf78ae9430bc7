//===- DeviceNetwork.h - Devices, channels and routes -----------*- C++ -*-===//
//
// The device graph of the execution simulator: compute devices joined by
// communication channels. A channel is one FIFO shared by both directions and
// by every pair of devices that uses it (a PCIe bus serves each GPU's traffic
// with the CPU and, in the peer's device graphs, GPU-to-GPU traffic too).
// Devices without a direct channel talk over the fewest-hop route, hop by hop.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_DEVICES_DEVICENETWORK_H
#define DSM_CORE_DEVICES_DEVICENETWORK_H

#include "dsm/Core/System/SystemDescription.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dsm::core::devices {

struct ComputeDevice {
  std::string name;
  double peakFlops = 0;
  double memoryBytes = 0;
  /// Memory bandwidth (bytes/s); 0 when unknown. Only the peer's conventions
  /// charge it.
  double memoryBandwidth = 0;
  /// Clock (Hz); 0 when unknown. The peer's conventions charge at least one
  /// cycle per term.
  double clockHz = 0;
};

struct Channel {
  std::string name;
  double bandwidthBytesPerSecond = 0;
  /// Fraction of the bandwidth achieved (PCIe3: 25% as the thesis simulates).
  double efficiency = 1.0;
  double effectiveBandwidth() const {
    return bandwidthBytesPerSecond * efficiency;
  }
};

/// A direct connection: devices `a` and `b` talk over `channel`.
struct Connection {
  int32_t a = 0, b = 0, channel = 0;
};

class DeviceNetwork {
public:
  /// One channel per link of the system, devices numbered by position.
  static llvm::Expected<DeviceNetwork>
  fromSystem(const DeviceGraphSystem &system);

  int32_t addDevice(ComputeDevice device);
  int32_t addChannel(Channel channel);
  void connect(int32_t a, int32_t b, int32_t channel);

  /// Validates the network and computes every route. Errors (NodeErrors on
  /// the device id, or on the channel id for channels): no device, a device
  /// with no compute or no memory, a channel without bandwidth, devices that
  /// cannot reach each other.
  llvm::Error finalize();

  size_t getNumDevices() const { return devices.size(); }
  size_t getNumChannels() const { return channels.size(); }
  const ComputeDevice &getDevice(int32_t id) const { return devices[id]; }
  const Channel &getChannel(int32_t id) const { return channels[id]; }
  llvm::ArrayRef<ComputeDevice> getDevices() const { return devices; }
  llvm::ArrayRef<Channel> getChannels() const { return channels; }
  llvm::ArrayRef<Connection> getConnections() const { return connections; }

  /// The first hop from `from` towards `to` (from != to): the channel and
  /// the device at its far end. The fewest hops; among equals, the first
  /// found by a breadth-first search from `from` visiting from each device
  /// the connections it was added as `a` of, then those it was added as `b`
  /// of, each in the order they were added. A transfer takes this hop, then
  /// the first hop from where it arrived: the table keeps one hop per device
  /// pair (8 bytes), never whole routes.
  int32_t getNextChannel(int32_t from, int32_t to) const {
    return nextHops[size_t(from) * devices.size() + size_t(to)].channel;
  }
  int32_t getNextDevice(int32_t from, int32_t to) const {
    return nextHops[size_t(from) * devices.size() + size_t(to)].device;
  }

  /// Channels from `from` to `to`, in the order a transfer crosses them
  /// (hop after hop as above; empty when from == to). Computed on demand.
  std::vector<int32_t> getRoute(int32_t from, int32_t to) const;
  /// The devices the route from `from` to `to` visits: `from`, then the far
  /// end of each channel of getRoute(). Computed on demand.
  std::vector<int32_t> getRouteDevices(int32_t from, int32_t to) const;

private:
  std::vector<ComputeDevice> devices;
  std::vector<Channel> channels;
  std::vector<Connection> connections;
  struct Hop {
    int32_t device = -1, channel = -1;
  };
  /// The first hop for every (from, to), row-major by `from`.
  std::vector<Hop> nextHops;
};

} // namespace dsm::core::devices

#endif // DSM_CORE_DEVICES_DEVICENETWORK_H

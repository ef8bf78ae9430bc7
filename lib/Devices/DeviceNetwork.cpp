//===- DeviceNetwork.cpp - Devices, channels and routes -------------------===//

#include "dsm/Core/Devices/DeviceNetwork.h"
#include "dsm/Core/Support/NodeError.h"

#include "llvm/ADT/DenseMap.h"

#include <cmath>
#include <deque>

using namespace dsm::core;
using namespace dsm::core::devices;

llvm::Expected<DeviceNetwork>
DeviceNetwork::fromSystem(const DeviceGraphSystem &system) {
  DeviceNetwork network;
  llvm::DenseMap<int64_t, int32_t> index;
  for (const Device &device : system.devices) {
    index[device.id] = int32_t(network.devices.size());
    network.addDevice({device.name, device.peakFlops, device.memoryBytes,
                       device.memoryBandwidth, device.clockHz});
  }
  // Links naming one shared channel get one Channel, named after its id.
  llvm::DenseMap<int64_t, int32_t> shared;
  for (const DeviceLink &link : system.links) {
    auto from = index.find(link.from), to = index.find(link.to);
    if (from == index.end() || to == index.end())
      return makeNodeError(from == index.end() ? link.from : link.to,
                           "a link names device ",
                           from == index.end() ? link.from : link.to,
                           ", which the system does not have");
    auto known = link.channel >= 0 ? shared.find(link.channel) : shared.end();
    int32_t channel =
        known != shared.end()
            ? known->second
            : network.addChannel(
                  {link.channel >= 0
                       ? "channel" + std::to_string(link.channel)
                       : network.devices[from->second].name + "-" +
                             network.devices[to->second].name,
                   link.bandwidthBytesPerSecond, link.efficiency});
    if (link.channel >= 0)
      shared[link.channel] = channel;
    network.connect(from->second, to->second, channel);
  }
  if (llvm::Error error = network.finalize())
    return error;
  return network;
}

int32_t DeviceNetwork::addDevice(ComputeDevice device) {
  devices.push_back(std::move(device));
  return int32_t(devices.size() - 1);
}

int32_t DeviceNetwork::addChannel(Channel channel) {
  channels.push_back(std::move(channel));
  return int32_t(channels.size() - 1);
}

void DeviceNetwork::connect(int32_t a, int32_t b, int32_t channel) {
  connections.push_back({a, b, channel});
}

llvm::Error DeviceNetwork::finalize() {
  size_t n = devices.size();
  if (n == 0)
    return makeNodeError(-1, "the system has no devices");
  for (auto [id, device] : llvm::enumerate(devices)) {
    if (!(device.peakFlops > 0) || !std::isfinite(device.peakFlops))
      return makeNodeError(int64_t(id), "device '", device.name,
                           "' has no compute (peak FLOP/s must be > 0)");
    if (!(device.memoryBytes > 0))
      return makeNodeError(int64_t(id), "device '", device.name,
                           "' has no memory");
  }
  for (auto [id, channel] : llvm::enumerate(channels))
    if (!(channel.effectiveBandwidth() > 0) ||
        !std::isfinite(channel.effectiveBandwidth()))
      return makeNodeError(int64_t(id), "channel '", channel.name,
                           "' has zero bandwidth: nothing can cross it");
  for (const Connection &c : connections)
    if (c.a < 0 || c.b < 0 || size_t(c.a) >= n || size_t(c.b) >= n ||
        c.channel < 0 || size_t(c.channel) >= channels.size())
      return makeNodeError(-1, "a connection names a device or channel that "
                               "does not exist");

  // A device's own links (it is `a`) before those naming it: between two
  // devices joined twice, the sender's link carries the tensor.
  std::vector<std::vector<std::pair<int32_t, int32_t>>> neighbours(n);
  for (const Connection &c : connections)
    neighbours[c.a].push_back({c.b, c.channel});
  for (const Connection &c : connections)
    neighbours[c.b].push_back({c.a, c.channel});
  nextHops.assign(n * n, Hop());
  std::vector<int32_t> parent(n);
  std::deque<int32_t> frontier;
  for (size_t from = 0; from < n; ++from) {
    Hop *hops = &nextHops[from * n];
    std::fill(parent.begin(), parent.end(), -1);
    parent[from] = int32_t(from);
    frontier.assign(1, int32_t(from));
    while (!frontier.empty()) {
      int32_t device = frontier.front();
      frontier.pop_front();
      for (auto [next, channel] : neighbours[device])
        if (parent[next] < 0) {
          parent[next] = device;
          // The first hop towards `next` is the one towards its parent, or
          // this very channel from `from` itself.
          hops[next] =
              size_t(device) == from ? Hop{next, channel} : hops[device];
          frontier.push_back(next);
        }
    }
    for (size_t to = 0; to < n; ++to)
      if (parent[to] < 0)
        return makeNodeError(int64_t(to), "device '", devices[to].name,
                             "' cannot be reached from device '",
                             devices[from].name,
                             "': the device graph is disconnected");
  }
  return llvm::Error::success();
}

std::vector<int32_t> DeviceNetwork::getRoute(int32_t from, int32_t to) const {
  std::vector<int32_t> route;
  for (int32_t at = from; at != to; at = getNextDevice(at, to))
    route.push_back(getNextChannel(at, to));
  return route;
}

std::vector<int32_t> DeviceNetwork::getRouteDevices(int32_t from,
                                                    int32_t to) const {
  std::vector<int32_t> visited{from};
  for (int32_t at = from; at != to; visited.push_back(at))
    at = getNextDevice(at, to);
  return visited;
}

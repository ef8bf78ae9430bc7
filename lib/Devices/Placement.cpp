//===- Placement.cpp - Which device runs each operation -------------------===//

#include "dsm/Core/Devices/Placement.h"

#include <algorithm>

using namespace dsm::core;
using namespace dsm::core::devices;

int32_t devices::countDevicesUsed(llvm::ArrayRef<int32_t> placement,
                                  size_t numDevices) {
  std::vector<uint8_t> used(numDevices, 0);
  int32_t count = 0;
  for (int32_t device : placement)
    if (!used[device]) {
      used[device] = 1;
      ++count;
    }
  return count;
}

int32_t devices::getModalDevice(llvm::ArrayRef<int32_t> placement,
                                size_t numDevices) {
  std::vector<int64_t> ops(numDevices, 0);
  for (int32_t device : placement)
    ++ops[device];
  return int32_t(std::max_element(ops.begin(), ops.end()) - ops.begin());
}

int64_t devices::countTransfers(const OpGraph &graph,
                                llvm::ArrayRef<int32_t> placement) {
  int64_t transfers = 0;
  llvm::SmallVector<int32_t, 4> destinations;
  for (size_t op = 0; op < graph.size(); ++op) {
    destinations.clear();
    for (int32_t consumer : graph.getConsumers(int32_t(op))) {
      int32_t device = placement[consumer];
      if (device != placement[op] && !llvm::is_contained(destinations, device))
        destinations.push_back(device);
    }
    transfers += int64_t(destinations.size());
  }
  return transfers;
}

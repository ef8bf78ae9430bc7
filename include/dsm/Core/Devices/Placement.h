//===- Placement.h - Which device runs each operation -----------*- C++ -*-===//
//
// The solution encoding of the thesis (§3.2.1): one device id per operation,
// in the graph's topological order. The helpers compute the phenotype
// properties MAP-Elites files solutions under.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_DEVICES_PLACEMENT_H
#define DSM_CORE_DEVICES_PLACEMENT_H

#include "dsm/Core/Devices/OpGraph.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace dsm::core::devices {

/// Device id of every op, index for index with the OpGraph.
using Placement = std::vector<int32_t>;

/// How many distinct devices run at least one op.
int32_t countDevicesUsed(llvm::ArrayRef<int32_t> placement, size_t numDevices);

/// The device running the most ops (the lowest id among equals).
int32_t getModalDevice(llvm::ArrayRef<int32_t> placement, size_t numDevices);

/// Tensor transfers per forward pass: one per (op, other device running one
/// of its consumers).
int64_t countTransfers(const OpGraph &graph, llvm::ArrayRef<int32_t> placement);

} // namespace dsm::core::devices

#endif // DSM_CORE_DEVICES_PLACEMENT_H

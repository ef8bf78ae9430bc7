//===- DeviceSearches.h - The search algorithms, one entry each -*- C++ -*-===//
//
// Internal to lib/Devices: DevicePlacementSearch.cpp dispatches to these.
// Each runs until the evaluator has spent `budget` evaluations (or, for the
// baselines, their own few) and leaves the best in the evaluator.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_LIB_DEVICES_DEVICESEARCHES_H
#define DSM_LIB_DEVICES_DEVICESEARCHES_H

#include "dsm/Core/Devices/DevicePlacementEvaluator.h"
#include "dsm/Core/Support/Random.h"

namespace dsm::core::devices {
struct SearchOptions;
} // namespace dsm::core::devices

namespace dsm::core::devices::detail {

/// A placement with every gene drawn uniformly over the devices.
Placement randomPlacement(size_t ops, size_t devices, Random &random);
/// Sets one gene to a different device (no-op with a single device).
void mutateOneGene(Placement &placement, size_t devices, Random &random);
/// Sets a random zone of consecutive genes to one random device.
void mutateZone(Placement &placement, size_t devices, Random &random);

void runLocalSearch(PlacementEvaluator &evaluator, const SearchOptions &search,
                    size_t devices, bool anneal);
void runGenetic(PlacementEvaluator &evaluator, const SearchOptions &search,
                size_t devices);
void runMapElites(PlacementEvaluator &evaluator, const OpGraph &graph,
                  const SearchOptions &search, size_t devices);

} // namespace dsm::core::devices::detail

#endif // DSM_LIB_DEVICES_DEVICESEARCHES_H

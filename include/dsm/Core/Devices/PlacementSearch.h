//===- PlacementSearch.h - Now DevicePlacementSearch.h ----------*- C++ -*-===//
//
// Renamed so that no two rooms have a file of the same name. This forwarding
// header keeps the benchmarks (tools/dsm-bench) building until they include
// the new path; delete it then.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_DEVICES_PLACEMENTSEARCH_H
#define DSM_CORE_DEVICES_PLACEMENTSEARCH_H

#include "dsm/Core/Devices/DevicePlacementSearch.h"

#endif // DSM_CORE_DEVICES_PLACEMENTSEARCH_H

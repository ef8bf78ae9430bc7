//===- PlacementSearch.h - Now MemoryPlacementSearch.h ----------*- C++ -*-===//
//
// Renamed so that no two rooms have a file of the same name. This forwarding
// header keeps the benchmarks (tools/dsm-bench) building until they include
// the new path; delete it then.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_MEMORY_PLACEMENTSEARCH_H
#define DSM_CORE_MEMORY_PLACEMENTSEARCH_H

#include "dsm/Core/Memory/MemoryPlacementSearch.h"

#endif // DSM_CORE_MEMORY_PLACEMENTSEARCH_H

//===- PlacementEvaluator.h - Now MemoryPlacementEvaluator.h ----*- C++ -*-===//
//
// Renamed so that no two rooms have a file of the same name. This forwarding
// header keeps the benchmarks (tools/dsm-bench) building until they include
// the new path; delete it then.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_MEMORY_PLACEMENTEVALUATOR_H
#define DSM_CORE_MEMORY_PLACEMENTEVALUATOR_H

#include "dsm/Core/Memory/MemoryPlacementEvaluator.h"

#endif // DSM_CORE_MEMORY_PLACEMENTEVALUATOR_H

//===- DevicePlacementReport.h - What a placement achieved ------*- C++ -*-===//
//
// The report of --dsm-place-devices (docs/device-placement.md): the step time
// of the best placement found, each device's busy time, ops and peak memory,
// each channel's busy time, the transfers, and how the search went -- its
// best fitness after each improvement and how fast it evaluated. Printed as a
// table or streamed as JSON.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_DEVICES_DEVICEPLACEMENTREPORT_H
#define DSM_CORE_DEVICES_DEVICEPLACEMENTREPORT_H

#include "dsm/Core/Devices/DeviceNetwork.h"
#include "dsm/Core/Devices/DevicePlacementSearch.h"
#include "dsm/Core/Devices/ExecutionSimulator.h"
#include "dsm/Core/Devices/OpGraph.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace dsm::core::devices {

struct PlacementReport {
  std::string systemName;
  const OpGraph *graph = nullptr;
  const DeviceNetwork *network = nullptr;
  SimulationOptions simulation;
  SearchOptions search;
  SearchResult outcome;
  /// The simulation of outcome.best.
  SimulationResult best;
  /// Wall-clock seconds of the search (the only figure that varies between
  /// identical runs).
  double searchSeconds = 0;
  /// A signal stopped the search: the placement is its best so far.
  bool interrupted = false;
  /// The search's wall-clock budget (0: none), and whether it ended it.
  double timeBudgetSeconds = 0;
  bool timeBudgetReached = false;
};

void printPlacementTable(const PlacementReport &report, llvm::raw_ostream &os);
void writePlacementJSON(const PlacementReport &report, llvm::raw_ostream &os);
/// One CSV row per op: op, device (its position in the system), device_name.
void writePlacementCSV(const PlacementReport &report, llvm::raw_ostream &os);

} // namespace dsm::core::devices

#endif // DSM_CORE_DEVICES_DEVICEPLACEMENTREPORT_H

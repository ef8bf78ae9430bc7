//===- ChromeTrace.h - A simulated schedule as a Chrome trace ---*- C++ -*-===//
//
// Writes a recorded schedule in the Trace Event Format that chrome://tracing
// and ui.perfetto.dev open: one process "devices" with a track per device, one
// process "channels" with a track per channel; complete ("X") events in
// microseconds named after the op, category "forward"/"backward"/
// "transfer", the batch in the name and in args, and a colour per batch and
// pass (the thesis's Fig. 4.7: two shades per batch).
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_DEVICES_CHROMETRACE_H
#define DSM_CORE_DEVICES_CHROMETRACE_H

#include "dsm/Core/Devices/DeviceNetwork.h"
#include "dsm/Core/Devices/ExecutionSimulator.h"
#include "dsm/Core/Devices/OpGraph.h"

#include "llvm/Support/raw_ostream.h"

namespace dsm::core::devices {

/// Streams `result.schedule` (recorded with SimulationOptions::recordTrace)
/// as a JSON object with a `traceEvents` array.
void writeChromeTrace(const OpGraph &graph, const DeviceNetwork &network,
                      const SimulationResult &result, llvm::raw_ostream &os);

} // namespace dsm::core::devices

#endif // DSM_CORE_DEVICES_CHROMETRACE_H

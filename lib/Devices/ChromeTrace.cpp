//===- ChromeTrace.cpp - A simulated schedule as a Chrome trace -----------===//

#include "dsm/Core/Devices/ChromeTrace.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace dsm::core;
using namespace dsm::core::devices;

namespace {
constexpr int kDeviceProcess = 1;
constexpr int kChannelProcess = 2;

/// Trace viewers' reserved colour names: batch k uses pair k mod 4, the
/// darker shade for forward.
constexpr const char *kColours[][2] = {
    {"thread_state_running", "good"},
    {"rail_response", "rail_idle"},
    {"rail_animation", "rail_load"},
    {"cq_build_running", "cq_build_passed"},
};

void writeName(llvm::json::OStream &json, const char *kind, int pid, int tid,
               llvm::StringRef name) {
  json.object([&] {
    json.attribute("name", kind);
    json.attribute("ph", "M");
    json.attribute("pid", pid);
    json.attribute("tid", tid);
    json.attributeObject("args", [&] { json.attribute("name", name); });
  });
}
} // namespace

void devices::writeChromeTrace(const OpGraph &graph,
                               const DeviceNetwork &network,
                               const SimulationResult &result,
                               llvm::raw_ostream &os) {
  llvm::json::OStream json(os, /*IndentSize=*/1);
  json.object([&] {
    json.attribute("displayTimeUnit", "ms");
    json.attributeArray("traceEvents", [&] {
      writeName(json, "process_name", kDeviceProcess, 0, "devices");
      writeName(json, "process_name", kChannelProcess, 0, "channels");
      for (auto [id, device] : llvm::enumerate(network.getDevices()))
        writeName(json, "thread_name", kDeviceProcess, int(id),
                  llvm::formatv("{0}: {1}", id, device.name).str());
      for (auto [id, channel] : llvm::enumerate(network.getChannels()))
        writeName(json, "thread_name", kChannelProcess, int(id),
                  llvm::formatv("channel {0}: {1}", id, channel.name).str());
      for (const ScheduledItem &item : result.schedule) {
        bool forward = item.pass == PassKind::Forward;
        bool transfer = item.kind == ScheduledItem::Transfer;
        const std::string &op = graph.getOp(item.op).name;
        json.object([&] {
          json.attribute("name",
                         llvm::formatv("{0} {1} b{2}", forward ? "fwd" : "bwd",
                                       op, item.batch)
                             .str());
          json.attribute("cat", transfer  ? "transfer"
                                : forward ? "forward"
                                          : "backward");
          json.attribute("ph", "X");
          json.attribute("pid", transfer ? kChannelProcess : kDeviceProcess);
          json.attribute("tid", item.resource);
          json.attribute("ts", item.start * 1e6);
          json.attribute("dur", (item.end - item.start) * 1e6);
          json.attribute("cname", kColours[item.batch % 4][forward ? 0 : 1]);
          json.attributeObject("args", [&] {
            json.attribute("op", op);
            json.attribute("batch", item.batch);
            json.attribute("pass", forward ? "forward" : "backward");
            if (transfer) {
              json.attribute("from", network.getDevice(item.from).name);
              json.attribute("to", network.getDevice(item.to).name);
              json.attribute("bytes", item.bytes);
            }
          });
        });
      }
    });
  });
}

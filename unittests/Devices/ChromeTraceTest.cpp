//===- ChromeTraceTest.cpp - The trace a viewer opens ---------------------===//

#include "dsm/Core/Devices/ChromeTrace.h"

#include "DeviceTestHelpers.h"

#include "llvm/Support/JSON.h"

#include <set>

using namespace dsm::core::devices;
using namespace dsm::core::devices::testing;

namespace {

TEST(ChromeTrace, OneTrackPerDeviceAndChannelPassesAndBatchesApart) {
  OpGraph graph;
  graph.addOp(makeOp("a", 1, int64_t(1e9), {}, 1));
  graph.addOp(makeOp("b", 1, 100, {0}, 1));
  DeviceNetwork network = makeStar(2);
  SimulationOptions options;
  options.computeEfficiency = 1;
  options.batches = 2;
  options.recordTrace = true;
  ExecutionSimulator simulator(graph, network, options);
  const SimulationResult &result = simulator.run({0, 1});

  std::string text;
  llvm::raw_string_ostream os(text);
  writeChromeTrace(graph, network, result, os);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Array *events =
      parsed->getAsObject()->getArray("traceEvents");
  ASSERT_TRUE(events);

  int threads = 0, complete = 0, backward = 0, transfers = 0;
  std::set<int64_t> batches;
  for (const llvm::json::Value &value : *events) {
    const llvm::json::Object &event = *value.getAsObject();
    llvm::StringRef phase = *event.getString("ph");
    if (phase == "M" && *event.getString("name") == "thread_name")
      ++threads;
    if (phase != "X")
      continue;
    ++complete;
    batches.insert(*event.getObject("args")->getInteger("batch"));
    backward += *event.getString("cat") == "backward";
    transfers += *event.getString("cat") == "transfer";
    EXPECT_GE(*event.getNumber("dur"), 0);
  }
  EXPECT_EQ(threads, 3); // two devices, one channel
  // 2 batches x 2 ops x 2 passes, and per batch a forward and a gradient
  // transfer.
  EXPECT_EQ(complete, 8 + 4);
  EXPECT_EQ(backward, 4);
  EXPECT_EQ(transfers, 4);
  EXPECT_EQ(batches, (std::set<int64_t>{0, 1}));
}

} // namespace

//===- MemoryPlacementReportTest.cpp - The report's contents --------------===//

#include "dsm/Core/Memory/MemoryPlacementReport.h"

#include "MemoryTestHelpers.h"

#include "llvm/Support/JSON.h"

using namespace dsm::core;
using namespace dsm::core::memory;
using namespace dsm::core::memory::test;

namespace {

TEST(PlacementReportTest, BestSoFarListsOnlyImprovements) {
  PlacementSearchResult result;
  result.bestSpeedupByIteration = {0, 0, 0.5, 0.5, 1.2, 1.2, 1.2};
  auto steps = getBestSoFarSteps(result);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0], (std::pair<int64_t, double>{1, 0}));
  EXPECT_EQ(steps[1], (std::pair<int64_t, double>{3, 0.5}));
  EXPECT_EQ(steps[2], (std::pair<int64_t, double>{5, 1.2}));
}

TEST(PlacementReportTest, JsonListsEveryTensorWithLevelAndLiveRange) {
  // a (weights 15, output 4) -> b (no weights, output 2); SRAM 20, LLC 30.
  MemoryGraph graph =
      makeGraph({makeNode("a", 15, 4, 10), makeNode("b", 0, 2, 10, {0})});
  auto evaluator = PlacementEvaluator::create(graph, makeTinySystem());
  ASSERT_TRUE(bool(evaluator));
  SerialExecutor serial;
  auto result = runPlacementSearch(PlacementSearchKind::Compiler, *evaluator,
                                   PlacementSearchOptions(), serial);
  ASSERT_TRUE(bool(result));
  PlacementReport report;
  report.systemName = "tiny";
  report.graphName = "g";
  report.evaluator = &*evaluator;
  report.result = std::move(*result);
  std::string text;
  llvm::raw_string_ostream os(text);
  writePlacementJSON(report, os);
  auto json = llvm::json::parse(text);
  ASSERT_TRUE(bool(json)) << llvm::toString(json.takeError());
  const llvm::json::Object &placement =
      *json->getAsObject()->getArray("placements")->front().getAsObject();
  EXPECT_EQ(placement.getString("function"), "g");
  EXPECT_EQ(placement.getBoolean("valid"), true);
  EXPECT_EQ(placement.getNumber("speedup"), 1.0);
  const llvm::json::Array &tensors = *placement.getArray("tensors");
  // a's weights and activations, b's activations (b has no weights).
  ASSERT_EQ(tensors.size(), 3u);
  const llvm::json::Object &weights = *tensors[0].getAsObject();
  EXPECT_EQ(weights.getString("tensor"), "weights");
  EXPECT_EQ(weights.getInteger("bytes"), 15);
  // The compiler's rules: a's output takes SRAM, its weights the LLC.
  EXPECT_EQ(weights.getString("level"), "llc");
  EXPECT_EQ((*weights.getArray("live"))[1].getAsInteger(), 1);
  const llvm::json::Object &output = *tensors[2].getAsObject();
  EXPECT_EQ(output.getString("node"), "b");
  EXPECT_EQ((*output.getArray("live"))[0].getAsInteger(), 1);
  EXPECT_EQ(placement.getArray("levels")->size(), 3u);
}

} // namespace

//===- DecisionRecordsTest.cpp - The memory decisions' records ------------===//
//
// Every field of MemoryDecision belongs to one record, under one key, and
// reads back what was set; the records' checks are the attribute's rules;
// explain lists the decisions record by record.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Spatial/DecisionRecords.h"
#include "TestHelpers.h"
#include "dsm/Core/Spatial/LayerGraph.h"
#include "dsm/Core/Spatial/PerformanceModel.h"

#include "llvm/ADT/StringSet.h"

#include <gtest/gtest.h>

using namespace dsm::core;
using dsm::core::testing::multiChipPreset;

namespace {

TEST(DecisionRecordsTest, EveryFieldHasOneKeyAndStartsAtItsDefault) {
  llvm::StringSet<> keys;
  int fields = 0;
  forEachDecisionField([&](const DecisionField &f) {
    ++fields;
    EXPECT_TRUE(keys.insert(f.key).second) << f.key.str() << " twice";
    EXPECT_FALSE(f.isSet(MemoryDecision())) << f.key.str();
    EXPECT_EQ(findDecisionField(f.key), &f);
  });
  EXPECT_GE(fields, 17);
  EXPECT_EQ(findDecisionField("no_such_decision"), nullptr);
}

// A field set through its record is the member the mapper reads, and no
// other: equality and the hash see it, and every other field stays put.
TEST(DecisionRecordsTest, EachFieldSetsItsMemberAlone) {
  forEachDecisionField([&](const DecisionField &f) {
    MemoryDecision decision;
    const int64_t value = f.flag ? 1 : f.defaultValue + 3;
    f.set(decision, value);
    EXPECT_EQ(f.get(decision), value) << f.key.str();
    EXPECT_NE(decision, MemoryDecision()) << f.key.str();
    EXPECT_NE(hash_value(decision), hash_value(MemoryDecision()))
        << f.key.str();
    forEachDecisionField([&](const DecisionField &other) {
      if (&other != &f)
        EXPECT_FALSE(other.isSet(decision))
            << f.key.str() << " also set " << other.key.str();
    });
  });
  MemoryDecision recomputed;
  findDecisionField("recompute")->set(recomputed, 1);
  EXPECT_TRUE(recomputed.recomputed);
  MemoryDecision stage;
  findDecisionField("microbatches")->set(stage, 16);
  EXPECT_EQ(stage.microbatches, 16);
}

TEST(DecisionRecordsTest, ChecksAreTheRecordsRules) {
  EXPECT_EQ(checkDecision(MemoryDecision()), "");
  MemoryDecision weights;
  weights.shardedWeights = true;
  EXPECT_EQ(checkDecision(weights), "sharded_weights without sharded_state");
  weights.shardedState = true;
  EXPECT_EQ(checkDecision(weights), "");
  MemoryDecision microbatches;
  microbatches.microbatches = 4;
  EXPECT_NE(checkDecision(microbatches).find("without a pipe group"),
            std::string::npos);
  microbatches.pipeGroup = 0;
  microbatches.pipeRows = 2;
  EXPECT_EQ(checkDecision(microbatches), "");
  MemoryDecision dysm;
  dysm.spatialMinibatches = 0;
  EXPECT_EQ(checkDecision(dysm), "dysm factor must be at least 1, got 0");
}

TEST(DecisionRecordsTest, ExplainListsTheDecisionsRecordByRecord) {
  MemoryDecision d;
  EXPECT_TRUE(explainDecision(d).empty());
  d.inputOnChip = true;
  d.spatialMinibatches = 4;
  d.pipeGroup = 0;
  d.pipeFirstRow = 2;
  d.pipeRows = 2;
  d.microbatches = 8;
  d.shardedState = true;
  d.recomputed = true;
  const std::vector<std::string> expected = {
      "input_reuse", "dysm 4",
      "pipeline stage on torus rows 2-3, 8 microbatches", "sharded_state",
      "recompute"};
  EXPECT_EQ(explainDecision(d), expected);
}

} // namespace

namespace {

// A decision belongs to some passes of some layers on some systems: each
// record says which (verifyPlan asks every pass's decision).
TEST(DecisionRecordsTest, ARecordSaysWhereItsDecisionBelongs) {
  const PerformanceModel model(multiChipPreset("dsm-8pf-asym")); // 16 x 4
  LayerNode trained;
  trained.shape.params = 1024;
  trained.bwd = trained.upd = true;
  LayerNode inferred = trained;
  inferred.bwd = inferred.upd = false;
  auto why = [&](const LayerNode &layer, TrainingPass pass,
                 const MemoryDecision &d) {
    return checkDecisionInPlan({layer, pass, d, model});
  };
  MemoryDecision sharded;
  sharded.shardedState = true;
  EXPECT_EQ(why(trained, TrainingPass::FWD, sharded), "");
  EXPECT_NE(why(trained, TrainingPass::UPD, sharded), "");
  sharded.offloadedState = true;
  EXPECT_NE(why(trained, TrainingPass::FWD, sharded).find("no host link"),
            std::string::npos);
  MemoryDecision recomputed;
  recomputed.recomputed = true;
  EXPECT_EQ(why(trained, TrainingPass::FWD, recomputed), "");
  EXPECT_NE(why(inferred, TrainingPass::FWD, recomputed), "");
  MemoryDecision preload;
  preload.preloadedWeightBytes = 4096;
  EXPECT_EQ(why(inferred, TrainingPass::FWD, preload), "");
  EXPECT_NE(why(trained, TrainingPass::FWD, preload), "");
  MemoryDecision stage;
  stage.pipeGroup = 0;
  stage.pipeRows = 4;
  stage.pipeFirstRow = 12;
  EXPECT_EQ(why(trained, TrainingPass::BWD, stage), "");
  stage.pipeFirstRow = 13;
  EXPECT_EQ(why(trained, TrainingPass::BWD, stage),
            "runs on torus rows 13-16 of 16");
  MemoryDecision error;
  error.errorOnChip = true;
  EXPECT_NE(why(trained, TrainingPass::FWD, error), "");
  EXPECT_EQ(why(trained, TrainingPass::BWD, error), "");
}

} // namespace

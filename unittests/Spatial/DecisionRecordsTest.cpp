//===- DecisionRecordsTest.cpp - The memory decisions' records ------------===//
//
// Every field of MemoryDecision belongs to one record, under one key, and
// reads back what was set; the records' checks are the attribute's rules;
// explain lists the decisions record by record.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Spatial/DecisionRecords.h"

#include "llvm/ADT/StringSet.h"

#include <gtest/gtest.h>

using namespace dsm::core;

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

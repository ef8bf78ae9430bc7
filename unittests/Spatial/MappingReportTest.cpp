//===- MappingReportTest.cpp - The JSON report as llvm::json prints it ----===//

#include "dsm/Core/Spatial/MappingReport.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace dsm::core;

namespace {
/// A report whose rows use what a row may hold: alternatives, a block,
/// transfers with and without the host link, every memory decision,
/// figures whole, fractional and beyond 1e17, a pipeline.
MappingReport sampleReport() {
  MappingReport report;
  report.system = "test \"system\"";
  report.mode = "train";
  report.batch = 64;
  report.frequencyHz = 2e9;
  report.peakFlops = 1e15;
  for (int r = 0; r < 3; ++r) {
    MappingReportRow row;
    row.layer = "layer" + std::to_string(r);
    row.pass = r == 1 ? TrainingPass::BWD : TrainingPass::FWD;
    row.kind = "fc";
    row.parallelism = r == 2 ? Parallelism::ModelXDataY : Parallelism::Data;
    if (r == 2)
      row.block = {2, 4};
    row.chipSplit = {8, 1, 2, 1, 1};
    row.coreSplit = {1, 4, 1, 8, 1};
    row.chipD = {64, 256, 128, 1, 1};
    row.coreD = {64, 64, 128, 1, 1};
    row.arrayD = {1, 32, 32, 1, 1};
    row.cycles.useful = 1000 * (r + 1);
    row.cycles.underuse = 333.25;
    row.cycles.ovldtVisible = r == 0 ? 2e17 : 0;
    row.cycles.nonOvldt = 12;
    row.cycles.auxComp = 7;
    row.cycles.total = row.cycles.priComp() + row.cycles.ovldtVisible +
                       row.cycles.nonOvldt + row.cycles.auxComp;
    row.macs = 1.5e12 * (r + 1);
    TransferGroup fetch;
    fetch.name = "fetch_inp+fetch_ker+write_out";
    fetch.overlapped = true;
    fetch.bytes = {393216, 196608, 0, 0, r == 1 ? 4096.5 : 0};
    fetch.cycles = 3840;
    row.transfers.push_back(fetch);
    if (r != 1)
      row.alternatives = {{Parallelism::Data, 11559},
                          {Parallelism::Model, 26706.5},
                          {Parallelism::DataXModelY, 28158},
                          {Parallelism::ModelXDataY, 16742}};
    row.memory.inputOnChip = r == 1;
    row.memory.spatialMinibatches = r + 1;
    row.memory.preloadedWeightBytes = 4096 * r;
    row.memory.pipeGroup = r == 2 ? 0 : -1;
    row.memory.microbatches = 4;
    row.memory.recomputed = true;
    row.memory.shardedState = r > 0;
    row.memory.offloadedState = r == 2;
    row.residentWeightFraction = r * 0.3;
    report.rows.push_back(row);
  }
  MemoryPerChip memory;
  memory.weights = 1e9;
  memory.activations = 2.5e8;
  memory.capacity = 8e9;
  memory.offloaded = 1e6;
  memory.hostCapacity = 1e12;
  report.memory = memory;
  report.selectionExact = false;
  report.selectionStatesKept = 256;
  return report;
}
} // namespace

// The model's FLOPs count every pass's MACs once, twice a MAC; the
// hardware's count the recomputed forward passes again (rows 0 and 2 are
// FWD passes, row 1 a BWD); each over the peak for the step is MFU, HFU.
TEST(MappingReportTest, FlopsCountRecomputedForwardPassesForTheHardwareOnly) {
  MappingReport report = sampleReport();
  const MappingReport::FlopCount flops = report.flops();
  EXPECT_DOUBLE_EQ(flops.model, 2 * (1.5e12 + 3e12 + 4.5e12));
  EXPECT_DOUBLE_EQ(flops.hardware, flops.model + 2 * (1.5e12 + 4.5e12));
  const double seconds = report.totalSeconds();
  ASSERT_GT(seconds, 0);
  EXPECT_DOUBLE_EQ(report.modelFlopUtilization(),
                   flops.model / (1e15 * seconds));
  EXPECT_DOUBLE_EQ(report.hardwareFlopUtilization(),
                   flops.hardware / (1e15 * seconds));
  EXPECT_NE(report.describeFlops().find("(MFU); with recomputation"),
            std::string::npos);
  // Without recomputation the two are one figure; without a peak, none.
  for (MappingReportRow &row : report.rows)
    row.memory.recomputed = false;
  EXPECT_DOUBLE_EQ(report.flops().hardware, report.flops().model);
  EXPECT_EQ(report.describeFlops().find("HFU"), std::string::npos);
  report.peakFlops = 0;
  EXPECT_EQ(report.modelFlopUtilization(), 0);
  EXPECT_EQ(report.describeFlops(), "");
}

// The report is streamed field by field; what it writes must be what
// llvm::json writes for the same values: keys sorted, two-space indents,
// numbers printed as llvm::json prints them.
TEST(MappingReportTest, StreamedJsonIsWhatLlvmJsonPrints) {
  std::string streamed;
  llvm::raw_string_ostream os(streamed);
  writeMappingJSON(sampleReport(), os);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(streamed);
  ASSERT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(streamed, llvm::formatv("{0:2}", *parsed).str() + "\n");
  // The sample holds what it should: a fraction, a block, the host link.
  EXPECT_NE(streamed.find("\"rows\": 2"), std::string::npos);
  EXPECT_NE(streamed.find("\"host\": 4096.5"), std::string::npos);
  EXPECT_NE(streamed.find("\"offloaded_state\": true"), std::string::npos);
  EXPECT_NE(streamed.find("\"ovl\": 2e+17"), std::string::npos);
}

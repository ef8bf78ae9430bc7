//===- WorkloadReport.cpp - --dsm-workload-report -------------------------===//

#include "dsm/Passes/Common/WorkloadAnalysis.h"
#include "dsm/Passes/Passes.h"
#include "dsm/Support/ReportWriter.h"

namespace dsm {
#define GEN_PASS_DEF_DSMWORKLOADREPORT
#include "dsm/Passes/Passes.h.inc"
} // namespace dsm

using namespace mlir;
using namespace dsm;

namespace {
struct WorkloadReportPass
    : public dsm::impl::DsmWorkloadReportBase<WorkloadReportPass> {
  using DsmWorkloadReportBase::DsmWorkloadReportBase;

  void runOnOperation() override {
    const core::WorkloadSummary &summary =
        getAnalysis<WorkloadAnalysis>().getSummary();
    if (summary.totals.overflow) {
      getOperation().emitError(
          "the model's total MACs, parameters or bytes overflow 64 bits");
      return signalPassFailure();
    }
    auto json = [&](llvm::raw_ostream &os) {
      core::writeWorkloadJSON(summary, os);
    };
    LogicalResult written = writeFigureReport(
        output, getOperation().getLoc(), format, json,
        [&](llvm::raw_ostream &os) { printWorkloadTable(summary, os); });
    if (failed(written))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace

//===- WorkloadSummary.h - Per-layer and total workload ---------*- C++ -*-===//
//
// The data behind --dsm-workload-report: one record per operation and the
// model totals, printable as a table or as JSON (docs/workload-report.md).
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_WORKLOAD_WORKLOADSUMMARY_H
#define DSM_CORE_WORKLOAD_WORKLOADSUMMARY_H

#include "dsm/Core/Workload/Workload.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace dsm::core {

struct LayerRecord {
  std::string name; ///< from the op's location name, else "<mnemonic>_<n>"
  std::string op;   ///< operation name, e.g. "dsm.conv2d"
  Workload workload;
  /// Parameters first used by this layer (shared parameters count once, at
  /// their first user).
  int64_t newParams = 0;
};

struct WorkloadTotals {
  int64_t macs = 0;
  int64_t params = 0;
  double auxOps = 0;
  int64_t convLayers = 0;
  int64_t depthwiseConvLayers = 0; ///< included in convLayers
  int64_t fcLayers = 0;
  int64_t matmulLayers = 0;
  int64_t lstmLayers = 0;
  /// Bytes written by all operations except reshapes (which are views).
  int64_t activationBytes = 0;
  int64_t weightBytes = 0;
  /// Set when a total overflowed 64 bits (a model re-batched to 2^31): the
  /// totals are then meaningless and must be reported as an error.
  bool overflow = false;
};

struct WorkloadSummary {
  std::vector<LayerRecord> layers;
  WorkloadTotals totals;

  /// Recomputes `totals` from `layers`.
  void computeTotals();
};

/// A depthwise convolution has one input channel per group.
bool isDepthwise(const Workload &workload);

void printWorkloadTable(const WorkloadSummary &summary, llvm::raw_ostream &os);
/// The JSON report (docs/workload-report.md), streamed layer by layer.
void writeWorkloadJSON(const WorkloadSummary &summary, llvm::raw_ostream &os);

} // namespace dsm::core

#endif // DSM_CORE_WORKLOAD_WORKLOADSUMMARY_H

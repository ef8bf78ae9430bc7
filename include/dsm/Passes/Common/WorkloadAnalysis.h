//===- WorkloadAnalysis.h - Workloads of a module's operations --*- C++ -*-===//
//
// Collects the workload of every dsm operation in a module, in program order,
// into the core library's WorkloadSummary, each named by getLayerName
// (dsm/Support/LayerName.h). Later passes (mapping, placement) use the same
// records and names.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_PASSES_COMMON_WORKLOADANALYSIS_H
#define DSM_PASSES_COMMON_WORKLOADANALYSIS_H

#include "dsm/Core/Workload/WorkloadSummary.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"

namespace dsm {

class WorkloadAnalysis {
public:
  explicit WorkloadAnalysis(mlir::Operation *root);

  const core::WorkloadSummary &getSummary() const { return summary; }
  /// The operations behind `getSummary().layers`, index for index.
  llvm::ArrayRef<mlir::Operation *> getOperations() const { return operations; }

private:
  core::WorkloadSummary summary;
  std::vector<mlir::Operation *> operations;
};

} // namespace dsm

#endif // DSM_PASSES_COMMON_WORKLOADANALYSIS_H

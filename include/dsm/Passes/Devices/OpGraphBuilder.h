//===- OpGraphBuilder.h - A module's ops as a core OpGraph ------*- C++ -*-===//
//
// The analysis half of --dsm-place-devices: every operation with a workload
// becomes an op of the core OpGraph, in program order (topological within a
// function), reading the ops that produce its operands. Values that pass
// through other operations keep their producers, so a dependency is never
// lost.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_PASSES_DEVICES_OPGRAPHBUILDER_H
#define DSM_PASSES_DEVICES_OPGRAPHBUILDER_H

#include "dsm/Core/Devices/OpGraph.h"
#include "dsm/Passes/Common/WorkloadAnalysis.h"

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <vector>

namespace dsm {

struct OpGraphWithOps {
  core::devices::OpGraph graph;
  /// The operation behind each op of the graph, index for index.
  std::vector<mlir::Operation *> operations;
};

/// Reads the workloads `analysis` collected under `root` into an OpGraph,
/// costed under `conventions`. Fails (with an error on the op) on a workload
/// whose counts overflowed.
mlir::FailureOr<OpGraphWithOps>
buildOpGraph(mlir::Operation *root, const WorkloadAnalysis &analysis,
             const core::devices::Conventions &conventions = {});

} // namespace dsm

#endif // DSM_PASSES_DEVICES_OPGRAPHBUILDER_H

//===- WorkloadAnalysis.cpp - Workloads of a module's operations ----------===//

#include "dsm/Passes/Common/WorkloadAnalysis.h"
#include "dsm/Dialect/DsmOps.h"
#include "dsm/Support/LayerName.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace dsm;

WorkloadAnalysis::WorkloadAnalysis(Operation *root) {
  llvm::DenseSet<Value> seenParams;
  llvm::StringMap<unsigned> perKind;
  // Found once per region of ops (a function's body).
  llvm::DenseMap<Region *, std::unique_ptr<InputDependence>> inputsOf;
  root->walk([&](WorkloadOpInterface op) {
    std::unique_ptr<InputDependence> &inputs = inputsOf[op->getParentRegion()];
    if (!inputs)
      inputs = std::make_unique<InputDependence>(*op->getParentRegion());
    core::LayerRecord record;
    record.name = getLayerName(op, perKind[op->getName().getStringRef()]++);
    record.op = op->getName().getStringRef().str();
    record.workload = op.getWorkloadGiven(*inputs);
    for (Value param : op.getParameterOperands())
      if (seenParams.insert(param).second)
        record.newParams += cast<ShapedType>(param.getType()).getNumElements();
    summary.layers.push_back(std::move(record));
    operations.push_back(op);
  });
  summary.computeTotals();
}

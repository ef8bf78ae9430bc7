//===- WorkloadAnalysis.cpp - Workloads of a module's operations ----------===//

#include "dsm/Passes/Common/WorkloadAnalysis.h"
#include "dsm/Dialect/DsmOps.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace dsm;

/// The innermost NameLoc's name inside `loc` (looking through fused and
/// call-site locations), or an empty string.
static StringRef findName(Location loc) {
  StringRef name;
  loc->walk([&](Location inner) {
    if (auto named = dyn_cast<NameLoc>(inner)) {
      name = named.getName().strref();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return name;
}

std::string dsm::getLayerName(Operation *op, unsigned index) {
  StringRef name = findName(op->getLoc());
  if (!name.empty())
    return name.str();
  return op->getName().stripDialect().str() + "_" + std::to_string(index);
}

WorkloadAnalysis::WorkloadAnalysis(Operation *root) {
  llvm::DenseSet<Value> seenParams;
  llvm::StringMap<unsigned> perKind;
  root->walk([&](WorkloadOpInterface op) {
    core::LayerRecord record;
    record.name = getLayerName(op, perKind[op->getName().getStringRef()]++);
    record.op = op->getName().getStringRef().str();
    record.workload = op.getWorkload();
    for (Value param : op.getParameterOperands())
      if (seenParams.insert(param).second)
        record.newParams += cast<ShapedType>(param.getType()).getNumElements();
    summary.layers.push_back(std::move(record));
    operations.push_back(op);
  });
  summary.computeTotals();
}

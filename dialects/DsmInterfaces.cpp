//===- DsmInterfaces.cpp - dsm op interfaces ------------------------------===//

#include "dsm/Dialect/DsmInterfaces.h"

using namespace mlir;

dsm::InputDependence::InputDependence(Region &region) {
  if (region.empty())
    return;
  body = &region.front();
  // In order, every operand is settled before its user (SSA dominance); an
  // op's nested regions read the body's values as it does.
  for (Operation &op : *body) {
    bool fromInputs = false;
    op.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (isa<BlockArgument>(operand) ||
            dependent.contains(operand.getDefiningOp()))
          fromInputs = true;
      return fromInputs ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (fromInputs)
      dependent.insert(&op);
  }
}

std::optional<bool> dsm::InputDependence::dependsOnInputs(Value value) const {
  if (auto argument = dyn_cast<BlockArgument>(value))
    return body && argument.getOwner() == body ? std::optional<bool>(true)
                                               : std::nullopt;
  Operation *def = value.getDefiningOp();
  if (!body || def->getBlock() != body)
    return std::nullopt;
  return dependent.contains(def);
}

#include "dsm/Dialect/DsmInterfaces.cpp.inc"

//===- LayerName.cpp - The names reports give operations ------------------===//

#include "dsm/Support/LayerName.h"

#include "mlir/IR/Operation.h"

using namespace mlir;

StringRef dsm::findName(Location loc) {
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

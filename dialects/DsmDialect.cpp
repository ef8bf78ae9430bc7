//===- DsmDialect.cpp - The dsm dialect -----------------------------------===//

#include "dsm/Dialect/DsmDialect.h"
#include "dsm/Dialect/DsmAttrs.h"
#include "dsm/Dialect/DsmOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace dsm;

#include "dsm/Dialect/DsmDialect.cpp.inc"

void DsmDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dsm/Dialect/DsmOps.cpp.inc"
      >();
  registerAttributes();
}

LogicalResult DsmDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attribute) {
  if (attribute.getName() == getBatchDimAttrHelper().getName()) {
    auto dim = dyn_cast<IntegerAttr>(attribute.getValue());
    if (!dim || !dim.getType().isSignlessInteger() || dim.getInt() < -1)
      return op->emitError()
             << "'" << attribute.getName() << "' of argument " << argIndex
             << " must be an integer dimension, or -1 for none";
    return success();
  }
  return op->emitError() << "unknown dsm argument attribute '"
                         << attribute.getName() << "'";
}

std::optional<int64_t> dsm::getArgBatchDim(FunctionOpInterface func,
                                           unsigned index) {
  StringAttr name =
      DsmDialect::BatchDimAttrHelper(func->getContext()).getName();
  if (auto dim = func.getArgAttrOfType<IntegerAttr>(index, name))
    return dim.getInt();
  return std::nullopt;
}

std::optional<int64_t> dsm::findArgBatchDim(FunctionOpInterface func,
                                            unsigned index) {
  if (std::optional<int64_t> declared = getArgBatchDim(func, index))
    return declared;
  if (func.isExternal())
    return 0;
  std::optional<int64_t> implied;
  for (OpOperand &use : func.getArgument(index).getUses()) {
    auto lstm = dyn_cast<LstmOp>(use.getOwner());
    int64_t dim = lstm && use.get() == lstm.getInput() ? 1 : 0;
    if (implied && *implied != dim)
      return std::nullopt;
    implied = dim;
  }
  return implied.value_or(0);
}

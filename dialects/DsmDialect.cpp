//===- DsmDialect.cpp - The dsm dialect -----------------------------------===//

#include "dsm/Dialect/DsmDialect.h"
#include "dsm/Dialect/DsmAttrs.h"
#include "dsm/Dialect/DsmOps.h"

#include "mlir/IR/DialectImplementation.h"
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

//===- LayerName.h - The names reports give operations ----------*- C++ -*-===//
//
// A layer is named after its location: importers give every op the name of
// the node or operation it came from (`loc("conv1_1")`), and every report,
// diagnostic and placement refers to it by that name.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_SUPPORT_LAYERNAME_H
#define DSM_SUPPORT_LAYERNAME_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir {
class Operation;
} // namespace mlir

namespace dsm {

/// The first name inside `loc` in walk order, the innermost NameLoc
/// (looking through fused and call-site locations), or an empty string.
llvm::StringRef findName(mlir::Location loc);

/// The name a report gives `op`: the name of its location (`findName`), or
/// "<mnemonic>_<index>" with `index` counting ops of that kind.
std::string getLayerName(mlir::Operation *op, unsigned index);

} // namespace dsm

#endif // DSM_SUPPORT_LAYERNAME_H

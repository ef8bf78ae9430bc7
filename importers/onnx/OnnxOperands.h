//===- OnnxOperands.h - Static operands of ONNX nodes -----------*- C++ -*-===//
//
// Many ONNX operands must be known statically for a static import (Reshape's
// shape, Slice's bounds, axes, Clip's limits). Over the opsets several moved
// from attributes to inputs; these helpers read either and report a located
// error when an operand is missing or not static.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_IMPORTERS_ONNXOPERANDS_H
#define DSM_IMPORTERS_ONNXOPERANDS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace dsm::onnx {

class GraphImporter;
class OnnxNode;

/// The integers of input `index` (`what` names it in errors); it must be
/// present and static.
mlir::FailureOr<llvm::SmallVector<int64_t>>
getStaticInts(GraphImporter &importer, const OnnxNode &node, unsigned index,
              llvm::StringRef what);

/// An optional integer-list operand: attribute `attrName` before opset
/// `inputSince`, input `index` from it. std::nullopt when absent.
mlir::FailureOr<std::optional<llvm::SmallVector<int64_t>>>
getIntsOperand(GraphImporter &importer, const OnnxNode &node, unsigned index,
               llvm::StringRef attrName, int64_t inputSince);

/// An optional scalar input `index` read as a double; it must be static when
/// present.
mlir::FailureOr<std::optional<double>> getStaticScalar(GraphImporter &importer,
                                                       const OnnxNode &node,
                                                       unsigned index,
                                                       llvm::StringRef what);

/// Slice's bounds: attributes before opset 10, inputs 1-4 from it (axes and
/// steps optional, empty when absent).
struct SliceOperands {
  llvm::SmallVector<int64_t> starts, ends, axes, steps;
};
mlir::FailureOr<SliceOperands> getSliceOperands(GraphImporter &importer,
                                                const OnnxNode &node);

} // namespace dsm::onnx

#endif // DSM_IMPORTERS_ONNXOPERANDS_H

//===- OnnxFolding.h - Static evaluation of ONNX nodes ----------*- C++ -*-===//

#ifndef DSM_IMPORTERS_ONNXFOLDING_H
#define DSM_IMPORTERS_ONNXFOLDING_H

#include "mlir/Support/LLVM.h"

namespace dsm::onnx {

class GraphImporter;
class OnnxNode;

/// Evaluates `node` statically when it is a Constant, a Shape or Size, or a
/// foldable operator whose inputs are all static (never parameters). Returns
/// true when its outputs were defined as static contents, false when the node
/// must be converted, failure after an error.
mlir::FailureOr<bool> foldNode(GraphImporter &importer, const OnnxNode &node);

} // namespace dsm::onnx

#endif // DSM_IMPORTERS_ONNXFOLDING_H

//===- OnnxFusions.h - Recognized ONNX subgraphs ----------------*- C++ -*-===//
//
// Exporters decompose some layers into several ONNX nodes. These recognizers
// start at the first node of such a subgraph, check the rest of it (single
// uses, constant values), emit the dsm operation the subgraph computes and
// mark its other nodes as consumed:
//   - erf GELU: x * 0.5 * (1 + erf(x / sqrt(2))) -> dsm.gelu
//   - decomposed LayerNorm (opsets < 17): ReduceMean, Sub, Pow 2, ReduceMean,
//     Add eps, Sqrt, Div, Mul scale, Add offset -> dsm.layer_norm
//   - MatMul by a weight followed by Add of a bias -> dsm.fully_connected
//     with its bias
//
//===----------------------------------------------------------------------===//

#ifndef DSM_IMPORTERS_ONNXFUSIONS_H
#define DSM_IMPORTERS_ONNXFUSIONS_H

#include "mlir/Support/LLVM.h"

namespace dsm::onnx {

class GraphImporter;
class OnnxNode;

/// Returns true when a subgraph starting at `node` was recognized and
/// imported, false when none matches, failure after an error.
mlir::FailureOr<bool> tryFusions(GraphImporter &importer, const OnnxNode &node);

} // namespace dsm::onnx

#endif // DSM_IMPORTERS_ONNXFUSIONS_H

//===- OnnxConversions.h - ONNX operators to dsm operations -----*- C++ -*-===//

#ifndef DSM_IMPORTERS_ONNXCONVERSIONS_H
#define DSM_IMPORTERS_ONNXCONVERSIONS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

namespace dsm::onnx {

class GraphImporter;
class OnnxNode;

/// Converts one node (whose inputs are all defined) and defines its outputs.
using ConversionFn = mlir::LogicalResult (*)(GraphImporter &, const OnnxNode &);

/// The conversion of an ONNX-domain op type, or null when it is unknown.
ConversionFn lookupConversion(llvm::StringRef opType);

/// How many leading inputs of an ONNX-domain op type are required (must be
/// present) at `opset` for a node with `numInputs` inputs (all of them for
/// variadic operators); 0 for unknown op types.
unsigned getRequiredInputCount(llvm::StringRef opType, int64_t opset,
                               unsigned numInputs);

} // namespace dsm::onnx

#endif // DSM_IMPORTERS_ONNXCONVERSIONS_H

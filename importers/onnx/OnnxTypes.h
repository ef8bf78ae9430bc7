//===- OnnxTypes.h - ONNX element types in MLIR -----------------*- C++ -*-===//
//
// ONNX names element types with TensorProto::DataType numbers; these helpers
// translate them to MLIR element types and back, and name them in messages.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_IMPORTERS_ONNXTYPES_H
#define DSM_IMPORTERS_ONNXTYPES_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

#include "dsm/Core/Support/Float.h"

namespace dsm::onnx {

/// The MLIR element type of ONNX data type `dataType`, or null for types the
/// importer cannot represent (strings, complex numbers, undefined).
mlir::Type getElementType(mlir::MLIRContext *context, int32_t dataType);

/// The ONNX data type of an MLIR element type (0, UNDEFINED, if none).
int32_t getDataType(mlir::Type elementType);

/// "FLOAT", "INT64", ... or "data type <n>".
std::string getDataTypeName(int32_t dataType);

/// FLOAT, DOUBLE, FLOAT16, BFLOAT16.
bool isFloatDataType(int32_t dataType);

/// Bytes of one element of `dataType` in raw_data, 0 if not fixed.
int64_t getDataTypeSize(int32_t dataType);

using core::shortestDouble;

/// Whether the dsm graph ops accept tensors of this element type
/// (f32, f16, bf16, i8).
bool isDsmElementType(mlir::Type elementType);
/// Whether dsm's data-movement ops (reshape, transpose, slice, concat) take
/// tensors of `elementType`: the compute types and the integer tensors
/// models move besides them (i1 masks, i32 and i64 ids, positions, indices).
bool isDsmDataElementType(mlir::Type elementType);

} // namespace dsm::onnx

#endif // DSM_IMPORTERS_ONNXTYPES_H

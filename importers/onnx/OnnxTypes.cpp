//===- OnnxTypes.cpp - ONNX element types in MLIR -------------------------===//

#include "OnnxTypes.h"

#include "onnx.pb.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <charconv>
#include <cstdlib>

using namespace mlir;
using dsm_onnx::TensorProto;

Type dsm::onnx::getElementType(MLIRContext *context, int32_t dataType) {
  Builder b(context);
  switch (dataType) {
  case TensorProto::FLOAT:
    return b.getF32Type();
  case TensorProto::DOUBLE:
    return b.getF64Type();
  case TensorProto::FLOAT16:
    return b.getF16Type();
  case TensorProto::BFLOAT16:
    return b.getBF16Type();
  case TensorProto::INT8:
    return b.getIntegerType(8);
  case TensorProto::INT16:
    return b.getIntegerType(16);
  case TensorProto::INT32:
    return b.getIntegerType(32);
  case TensorProto::INT64:
    return b.getIntegerType(64);
  case TensorProto::UINT8:
    return b.getIntegerType(8, /*isSigned=*/false);
  case TensorProto::UINT16:
    return b.getIntegerType(16, /*isSigned=*/false);
  case TensorProto::UINT32:
    return b.getIntegerType(32, /*isSigned=*/false);
  case TensorProto::UINT64:
    return b.getIntegerType(64, /*isSigned=*/false);
  case TensorProto::BOOL:
    return b.getI1Type();
  default:
    return nullptr;
  }
}

int32_t dsm::onnx::getDataType(Type type) {
  if (type.isF32())
    return TensorProto::FLOAT;
  if (type.isF64())
    return TensorProto::DOUBLE;
  if (type.isF16())
    return TensorProto::FLOAT16;
  if (type.isBF16())
    return TensorProto::BFLOAT16;
  if (auto integer = dyn_cast<IntegerType>(type)) {
    bool isUnsigned = integer.isUnsigned();
    switch (integer.getWidth()) {
    case 1:
      return TensorProto::BOOL;
    case 8:
      return isUnsigned ? TensorProto::UINT8 : TensorProto::INT8;
    case 16:
      return isUnsigned ? TensorProto::UINT16 : TensorProto::INT16;
    case 32:
      return isUnsigned ? TensorProto::UINT32 : TensorProto::INT32;
    case 64:
      return isUnsigned ? TensorProto::UINT64 : TensorProto::INT64;
    default:
      break;
    }
  }
  return TensorProto::UNDEFINED;
}

std::string dsm::onnx::getDataTypeName(int32_t dataType) {
  if (TensorProto::DataType_IsValid(dataType))
    return TensorProto::DataType_Name(
        static_cast<TensorProto::DataType>(dataType));
  return "data type " + std::to_string(dataType);
}

bool dsm::onnx::isFloatDataType(int32_t dataType) {
  return dataType == TensorProto::FLOAT || dataType == TensorProto::DOUBLE ||
         dataType == TensorProto::FLOAT16 || dataType == TensorProto::BFLOAT16;
}

int64_t dsm::onnx::getDataTypeSize(int32_t dataType) {
  switch (dataType) {
  case TensorProto::BOOL:
  case TensorProto::INT8:
  case TensorProto::UINT8:
    return 1;
  case TensorProto::INT16:
  case TensorProto::UINT16:
  case TensorProto::FLOAT16:
  case TensorProto::BFLOAT16:
    return 2;
  case TensorProto::INT32:
  case TensorProto::UINT32:
  case TensorProto::FLOAT:
    return 4;
  case TensorProto::INT64:
  case TensorProto::UINT64:
  case TensorProto::DOUBLE:
    return 8;
  default:
    return 0;
  }
}

bool dsm::onnx::isDsmElementType(Type type) {
  return type.isF32() || type.isF16() || type.isBF16() ||
         type.isSignlessInteger(8);
}

bool dsm::onnx::isDsmDataElementType(Type type) {
  return isDsmElementType(type) || type.isSignlessInteger(1) ||
         type.isSignlessInteger(32) || type.isSignlessInteger(64);
}

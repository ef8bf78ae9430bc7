//===- ValueInfo.h - What the ONNX importer knows about a value -*- C++ -*-===//

#ifndef DSM_IMPORTERS_VALUEINFO_H
#define DSM_IMPORTERS_VALUEINFO_H

#include "HostTensor.h"

#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <string>

namespace dsm_onnx {
class TensorProto;
} // namespace dsm_onnx

namespace dsm::onnx {

/// What the importer knows about one ONNX value.
struct ValueInfo {
  llvm::SmallVector<int64_t, 4> shape;
  int32_t dataType = 0;
  /// The IR value, once one exists.
  mlir::Value value;
  /// The contents, when statically known.
  std::shared_ptr<const HostTensor> contents;
  /// An initializer (or a Constant node without data, or a ConstantOfShape
  /// too large to fold) declared as a `dsm.weight` named `parameterName`
  /// when used: a parameter.
  bool parameter = false;
  std::string parameterName;
};

} // namespace dsm::onnx

#endif // DSM_IMPORTERS_VALUEINFO_H

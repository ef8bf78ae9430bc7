//===- HostTensor.h - Statically known ONNX tensor values -------*- C++ -*-===//
//
// The contents of a tensor the importer knows while importing: constants,
// initializers that carry data, and everything folded from them (shape
// subgraphs). Integers and booleans are held as int64, floating-point values
// as double; the ONNX data type says what they are.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_IMPORTERS_HOSTTENSOR_H
#define DSM_IMPORTERS_HOSTTENSOR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace dsm_onnx {
class TensorProto;
} // namespace dsm_onnx

namespace dsm::onnx {

class HostTensor {
public:
  /// Tensors larger than this are never decoded or folded: shape subgraphs
  /// are small, and weights are only declared.
  static constexpr int64_t kMaxElements = int64_t(1) << 20;

  HostTensor() = default;
  /// A tensor of `dataType` and `shape` with `values` (as many as elements);
  /// integer types take `ints`, floating-point types `floats`.
  static HostTensor getInts(int32_t dataType, llvm::ArrayRef<int64_t> shape,
                            std::vector<int64_t> ints);
  static HostTensor getFloats(int32_t dataType, llvm::ArrayRef<int64_t> shape,
                              std::vector<double> floats);
  /// `shape` filled with `value` (converted to `dataType`).
  static HostTensor getSplat(int32_t dataType, llvm::ArrayRef<int64_t> shape,
                             double value);

  /// Decodes a TensorProto's values. Returns std::nullopt when it carries no
  /// data (a stripped initializer, external data) or has more than
  /// kMaxElements elements; an error when its data is inconsistent.
  static llvm::Expected<std::optional<HostTensor>>
  fromProto(const dsm_onnx::TensorProto &proto);
  /// Checks a TensorProto's data against its dimensions without decoding it:
  /// true when it carries data, false when it has none, an error when the
  /// two disagree (a corrupt file).
  static llvm::Expected<bool> checkProto(const dsm_onnx::TensorProto &proto);

  int32_t getDataType() const { return dataType; }
  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  int64_t getRank() const { return shape.size(); }
  int64_t getNumElements() const;
  bool isFloat() const;
  bool isSplat() const;

  /// Element `i` (row-major), converted.
  int64_t getInt(int64_t i) const;
  double getFloat(int64_t i) const;
  /// All elements, converted.
  std::vector<int64_t> toInts() const;
  std::vector<double> toFloats() const;

  /// Same values under another shape (same element count).
  HostTensor reshaped(llvm::ArrayRef<int64_t> newShape) const;
  /// Values converted to `newType` (rounded toward zero for integers).
  HostTensor cast(int32_t newType) const;

private:
  int32_t dataType = 0;
  llvm::SmallVector<int64_t, 4> shape;
  std::vector<int64_t> ints;
  std::vector<double> floats;
};

/// Product of `shape`, or std::nullopt on overflow or a negative dimension.
std::optional<int64_t> getNumElements(llvm::ArrayRef<int64_t> shape);

} // namespace dsm::onnx

#endif // DSM_IMPORTERS_HOSTTENSOR_H

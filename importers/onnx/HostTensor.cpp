//===- HostTensor.cpp - Statically known ONNX tensor values ---------------===//

#include "HostTensor.h"
#include "OnnxTypes.h"

#include "onnx.pb.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/Endian.h"

#include <cmath>
#include <cstring>

using namespace dsm::onnx;
using dsm_onnx::TensorProto;

std::optional<int64_t>
dsm::onnx::getNumElements(llvm::ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return std::nullopt;
    std::optional<int64_t> next = llvm::checkedMul(count, d);
    if (!next)
      return std::nullopt;
    count = *next;
  }
  return count;
}

HostTensor HostTensor::getInts(int32_t dataType, llvm::ArrayRef<int64_t> shape,
                               std::vector<int64_t> ints) {
  HostTensor t;
  t.dataType = dataType;
  t.shape.assign(shape.begin(), shape.end());
  if (isFloatDataType(dataType))
    t.floats.assign(ints.begin(), ints.end());
  else
    t.ints = std::move(ints);
  return t;
}

HostTensor HostTensor::getFloats(int32_t dataType,
                                 llvm::ArrayRef<int64_t> shape,
                                 std::vector<double> floats) {
  HostTensor t;
  t.dataType = dataType;
  t.shape.assign(shape.begin(), shape.end());
  if (isFloatDataType(dataType)) {
    t.floats = std::move(floats);
  } else {
    t.ints.reserve(floats.size());
    for (double f : floats)
      t.ints.push_back(std::isfinite(f) ? static_cast<int64_t>(f) : 0);
  }
  return t;
}

HostTensor HostTensor::getSplat(int32_t dataType, llvm::ArrayRef<int64_t> shape,
                                double value) {
  int64_t count = dsm::onnx::getNumElements(shape).value_or(0);
  return getFloats(dataType, shape, std::vector<double>(count, value));
}

int64_t HostTensor::getNumElements() const {
  return isFloat() ? floats.size() : ints.size();
}

bool HostTensor::isFloat() const { return isFloatDataType(dataType); }

bool HostTensor::isSplat() const {
  if (isFloat())
    return std::adjacent_find(floats.begin(), floats.end(),
                              std::not_equal_to<>()) == floats.end();
  return std::adjacent_find(ints.begin(), ints.end(), std::not_equal_to<>()) ==
         ints.end();
}

int64_t HostTensor::getInt(int64_t i) const {
  if (!isFloat())
    return ints[i];
  double f = floats[i];
  return std::isfinite(f) ? static_cast<int64_t>(f) : 0;
}

double HostTensor::getFloat(int64_t i) const {
  return isFloat() ? floats[i] : static_cast<double>(ints[i]);
}

std::vector<int64_t> HostTensor::toInts() const {
  std::vector<int64_t> result;
  for (int64_t i = 0, e = getNumElements(); i < e; ++i)
    result.push_back(getInt(i));
  return result;
}

std::vector<double> HostTensor::toFloats() const {
  std::vector<double> result;
  for (int64_t i = 0, e = getNumElements(); i < e; ++i)
    result.push_back(getFloat(i));
  return result;
}

HostTensor HostTensor::reshaped(llvm::ArrayRef<int64_t> newShape) const {
  HostTensor t = *this;
  t.shape.assign(newShape.begin(), newShape.end());
  return t;
}

HostTensor HostTensor::cast(int32_t newType) const {
  if (isFloatDataType(newType)) {
    HostTensor t = getFloats(newType, shape, toFloats());
    if (newType == TensorProto::FLOAT)
      for (double &f : t.floats)
        f = static_cast<float>(f);
    return t;
  }
  std::vector<int64_t> values = toInts();
  if (newType == TensorProto::BOOL)
    for (int64_t i = 0, e = getNumElements(); i < e; ++i)
      values[i] = getFloat(i) != 0.0;
  return getInts(newType, shape, std::move(values));
}

//===----------------------------------------------------------------------===//
// Decoding TensorProto
//===----------------------------------------------------------------------===//

static llvm::Error dataError(const TensorProto &proto,
                             const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "tensor '" + proto.name() + "' " + what);
}

/// Decodes one little-endian element of `dataType` from raw bytes.
static void decodeRaw(int32_t dataType, const char *p,
                      std::vector<int64_t> &ints, std::vector<double> &floats) {
  using namespace llvm::support;
  switch (dataType) {
  case TensorProto::FLOAT:
    floats.push_back(shortestDouble(llvm::bit_cast<float>(
        endian::read32le(reinterpret_cast<const uint8_t *>(p)))));
    return;
  case TensorProto::DOUBLE:
    floats.push_back(llvm::bit_cast<double>(
        endian::read64le(reinterpret_cast<const uint8_t *>(p))));
    return;
  case TensorProto::FLOAT16: {
    uint16_t h = endian::read16le(reinterpret_cast<const uint8_t *>(p));
    // IEEE half to double.
    int sign = h >> 15, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    double value;
    if (exponent == 0)
      value = std::ldexp(mantissa, -24);
    else if (exponent == 31)
      value = mantissa ? NAN : INFINITY;
    else
      value = std::ldexp(mantissa + 1024, exponent - 25);
    floats.push_back(sign ? -value : value);
    return;
  }
  case TensorProto::BFLOAT16: {
    uint32_t bits =
        uint32_t(endian::read16le(reinterpret_cast<const uint8_t *>(p))) << 16;
    floats.push_back(llvm::bit_cast<float>(bits));
    return;
  }
  case TensorProto::BOOL:
  case TensorProto::UINT8:
    ints.push_back(static_cast<uint8_t>(*p));
    return;
  case TensorProto::INT8:
    ints.push_back(static_cast<int8_t>(*p));
    return;
  case TensorProto::INT16:
    ints.push_back(static_cast<int16_t>(
        endian::read16le(reinterpret_cast<const uint8_t *>(p))));
    return;
  case TensorProto::UINT16:
    ints.push_back(endian::read16le(reinterpret_cast<const uint8_t *>(p)));
    return;
  case TensorProto::INT32:
    ints.push_back(static_cast<int32_t>(
        endian::read32le(reinterpret_cast<const uint8_t *>(p))));
    return;
  case TensorProto::UINT32:
    ints.push_back(endian::read32le(reinterpret_cast<const uint8_t *>(p)));
    return;
  case TensorProto::INT64:
  case TensorProto::UINT64:
    ints.push_back(static_cast<int64_t>(
        endian::read64le(reinterpret_cast<const uint8_t *>(p))));
    return;
  default:
    return;
  }
}

/// Number of values stored in the typed (non-raw) field for `dataType`.
static int64_t typedValueCount(const TensorProto &proto) {
  switch (proto.data_type()) {
  case TensorProto::FLOAT:
    return proto.float_data_size();
  case TensorProto::DOUBLE:
    return proto.double_data_size();
  case TensorProto::INT64:
    return proto.int64_data_size();
  case TensorProto::UINT32:
  case TensorProto::UINT64:
    return proto.uint64_data_size();
  case TensorProto::STRING:
    return proto.string_data_size();
  default:
    return proto.int32_data_size();
  }
}

llvm::Expected<bool> HostTensor::checkProto(const TensorProto &proto) {
  int32_t dataType = proto.data_type();
  llvm::SmallVector<int64_t, 4> shape(proto.dims().begin(), proto.dims().end());
  std::optional<int64_t> count = dsm::onnx::getNumElements(shape);
  if (!count)
    return dataError(proto, "has invalid dimensions");
  if (proto.data_location() == TensorProto::EXTERNAL)
    return false;
  if (proto.has_segment())
    return dataError(proto,
                     "is segmented, which the importer does not support");
  if (proto.has_raw_data()) {
    int64_t size = getDataTypeSize(dataType);
    if (size == 0)
      return dataError(proto, "has raw data of unsupported type " +
                                  getDataTypeName(dataType));
    if (int64_t(proto.raw_data().size()) != *count * size)
      return dataError(proto, "has " + llvm::Twine(proto.raw_data().size()) +
                                  " bytes of raw data but its " +
                                  llvm::Twine(*count) + " elements need " +
                                  llvm::Twine(*count * size));
    return true;
  }
  int64_t stored = typedValueCount(proto);
  if (stored == 0)
    return false; // no data: a stripped initializer
  if (stored != *count)
    return dataError(proto, "has " + llvm::Twine(stored) +
                                " values but its dimensions need " +
                                llvm::Twine(*count));
  if (dataType == TensorProto::STRING || getDataTypeSize(dataType) == 0)
    return dataError(proto, "has unsupported element type " +
                                getDataTypeName(dataType));
  return true;
}

llvm::Expected<std::optional<HostTensor>>
HostTensor::fromProto(const TensorProto &proto) {
  llvm::Expected<bool> hasData = checkProto(proto);
  if (!hasData)
    return hasData.takeError();
  int32_t dataType = proto.data_type();
  llvm::SmallVector<int64_t, 4> shape(proto.dims().begin(), proto.dims().end());
  int64_t count = *dsm::onnx::getNumElements(shape);
  if (count == 0 && getDataTypeSize(dataType) != 0)
    return isFloatDataType(dataType) ? getFloats(dataType, shape, {})
                                     : getInts(dataType, shape, {});
  if (!*hasData || count > kMaxElements)
    return std::nullopt;

  std::vector<int64_t> ints;
  std::vector<double> floats;
  if (proto.has_raw_data()) {
    const char *data = proto.raw_data().data();
    int64_t size = getDataTypeSize(dataType);
    for (int64_t i = 0; i < count; ++i)
      decodeRaw(dataType, data + i * size, ints, floats);
  } else {
    switch (dataType) {
    case TensorProto::FLOAT:
      for (float f : proto.float_data())
        floats.push_back(shortestDouble(f));
      break;
    case TensorProto::DOUBLE:
      floats.assign(proto.double_data().begin(), proto.double_data().end());
      break;
    case TensorProto::INT64:
      ints.assign(proto.int64_data().begin(), proto.int64_data().end());
      break;
    case TensorProto::UINT32:
    case TensorProto::UINT64:
      ints.assign(proto.uint64_data().begin(), proto.uint64_data().end());
      break;
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
      // int32_data holds the 16-bit patterns.
      for (int32_t bits : proto.int32_data()) {
        char raw[2] = {char(bits & 0xff), char((bits >> 8) & 0xff)};
        decodeRaw(dataType, raw, ints, floats);
      }
      break;
    default:
      ints.assign(proto.int32_data().begin(), proto.int32_data().end());
      break;
    }
  }
  if (isFloatDataType(dataType))
    return getFloats(dataType, shape, std::move(floats));
  return getInts(dataType, shape, std::move(ints));
}

//===- OnnxNode.cpp - An ONNX node with checked attribute access ----------===//

#include "OnnxNode.h"

#include "OnnxTypes.h"

#include "onnx.pb.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"

using namespace mlir;
using namespace dsm::onnx;
using dsm_onnx::AttributeProto;
using dsm_onnx::NodeProto;

OnnxNode::OnnxNode(const NodeProto &proto, int64_t index, Location fileLoc)
    : proto(&proto), index(index), loc(fileLoc), fileLoc(fileLoc) {
  MLIRContext *context = fileLoc.getContext();
  name = proto.name();
  if (name.empty())
    name = proto.output_size() > 0 && !proto.output(0).empty()
               ? proto.output(0)
               : proto.op_type() + "_" + std::to_string(index);
  const std::string &domain = proto.domain();
  onnxDomain = domain.empty() || domain == "ai.onnx";
  opType = onnxDomain ? proto.op_type() : domain + "." + proto.op_type();
  loc = NameLoc::get(StringAttr::get(context, name));
}

unsigned OnnxNode::getNumInputs() const { return proto->input_size(); }

StringRef OnnxNode::getInput(unsigned i) const {
  return i < unsigned(proto->input_size()) ? StringRef(proto->input(i))
                                           : StringRef();
}

unsigned OnnxNode::getNumOutputs() const { return proto->output_size(); }

StringRef OnnxNode::getOutput(unsigned i) const {
  return i < unsigned(proto->output_size()) ? StringRef(proto->output(i))
                                            : StringRef();
}

const AttributeProto *OnnxNode::getAttr(StringRef attrName) const {
  for (const AttributeProto &attr : proto->attribute())
    if (attr.name() == attrName)
      return &attr;
  return nullptr;
}

InFlightDiagnostic OnnxNode::emitError() const {
  return mlir::emitError(fileLoc)
         << "node '" << name << "' (" << opType << "): ";
}

/// The attribute `attrName` if present with `type`. Sets `status` to failure
/// (after an error) when it has another type or is missing without default.
const AttributeProto *OnnxNode::expect(StringRef attrName, int type,
                                       StringRef what, bool hasDefault,
                                       LogicalResult &status) const {
  status = success();
  const AttributeProto *attr = getAttr(attrName);
  if (!attr) {
    if (!hasDefault) {
      emitError() << "missing required attribute '" << attrName << "'";
      status = failure();
    }
    return nullptr;
  }
  // Old files may omit the type; infer it from the populated field.
  int actual = attr->type();
  if (actual == AttributeProto::UNDEFINED) {
    if (attr->has_i())
      actual = AttributeProto::INT;
    else if (attr->has_f())
      actual = AttributeProto::FLOAT;
    else if (attr->has_s())
      actual = AttributeProto::STRING;
    else if (attr->ints_size())
      actual = AttributeProto::INTS;
    else if (attr->floats_size())
      actual = AttributeProto::FLOATS;
    else if (attr->strings_size())
      actual = AttributeProto::STRINGS;
    else if (attr->has_t())
      actual = AttributeProto::TENSOR;
  }
  // An empty list may be stored with any list type.
  bool emptyList =
      (type == AttributeProto::INTS || type == AttributeProto::FLOATS ||
       type == AttributeProto::STRINGS) &&
      attr->ints_size() == 0 && attr->floats_size() == 0 &&
      attr->strings_size() == 0 &&
      (actual == AttributeProto::INTS || actual == AttributeProto::FLOATS ||
       actual == AttributeProto::STRINGS);
  if (actual != type && !emptyList) {
    emitError() << "attribute '" << attrName << "' must be " << what;
    status = failure();
    return nullptr;
  }
  return attr;
}

FailureOr<int64_t> OnnxNode::getInt(StringRef attrName,
                                    std::optional<int64_t> dflt) const {
  LogicalResult status = success();
  const AttributeProto *attr = expect(attrName, AttributeProto::INT,
                                      "an integer", dflt.has_value(), status);
  if (failed(status))
    return failure();
  return attr ? attr->i() : *dflt;
}

FailureOr<double> OnnxNode::getFloat(StringRef attrName,
                                     std::optional<double> dflt) const {
  LogicalResult status = success();
  const AttributeProto *attr = expect(attrName, AttributeProto::FLOAT,
                                      "a float", dflt.has_value(), status);
  if (failed(status))
    return failure();
  return attr ? shortestDouble(attr->f()) : *dflt;
}

FailureOr<SmallVector<int64_t>>
OnnxNode::getInts(StringRef attrName,
                  std::optional<ArrayRef<int64_t>> dflt) const {
  LogicalResult status = success();
  const AttributeProto *attr =
      expect(attrName, AttributeProto::INTS, "a list of integers",
             dflt.has_value(), status);
  if (failed(status))
    return failure();
  if (!attr)
    return SmallVector<int64_t>(dflt->begin(), dflt->end());
  return SmallVector<int64_t>(attr->ints().begin(), attr->ints().end());
}

FailureOr<SmallVector<double>>
OnnxNode::getFloats(StringRef attrName,
                    std::optional<ArrayRef<double>> dflt) const {
  LogicalResult status = success();
  const AttributeProto *attr =
      expect(attrName, AttributeProto::FLOATS, "a list of floats",
             dflt.has_value(), status);
  if (failed(status))
    return failure();
  if (!attr)
    return SmallVector<double>(dflt->begin(), dflt->end());
  SmallVector<double> values;
  for (float f : attr->floats())
    values.push_back(shortestDouble(f));
  return values;
}

FailureOr<std::string>
OnnxNode::getString(StringRef attrName, std::optional<StringRef> dflt) const {
  LogicalResult status = success();
  const AttributeProto *attr = expect(attrName, AttributeProto::STRING,
                                      "a string", dflt.has_value(), status);
  if (failed(status))
    return failure();
  return attr ? attr->s() : dflt->str();
}

FailureOr<SmallVector<std::string>>
OnnxNode::getStrings(StringRef attrName,
                     std::optional<ArrayRef<std::string>> dflt) const {
  LogicalResult status = success();
  const AttributeProto *attr =
      expect(attrName, AttributeProto::STRINGS, "a list of strings",
             dflt.has_value(), status);
  if (failed(status))
    return failure();
  if (!attr)
    return SmallVector<std::string>(dflt->begin(), dflt->end());
  return SmallVector<std::string>(attr->strings().begin(),
                                  attr->strings().end());
}

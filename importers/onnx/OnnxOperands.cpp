//===- OnnxOperands.cpp - Static operands of ONNX nodes -------------------===//

#include "OnnxOperands.h"
#include "GraphImporter.h"

using namespace mlir;
using namespace dsm::onnx;

FailureOr<SmallVector<int64_t>>
dsm::onnx::getStaticInts(GraphImporter &importer, const OnnxNode &node,
                         unsigned index, StringRef what) {
  if (!node.hasInput(index))
    return node.emitError() << "missing input " << index << " (" << what << ")";
  StringRef name = node.getInput(index);
  const HostTensor *contents = importer.getContents(name);
  if (!contents) {
    const ValueInfo &info = importer.get(name);
    if (!info.value && !info.parameter)
      return node.emitError() << "its " << what << " ('" << name
                              << "') is an initializer without data; the "
                                 "importer needs its values";
    return node.emitError() << "its " << what << " ('" << name
                            << "') is not statically known; the importer "
                               "needs it to know the shapes";
  }
  if (contents->isFloat())
    return node.emitError()
           << "its " << what << " ('" << name << "') must hold integers";
  if (contents->getRank() > 1)
    return node.emitError() << "its " << what << " ('" << name
                            << "') must be a scalar or a 1-D tensor";
  std::vector<int64_t> values = contents->toInts();
  return SmallVector<int64_t>(values.begin(), values.end());
}

FailureOr<std::optional<SmallVector<int64_t>>>
dsm::onnx::getIntsOperand(GraphImporter &importer, const OnnxNode &node,
                          unsigned index, StringRef attrName,
                          int64_t inputSince) {
  if (importer.getOpset() < inputSince) {
    if (!node.hasAttr(attrName))
      return std::optional<SmallVector<int64_t>>();
    FailureOr<SmallVector<int64_t>> values = node.getInts(attrName);
    if (failed(values))
      return failure();
    return std::optional<SmallVector<int64_t>>(*values);
  }
  if (!node.hasInput(index))
    return std::optional<SmallVector<int64_t>>();
  FailureOr<SmallVector<int64_t>> values =
      getStaticInts(importer, node, index, attrName);
  if (failed(values))
    return failure();
  return std::optional<SmallVector<int64_t>>(*values);
}

FailureOr<std::optional<double>>
dsm::onnx::getStaticScalar(GraphImporter &importer, const OnnxNode &node,
                           unsigned index, StringRef what) {
  if (!node.hasInput(index))
    return std::optional<double>();
  StringRef name = node.getInput(index);
  const HostTensor *contents = importer.getContents(name);
  if (!contents)
    return node.emitError()
           << "its " << what << " ('" << name << "') is not statically known";
  if (contents->getNumElements() != 1)
    return node.emitError()
           << "its " << what << " ('" << name << "') must have one element";
  return std::optional<double>(contents->getFloat(0));
}

FailureOr<dsm::onnx::SliceOperands>
dsm::onnx::getSliceOperands(GraphImporter &importer, const OnnxNode &node) {
  SliceOperands operands;
  if (importer.getOpset() < 10) {
    FailureOr<SmallVector<int64_t>> s = node.getInts("starts");
    FailureOr<SmallVector<int64_t>> e = node.getInts("ends");
    FailureOr<SmallVector<int64_t>> a =
        node.getInts("axes", ArrayRef<int64_t>());
    if (failed(s) || failed(e) || failed(a))
      return failure();
    operands.starts = *s, operands.ends = *e, operands.axes = *a;
    return operands;
  }
  FailureOr<SmallVector<int64_t>> s =
      getStaticInts(importer, node, 1, "starts");
  FailureOr<SmallVector<int64_t>> e = getStaticInts(importer, node, 2, "ends");
  if (failed(s) || failed(e))
    return failure();
  operands.starts = *s, operands.ends = *e;
  for (auto [index, list, what] :
       {std::make_tuple(3u, &operands.axes, "axes"),
        std::make_tuple(4u, &operands.steps, "steps")}) {
    if (!node.hasInput(index))
      continue;
    FailureOr<SmallVector<int64_t>> values =
        getStaticInts(importer, node, index, what);
    if (failed(values))
      return failure();
    *list = *values;
  }
  return operands;
}

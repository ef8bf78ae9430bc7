//===- OnnxNode.h - An ONNX node with checked attribute access --*- C++ -*-===//
//
// Wraps a NodeProto with the name its dsm operations carry and typed access
// to its attributes: a missing required attribute or one of the wrong type is
// a located error naming the node, never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_IMPORTERS_ONNXNODE_H
#define DSM_IMPORTERS_ONNXNODE_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace dsm_onnx {
class AttributeProto;
class NodeProto;
} // namespace dsm_onnx

namespace dsm::onnx {

class OnnxNode {
public:
  /// `fileLoc` locates the node's errors (the model file).
  OnnxNode(const dsm_onnx::NodeProto &proto, int64_t index,
           mlir::Location fileLoc);

  const dsm_onnx::NodeProto &getProto() const { return *proto; }
  /// Position in the graph's node list.
  int64_t getIndex() const { return index; }
  /// The node's name, or for an unnamed node its first output's name.
  llvm::StringRef getName() const { return name; }
  /// The op type, qualified by the domain unless it is ONNX's own
  /// ("Conv", "com.microsoft.FusedConv").
  llvm::StringRef getOpType() const { return opType; }
  bool isOnnxDomain() const { return onnxDomain; }
  /// `loc("<name>")`: the layer name of the dsm operations it becomes.
  mlir::Location getLoc() const { return loc; }

  unsigned getNumInputs() const;
  /// The i-th input's value name; empty when absent (omitted optional input).
  llvm::StringRef getInput(unsigned i) const;
  bool hasInput(unsigned i) const { return !getInput(i).empty(); }
  unsigned getNumOutputs() const;
  llvm::StringRef getOutput(unsigned i) const;

  const dsm_onnx::AttributeProto *getAttr(llvm::StringRef attrName) const;
  bool hasAttr(llvm::StringRef attrName) const { return getAttr(attrName); }
  /// Typed attributes; without a default a missing attribute is an error.
  mlir::FailureOr<int64_t> getInt(llvm::StringRef attrName,
                                  std::optional<int64_t> dflt = {}) const;
  mlir::FailureOr<double> getFloat(llvm::StringRef attrName,
                                   std::optional<double> dflt = {}) const;
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  getInts(llvm::StringRef attrName,
          std::optional<llvm::ArrayRef<int64_t>> dflt = {}) const;
  mlir::FailureOr<llvm::SmallVector<double>>
  getFloats(llvm::StringRef attrName,
            std::optional<llvm::ArrayRef<double>> dflt = {}) const;
  mlir::FailureOr<std::string>
  getString(llvm::StringRef attrName,
            std::optional<llvm::StringRef> dflt = {}) const;
  mlir::FailureOr<llvm::SmallVector<std::string>>
  getStrings(llvm::StringRef attrName,
             std::optional<llvm::ArrayRef<std::string>> dflt = {}) const;

  /// An error in the model file: "node '<name>' (<op type>): ...".
  mlir::InFlightDiagnostic emitError() const;

private:
  const dsm_onnx::AttributeProto *expect(llvm::StringRef attrName, int type,
                                         llvm::StringRef what, bool hasDefault,
                                         mlir::LogicalResult &status) const;

  const dsm_onnx::NodeProto *proto;
  int64_t index;
  std::string name;
  std::string opType;
  bool onnxDomain;
  mlir::Location loc;
  mlir::Location fileLoc;
};

} // namespace dsm::onnx

#endif // DSM_IMPORTERS_ONNXNODE_H

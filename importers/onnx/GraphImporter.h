//===- GraphImporter.h - Imports one ONNX graph into dsm ops ----*- C++ -*-===//
//
// The state of one import: what is known about every ONNX value (static
// shape, element type, contents when static, the IR value once it exists),
// the graph's use lists, and the builder. Op conversions (OnnxConversions.cpp)
// work through this interface; the compositions exporters spell out are
// recognised afterwards on the dsm ops (dsm/Import/GraphFusion.h).
//
// Values are materialized lazily: an initializer becomes a `dsm.weight` (or a
// constant) only where a dsm operation uses it, so initializers that only
// feed shape computations never appear in the IR.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_IMPORTERS_GRAPHIMPORTER_H
#define DSM_IMPORTERS_GRAPHIMPORTER_H

#include "HostTensor.h"
#include "OnnxNode.h"
#include "ValueInfo.h"

#include "dsm/Import/GraphBuilder.h"
#include "dsm/Import/ImportSummary.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <memory>

namespace dsm_onnx {
class GraphProto;
class ModelProto;
class TensorProto;
class TypeProto;
} // namespace dsm_onnx

namespace dsm::onnx {

class GraphImporter : public GraphBuilder {
public:
  GraphImporter(mlir::MLIRContext *context, llvm::StringRef fileName,
                const ImportOptions &options, ImportSummary &summary);
  ~GraphImporter();

  /// Imports `model`; null after errors.
  mlir::OwningOpRef<mlir::ModuleOp>
  importModel(const dsm_onnx::ModelProto &model);

  //===--------------------------------------------------------------------===//
  // Interface for conversions and fusions
  //===--------------------------------------------------------------------===//

  /// The most dimensions a tensor may have. ONNX sets no limit, but every
  /// model has a handful (TOSA's largest level allows 6, a Paleo input 4),
  /// and MLIR's parser takes time quadratic in a type's rank: an imported
  /// tensor of rank 40,000 cost every later run 12 s to read.
  static constexpr size_t kMaxRank = 64;

  mlir::MLIRContext *getContext() const { return context; }
  int64_t getOpset() const { return opset; }
  const ImportOptions &getOptions() const { return options; }

  /// The value `name` (which must be defined).
  const ValueInfo &get(llvm::StringRef name) const;
  bool isDefined(llvm::StringRef name) const { return values.count(name); }
  /// Its contents when statically known, else null.
  const HostTensor *getContents(llvm::StringRef name) const;
  /// Whether it is an initializer that becomes a `dsm.weight`.
  bool isParameter(llvm::StringRef name) const;
  /// Its MLIR tensor type (static shape).
  mlir::RankedTensorType getType(llvm::StringRef name) const;

  /// The IR value of `name`, creating a `dsm.weight` or a constant first if
  /// needed. Fails (with an error at `node`) for values that cannot exist in
  /// the IR, e.g. a constant of an unsupported element type.
  mlir::FailureOr<mlir::Value> materialize(const OnnxNode &node,
                                           llvm::StringRef name);
  /// The parameter `name` declared as `dsm.weight` with `shape` (its
  /// dimensions, reversed when `transposed`, or a reshaped view with the same
  /// element count), cached per declared form.
  mlir::FailureOr<mlir::Value>
  materializeParameter(const OnnxNode &node, llvm::StringRef name,
                       llvm::ArrayRef<int64_t> shape, bool transposed);

  /// Binds ONNX value `name` to an IR value (checking the shape the file
  /// declares for it, if any).
  mlir::LogicalResult define(const OnnxNode &node, llvm::StringRef name,
                             mlir::Value value);
  /// Binds `name` to a parameter declared by `tensor` (a Constant node
  /// whose data was stripped).
  mlir::LogicalResult defineParameter(const OnnxNode &node,
                                      llvm::StringRef name,
                                      const dsm_onnx::TensorProto &tensor);
  /// Binds `name` to a parameter of `shape` and ONNX `dataType` (a
  /// ConstantOfShape too large to fold: how weights are stored in files
  /// that keep only their shapes).
  mlir::LogicalResult defineParameter(const OnnxNode &node,
                                      llvm::StringRef name,
                                      llvm::ArrayRef<int64_t> shape,
                                      int32_t dataType);
  /// Binds `name` to static contents.
  mlir::LogicalResult defineContents(const OnnxNode &node, llvm::StringRef name,
                                     HostTensor contents);
  /// Makes `name` another name of `source` (Identity, Dropout).
  mlir::LogicalResult defineAlias(const OnnxNode &node, llvm::StringRef name,
                                  llvm::StringRef source);

  /// Creates a dsm graph op from its operands and named attributes
  /// (GraphBuilder::create, whose reshape and transpose the conversions use
  /// too).
  template <typename OpTy>
  mlir::FailureOr<mlir::Value>
  create(mlir::Location loc, mlir::ValueRange operands,
         llvm::ArrayRef<mlir::NamedAttribute> attributes = {}) {
    mlir::FailureOr<OpTy> op =
        GraphBuilder::create<OpTy>(loc, operands, attributes);
    if (mlir::failed(op))
      return mlir::failure();
    return (*op)->getResult(0);
  }

  /// Reports a node the importer knows but cannot express in this form:
  /// strict mode, an error; permissive mode, `dsm.opaque` results (shapes
  /// from `resultTypes` when given, else from the file's value_info).
  mlir::LogicalResult unsupported(const OnnxNode &node,
                                  const llvm::Twine &reason,
                                  llvm::ArrayRef<mlir::Type> resultTypes = {});
  /// Imports a node with no dsm counterpart as `dsm.opaque` in both modes:
  /// one per used output, charged `opsPerElement` per result element.
  mlir::LogicalResult opaque(const OnnxNode &node, double opsPerElement,
                             llvm::ArrayRef<mlir::Type> resultTypes,
                             const llvm::Twine &why);

  /// One `dsm.opaque` result standing for part of a node (listed among the
  /// summary's opaque nodes; the node's own outcome is unchanged).
  mlir::Value createOpaque(const OnnxNode &node, mlir::ValueRange inputs,
                           mlir::Type type, double opsPerElement,
                           const llvm::Twine &why);

  /// How the current node is accounted in the summary (default: imported).
  void setOutcome(ImportSummary::Outcome outcome) { currentOutcome = outcome; }

  //===--------------------------------------------------------------------===//
  // Graph structure
  //===--------------------------------------------------------------------===//

  /// Number of node inputs and graph outputs that read `name`.
  int64_t getUseCount(llvm::StringRef name) const;
  /// Nodes that read `name`.
  llvm::ArrayRef<const OnnxNode *> getUsers(llvm::StringRef name) const;

private:
  mlir::LogicalResult readOpset(const dsm_onnx::ModelProto &model);
  mlir::LogicalResult indexGraph(const dsm_onnx::GraphProto &graph);
  mlir::LogicalResult addInitializer(const dsm_onnx::TensorProto &tensor);
  mlir::FailureOr<mlir::Type> getInputType(const dsm_onnx::TypeProto &type,
                                           llvm::StringRef name);
  mlir::LogicalResult importNode(const OnnxNode &node);
  mlir::LogicalResult checkOperands(const OnnxNode &node);
  mlir::LogicalResult checkRank(const OnnxNode &node, llvm::StringRef name,
                                size_t rank);
  mlir::LogicalResult unsupportedDomain(const OnnxNode &node);
  mlir::LogicalResult checkDeclared(const OnnxNode &node, llvm::StringRef name);
  mlir::FailureOr<mlir::Value> materializeContents(const OnnxNode &node,
                                                   llvm::StringRef name,
                                                   const HostTensor &contents);
  /// Lists `node`, kept opaque with results of `types`, in the summary.
  void recordOpaque(const OnnxNode &node, llvm::ArrayRef<mlir::Type> types,
                    double opsPerElement, llvm::StringRef why);
  mlir::LogicalResult buildOpaque(const OnnxNode &node, double opsPerElement,
                                  llvm::ArrayRef<mlir::Type> resultTypes,
                                  const llvm::Twine &why);
  void eraseDeadOps();
  mlir::LogicalResult finishModule(const dsm_onnx::GraphProto &graph,
                                   llvm::ArrayRef<mlir::Type> argTypes);
  mlir::Location getFileLoc();
  mlir::InFlightDiagnostic emitFileError();

  class Listener;

  mlir::MLIRContext *context;
  std::string fileName;
  const ImportOptions &options;
  ImportSummary &summary;
  /// The graph's account in `summary`.
  ImportSummary::Unit *unit = nullptr;
  mlir::func::FuncOp function;
  std::unique_ptr<Listener> listener;
  int64_t opset = 0;

  std::vector<std::unique_ptr<OnnxNode>> nodes;
  llvm::StringMap<ValueInfo> values;
  llvm::StringMap<const OnnxNode *> producers;
  llvm::StringMap<llvm::SmallVector<const OnnxNode *, 2>> users;
  llvm::StringMap<int64_t> useCounts;
  llvm::StringSet<> graphOutputs;
  /// Types the file declares (value_info, graph outputs).
  llvm::StringMap<const dsm_onnx::TypeProto *> declared;
  /// Initializers by name.
  llvm::StringMap<const dsm_onnx::TensorProto *> initializers;
  llvm::StringMap<mlir::Value> parameterCache;

  // The node being imported and how it is accounted.
  const OnnxNode *currentNode = nullptr;
  ImportSummary::Outcome currentOutcome;
  /// Each imported node and how it is accounted, in graph order.
  std::vector<std::pair<const OnnxNode *, ImportSummary::Outcome>> outcomes;
  /// Which op type (or pattern) each created op was imported from.
  llvm::DenseMap<mlir::Operation *, std::string> origins;
  /// The node each created op was imported for.
  llvm::DenseMap<mlir::Operation *, const OnnxNode *> creators;
};

} // namespace dsm::onnx

#endif // DSM_IMPORTERS_GRAPHIMPORTER_H

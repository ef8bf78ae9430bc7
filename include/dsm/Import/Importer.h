//===- Importer.h - Shared machinery of the dsm front ends ------*- C++ -*-===//
//
// The linalg and TOSA importers rewrite a function op by op, in program
// order, into dsm operations. This is what they share: the mapping from
// imported values to dsm values, producers that are only materialized when a
// consumer needs them (pads, reshapes, constants), dsm.weight declarations,
// strict/permissive handling of unrecognised operations, composition of
// elementwise chains and their classification
// (dsm/Core/Workload/ElementwiseClass.h), softmax and mean matching, the import
// summary, and the final clean-up.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_IMPORT_IMPORTER_H
#define DSM_IMPORT_IMPORTER_H

#include "dsm/Core/Workload/ElementwiseClass.h"
#include "dsm/Dialect/DsmOps.h"
#include "dsm/Import/GraphBuilder.h"
#include "dsm/Import/ImportSummary.h"
#include "dsm/Import/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

#include <map>
#include <string>
#include <vector>

namespace dsm {

/// One input of an elementwise view: a value and, for linalg, how it is
/// indexed by the loops (a null map means NumPy broadcasting by shape).
struct ViewOperand {
  mlir::Value value;
  mlir::AffineMap map;
  bool operator==(const ViewOperand &other) const {
    return value == other.value && map == other.map;
  }
};

/// An elementwise operation (or a chain of them) seen as a scalar function
/// of its operands: function input i is operands[i].
struct ElementwiseView {
  core::ScalarFunction function;
  llvm::SmallVector<ViewOperand> operands;
  /// The operation whose result the view computes.
  mlir::Operation *op = nullptr;
};

/// A reduction: `input` reduced over `axes` (input dimensions).
struct ReduceView {
  mlir::Value input;
  ReduceKind kind;
  llvm::SmallVector<int64_t> axes;
  /// Whether the result keeps the reduced dimensions as size 1.
  bool keepDims = false;
  /// Whether the squares of the input are summed (x * x + acc in one body:
  /// an RMSNorm's or a variance's sum of squares), imported as a dsm.mul
  /// and the sum.
  bool squares = false;
};

/// Base of the front ends: drives the rewrite of one function.
class Importer : protected GraphBuilder {
public:
  Importer(mlir::func::FuncOp func, const ImportOptions &options,
           ImportSummary::Unit &summary);
  virtual ~Importer();

  /// Imports the function; on failure an error has been emitted.
  mlir::LogicalResult run();

protected:
  using Outcome = ImportSummary::Outcome;

  //===--------------------------------------------------------------------===//
  // Front-end hooks
  //===--------------------------------------------------------------------===//

  /// Imports `op` (not lazy, not yet claimed). Returns false when it is not
  /// recognised (the caller then errs or keeps it opaque), failure after an
  /// error.
  virtual mlir::FailureOr<bool> handle(mlir::Operation *op) = 0;
  /// Whether `op` only produces values on demand (constants, pads, reshapes,
  /// transposes): it is materialized when a consumer needs its result as an
  /// activation, and dropped when consumers fold it.
  virtual bool isLazy(mlir::Operation *op) = 0;
  /// Materializes `result` of a lazy op as a dsm value.
  virtual mlir::FailureOr<mlir::Value> materialize(mlir::OpResult result) = 0;
  /// The source of a value-preserving view of a constant (reshape, transpose,
  /// copy), or null.
  virtual mlir::Value getViewSource(mlir::Operation *op) = 0;
  /// The elementwise view of `op`, if it is elementwise.
  virtual std::optional<ElementwiseView>
  getElementwise(mlir::Operation *op) = 0;
  /// The operands of `producer` re-expressed in the iteration space of
  /// `consumer`, whose operand `index` is the producer's result; none if the
  /// two cannot be composed.
  virtual std::optional<llvm::SmallVector<ViewOperand>>
  retarget(const ElementwiseView &producer, const ElementwiseView &consumer,
           unsigned index) = 0;
  /// Whether operand `index` of `view` covers the whole result (is not
  /// broadcast).
  virtual bool isFullSize(const ElementwiseView &view, unsigned index) = 0;
  /// The shape operand `index` takes when aligned (NumPy) with the result.
  virtual llvm::SmallVector<int64_t>
  getAlignedShape(const ElementwiseView &view, unsigned index) = 0;
  /// The dsm value of operand `index`, of its aligned shape. Constants become
  /// weights of `elementType` named after `role`.
  virtual mlir::FailureOr<mlir::Value>
  getViewOperand(const ElementwiseView &view, unsigned index,
                 mlir::Type elementType, llvm::StringRef role) = 0;
  /// The reduction view of `op`, if it is a plain sum, max or min.
  virtual std::optional<ReduceView> getReduce(mlir::Operation *op) = 0;
  /// The operands whose values an opaque `op` reads (default: its tensor
  /// operands).
  virtual llvm::SmallVector<mlir::Value> getOpaqueInputs(mlir::Operation *op);
  /// Ops per result element of `op` kept opaque (default 1).
  virtual double estimateOpsPerElement(mlir::Operation *op) { return 1.0; }

  //===--------------------------------------------------------------------===//
  // Services
  //===--------------------------------------------------------------------===//

  mlir::MLIRContext *getContext() { return func.getContext(); }

  /// The dsm value standing for `original`, materializing lazy producers.
  mlir::FailureOr<mlir::Value> getActivation(mlir::Value original);
  /// getActivation of each of `originals`.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  getActivations(mlir::ValueRange originals);
  /// An activation and the element type dsm ops compute in for it.
  struct TypedActivation {
    mlir::Value value;
    mlir::Type elementType;
  };
  /// getActivation of `original`, with its element type (a located error at
  /// `loc` when dsm has none for it).
  mlir::FailureOr<TypedActivation> getTypedActivation(mlir::Location loc,
                                                      mlir::Value original);
  /// Records that `original` is now `replacement`.
  void map(mlir::Value original, mlir::Value replacement);
  bool isMapped(mlir::Value original) const { return mapping.count(original); }

  /// The constant `value` is (looking through views), or null.
  mlir::Operation *getConstantRoot(mlir::Value value);
  /// A dsm.weight for the constant behind `value`, declared with `shape`
  /// (same number of elements) and `elementType`; named after the constant's
  /// location, else after its first consumer and `role`. Non-splat constants
  /// get one declaration per shape; splat constants (often shared by
  /// unrelated layers after CSE) one per use.
  mlir::FailureOr<mlir::Value> getWeight(mlir::Value value,
                                         llvm::ArrayRef<int64_t> shape,
                                         mlir::Type elementType,
                                         llvm::StringRef role);
  /// A constant `result` some consumer reads as data: one value everywhere
  /// is data movement (dsm.opaque of no work), other contents a weight; a
  /// constant that is no ranked tensor is a located error.
  mlir::FailureOr<mlir::Value> materializeConstant(mlir::OpResult result);
  /// The value every element of `value` has, if it is a splat constant,
  /// a fill, or computed elementwise from such values.
  std::optional<double> getSplatValue(mlir::Value value, unsigned depth = 0);
  /// The splat value of a scalar (not tensor) constant.
  std::optional<double> getScalarConstant(mlir::Value value);

  /// Creates a dsm op (GraphBuilder::create) and checks the static
  /// dimensions of `expected` (the imported op's result type) against its
  /// inferred type.
  template <typename OpTy, typename... Args>
  mlir::FailureOr<OpTy> create(mlir::Location loc, mlir::Type expected,
                               Args &&...args) {
    mlir::FailureOr<OpTy> op =
        GraphBuilder::create<OpTy>(loc, std::forward<Args>(args)...);
    if (mlir::failed(op) ||
        mlir::failed(checkDeclaredShape(op->getOperation(), expected)))
      return mlir::failure();
    return op;
  }

  /// Keeps `op` (result `index`) as dsm.opaque over `inputs`.
  mlir::FailureOr<mlir::Value> createOpaque(mlir::Operation *op, unsigned index,
                                            mlir::ValueRange inputs,
                                            double opsPerElement,
                                            llvm::StringRef reason);
  /// Keeps `op` as a dsm.opaque of `type` over `inputs`.
  mlir::FailureOr<mlir::Value> createOpaque(mlir::Operation *op,
                                            mlir::RankedTensorType type,
                                            mlir::ValueRange inputs,
                                            double opsPerElement,
                                            llvm::StringRef reason);
  /// Keeps `result` of a data-movement op dsm has no counterpart for as a
  /// dsm.opaque of no work over `inputs`, its op accounted as opaque.
  mlir::FailureOr<mlir::Value> keepDataMovement(mlir::OpResult result,
                                                mlir::ValueRange inputs,
                                                llvm::StringRef reason);
  /// The dsm pooling ops windows become.
  enum class PoolKind { Max, Average, GlobalAverage };
  /// The dsm pooling op of `kind` over `activation` (global pooling takes
  /// neither window nor padding); its type is checked against `expected`.
  mlir::FailureOr<mlir::Value>
  createPool(mlir::Location loc, mlir::Type expected, PoolKind kind,
             mlir::Value activation, llvm::ArrayRef<int64_t> kernel,
             llvm::ArrayRef<int64_t> strides, llvm::ArrayRef<int64_t> padding,
             bool ceilMode, DataLayoutAttr layout);
  /// Handles an op `handle` did not recognise: a located error in strict
  /// mode; else dsm.opaque over its tensor operands (and the vectors and
  /// buffers already kept opaque), one per result that carries data --
  /// tensors, vectors as tensors of their shape, numeric scalars as 0-d
  /// tensors -- or, for an op on buffers, one per buffer it writes, which
  /// later readers of the buffer read.
  mlir::LogicalResult unrecognised(mlir::Operation *op, llvm::StringRef reason);
  /// Ops per element of `charged` for `op` kept opaque: estimateOpsPerElement,
  /// or for a loop nest or other op with regions what it executes (loops
  /// with constant bounds times their trip counts) per charged element.
  double estimateWork(mlir::Operation *op, mlir::RankedTensorType charged);

  /// The static shape of an imported result type, with a dynamic batch
  /// dimension fixed by the `batch` option; failure (with an error at `loc`)
  /// if it stays dynamic.
  mlir::FailureOr<mlir::RankedTensorType> staticType(mlir::Location loc,
                                                     mlir::Type type);
  /// The element type dsm ops compute in for a value of `type`.
  static mlir::Type getDsmElementType(mlir::Type type);
  /// The element type dsm ops compute in for `value`, or a located error
  /// at `loc` naming the unsupported type.
  mlir::FailureOr<mlir::Type> requireDsmElementType(mlir::Location loc,
                                                    mlir::Value value);
  /// Whether `value` holds integers dsm does not compute with (i1, i32, i64:
  /// masks, positions, ids), which are data, never parameters.
  static bool isIntegerData(mlir::Value value);
  /// The dsm value `value` converted to the float `elementType` when it holds
  /// integer data entering float arithmetic (a mask or position converted
  /// by arith.sitofp / uitofp, tosa.cast): a dsm.opaque named after `op`,
  /// the source op converting it, of 1 operation per element (as ONNX
  /// Cast). Other values are returned as they are.
  mlir::FailureOr<mlir::Value> convertIntegerData(mlir::Operation *op,
                                                  mlir::Value value,
                                                  mlir::Type elementType);

  /// Marks `op` as imported by someone else (it is skipped) with `outcome`
  /// and `result` for the summary.
  void claim(mlir::Operation *op, ImportSummary::Outcome outcome,
             llvm::StringRef result);
  /// Marks `op` as fused into the dsm op `into` (it is skipped).
  void claimFused(mlir::Operation *op, llvm::StringRef into) {
    claim(op, ImportSummary::Outcome::Fused, ("into " + into).str());
  }
  bool isClaimed(mlir::Operation *op) const { return claimed.contains(op); }
  /// Records what `op` became, for the summary: `result` names the dsm op it
  /// became, or what it was fused or folded into. What an op became beats
  /// what it was folded into.
  void setOutcome(mlir::Operation *op, ImportSummary::Outcome outcome,
                  llvm::StringRef result = {});
  /// Records that `op` became the dsm op `dsmOp`.
  void setImported(mlir::Operation *op, llvm::StringRef dsmOp) {
    setOutcome(op, ImportSummary::Outcome::Imported, dsmOp);
  }
  /// The usual end of a handler: `op`'s result is now that of `created`, the
  /// dsm op `op` was imported as.
  template <typename OpTy>
  mlir::FailureOr<bool> finishImport(mlir::Operation *op,
                                     mlir::FailureOr<OpTy> created) {
    if (mlir::failed(created))
      return mlir::failure();
    map(op->getResult(0), (*created)->getResult(0));
    setImported(op, OpTy::getOperationName());
    return true;
  }
  /// Makes `handle` return false with `reason` for the error or summary.
  bool reject(const llvm::Twine &reason) {
    rejection = reason.str();
    return false;
  }

  //===--------------------------------------------------------------------===//
  // Shared recognition
  //===--------------------------------------------------------------------===//

  /// Classifies a view; when the classification is not a dsm operation,
  /// tries again with splat-constant operands bound to their values (and
  /// sets `bound`).
  core::ElementwiseClass classify(const ElementwiseView &view,
                                  bool *bound = nullptr);
  /// Whether a classification maps to dsm operations.
  static bool isImportable(const core::ElementwiseClass &c);
  /// Imports the elementwise op `op`: the longest chain of single-use
  /// elementwise consumers whose composition is a dsm operation (hard swish
  /// spelled as five generics) becomes that operation. Returns false when
  /// neither `op` nor a chain from it is recognised.
  mlir::FailureOr<bool> importElementwise(mlir::Operation *op);
  /// A product of three or more inputs in one body (x * rsqrt(..) * weight,
  /// as elementwise fusion leaves an RMSNorm's end) as a chain of dsm.mul,
  /// activations before constants, so that the graph fusions see
  /// (x * r) * weight. Null when `view` is no such product.
  mlir::FailureOr<mlir::Value> emitProduct(const ElementwiseView &view);
  /// Emits the dsm operation(s) of a classified view; returns the result.
  mlir::FailureOr<mlir::Value> emitElementwise(const ElementwiseView &view,
                                               const core::ElementwiseClass &c,
                                               mlir::Location loc,
                                               mlir::Type expected);
  /// Imports the reduction `op` seen as `reduce`: a softmax starting there,
  /// else dsm.reduce, a mean when its single-use consumers divide by the
  /// count.
  mlir::FailureOr<bool> importReduce(mlir::Operation *op,
                                     const ReduceView &reduce);
  /// Softmax spelled as max-reduce, exp(x - max), sum-reduce and divide
  /// (or without the max), starting at `op`.
  mlir::FailureOr<bool> trySoftmax(mlir::Operation *op);
  /// Follows the single-use elementwise consumers of `start` (at most three),
  /// composing them, until the composite computes `expected(a, b)` of the
  /// values `a` and `b` and nothing else; with `fullSize`, `a` and each
  /// composed step must be read at the result's full size. Returns the chain
  /// (the last op computes the result), or nullopt.
  std::optional<llvm::SmallVector<mlir::Operation *>>
  matchBinaryChain(mlir::Value start, mlir::Value a, mlir::Value b,
                   llvm::function_ref<double(llvm::ArrayRef<double>)> expected,
                   bool fullSize);
  /// The single elementwise consumer chain of `value` that multiplies it by
  /// `scale` (a mean's or average pool's divisor), as the ops to claim.
  std::optional<llvm::SmallVector<mlir::Operation *>>
  matchScaleBy(mlir::Value value, double scale);

  /// Composes `consumer` with `producer` feeding its operand `index`.
  std::optional<ElementwiseView> compose(const ElementwiseView &producer,
                                         const ElementwiseView &consumer,
                                         unsigned index);
  /// Composes into `view` the producers of its operands that compute
  /// elementwise from constants only (so that rsqrt(variance + eps) shows
  /// its variance to the classifier) or, not yet imported and read only by
  /// the view, from operands the view already reads; the latter are added
  /// to `absorbed` for claiming.
  void inlineProducers(ElementwiseView &view,
                       llvm::SmallVector<mlir::Operation *> &absorbed,
                       unsigned depth = 0,
                       const ElementwiseView *root = nullptr);
  /// Whether `value` is a constant (through views) or a splat.
  bool isConstant(mlir::Value value, unsigned depth = 0);
  /// Whether `op` is elementwise over constants only: it is folded into its
  /// consumers (front ends treat it as lazy).
  bool isConstantExpression(mlir::Operation *op, unsigned depth = 0);
  /// A constant expression or splat some consumer needs as data.
  mlir::FailureOr<mlir::Value>
  materializeConstantExpression(mlir::OpResult result);

  mlir::func::FuncOp func;
  const ImportOptions &options;
  /// This function's account in the import summary.
  ImportSummary::Unit &summary;
  /// The op being imported.
  mlir::Operation *current = nullptr;

private:
  mlir::LogicalResult checkDeclaredShape(mlir::Operation *op,
                                         mlir::Type expected);
  mlir::LogicalResult fixDynamicArguments();
  mlir::LogicalResult finalize();
  /// Emits a chain recognised earlier, now that `op` (its last) is reached.
  mlir::LogicalResult emitPendingChain(mlir::Operation *op);

  struct PendingChain {
    ElementwiseView view;
    core::ElementwiseClass kind;
    mlir::Operation *first;
  };
  llvm::DenseMap<mlir::Operation *, PendingChain> pendingChains;
  std::string rejection;

  llvm::DenseMap<mlir::Value, mlir::Value> mapping;
  llvm::DenseSet<mlir::Operation *> claimed;
  /// What each source op became, for the summary.
  llvm::DenseMap<mlir::Operation *,
                 std::pair<ImportSummary::Outcome, std::string>>
      outcomes;
  std::vector<mlir::Operation *> originals;
  /// (constant op, shape) -> declared weight.
  std::map<std::pair<mlir::Operation *, std::vector<int64_t>>, mlir::Value>
      weights;
  llvm::DenseSet<mlir::Operation *> materializing;
};

/// The most operations inlining may create in one import: a thousand times
/// ResNet-50 as torch-mlir writes it. A call graph that expands beyond it (a
/// DAG of calls doubles at every level) is an error before anything is
/// cloned.
constexpr uint64_t kInlineBudget = uint64_t(1) << 20;

/// Inlines calls to functions of `module` that have a body into the
/// functions nothing calls (the models), and erases the functions that were
/// called (they are parts of the models that remain). Each operation is
/// cloned once per place it ends up in: linear in the result. Located errors:
/// a recursive call (at the call closing the cycle), a callee with control
/// flow, and calls that would create more than `budget` operations (at the
/// call where the count passes it). The count is taken before any cloning.
mlir::LogicalResult inlineLocalCalls(mlir::ModuleOp module,
                                     uint64_t budget = kInlineBudget);

/// Names the dsm.weight declarations still waiting for a name after their
/// first consumer, as the workload report names layers ("conv2d_3.weight").
void nameImportedWeights(mlir::ModuleOp module);

/// Runs `makeImporter` on every function of the module with a body, then
/// erases module-level ops the import made dead (ml_program.global) and
/// writes the summary. Shared driver of the import passes.
mlir::LogicalResult
runImport(mlir::ModuleOp module, llvm::StringRef passName,
          const ImportOptions &options,
          llvm::function_ref<std::unique_ptr<Importer>(
              mlir::func::FuncOp, const ImportOptions &, ImportSummary::Unit &)>
              makeImporter);

/// runImport with the front end `ImporterT`: the body of an import pass.
template <typename ImporterT>
mlir::LogicalResult runImport(mlir::ModuleOp module, llvm::StringRef passName,
                              const ImportOptions &options) {
  return runImport(module, passName, options,
                   [](mlir::func::FuncOp func, const ImportOptions &options,
                      ImportSummary::Unit &summary) {
                     return std::make_unique<ImporterT>(func, options, summary);
                   });
}

} // namespace dsm

#endif // DSM_IMPORT_IMPORTER_H

//===- GraphBuilder.h - Builds dsm graph ops for the front ends -*- C++ -*-===//
//
// Every front end (linalg, TOSA, ONNX) builds dsm graph operations the same
// way, through this class (the front ends' drivers derive from it): the result
// type is inferred by the op's shape rule (a located error, never an assertion,
// when the rule refuses), the op is verified, and the two data-movement ops
// every front end needs are written so that the model stays re-batchable:
// - a reshape keeps the batch dimension as 0 ("copy") or lets the group of
//   dimensions it merges into absorb it as -1 ("infer");
// - optionally, a reshape of a reshape, or a transpose of a transpose,
//   becomes one op. The ONNX importer asks for this (shape arithmetic in a
//   graph spells many views of views, and it erases the views left unused);
//   the MLIR importers translate each source op into its own, so that the
//   graph fusions see the source's structure.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_IMPORT_GRAPHBUILDER_H
#define DSM_IMPORT_GRAPHBUILDER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace dsm {

class GraphBuilder {
public:
  /// With `composeViews`, reshape and transpose compose with a producing
  /// op of their kind (the producer stays, possibly unused).
  GraphBuilder(mlir::MLIRContext *context, bool composeViews)
      : builder(context), composeViews(composeViews) {}

  mlir::OpBuilder &getBuilder() { return builder; }

  /// Creates `OpTy` from the arguments of one of its ODS builders that takes
  /// the result type first (passed here as a placeholder), then sets the
  /// type its shape rule infers. The generic form (operands, named
  /// attributes) is one such builder. On failure the op's error has been
  /// emitted at `loc` and nothing is left in the IR.
  template <typename OpTy, typename... Args>
  mlir::FailureOr<OpTy> create(mlir::Location loc, Args &&...args) {
    auto op = OpTy::create(builder, loc, getPlaceholderType(),
                           std::forward<Args>(args)...);
    if (mlir::failed(inferResultType(op.getOperation())))
      return mlir::failure();
    return op;
  }

  /// A dsm.reshape of `value` to `shape` (see the file comment); `value`
  /// itself when the shape does not change.
  mlir::FailureOr<mlir::Value> reshape(mlir::Location loc, mlir::Value value,
                                       llvm::ArrayRef<int64_t> shape);
  /// A dsm.transpose of `value` by `permutation`; `value` itself for the
  /// identity.
  mlir::FailureOr<mlir::Value> transpose(mlir::Location loc, mlir::Value value,
                                         llvm::ArrayRef<int64_t> permutation);
  /// A rank-0 constant `value` of `elementType` (rounded to it), which dsm
  /// binary ops broadcast; at `loc`, or an unknown location.
  mlir::Value scalarConstant(mlir::Type elementType, double value,
                             mlir::LocationAttr loc = {});
  /// A dsm.opaque of `type` over `inputs`, standing for an operation named
  /// `origin` that dsm cannot express and charged `opsPerElement` per result
  /// element.
  mlir::FailureOr<mlir::Value>
  opaque(mlir::Location loc, mlir::RankedTensorType type,
         llvm::StringRef origin, mlir::ValueRange inputs, double opsPerElement);

protected:
  mlir::OpBuilder builder;

private:
  mlir::Type getPlaceholderType();
  /// Sets the type `op`'s shape rule infers and verifies it; erases `op`
  /// after an error.
  mlir::LogicalResult inferResultType(mlir::Operation *op);
  /// Erases an op this builder created after an error.
  void eraseCreated(mlir::Operation *op);

  bool composeViews;
};

} // namespace dsm

#endif // DSM_IMPORT_GRAPHBUILDER_H

//===- GraphBuilder.cpp - Builds dsm graph ops for the front ends ---------===//

#include "dsm/Import/GraphBuilder.h"
#include "dsm/Dialect/DsmOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

using namespace mlir;
using namespace dsm;

Type GraphBuilder::getPlaceholderType() {
  return RankedTensorType::get({1}, builder.getF32Type());
}

void GraphBuilder::eraseCreated(Operation *op) {
  // A listener that saw the op inserted (the ONNX importer's) hears of it.
  if (auto *listener =
          dyn_cast_or_null<RewriterBase::Listener>(builder.getListener()))
    listener->notifyOperationErased(op);
  op->erase();
}

LogicalResult GraphBuilder::inferResultType(Operation *op) {
  auto infer = cast<InferTypeOpInterface>(op);
  SmallVector<Type, 1> types;
  if (failed(infer.inferReturnTypes(
          op->getContext(), op->getLoc(), op->getOperands(),
          op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
          op->getRegions(), types)) ||
      types.size() != op->getNumResults()) {
    eraseCreated(op);
    return failure();
  }
  for (auto [result, type] : llvm::zip(op->getResults(), types))
    result.setType(type);
  if (failed(verify(op, /*verifyRecursively=*/false))) {
    eraseCreated(op);
    return failure();
  }
  return success();
}

FailureOr<Value> GraphBuilder::reshape(Location loc, Value value,
                                       ArrayRef<int64_t> shape) {
  if (auto previous = value.getDefiningOp<ReshapeOp>();
      previous && composeViews)
    value = previous.getInput();
  auto type = cast<RankedTensorType>(value.getType());
  ArrayRef<int64_t> in = type.getShape();
  if (in == shape)
    return value;
  SmallVector<int64_t> encoded(shape);
  if (!in.empty() && !shape.empty()) {
    if (in[0] == shape[0]) {
      encoded[0] = 0; // the batch dimension is kept
    } else {
      // The batch dimension merges or splits: let the output dimensions of
      // its group absorb it (-1), so that re-batching scales them.
      int64_t a = in[0], b = 1;
      size_t i = 1, j = 0;
      while (j < shape.size()) {
        b *= shape[j++];
        while (a < b && i < in.size())
          a *= in[i++];
        if (a == b)
          break;
      }
      size_t position = 0;
      for (size_t k = 0; k < j; ++k)
        if (shape[k] != 1) {
          position = k;
          break;
        }
      encoded[position] = -1;
    }
  }
  // dsm.reshape reads 0 as "copy": a zero-size dimension it does not copy
  // (an empty tensor) cannot be written.
  for (auto [index, size] : llvm::enumerate(shape))
    if (size == 0 && !(index == 0 && encoded[0] == 0))
      return emitError(loc) << "cannot reshape to " << formatShape(shape)
                            << ": dsm.reshape cannot express an empty tensor";
  FailureOr<ReshapeOp> op =
      create<ReshapeOp>(loc, value, builder.getDenseI64ArrayAttr(encoded));
  if (failed(op))
    return failure();
  return op->getResult();
}

FailureOr<Value> GraphBuilder::transpose(Location loc, Value value,
                                         ArrayRef<int64_t> permutation) {
  SmallVector<int64_t> perm(permutation);
  if (auto previous = value.getDefiningOp<TransposeOp>();
      previous && composeViews) {
    ArrayRef<int64_t> first = previous.getPermutation();
    if (first.size() == perm.size() && llvm::all_of(perm, [&](int64_t p) {
          return p >= 0 && p < int64_t(first.size());
        })) {
      // Element i of the result is element first[perm[i]] of the input.
      for (int64_t &p : perm)
        p = first[p];
      value = previous.getInput();
    }
  }
  bool identity = true;
  for (auto [index, p] : llvm::enumerate(perm))
    identity &= p == int64_t(index);
  if (identity &&
      int64_t(perm.size()) == cast<RankedTensorType>(value.getType()).getRank())
    return value;
  FailureOr<TransposeOp> op =
      create<TransposeOp>(loc, value, builder.getDenseI64ArrayAttr(perm));
  if (failed(op))
    return failure();
  return op->getResult();
}

Value GraphBuilder::scalarConstant(Type elementType, double value,
                                   LocationAttr loc) {
  auto type = RankedTensorType::get({}, elementType);
  Attribute attr;
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    APFloat converted(value);
    bool lost;
    converted.convert(floatType.getFloatSemantics(),
                      APFloat::rmNearestTiesToEven, &lost);
    attr = DenseElementsAttr::get(type, converted);
  } else {
    attr = DenseElementsAttr::get(
        type, APInt(elementType.getIntOrFloatBitWidth(),
                    static_cast<uint64_t>(static_cast<int64_t>(value)),
                    /*isSigned=*/true, /*implicitTrunc=*/true));
  }
  return arith::ConstantOp::create(
             builder, loc ? Location(loc) : builder.getUnknownLoc(),
             cast<TypedAttr>(attr))
      .getResult();
}

FailureOr<Value> GraphBuilder::opaque(Location loc, RankedTensorType type,
                                      StringRef origin, ValueRange inputs,
                                      double opsPerElement) {
  auto op = OpaqueOp::create(builder, loc, type, builder.getStringAttr(origin),
                             inputs, builder.getF64FloatAttr(opsPerElement));
  if (failed(verify(op, /*verifyRecursively=*/false))) {
    eraseCreated(op);
    return failure();
  }
  return op.getResult();
}

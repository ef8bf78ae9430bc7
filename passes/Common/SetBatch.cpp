//===- SetBatch.cpp - --dsm-set-batch -------------------------------------===//

#include "dsm/Dialect/DsmOps.h"
#include "dsm/Passes/OptionCheck.h"
#include "dsm/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Traits.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

namespace dsm {
#define GEN_PASS_DEF_DSMSETBATCH
#include "dsm/Passes/Passes.h.inc"
} // namespace dsm

using namespace mlir;
using namespace dsm;

namespace {
struct SetBatchPass : public dsm::impl::DsmSetBatchBase<SetBatchPass> {
  using DsmSetBatchBase::DsmSetBatchBase;

  void runOnOperation() override {
    if (failed(checkOptionRange(getOperation().getLoc(), "batch",
                                int64_t(batch), 1, kMaxBatch)))
      return signalPassFailure();
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (failed(rebatch(func)))
        return signalPassFailure();
  }

  /// Types values had before this pass changed them.
  DenseMap<Value, Type> oldTypes;

  void retype(Value value, Type type) {
    if (value.getType() == type)
      return;
    oldTypes.try_emplace(value, value.getType());
    value.setType(type);
    ++numRetyped;
  }

  Type oldTypeOf(Value value) {
    auto it = oldTypes.find(value);
    return it == oldTypes.end() ? value.getType() : it->second;
  }

  /// An imported operation known only by its element count (dsm.opaque)
  /// follows the batch when it is elementwise: when its result had the
  /// broadcast shape of its inputs, it keeps having it. Otherwise, when it
  /// had the shape of its first input (an insertion into a KV cache), it
  /// keeps having that.
  LogicalResult rebatchOpaque(OpaqueOp op) {
    auto broadcast = [&](auto typeOf) -> std::optional<SmallVector<int64_t>> {
      SmallVector<int64_t> shape;
      for (Value input : op.getInputs()) {
        auto type = dyn_cast<RankedTensorType>(typeOf(input));
        if (!type)
          return std::nullopt;
        SmallVector<int64_t> next;
        if (!OpTrait::util::getBroadcastedShape(shape, type.getShape(), next))
          return std::nullopt;
        shape = next;
      }
      return shape;
    };
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    std::optional<SmallVector<int64_t>> before =
        broadcast([&](Value v) { return oldTypeOf(v); });
    if ((!before || ArrayRef<int64_t>(*before) != resultType.getShape()) &&
        !op.getInputs().empty() &&
        oldTypeOf(op.getInputs()[0]) == Type(resultType)) {
      auto into = cast<RankedTensorType>(op.getInputs()[0].getType());
      retype(op.getResult(), resultType.clone(into.getShape()));
      return success();
    }
    if (!before || ArrayRef<int64_t>(*before) != resultType.getShape())
      return op.emitOpError()
             << "cannot be re-batched: its result is not shaped like its "
                "inputs, so the new batch cannot be carried through it";
    std::optional<SmallVector<int64_t>> after =
        broadcast([](Value v) { return v.getType(); });
    if (!after)
      return op.emitOpError() << "cannot be re-batched: its inputs no longer "
                                 "broadcast together";
    retype(op.getResult(), resultType.clone(*after));
    return success();
  }

  LogicalResult rebatch(func::FuncOp func) {
    if (func.isExternal())
      return success();
    Block &entry = func.getBody().front();
    // New argument types.
    for (BlockArgument arg : entry.getArguments()) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type)
        continue;
      std::optional<int64_t> batchDim =
          findArgBatchDim(func, arg.getArgNumber());
      if (!batchDim)
        return func.emitError()
               << "cannot tell which dimension of argument #"
               << arg.getArgNumber()
               << " is the batch: its users read it differently (a time-major "
                  "dsm.lstm reads dimension 1); declare it with dsm.batch_dim";
      int64_t dim = *batchDim;
      if (dim == -1 || type.getRank() == 0)
        continue;
      if (dim < 0 || dim >= type.getRank())
        return func.emitError()
               << "argument #" << arg.getArgNumber() << " has "
               << "dsm.batch_dim = " << dim << " but rank " << type.getRank();
      SmallVector<int64_t> shape(type.getShape());
      shape[dim] = batch;
      retype(arg, type.clone(shape));
    }
    // Re-infer every result in program order.
    for (Operation &op : func.getBody().getOps()) {
      if (op.hasTrait<OpTrait::IsTerminator>() || op.getNumResults() == 0)
        continue;
      auto infer = dyn_cast<InferTypeOpInterface>(op);
      if (!infer) {
        // Ops without inference are fine as long as nothing they read changed
        // (e.g. dsm.weight).
        if (llvm::none_of(op.getOperands(),
                          [&](Value v) { return oldTypes.count(v); }))
          continue;
        if (auto opaque = dyn_cast<OpaqueOp>(op)) {
          if (failed(rebatchOpaque(opaque)))
            return failure();
          continue;
        }
        return op.emitOpError()
               << "cannot be re-batched: it does not infer its result types";
      }
      SmallVector<Type> types;
      if (failed(infer.inferReturnTypes(
              &getContext(), op.getLoc(), op.getOperands(),
              op.getRawDictionaryAttrs(), op.getPropertiesStorage(),
              op.getRegions(), types))) {
        op.emitRemark() << "while setting the batch size to " << int64_t(batch);
        return failure();
      }
      for (auto [result, type] : llvm::zip_equal(op.getResults(), types))
        retype(result, type);
    }
    // The signature follows the arguments and returned values.
    Operation *terminator = entry.getTerminator();
    func.setFunctionType(FunctionType::get(&getContext(),
                                           entry.getArgumentTypes(),
                                           terminator->getOperandTypes()));
    return success();
  }
};
} // namespace

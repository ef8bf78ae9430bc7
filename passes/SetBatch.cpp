//===- SetBatch.cpp - --dsm-set-batch -------------------------------------===//

#include "dsm/Dialect/DsmOps.h"
#include "dsm/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

namespace dsm {
#define GEN_PASS_DEF_DSMSETBATCH
#include "dsm/Passes/Passes.h.inc"
} // namespace dsm

using namespace mlir;
using namespace dsm;

static constexpr StringLiteral kBatchDimAttr = "dsm.batch_dim";

namespace {
struct SetBatchPass : public dsm::impl::DsmSetBatchBase<SetBatchPass> {
  using DsmSetBatchBase::DsmSetBatchBase;

  void runOnOperation() override {
    if (batch <= 0) {
      emitError(getOperation().getLoc())
          << "--dsm-set-batch needs batch > 0, got " << int64_t(batch);
      return signalPassFailure();
    }
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (failed(rebatch(func)))
        return signalPassFailure();
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
      int64_t dim = 0;
      if (auto attr = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(),
                                                         kBatchDimAttr))
        dim = attr.getInt();
      if (dim == -1 || type.getRank() == 0)
        continue;
      if (dim < 0 || dim >= type.getRank())
        return func.emitError() << "argument #" << arg.getArgNumber() << " has "
                                << kBatchDimAttr << " = " << dim
                                << " but rank " << type.getRank();
      SmallVector<int64_t> shape(type.getShape());
      if (shape[dim] == batch)
        continue;
      shape[dim] = batch;
      arg.setType(type.clone(shape));
      ++numRetyped;
    }
    // Re-infer every result in program order.
    for (Operation &op : func.getBody().getOps()) {
      if (op.hasTrait<OpTrait::IsTerminator>() || op.getNumResults() == 0)
        continue;
      auto infer = dyn_cast<InferTypeOpInterface>(op);
      if (!infer) {
        // Ops without inference are fine as long as nothing they read changed
        // (e.g. dsm.weight).
        if (op.getNumOperands() == 0)
          continue;
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
        if (result.getType() != type) {
          result.setType(type);
          ++numRetyped;
        }
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

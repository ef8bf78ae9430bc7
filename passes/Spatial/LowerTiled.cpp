//===- LowerTiled.cpp - --dsm-lower-tiled ---------------------------------===//

#include "dsm/Core/Spatial/MappingReport.h"
#include "dsm/Core/Spatial/PerformanceModel.h"
#include "dsm/Dialect/DsmOps.h"
#include "dsm/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace dsm {
#define GEN_PASS_DEF_DSMLOWERTILED
#include "dsm/Passes/Passes.h.inc"
} // namespace dsm

using namespace mlir;
using namespace dsm;

namespace {
struct LowerTiledPass : public dsm::impl::DsmLowerTiledBase<LowerTiledPass> {
  using DsmLowerTiledBase::DsmLowerTiledBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<core::MultiChipSystem> multiChip =
        getModuleMultiChipSystem(module, "tiled lowering");
    if (failed(multiChip))
      return signalPassFailure();
    core::PerformanceModel model(*multiChip);
    for (auto func : module.getOps<func::FuncOp>())
      if (failed(lower(func, model)))
        return signalPassFailure();
  }

  /// The chip layout in which the layer that defines or will read a value
  /// keeps it: its parallelism's, or none for a pipe stage, whose tensors
  /// stream between chip groups timestep by timestep (DeepSpatialMatrix
  /// §III-D) and are never re-laid out.
  static std::optional<Parallelism> layoutOf(Operation *op) {
    auto layout = [](Parallelism p, MemoryDecisionAttr memory) {
      return memory && memory.getDecision().pipeGroup >= 0
                 ? std::nullopt
                 : std::optional<Parallelism>(p);
    };
    if (!op)
      return std::nullopt;
    if (auto layerPass = dyn_cast<LayerPassOp>(op))
      if (layerPass.isMapped())
        return layout(*layerPass.getParallelism(), layerPass.getMemoryAttr());
    if (auto tiled = dyn_cast<TiledPassOp>(op))
      return layout(tiled.getParallelism(), tiled.getMemoryAttr());
    return std::nullopt;
  }

  static TransferAttr transferOf(LayerPassOp op, StringRef name) {
    DictionaryAttr transfers = op.getTransfersAttr();
    return transfers ? transfers.getAs<TransferAttr>(name) : TransferAttr();
  }

  /// `transfer` scaled by `fraction` (a gradient's share of its layer's).
  static TransferAttr scaled(TransferAttr transfer, double fraction) {
    auto s = [&](int64_t v) {
      return int64_t(std::llround(double(v) * fraction));
    };
    return TransferAttr::get(transfer.getContext(), s(transfer.getMemoryBus()),
                             s(transfer.getOnChip()), s(transfer.getTorusX()),
                             s(transfer.getTorusY()), s(transfer.getHost()),
                             s(transfer.getCycles()), transfer.getBottleneck());
  }

  LogicalResult lower(func::FuncOp func, const core::PerformanceModel &model) {
    SmallVector<LayerPassOp> passes;
    func.walk([&](LayerPassOp op) { passes.push_back(op); });
    for (LayerPassOp op : passes)
      if (!op.isMapped())
        return op.emitOpError("has no mapping; run --dsm-select-mapping first");

    MLIRContext *context = &getContext();
    auto relayout = [&](OpBuilder &builder, Location loc, Value value,
                        Parallelism from, Parallelism to) -> Value {
      auto type = cast<RankedTensorType>(value.getType());
      core::TransferGroup group = model.relayout(double(type.getNumElements()),
                                                 toCore(from), toCore(to));
      if (group.cycles <= 0)
        return value;
      return RelayoutOp::create(
          builder, loc, value, ParallelismAttr::get(context, from),
          ParallelismAttr::get(context, to), TransferAttr::get(context, group));
    };

    // A layer's UPD reads the activations its FWD read, as re-laid out there.
    llvm::StringMap<SmallVector<Value>> forwardIns;
    for (LayerPassOp op : passes) {
      OpBuilder builder(op);
      Location loc = op.getLoc();
      Parallelism p = *op.getParallelism();
      bool pipeStage = !layoutOf(op);
      SmallVector<Value> ins(op.getIns());

      if (op.getPass() == TrainingPass::FWD) {
        // Activations arrive in their producer's layout.
        for (Value &in : ins)
          if (std::optional<Parallelism> from = layoutOf(in.getDefiningOp());
              from && !pipeStage)
            in = relayout(builder, loc, in, *from, p);
        forwardIns[op.getLayer()] = ins;
      }
      if (op.getPass() == TrainingPass::UPD) {
        const SmallVector<Value> &fwd = forwardIns[op.getLayer()];
        for (size_t i = 0; i < fwd.size() && i < ins.size(); ++i)
          ins[i] = fwd[i];
      }
      if (op.getPass() != TrainingPass::BWD && !ins.empty())
        if (TransferAttr rotate = transferOf(op, "rotate"))
          ins.front() = RotateOp::create(
              builder, loc, ins.front(),
              /*overlapped=*/
              core::isOverlappedGroup("rotate", toCore(op.getPass()),
                                      model.getSystem())
                  ? builder.getUnitAttr()
                  : nullptr,
              rotate);

      auto tiled = TiledPassOp::create(
          builder, loc, op.getResultTypes(), op.getLayerAttr(),
          op.getPassAttr(), ins, op.getWeights(), op.getWorkloadAttr(),
          op.getParallelismAttr(), op.getChipSplitAttr(), op.getCoreSplitAttr(),
          op.getArrayAttr(), op.getCyclesAttr(), op.getTransfersAttr(),
          op.getAlternativesAttr(), op.getMemoryAttr(), op.getBlockAttr());

      builder.setInsertionPointAfter(tiled);
      SmallVector<Value> results(tiled.getResults());
      if (op.getPass() == TrainingPass::BWD) {
        // Partial errors rotate (not overlapped), then go back to their
        // producer's layout.
        if (TransferAttr rotate = transferOf(op, "rotate");
            rotate && !results.empty())
          results.front() = RotateOp::create(builder, loc, results.front(),
                                             /*overlapped=*/nullptr, rotate);
        for (auto [index, result] : llvm::enumerate(results)) {
          Value original = op.getResult(index);
          std::optional<Parallelism> to;
          for (Operation *user : original.getUsers())
            if ((to = layoutOf(user)))
              break;
          if (to && !pipeStage)
            result = relayout(builder, loc, result, p, *to);
        }
      }
      if (op.getPass() == TrainingPass::UPD) {
        if (TransferAttr group =
                transferOf(op, "grad_reduce+weight_broadcast")) {
          double all = 0;
          for (Value grad : results)
            all +=
                double(cast<RankedTensorType>(grad.getType()).getNumElements());
          for (Value &grad : results) {
            double share =
                double(
                    cast<RankedTensorType>(grad.getType()).getNumElements()) /
                all;
            TransferAttr mine = scaled(group, share);
            // The reduction and the broadcast move the same volume; the group
            // is pipelined, so its cycles stay on the reduction.
            TransferAttr half = scaled(mine, 0.5);
            Value reduced = GradReduceOp::create(
                builder, loc, grad,
                TransferAttr::get(context, half.getMemoryBus(),
                                  half.getOnChip(), half.getTorusX(),
                                  half.getTorusY(), half.getHost(),
                                  mine.getCycles(), mine.getBottleneck()));
            grad = WeightBroadcastOp::create(
                builder, loc, reduced,
                TransferAttr::get(context, half.getMemoryBus(),
                                  half.getOnChip(), half.getTorusX(),
                                  half.getTorusY(), half.getHost(), 0,
                                  half.getBottleneck()));
          }
        }
      }
      for (auto [old, now] : llvm::zip_equal(op.getResults(), results))
        old.replaceAllUsesWith(now);
      op.erase();
    }
    return success();
  }
};
} // namespace

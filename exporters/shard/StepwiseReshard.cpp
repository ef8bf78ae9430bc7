//===- StepwiseReshard.cpp - Multi-axis reshardings as single-axis steps --===//
//
// --dsm-stepwise-reshard (Passes.td says what and why): a resharding pair
// whose shardings differ by more than one trailing grid axis becomes a chain
// of pairs that each differ by one, which upstream's partitioner lowers.
//
//===----------------------------------------------------------------------===//

#include "dsm/Export/Passes.h"

#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace dsm {
#define GEN_PASS_DEF_DSMSTEPWISERESHARD
#include "dsm/Export/Passes.h.inc"
} // namespace dsm

using namespace mlir;

namespace {

/// Split axes per tensor dimension.
using SplitAxes = SmallVector<SmallVector<shard::GridAxis>>;

SplitAxes splitAxesOf(const shard::Sharding &sharding, size_t rank) {
  SplitAxes axes(rank);
  for (auto [dim, attr] : llvm::enumerate(sharding.getSplitAxes()))
    if (dim < rank)
      axes[dim].assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
  return axes;
}

/// The shardings strictly between `from` and `to` on a path of single-axis
/// steps: trailing axes removed (last dimension first) down to each
/// dimension's common prefix with `to`, then `to`'s axes added in order.
/// Empty when one step (or none) suffices.
SmallVector<SplitAxes> intermediateSteps(const SplitAxes &from,
                                         const SplitAxes &to) {
  SmallVector<SplitAxes> path;
  SplitAxes current = from;
  SmallVector<size_t> common(from.size());
  for (size_t d = 0; d < from.size(); ++d)
    while (common[d] < from[d].size() && common[d] < to[d].size() &&
           from[d][common[d]] == to[d][common[d]])
      ++common[d];
  for (size_t d = from.size(); d-- > 0;)
    while (current[d].size() > common[d]) {
      current[d].pop_back();
      path.push_back(current);
    }
  for (size_t d = 0; d < to.size(); ++d)
    while (current[d].size() < to[d].size()) {
      current[d].push_back(to[d][current[d].size()]);
      path.push_back(current);
    }
  if (!path.empty())
    path.pop_back(); // the last step is `to` itself
  return path;
}

bool isPlain(const shard::Sharding &sharding) {
  return sharding.getStaticHaloSizes().empty() &&
         sharding.getStaticShardedDimsOffsets().empty() &&
         sharding.getDynamicHaloSizes().empty() &&
         sharding.getDynamicShardedDimsOffsets().empty();
}

/// An error at the first operation under `root` naming a grid with a
/// dimension of size 0: nothing can be split over it, and upstream's
/// `--shard-partition` (LLVM 22) divides by it and crashes. This pass runs
/// just before the partitioner, so it is where the documented pipeline can
/// stop such a grid.
LogicalResult screenEmptyGrids(Operation *root) {
  SymbolTableCollection symbols;
  WalkResult walk = root->walk([&](Operation *op) {
    for (NamedAttribute attr : op->getAttrs()) {
      auto ref = dyn_cast<FlatSymbolRefAttr>(attr.getValue());
      if (!ref)
        continue;
      auto grid = symbols.lookupNearestSymbolFrom<shard::GridOp>(op, ref);
      if (!grid || !llvm::is_contained(grid.getShape(), 0))
        continue;
      InFlightDiagnostic diag = op->emitError()
                                << "shard grid @" << ref.getValue()
                                << " has a dimension of size 0 (shape ";
      llvm::interleave(grid.getShape(), diag, "x");
      diag << "): nothing can be split over it, and upstream's "
              "shard-partition cannot partition for it";
      diag.attachNote(grid.getLoc()) << "the grid is declared here";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

struct StepwiseReshardPass
    : public dsm::impl::DsmStepwiseReshardBase<StepwiseReshardPass> {
  void runOnOperation() override {
    if (failed(screenEmptyGrids(getOperation())))
      return signalPassFailure();
    SmallVector<shard::ShardOp> targets;
    getOperation()->walk([&](shard::ShardOp target) {
      auto source = target.getSrc().getDefiningOp<shard::ShardOp>();
      if (target.getAnnotateForUsers() && source &&
          !source.getAnnotateForUsers())
        targets.push_back(target);
    });
    for (shard::ShardOp target : targets) {
      auto source = target.getSrc().getDefiningOp<shard::ShardOp>();
      shard::Sharding from(source.getSharding()), to(target.getSharding());
      auto type = dyn_cast<RankedTensorType>(target.getType());
      if (!type || !from || !to || !isPlain(from) || !isPlain(to) ||
          from.getGridAttr() != to.getGridAttr())
        continue;
      size_t rank = type.getRank();
      SmallVector<SplitAxes> steps =
          intermediateSteps(splitAxesOf(from, rank), splitAxesOf(to, rank));
      OpBuilder builder(target);
      Value current = source.getResult();
      for (const SplitAxes &step : steps) {
        SmallVector<shard::GridAxesAttr> attrs;
        for (const SmallVector<shard::GridAxis> &axes : step)
          attrs.push_back(shard::GridAxesAttr::get(&getContext(), axes));
        // Trailing unsplit dimensions are implied; keep one ([[]]).
        while (attrs.size() > 1 && attrs.back().empty())
          attrs.pop_back();
        Location loc = target.getLoc();
        Value sharding =
            shard::ShardingOp::create(builder, loc, from.getGridAttr(), attrs);
        Value wanted = shard::ShardOp::create(builder, loc, current, sharding,
                                              /*annotate_for_users=*/true);
        current = shard::ShardOp::create(builder, loc, wanted, sharding,
                                         /*annotate_for_users=*/false);
      }
      target.getSrcMutable().assign(current);
    }
  }
};

} // namespace

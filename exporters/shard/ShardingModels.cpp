//===- ShardingModels.cpp - Sharding models upstream lacks ----------------===//
//
// Each model lets upstream's sharding propagation use its default rules (from
// the indexing maps) and partitions an operation by cloning it on its local
// operands (partitionTriviallyShardableOperation) once it has checked that
// no split crosses what a clone cannot compute alone: a window, a reduction,
// a padded dimension, a sliced dimension, or a reshape group split anywhere
// but evenly on its leading dimension.
//
//===----------------------------------------------------------------------===//

#include "dsm/Export/ShardingModels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/ShardingInterfaceImpl.h"
#include "mlir/Dialect/Func/Extensions/ShardingExtensions.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/ShardingInterfaceImpl.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/ShardingInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/ShardingInterfaceImpl.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace {

/// The grid axes a value's sharding splits dimension `dim` over (none when
/// unsharded or replicated).
ArrayRef<shard::GridAxis> splitAxesOf(const shard::Sharding &sharding,
                                      int64_t dim) {
  if (!sharding || dim >= int64_t(sharding.getSplitAxes().size()))
    return {};
  return sharding.getSplitAxes()[dim].asArrayRef();
}

/// The number of shards `axes` make of a dimension on `grid`.
int64_t shardCount(shard::GridOp grid, ArrayRef<shard::GridAxis> axes) {
  int64_t count = 1;
  for (shard::GridAxis axis : axes)
    count *= grid.getShape()[axis];
  return count;
}

/// Halos and uneven offsets are never produced by a spatial mapping; a
/// sharding that has them is left to upstream's refusal.
bool isPlainSplit(const shard::Sharding &sharding) {
  return !sharding || (sharding.getStaticHaloSizes().empty() &&
                       sharding.getDynamicHaloSizes().empty() &&
                       sharding.getStaticShardedDimsOffsets().empty() &&
                       sharding.getDynamicShardedDimsOffsets().empty());
}

/// Upstream's partitioner hands a null operand when it could not reshard it
/// (LLVM 22 changes a multi-axis sharding one trailing axis at a time).
LogicalResult checkResharded(Operation *op,
                             ArrayRef<Value> partitionedOperands) {
  for (auto [index, operand] : llvm::enumerate(op->getOperands()))
    if (isa<RankedTensorType>(operand.getType()) && !partitionedOperands[index])
      return op->emitOpError("operand ")
             << index
             << " could not be resharded by upstream's partitioner (it "
                "changes a sharding one trailing grid axis at a time)";
  return success();
}

shard::GridOp gridOf(Operation *op, ArrayRef<shard::Sharding> shardings,
                     SymbolTableCollection &symbolTable) {
  for (const shard::Sharding &sharding : shardings)
    if (sharding)
      return shard::getGrid(op, sharding.getGridAttr(), symbolTable);
  return nullptr;
}

/// The arguments of ShardingInterface::partition past the op.
struct PartitionRequest {
  ArrayRef<Value> partitionedOperands;
  ArrayRef<shard::Sharding> operandShardings;
  ArrayRef<shard::Sharding> resultShardings;
  IRMapping &partitionMap;
  SymbolTableCollection &symbolTable;
  OpBuilder &builder;

  /// The op cloned on its local operands (a split that needs nothing else).
  void partitionTrivially(Operation *op) const {
    shard::partitionTriviallyShardableOperation(
        *op, partitionedOperands, operandShardings, resultShardings,
        partitionMap, symbolTable, builder);
  }
};

/// The sharding model of `OpTy`: `Derived::partitionOp(OpTy, request)`
/// partitions it once upstream has resharded every tensor operand.
template <typename Derived, typename OpTy>
struct ShardingModel
    : public shard::ShardingInterface::ExternalModel<Derived, OpTy> {
  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<shard::Sharding> operandShardings,
                          ArrayRef<shard::Sharding> resultShardings,
                          IRMapping &partitionMap,
                          SymbolTableCollection &symbolTable,
                          OpBuilder &builder) const {
    if (failed(checkResharded(op, partitionedOperands)))
      return failure();
    PartitionRequest request{partitionedOperands, operandShardings,
                             resultShardings,     partitionMap,
                             symbolTable,         builder};
    return static_cast<const Derived *>(this)->partitionOp(cast<OpTy>(op),
                                                           request);
  }
};

/// A view (pad, slice, reshape) as a loop nest of `Derived::getLoopRank`
/// parallel loops: its source read through `Derived::getSourceMap`, its
/// result written through `Derived::getResultMap`, other operands (dynamic
/// sizes) scalars indexed by nothing.
template <typename Derived, typename OpTy>
struct ViewShardingModel : public ShardingModel<Derived, OpTy> {
  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    return SmallVector<utils::IteratorType>(
        Derived::getLoopRank(cast<OpTy>(op)), utils::IteratorType::parallel);
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    auto view = cast<OpTy>(op);
    SmallVector<AffineMap> maps(
        op->getNumOperands(),
        AffineMap::get(Derived::getLoopRank(view), 0, op->getContext()));
    maps[0] = Derived::getSourceMap(view);
    maps.push_back(Derived::getResultMap(view));
    return maps;
  }
};

/// Partitions a linalg-like operation by cloning it on its local operands,
/// after refusing any split of a dimension that is not read through a plain
/// loop `canSplit` accepts (`what` names what such a split would cross).
LogicalResult
partitionSplitLoops(Operation *op, ArrayRef<AffineMap> maps,
                    llvm::function_ref<bool(unsigned loop)> canSplit,
                    StringRef what, const PartitionRequest &request) {
  SmallVector<shard::Sharding, 4> shardings(request.operandShardings);
  shardings.append(request.resultShardings.begin(),
                   request.resultShardings.end());
  for (auto [sharding, map] : llvm::zip(shardings, maps)) {
    if (!isPlainSplit(sharding))
      return op->emitOpError(
          "cannot be partitioned with halos or uneven shards");
    for (auto [dim, expr] : llvm::enumerate(map.getResults())) {
      auto loop = dyn_cast<AffineDimExpr>(expr);
      if (!splitAxesOf(sharding, dim).empty() &&
          (!loop || !canSplit(loop.getPosition())))
        return op->emitOpError("cannot be partitioned along dimension ")
               << dim << ", " << what;
    }
  }
  request.partitionTrivially(op);
  return success();
}

//===----------------------------------------------------------------------===//
// Convolutions and pooling
//===----------------------------------------------------------------------===//

/// A linalg convolution or pooling: its input is read through window
/// expressions (oh * stride + kh), which upstream's linalg model refuses to
/// partition. A split of a loop that every operand reads plainly (the
/// minibatch, the input channels of a depthwise convolution, the output
/// channels) partitions by cloning; a split of a window loop would need
/// halos and a split of a reduction partial results, and is refused.
template <typename ConcreteOp, shard::ReductionKind Reduction>
struct WindowedOpShardingModel
    : public ShardingModel<WindowedOpShardingModel<ConcreteOp, Reduction>,
                           ConcreteOp> {
  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    return cast<linalg::LinalgOp>(op).getIteratorTypesArray();
  }

  SmallVector<shard::ReductionKind>
  getReductionLoopIteratorKinds(Operation *op) const {
    return SmallVector<shard::ReductionKind>(
        cast<linalg::LinalgOp>(op).getNumReductionLoops(), Reduction);
  }

  /// One map per operand, then one per result (its init's).
  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    SmallVector<AffineMap> maps = linalgOp.getIndexingMapsArray();
    for (OpOperand &init : linalgOp.getDpsInitsMutable())
      maps.push_back(linalgOp.getMatchingIndexingMap(&init));
    return maps;
  }

  LogicalResult partitionOp(ConcreteOp op,
                            const PartitionRequest &request) const {
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    SmallVector<AffineMap> maps = getIndexingMaps(op);
    // Loops some operand reads through a compound expression (a window).
    llvm::SmallBitVector windowed(iterators.size());
    for (AffineMap map : maps)
      for (AffineExpr expr : map.getResults())
        if (!isa<AffineDimExpr, AffineConstantExpr>(expr))
          expr.walk([&](AffineExpr sub) {
            if (auto dim = dyn_cast<AffineDimExpr>(sub))
              windowed.set(dim.getPosition());
          });
    return partitionSplitLoops(
        op, maps,
        [&](unsigned loop) {
          return !windowed.test(loop) &&
                 iterators[loop] == utils::IteratorType::parallel;
        },
        "a window or a reduction (it would need halos or partial results); "
        "split the minibatch or the channels",
        request);
  }
};

template <shard::ReductionKind Reduction, typename... Ops>
void attachWindowed(MLIRContext *ctx) {
  (Ops::template attachInterface<WindowedOpShardingModel<Ops, Reduction>>(*ctx),
   ...);
}

//===----------------------------------------------------------------------===//
// linalg.generic with broadcast constants
//===----------------------------------------------------------------------===//

/// Front ends index a size-one dimension by the constant 0 (torch-mlir's
/// `(d0, d1, d2, d3) -> (0, d1, d2, d3)` for a batch-1 broadcast), which
/// upstream's propagation rejects. Here each such constant is indexed by a
/// loop of its own that nothing else reads, so it is never split, and the
/// generic partitions by cloning. A split reduction would need partial
/// results combined across shards, and a split loop whose index the body
/// reads would shift it: both refused.
struct BroadcastGenericShardingModel
    : public ShardingModel<BroadcastGenericShardingModel, linalg::GenericOp> {
  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    auto generic = cast<linalg::GenericOp>(op);
    SmallVector<utils::IteratorType> iterators =
        generic.getIteratorTypesArray();
    iterators.append(countConstants(generic), utils::IteratorType::parallel);
    return iterators;
  }

  SmallVector<shard::ReductionKind>
  getReductionLoopIteratorKinds(Operation *op) const {
    return SmallVector<shard::ReductionKind>(
        cast<linalg::GenericOp>(op).getNumReductionLoops(),
        shard::ReductionKind::Generic);
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    auto generic = cast<linalg::GenericOp>(op);
    MLIRContext *ctx = op->getContext();
    unsigned loops = generic.getNumLoops();
    unsigned numDims = loops + countConstants(generic);
    unsigned nextDummy = loops;
    SmallVector<AffineMap> maps;
    auto widen = [&](AffineMap map) {
      SmallVector<AffineExpr> results;
      for (AffineExpr expr : map.getResults())
        results.push_back(isa<AffineConstantExpr>(expr)
                              ? getAffineDimExpr(nextDummy++, ctx)
                              : expr);
      return AffineMap::get(numDims, 0, results, ctx);
    };
    for (AffineMap map : generic.getIndexingMapsArray())
      maps.push_back(widen(map));
    // Results are indexed as their inits (already widened above).
    for (OpOperand &init : generic.getDpsInitsMutable())
      maps.push_back(maps[init.getOperandNumber()]);
    return maps;
  }

  LogicalResult partitionOp(linalg::GenericOp op,
                            const PartitionRequest &request) const {
    SmallVector<utils::IteratorType> iterators = getLoopIteratorTypes(op);
    // A body that reads a loop's index (an embedding gather's column) would
    // see local indices on a split loop: refused like a reduction.
    llvm::SmallBitVector indexed(iterators.size());
    op->walk([&](linalg::IndexOp index) { indexed.set(index.getDim()); });
    return partitionSplitLoops(
        op, getIndexingMaps(op),
        [&](unsigned loop) {
          return iterators[loop] == utils::IteratorType::parallel &&
                 !indexed.test(loop);
        },
        "which it reduces or whose index its body reads", request);
  }

private:
  static unsigned countConstants(linalg::GenericOp generic) {
    unsigned count = 0;
    for (AffineMap map : generic.getIndexingMapsArray())
      count += llvm::count_if(map.getResults(), [](AffineExpr expr) {
        return isa<AffineConstantExpr>(expr);
      });
    return count;
  }
};

//===----------------------------------------------------------------------===//
// arith.constant
//===----------------------------------------------------------------------===//

/// A weight constant stays whole on every chip and its consumers take their
/// slices of it (an all_slice, which moves nothing). Upstream's model lets
/// propagation shard a constant and then cannot slice a dense (non-splat)
/// one, which leaves a full weight where a slice is expected.
struct ReplicatedConstantShardingModel
    : public shard::ShardingInterface::ExternalModel<
          ReplicatedConstantShardingModel, arith::ConstantOp> {
  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    return SmallVector<utils::IteratorType>(type ? type.getRank() : 0,
                                            utils::IteratorType::parallel);
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    return {AffineMap::getMultiDimIdentityMap(type ? type.getRank() : 0,
                                              op->getContext())};
  }

  FailureOr<shard::ShardingOption>
  getShardingOption(Operation *op, ArrayRef<shard::Sharding> operandShardings,
                    ArrayRef<shard::Sharding> resultShardings) const {
    // Replicated on the grid its users are sharded on: said explicitly,
    // since the partitioner takes an unannotated value to be sharded as its
    // users want it.
    for (const shard::Sharding &sharding : resultShardings)
      if (sharding)
        return shard::ShardingOption(
            shard::ShardingArray(getLoopIteratorTypes(op).size()),
            sharding.getGridAttr());
    return shard::ShardingOption::makeEmpty();
  }
};

//===----------------------------------------------------------------------===//
// tensor.pad
//===----------------------------------------------------------------------===//

/// Elementwise over the result's dimensions: a dimension without padding
/// splits as the source does; a padded one must stay whole (each shard would
/// pad its own edges).
struct PadShardingModel
    : public ViewShardingModel<PadShardingModel, tensor::PadOp> {
  static int64_t getLoopRank(tensor::PadOp pad) {
    return pad.getResultType().getRank();
  }
  static AffineMap getSourceMap(tensor::PadOp pad) {
    return AffineMap::getMultiDimIdentityMap(getLoopRank(pad),
                                             pad.getContext());
  }
  static AffineMap getResultMap(tensor::PadOp pad) { return getSourceMap(pad); }

  LogicalResult partitionOp(tensor::PadOp pad,
                            const PartitionRequest &request) const {
    ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
    for (const shard::Sharding &sharding :
         {request.operandShardings.front(), request.resultShardings.front()}) {
      if (!isPlainSplit(sharding))
        return pad.emitOpError(
            "cannot be partitioned with halos or uneven shards");
      for (int64_t dim = 0; dim < int64_t(low.size()); ++dim)
        if (!splitAxesOf(sharding, dim).empty() &&
            (low[dim] != 0 || high[dim] != 0))
          return pad.emitOpError("cannot be partitioned along padded "
                                 "dimension ")
                 << dim;
    }
    request.partitionTrivially(pad);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// tensor.extract_slice
//===----------------------------------------------------------------------===//

/// A static slice (BERT's pooler takes the first token), one loop per
/// source dimension; a rank-reducing slice's result skips the dimensions it
/// drops. A dimension the slice takes whole may be split, and each chip
/// slices its local extent; a split of a dimension it cuts is refused.
struct ExtractSliceShardingModel
    : public ViewShardingModel<ExtractSliceShardingModel,
                               tensor::ExtractSliceOp> {
  static int64_t getLoopRank(tensor::ExtractSliceOp slice) {
    return slice.getSourceType().getRank();
  }
  static AffineMap getSourceMap(tensor::ExtractSliceOp slice) {
    return AffineMap::getMultiDimIdentityMap(getLoopRank(slice),
                                             slice.getContext());
  }
  /// The source dimensions the slice keeps.
  static AffineMap getResultMap(tensor::ExtractSliceOp slice) {
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    SmallVector<AffineExpr> kept;
    for (int64_t dim = 0; dim < getLoopRank(slice); ++dim)
      if (!dropped.test(dim))
        kept.push_back(getAffineDimExpr(dim, slice.getContext()));
    return AffineMap::get(getLoopRank(slice), 0, kept, slice.getContext());
  }

  LogicalResult partitionOp(tensor::ExtractSliceOp slice,
                            const PartitionRequest &request) const {
    RankedTensorType source = slice.getSourceType();
    if (!slice.getOffsets().empty() || !slice.getSizes().empty() ||
        !slice.getStrides().empty())
      return slice.emitOpError("can be partitioned only as a static slice");
    ArrayRef<int64_t> sizes = slice.getStaticSizes();
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    // Result dimension r is source dimension resultToSource[r].
    SmallVector<int64_t> resultToSource;
    for (int64_t dim = 0; dim < source.getRank(); ++dim)
      if (!dropped.test(dim))
        resultToSource.push_back(dim);
    auto cutsSplitDim = [&](const shard::Sharding &sharding,
                            ArrayRef<int64_t> toSource) {
      for (auto [dim, sourceDim] : llvm::enumerate(toSource))
        if (!splitAxesOf(sharding, dim).empty() &&
            sizes[sourceDim] != source.getDimSize(sourceDim))
          return std::optional<int64_t>(sourceDim);
      return std::optional<int64_t>();
    };
    SmallVector<int64_t> identity =
        llvm::to_vector(llvm::seq<int64_t>(0, source.getRank()));
    for (auto [sharding, toSource] :
         {std::pair{request.operandShardings.front(),
                    ArrayRef<int64_t>(identity)},
          std::pair{request.resultShardings.front(),
                    ArrayRef<int64_t>(resultToSource)}}) {
      if (!isPlainSplit(sharding))
        return slice.emitOpError(
            "cannot be partitioned with halos or uneven shards");
      if (std::optional<int64_t> dim = cutsSplitDim(sharding, toSource))
        return slice.emitOpError("cannot be partitioned along dimension ")
               << *dim << ", which it slices";
    }
    shard::GridOp grid =
        gridOf(slice, request.resultShardings, request.symbolTable);
    auto localType = cast<RankedTensorType>(
        grid ? shard::shardType(slice.getResultType(), grid,
                                request.resultShardings.front())
             : slice.getResultType());
    SmallVector<int64_t> localSizes(sizes);
    for (auto [dim, sourceDim] : llvm::enumerate(resultToSource))
      localSizes[sourceDim] = localType.getDimSize(dim);
    auto local = tensor::ExtractSliceOp::create(
        request.builder, slice.getLoc(), localType,
        request.partitionedOperands.front(), slice.getMixedOffsets(),
        getAsIndexOpFoldResult(slice.getContext(), localSizes),
        slice.getMixedStrides());
    request.partitionMap.map(slice.getResult(), local.getResult());
    request.partitionMap.map(slice.getOperation(), local.getOperation());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// tensor.collapse_shape and tensor.expand_shape
//===----------------------------------------------------------------------===//

/// A reshape over the dimensions of its larger side: a group of dimensions
/// that becomes one is indexed by its leading dimension. Splitting the merged
/// dimension in k contiguous shards is splitting the leading one in k when k
/// divides it, which partition checks; any other dimension of a group stays
/// whole.
template <typename ReshapeOp>
struct ReshapeShardingModel
    : public ViewShardingModel<ReshapeShardingModel<ReshapeOp>, ReshapeOp> {
  static constexpr bool kCollapse =
      std::is_same_v<ReshapeOp, tensor::CollapseShapeOp>;

  static RankedTensorType expandedType(ReshapeOp op) {
    if constexpr (kCollapse)
      return op.getSrcType();
    else
      return op.getResultType();
  }

  static int64_t getLoopRank(ReshapeOp reshape) {
    return expandedType(reshape).getRank();
  }
  /// The expanded side is indexed by the identity, the collapsed side by
  /// each group's leading dimension.
  static AffineMap getExpandedMap(ReshapeOp reshape) {
    return AffineMap::getMultiDimIdentityMap(getLoopRank(reshape),
                                             reshape.getContext());
  }
  static AffineMap getCollapsedMap(ReshapeOp reshape) {
    SmallVector<AffineExpr> leading;
    for (const ReassociationIndices &group : reshape.getReassociationIndices())
      leading.push_back(getAffineDimExpr(group.front(), reshape.getContext()));
    return AffineMap::get(getLoopRank(reshape), 0, leading,
                          reshape.getContext());
  }
  static AffineMap getSourceMap(ReshapeOp reshape) {
    return kCollapse ? getExpandedMap(reshape) : getCollapsedMap(reshape);
  }
  static AffineMap getResultMap(ReshapeOp reshape) {
    return kCollapse ? getCollapsedMap(reshape) : getExpandedMap(reshape);
  }

  LogicalResult partitionOp(ReshapeOp reshape,
                            const PartitionRequest &request) const {
    RankedTensorType expanded = expandedType(reshape);
    if (!expanded.hasStaticShape())
      return reshape.emitOpError("with dynamic shapes cannot be partitioned");
    shard::Sharding operandSharding = request.operandShardings.front();
    shard::Sharding resultSharding = request.resultShardings.front();
    shard::Sharding expandedSharding =
        kCollapse ? operandSharding : resultSharding;
    shard::Sharding collapsedSharding =
        kCollapse ? resultSharding : operandSharding;
    if (!isPlainSplit(expandedSharding) || !isPlainSplit(collapsedSharding))
      return reshape.emitOpError(
          "cannot be partitioned with halos or uneven shards");
    shard::GridOp grid = gridOf(reshape, {expandedSharding, collapsedSharding},
                                request.symbolTable);
    if (!grid) {
      request.partitionTrivially(reshape);
      return success();
    }
    for (auto [index, group] :
         llvm::enumerate(reshape.getReassociationIndices())) {
      ArrayRef<shard::GridAxis> merged = splitAxesOf(collapsedSharding, index);
      ArrayRef<shard::GridAxis> lead =
          splitAxesOf(expandedSharding, group.front());
      if (merged != lead)
        return reshape.emitOpError("splits dimension ")
               << index << " of its collapsed side unlike its leading "
               << "dimension " << group.front();
      for (int64_t dim : ArrayRef(group).drop_front())
        if (!splitAxesOf(expandedSharding, dim).empty())
          return reshape.emitOpError("cannot split dimension ")
                 << dim << ", which is merged behind dimension "
                 << group.front();
      if (!lead.empty() &&
          expanded.getDimSize(group.front()) % shardCount(grid, lead) != 0)
        return reshape.emitOpError("cannot split dimension ")
               << group.front() << " of size "
               << expanded.getDimSize(group.front()) << " evenly in "
               << shardCount(grid, lead) << " shards";
    }
    // The local result type follows from the result's sharding; an expand
    // rebuilds its static output sizes from it.
    auto localType = cast<RankedTensorType>(
        shard::shardType(reshape.getResultType(), grid, resultSharding));
    Value source = request.partitionedOperands.front();
    Value local;
    if constexpr (kCollapse)
      local = tensor::CollapseShapeOp::create(
          request.builder, reshape.getLoc(), localType, source,
          reshape.getReassociationIndices());
    else
      local = tensor::ExpandShapeOp::create(request.builder, reshape.getLoc(),
                                            localType, source,
                                            reshape.getReassociationIndices());
    request.partitionMap.map(reshape.getResult(), local);
    request.partitionMap.map(reshape.getOperation(), local.getDefiningOp());
    return success();
  }
};

} // namespace

void dsm::registerShardingModels(DialectRegistry &registry) {
  registry.insert<shard::ShardDialect>();
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    using namespace linalg;
    using shard::ReductionKind;
    attachWindowed<ReductionKind::Sum, Conv1DOp, Conv1DNwcWcfOp, Conv1DNcwFcwOp,
                   Conv2DOp, Conv2DNchwFchwOp, Conv2DNhwcHwcfOp,
                   Conv2DNhwcFhwcOp, Conv2DNgchwFgchwOp, Conv2DNgchwGfchwOp,
                   Conv2DNhwgcGfhwcOp, Conv3DOp, Conv3DNdhwcDhwcfOp,
                   Conv3DNcdhwFcdhwOp, DepthwiseConv1DNwcWcOp,
                   DepthwiseConv1DNcwCwOp, DepthwiseConv1DNwcWcmOp,
                   DepthwiseConv2DNchwChwOp, DepthwiseConv2DNhwcHwcOp,
                   DepthwiseConv2DNhwcHwcmOp, DepthwiseConv3DNdhwcDhwcOp,
                   DepthwiseConv3DNcdhwCdhwOp, DepthwiseConv3DNdhwcDhwcmOp,
                   PoolingNchwSumOp, PoolingNhwcSumOp, PoolingNcwSumOp,
                   PoolingNwcSumOp, PoolingNdhwcSumOp>(ctx);
    attachWindowed<ReductionKind::Max, PoolingNchwMaxOp, PoolingNhwcMaxOp,
                   PoolingNcwMaxOp, PoolingNwcMaxOp, PoolingNdhwcMaxOp,
                   PoolingNhwcMaxUnsignedOp, PoolingNwcMaxUnsignedOp>(ctx);
    attachWindowed<ReductionKind::Min, PoolingNhwcMinOp, PoolingNwcMinOp,
                   PoolingNdhwcMinOp, PoolingNhwcMinUnsignedOp,
                   PoolingNwcMinUnsignedOp>(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    linalg::GenericOp::attachInterface<BroadcastGenericShardingModel>(*ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    arith::ConstantOp::attachInterface<ReplicatedConstantShardingModel>(*ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    tensor::PadOp::attachInterface<PadShardingModel>(*ctx);
    tensor::ExtractSliceOp::attachInterface<ExtractSliceShardingModel>(*ctx);
    tensor::CollapseShapeOp::attachInterface<
        ReshapeShardingModel<tensor::CollapseShapeOp>>(*ctx);
    tensor::ExpandShapeOp::attachInterface<
        ReshapeShardingModel<tensor::ExpandShapeOp>>(*ctx);
  });
  linalg::registerShardingInterfaceExternalModels(registry);
  tensor::registerShardingInterfaceExternalModels(registry);
  arith::registerShardingInterfaceExternalModels(registry);
  func::registerShardingInterfaceExternalModels(registry);
  tosa::registerShardingInterfaceExternalModels(registry);
}

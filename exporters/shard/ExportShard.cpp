//===- ExportShard.cpp - --dsm-export-shard -------------------------------===//
//
// The way back from the dsm graph to the program a downstream compiler owns:
// each forward tiled pass keeps the location of the operation it was
// imported from, so the original linalg program, read again, gets the
// mapping's chip split as upstream `shard` annotations around that
// operation. Upstream's propagation fills in everything between the layers
// and its partitioner turns the result into per-chip (SPMD) code.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Workload/Workload.h"
#include "dsm/Dialect/DsmAttrs.h"
#include "dsm/Dialect/DsmOps.h"
#include "dsm/Export/Passes.h"
#include "dsm/Import/Passes.h"
#include "dsm/Support/MlirSource.h"
#include "dsm/Support/ReportWriter.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"

#include <map>

namespace dsm {
#define GEN_PASS_DEF_DSMEXPORTSHARD
#include "dsm/Export/Passes.h.inc"
} // namespace dsm

using namespace mlir;
using namespace dsm;

namespace {

/// Where an operation was written: line and column of its first file
/// location (the file's name is not compared, so the source may be named
/// differently from the path the model was imported under).
using SourcePosition = std::pair<unsigned, unsigned>;

std::optional<SourcePosition> positionOf(Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    return SourcePosition{file.getLine(), file.getColumn()};
  return std::nullopt;
}

/// The grid axes a parallelism splits the minibatch and the output features
/// over (DeepSpatialMatrix §II-D: the hybrids split X one way and Y the other).
/// Axes of size one split nothing and are left out.
struct AxisAssignment {
  SmallVector<shard::GridAxis> minibatch, features;
};

AxisAssignment axesOf(Parallelism parallelism, ArrayRef<int64_t> gridShape) {
  SmallVector<shard::GridAxis> x, y, both;
  if (gridShape[0] > 1)
    x.push_back(0);
  if (gridShape[1] > 1)
    y.push_back(1);
  both = x;
  both.append(y);
  switch (parallelism) {
  case Parallelism::Data:
    return {both, {}};
  case Parallelism::Model:
    return {{}, both};
  case Parallelism::DataXModelY:
    return {x, y};
  case Parallelism::ModelXDataY:
    return {y, x};
  }
  llvm_unreachable("unknown parallelism");
}

/// The loops of an anchor that a chip split divides: the minibatch (read
/// plainly by the activation and the result, not by the weight) and the
/// output features (read plainly by the weight and the result; also by the
/// activation in a depthwise convolution). A product of two activations
/// (attention's scores and context) has no weight: its minibatch is the
/// batch loops both operands and the result read (the imported layer's
/// minibatch is their product; the split goes to the first that is not a
/// unit) and its features the loop only the right operand and the result
/// read.
struct AnchorLoops {
  std::optional<unsigned> minibatch, features;
  /// The program's minibatch: the extent of `minibatch`, or for a product
  /// of activations the product of its batch loops.
  int64_t programBatch = 1;
};

bool readsPlainly(AffineMap map, unsigned loop) {
  return llvm::any_of(map.getResults(), [&](AffineExpr e) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    return dim && dim.getPosition() == loop;
  });
}

bool readsAtAll(AffineMap map, unsigned loop) {
  return map.isFunctionOfDim(loop);
}

AnchorLoops anchorLoops(linalg::LinalgOp op, bool productOfActivations) {
  AnchorLoops loops;
  if (op.getNumDpsInputs() < 1 || op.getNumDpsInits() != 1)
    return loops;
  AffineMap activation = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap result = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  std::optional<AffineMap> weight;
  if (op.getNumDpsInputs() > 1)
    weight = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  std::optional<unsigned> sharedFeatures;
  for (unsigned loop = 0; loop < iterators.size(); ++loop) {
    if (iterators[loop] != utils::IteratorType::parallel ||
        !readsPlainly(result, loop))
      continue;
    bool inWeight = weight && readsAtAll(*weight, loop);
    bool inActivation = readsAtAll(activation, loop);
    if (productOfActivations && weight && readsPlainly(activation, loop) &&
        readsPlainly(*weight, loop)) {
      loops.programBatch *= extents[loop];
      if (!loops.minibatch || extents[*loops.minibatch] == 1)
        loops.minibatch = loop;
      continue;
    }
    if (!productOfActivations && !loops.minibatch && !inWeight &&
        readsPlainly(activation, loop)) {
      loops.minibatch = loop;
      loops.programBatch = extents[loop];
    }
    if (!loops.features && inWeight && readsPlainly(*weight, loop) &&
        !inActivation)
      loops.features = loop;
    if (!sharedFeatures && inWeight && readsPlainly(*weight, loop) &&
        readsPlainly(activation, loop))
      sharedFeatures = loop;
  }
  if (!loops.features && !productOfActivations)
    loops.features = sharedFeatures;
  return loops;
}

struct ExportShardPass : public dsm::impl::DsmExportShardBase<ExportShardPass> {
  using DsmExportShardBase::DsmExportShardBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    // The source program is parsed during the pass: what it may contain
    // must be loaded before.
    registerImportDialects(registry);
    registry.insert<shard::ShardDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (source.empty()) {
      module.emitError("--dsm-export-shard needs source=<the linalg program "
                       "the model was imported from>");
      return signalPassFailure();
    }
    FailureOr<core::MultiChipSystem> system =
        getModuleMultiChipSystem(module, "exporting a sharding");
    if (failed(system))
      return signalPassFailure();
    std::map<SourcePosition, TiledPassOp> layers;
    bool anyTiled = false;
    WalkResult walk = module.walk([&](TiledPassOp op) {
      anyTiled = true;
      if (op.getPass() != TrainingPass::FWD)
        return WalkResult::advance();
      // Only layers with a primary computation (convolution, contraction)
      // are anchored: an auxiliary-only layer (an embedding gather, a
      // reshape, a normalization) gets its sharding from its neighbours
      // through upstream propagation.
      std::optional<core::OpKind> kind =
          core::symbolizeOpKind(op.getWorkload().getKind());
      if (!kind || core::getComputeClass(*kind) != core::ComputeClass::Primary)
        return WalkResult::advance();
      std::optional<SourcePosition> at = positionOf(op.getLoc());
      if (!at) {
        op.emitOpError("has no file location: it was not imported from a "
                       "source program --dsm-export-shard can read");
        return WalkResult::interrupt();
      }
      layers.emplace(*at, op);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    if (!anyTiled) {
      module.emitError("nothing to export: run --dsm-map-system first");
      return signalPassFailure();
    }

    ParserConfig config(&getContext());
    OwningOpRef<ModuleOp> program = parseScreenedFile(source, config);
    if (!program) {
      module.emitError("cannot read the source program '") << source << "'";
      return signalPassFailure();
    }
    // A grid of the source with a dimension of size 0 would crash
    // upstream's shard-partition downstream (as --dsm-stepwise-reshard
    // also says).
    for (auto existing : program->getOps<shard::GridOp>())
      if (llvm::is_contained(existing.getShape(), 0)) {
        InFlightDiagnostic diag = existing.emitError()
                                  << "shard grid @" << existing.getSymName()
                                  << " has a dimension of size 0 (shape ";
        llvm::interleave(existing.getShape(), diag, "x");
        diag << "): nothing can be split over it, and upstream's "
                "shard-partition cannot partition for it";
        return signalPassFailure();
      }
    std::map<SourcePosition, Operation *> anchors;
    program->walk([&](Operation *op) {
      if (std::optional<SourcePosition> at = positionOf(op->getLoc()))
        anchors.emplace(*at, op);
    });

    SmallVector<int64_t> gridShape = {system->torus.x.size,
                                      system->torus.y.size};
    StringAttr gridName = uniqueGridName(*program);
    OpBuilder builder(program->getBodyRegion());
    builder.setInsertionPointToStart(program->getBody());
    shard::GridOp::create(builder, program->getLoc(), gridName, gridShape);
    auto gridRef = FlatSymbolRefAttr::get(gridName);

    for (auto &[at, layer] : layers) {
      auto anchor = anchors.find(at);
      if (anchor == anchors.end()) {
        layer.emitOpError("comes from line ")
            << at.first << ", column " << at.second << ", where '" << source
            << "' has no operation: is it the program the model was "
               "imported from?";
        return signalPassFailure();
      }
      if (failed(annotate(layer, anchor->second, gridRef, gridShape)))
        return signalPassFailure();
    }

    if (failed(writeReport(output, module.getLoc(),
                           [&](raw_ostream &os) { program->print(os); })))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }

  StringAttr uniqueGridName(ModuleOp program) {
    SymbolTable symbols(program);
    std::string name = grid;
    for (int suffix = 1; symbols.lookup(name); ++suffix)
      name = grid + "_" + std::to_string(suffix);
    return StringAttr::get(&getContext(), name);
  }

  /// Annotates every tensor operand of `anchor` for its use and its result
  /// for its users with the split `layer`'s parallelism makes.
  LogicalResult annotate(TiledPassOp layer, Operation *anchor,
                         FlatSymbolRefAttr gridRef,
                         ArrayRef<int64_t> gridShape) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(anchor);
    if (!linalgOp || anchor->getNumResults() != 1)
      return anchor->emitOpError("is the anchor of layer '")
             << layer.getLayer()
             << "', but only linalg operations with one result can carry "
                "its sharding";
    AnchorLoops loops =
        anchorLoops(linalgOp, layer.getWorkload().getKind() ==
                                  core::stringifyOpKind(core::OpKind::MatMul));
    AxisAssignment axes = axesOf(layer.getParallelism(), gridShape);
    auto need = [&](std::optional<unsigned> loop,
                    ArrayRef<shard::GridAxis> split,
                    StringRef what) -> LogicalResult {
      if (split.empty() || loop)
        return success();
      return anchor->emitOpError("has no ")
             << what << " dimension, but layer '" << layer.getLayer()
             << "' splits it (" << stringifyParallelism(layer.getParallelism())
             << " parallelism)";
    };
    if (failed(need(loops.minibatch, axes.minibatch, "minibatch")) ||
        failed(need(loops.features, axes.features, "output-feature")))
      return failure();
    // The plan must be for the program's minibatch, or its splits mean
    // nothing here.
    if (loops.minibatch) {
      int64_t mappedBatch = layer.getWorkload().getMb();
      if (loops.programBatch != mappedBatch)
        return anchor->emitOpError("has a minibatch of ")
               << loops.programBatch << ", but layer '" << layer.getLayer()
               << "' was mapped for " << mappedBatch
               << ": export the model at the minibatch it is mapped for";
    }

    auto splitFor = [&](AffineMap map) {
      SmallVector<shard::GridAxesAttr> split;
      for (AffineExpr expr : map.getResults()) {
        SmallVector<shard::GridAxis> dimAxes;
        if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
          if (dim.getPosition() == loops.minibatch)
            dimAxes = axes.minibatch;
          else if (dim.getPosition() == loops.features)
            dimAxes = axes.features;
        }
        split.push_back(shard::GridAxesAttr::get(&getContext(), dimAxes));
      }
      // Trailing unsplit dimensions are implied; a replicated value keeps
      // one ([[]]), since upstream's parser rejects an empty list.
      while (split.size() > 1 && split.back().empty())
        split.pop_back();
      return split;
    };

    OpBuilder builder(anchor);
    Location loc = anchor->getLoc();
    for (OpOperand &operand : anchor->getOpOperands()) {
      if (!isa<RankedTensorType>(operand.get().getType()))
        continue;
      auto sharding = shard::ShardingOp::create(
          builder, loc, gridRef,
          splitFor(linalgOp.getMatchingIndexingMap(&operand)));
      auto annotated = shard::ShardOp::create(
          builder, loc, operand.get(), sharding, /*annotate_for_users=*/true);
      operand.set(annotated);
    }
    builder.setInsertionPointAfter(anchor);
    Value result = anchor->getResult(0);
    auto sharding =
        shard::ShardingOp::create(builder, loc, gridRef,
                                  splitFor(linalgOp.getMatchingIndexingMap(
                                      linalgOp.getDpsInitOperand(0))));
    auto annotated = shard::ShardOp::create(builder, loc, result, sharding,
                                            /*annotate_for_users=*/false);
    result.replaceAllUsesExcept(annotated, annotated);
    return success();
  }
};

} // namespace

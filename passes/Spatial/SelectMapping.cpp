//===- SelectMapping.cpp - --dsm-select-mapping ---------------------------===//
//
// Adapter: reads the expanded layer passes into the core's LayerGraph, runs
// the SpatialMapper and records its decisions as attributes.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Spatial/SpatialMapper.h"
#include "dsm/Dialect/DsmOps.h"
#include "dsm/Passes/Spatial/LayerGraphBuilder.h"
#include "dsm/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/Threading.h"

namespace dsm {
#define GEN_PASS_DEF_DSMSELECTMAPPING
#include "dsm/Passes/Passes.h.inc"
} // namespace dsm

using namespace mlir;
using namespace dsm;

namespace {
struct SelectMappingPass
    : public dsm::impl::DsmSelectMappingBase<SelectMappingPass> {
  using DsmSelectMappingBase::DsmSelectMappingBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<core::MultiChipSystem> multiChip =
        getModuleMultiChipSystem(module, "spatial mapping");
    if (failed(multiChip))
      return signalPassFailure();
    core::MapperOptions options;
    options.search = search;
    options.threads = threads ? unsigned(threads) : llvm::hardware_concurrency().compute_thread_count();
    if (!parallelism.empty()) {
      std::optional<Parallelism> forced = symbolizeParallelism(parallelism);
      if (!forced) {
        emitError(module.getLoc())
            << "unknown parallelism '" << parallelism
            << "'; expected data, model, data_x_model_y or model_x_data_y";
        return signalPassFailure();
      }
      options.parallelisms = {toCore(*forced)};
    }
    core::SpatialMapper mapper(*multiChip, options);
    for (auto func : module.getOps<func::FuncOp>())
      if (failed(mapFunction(func, mapper)))
        return signalPassFailure();
  }

  LogicalResult mapFunction(func::FuncOp func, const core::SpatialMapper &mapper) {
    FailureOr<ExpandedFunction> expanded = readLayerGraph(func);
    if (failed(expanded))
      return failure();
    std::vector<LayerPassOps> &layers = expanded->layers;
    if (layers.empty())
      return success();
    const core::LayerGraph &graph = expanded->graph;

    llvm::Expected<core::MappingPlan> plan = mapper.map(graph);
    if (!plan) {
      std::string message = llvm::toString(plan.takeError());
      // Point at the layer the message names, if any.
      Operation *where = func;
      for (LayerPassOps &ops : layers)
        if (StringRef(message).contains("'" + ops.fwd.getLayer().str() + "'"))
          where = ops.fwd;
      return emitError(where->getLoc()) << "cannot map onto the system: " << message;
    }
    numConfigurations += plan->configurationsEvaluated;
    numExplorations += plan->explorations;
    numMemoized += plan->memoizedExplorations;

    MLIRContext *context = &getContext();
    Builder builder(context);
    for (auto [ops, layerPlan] : llvm::zip_equal(layers, plan->layers)) {
      // A layer plan lists the passes the layer runs, FWD, BWD, UPD.
      for (const core::PassPlan &passPlan : layerPlan.passes) {
        LayerPassOp op = passPlan.pass == core::TrainingPass::FWD   ? ops.fwd
                         : passPlan.pass == core::TrainingPass::BWD ? ops.bwd
                                                                    : ops.upd;
        const core::MappingConfig &config = passPlan.eval.config;
        op->setAttr("dsm.parallelism",
                    ParallelismAttr::get(context, fromCore(config.parallelism)));
        op->setAttr("dsm.chip_split", getSplitAttr(context, config.chipSplit));
        op->setAttr("dsm.core_split", getSplitAttr(context, config.coreSplit));
        op->setAttr("dsm.array",
                    ArrayMapAttr::get(context, fromCore(config.array.rowDim),
                                      fromCore(config.array.colDim),
                                      config.array.rowTile, config.array.colTile));
        op->setAttr("dsm.cycles", CyclesAttr::get(context, passPlan.cycles));
        SmallVector<NamedAttribute> transfers;
        for (const core::TransferGroup &group : passPlan.eval.transfers)
          transfers.emplace_back(builder.getStringAttr(group.name),
                                 TransferAttr::get(context, group));
        if (passPlan.relayout.cycles > 0)
          transfers.emplace_back(builder.getStringAttr("relayout"),
                                 TransferAttr::get(context, passPlan.relayout));
        op->setAttr("dsm.transfers", builder.getDictionaryAttr(transfers));
        if (passPlan.pass == core::TrainingPass::FWD) {
          SmallVector<NamedAttribute> alternatives;
          for (int q = 0; q < core::kNumParallelisms; ++q)
            if (std::isfinite(layerPlan.alternatives[q]))
              alternatives.emplace_back(
                  builder.getStringAttr(core::stringifyParallelism(core::Parallelism(q))),
                  builder.getI64IntegerAttr(int64_t(std::llround(layerPlan.alternatives[q]))));
          op->setAttr("dsm.alternatives", builder.getDictionaryAttr(alternatives));
        }
      }
    }
    return success();
  }
};
} // namespace

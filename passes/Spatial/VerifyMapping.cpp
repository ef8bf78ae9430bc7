//===- VerifyMapping.cpp - --dsm-verify-mapping ---------------------------===//
//
// The cross-op half of a tiled pass's verification: is its mapping legal on
// the module's system, and does it cost what it records? Op verifiers stay
// local (an op verifies alone, in any module); this pass decodes the system
// once and re-runs the performance model that chose the mapping.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Spatial/SpatialMapper.h"
#include "dsm/Dialect/DsmOps.h"
#include "dsm/Passes/Passes.h"

#include <cmath>
#include <cstdlib>

namespace dsm {
#define GEN_PASS_DEF_DSMVERIFYMAPPING
#include "dsm/Passes/Passes.h.inc"
} // namespace dsm

using namespace mlir;
using namespace dsm;

namespace {
struct VerifyMappingPass
    : public dsm::impl::DsmVerifyMappingBase<VerifyMappingPass> {
  using DsmVerifyMappingBase::DsmVerifyMappingBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool anyTiled = false;
    module.walk([&](TiledPassOp) { anyTiled = true; });
    if (!anyTiled)
      return markAllAnalysesPreserved();
    FailureOr<core::MultiChipSystem> multiChip =
        getModuleMultiChipSystem(module, "checking a spatial mapping");
    if (failed(multiChip))
      return signalPassFailure();
    core::PerformanceModel model(*multiChip);
    // Preloaded weights (inference) stay in the scratchpads for the whole
    // job: every pass of the function works beside all of them.
    DenseMap<Operation *, int64_t> preloadedPerFunction;
    module.walk([&](TiledPassOp op) {
      if (MemoryDecisionAttr memory = op.getMemoryAttr())
        preloadedPerFunction[op->getParentOp()] += memory.getPreload();
    });
    WalkResult result = module.walk([&](TiledPassOp op) {
      return succeeded(verify(op, model,
                              preloadedPerFunction.lookup(op->getParentOp())))
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    markAllAnalysesPreserved();
  }

  static LogicalResult verify(TiledPassOp op,
                              const core::PerformanceModel &model,
                              int64_t preloadedBytes) {
    std::string whyNot;
    std::optional<core::Evaluation> eval = core::evaluateMappedPass(
        model, op.getWorkload().getShape(op.getLayer()), toCore(op.getPass()),
        op.getConfig(), &whyNot);
    if (!eval)
      return op.emitOpError("has an illegal mapping: ") << whyNot;
    double capacity = model.getSystem().chip.core.scratchpad.capacityBytes;
    if (preloadedBytes > 0 &&
        eval->scratchpadBytes + double(preloadedBytes) > capacity)
      return op.emitOpError("needs ")
             << int64_t(std::ceil(eval->scratchpadBytes))
             << " bytes of scratchpad per core beside the " << preloadedBytes
             << " bytes of preloaded weights, more than its "
             << int64_t(capacity);
    // What the mapper records: the evaluation plus the relayout of the
    // layer's inputs (FWD) or errors (BWD), a non-overlapped transfer. The
    // relayout is recorded rounded to whole cycles, so the non-overlapped
    // cycles and the total may differ from the recomputation by that
    // rounding: one cycle.
    core::CycleBreakdown expected = eval->cycles;
    int64_t slack = 0;
    if (DictionaryAttr transfers = op.getTransfersAttr())
      if (auto relayout = transfers.getAs<TransferAttr>("relayout")) {
        expected.nonOvldt += double(relayout.getCycles());
        expected.total += double(relayout.getCycles());
        slack = 1;
      }
    CyclesAttr recomputed = CyclesAttr::get(op.getContext(), expected);
    CyclesAttr recorded = op.getCyclesAttr();
    auto near = [](int64_t a, int64_t b, int64_t tolerance) {
      return std::abs(a - b) <= tolerance;
    };
    bool same = recorded.getUseful() == recomputed.getUseful() &&
                recorded.getUnderuse() == recomputed.getUnderuse() &&
                recorded.getOvldtVisible() == recomputed.getOvldtVisible() &&
                recorded.getAuxComp() == recomputed.getAuxComp() &&
                near(recorded.getNonOvldt(), recomputed.getNonOvldt(), slack) &&
                near(recorded.getTotal(), recomputed.getTotal(), slack);
    if (!same)
      return op.emitOpError("records ")
             << recorded << " but the performance model gives " << recomputed;
    return success();
  }
};
} // namespace

//===- ImportTosa.cpp - --dsm-import-tosa ---------------------------------===//

#include "dsm/Passes/Importer.h"
#include "dsm/Passes/Passes.h"

namespace dsm {
#define GEN_PASS_DEF_DSMIMPORTTOSA
#include "dsm/Passes/Passes.h.inc"
} // namespace dsm

using namespace mlir;
using namespace dsm;

namespace {
struct ImportTosaPass : public dsm::impl::DsmImportTosaBase<ImportTosaPass> {
  using DsmImportTosaBase::DsmImportTosaBase;
  void runOnOperation() override {
    emitError(getOperation().getLoc()) << "--dsm-import-tosa is not implemented yet";
    signalPassFailure();
  }
};
} // namespace

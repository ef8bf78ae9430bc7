//===- AttachSystem.cpp - --dsm-attach-system -----------------------------===//

#include "dsm/Core/System/SystemLoader.h"
#include "dsm/Dialect/DsmAttrs.h"
#include "dsm/Passes/Passes.h"

#include "mlir/IR/Diagnostics.h"

namespace dsm {
#define GEN_PASS_DEF_DSMATTACHSYSTEM
#include "dsm/Passes/Passes.h.inc"
} // namespace dsm

using namespace mlir;
using namespace dsm;

/// Emits every SpecError in `error` at its place in the system file (or at
/// `fallback` when it has no line), each with a note pointing at the module.
static void emitSpecErrors(llvm::Error error, Location fallback) {
  MLIRContext *context = fallback.getContext();
  llvm::handleAllErrors(
      std::move(error),
      [&](const core::SpecError &specError) {
        const core::SpecLocation &where = specError.getLocation();
        if (where.line == 0) {
          emitError(fallback)
              << "system '" << where.file << "': " << specError.getMessage();
          return;
        }
        InFlightDiagnostic diag =
            emitError(FileLineColLoc::get(context, where.file, where.line,
                                          where.column))
            << specError.getMessage();
        diag.attachNote(fallback)
            << "while attaching this system to the module";
      },
      [&](const llvm::ErrorInfoBase &other) {
        emitError(fallback) << other.message();
      });
}

namespace {
struct AttachSystemPass
    : public dsm::impl::DsmAttachSystemBase<AttachSystemPass> {
  using DsmAttachSystemBase::DsmAttachSystemBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (system.empty()) {
      emitError(module.getLoc())
          << "--dsm-attach-system needs system=<preset|file>";
      return signalPassFailure();
    }
    if (nodes < 0) {
      emitError(module.getLoc()) << "nodes=" << int64_t(nodes)
                                 << " is not a number of nodes (1 or more)";
      return signalPassFailure();
    }
    core::SystemOverrides overrides;
    if (nodes > 0)
      overrides.nodes = nodes;
    std::vector<core::SpecWarning> warnings;
    llvm::Expected<core::SystemDescription> description =
        core::loadSystem(system, &warnings, overrides);
    for (const core::SpecWarning &warning : warnings)
      emitWarning(FileLineColLoc::get(&getContext(), warning.loc.file,
                                      warning.loc.line, warning.loc.column))
          << warning.message;
    if (!description) {
      emitSpecErrors(description.takeError(), module.getLoc());
      return signalPassFailure();
    }
    module->setAttr(SystemAttr::kModuleAttrName,
                    SystemAttr::get(&getContext(), *description));
    markAllAnalysesPreserved();
  }
};
} // namespace

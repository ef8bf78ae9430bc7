//===- Dsm.cpp - The C API of dsm-opt -------------------------------------===//

#include "dsm-c/Dsm.h"

#include "dsm/Dialect/DsmDialect.h"
#include "dsm/Export/Passes.h"
#include "dsm/Import/Passes.h"
#include "dsm/Passes/Passes.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <mutex>
#include <string>

// The handle registers and loads the dialects a dsm model is written in
// (dsm, func for its functions, arith for its constants), so that a C caller
// can parse a model with nothing else: MLIR_DEFINE_CAPI_DIALECT_REGISTRATION
// would register dsm alone.
static void insertDsmDialects(MlirDialectRegistry registry) {
  unwrap(registry)
      ->insert<dsm::DsmDialect, mlir::func::FuncDialect,
               mlir::arith::ArithDialect>();
}
static MlirDialect loadDsmDialects(MlirContext context) {
  mlir::MLIRContext *ctx = unwrap(context);
  ctx->getOrLoadDialect<mlir::func::FuncDialect>();
  ctx->getOrLoadDialect<mlir::arith::ArithDialect>();
  return wrap(ctx->getOrLoadDialect<dsm::DsmDialect>());
}
static MlirStringRef dsmNamespace() {
  return wrap(dsm::DsmDialect::getDialectNamespace());
}
MlirDialectHandle mlirGetDialectHandle__dsm__() {
  static MlirDialectRegistrationHooks hooks = {insertDsmDialects,
                                               loadDsmDialects, dsmNamespace};
  return MlirDialectHandle{&hooks};
}

void dsmRegisterPasses(void) {
  static std::once_flag registered;
  std::call_once(registered, [] {
    dsm::registerDsmPasses();
    dsm::registerDsmImportPasses();
    dsm::registerDsmExportPasses();
  });
}

MlirLogicalResult dsmMapSystem(MlirModule module, MlirStringRef options) {
  mlir::ModuleOp op = unwrap(module);
  mlir::PassManager pm(op.getContext(), mlir::ModuleOp::getOperationName());
  // The string is read as the pass's options, never pasted into pipeline
  // text: "...} , dsm-workload-report{output=<path>" must not run a pass.
  std::unique_ptr<mlir::Pass> pass = dsm::createDsmMapSystem();
  std::string error;
  if (mlir::failed(
          pass->initializeOptions(llvm::StringRef(options.data, options.length),
                                  [&](const llvm::Twine &message) {
                                    error = message.str();
                                    return mlir::failure();
                                  }))) {
    op.emitError() << "dsmMapSystem: bad options: " << error;
    return mlirLogicalResultFailure();
  }
  pm.addPass(std::move(pass));
  return wrap(pm.run(op));
}

MlirStringRef dsmGetVersion(void) {
  return mlirStringRefCreate(DSM_VERSION, sizeof(DSM_VERSION) - 1);
}

//===- dsm-translate.cpp - The dsm-translate driver -----------------------===//
//
// mlir-translate with the dsm importers: `dsm-translate --import-onnx
// model.onnx` or `--import-paleo net.json` writes the model as dsm MLIR. Layer
// names are locations, so they are printed by default
// (--mlir-print-debuginfo=false turns them off). `--upgrade-mlir old.mlir`
// rewrites MLIR written before the current syntax into it.
//
//===----------------------------------------------------------------------===//

#ifdef DSM_ENABLE_ONNX
#include "dsm/Import/OnnxTranslation.h"
#endif

#include "dsm/Import/PaleoTranslation.h"
#include "dsm/Import/UpgradeMlir.h"
#include "dsm/Support/ToolOptions.h"

#include "mlir/IR/AsmState.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/Support/CommandLine.h"

int main(int argc, char **argv) {
  // --help lists the translations and MLIR's options, not LLVM's back ends'.
  dsm::hideOtherProjectsOptions();
#ifdef DSM_ENABLE_ONNX
  dsm::registerImportOnnxTranslation();
#endif
  dsm::registerImportPaleoTranslation();
  dsm::registerUpgradeMlirTranslation();
  mlir::registerAsmPrinterCLOptions();
  auto &options = llvm::cl::getRegisteredOptions();
  if (llvm::cl::Option *debugInfo = options.lookup("mlir-print-debuginfo"))
    static_cast<llvm::cl::opt<bool> *>(debugInfo)->setInitialValue(true);
  return mlir::failed(mlir::mlirTranslateMain(
      argc, argv, "dsm-translate: imports models into the dsm dialect\n"));
}

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

#include "dsm/Core/Support/BoundedFile.h"
#include "dsm/Import/PaleoTranslation.h"
#include "dsm/Import/UpgradeMlir.h"
#include "dsm/Support/ToolOptions.h"

#include "mlir/IR/AsmState.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <sys/stat.h>

/// mlirTranslateMain writes `-o` through its own stream, which fails only
/// when destroyed, after the translation: "LLVM ERROR: IO failure on output
/// stream", naming no file (a full disk, `-o /dev/full`). This handler of
/// LLVM's fatal errors names the file and the cause; the exit stays 1. A
/// regular file left half-written is removed (a device is not a file).
static void reportFatalError(void *, const char *reason, bool) {
  llvm::StringRef text(reason);
  if (!text.consume_front("IO failure on output stream: ")) {
    llvm::errs() << "LLVM ERROR: " << reason << "\n";
    return;
  }
  std::string name = "-";
  if (llvm::cl::Option *option = llvm::cl::getRegisteredOptions().lookup("o"))
    name = static_cast<llvm::cl::opt<std::string> *>(option)->getValue();
  llvm::errs() << "dsm-translate: error: cannot write ";
  if (name == "-")
    llvm::errs() << "the output to standard output";
  else
    llvm::errs() << "'" << name << "'";
  llvm::errs() << ": " << text << "\n";
  struct stat info;
  if (name != "-" && ::lstat(name.c_str(), &info) == 0 && S_ISREG(info.st_mode))
    (void)llvm::sys::fs::remove(name);
}

/// The input file among the arguments as llvm::cl reads them: the one
/// argument that is not an option ("-": standard input, also when none is
/// given). Options take their values after '=', except `-o`.
static llvm::StringRef findInputFile(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "--")
      return i + 1 < argc ? llvm::StringRef(argv[i + 1]) : "-";
    if (arg == "-o" || arg == "--o") {
      ++i;
      continue;
    }
    if (arg == "-" || !arg.starts_with("-"))
      return arg;
  }
  return "-";
}

int main(int argc, char **argv) {
  llvm::install_fatal_error_handler(reportFatalError);
  // The input is read by upstream's mlirTranslateMain, without a limit: what
  // the bounded reader refuses without reading (a device such as /dev/zero,
  // a file past 2 GiB) is refused here first (BoundedFile.h).
  llvm::StringRef input = findInputFile(argc, argv);
  if (llvm::Error refused = dsm::core::checkBoundedFile(input)) {
    llvm::errs() << "dsm-translate: error: cannot open input file '" << input
                 << "': " << llvm::toString(std::move(refused)) << "\n";
    return 1;
  }
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

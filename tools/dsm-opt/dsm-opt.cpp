//===- dsm-opt.cpp - The dsm-opt driver -----------------------------------===//
//
// mlir-opt with the dsm dialect, the dialects models arrive in, and every dsm
// pass and pipeline.
//
//===----------------------------------------------------------------------===//

#include "dsm/Dialect/DsmDialect.h"
#include "dsm/Export/Passes.h"
#include "dsm/Export/ShardingModels.h"
#include "dsm/Import/Passes.h"
#include "dsm/Import/UpgradeMlir.h"
#include "dsm/Passes/Passes.h"
#include "dsm/Support/MlirSource.h"

#include "mlir/Dialect/Shard/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::DialectRegistry registry;
  dsm::registerImportDialects(registry);
  // Before any upstream sharding model, so that convolutions partition.
  dsm::registerShardingModels(registry);
  // What partitions a program --dsm-export-shard annotated.
  mlir::shard::registerShardingPropagation();
  mlir::shard::registerPartition();
  dsm::registerDsmPasses();
  dsm::registerDsmImportPasses();
  dsm::registerDsmExportPasses();
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv,
      "dsm-opt: maps deep neural networks onto accelerator systems\n",
      registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  // The input, a file or standard input, is read here so that what upstream
  // parsers crash on instead of reporting (MlirSource.h) is reported located
  // before parsing, whichever way it arrives.
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  {
    mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
    llvm::SourceMgr sources;
    sources.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(input->getMemBufferRef(),
                                         /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
    mlir::SourceMgrDiagnosticHandler handler(sources, &context);
    if (mlir::failed(dsm::screenMlirText(*input, &context)))
      return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  // MlirOptMain reads a view: the text stays here for the hint below.
  if (mlir::failed(mlir::MlirOptMain(
          output->os(),
          llvm::MemoryBuffer::getMemBuffer(input->getMemBufferRef(),
                                           /*RequiresNullTerminator=*/false),
          registry, config))) {
    // A file from an older MLIR does not parse; MLIR's own error says where,
    // this says what upgrades it.
    mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
    if (dsm::hasOlderMlirSpellings(input->getBuffer(), &context))
      llvm::errs() << input->getBufferIdentifier()
                   << ": note: the file uses spellings of an older MLIR; "
                      "'dsm-translate --upgrade-mlir' rewrites them into the "
                      "current ones\n";
    return 1;
  }
  output->keep();
  return 0;
}

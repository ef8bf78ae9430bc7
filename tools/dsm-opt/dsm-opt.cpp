//===- dsm-opt.cpp - The dsm-opt driver -----------------------------------===//
//
// mlir-opt with the dsm dialect, the dialects models arrive in, and every dsm
// pass and pipeline.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Support/MlirText.h"
#include "dsm/Dialect/DsmDialect.h"
#include "dsm/Export/Passes.h"
#include "dsm/Export/ShardingModels.h"
#include "dsm/Import/Passes.h"
#include "dsm/Passes/Passes.h"

#include "mlir/Dialect/Shard/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

int main(int argc, char **argv) {
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
  // What upstream parsers crash on instead of reporting (MlirText.h) is
  // reported located before parsing. Standard input is parsed as is.
  if (inputFilename != "-") {
    if (auto buffer = llvm::MemoryBuffer::getFile(inputFilename)) {
      llvm::StringRef text = (*buffer)->getBuffer();
      if (std::optional<dsm::core::MlirTextProblem> problem =
              dsm::core::findMlirTextProblem(text)) {
        llvm::SourceMgr sources;
        sources.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
        sources.PrintMessage(
            llvm::SMLoc::getFromPointer(text.data() + problem->offset),
            llvm::SourceMgr::DK_Error, problem->message);
        return 1;
      }
    }
  }
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));
}

//===- dsm-opt.cpp - The dsm-opt driver -----------------------------------===//
//
// mlir-opt with the dsm dialect, the dialects models arrive in, and every dsm
// pass and pipeline.
//
//===----------------------------------------------------------------------===//

#include "dsm/Dialect/DsmDialect.h"
#include "dsm/Import/Passes.h"
#include "dsm/Import/ShardingModels.h"
#include "dsm/Passes/Passes.h"

#include "mlir/Dialect/Shard/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

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
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv,
      "dsm-opt: maps deep neural networks onto accelerator systems\n",
      registry));
}

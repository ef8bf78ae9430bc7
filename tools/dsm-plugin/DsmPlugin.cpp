//===- DsmPlugin.cpp - dsm-opt as a plugin of mlir-opt --------------------===//
//
// One shared library that upstream `mlir-opt` loads both as a dialect plugin
// (the dsm dialect) and as a pass plugin (every dsm pass, the import passes
// and --dsm-map-system), so a downstream compiler's own driver runs the same
// pipeline as dsm-opt:
//
//   mlir-opt-22 --load-dialect-plugin=lib/DsmPlugin.so \
//               --load-pass-plugin=lib/DsmPlugin.so \
//     --pass-pipeline="builtin.module(dsm-map-system{system=dsm-8pf-asym})"
//     m.mlir
//
//===----------------------------------------------------------------------===//

#include "dsm/Dialect/DsmDialect.h"
#include "dsm/Export/Passes.h"
#include "dsm/Export/ShardingModels.h"
#include "dsm/Import/Passes.h"
#include "dsm/Passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "dsm", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            registry->insert<dsm::DsmDialect>();
            // After mlir-opt's own sharding models: only the tensor models
            // (pad, reshapes) add anything; linalg's refuse convolutions.
            dsm::registerShardingModels(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "dsm", LLVM_VERSION_STRING, []() {
            dsm::registerDsmPasses();
            dsm::registerDsmImportPasses();
            dsm::registerDsmExportPasses();
          }};
}

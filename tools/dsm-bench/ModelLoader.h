//===- ModelLoader.h - Models through dsm passes, in process ----*- C++ -*-===//
//
// Shared by the benchmarks: parses a model file and runs a dsm pass pipeline
// on it in-process, so timings and studies use exactly what dsm-opt runs.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_TOOLS_DSMBENCH_MODELLOADER_H
#define DSM_TOOLS_DSMBENCH_MODELLOADER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

namespace dsm::bench {

/// A context with every dialect dsm-opt loads and every dsm pass registered.
std::unique_ptr<mlir::MLIRContext> makeContext();

/// Parses `path` and runs `pipeline` (textual, e.g. "dsm-map-system{...}")
/// on it; exits with the diagnostics on failure.
mlir::OwningOpRef<mlir::ModuleOp> runPipeline(mlir::MLIRContext &context,
                                              llvm::StringRef path,
                                              llvm::StringRef pipeline);

/// models/<name>.mlir in the source tree.
std::string modelPath(llvm::StringRef name);

/// A study's output file (`--json` and the like). checkOutputPath says
/// before the study runs whether `path` can be written (its directory
/// exists and is writable, and so is the file if it exists; a symbolic
/// link resolves), printing why
/// not as `tool: ...`; writeOutput writes it at the end through
/// dsm::writeReport, like every report the passes write (links followed,
/// devices written straight, nothing written on failure).
bool checkOutputPath(llvm::StringRef tool, llvm::StringRef path);
bool writeOutput(mlir::MLIRContext &context, llvm::StringRef tool,
                 llvm::StringRef path,
                 llvm::function_ref<void(llvm::raw_ostream &)> print);

} // namespace dsm::bench

#endif // DSM_TOOLS_DSMBENCH_MODELLOADER_H

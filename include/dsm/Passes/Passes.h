//===- Passes.h - dsm passes ------------------------------------*- C++ -*-===//

#ifndef DSM_PASSES_PASSES_H
#define DSM_PASSES_PASSES_H

#include "dsm/Core/Spatial/DesignSpaceExplorer.h"
#include "dsm/Dialect/DsmDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace dsm {

/// Output format of the report passes.
enum class ReportFormat { Table, JSON };

/// What --dsm-expand-training expands a network for.
enum class ExecutionMode { Train, Infer };

#define GEN_PASS_DECL
#include "dsm/Passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dsm/Passes/Passes.h.inc"

/// Registers the pass pipelines (--dsm-map-system).
void registerDsmPipelines();

} // namespace dsm

#endif // DSM_PASSES_PASSES_H

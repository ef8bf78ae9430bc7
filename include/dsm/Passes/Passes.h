//===- Passes.h - dsm passes ------------------------------------*- C++ -*-===//

#ifndef DSM_PASSES_PASSES_H
#define DSM_PASSES_PASSES_H

#include "dsm/Core/Devices/Conventions.h"
#include "dsm/Core/Spatial/DesignSpaceExplorer.h"
#include "dsm/Core/Spatial/PipelineParallelism.h"
#include "dsm/Core/Spatial/StepMemory.h"
#include "dsm/Dialect/DsmDialect.h"
#include "dsm/Support/ReportWriter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace dsm {

/// What --dsm-expand-training expands a network for.
enum class ExecutionMode { Train, Infer };

/// The `parallelism` option of --dsm-select-mapping: chosen per layer, or one
/// forced on every layer.
enum class ParallelismChoice { Any, Data, Model, DataXModelY, ModelXDataY };

#define GEN_PASS_DECL
#include "dsm/Passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dsm/Passes/Passes.h.inc"

} // namespace dsm

#endif // DSM_PASSES_PASSES_H

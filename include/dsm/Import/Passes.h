//===- Passes.h - Import passes ---------------------------------*- C++ -*-===//

#ifndef DSM_IMPORT_PASSES_H
#define DSM_IMPORT_PASSES_H

#include "dsm/Dialect/DsmDialect.h"
#include "dsm/Import/ImportSummary.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace dsm {

/// Registers the dialects models arrive in: what front ends emit (linalg on
/// tensors, TOSA, ml_program) and every upstream dialect that partially
/// lowered programs mix in (affine, scf, memref, vector, bufferization, gpu,
/// llvm, ...), so that such files parse and the importers take what they
/// recognise.
void registerImportDialects(mlir::DialectRegistry &registry);

#define GEN_PASS_DECL
#include "dsm/Import/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dsm/Import/Passes.h.inc"

} // namespace dsm

#endif // DSM_IMPORT_PASSES_H

/*===- dsm-c/Dsm.h - The C API of dsm-opt --------------------------*- C
-*-===*\
|*                                                                            *|
|* A stable C entry for bindings in other languages: the dsm dialect as an    *|
|* MLIR C API dialect handle, the registration of every dsm pass, and the     *|
|* main job (--dsm-map-system) on a module. Contexts and modules are MLIR's   *|
|* own C API objects (mlir-c/IR.h).                                           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef DSM_C_DSM_H
#define DSM_C_DSM_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The dsm dialect: mlirDialectHandleRegisterDialect / LoadDialect take it.
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Dsm, dsm);

/// Registers every dsm pass and the import passes with the global pass
/// registry (once; later calls do nothing).
MLIR_CAPI_EXPORTED void dsmRegisterPasses(void);

/// Runs --dsm-map-system with `options` (as on the command line, e.g.
/// "system=dsm-8pf-asym mode=train batch=512 report=-") on `module`, which is
/// rewritten into the mapped IR. Diagnostics go to the context's handlers.
MLIR_CAPI_EXPORTED MlirLogicalResult dsmMapSystem(MlirModule module,
                                                  MlirStringRef options);

//===----------------------------------------------------------------------===//
// Self-contained entry points: no MLIR C API object in or out, so that a
// binding through a plain FFI (Python's ctypes: python/dsm) or a C program
// linking DSM::CAPI alone can use them. Each creates its own context, and
// returns its results as strings the library allocated (NUL-terminated,
// freed with dsmStringDestroy; a NULL out-pointer asks for nothing). Calls
// are serialized: one runs at a time in a process.
//===----------------------------------------------------------------------===//

/// Maps the model at `modelPath` -- dsm MLIR, or ONNX when the name ends in
/// ".onnx" (imported as dsm-translate --import-onnx does) -- with
/// --dsm-map-system's `options` (as on the command line). A report to be
/// written to "-" (report=-) is returned in `*report` instead of standard
/// output; files named by report=/trace= are written as the CLI writes them.
/// `*mappedModule` receives the mapped IR (with locations). `*diagnostics`
/// receives every error, warning and remark, formatted as dsm-opt prints
/// them (file:line:col: error: ...). Returns 0 on success, 1 on failure, and
/// 128 + the signal (130 for SIGINT, 143 for SIGTERM) when a signal ended a
/// placement search: `*report` then holds its best so far, marked
/// "interrupted".
MLIR_CAPI_EXPORTED int dsmMapModelFile(const char *modelPath,
                                       const char *options, char **report,
                                       char **mappedModule, char **diagnostics);

/// dsmMapModelFile on dsm MLIR text; `bufferName` names it in diagnostics.
MLIR_CAPI_EXPORTED int dsmMapModelText(const char *mlirText,
                                       const char *bufferName,
                                       const char *options, char **report,
                                       char **mappedModule, char **diagnostics);

/// Imports the ONNX model at `onnxPath` into dsm MLIR text (with locations:
/// the layer names), as `dsm-translate --import-onnx`. `options` is a space
/// separated list of `mode=strict|permissive`, `batch=<n>` (dynamic batch
/// dimension) and `dims=<name>=<n>,...` (named dynamic dimensions), the
/// --onnx-* flags of dsm-translate. Returns 0 on success, 1 on failure (and
/// 2 when the library was built without ONNX).
MLIR_CAPI_EXPORTED int dsmImportOnnxFile(const char *onnxPath,
                                         const char *options, char **module,
                                         char **diagnostics);

/// Frees a string returned by the functions above (NULL is fine).
MLIR_CAPI_EXPORTED void dsmStringDestroy(char *string);

/// The version of dsm-opt the library was built from ("0.1.0").
MLIR_CAPI_EXPORTED MlirStringRef dsmGetVersion(void);

#ifdef __cplusplus
}
#endif

#endif /* DSM_C_DSM_H */

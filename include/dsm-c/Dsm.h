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

/// The version of dsm-opt the library was built from ("0.1.0").
MLIR_CAPI_EXPORTED MlirStringRef dsmGetVersion(void);

#ifdef __cplusplus
}
#endif

#endif /* DSM_C_DSM_H */

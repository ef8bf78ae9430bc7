//===- PaleoTranslation.h - The --import-paleo translation ------*- C++ -*-===//
//
// Registers `--import-paleo` (a network in Paleo's JSON format, as the
// device-placement thesis's tool Exprimo reads it -> dsm MLIR) with
// mlir-translate's registry.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_IMPORT_PALEOTRANSLATION_H
#define DSM_IMPORT_PALEOTRANSLATION_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

namespace dsm {

/// Imports the Paleo network in `text` (`fileName` names it in locations and
/// errors) as one function in NHWC layout. Returns null after emitting a
/// located error on a malformed file or a layer it cannot express.
mlir::OwningOpRef<mlir::ModuleOp>
importPaleoNetwork(llvm::StringRef text, llvm::StringRef fileName,
                   mlir::MLIRContext *context);

/// Registers the `--import-paleo` translation.
void registerImportPaleoTranslation();

} // namespace dsm

#endif // DSM_IMPORT_PALEOTRANSLATION_H

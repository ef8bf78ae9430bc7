//===- UpgradeMlir.h - Older MLIR spellings into current ones ---*- C++ -*-===//
//
// Many public dumps (torch-mlir, TensorFlow, model zoos) were written by an
// MLIR older than the one dsm-opt is built with, and some operations have
// changed their spelling since. The upgrade step rewrites those spellings in
// the text, so that the file parses; `dsm-translate --upgrade-mlir` runs it.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_IMPORT_UPGRADEMLIR_H
#define DSM_IMPORT_UPGRADEMLIR_H

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace dsm {

/// Rewrites the spellings that changed since MLIR 19 that it knows into the
/// current ones, in the text and in place (every line stays where it was, so
/// that locations in the upgraded file are those of the original):
/// - `tensor.expand_shape` and `memref.expand_shape` without `output_shape`
///   (before MLIR 19): the output shape is written from the result type, a
///   dynamic size computed before the op (`dim` of its source dimension
///   over the static sizes of its group);
/// - `"tosa.const"` with a `value` attribute (before MLIR 21): `values`;
/// - `tosa.mul`'s `shift` and `tosa.reshape`'s `new_shape` attributes
///   (before MLIR 21): operands, a tensor<1xi8> constant and a
///   `tosa.const_shape` defined just before the op;
/// - the transposed matmul named ops (gone in MLIR 22): the plain ones with
///   indexing maps;
/// - torch-mlir's `tm_tensor.attention` (a dialect dsm-opt does not load):
///   the two contractions, scale, mask and linalg.softmax it computes;
/// - torch-mlir's `tm_tensor.scan`, `scatter`, `sort` and `topk` (no linalg
///   form): a `dsm.opaque` per result that is read, charged with what the
///   op computes;
/// - `arith.maxf` and `arith.minf` (before MLIR 18): `arith.maximumf` and
///   `arith.minimumf`.
/// Comments and string literals are left alone. Returns the upgraded text, or
/// failure after an error located in `bufferName` for a spelling it
/// recognises but cannot upgrade (an expand_shape group with two dynamic
/// result dimensions, a malformed op). `upgrades`, when
/// given, receives how many operations were rewritten.
mlir::FailureOr<std::string> upgradeMlirText(llvm::StringRef text,
                                             llvm::StringRef bufferName,
                                             mlir::MLIRContext *context,
                                             unsigned *upgrades = nullptr);

/// Whether `text` contains a spelling upgradeMlirText rewrites (or
/// recognises but cannot upgrade): a file from an older MLIR. Reports
/// nothing.
bool hasOlderMlirSpellings(llvm::StringRef text, mlir::MLIRContext *context);

/// Registers the `--upgrade-mlir` translation: reads an MLIR file, upgrades
/// it, checks that the result parses with the dialects models arrive in, and
/// writes the upgraded text.
void registerUpgradeMlirTranslation();

} // namespace dsm

#endif // DSM_IMPORT_UPGRADEMLIR_H

//===- OnnxTranslation.h - The --import-onnx translation --------*- C++ -*-===//
//
// Registers `--import-onnx` (model.onnx -> dsm MLIR) with mlir-translate's
// registry, together with its command-line options.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_IMPORT_ONNXTRANSLATION_H
#define DSM_IMPORT_ONNXTRANSLATION_H

namespace dsm {

/// Registers the `--import-onnx` translation and its `--onnx-*` options.
void registerImportOnnxTranslation();

} // namespace dsm

#endif // DSM_IMPORT_ONNXTRANSLATION_H

//===- OnnxImportOptions.h - Options of the ONNX importer -------*- C++ -*-===//
//
// How strictly the ONNX importer treats what it does not know, and how it
// fixes the dynamic dimensions of a model's inputs.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_IMPORT_ONNXIMPORTOPTIONS_H
#define DSM_IMPORT_ONNXIMPORTOPTIONS_H

#include <cstdint>
#include <map>
#include <string>

namespace dsm {

struct OnnxImportOptions {
  enum class Mode {
    /// An operator the importer does not know, or a known one used in a way
    /// it cannot express, is an error naming the node and its op type.
    Strict,
    /// Such nodes become `dsm.opaque` (charged per result element) when their
    /// result shapes are known; the summary lists them.
    Permissive,
  };
  Mode mode = Mode::Strict;

  /// When positive, the size of dimension 0 of every graph input whose
  /// dimension 0 is dynamic (a `dim_param` or no value).
  int64_t batch = 0;

  /// Sizes of named dynamic dimensions (`dim_param`), e.g. {"seq", 128};
  /// they take precedence over `batch`.
  std::map<std::string, int64_t> dims;
};

} // namespace dsm

#endif // DSM_IMPORT_ONNXIMPORTOPTIONS_H

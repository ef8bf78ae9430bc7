//===- MlirText.h - Checks on MLIR source text before parsing ---*- C++ -*-===//
//
// MLIR 22's parser crashes, instead of reporting, when its lexer fails
// inside some dialects' custom parsers: `linalg.transpose ... permutation =
// [1, <a byte the lexer rejects>0]` hands a null attribute to the op's
// attribute list (upstream mlir-opt crashes the same way). The tools and
// fuzzers scan their input for such bytes first and report them located.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SUPPORT_MLIRTEXT_H
#define DSM_CORE_SUPPORT_MLIRTEXT_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <optional>

namespace dsm::core {

/// The offset of the first byte MLIR's lexer rejects outside string literals
/// and `//` comments -- a byte outside printable ASCII other than tab,
/// newline and carriage return -- or none.
inline std::optional<size_t> findInvalidMlirByte(llvm::StringRef text) {
  bool inString = false, inComment = false;
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = text[i];
    if (inComment) {
      inComment = c != '\n';
      continue;
    }
    if (inString) {
      if (c == '\\')
        ++i; // the escaped byte; the lexer checks escapes itself
      else if (c == '"' || c == '\n')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/')
      inComment = true;
    else if (c >= 0x7f || (c < 0x20 && c != '\t' && c != '\n' && c != '\r'))
      return i;
  }
  return std::nullopt;
}

} // namespace dsm::core

#endif // DSM_CORE_SUPPORT_MLIRTEXT_H

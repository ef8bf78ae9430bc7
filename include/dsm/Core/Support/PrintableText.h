//===- PrintableText.h - Names from models, safe on a terminal --*- C++ -*-===//
//
// Layer, tensor and device names come from the models and system files users
// give: a name with an escape sequence or a NUL would reach the terminal
// through a table report. Tables print them through printableText().
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SUPPORT_PRINTABLETEXT_H
#define DSM_CORE_SUPPORT_PRINTABLETEXT_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace dsm::core {

/// `text` with every control character (below 0x20, and DEL) and every
/// backslash written as a C escape: \n, \t, \\, else \xNN. Other bytes
/// (UTF-8 included) are kept.
std::string printableText(llvm::StringRef text);

} // namespace dsm::core

#endif // DSM_CORE_SUPPORT_PRINTABLETEXT_H

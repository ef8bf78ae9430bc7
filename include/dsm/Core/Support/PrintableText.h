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

/// `text` with every control character and every backslash written as a C
/// escape: \n, \t, \\; other C0 controls (below 0x20) and DEL as \xNN;
/// the C1 controls (U+0080-U+009F) and the characters that reorder
/// bidirectional text (U+061C, U+200E, U+200F, U+202A-U+202E,
/// U+2066-U+2069) as \uNNNN; every byte that is not part of well-formed
/// UTF-8 as \xNN. Other UTF-8 (accented letters, CJK) is kept.
std::string printableText(llvm::StringRef text);

} // namespace dsm::core

#endif // DSM_CORE_SUPPORT_PRINTABLETEXT_H

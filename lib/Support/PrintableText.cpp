//===- PrintableText.cpp - Names from models, safe on a terminal ----------===//

#include "dsm/Core/Support/PrintableText.h"

#include "llvm/ADT/StringExtras.h"

std::string dsm::core::printableText(llvm::StringRef text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += llvm::hexdigit(c >> 4, /*LowerCase=*/true);
      out += llvm::hexdigit(c & 15, /*LowerCase=*/true);
    } else
      out += char(c);
  }
  return out;
}

//===- PrintableText.cpp - Names from models, safe on a terminal ----------===//

#include "dsm/Core/Support/PrintableText.h"

#include "llvm/ADT/StringExtras.h"

/// Appends `value`'s `digits` low hexadecimal digits to `out`.
static void appendHex(std::string &out, uint32_t value, int digits) {
  for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4)
    out += llvm::hexdigit((value >> shift) & 15, /*LowerCase=*/true);
}

/// The length of the well-formed UTF-8 sequence at the start of `text`
/// (Unicode's table 3-7: no overlong forms, no surrogates, nothing above
/// U+10FFFF) and its code point, or 0 if it is not one.
static size_t decodeUtf8(llvm::StringRef text, uint32_t &codePoint) {
  auto byte = [&](size_t i) { return uint8_t(text[i]); };
  uint8_t lead = byte(0);
  size_t length;
  uint8_t low = 0x80, high = 0xbf; // the range of the second byte
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
    codePoint = lead & 0x1f;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    codePoint = lead & 0x0f;
    if (lead == 0xe0)
      low = 0xa0;
    else if (lead == 0xed)
      high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    codePoint = lead & 0x07;
    if (lead == 0xf0)
      low = 0x90;
    else if (lead == 0xf4)
      high = 0x8f;
  } else {
    return 0;
  }
  if (text.size() < length)
    return 0;
  for (size_t i = 1; i < length; ++i) {
    uint8_t next = byte(i);
    if (i == 1 ? (next < low || next > high) : (next < 0x80 || next > 0xbf))
      return 0;
    codePoint = (codePoint << 6) | (next & 0x3f);
  }
  return length;
}

/// Whether the code point (above ASCII) must not reach a terminal raw: the
/// C1 controls, and the marks, embeddings, overrides and isolates that
/// reorder bidirectional text (a name that reads backwards, or reorders
/// what is printed after it: "Trojan Source").
static bool isHiddenControl(uint32_t codePoint) {
  return (codePoint >= 0x80 && codePoint <= 0x9f) || codePoint == 0x061c ||
         codePoint == 0x200e || codePoint == 0x200f ||
         (codePoint >= 0x202a && codePoint <= 0x202e) ||
         (codePoint >= 0x2066 && codePoint <= 0x2069);
}

std::string dsm::core::printableText(llvm::StringRef text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    unsigned char c = text.front();
    if (c < 0x80) {
      if (c == '\\')
        out += "\\\\";
      else if (c == '\n')
        out += "\\n";
      else if (c == '\t')
        out += "\\t";
      else if (c < 0x20 || c == 0x7f) {
        out += "\\x";
        appendHex(out, c, 2);
      } else
        out += char(c);
      text = text.drop_front();
      continue;
    }
    uint32_t codePoint = 0;
    size_t length = decodeUtf8(text, codePoint);
    if (length == 0) {
      // Not UTF-8: the byte, escaped; what follows is read afresh.
      out += "\\x";
      appendHex(out, c, 2);
      text = text.drop_front();
      continue;
    }
    if (isHiddenControl(codePoint)) {
      out += "\\u";
      appendHex(out, codePoint, 4);
    } else {
      out += text.take_front(length);
    }
    text = text.drop_front(length);
  }
  return out;
}

//===- MlirText.h - Checks on MLIR source text before parsing ---*- C++ -*-===//
//
// MLIR 22's parser crashes, instead of reporting, on some malformed input:
// `linalg.transpose ... permutation = <anything but a well-formed [list]>`
// (and `dimensions =` of linalg.broadcast/reduce) hands a null attribute to
// the op's attribute list, as does a byte the lexer rejects inside such a
// list; upstream mlir-opt crashes the same way. The tools and fuzzers scan
// their input for these first and report them located.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SUPPORT_MLIRTEXT_H
#define DSM_CORE_SUPPORT_MLIRTEXT_H

#include "llvm/ADT/StringRef.h"

#include <cctype>
#include <cstddef>
#include <optional>
#include <string>

namespace dsm::core {

struct MlirTextProblem {
  size_t offset;
  const char *message;
};

namespace detail {
inline bool isWordChar(unsigned char c) {
  return std::isalnum(c) || c == '_' || c == '$' || c == '.' || c == '%' ||
         c == '@' || c == '#' || c == '^' || c == '!';
}
/// Whether `text` from `i` is `= [ int, ... ]` (whitespace allowed).
inline bool isIntegerList(llvm::StringRef text, size_t i) {
  auto skip = [&] {
    while (i < text.size() && std::isspace((unsigned char)text[i]))
      ++i;
  };
  skip();
  if (i >= text.size() || text[i++] != '=')
    return false;
  skip();
  if (i >= text.size() || text[i++] != '[')
    return false;
  skip();
  if (i < text.size() && text[i] == ']')
    return true;
  while (true) {
    if (i < text.size() && text[i] == '-')
      ++i;
    size_t digits = i;
    while (i < text.size() && std::isdigit((unsigned char)text[i]))
      ++i;
    if (i == digits)
      return false;
    skip();
    if (i >= text.size())
      return false;
    char c = text[i++];
    if (c == ']')
      return true;
    if (c != ',')
      return false;
    skip();
  }
}
} // namespace detail

/// The first place MLIR 22's parser would crash on instead of reporting:
/// a byte its lexer rejects outside string literals and `//` comments (one
/// outside printable ASCII other than tab, newline and carriage return), or
/// a custom-syntax `permutation`/`dimensions` (after a `)`) not followed by
/// `= [integers]`, or a custom-syntax linalg op whose properties (a `<`
/// after its name, its `indexing_maps = [..]` or its attribute dictionary)
/// are not `<{` a dictionary `}>`: MLIR 22's linalg parser takes any
/// attribute there and reads it as a dictionary (`linalg.matmul <0.125>
/// ins(..)` aborts upstream mlir-opt too; found by dsm-fuzz-upgrade-mlir),
/// or brackets (`(`, `[`, `{`, and the `<` of attribute and type syntax)
/// nested deeper than kMaxMlirNesting: the parser recurses once per level
/// (18,753 `(` in a type overflowed the stack, found by
/// dsm-fuzz-upgrade-mlir; 20,000 `tuple<` do too). None when the text is
/// free of all four.
///
/// `<` is matched the way MLIR's parser matches a dialect attribute's body:
/// `->` closes nothing, `<=` opens nothing, and a `>` closes only a `<`, so
/// `>=` in an integer set closes no parenthesis. A `<` that is never closed
/// (text no parser would take as a bracket) is dropped when the bracket
/// around it closes, so it cannot add up over a file.
constexpr int kMaxMlirNesting = 256;

inline std::optional<MlirTextProblem>
findMlirTextProblem(llvm::StringRef text) {
  bool inString = false, inComment = false;
  char lastSignificant = 0;
  // The open brackets, innermost last; never more than kMaxMlirNesting.
  std::string open;
  // In the custom form of a linalg op, from its name to its operands (at
  // `linalgDepth`), and whether properties may stand next.
  bool linalgHeader = false, propertiesMayFollow = false;
  size_t linalgDepth = 0;
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
    bool opens = c == '(' || c == '[' || c == '{' ||
                 (c == '<' && !(i + 1 < text.size() && text[i + 1] == '='));
    if (linalgHeader && open.size() == linalgDepth && !std::isspace(c) &&
        !detail::isWordChar(c) && c != '[' && c != '{' && c != '=') {
      linalgHeader = false;
      if (c == '<' && propertiesMayFollow) {
        size_t next = i + 1;
        while (next < text.size() && std::isspace((unsigned char)text[next]))
          ++next;
        if (next >= text.size() || text[next] != '{')
          return MlirTextProblem{i, "expected '<{' here: a linalg op's "
                                    "properties must be a dictionary"};
      }
    }
    if (linalgHeader && open.size() == linalgDepth &&
        (c == '[' || c == '{' || c == '='))
      propertiesMayFollow = false;
    if (opens) {
      if (open.size() == size_t(kMaxMlirNesting))
        return MlirTextProblem{i, "brackets nested deeper than 256 levels"};
      open.push_back(char(c));
    } else if (c == ')' || c == ']' || c == '}') {
      // Unclosed `<` inside it first; then the bracket itself, whatever
      // its kind (an extra closer can only lower the count).
      while (!open.empty() && open.back() == '<')
        open.pop_back();
      if (!open.empty())
        open.pop_back();
      if (linalgHeader && open.size() < linalgDepth)
        linalgHeader = false;
      // After `indexing_maps = [..]` or an attribute dictionary.
      if (linalgHeader && open.size() == linalgDepth)
        propertiesMayFollow = true;
    } else if (c == '>' && !open.empty() && open.back() == '<' &&
               !(i > 0 && text[i - 1] == '-')) {
      open.pop_back();
    }
    if (c == '"') {
      inString = true;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      inComment = true;
      continue;
    } else if (c >= 0x7f || (c < 0x20 && c != '\t' && c != '\n' && c != '\r')) {
      return MlirTextProblem{i, "unexpected character: MLIR text holds such "
                                "bytes only in string literals and comments"};
    } else if (detail::isWordChar(c)) {
      size_t start = i;
      while (i + 1 < text.size() && detail::isWordChar(text[i + 1]))
        ++i;
      llvm::StringRef word = text.slice(start, i + 1);
      if ((word == "permutation" || word == "dimensions") &&
          lastSignificant == ')' && !detail::isIntegerList(text, i + 1))
        return MlirTextProblem{start, "expected '= [' integers ']' after "
                                      "this keyword"};
      if (word.starts_with("linalg.")) {
        linalgHeader = propertiesMayFollow = true;
        linalgDepth = open.size();
      } else if (linalgHeader && open.size() == linalgDepth) {
        linalgHeader = word == "indexing_maps";
        propertiesMayFollow = false;
      }
      lastSignificant = text[i];
      continue;
    }
    if (!std::isspace(c))
      lastSignificant = c;
  }
  return std::nullopt;
}

} // namespace dsm::core

#endif // DSM_CORE_SUPPORT_MLIRTEXT_H

//===- UpgradeMlir.cpp - Older MLIR spellings into the current ones -------===//
//
// The upgrade works on the text, not on parsed IR: a file in an older
// spelling does not parse, and a textual rewrite keeps the file as its
// author wrote it (comments, resources, locations) apart from the changed
// spellings. A small scanner finds operations outside comments and string
// literals and steps over balanced brackets.
//
//===----------------------------------------------------------------------===//

#include "dsm/Import/UpgradeMlir.h"
#include "dsm/Import/Passes.h"
#include "dsm/Support/MlirSource.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cmath>
#include <optional>
#include <vector>

using namespace mlir;

namespace {

/// One rewrite of the text: `length` characters at `offset` become `text`.
struct Edit {
  size_t offset;
  size_t length;
  std::string text;
};

/// Reads MLIR text: steps over trivia, comments, string literals and
/// balanced brackets, and locates offsets as file:line:column.
class Scanner {
public:
  Scanner(StringRef text, StringRef bufferName, MLIRContext *context)
      : text(text), bufferName(bufferName), context(context) {}

  StringRef text;

  /// The offset of the first character at or after `i` that is neither
  /// whitespace nor in a `//` comment.
  size_t skipTrivia(size_t i) const {
    while (i < text.size()) {
      if (llvm::isSpace(text[i])) {
        ++i;
      } else if (text.substr(i).starts_with("//")) {
        i = text.find('\n', i);
        if (i == StringRef::npos)
          return text.size();
      } else {
        break;
      }
    }
    return i;
  }

  /// The offset just past the string literal that starts at `i` (a quote).
  size_t skipString(size_t i) const {
    for (++i; i < text.size(); ++i) {
      if (text[i] == '\\')
        ++i;
      else if (text[i] == '"')
        return i + 1;
    }
    return text.size();
  }

  /// The offset just past the bracket that closes the one at `i` (one of
  /// `([{<`), stepping over strings and comments; `->` is no closing angle
  /// bracket. npos when it is not closed (or a bracket inside it closes with
  /// the wrong one). Answered from a table one pass over the text builds: a
  /// walk from each bracket made a file of unclosed operations quadratic.
  size_t skipBalanced(size_t i) const {
    if (!closing)
      closing = matchBrackets();
    auto found = closing->find(i);
    return found == closing->end() ? StringRef::npos : found->second;
  }
  /// The offset just past a type written at `i` (`tensor<...>`, `f32`,
  /// `!alias`), or npos.
  size_t skipType(size_t i) const {
    size_t end = i;
    if (end < text.size() && text[end] == '!')
      ++end;
    while (end < text.size() &&
           (llvm::isAlnum(text[end]) || text[end] == '_' || text[end] == '.'))
      ++end;
    if (end == i)
      return StringRef::npos;
    if (end < text.size() && text[end] == '<')
      return skipBalanced(end);
    return end;
  }

  /// The code offsets where the operation name `name` (or a string literal
  /// equal to it, for the generic form, when `quoted`) occurs as a whole
  /// word: not in comments, not inside other words or string literals.
  std::vector<size_t> findOperation(StringRef name, bool quoted) const {
    std::vector<size_t> found;
    auto isWordChar = [](char c) {
      return llvm::isAlnum(c) || c == '_' || c == '.' || c == '$';
    };
    for (size_t i = 0; i < text.size();) {
      char c = text[i];
      if (c == '/' && text.substr(i).starts_with("//")) {
        i = text.find('\n', i);
        if (i == StringRef::npos)
          break;
        continue;
      }
      if (c == '"') {
        size_t end = skipString(i);
        if (quoted && text.slice(i + 1, end - 1) == name)
          found.push_back(i);
        i = end;
        continue;
      }
      if (!quoted && text.substr(i).starts_with(name) &&
          (i == 0 || !isWordChar(text[i - 1])) &&
          (i + name.size() >= text.size() ||
           !isWordChar(text[i + name.size()])))
        found.push_back(i);
      i = isWordChar(c) ? skipWord(i) : i + 1;
    }
    return found;
  }

  /// An error at the line and column of `offset`.
  InFlightDiagnostic error(size_t offset) const {
    return emitError(dsm::TextLocator(text, bufferName, context)(offset));
  }

private:
  /// For every opening bracket outside strings and comments, the offset
  /// just past its closing one, or npos: a closer that does not match the
  /// innermost open bracket leaves every bracket still open unclosed.
  llvm::DenseMap<size_t, size_t> matchBrackets() const {
    llvm::DenseMap<size_t, size_t> result;
    std::vector<std::pair<size_t, char>> open; // offset, expected closer
    auto abandon = [&] {
      for (auto [offset, closer] : open)
        result[offset] = StringRef::npos;
      open.clear();
    };
    for (size_t i = 0; i < text.size(); ++i) {
      char c = text[i];
      switch (c) {
      case '"':
        i = skipString(i) - 1;
        continue;
      case '/':
        if (i + 1 < text.size() && text[i + 1] == '/') {
          i = text.find('\n', i);
          if (i == StringRef::npos)
            i = text.size();
        }
        continue;
      case '(':
        open.push_back({i, ')'});
        continue;
      case '[':
        open.push_back({i, ']'});
        continue;
      case '{':
        open.push_back({i, '}'});
        continue;
      case '<':
        open.push_back({i, '>'});
        continue;
      case '>':
        if (i > 0 && text[i - 1] == '-')
          continue;
        [[fallthrough]];
      case ')':
      case ']':
      case '}':
        if (open.empty() || open.back().second != c) {
          abandon();
          continue;
        }
        result[open.back().first] = i + 1;
        open.pop_back();
        continue;
      default:
        continue;
      }
    }
    abandon();
    return result;
  }

  size_t skipWord(size_t i) const {
    while (i < text.size() && (llvm::isAlnum(text[i]) || text[i] == '_' ||
                               text[i] == '.' || text[i] == '$'))
      ++i;
    return i;
  }

  StringRef bufferName;
  MLIRContext *context;
  /// matchBrackets(), built on first use.
  mutable std::optional<llvm::DenseMap<size_t, size_t>> closing;
};

} // namespace

/// Where the statement of the operation named at `at` starts: its first
/// result (`%e = tensor.expand_shape ...` starts at `%e`), or `at` itself.
/// Definitions an upgrade needs are inserted there, on the same line, so
/// that every line stays where it was.
static size_t statementStart(StringRef text, size_t at) {
  size_t i = at;
  while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t'))
    --i;
  if (i == 0 || text[i - 1] != '=')
    return at;
  --i;
  size_t start = at;
  while (i > 0) {
    char c = text[i - 1];
    if (c == '\n' ||
        !(llvm::isAlnum(c) || StringRef("%_$.#:-, \t").contains(c)))
      break;
    --i;
    if (c == '%')
      start = i;
  }
  return start;
}

/// The groups of a reassociation `[[0, 1], [2]]` at [begin, end).
static SmallVector<SmallVector<int64_t, 2>> parseReassociation(StringRef text) {
  SmallVector<SmallVector<int64_t, 2>> groups;
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '[') {
      if (++depth == 2)
        groups.emplace_back();
    } else if (c == ']') {
      --depth;
    } else if (depth == 2 && llvm::isDigit(c)) {
      size_t j = i;
      while (j < text.size() && llvm::isDigit(text[j]))
        ++j;
      int64_t value = 0;
      text.slice(i, j).getAsInteger(10, value);
      groups.back().push_back(value);
      i = j - 1;
    }
  }
  return groups;
}

/// Adds `output_shape [..]` to the expand_shape named at `at` if it has none:
/// `tensor.expand_shape %src [[0, 1], [2]] : T into R` (before MLIR 19).
static LogicalResult upgradeExpandShape(const Scanner &scanner, size_t at,
                                        StringRef name, MLIRContext *context,
                                        std::vector<Edit> &edits) {
  StringRef text = scanner.text;
  auto malformed = [&](StringRef what) {
    return scanner.error(at)
           << "cannot upgrade '" << name << "': expected " << what;
  };
  size_t i = scanner.skipTrivia(at + name.size());
  if (i >= text.size() || text[i] != '%')
    return malformed("its source operand");
  size_t sourceBegin = i;
  while (i < text.size() && !llvm::isSpace(text[i]) && text[i] != '[')
    ++i;
  StringRef source = text.slice(sourceBegin, i);
  size_t reassociationBegin = scanner.skipTrivia(i);
  i = scanner.skipTrivia(i);
  if (i >= text.size() || text[i] != '[')
    return malformed("its reassociation ([[0, 1], ...])");
  size_t reassociationEnd = scanner.skipBalanced(i);
  if (reassociationEnd == StringRef::npos)
    return malformed("a closed reassociation");
  i = scanner.skipTrivia(reassociationEnd);
  if (text.substr(i).starts_with("output_shape"))
    return success();
  if (i < text.size() && text[i] == '{') {
    i = scanner.skipBalanced(i);
    if (i == StringRef::npos)
      return malformed("a closed attribute dictionary");
    i = scanner.skipTrivia(i);
  }
  if (i >= text.size() || text[i] != ':')
    return malformed("':' and its types");
  i = scanner.skipTrivia(i + 1);
  size_t sourceEnd = scanner.skipType(i);
  if (sourceEnd == StringRef::npos)
    return malformed("its source type");
  StringRef sourceType = text.slice(i, sourceEnd);
  i = scanner.skipTrivia(sourceEnd);
  if (!text.substr(i).starts_with("into"))
    return malformed("'into' and its result type");
  i = scanner.skipTrivia(i + 4);
  size_t resultEnd = scanner.skipType(i);
  if (resultEnd == StringRef::npos)
    return malformed("its result type");
  StringRef resultText = text.slice(i, resultEnd);

  Type resultType;
  {
    // The type is read on its own; its own errors would point nowhere.
    ScopedDiagnosticHandler quiet(context, [](Diagnostic &) {});
    resultType = parseType(resultText, context);
  }
  auto shaped = dyn_cast_or_null<ShapedType>(resultType);
  if (!shaped || !shaped.hasRank())
    return scanner.error(at)
           << "cannot upgrade '" << name << "': cannot read its result type '"
           << resultText << "' (type aliases are not resolved)";
  // A dynamic result dimension is its source dimension divided by the
  // static sizes of its group (one dynamic size per group, as MLIR
  // requires): computed with `dim` and `arith.divui` just before the
  // operation, on its line.
  SmallVector<SmallVector<int64_t, 2>> groups =
      parseReassociation(text.slice(reassociationBegin, reassociationEnd));
  std::string prefix, shape;
  llvm::raw_string_ostream pre(prefix), os(shape);
  std::string id = "%__dsm_upgrade" + std::to_string(at) + "_";
  StringRef dialect = name.split('.').first;
  SmallVector<std::string> sizes;
  for (int64_t d = 0; d < shaped.getRank(); ++d) {
    if (!shaped.isDynamicDim(d)) {
      sizes.push_back(std::to_string(shaped.getDimSize(d)));
      continue;
    }
    const auto *group = llvm::find_if(
        groups, [&](ArrayRef<int64_t> g) { return llvm::is_contained(g, d); });
    int64_t known = 1, dynamic = 0;
    if (group != groups.end())
      for (int64_t member : *group) {
        if (member >= shaped.getRank())
          dynamic = 2;
        else if (shaped.isDynamicDim(member))
          ++dynamic;
        else if (llvm::MulOverflow(known, shaped.getDimSize(member), known))
          return scanner.error(at)
                 << "cannot upgrade '" << name << "' to " << resultText
                 << ": the static sizes of result dimension " << d
                 << "'s reassociation group overflow 64 bits";
      }
    if (group == groups.end() || dynamic != 1 || known == 0)
      return scanner.error(at)
             << "cannot upgrade '" << name << "' to " << resultText
             << ": result dimension " << d
             << " is not the only dynamic one of its reassociation group; "
                "write output_shape by hand";
    std::string index = id + "i" + std::to_string(d),
                dim = id + "d" + std::to_string(d);
    pre << index << " = arith.constant " << (group - groups.begin())
        << " : index " << dim << " = " << dialect << ".dim " << source << ", "
        << index << " : " << sourceType << " ";
    if (known != 1) {
      std::string factor = id + "k" + std::to_string(d),
                  quotient = id + "s" + std::to_string(d);
      pre << factor << " = arith.constant " << known << " : index " << quotient
          << " = arith.divui " << dim << ", " << factor << " : index ";
      dim = quotient;
    }
    sizes.push_back(dim);
  }
  os << " output_shape [" << llvm::join(sizes, ", ") << "]";
  if (!prefix.empty())
    edits.push_back({statementStart(text, at), 0, std::move(prefix)});
  edits.push_back({reassociationEnd, 0, std::move(shape)});
  return success();
}

/// Renames the `value` attribute of the generic `"tosa.const"` at `at` to
/// `values` (MLIR 21 renamed it).
static void upgradeTosaConst(const Scanner &scanner, size_t at,
                             std::vector<Edit> &edits) {
  StringRef text = scanner.text;
  size_t i = scanner.skipTrivia(scanner.skipString(at));
  if (i >= text.size() || text[i] != '(')
    return;
  i = scanner.skipBalanced(i);
  if (i == StringRef::npos)
    return;
  i = scanner.skipTrivia(i);
  // Properties `<{..}>` (MLIR 18 and later) or an attribute dictionary.
  if (text.substr(i).starts_with("<{"))
    ++i;
  if (i >= text.size() || text[i] != '{')
    return;
  size_t end = scanner.skipBalanced(i);
  if (end == StringRef::npos)
    return;
  // Top-level keys of the dictionary: after `{` and after each `,`.
  for (size_t key = scanner.skipTrivia(i + 1); key < end - 1;) {
    size_t keyEnd = key;
    while (keyEnd < end && (llvm::isAlnum(text[keyEnd]) ||
                            text[keyEnd] == '_' || text[keyEnd] == '.'))
      ++keyEnd;
    size_t equals = scanner.skipTrivia(keyEnd);
    if (text.slice(key, keyEnd) == "value" && equals < text.size() &&
        text[equals] == '=')
      edits.push_back({key, keyEnd - key, "values"});
    // On to the next top-level comma.
    size_t j = keyEnd;
    while (j < end - 1 && text[j] != ',') {
      if (StringRef("([{<\"").contains(text[j])) {
        size_t next =
            text[j] == '"' ? scanner.skipString(j) : scanner.skipBalanced(j);
        if (next == StringRef::npos)
          return;
        j = next;
      } else {
        ++j;
      }
    }
    key = scanner.skipTrivia(j + 1);
  }
}

/// Attributes TOSA 1.0 made operands: `shift` of tosa.mul (a tensor<1xi8>
/// constant), `new_shape` of tosa.reshape and `start`, `size` of tosa.slice
/// (each a !tosa.shape from tosa.const_shape), attributes before MLIR 21.
struct AttributeToOperand {
  StringLiteral op;
  /// In the order the operands take.
  SmallVector<StringLiteral, 2> keys;
};
static const AttributeToOperand kAttributesToOperands[] = {
    {"tosa.mul", {"shift"}},
    {"tosa.reshape", {"new_shape"}},
    {"tosa.slice", {"start", "size"}},
};

/// Moves the `keys` of the tosa op named at `at` (custom form, or generic
/// when `quoted`) from its attributes to new last operands defined just
/// before it on its line; an op without them is current and stays.
static LogicalResult upgradeAttributeToOperand(const Scanner &scanner,
                                               size_t at,
                                               const AttributeToOperand &what,
                                               bool quoted,
                                               std::vector<Edit> &edits) {
  StringRef text = scanner.text;
  auto malformed = [&](StringRef expected) {
    return scanner.error(at)
           << "cannot upgrade '" << what.op << "': expected " << expected;
  };
  size_t i, operandsEnd;
  if (quoted) {
    i = scanner.skipTrivia(scanner.skipString(at));
    if (i >= text.size() || text[i] != '(')
      return success();
    size_t close = scanner.skipBalanced(i);
    if (close == StringRef::npos)
      return malformed("closed operands");
    operandsEnd = close - 1;
    i = scanner.skipTrivia(close);
  } else {
    // Operands run to the attribute dictionary or the ':'.
    i = at + what.op.size();
    operandsEnd = i;
    while (i < text.size() && text[i] != '{' && text[i] != ':' &&
           !text.substr(i).starts_with("<{")) {
      if (text[i] == '\n' && text.substr(scanner.skipTrivia(i)).empty())
        break;
      if (!llvm::isSpace(text[i]))
        operandsEnd = i + 1;
      ++i;
    }
  }
  // Properties `<{..}>` and/or an attribute dictionary `{..}`: the key may
  // be in either.
  struct Dictionary {
    size_t begin, end; ///< the braces (and angle brackets) included
    size_t open;       ///< the `{`
    SmallVector<std::pair<size_t, size_t>> entries;
  };
  SmallVector<Dictionary, 2> dicts;
  for (int k = 0; k < 2; ++k) {
    bool properties = text.substr(i).starts_with("<{");
    size_t open = properties ? i + 1 : i;
    if (open >= text.size() || text[open] != '{')
      break;
    size_t close = scanner.skipBalanced(open);
    if (close == StringRef::npos)
      return malformed("a closed attribute dictionary");
    Dictionary dict{i, properties ? close + 1 : close, open, {}};
    // Its top-level entries: [begin, end) each.
    for (size_t key = scanner.skipTrivia(open + 1); key < close - 1;) {
      size_t j = key;
      while (j < close - 1 && text[j] != ',') {
        if (StringRef("([{<\"").contains(text[j])) {
          size_t next =
              text[j] == '"' ? scanner.skipString(j) : scanner.skipBalanced(j);
          if (next == StringRef::npos || next > close)
            return malformed("a closed attribute value");
          j = next;
        } else {
          ++j;
        }
      }
      size_t end = j;
      while (end > key && llvm::isSpace(text[end - 1]))
        --end;
      dict.entries.push_back({key, end});
      key = scanner.skipTrivia(j + 1);
    }
    i = scanner.skipTrivia(dict.end);
    dicts.push_back(std::move(dict));
  }
  // The entries to move, per key; none: the op is current.
  SmallVector<std::pair<const Dictionary *, size_t>> found;
  for (StringLiteral key : what.keys) {
    auto isKey = [&](std::pair<size_t, size_t> range) {
      StringRef e = text.slice(range.first, range.second);
      return e.starts_with(key) &&
             e.drop_front(key.size()).ltrim().starts_with("=");
    };
    for (const Dictionary &dict : dicts) {
      auto it = llvm::find_if(dict.entries, isKey);
      if (it != dict.entries.end()) {
        found.push_back({&dict, size_t(it - dict.entries.begin())});
        break;
      }
    }
  }
  if (found.empty())
    return success();
  if (found.size() != what.keys.size())
    return malformed(
        "the attributes " +
        llvm::join(ArrayRef(what.keys.begin(), what.keys.end()), " and ") +
        " together");
  // The types: `: (operands) -> result`; the new operands' types join them.
  size_t colon = i;
  if (colon >= text.size() || text[colon] != ':')
    return malformed("':' and a functional type");
  size_t types = scanner.skipTrivia(colon + 1);
  if (types >= text.size() || text[types] != '(')
    return malformed("a functional type");
  size_t typesEnd = scanner.skipBalanced(types);
  if (typesEnd == StringRef::npos)
    return malformed("a closed functional type");

  std::string definitions, operands, operandTypes;
  for (auto [key, where] : llvm::zip_equal(what.keys, found)) {
    auto entry = where.first->entries[where.second];
    StringRef value =
        text.slice(entry.first, entry.second).split('=').second.trim();
    // The operand's definition and type.
    std::string name = "%__dsm_upgrade" + std::to_string(at) + "_" + key.str();
    std::string definition, type;
    SmallVector<int64_t> ints;
    for (size_t k = 0; k < value.size();) {
      size_t j = k + (value[k] == '-' ? 1 : 0);
      // A number not part of a word (the 64 of `array<i64: ..>` is not).
      if (j < value.size() && llvm::isDigit(value[j]) &&
          (k == 0 || !llvm::isAlnum(value[k - 1]))) {
        size_t e = j;
        while (e < value.size() && llvm::isDigit(value[e]))
          ++e;
        int64_t v = 0;
        value.slice(k, e).getAsInteger(10, v);
        ints.push_back(v);
        k = e;
        // In `0 : i8` the type's width is no value.
        if (key == "shift")
          break;
      } else {
        ++k;
      }
    }
    if (key == "shift") {
      // One integer, of an integer type if typed: `1.5 : f32` and `[1, 2]`
      // are no shift (their first digits are not one either).
      auto [literal, typeText] = value.split(':');
      literal = literal.trim();
      typeText = typeText.trim();
      StringRef width = typeText;
      width.consume_front("s") || width.consume_front("u");
      bool integerType =
          typeText.empty() || (width.consume_front("i") && !width.empty() &&
                               llvm::all_of(width, llvm::isDigit));
      int64_t shift = 0;
      if (literal.getAsInteger(10, shift) || !integerType)
        return scanner.error(at)
               << "cannot upgrade '" << what.op
               << "': expected an integer shift, got '" << value << "'";
      // TOSA's shift is an i8 in [0, 63].
      if (shift < 0 || shift > 63)
        return scanner.error(at)
               << "cannot upgrade '" << what.op
               << "': its shift must be in [0, 63], got " << shift;
      ints.assign({shift});
      type = "tensor<1xi8>";
      definition = name + " = \"tosa.const\"() <{values = dense<" +
                   std::to_string(ints[0]) + "> : tensor<1xi8>}> : () -> " +
                   type + " ";
    } else {
      type = "!tosa.shape<" + std::to_string(ints.size()) + ">";
      std::string list;
      llvm::raw_string_ostream os(list);
      llvm::interleaveComma(ints, os);
      definition = name + " = tosa.const_shape {values = dense<[" + list +
                   "]> : tensor<" + std::to_string(ints.size()) +
                   "xindex>} : () -> " + type + " ";
    }
    definitions += definition;
    operands += ", " + name;
    operandTypes += ", " + type;
  }

  edits.push_back({statementStart(text, at), 0, definitions});
  edits.push_back({operandsEnd, 0, operands});
  // Each dictionary loses the moved entries: all of them, and it goes with
  // the space before it; some, and the others stay as written.
  for (const Dictionary &dict : dicts) {
    SmallVector<std::pair<size_t, size_t>> kept;
    for (auto [index, range] : llvm::enumerate(dict.entries))
      if (!llvm::is_contained(found, std::make_pair(&dict, index)))
        kept.push_back(range);
    if (kept.size() == dict.entries.size())
      continue;
    if (kept.empty()) {
      size_t begin = dict.begin;
      while (begin > 0 && text[begin - 1] == ' ')
        --begin;
      edits.push_back({begin, dict.end - begin, ""});
      continue;
    }
    SmallVector<StringRef> entries;
    for (auto [begin, end] : kept)
      entries.push_back(text.slice(begin, end));
    size_t first = dict.entries.front().first;
    edits.push_back(
        {first, dict.entries.back().second - first, llvm::join(entries, ", ")});
  }
  edits.push_back({typesEnd - 1, 0, operandTypes});
  return success();
}

/// Parses `keyword(%a, %b : T1, T2)` at `i` (after trivia): the operand
/// names and their types (null where a type does not parse); `i` moves past
/// it. False when it is not there or not closed.
static bool parseOperandGroup(const Scanner &scanner, size_t &i,
                              StringRef keyword, MLIRContext *context,
                              SmallVector<StringRef> &values,
                              SmallVector<Type> &types) {
  StringRef text = scanner.text;
  size_t at = scanner.skipTrivia(i);
  if (!text.substr(at).starts_with(keyword))
    return false;
  at = scanner.skipTrivia(at + keyword.size());
  if (at >= text.size() || text[at] != '(')
    return false;
  size_t end = scanner.skipBalanced(at);
  if (end == StringRef::npos)
    return false;
  auto [operands, typeList] = text.slice(at + 1, end - 1).split(':');
  SmallVector<StringRef> parts;
  operands.split(parts, ',');
  for (StringRef part : parts)
    values.push_back(part.trim());
  // Types: split at top-level commas.
  size_t depth = 0, from = 0;
  for (size_t k = 0; k <= typeList.size(); ++k) {
    if (k < typeList.size() && typeList[k] == '<')
      ++depth;
    else if (k < typeList.size() && typeList[k] == '>')
      --depth;
    else if (k == typeList.size() || (typeList[k] == ',' && depth == 0)) {
      ScopedDiagnosticHandler quiet(context, [](Diagnostic &) {});
      types.push_back(parseType(typeList.slice(from, k).trim(), context));
      from = k + 1;
    }
  }
  i = end;
  return true;
}

/// torch-mlir fx keeps F.scaled_dot_product_attention as
/// `tm_tensor.attention ins(%q, %k, %v[, %mask] : Tq, Tk, Tv[, Tm])
/// outs(%init : To) -> To` of a dialect dsm-opt does not load (TMTensor).
/// It is what it computes, in linalg on tensors: the scores Q K^T (a
/// contraction over E), scaled by 1/sqrt(E), plus a float mask or with a
/// boolean mask's false positions at -inf, linalg.softmax over the keys and
/// the product with V (a contraction over the keys). Written on the op's
/// line, its last contraction taking the op's place and result name.
static LogicalResult upgradeTmTensorAttention(const Scanner &scanner, size_t at,
                                              MLIRContext *context,
                                              std::vector<Edit> &edits) {
  StringRef text = scanner.text;
  StringRef name = "tm_tensor.attention";
  auto malformed = [&](StringRef expected) {
    return scanner.error(at)
           << "cannot upgrade '" << name << "': expected " << expected;
  };
  auto group = [&](size_t &i, StringRef keyword, SmallVector<StringRef> &values,
                   SmallVector<Type> &types) -> LogicalResult {
    if (!parseOperandGroup(scanner, i, keyword, context, values, types))
      return malformed(("'" + keyword + "(' with closed operands").str());
    return success();
  };
  size_t i = at + name.size();
  SmallVector<StringRef> ins, outs;
  SmallVector<Type> inTypes, outTypes;
  if (failed(group(i, "ins", ins, inTypes)) ||
      failed(group(i, "outs", outs, outTypes)))
    return failure();
  i = scanner.skipTrivia(i);
  if (!text.substr(i).starts_with("->"))
    return malformed("'->' and a result type (attention on tensors)");
  size_t resultBegin = scanner.skipTrivia(i + 2);
  size_t opEnd = scanner.skipType(resultBegin);
  if (opEnd == StringRef::npos)
    return malformed("a result type");
  auto shaped = [](Type t) { return dyn_cast_or_null<RankedTensorType>(t); };
  if ((ins.size() != 3 && ins.size() != 4) || inTypes.size() != ins.size() ||
      !llvm::all_of(inTypes, shaped) || outTypes.size() != 1)
    return malformed("query, key, value (and a mask) as ranked tensors");
  auto q = shaped(inTypes[0]), k = shaped(inTypes[1]), v = shaped(inTypes[2]);
  int64_t rank = q.getRank();
  if (rank < 2 || k.getRank() != rank || v.getRank() != rank ||
      !q.hasStaticShape() || !k.hasStaticShape() || !v.hasStaticShape() ||
      !isa<FloatType>(q.getElementType()))
    return malformed("query, key and value of one rank, static, floats");
  int64_t batchDims = rank - 2;
  ArrayRef<int64_t> batch = q.getShape().take_front(batchDims);
  int64_t l = q.getDimSize(rank - 2), e = q.getDimSize(rank - 1),
          s = k.getDimSize(rank - 2), ev = v.getDimSize(rank - 1);
  // What the linalg it is written as needs, said of the op: the text
  // written from anything else does not parse (1/sqrt(0) printed as `inf`,
  // an i8 mask added to f32 scores), and its errors point into a generated
  // line.
  auto refuse = [&]() {
    return scanner.error(at) << "cannot upgrade '" << name << "': ";
  };
  if (e == 0)
    return refuse() << "its head dimension (the query's last) is 0, so its "
                       "scale 1/sqrt(0) is infinite";
  if (k.getShape().take_front(batchDims) != batch ||
      v.getShape().take_front(batchDims) != batch ||
      k.getDimSize(rank - 1) != e || v.getDimSize(rank - 2) != s)
    return refuse() << "query " << q << ", key " << k << " and value " << v
                    << " do not agree: Q is [.., L, E], K [.., S, E] and V "
                       "[.., S, Ev] with the same leading dimensions";
  if (k.getElementType() != q.getElementType() ||
      v.getElementType() != q.getElementType())
    return refuse() << "query, key and value must have one element type, got "
                    << q.getElementType() << ", " << k.getElementType()
                    << " and " << v.getElementType();
  SmallVector<int64_t> outShape(batch);
  outShape.append({l, ev});
  auto out = shaped(outTypes[0]);
  if (!out || out.getShape() != ArrayRef<int64_t>(outShape) ||
      out.getElementType() != q.getElementType())
    return refuse() << "its result " << outTypes[0] << " is not "
                    << RankedTensorType::get(outShape, q.getElementType())
                    << ", what it computes ([.., L, Ev])";
  if (ins.size() == 4) {
    Type maskElement = shaped(inTypes[3]).getElementType();
    if (!maskElement.isInteger(1) && maskElement != q.getElementType())
      return refuse() << "its mask's element type is " << maskElement
                      << ": a mask is boolean (i1) or of the query's element "
                         "type "
                      << q.getElementType() << ", added to the scores";
  }
  std::string element;
  llvm::raw_string_ostream(element) << q.getElementType();
  auto tensorType = [&](int64_t a, int64_t b) {
    std::string t = "tensor<";
    for (int64_t d : batch)
      t += std::to_string(d) + "x";
    return t + std::to_string(a) + "x" + std::to_string(b) + "x" + element +
           ">";
  };
  std::string scoresType = tensorType(l, s), outType = tensorType(l, ev);
  // Loops: the batch dimensions, then three of the contraction.
  auto map = [&](StringRef a, StringRef b) {
    std::string dims, results;
    for (int64_t d = 0; d < batchDims + 3; ++d)
      dims += (d ? ", d" : "d") + std::to_string(d);
    for (int64_t d = 0; d < batchDims; ++d)
      results += "d" + std::to_string(d) + ", ";
    return "affine_map<(" + dims + ") -> (" + results + a.str() + ", " +
           b.str() + ")>";
  };
  std::string x = "d" + std::to_string(batchDims),
              y = "d" + std::to_string(batchDims + 1),
              r = "d" + std::to_string(batchDims + 2);
  std::string iterators;
  for (int64_t d = 0; d < batchDims + 2; ++d)
    iterators += "\"parallel\", ";
  iterators += "\"reduction\"";
  std::string elementwise;
  for (int64_t d = 0; d < rank; ++d)
    elementwise += (d ? ", d" : "d") + std::to_string(d);
  std::string identity =
      "affine_map<(" + elementwise + ") -> (" + elementwise + ")>";
  std::string parallel;
  for (int64_t d = 0; d < rank; ++d)
    parallel += d ? ", \"parallel\"" : "\"parallel\"";

  std::string id = "%__dsm_upgrade" + std::to_string(at) + "_";
  std::string pre;
  llvm::raw_string_ostream os(pre);
  os << id << "zero = arith.constant 0.000000e+00 : " << element << " ";
  os << id << "scale = arith.constant "
     << llvm::format("%.9e", 1.0 / std::sqrt(double(e))) << " : " << element
     << " ";
  auto contraction = [&](StringRef result, StringRef lhs, StringRef lhsType,
                         StringRef rhs, StringRef rhsType, std::string lhsMap,
                         std::string rhsMap, std::string outMap, StringRef type,
                         bool named) {
    std::string out;
    llvm::raw_string_ostream c(out);
    c << id << result << "_e = tensor.empty() : " << type << " " << id << result
      << "_f = linalg.fill ins(" << id << "zero : " << element << ") outs("
      << id << result << "_e : " << type << ") -> " << type << " ";
    if (!named)
      c << id << result << " = ";
    c << "linalg.generic {indexing_maps = [" << lhsMap << ", " << rhsMap << ", "
      << outMap << "], iterator_types = [" << iterators << "]} ins(" << lhs
      << ", " << rhs << " : " << lhsType << ", " << rhsType << ") outs(" << id
      << result << "_f : " << type << ") { ^bb0(" << id << result
      << "_a: " << element << ", " << id << result << "_b: " << element << ", "
      << id << result << "_c: " << element << "): " << id << result
      << "_m = arith.mulf " << id << result << "_a, " << id << result
      << "_b : " << element << " " << id << result << "_s = arith.addf " << id
      << result << "_c, " << id << result << "_m : " << element
      << " linalg.yield " << id << result << "_s : " << element << " } -> "
      << type;
    return out;
  };
  std::string qType, kType, vType;
  llvm::raw_string_ostream(qType) << inTypes[0];
  llvm::raw_string_ostream(kType) << inTypes[1];
  llvm::raw_string_ostream(vType) << inTypes[2];
  // Q K^T over E: loops (batch.., l, s, e).
  os << contraction("scores", ins[0], qType, ins[1], kType, map(x, r),
                    map(y, r), map(x, y), scoresType, false)
     << " ";
  auto elementwiseOp = [&](StringRef result, StringRef input,
                           StringRef maskValue, StringRef maskType,
                           StringRef body) {
    os << id << result << "_e = tensor.empty() : " << scoresType << " " << id
       << result << " = linalg.generic {indexing_maps = [" << identity;
    if (!maskValue.empty())
      os << ", " << identity;
    os << ", " << identity << "], iterator_types = [" << parallel << "]} ins("
       << input;
    if (!maskValue.empty())
      os << ", " << maskValue;
    os << " : " << scoresType;
    if (!maskValue.empty())
      os << ", " << maskType;
    os << ") outs(" << id << result << "_e : " << scoresType << ") { ^bb0("
       << id << result << "_x: " << element << ", ";
    if (!maskValue.empty()) {
      std::string maskElement;
      llvm::raw_string_ostream(maskElement)
          << cast<RankedTensorType>(inTypes[3]).getElementType();
      os << id << result << "_k: " << maskElement << ", ";
    }
    os << id << result << "_o: " << element << "): " << body << " } -> "
       << scoresType << " ";
  };
  elementwiseOp("scaled", id + "scores", "", "",
                id + "scaled_y = arith.mulf " + id + "scaled_x, " + id +
                    "scale : " + element + " linalg.yield " + id +
                    "scaled_y : " + element);
  std::string logits = id + "scaled";
  if (ins.size() == 4) {
    auto mask = shaped(inTypes[3]);
    std::string maskType;
    llvm::raw_string_ostream(maskType) << inTypes[3];
    SmallVector<int64_t> scoresShape(batch);
    scoresShape.append({l, s});
    if (!mask.hasStaticShape() ||
        mask.getShape() != ArrayRef<int64_t>(scoresShape))
      return malformed("a mask shaped like the scores");
    if (mask.getElementType().isInteger(1)) {
      // -inf in the element type's own bits (a hexadecimal float literal
      // has its type's width).
      APInt bits = APFloat::getInf(
                       cast<FloatType>(q.getElementType()).getFloatSemantics(),
                       /*Negative=*/true)
                       .bitcastToAPInt();
      SmallString<32> hex;
      bits.toStringUnsigned(hex, 16);
      os << id << "ninf = arith.constant 0x" << hex << " : " << element << " ";
      elementwiseOp("masked", logits, ins[3], maskType,
                    id + "masked_y = arith.select " + id + "masked_k, " + id +
                        "masked_x, " + id + "ninf : " + element +
                        " linalg.yield " + id + "masked_y : " + element);
    } else {
      elementwiseOp("masked", logits, ins[3], maskType,
                    id + "masked_y = arith.addf " + id + "masked_x, " + id +
                        "masked_k : " + element + " linalg.yield " + id +
                        "masked_y : " + element);
    }
    logits = id + "masked";
  }
  os << id << "p_e = tensor.empty() : " << scoresType << " " << id
     << "p = linalg.softmax dimension(" << rank - 1 << ") ins(" << logits
     << " : " << scoresType << ") outs(" << id << "p_e : " << scoresType
     << ") -> " << scoresType << " ";
  // P V over the keys: loops (batch.., l, ev, s).
  std::string last =
      contraction("context", id + "p", scoresType, ins[2], vType, map(x, r),
                  map(r, y), map(x, y), outType, true);
  // The definitions before the op's statement, the last contraction in its
  // place (keeping its result name).
  size_t prefixEnd = last.find("linalg.generic");
  os << last.substr(0, prefixEnd);
  edits.push_back({statementStart(text, at), 0, pre});
  edits.push_back({at, opEnd - at, last.substr(prefixEnd)});
  return success();
}

/// The operations of a TMTensor region (`{ ^bb0(..): %c = arith.cmpf ..
/// tm_tensor.yield %c : i1 }`): how many values it computes per application
/// (a scatter that overwrites yields its argument: 0).
static unsigned countRegionOps(StringRef region) {
  unsigned count = 0;
  for (size_t i = region.find(" = "); i != StringRef::npos;
       i = region.find(" = ", i + 3)) {
    StringRef rest = region.substr(i + 3).ltrim();
    rest.consume_front("\"");
    size_t word = 0;
    while (word < rest.size() && (llvm::isAlnum(rest[word]) ||
                                  rest[word] == '_' || rest[word] == '.'))
      ++word;
    // `dialect.op`, not an attribute value (`#arith.fastmath<..>`, `2 : i64`).
    if (word > 0 && llvm::isAlpha(rest[0]) &&
        rest.take_front(word).contains('.'))
      ++count;
  }
  return count;
}

/// Checks a tm_tensor.scatter's `dimension_map` (in `attributes`, its
/// attribute dictionary): one distinct dimension of the rank-`rank`
/// original per column of `indices`.
static LogicalResult checkDimensionMap(const Scanner &scanner, size_t at,
                                       StringRef name, StringRef attributes,
                                       RankedTensorType indices, int64_t rank) {
  auto error = [&]() {
    return scanner.error(at) << "cannot upgrade '" << name << "': ";
  };
  size_t key = attributes.find("dimension_map");
  if (key == StringRef::npos)
    return error() << "expected a dimension_map attribute";
  StringRef value =
      attributes.substr(key + StringRef("dimension_map").size()).ltrim();
  if (!value.consume_front("="))
    return error() << "expected a dimension_map attribute";
  value = value.ltrim();
  // `array<i64: 0, 1>` (or a list `[0, 1]`): the integers to its end.
  value.consume_front("array<i64");
  value = value.ltrim();
  value.consume_front(":");
  size_t end = value.find_first_of(">]}");
  StringRef list = value.take_front(end).trim();
  list.consume_front("[");
  SmallVector<StringRef> parts;
  list.split(parts, ',', -1, /*KeepEmpty=*/false);
  SmallVector<int64_t> dims;
  for (StringRef part : parts) {
    int64_t d;
    if (part.trim().getAsInteger(10, d))
      return error() << "expected dimension_map to hold integers, got '"
                     << value.take_front(end) << "'";
    dims.push_back(d);
  }
  std::string written;
  llvm::raw_string_ostream os(written);
  os << "[";
  llvm::interleaveComma(dims, os);
  os << "]";
  int64_t columns = indices.getRank() ? indices.getShape().back() : 1;
  if (int64_t(dims.size()) != columns)
    return error() << "dimension_map = " << written << " has " << dims.size()
                   << " entries for the " << columns
                   << " columns of its indices";
  llvm::SmallDenseSet<int64_t> seen;
  for (int64_t d : dims) {
    if (d < 0 || d >= rank)
      return error() << "dimension_map = " << written << " names dimension "
                     << d << " of a rank-" << rank << " original";
    if (!seen.insert(d).second)
      return error() << "dimension_map = " << written << " names dimension "
                     << d << " twice";
  }
  return success();
}

/// torch-mlir's other TMTensor operations on tensors -- `scan` (cumsum),
/// `scatter` (index_put, scatter, scatter_add/reduce: KV-cache updates),
/// `sort` and `topk` -- have no linalg form: each result becomes a
/// `dsm.opaque` named after the op, reading what the op reads (a scatter's
/// original first, so that re-batching an updated KV cache follows the
/// cache), charged per result element with what the op computes:
/// - scan: its region per element (an addition for cumsum); its
///   accumulator result is a copy (0);
/// - scatter: its region per update, spread over the destination (0 for an
///   overwrite: data movement);
/// - sort: ceil(log2 n) comparisons per element for n along the dimension;
///   the permuted indices are a copy;
/// - topk: n max(1, ceil(log2 k)) comparisons per row (a heap of k) over
///   the k results of the row; the indices are a copy.
/// A result other than the first that nothing reads is not written. The
/// statement is replaced on its lines; uses of `%r#i` in the rest of the
/// function are renamed to the new results (`renames`, keyed by the end of
/// the function and the use, renames them inside a later such statement,
/// which replaces its text whole).
static LogicalResult upgradeTmTensorOther(const Scanner &scanner, size_t at,
                                          StringRef name, MLIRContext *context,
                                          llvm::StringMap<std::string> &renames,
                                          std::vector<Edit> &edits) {
  StringRef text = scanner.text;
  StringRef kind = name.drop_front(StringRef("tm_tensor.").size());
  auto malformed = [&](const Twine &expected) {
    return scanner.error(at)
           << "cannot upgrade '" << name << "': expected " << expected;
  };
  int64_t dimension = -1;
  StringRef attributes;
  SmallVector<StringRef> ins, outs;
  SmallVector<Type> inTypes, outTypes;
  size_t i = at + name.size();
  // The attribute dictionary, dimension(..), inclusive(..),
  // unique_indices(..), ins(..) and outs(..), in the order each op writes
  // them, then the region.
  while (true) {
    i = scanner.skipTrivia(i);
    StringRef rest = text.substr(i);
    if (rest.starts_with("ins") || rest.starts_with("outs")) {
      bool isIns = rest.starts_with("ins");
      if (!parseOperandGroup(scanner, i, isIns ? "ins" : "outs", context,
                             isIns ? ins : outs, isIns ? inTypes : outTypes))
        return malformed("closed operands");
      continue;
    }
    // Before `outs`, `{` opens the attribute dictionary; after, the region.
    if (rest.starts_with("{") && outs.empty()) {
      size_t close = scanner.skipBalanced(i);
      if (close == StringRef::npos)
        return malformed("a closed attribute dictionary");
      attributes = text.slice(i, close);
      i = close;
      continue;
    }
    if (rest.starts_with("dimension") || rest.starts_with("inclusive") ||
        rest.starts_with("unique_indices")) {
      size_t open = text.find('(', i);
      size_t close =
          open == StringRef::npos ? open : scanner.skipBalanced(open);
      if (close == StringRef::npos)
        return malformed("a closed '('");
      if (rest.starts_with("dimension") &&
          text.slice(open + 1, close - 1).trim().getAsInteger(10, dimension))
        return malformed("an integer dimension");
      i = close;
      continue;
    }
    break;
  }
  if (i >= text.size() || text[i] != '{')
    return malformed("its region");
  size_t regionEnd = scanner.skipBalanced(i);
  if (regionEnd == StringRef::npos)
    return malformed("a closed region");
  unsigned regionOps = countRegionOps(text.slice(i, regionEnd));
  size_t after = scanner.skipTrivia(regionEnd);
  if (!text.substr(after).starts_with("->"))
    return malformed("'->' and result types (the op on tensors; on buffers "
                     "it has no results dsm could read)");
  size_t opEnd = scanner.skipTrivia(after + 2);
  for (size_t k = 0; k < outs.size(); ++k) {
    opEnd = scanner.skipType(opEnd);
    if (opEnd == StringRef::npos)
      return malformed("result types");
    if (k + 1 < outs.size()) {
      opEnd = scanner.skipTrivia(opEnd);
      if (opEnd >= text.size() || text[opEnd] != ',')
        return malformed("one result type per 'outs' operand");
      opEnd = scanner.skipTrivia(opEnd + 1);
    }
  }
  auto ranked = [](Type t) {
    auto type = dyn_cast_or_null<RankedTensorType>(t);
    return type && type.hasStaticShape() ? type : RankedTensorType();
  };
  if (outs.empty() || outTypes.size() != outs.size() ||
      inTypes.size() != ins.size() || !llvm::all_of(outTypes, ranked) ||
      !llvm::all_of(inTypes, ranked))
    return malformed("operands and results as static tensors");
  RankedTensorType first = ranked(outTypes[0]);
  int64_t rank = first.getRank();
  auto extentAlong = [&](RankedTensorType type) -> int64_t {
    return dimension >= 0 && dimension < type.getRank()
               ? type.getDimSize(dimension)
               : 1;
  };
  double ops = 0;
  // What the op reads must be there: the upgrade writes opaque ops, which
  // check nothing of it.
  auto notADimension = [&](int64_t of) {
    return scanner.error(at)
           << "cannot upgrade '" << name << "': dimension(" << dimension
           << ") is not a dimension of its rank-" << of << " operands";
  };
  if (kind == "scan") {
    if (ins.size() != 1 || outs.size() != 2)
      return malformed("one input, an output and an accumulator");
    int64_t inRank = ranked(inTypes[0]).getRank();
    if (dimension < 0 || dimension >= inRank)
      return notADimension(inRank);
    ops = regionOps;
  } else if (kind == "scatter") {
    if (ins.size() != 2 || outs.size() != 1)
      return malformed("updates and indices into one original");
    // dimension_map: for each column of the indices, a distinct dimension
    // of the original.
    if (failed(checkDimensionMap(scanner, at, name, attributes,
                                 ranked(inTypes[1]), rank)))
      return failure();
    ops = double(regionOps) * ranked(inTypes[0]).getNumElements() /
          std::max<int64_t>(1, first.getNumElements());
  } else if (kind == "sort") {
    if (dimension < 0 || dimension >= rank)
      return malformed("a dimension of the operands");
    ops = regionOps * std::ceil(std::log2(double(extentAlong(first))));
  } else {
    // topk: n inputs along the dimension, k results.
    if (ins.empty() || outs.size() != 2 || dimension < 0 || dimension >= rank ||
        ranked(inTypes[0]).getRank() != rank)
      return malformed("values (and indices) in, values and indices out, "
                       "along a dimension of them");
    int64_t available = extentAlong(ranked(inTypes[0]));
    if (extentAlong(first) > available)
      return scanner.error(at)
             << "cannot upgrade '" << name << "': it takes the top "
             << extentAlong(first) << " (its results along dimension("
             << dimension << ")) of " << available << " values";
    double n = double(available);
    double k = double(std::max<int64_t>(1, extentAlong(first)));
    ops = regionOps * n * std::max(1.0, std::ceil(std::log2(k))) / k;
  }

  // The results: `%r:2 = ` or `%a, %b = ` (or `%r = ` for one).
  size_t start = statementStart(text, at);
  if (start == at)
    return malformed("results (the op on tensors)");
  StringRef lhs = text.slice(start, at).rtrim().drop_back().rtrim();
  SmallVector<StringRef> names;
  lhs.split(names, ',');
  std::string base;
  if (names.size() == 1 && outs.size() > 1) {
    auto [value, count] = names[0].trim().split(':');
    unsigned n = 0;
    if (count.trim().getAsInteger(10, n) || n != outs.size())
      return malformed("one result per 'outs' operand");
    base = value.trim().str();
  } else if (names.size() != outs.size()) {
    return malformed("one result per 'outs' operand");
  }
  std::string id = "%__dsm_upgrade" + std::to_string(at) + "_";
  size_t scopeEnd = text.find("func.func", opEnd);
  if (scopeEnd == StringRef::npos)
    scopeEnd = text.size();
  auto renamed = [&](StringRef value) -> std::string {
    auto it = renames.find(std::to_string(scopeEnd) + "/" + value.str());
    return it == renames.end() ? value.str() : it->second;
  };
  // Uses of each result (`%r#k`, or its own name) up to the next function
  // (the scope of SSA names).
  Scanner scope(text.slice(0, scopeEnd), "", context);
  auto usesOf = [&](StringRef value) {
    std::vector<size_t> uses;
    for (size_t u : scope.findOperation(value, /*quoted=*/false))
      if (u >= opEnd)
        uses.push_back(u);
    return uses;
  };
  std::string replacement;
  llvm::raw_string_ostream os(replacement);
  for (size_t k = 0; k < outs.size(); ++k) {
    std::string use =
        base.empty() ? names[k].trim().str() : base + "#" + std::to_string(k);
    std::string result = base.empty() ? use : id + "r" + std::to_string(k);
    std::vector<size_t> uses = usesOf(use);
    if (!base.empty()) {
      renames[std::to_string(scopeEnd) + "/" + use] = result;
      for (size_t u : uses)
        edits.push_back({u, use.size(), result});
    }
    // A by-product nothing reads (scan's accumulator beside a cumsum, the
    // indices of a sort of values) is not written.
    if (k > 0 && uses.empty())
      continue;
    // A scatter reads the original, then updates and indices; a sort the
    // key it writes, then the others it permutes along; scan and topk their
    // inputs, then the initial values they start from.
    SmallVector<std::string> operands;
    SmallVector<Type> types;
    auto read = [&](StringRef value, Type type) {
      operands.push_back(renamed(value));
      types.push_back(type);
    };
    if (kind == "scatter" || kind == "sort")
      read(outs[k], outTypes[k]);
    if (kind == "sort") {
      for (size_t j = 0; j < outs.size(); ++j)
        if (j != k)
          read(outs[j], outTypes[j]);
    } else {
      for (auto [in, type] : llvm::zip(ins, inTypes))
        read(in, type);
    }
    if (kind == "scan" || kind == "topk")
      read(outs[k], outTypes[k]);
    os << result << " = dsm.opaque \"" << name << "\"(";
    llvm::interleaveComma(operands, os);
    os << ") {ops_per_element = " << llvm::format("%.9e", k == 0 ? ops : 0.0)
       << " : f64} : (";
    llvm::interleaveComma(types, os);
    os << ") -> " << outTypes[k] << " ";
  }
  // Keep the statement's lines.
  replacement += std::string(text.slice(start, opEnd).count('\n'), '\n');
  edits.push_back({start, opEnd - start, replacement});
  return success();
}

/// The indexing maps of the transposed matmul named ops MLIR 22 no longer
/// has: `linalg.batch_matmul_transpose_b ins(..)` is `linalg.batch_matmul
/// indexing_maps = [..] ins(..)` (what its C++ morphism builds).
static const struct {
  StringLiteral name, spelledAs, maps;
} kTransposedMatmuls[] = {
    {"linalg.matmul_transpose_a", "linalg.matmul",
     "[affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, "
     "d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]"},
    {"linalg.matmul_transpose_b", "linalg.matmul",
     "[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, "
     "d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]"},
    {"linalg.batch_matmul_transpose_a", "linalg.batch_matmul",
     "[affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>, affine_map<(d0, d1, d2, "
     "d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]"},
    {"linalg.batch_matmul_transpose_b", "linalg.batch_matmul",
     "[affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, "
     "d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]"},
};

/// Operations upstream renamed without changing their syntax (MLIR 18:
/// `arith.maxf`/`minf` became `maximumf`/`minimumf`, same NaN semantics).
static const struct {
  StringLiteral name, spelledAs;
} kRenamedOps[] = {
    {"arith.maxf", "arith.maximumf"},
    {"arith.minf", "arith.minimumf"},
};

FailureOr<std::string> dsm::upgradeMlirText(StringRef text,
                                            StringRef bufferName,
                                            MLIRContext *context,
                                            unsigned *upgrades) {
  Scanner scanner(text, bufferName, context);
  std::vector<Edit> edits;
  for (StringRef name : {"tensor.expand_shape", "memref.expand_shape"})
    for (size_t at : scanner.findOperation(name, /*quoted=*/false))
      if (failed(upgradeExpandShape(scanner, at, name, context, edits)))
        return failure();
  for (size_t at : scanner.findOperation("tosa.const", /*quoted=*/true))
    upgradeTosaConst(scanner, at, edits);
  for (const AttributeToOperand &what : kAttributesToOperands)
    for (bool quoted : {false, true})
      for (size_t at : scanner.findOperation(what.op, quoted))
        if (failed(upgradeAttributeToOperand(scanner, at, what, quoted, edits)))
          return failure();
  for (size_t at : scanner.findOperation("tm_tensor.attention", false))
    if (failed(upgradeTmTensorAttention(scanner, at, context, edits)))
      return failure();
  // In the order they are written, so that renamed results are known to
  // the statements that read them.
  std::vector<std::pair<size_t, StringRef>> tmTensorOps;
  for (StringRef name : {"tm_tensor.scan", "tm_tensor.scatter",
                         "tm_tensor.sort", "tm_tensor.topk"})
    for (size_t at : scanner.findOperation(name, false))
      tmTensorOps.push_back({at, name});
  llvm::sort(tmTensorOps);
  llvm::StringMap<std::string> renames;
  for (auto [at, name] : tmTensorOps)
    if (failed(
            upgradeTmTensorOther(scanner, at, name, context, renames, edits)))
      return failure();
  // The custom form only: the generic form spells out its region.
  for (const auto &matmul : kTransposedMatmuls)
    for (size_t at : scanner.findOperation(matmul.name, /*quoted=*/false))
      edits.push_back(
          {at, matmul.name.size(),
           (matmul.spelledAs + " indexing_maps = " + matmul.maps).str()});

  // Renamed operations, custom and generic form (after the quote).
  for (const auto &renamed : kRenamedOps) {
    for (size_t at : scanner.findOperation(renamed.name, /*quoted=*/false))
      edits.push_back({at, renamed.name.size(), renamed.spelledAs.str()});
    for (size_t at : scanner.findOperation(renamed.name, /*quoted=*/true))
      edits.push_back({at + 1, renamed.name.size(), renamed.spelledAs.str()});
  }

  llvm::sort(edits,
             [](const Edit &a, const Edit &b) { return a.offset < b.offset; });
  std::string result;
  size_t from = 0;
  for (const Edit &edit : edits) {
    // A rename inside a statement replaced whole (a TMTensor op reading
    // another's results) is in its replacement already.
    if (edit.offset < from)
      continue;
    result += text.slice(from, edit.offset);
    result += edit.text;
    from = edit.offset + edit.length;
  }
  result += text.substr(from);
  if (upgrades)
    *upgrades = edits.size();
  return result;
}

bool dsm::hasOlderMlirSpellings(StringRef text, MLIRContext *context) {
  ScopedDiagnosticHandler quiet(context, [](Diagnostic &) {});
  unsigned upgrades = 0;
  FailureOr<std::string> upgraded =
      upgradeMlirText(text, "", context, &upgrades);
  return failed(upgraded) || upgrades > 0;
}

void dsm::registerUpgradeMlirTranslation() {
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  TranslateRegistration registration(
      "upgrade-mlir",
      "rewrite MLIR written before the current syntax (expand_shape without "
      "output_shape, tosa.const value, tosa.mul shift, tosa.reshape "
      "new_shape and tosa.slice start/size attributes, "
      "linalg.*matmul_transpose_a/b, arith.maxf/minf, "
      "torch-mlir's tm_tensor ops) into it",
      [](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
         llvm::raw_ostream &output, MLIRContext *context) -> LogicalResult {
        const llvm::MemoryBuffer *buffer =
            sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID());
        StringRef name = buffer->getBufferIdentifier();
        if (failed(screenMlirText(*buffer, context)))
          return failure();
        FailureOr<std::string> upgraded =
            upgradeMlirText(buffer->getBuffer(), name, context);
        if (failed(upgraded))
          return failure();
        // The upgraded file must parse, with the dialects models arrive in;
        // its lines are the original's, so errors point into the input.
        DialectRegistry registry;
        registerImportDialects(registry);
        context->appendDialectRegistry(registry);
        llvm::SourceMgr check;
        check.AddNewSourceBuffer(
            llvm::MemoryBuffer::getMemBuffer(*upgraded, name), llvm::SMLoc());
        // An error left is in a spelling the step does not know: say so,
        // then let the driver report it.
        ScopedDiagnosticHandler explain(context, [](Diagnostic &diag) {
          if (diag.getSeverity() == DiagnosticSeverity::Error)
            diag.attachNote()
                << "--upgrade-mlir rewrites expand_shape without output_shape, "
                   "tosa.const with value, the transposed linalg matmuls and "
                   "arith.maxf/minf; this spelling is not one of them (nor "
                   "tosa.mul's shift, tosa.reshape's new_shape or "
                   "tosa.slice's start and size attributes, "
                   "nor torch-mlir's tm_tensor attention, scan, scatter, sort "
                   "and topk, which it also rewrites)";
          return failure();
        });
        if (!parseSourceFile<ModuleOp>(check, ParserConfig(context)))
          return failure();
        output << *upgraded;
        return success();
      });
}

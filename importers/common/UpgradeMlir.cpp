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
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

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
  while (i < text.size() && !llvm::isSpace(text[i]) && text[i] != '[')
    ++i;
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
  if (!shaped.hasStaticShape())
    return scanner.error(at)
           << "cannot upgrade '" << name << "' to " << resultText
           << ": a dynamic result dimension needs its size as an SSA value "
              "in output_shape; write it by hand (output_shape [%d0, 4, ..])";
  std::string shape;
  llvm::raw_string_ostream os(shape);
  os << " output_shape [";
  llvm::interleaveComma(shaped.getShape(), os);
  os << "]";
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
      "output_shape, tosa.const value, linalg.*matmul_transpose_a/b, "
      "arith.maxf/minf) into it",
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
                   "arith.maxf/minf; "
                   "this spelling is not one of them";
          return failure();
        });
        if (!parseSourceFile<ModuleOp>(check, ParserConfig(context)))
          return failure();
        output << *upgraded;
        return success();
      });
}

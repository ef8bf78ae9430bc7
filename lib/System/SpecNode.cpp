//===- SpecNode.cpp - Located YAML/JSON configuration trees ---------------===//

#include "dsm/Core/System/SpecNode.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/raw_ostream.h"

using namespace dsm::core;

char SpecError::ID;

std::string SpecLocation::str() const {
  std::string s = file.empty() ? "<unknown>" : file;
  if (line != 0)
    s += ":" + std::to_string(line) + ":" + std::to_string(column);
  return s;
}

void SpecError::log(llvm::raw_ostream &os) const {
  os << loc.str() << ": " << message;
}

std::error_code SpecError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

SpecNode SpecNode::scalar(std::string value, SpecLocation loc, bool quoted) {
  SpecNode node(Kind::Scalar, std::move(loc));
  node.value = std::move(value);
  node.quoted = quoted;
  return node;
}

SpecNode SpecNode::mapping(SpecLocation loc) {
  return SpecNode(Kind::Mapping, std::move(loc));
}

SpecNode SpecNode::sequence(SpecLocation loc) {
  return SpecNode(Kind::Sequence, std::move(loc));
}

const SpecNode *SpecNode::lookup(llvm::StringRef key) const {
  for (const Entry &entry : entries)
    if (entry.key == key)
      return &entry.value;
  return nullptr;
}

SpecNode &SpecNode::add(std::string key, SpecNode value, SpecLocation keyLoc) {
  entries.push_back(Entry{std::move(key), std::move(keyLoc), std::move(value)});
  return entries.back().value;
}

SpecNode &SpecNode::append(SpecNode item) {
  items.push_back(std::move(item));
  return items.back();
}

namespace {
/// Converts llvm::yaml nodes into SpecNodes, recording the first error.
class TreeBuilder {
public:
  TreeBuilder(llvm::SourceMgr &sourceMgr, llvm::StringRef fileName)
      : sourceMgr(sourceMgr), fileName(fileName) {}

  SpecLocation locate(llvm::SMLoc loc) const {
    SpecLocation result;
    result.file = fileName.str();
    if (loc.isValid()) {
      auto [line, column] = sourceMgr.getLineAndColumn(loc);
      result.line = line;
      result.column = column;
    }
    return result;
  }

  llvm::Expected<SpecNode> build(llvm::yaml::Node *node, int depth = 0) {
    if (!node)
      return llvm::make_error<SpecError>(locate({}), "empty document");
    SpecLocation loc = locate(node->getSourceRange().Start);
    // The YAML parser descends lazily, as this builder does: stopping here
    // bounds the recursion of both (a file nested 20,000 deep must be an
    // error, not a stack overflow).
    if (depth > kMaxSpecDepth)
      return llvm::make_error<SpecError>(
          loc,
          "nested deeper than " + std::to_string(kMaxSpecDepth) + " levels");
    if (!node->getRawTag().empty() && node->getRawTag() != "!")
      return llvm::make_error<SpecError>(loc, "YAML tags are not supported");

    switch (node->getType()) {
    case llvm::yaml::Node::NK_Scalar: {
      llvm::SmallString<64> storage;
      auto *scalarNode = llvm::cast<llvm::yaml::ScalarNode>(node);
      llvm::StringRef text = scalarNode->getValue(storage);
      llvm::StringRef raw = scalarNode->getRawValue();
      bool quoted = raw.starts_with("\"") || raw.starts_with("'");
      return SpecNode::scalar(text.str(), loc, quoted);
    }
    case llvm::yaml::Node::NK_BlockScalar:
      return SpecNode::scalar(
          llvm::cast<llvm::yaml::BlockScalarNode>(node)->getValue().str(), loc,
          /*quoted=*/true);
    case llvm::yaml::Node::NK_Null:
      return SpecNode::scalar("", loc);
    case llvm::yaml::Node::NK_Mapping: {
      SpecNode result = SpecNode::mapping(loc);
      for (llvm::yaml::KeyValueNode &kv :
           *llvm::cast<llvm::yaml::MappingNode>(node)) {
        auto *keyNode =
            llvm::dyn_cast_or_null<llvm::yaml::ScalarNode>(kv.getKey());
        if (!keyNode)
          return llvm::make_error<SpecError>(locate(kv.getSourceRange().Start),
                                             "mapping keys must be scalars");
        llvm::SmallString<32> keyStorage;
        std::string key = keyNode->getValue(keyStorage).str();
        SpecLocation keyLoc = locate(keyNode->getSourceRange().Start);
        if (result.lookup(key))
          return llvm::make_error<SpecError>(keyLoc,
                                             "duplicate field '" + key + "'");
        llvm::Expected<SpecNode> value = build(kv.getValue(), depth + 1);
        if (!value)
          return value.takeError();
        result.add(std::move(key), std::move(*value), std::move(keyLoc));
      }
      return result;
    }
    case llvm::yaml::Node::NK_Sequence: {
      SpecNode result = SpecNode::sequence(loc);
      for (llvm::yaml::Node &item :
           *llvm::cast<llvm::yaml::SequenceNode>(node)) {
        llvm::Expected<SpecNode> value = build(&item, depth + 1);
        if (!value)
          return value.takeError();
        result.append(std::move(*value));
      }
      return result;
    }
    case llvm::yaml::Node::NK_Alias:
      return llvm::make_error<SpecError>(loc, "YAML aliases are not supported");
    case llvm::yaml::Node::NK_KeyValue:
      break;
    }
    return llvm::make_error<SpecError>(loc, "unexpected YAML node");
  }

private:
  llvm::SourceMgr &sourceMgr;
  llvm::StringRef fileName;
};
} // namespace

/// The offset of the second ',' of the first empty entry in a flow
/// collection ("[a,,b]", "{a: 1,,}"), or npos. YAML and JSON forbid empty
/// entries, and llvm::yaml recurses once per consecutive ',', so a long run
/// of them would overflow the stack before any error is reported: they are
/// rejected before parsing. Outside flow collections (a block scalar such as
/// "name: a,,b") commas are text.
static size_t findEmptyFlowEntry(llvm::StringRef text) {
  int flowDepth = 0;
  char quote = 0; // inside a '...' or "..." scalar
  bool lastWasComma = false;
  char previous = '\n'; // the last character that is not a space
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote) {
      if (c == '\\' && quote == '"')
        ++i; // an escaped character
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r')
      continue;
    if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t' ||
                     text[i - 1] == '\n')) {
      size_t end = text.find('\n', i);
      i = end == llvm::StringRef::npos ? text.size() : end - 1;
      continue;
    }
    if (c == '\n') {
      previous = c;
      continue;
    }
    // A scalar starts after an indicator: only there does a quote open
    // one. A collection opens there too, after a tag or an anchor (a
    // space), or anywhere inside another; elsewhere '[' is text.
    bool valueStart = llvm::StringRef(":-,[{?\n").contains(previous);
    bool afterSpace = i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t');
    if ((c == '[' || c == '{') && (valueStart || afterSpace || flowDepth > 0)) {
      ++flowDepth;
    } else if ((c == ']' || c == '}') && flowDepth > 0) {
      --flowDepth;
    } else if ((c == '"' || c == '\'') && valueStart) {
      quote = c;
    } else if (c == ',' && flowDepth > 0) {
      if (lastWasComma)
        return i;
      lastWasComma = true;
      previous = c;
      continue;
    }
    lastWasComma = false;
    previous = c;
  }
  return llvm::StringRef::npos;
}

/// The offset of a ',' that follows kMaxCommaRun others separated only by
/// spaces and comments, wherever they are, or npos: whatever the context,
/// llvm::yaml must never see such a run (see findEmptyFlowEntry).
static size_t findCommaRun(llvm::StringRef text) {
  constexpr int kMaxCommaRun = 64;
  int run = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t' ||
                     text[i - 1] == '\n')) {
      size_t end = text.find('\n', i);
      i = end == llvm::StringRef::npos ? text.size() : end;
      continue;
    }
    if (c == ',') {
      if (++run > kMaxCommaRun)
        return i;
    } else if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
      run = 0;
    }
  }
  return llvm::StringRef::npos;
}

llvm::Expected<SpecNode> dsm::core::parseSpec(llvm::StringRef text,
                                              llvm::StringRef fileName) {
  // Commas llvm::yaml must not see (it recurses once per ',').
  const char *why = "empty entry in a flow collection (',' after ',')";
  size_t at = findEmptyFlowEntry(text);
  if (at == llvm::StringRef::npos) {
    why = "more than 64 ',' in a row";
    at = findCommaRun(text);
  }
  if (at != llvm::StringRef::npos) {
    SpecLocation loc;
    loc.file = fileName.str();
    llvm::StringRef before = text.take_front(at);
    loc.line = unsigned(before.count('\n') + 1);
    size_t lineStart = before.rfind('\n');
    loc.column = unsigned(
        at - (lineStart == llvm::StringRef::npos ? 0 : lineStart + 1) + 1);
    return llvm::make_error<SpecError>(loc, why);
  }
  llvm::SourceMgr sourceMgr;
  // Syntax errors arrive through the diagnostic handler; keep the first one.
  struct FirstError {
    std::optional<SpecLocation> loc;
    std::string message;
  } firstError;
  sourceMgr.setDiagHandler(
      [](const llvm::SMDiagnostic &diag, void *context) {
        auto *first = static_cast<FirstError *>(context);
        if (first->loc)
          return;
        SpecLocation loc;
        loc.file = diag.getFilename().str();
        loc.line = diag.getLineNo() > 0 ? diag.getLineNo() : 0;
        loc.column = diag.getColumnNo() >= 0 ? diag.getColumnNo() + 1 : 0;
        first->loc = loc;
        first->message = diag.getMessage().str();
      },
      &firstError);

  llvm::yaml::Stream stream(llvm::MemoryBufferRef(text, fileName), sourceMgr,
                            /*ShowColors=*/false);
  TreeBuilder builder(sourceMgr, fileName);

  llvm::Expected<SpecNode> tree =
      llvm::make_error<SpecError>(builder.locate({}), "empty document");
  auto document = stream.begin();
  if (document != stream.end() &&
      !llvm::isa_and_nonnull<llvm::yaml::NullNode>(document->getRoot())) {
    llvm::consumeError(tree.takeError());
    tree = builder.build(document->getRoot());
    if (tree && !stream.failed() && ++document != stream.end()) {
      llvm::yaml::Node *extra = document->getRoot();
      tree = llvm::make_error<SpecError>(
          builder.locate(extra ? extra->getSourceRange().Start : llvm::SMLoc()),
          "a system description must be a single YAML document");
    }
  }
  // A syntax error explains more than whatever the tree builder saw after it.
  if (firstError.loc) {
    if (!tree)
      llvm::consumeError(tree.takeError());
    SpecLocation loc = *firstError.loc;
    loc.file = fileName.str();
    return llvm::make_error<SpecError>(loc, firstError.message);
  }
  return tree;
}

static bool isLeafMapping(const SpecNode &node) {
  if (!node.isMapping())
    return false;
  for (const SpecNode::Entry &entry : node.getEntries())
    if (!entry.value.isScalar())
      return false;
  return node.getEntries().size() <= 6;
}

static void printScalar(llvm::StringRef text, llvm::raw_ostream &os) {
  bool plain =
      !text.empty() &&
      text.find_first_of(":{}[],#&*!|>'\"%@`\n") == llvm::StringRef::npos &&
      text.front() != ' ' && text.back() != ' ' && text.front() != '-';
  if (plain) {
    os << text;
    return;
  }
  os << '"';
  for (char c : text) {
    if (c == '"' || c == '\\')
      os << '\\';
    if (c == '\n') {
      os << "\\n";
      continue;
    }
    os << c;
  }
  os << '"';
}

static void printFlow(const SpecNode &node, llvm::raw_ostream &os) {
  if (node.isScalar()) {
    printScalar(node.getScalar(), os);
    return;
  }
  if (node.isSequence()) {
    os << '[';
    llvm::ListSeparator sep;
    for (const SpecNode &item : node.getItems()) {
      os << sep;
      printFlow(item, os);
    }
    os << ']';
    return;
  }
  os << '{';
  llvm::ListSeparator sep;
  for (const SpecNode::Entry &entry : node.getEntries()) {
    os << sep << entry.key << ": ";
    printFlow(entry.value, os);
  }
  os << '}';
}

static void printBlock(const SpecNode &node, unsigned indent,
                       llvm::raw_ostream &os) {
  for (const SpecNode::Entry &entry : node.getEntries()) {
    os.indent(indent) << entry.key << ':';
    const SpecNode &value = entry.value;
    if (value.isScalar() || isLeafMapping(value)) {
      os << ' ';
      printFlow(value, os);
      os << '\n';
    } else if (value.isSequence()) {
      os << '\n';
      for (const SpecNode &item : value.getItems()) {
        os.indent(indent + 2) << "- ";
        printFlow(item, os);
        os << '\n';
      }
    } else {
      os << '\n';
      printBlock(value, indent + 2, os);
    }
  }
}

void dsm::core::printSpec(const SpecNode &node, llvm::raw_ostream &os) {
  if (node.isMapping()) {
    printBlock(node, 0, os);
    return;
  }
  printFlow(node, os);
  os << '\n';
}

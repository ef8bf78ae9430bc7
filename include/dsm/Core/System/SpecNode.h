//===- SpecNode.h - Located YAML/JSON configuration trees -------*- C++ -*-===//
//
// System descriptions are written in YAML (JSON is accepted too: it is a subset
// LLVM's YAML parser reads). They are parsed once into this small owned tree
// that remembers where every node came from, so that every later check -- a
// missing field, a zero bandwidth, a torus that does not match the chip count
// -- can name the file, the line and the field.
//
// The same tree is produced from the `#dsm.system` attribute stored in the IR,
// so one reader validates both sources.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SYSTEM_SPECNODE_H
#define DSM_CORE_SYSTEM_SPECNODE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>
#include <vector>

namespace dsm::core {

/// Where a node was written. `line` and `column` are 1-based; 0 means unknown
/// (e.g. a tree built in memory).
struct SpecLocation {
  std::string file;
  unsigned line = 0;
  unsigned column = 0;

  std::string str() const;
};

/// One node of a configuration tree: a scalar, a mapping or a sequence.
class SpecNode {
public:
  enum class Kind { Scalar, Mapping, Sequence };

  struct Entry;

  /// A scalar; `quoted` when the text was written in quotes (YAML, JSON), so
  /// that a string field can tell "-4" from the number -4.
  static SpecNode scalar(std::string value, SpecLocation loc = {},
                         bool quoted = false);
  static SpecNode mapping(SpecLocation loc = {});
  static SpecNode sequence(SpecLocation loc = {});

  Kind getKind() const { return kind; }
  bool isScalar() const { return kind == Kind::Scalar; }
  bool isMapping() const { return kind == Kind::Mapping; }
  bool isSequence() const { return kind == Kind::Sequence; }
  const SpecLocation &getLocation() const { return loc; }

  /// Scalar text (only meaningful for scalars).
  llvm::StringRef getScalar() const { return value; }
  /// Whether the scalar was written in quotes.
  bool isQuoted() const { return quoted; }
  /// Mapping entries in file order.
  const std::vector<Entry> &getEntries() const { return entries; }
  /// Sequence items in file order.
  const std::vector<SpecNode> &getItems() const { return items; }

  /// The value stored under `key`, or null.
  const SpecNode *lookup(llvm::StringRef key) const;

  /// Builders for in-memory trees.
  SpecNode &add(std::string key, SpecNode value, SpecLocation keyLoc = {});
  SpecNode &append(SpecNode item);

private:
  SpecNode(Kind kind, SpecLocation loc) : kind(kind), loc(std::move(loc)) {}

  Kind kind;
  SpecLocation loc;
  std::string value;
  bool quoted = false;
  std::vector<Entry> entries;
  std::vector<SpecNode> items;
};

struct SpecNode::Entry {
  std::string key;
  SpecLocation keyLocation;
  SpecNode value;
};

/// An error located in a configuration source.
class SpecError : public llvm::ErrorInfo<SpecError> {
public:
  static char ID;
  SpecError(SpecLocation loc, std::string message)
      : loc(std::move(loc)), message(std::move(message)) {}

  const SpecLocation &getLocation() const { return loc; }
  llvm::StringRef getMessage() const { return message; }

  /// "file:line:col: message".
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;

private:
  SpecLocation loc;
  std::string message;
};

/// A located warning: the description is read, but probably not as meant.
struct SpecWarning {
  SpecLocation loc;
  std::string message;
};

/// How deep a description may nest. Real ones nest four levels; the bound
/// keeps a hostile file from exhausting the stack.
constexpr int kMaxSpecDepth = 32;

/// Parses YAML or JSON text into a located tree. `fileName` is used in
/// locations and messages. Anchors, aliases, tags and multi-document streams
/// are rejected: a system description is one plain document.
llvm::Expected<SpecNode> parseSpec(llvm::StringRef text,
                                   llvm::StringRef fileName);

/// Prints a tree as YAML (flow style for leaf mappings), for
/// `--dsm-dump-system` style output and tests.
void printSpec(const SpecNode &node, llvm::raw_ostream &os);

} // namespace dsm::core

#endif // DSM_CORE_SYSTEM_SPECNODE_H

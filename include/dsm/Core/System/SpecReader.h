//===- SpecReader.h - Typed, validated reads from a SpecNode ----*- C++ -*-===//
//
// Reading a configuration tree field by field, with every problem collected as
// a located SpecError naming the field's dotted path ("chip.cores"). A reader
// returns std::nullopt for a field it could not read and carries on, so one
// run reports all the mistakes in a file, not only the first.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SYSTEM_SPECREADER_H
#define DSM_CORE_SYSTEM_SPECREADER_H

#include "dsm/Core/System/Quantity.h"
#include "dsm/Core/System/SpecNode.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dsm::core {

/// Collects located errors and warnings.
class SpecDiagnostics {
public:
  void report(const SpecLocation &loc, std::string message);
  void warn(const SpecLocation &loc, std::string message);
  bool failed() const { return !errors.empty(); }
  /// All collected errors joined into one llvm::Error (success if none).
  llvm::Error takeErrors();
  std::vector<SpecWarning> takeWarnings() { return std::move(warnings); }

private:
  std::vector<std::pair<SpecLocation, std::string>> errors;
  std::vector<SpecWarning> warnings;
};

/// The largest integer a description may hold (chips, cores, PE rows, MACs,
/// ids): 2^24. Products of two or three of them stay far inside 64 bits.
constexpr int64_t kMaxSpecInteger = int64_t(1) << 24;
/// The largest magnitude of a quantity in base units (1e21: a zettabyte, a
/// zettabyte per second, a zettahertz); larger is a typo or an attack.
constexpr double kMaxSpecQuantity = 1e21;

/// Constraint on a numeric field.
enum class Bound { Any, NonNegative, Positive, Fraction /* in (0, 1] */ };

/// Reads the fields of one mapping node.
class SpecMapReader {
public:
  /// `path` is the dotted path of `node` ("" for the root). Reports an error if
  /// `node` is not a mapping.
  SpecMapReader(const SpecNode &node, std::string path, SpecDiagnostics &diags);

  bool isValid() const { return valid; }
  const SpecNode &getNode() const { return node; }
  std::string fieldPath(llvm::StringRef key) const;

  /// True if the mapping has `key` (does not mark it as read).
  bool has(llvm::StringRef key) const { return node.lookup(key) != nullptr; }

  /// A nested mapping; reports a missing field if required.
  std::optional<SpecMapReader> map(llvm::StringRef key, bool required = true);
  /// A nested sequence; reports a missing field if required.
  const SpecNode *sequence(llvm::StringRef key, bool required = true);

  std::optional<int64_t> integer(llvm::StringRef key, int64_t min,
                                 std::optional<int64_t> defaultValue = {});
  /// A quantity of `kind` with an optional unit, in base units, within its
  /// plausible range (Quantity.h). A bare non-zero number read from a file
  /// (a node with a line) gets a warning naming the unit it was read in: a
  /// unit left out is the usual mistake (`bandwidth: 256` is 256 B/s). The
  /// stored form, built in memory, is in base units and gets none.
  std::optional<double> quantity(llvm::StringRef key, QuantityKind kind,
                                 Bound bound,
                                 std::optional<double> defaultValue = {});
  /// A bare number in a format's fixed unit of `unitScale` base units
  /// (`unitName`: Exprimo's MHz, GB/s), scaled, then checked as `kind` in
  /// base units. `defaultValue` is in the fixed unit.
  std::optional<double> scaledNumber(llvm::StringRef key, QuantityKind kind,
                                     double unitScale, llvm::StringRef unitName,
                                     Bound bound,
                                     std::optional<double> defaultValue = {});
  std::optional<std::string>
  string(llvm::StringRef key, std::optional<std::string> defaultValue = {});

  /// One of a fixed set of names.
  template <typename T>
  std::optional<T>
  choice(llvm::StringRef key,
         llvm::ArrayRef<std::pair<llvm::StringLiteral, T>> choices,
         std::optional<T> defaultValue = {}) {
    std::vector<llvm::StringRef> names;
    for (const auto &c : choices)
      names.push_back(c.first);
    std::optional<size_t> index =
        choiceIndex(key, names, defaultValue.has_value());
    if (!index)
      return defaultValue;
    if (*index == names.size())
      return std::nullopt;
    return choices[*index].second;
  }

  /// Reports a located error for `key` (or the mapping itself if absent).
  void error(llvm::StringRef key, const std::string &message);
  /// Marks `key` as read without reading it: a field already reported as
  /// misplaced is not reported again as unknown.
  void skip(llvm::StringRef key) { read.insert(key); }

  /// Reports every field that was not read: a typo must not silently fall back
  /// to a default.
  void finish();

private:
  const SpecNode *take(llvm::StringRef key, bool required);
  /// Checks `result`, read from `value` as `written`, against `bound` and
  /// the plausible range of `kind`.
  std::optional<double> checkQuantity(const SpecNode &value,
                                      llvm::StringRef key, double result,
                                      QuantityKind kind, Bound bound,
                                      const std::string &written);
  /// Index of the chosen name; names.size() if invalid (already reported);
  /// nullopt if absent and optional.
  std::optional<size_t> choiceIndex(llvm::StringRef key,
                                    llvm::ArrayRef<llvm::StringRef> names,
                                    bool optional);
  const SpecLocation &keyLocation(llvm::StringRef key) const;

  const SpecNode &node;
  std::string path;
  SpecDiagnostics &diags;
  llvm::StringSet<> read;
  bool valid;
};

} // namespace dsm::core

#endif // DSM_CORE_SYSTEM_SPECREADER_H

//===- ImportSummary.h - The front ends' options and accounts ---*- C++ -*-===//
//
// What all front ends share at their edges, whatever they read (linalg and
// TOSA through the MLIR import passes, ONNX protobufs through
// dsm-translate --import-onnx): one set of options and one summary, printed
// in one format, that accounts for every source operation so that nothing
// is silently lost.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_IMPORT_IMPORTSUMMARY_H
#define DSM_IMPORT_IMPORTSUMMARY_H

#include "mlir/IR/Location.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dsm {

/// What a front end does with an operation it cannot express in dsm.
enum class ImportMode {
  Strict,     ///< a located error naming it stops the import
  Permissive, ///< it is kept as dsm.opaque, charged by its element count
};

/// Options every front end takes: the import passes' options
/// (include/dsm/Import/Passes.td) and the --onnx-* flags of --import-onnx.
struct ImportOptions {
  ImportMode mode = ImportMode::Strict;
  /// Where to write the summary: "" for nowhere, "-" for stdout.
  std::string summary;
  /// Size given to a dynamic batch dimension (dimension 0 of an input);
  /// 0: dynamic shapes are errors.
  int64_t batch = 0;
  /// Sizes of named dynamic dimensions (ONNX `dim_param`, e.g. {"seq",
  /// 128}); they take precedence over `batch`.
  std::map<std::string, int64_t> dims;

  /// A located error for an option out of range.
  llvm::LogicalResult verify(mlir::Location loc) const;
};

/// What an import did: per imported function (an ONNX graph is one), how
/// many source operations of each kind became what, which fusion patterns
/// were recognised, and which operations were kept as charged dsm.opaque.
class ImportSummary {
public:
  enum class Outcome {
    Imported, ///< became dsm operations
    Fused,    ///< absorbed into a recognised pattern or chain
    Folded,   ///< computed statically, or folded into another op's attribute
    Dropped,  ///< carries no work (views passed through, runtime checks)
    Opaque,   ///< kept as dsm.opaque, charged by element count
  };
  static constexpr int kNumOutcomes = 5;

  /// Source operations of one kind, or matches of one pattern.
  struct Row {
    int64_t count = 0;
    std::array<int64_t, kNumOutcomes> outcomes{};
    /// What they became: dsm operation names, or what they were fused or
    /// folded into ("into dsm.softmax").
    std::map<std::string, int64_t> results;
  };
  struct Opaque {
    std::string location, origin, reason;
    double opsPerElement = 0;
    int64_t elements = 0;
  };
  /// One imported function.
  struct Unit {
    std::string name;
    int64_t dsmOps = 0;
    std::map<std::string, Row> sources;
    std::map<std::string, Row> patterns;
    std::vector<Opaque> opaque;

    /// One source operation of `kind`, and what it became (may be empty).
    void addSource(llvm::StringRef kind, Outcome outcome,
                   llvm::StringRef result = {});
    void addPatternMatch(llvm::StringRef pattern);
    /// One dsm operation imported from `origin`: a pattern when one of that
    /// name was matched, else a source kind.
    void addResult(llvm::StringRef origin, llvm::StringRef dsmOp);
    void addOpaque(Opaque entry) { opaque.push_back(std::move(entry)); }

    int64_t getSourceCount() const;
    int64_t getCount(Outcome outcome) const;
  };

  ImportSummary(llvm::StringRef frontEnd, ImportMode mode)
      : frontEnd(frontEnd.str()), mode(mode) {}

  /// What was read ("bert.onnx (producer 'pytorch 1.13', opset 14)").
  void setInput(llvm::StringRef description) { input = description.str(); }
  /// Starts the account of a function. The reference stays valid until the
  /// next call.
  Unit &addUnit(llvm::StringRef name);
  const std::vector<Unit> &getUnits() const { return units; }

  /// A plain-text report (stable format; tests check it).
  void print(llvm::raw_ostream &os) const;
  /// Writes the report to `path` as every report is written ("" nowhere,
  /// "-" stdout); errors located at `loc`.
  llvm::LogicalResult write(llvm::StringRef path, mlir::Location loc) const;

private:
  std::string frontEnd;
  ImportMode mode;
  std::string input;
  std::vector<Unit> units;
};

} // namespace dsm

#endif // DSM_IMPORT_IMPORTSUMMARY_H

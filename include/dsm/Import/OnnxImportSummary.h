//===- OnnxImportSummary.h - What an ONNX import did ------------*- C++ -*-===//
//
// Accounts for every node of an imported ONNX graph, so that nothing is
// silently lost: per op type, how many nodes were imported as dsm operations
// (and as which), fused into a recognized pattern, folded statically (shape
// subgraphs, constants), dropped (Identity, inference-mode Dropout) or kept
// as `dsm.opaque`; per recognized pattern, what it became.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_IMPORT_ONNXIMPORTSUMMARY_H
#define DSM_IMPORT_ONNXIMPORTSUMMARY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dsm {

class OnnxImportSummary {
public:
  enum class Outcome { Imported, Fused, Folded, Dropped, Opaque };
  static constexpr int kNumOutcomes = 5;

  /// Nodes of one op type, or matches of one pattern.
  struct Row {
    int64_t count = 0;
    std::array<int64_t, kNumOutcomes> outcomes{};
    /// dsm operations (after dead-code removal) by name.
    std::map<std::string, int64_t> produced;
  };
  struct OpaqueNode {
    std::string node;
    std::string opType;
    std::string reason;
  };

  void setModel(llvm::StringRef file, llvm::StringRef producer, int64_t opset);
  void addNode(llvm::StringRef opType, Outcome outcome);
  void addPatternMatch(llvm::StringRef pattern);
  /// One dsm operation imported from `origin` (an op type or a pattern).
  void addProduced(llvm::StringRef origin, llvm::StringRef dsmOp);
  void addOpaque(llvm::StringRef node, llvm::StringRef opType,
                 llvm::StringRef reason);

  int64_t getNodeCount() const;
  int64_t getCount(Outcome outcome) const;
  const std::map<std::string, Row> &getOpTypes() const { return opTypes; }
  const std::map<std::string, Row> &getPatterns() const { return patterns; }
  const std::vector<OpaqueNode> &getOpaqueNodes() const { return opaqueNodes; }

  /// A plain-text report (stable format; tests check it).
  void print(llvm::raw_ostream &os) const;

private:
  std::string file;
  std::string producer;
  int64_t opset = 0;
  std::map<std::string, Row> opTypes;
  std::map<std::string, Row> patterns;
  std::vector<OpaqueNode> opaqueNodes;
};

} // namespace dsm

#endif // DSM_IMPORT_ONNXIMPORTSUMMARY_H

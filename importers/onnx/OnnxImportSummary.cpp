//===- OnnxImportSummary.cpp - What an ONNX import did --------------------===//

#include "dsm/Import/OnnxImportSummary.h"

#include "llvm/Support/Format.h"

using namespace dsm;

static const char *outcomeNames[OnnxImportSummary::kNumOutcomes] = {
    "imported", "fused", "folded", "dropped", "opaque"};

void OnnxImportSummary::setModel(llvm::StringRef file, llvm::StringRef producer,
                                 int64_t opset) {
  this->file = file.str();
  this->producer = producer.str();
  this->opset = opset;
}

void OnnxImportSummary::addNode(llvm::StringRef opType, Outcome outcome) {
  Row &row = opTypes[opType.str()];
  ++row.count;
  ++row.outcomes[static_cast<int>(outcome)];
}

void OnnxImportSummary::addPatternMatch(llvm::StringRef pattern) {
  ++patterns[pattern.str()].count;
}

void OnnxImportSummary::addProduced(llvm::StringRef origin,
                                    llvm::StringRef dsmOp) {
  auto it = patterns.find(origin.str());
  Row &row = it != patterns.end() ? it->second : opTypes[origin.str()];
  ++row.produced[dsmOp.str()];
}

void OnnxImportSummary::addOpaque(llvm::StringRef node, llvm::StringRef opType,
                                  llvm::StringRef reason) {
  opaqueNodes.push_back({node.str(), opType.str(), reason.str()});
}

int64_t OnnxImportSummary::getNodeCount() const {
  int64_t total = 0;
  for (const auto &[name, row] : opTypes)
    total += row.count;
  return total;
}

int64_t OnnxImportSummary::getCount(Outcome outcome) const {
  int64_t total = 0;
  for (const auto &[name, row] : opTypes)
    total += row.outcomes[static_cast<int>(outcome)];
  return total;
}

static void printProduced(llvm::raw_ostream &os,
                          const std::map<std::string, int64_t> &produced) {
  if (produced.empty())
    return;
  os << " ->";
  for (const auto &[op, count] : produced)
    os << " " << op << " " << count;
}

void OnnxImportSummary::print(llvm::raw_ostream &os) const {
  os << "ONNX import summary: " << file << " (producer '" << producer
     << "', opset " << opset << ")\n";
  os << "nodes: " << getNodeCount();
  for (int i = 0; i < kNumOutcomes; ++i)
    os << (i ? ", " : " (") << outcomeNames[i] << " "
       << getCount(static_cast<Outcome>(i));
  os << ")\n";
  os << "op types:\n";
  for (const auto &[name, row] : opTypes) {
    os << "  " << llvm::left_justify(name, 22)
       << llvm::format_decimal(row.count, 6) << " ";
    for (int i = 0; i < kNumOutcomes; ++i)
      if (row.outcomes[i])
        os << " " << outcomeNames[i] << " " << row.outcomes[i];
    printProduced(os, row.produced);
    os << "\n";
  }
  if (!patterns.empty()) {
    os << "patterns:\n";
    for (const auto &[name, row] : patterns) {
      os << "  " << llvm::left_justify(name, 22)
         << llvm::format_decimal(row.count, 6) << " ";
      printProduced(os, row.produced);
      os << "\n";
    }
  }
  os << "opaque nodes:";
  if (opaqueNodes.empty())
    os << " none";
  os << "\n";
  for (const OpaqueNode &node : opaqueNodes)
    os << "  '" << node.node << "' (" << node.opType << "): " << node.reason
       << "\n";
}

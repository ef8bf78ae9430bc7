//===- ImportSummary.cpp - Options and accounts of every front end --------===//

#include "dsm/Import/ImportSummary.h"

#include "dsm/Support/ReportWriter.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/Format.h"

#include <sstream>

using namespace dsm;

llvm::LogicalResult ImportOptions::verify(mlir::Location loc) const {
  if (batch < 0)
    return mlir::emitError(loc)
           << "the batch size must not be negative, got " << batch;
  for (const auto &[name, size] : dims)
    if (size < 0)
      return mlir::emitError(loc)
             << "dimension '" << name << "' must not be negative, got " << size;
  return llvm::success();
}

static const char *outcomeNames[ImportSummary::kNumOutcomes] = {
    "imported", "fused", "folded", "dropped", "opaque"};

void ImportSummary::Unit::addSource(llvm::StringRef kind, Outcome outcome,
                                    llvm::StringRef result) {
  Row &row = sources[kind.str()];
  ++row.count;
  ++row.outcomes[static_cast<int>(outcome)];
  if (!result.empty())
    ++row.results[result.str()];
}

void ImportSummary::Unit::addPatternMatch(llvm::StringRef pattern) {
  ++patterns[pattern.str()].count;
}

void ImportSummary::Unit::addResult(llvm::StringRef origin,
                                    llvm::StringRef dsmOp) {
  auto it = patterns.find(origin.str());
  Row &row = it != patterns.end() ? it->second : sources[origin.str()];
  ++row.results[dsmOp.str()];
}

int64_t ImportSummary::Unit::getSourceCount() const {
  int64_t total = 0;
  for (const auto &[kind, row] : sources)
    total += row.count;
  return total;
}

int64_t ImportSummary::Unit::getCount(Outcome outcome) const {
  int64_t total = 0;
  for (const auto &[kind, row] : sources)
    total += row.outcomes[static_cast<int>(outcome)];
  return total;
}

ImportSummary::Unit &ImportSummary::addUnit(llvm::StringRef name) {
  units.emplace_back();
  units.back().name = name.str();
  return units.back();
}

/// "  <name>  <count>  <outcomes> -> <results>".
static void printRow(llvm::raw_ostream &os, llvm::StringRef indent,
                     llvm::StringRef name, const ImportSummary::Row &row,
                     bool withOutcomes) {
  os << indent << llvm::left_justify(name, 24)
     << llvm::format_decimal(row.count, 6);
  if (withOutcomes)
    for (int i = 0; i < ImportSummary::kNumOutcomes; ++i)
      if (row.outcomes[i])
        os << " " << outcomeNames[i] << " " << row.outcomes[i];
  const char *separator = " -> ";
  for (const auto &[result, count] : row.results) {
    os << separator << result << " " << count;
    separator = ", ";
  }
  os << "\n";
}

void ImportSummary::print(llvm::raw_ostream &os) const {
  os << frontEnd << " summary (mode="
     << (mode == ImportMode::Strict ? "strict" : "permissive") << ")";
  if (!input.empty())
    os << ": " << input;
  os << "\n";
  for (const Unit &unit : units) {
    os << "@" << unit.name << ": " << unit.getSourceCount() << " source ops -> "
       << unit.dsmOps << " dsm ops (";
    for (int i = 0; i < kNumOutcomes; ++i)
      os << (i ? ", " : "") << outcomeNames[i] << " "
         << unit.getCount(static_cast<Outcome>(i));
    os << ")\n";
    for (const auto &[kind, row] : unit.sources)
      printRow(os, "  ", kind, row, /*withOutcomes=*/true);
    if (!unit.patterns.empty()) {
      os << "  patterns:\n";
      for (const auto &[pattern, row] : unit.patterns)
        printRow(os, "    ", pattern, row, /*withOutcomes=*/false);
    }
    os << "  opaque: " << unit.opaque.size() << "\n";
    for (const Opaque &opaque : unit.opaque) {
      std::ostringstream ops;
      ops << opaque.opsPerElement;
      os << "    " << opaque.location << ": " << opaque.origin << " ("
         << ops.str() << " ops/element x " << opaque.elements
         << " elements): " << opaque.reason << "\n";
    }
  }
}

llvm::LogicalResult ImportSummary::write(llvm::StringRef path,
                                         mlir::Location loc) const {
  if (path.empty())
    return llvm::success();
  return writeReport(path, loc, [&](llvm::raw_ostream &os) { print(os); });
}

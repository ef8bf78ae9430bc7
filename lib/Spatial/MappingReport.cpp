//===- MappingReport.cpp - The mapping, layer by layer, and totals --------===//

#include "dsm/Core/Spatial/MappingReport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>

using namespace dsm::core;

std::string MappingReportRow::limitedBy() const {
  const CycleBreakdown &c = cycles;
  double largest =
      std::max({c.useful, c.underuse, c.ovldtVisible, c.nonOvldt, c.auxComp});
  if (largest <= 0)
    return "nothing";
  if (largest == c.useful)
    return "compute";
  if (largest == c.underuse)
    return "underuse";
  if (largest == c.auxComp)
    return "aux_comp";
  // The slowest group of the kind that shows.
  bool overlapped = largest == c.ovldtVisible;
  const TransferGroup *worst = nullptr;
  for (const TransferGroup &group : transfers)
    if (group.overlapped == overlapped &&
        (!worst || group.cycles > worst->cycles))
      worst = &group;
  if (!overlapped) {
    // Relayouts are recorded as non-overlapped groups too.
    for (const TransferGroup &group : transfers)
      if (group.name == "relayout" && (!worst || group.cycles > worst->cycles))
        worst = &group;
  }
  if (!worst)
    return overlapped ? "transfers" : "non-overlapped transfers";
  return worst->name + " on " + stringifyLink(worst->bottleneck).str();
}

bool dsm::core::isOverlappedGroup(llvm::StringRef name, TrainingPass pass) {
  if (name == "fetch_inp+fetch_ker+write_out")
    return true;
  return name == "rotate" && pass != TrainingPass::BWD;
}

CycleBreakdown MappingReport::totalCycles() const {
  CycleBreakdown total;
  for (const MappingReportRow &row : rows)
    total += row.cycles;
  return total;
}

double MappingReport::totalSeconds() const {
  return frequencyHz > 0 ? totalCycles().total / frequencyHz : 0;
}

double MappingReport::utilization() const {
  CycleBreakdown total = totalCycles();
  return total.total > 0 ? total.useful / total.total : 0;
}

static std::string dims(const DimSizes &sizes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  bool first = true;
  for (int d = 0; d < kNumDims; ++d) {
    if (sizes[d] == 1)
      continue;
    os << (first ? "" : " ") << stringifyDim(Dim(d)) << ":" << sizes[d];
    first = false;
  }
  return first ? "-" : text;
}

/// Column headings of the table's cycle shares: the CycleCategory names,
/// shortened only where the table needs it.
static llvm::StringRef tableHeading(CycleCategory category) {
  switch (category) {
  case CycleCategory::Useful:
    return "useful";
  case CycleCategory::Underuse:
    return "underuse";
  case CycleCategory::OvldtVisible:
    return "ovldt_vis";
  case CycleCategory::NonOvldt:
    return "non_ovldt";
  case CycleCategory::AuxComp:
    return "aux_comp";
  }
  llvm_unreachable("unknown cycle category");
}

void dsm::core::printMappingTable(const MappingReport &report,
                                  llvm::raw_ostream &os) {
  os << "system " << report.system << ", " << report.mode << ", batch "
     << report.batch << "\n";
  // Text columns as wide as their longest entry (BERT's layer names are
  // long); the cycle shares as wide as their headings.
  using TextRow = std::array<std::string, 5>;
  std::vector<TextRow> text;
  TextRow heading = {"layer", "pass", "parallelism", "chip split",
                     "core split"};
  std::array<size_t, 5> widths;
  for (size_t i = 0; i < widths.size(); ++i)
    widths[i] = heading[i].size();
  for (const MappingReportRow &row : report.rows) {
    text.push_back({row.layer, stringifyTrainingPass(row.pass).str(),
                    stringifyParallelism(row.parallelism).str(),
                    dims(row.chipSplit), dims(row.coreSplit)});
    for (size_t i = 0; i < widths.size(); ++i)
      widths[i] = std::max(widths[i], text.back()[i].size());
  }
  auto printText = [&](const TextRow &fields) {
    for (size_t i = 0; i < widths.size(); ++i)
      os << llvm::left_justify(fields[i], widths[i]) << " ";
  };
  printText(heading);
  os << llvm::right_justify("cycles", 12);
  for (int k = 0; k < kNumCycleCategories; ++k)
    os << "  " << tableHeading(CycleCategory(k));
  os << "  limited by\n";
  for (auto [row, fields] : llvm::zip_equal(report.rows, text)) {
    const CycleBreakdown &c = row.cycles;
    printText(fields);
    os << llvm::format("%12.0f", c.total);
    for (int k = 0; k < kNumCycleCategories; ++k) {
      CycleCategory category = CycleCategory(k);
      double share = c.total > 0 ? 100.0 * c.get(category) / c.total : 0.0;
      os << "  "
         << llvm::right_justify(llvm::formatv("{0:F1}%", share).str(),
                                tableHeading(category).size());
    }
    os << "  " << row.limitedBy() << "\n";
  }
  if (!report.selectionExact)
    os << "\nparallelisms not proven optimal: the layer graph is too dense to "
          "select exactly; the best of the "
       << report.selectionStatesKept << " cheapest states kept per layer\n";
  CycleBreakdown total = report.totalCycles();
  os << llvm::formatv(
      "\ntotal: {0:F0} cycles = {1} s per {2}, utilization {3:F3} (",
      total.total, llvm::format("%.6g", report.totalSeconds()),
      report.mode == "train" ? "training step" : "inference",
      report.utilization());
  for (int k = 0; k < kNumCycleCategories; ++k) {
    CycleCategory category = CycleCategory(k);
    double share =
        total.total > 0 ? 100.0 * total.get(category) / total.total : 0.0;
    os << (k ? ", " : "") << stringifyCycleCategory(category)
       << llvm::formatv(" {0:F1}%", share);
  }
  os << ")\n";
}

static llvm::json::Object dimsObject(const DimSizes &sizes) {
  llvm::json::Object object;
  for (int d = 0; d < kNumDims; ++d)
    object[stringifyDim(Dim(d))] = sizes[d];
  return object;
}

static llvm::json::Object cyclesObject(const CycleBreakdown &c) {
  llvm::json::Object object;
  for (int k = 0; k < kNumCycleCategories; ++k)
    object[stringifyCycleCategory(CycleCategory(k))] = c.get(CycleCategory(k));
  object["pri_comp"] = c.priComp();
  object["total"] = c.total;
  // The names before the vocabulary was unified, kept for one release
  // (docs/mapping-report.md).
  object["ovl"] = c.ovldtVisible;
  object["non_ovl"] = c.nonOvldt;
  return object;
}

/// One row as a small JSON object (keys print sorted).
static llvm::json::Object rowObject(const MappingReportRow &row) {
  llvm::json::Array transfers;
  for (const TransferGroup &group : row.transfers) {
    llvm::json::Object bytes;
    for (int l = 0; l < kNumLinks; ++l)
      bytes[stringifyLink(Link(l))] = group.bytes[l];
    transfers.push_back(
        llvm::json::Object{{"name", group.name},
                           {"overlapped", group.overlapped},
                           {"bytes", std::move(bytes)},
                           {"cycles", group.cycles},
                           {"bottleneck", stringifyLink(group.bottleneck)}});
  }
  llvm::json::Object entry{
      {"name", row.layer},
      {"pass", stringifyTrainingPass(row.pass)},
      {"kind", row.kind},
      {"parallelism", stringifyParallelism(row.parallelism)},
      {"chip_split", dimsObject(row.chipSplit)},
      {"core_split", dimsObject(row.coreSplit)},
      {"chipD", dimsObject(row.chipD)},
      {"coreD", dimsObject(row.coreD)},
      {"arrayD", dimsObject(row.arrayD)},
      {"cycles", cyclesObject(row.cycles)},
      {"utilization", row.utilization()},
      {"macs", row.macs},
      {"limited_by", row.limitedBy()},
      {"transfers", std::move(transfers)},
      {"memory",
       llvm::json::Object{
           {"weight_reuse", row.memory.weightsAcrossSteps},
           {"input_reuse", row.memory.inputOnChip},
           {"error_reuse", row.memory.errorOnChip},
           {"dysm_factor", row.memory.spatialMinibatches},
           {"preloaded_weight_bytes", row.memory.preloadedWeightBytes},
           {"resident_weight_fraction", row.residentWeightFraction},
           {"pipe_group", row.memory.pipeGroup},
           {"pipe_first_row", row.memory.pipeFirstRow},
           {"pipe_rows", row.memory.pipeRows}}},
  };
  if (!row.alternatives.empty()) {
    llvm::json::Object alternatives;
    for (auto [p, cycles] : row.alternatives)
      alternatives[stringifyParallelism(p)] = cycles;
    entry["alternatives"] = std::move(alternatives);
  }
  return entry;
}

void dsm::core::writeMappingJSON(const MappingReport &report,
                                 llvm::raw_ostream &os) {
  // Streamed row by row: a 10,000-layer report never exists as one tree.
  // Top-level keys in sorted order, as the schema prints them.
  llvm::json::OStream json(os, /*IndentSize=*/2);
  CycleBreakdown total = report.totalCycles();
  json.object([&] {
    json.attribute("batch", report.batch);
    json.attributeArray("layers", [&] {
      for (const MappingReportRow &row : report.rows)
        json.value(rowObject(row));
    });
    json.attribute("mode", report.mode);
    json.attributeObject("selection", [&] {
      json.attribute("exact", report.selectionExact);
      if (!report.selectionExact)
        json.attribute("states_kept", report.selectionStatesKept);
    });
    json.attribute("system", report.system);
    json.attribute("totals",
                   llvm::json::Object{{"cycles", total.total},
                                      {"seconds", report.totalSeconds()},
                                      {"utilization", report.utilization()},
                                      {"breakdown", cyclesObject(total)}});
  });
  os << "\n";
}

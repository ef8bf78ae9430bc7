//===- MappingReport.cpp - The mapping, layer by layer, and totals --------===//

#include "dsm/Core/Spatial/MappingReport.h"

#include "llvm/Support/Format.h"

#include <algorithm>

using namespace dsm::core;

std::string MappingReportRow::limitedBy() const {
  const CycleBreakdown &c = cycles;
  double largest = std::max({c.useful, c.underuse, c.ovlVisible, c.nonOvl, c.aux});
  if (largest <= 0)
    return "nothing";
  if (largest == c.useful)
    return "compute";
  if (largest == c.underuse)
    return "array under-use";
  if (largest == c.aux)
    return "aux";
  // The slowest group of the kind that shows.
  bool overlapped = largest == c.ovlVisible;
  const TransferGroup *worst = nullptr;
  for (const TransferGroup &group : transfers)
    if (group.overlapped == overlapped && (!worst || group.cycles > worst->cycles))
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

void dsm::core::printMappingTable(const MappingReport &report,
                                  llvm::raw_ostream &os) {
  os << "system " << report.system << ", " << report.mode << ", batch "
     << report.batch << "\n";
  os << llvm::format("%-26s %-4s %-14s %-22s %-26s %12s %6s %6s %6s %6s %6s  %s\n",
                     "layer", "pass", "parallelism", "chip split", "core split",
                     "cycles", "busy", "under", "ovl", "nonovl", "aux",
                     "limited by");
  for (const MappingReportRow &row : report.rows) {
    const CycleBreakdown &c = row.cycles;
    auto pct = [&](double v) { return c.total > 0 ? 100.0 * v / c.total : 0.0; };
    // "busy" is the utilization.
    os << llvm::format("%-26s %-4s %-14s %-22s %-26s %12.0f %5.1f%% %5.1f%% %5.1f%% %5.1f%% %5.1f%%  %s\n",
                       row.layer.c_str(),
                       stringifyTrainingPass(row.pass).str().c_str(),
                       stringifyParallelism(row.parallelism).str().c_str(),
                       dims(row.chipSplit).c_str(), dims(row.coreSplit).c_str(),
                       c.total, pct(c.useful),
                       pct(c.underuse), pct(c.ovlVisible), pct(c.nonOvl),
                       pct(c.aux), row.limitedBy().c_str());
  }
  CycleBreakdown total = report.totalCycles();
  os << llvm::format("\ntotal: %.0f cycles = %.6g s per %s, utilization %.3f "
                     "(busy %.1f%%, under-use %.1f%%, overlapped %.1f%%, "
                     "non-overlapped %.1f%%, aux %.1f%%)\n",
                     total.total, report.totalSeconds(),
                     report.mode == "train" ? "training step" : "inference",
                     report.utilization(), 100 * total.useful / total.total,
                     100 * total.underuse / total.total,
                     100 * total.ovlVisible / total.total,
                     100 * total.nonOvl / total.total, 100 * total.aux / total.total);
}

static llvm::json::Object dimsObject(const DimSizes &sizes) {
  llvm::json::Object object;
  for (int d = 0; d < kNumDims; ++d)
    object[stringifyDim(Dim(d))] = sizes[d];
  return object;
}

static llvm::json::Object cyclesObject(const CycleBreakdown &c) {
  return llvm::json::Object{{"pri_comp", c.useful},   {"underuse", c.underuse},
                            {"ovl", c.ovlVisible},    {"non_ovl", c.nonOvl},
                            {"aux_comp", c.aux},      {"total", c.total}};
}

llvm::json::Value dsm::core::mappingToJSON(const MappingReport &report) {
  llvm::json::Array layers;
  for (const MappingReportRow &row : report.rows) {
    llvm::json::Array transfers;
    for (const TransferGroup &group : row.transfers) {
      llvm::json::Object bytes;
      for (int l = 0; l < kNumLinks; ++l)
        bytes[stringifyLink(Link(l))] = group.bytes[l];
      transfers.push_back(llvm::json::Object{
          {"name", group.name},
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
    };
    if (!row.alternatives.empty()) {
      llvm::json::Object alternatives;
      for (auto [p, cycles] : row.alternatives)
        alternatives[stringifyParallelism(p)] = cycles;
      entry["alternatives"] = std::move(alternatives);
    }
    layers.push_back(std::move(entry));
  }
  CycleBreakdown total = report.totalCycles();
  return llvm::json::Object{
      {"system", report.system},
      {"mode", report.mode},
      {"batch", report.batch},
      {"layers", std::move(layers)},
      {"totals", llvm::json::Object{{"cycles", total.total},
                                    {"seconds", report.totalSeconds()},
                                    {"utilization", report.utilization()},
                                    {"breakdown", cyclesObject(total)}}}};
}

//===- MappingReport.cpp - The mapping, layer by layer, and totals --------===//

#include "dsm/Core/Spatial/MappingReport.h"
#include "dsm/Core/Support/Csv.h"
#include "dsm/Core/Support/PrintableText.h"
#include "dsm/Core/Support/ReportFigures.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>
#include <map>

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

bool dsm::core::isOverlappedGroup(llvm::StringRef name, TrainingPass pass,
                                  const MultiChipSystem &system) {
  if (name == "fetch_inp+fetch_ker+write_out")
    return true;
  return name == "rotate" && pass != TrainingPass::BWD &&
         !system.chip.megatronTensorParallel;
}

CycleBreakdown MappingReport::totalCycles() const {
  CycleBreakdown total;
  for (const MappingReportRow &row : rows)
    total += row.cycles;
  total.total += pipelineIdle.total();
  return total;
}

double MappingReport::totalSeconds() const {
  return frequencyHz > 0 ? totalCycles().total / frequencyHz : 0;
}

double MappingReport::utilization() const {
  CycleBreakdown total = totalCycles();
  return total.total > 0 ? total.useful / total.total : 0;
}

MappingReport::FlopCount MappingReport::flops() const {
  FlopCount count;
  for (const MappingReportRow &row : rows) {
    count.model += 2 * row.macs;
    if (row.pass == TrainingPass::FWD && row.memory.recomputed)
      count.hardware += 2 * row.macs;
  }
  count.hardware += count.model;
  return count;
}

/// `flops` over the peak for `seconds`, 0 where either is unknown.
static double flopUtilization(double flops, double peakFlops, double seconds) {
  return peakFlops > 0 && seconds > 0 ? flops / (peakFlops * seconds) : 0;
}

double MappingReport::modelFlopUtilization() const {
  return flopUtilization(flops().model, peakFlops, totalSeconds());
}

double MappingReport::hardwareFlopUtilization() const {
  return flopUtilization(flops().hardware, peakFlops, totalSeconds());
}

std::string MappingReport::describeFlops() const {
  if (!(peakFlops > 0))
    return "";
  const FlopCount count = flops();
  std::string text =
      llvm::formatv("model FLOPs: {0} per {1}, {2:F1}% of peak (MFU)",
                    llvm::format("%.4g", count.model),
                    mode == "train" ? "step" : "inference",
                    100 * modelFlopUtilization())
          .str();
  if (count.hardware > count.model)
    text += llvm::formatv("; with recomputation {0}, {1:F1}% (HFU)",
                          llvm::format("%.4g", count.hardware),
                          100 * hardwareFlopUtilization())
                .str();
  return text;
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

/// The row's parallelism, and the block of the torus it runs on if not the
/// whole.
static std::string parallelismText(const MappingReportRow &row) {
  std::string text = stringifyParallelism(row.parallelism).str();
  if (!row.block.whole())
    text += llvm::formatv(" on {0}x{1}", row.block.rows, row.block.columns);
  return text;
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
    text.push_back({printableText(row.layer),
                    stringifyTrainingPass(row.pass).str(), parallelismText(row),
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
  if (report.pipelineIdle.total() > 0 && total.total > 0)
    os << llvm::formatv(", pipeline bubble {0:F1}%, pipeline sends {1:F1}%",
                        100.0 * report.pipelineIdle.bubble / total.total,
                        100.0 * report.pipelineIdle.sends / total.total);
  os << ")\n";
  if (std::string flops = report.describeFlops(); !flops.empty())
    os << flops << "\n";
  if (report.memory)
    os << "memory per chip: " << describeMemory(*report.memory)
       << (report.memory->fits() ? "" : ": does not fit")
       << (report.memoryStage >= 0
               ? llvm::formatv(", on pipeline stage {0}", report.memoryStage)
                     .str()
               : "")
       << "\n";
  MemorySavers savers = report.memorySavers();
  if (savers.any())
    os << "memory savers: " << savers.describe() << "\n";
  PipelineSummary pipeline = report.pipeline();
  if (!pipeline.stages.empty())
    os << (pipeline.stages.size() == 1 ? "" : "pipeline: ")
       << pipeline.describe() << "\n";
}

// The JSON report is streamed, row by row and attribute by attribute: a
// json::Object per row costs more than writing it (allocations, key
// sorting), and a 10,000-layer report should never exist as one tree.
// llvm::json prints an Object's keys in sorted (byte) order; the streamed
// objects list theirs in that order too, so the bytes are the same
// (MappingReportTest holds it to llvm::json's print). The objects of scalar
// fields, most of a report's bytes, are written whole rather than through
// the stream's per-attribute bookkeeping, and their fields are listed here
// in sorted order already (writeFields only checks it); figures print as
// llvm::json prints a double, without its printf (printJsonFigure).

/// One scalar attribute of an object being streamed: a flag, a count or a
/// figure.
struct Field {
  enum class Kind { Flag, Count, Figure };
  Field(llvm::StringRef key, bool flag)
      : key(key), kind(Kind::Flag), flag(flag) {}
  Field(llvm::StringRef key, int count)
      : key(key), kind(Kind::Count), count(count) {}
  Field(llvm::StringRef key, int64_t count)
      : key(key), kind(Kind::Count), count(count) {}
  Field(llvm::StringRef key, double figure)
      : key(key), kind(Kind::Figure), figure(figure) {}

  llvm::StringRef key;
  Kind kind;
  bool flag = false;
  int64_t count = 0;
  double figure = 0;
};

static bool byKey(const Field &a, const Field &b) { return a.key < b.key; }

/// Writes an object of scalar `fields`, its keys in sorted order, as the
/// value of an attribute whose object's attributes are indented by
/// `indent`: as llvm::json::OStream would, in one piece.
static void writeFields(llvm::json::OStream &json,
                        llvm::MutableArrayRef<Field> fields, unsigned indent) {
  if (!llvm::is_sorted(fields, byKey))
    llvm::sort(fields, byKey);
  json.rawValue([&](llvm::raw_ostream &os) {
    if (fields.empty()) {
      os << "{}";
      return;
    }
    os << '{';
    for (const Field &field : fields) {
      os << (&field == fields.begin() ? "\n" : ",\n");
      os.indent(indent + 2) << '"' << field.key << "\": ";
      switch (field.kind) {
      case Field::Kind::Flag:
        os << (field.flag ? "true" : "false");
        break;
      case Field::Kind::Count:
        os << field.count;
        break;
      case Field::Kind::Figure:
        printJsonFigure(os, field.figure);
        break;
      }
    }
    os << '\n';
    os.indent(indent) << '}';
  });
}

/// The indentation of a row's attributes, and of a transfer group's, in
/// the report (in its top object, its "layers" array, the row object and,
/// for a group, the "transfers" array and the group's object).
constexpr unsigned kRowIndent = 6, kTransferIndent = 10;
/// Of the attributes of the report's "totals".
constexpr unsigned kTotalsIndent = 4;

/// The indices 0..N-1 ordered by `name` of each: the order in which
/// objects keyed by an enumeration's names print.
template <size_t N, typename NameFn>
static std::array<int, N> orderByName(NameFn name) {
  std::array<int, N> order;
  for (size_t i = 0; i < N; ++i)
    order[i] = int(i);
  llvm::sort(order, [&](int a, int b) { return name(a) < name(b); });
  return order;
}

static void writeDims(llvm::json::OStream &json, const DimSizes &sizes) {
  static const std::array<int, kNumDims> byName =
      orderByName<kNumDims>([](int d) { return stringifyDim(Dim(d)); });
  llvm::SmallVector<Field, kNumDims> fields;
  for (int d : byName)
    fields.push_back({stringifyDim(Dim(d)), sizes[d]});
  writeFields(json, fields, kRowIndent);
}

/// A breakdown's fields; with `idle` (the totals of a pipelined plan), the
/// pipeline's wait as two more categories.
static void writeCycles(llvm::json::OStream &json, const CycleBreakdown &c,
                        unsigned indent, const PipelineIdle *idle = nullptr) {
  auto category = [&](CycleCategory k) {
    return Field{stringifyCycleCategory(k), c.get(k)};
  };
  static_assert(kNumCycleCategories == 5, "one field per category");
  if (idle) {
    std::array<Field, kNumCycleCategories + 6> fields = {
        category(CycleCategory::AuxComp),
        Field{"bubble", idle->bubble},
        Field{"non_ovl", c.nonOvldt},
        category(CycleCategory::NonOvldt),
        Field{"ovl", c.ovldtVisible},
        category(CycleCategory::OvldtVisible),
        Field{"pipeline_sends", idle->sends},
        Field{"pri_comp", c.priComp()},
        Field{"total", c.total},
        category(CycleCategory::Underuse),
        category(CycleCategory::Useful)};
    writeFields(json, fields, indent);
    return;
  }
  std::array<Field, kNumCycleCategories + 4> fields = {
      category(CycleCategory::AuxComp),
      // The names before the vocabulary was unified, kept for one release
      // (docs/mapping-report.md).
      Field{"non_ovl", c.nonOvldt}, category(CycleCategory::NonOvldt),
      Field{"ovl", c.ovldtVisible}, category(CycleCategory::OvldtVisible),
      Field{"pri_comp", c.priComp()}, Field{"total", c.total},
      category(CycleCategory::Underuse), category(CycleCategory::Useful)};
  writeFields(json, fields, indent);
}

static void writeTransfer(llvm::json::OStream &json,
                          const TransferGroup &group) {
  static const std::array<int, kNumLinks> linksByName =
      orderByName<kNumLinks>([](int l) { return stringifyLink(Link(l)); });
  json.object([&] {
    json.attribute("bottleneck", stringifyLink(group.bottleneck));
    json.attributeBegin("bytes");
    // The host link only where it carries something: most systems have
    // none (HostLinkSpec).
    llvm::SmallVector<Field, kNumLinks> bytes;
    for (int l : linksByName)
      if (Link(l) != Link::Host || group.bytes[l] > 0)
        bytes.push_back({stringifyLink(Link(l)), group.bytes[l]});
    writeFields(json, bytes, kTransferIndent);
    json.attributeEnd();
    json.attributeBegin("cycles");
    writeJsonFigure(json, group.cycles);
    json.attributeEnd();
    json.attribute("name", llvm::StringRef(group.name));
    json.attribute("overlapped", group.overlapped);
  });
}

/// One row; its keys in sorted order.
static void writeRow(llvm::json::OStream &json, const MappingReportRow &row,
                     double frequencyHz) {
  auto object = [&](llvm::StringRef key, auto &&write) {
    json.attributeBegin(key);
    write();
    json.attributeEnd();
  };
  auto figure = [&](llvm::StringRef key, double value) {
    json.attributeBegin(key);
    writeJsonFigure(json, value);
    json.attributeEnd();
  };
  json.object([&] {
    if (!row.alternatives.empty()) {
      object("alternatives", [&] {
        llvm::SmallVector<Field, kNumParallelisms> fields;
        for (auto [p, cycles] : row.alternatives)
          fields.push_back({stringifyParallelism(p), cycles});
        writeFields(json, fields, kRowIndent);
      });
    }
    object("arrayD", [&] { writeDims(json, row.arrayD); });
    if (!row.block.whole())
      object("block", [&] {
        std::array<Field, 2> fields = {Field{"columns", row.block.columns},
                                       Field{"rows", row.block.rows}};
        writeFields(json, fields, kRowIndent);
      });
    object("chipD", [&] { writeDims(json, row.chipD); });
    object("chip_split", [&] { writeDims(json, row.chipSplit); });
    object("coreD", [&] { writeDims(json, row.coreD); });
    object("core_split", [&] { writeDims(json, row.coreSplit); });
    object("cycles", [&] { writeCycles(json, row.cycles, kRowIndent); });
    json.attribute("kind", llvm::StringRef(row.kind));
    json.attribute("limited_by", row.limitedBy());
    figure("macs", row.macs);
    object("memory", [&] {
      llvm::SmallVector<Field, 24> fields;
      forEachDecisionField([&](const DecisionField &f) {
        if (f.reportedOnlyWhenSet && !f.isSet(row.memory))
          return;
        const int64_t value = f.get(row.memory);
        fields.push_back(f.flag ? Field(f.jsonKey(), value != 0)
                                : Field(f.jsonKey(), value));
      });
      fields.push_back(
          {"resident_weight_fraction", row.residentWeightFraction});
      writeFields(json, fields, kRowIndent);
    });
    json.attribute("name", llvm::StringRef(row.layer));
    json.attribute("parallelism", stringifyParallelism(row.parallelism));
    json.attribute("pass", stringifyTrainingPass(row.pass));
    // Seconds beside the cycles (one unit across the reports).
    figure("seconds", frequencyHz > 0 ? row.cycles.total / frequencyHz : 0);
    object("transfers", [&] {
      json.array([&] {
        for (const TransferGroup &group : row.transfers)
          writeTransfer(json, group);
      });
    });
    figure("utilization", row.utilization());
  });
}

bool MemorySavers::any() const {
  return llvm::any_of(counts, [](const Count &c) { return c.layers > 0; });
}

std::string MemorySavers::describe() const {
  std::string text;
  for (const Count &count : counts) {
    if (count.saver->reportedOnlyWhenSet && count.layers == 0)
      continue;
    text += (text.empty() ? "" : ", ") + count.saver->saverWords.str() +
            " on " + std::to_string(count.layers) +
            (text.empty() ? " layers" : "");
  }
  return text;
}

std::string PipelineSummary::describe() const {
  // One stage of several microbatches: gradient accumulation.
  if (stages.size() == 1)
    return llvm::formatv("gradient accumulation: {0} microbatches, one after "
                         "another on every chip",
                         microbatches)
        .str();
  std::string text = llvm::formatv("{0} stages", stages.size()).str();
  bool equal = llvm::all_of(stages, [&](const Stage &stage) {
    return stage.rows == stages.front().rows;
  });
  if (equal && !stages.empty())
    text += llvm::formatv(" of {0} torus rows", stages.front().rows).str();
  return text +
         llvm::formatv(", {0} microbatches ({1})", microbatches,
                       schedule == PipelineSchedule::GPipe ? "GPipe" : "1F1B")
             .str();
}

int PipelineSummary::stageAt(int64_t firstRow) const {
  for (size_t s = 0; s < stages.size(); ++s)
    if (stages[s].firstRow == firstRow)
      return int(s);
  return -1;
}

PipelineSummary MappingReport::pipeline() const {
  PipelineSummary summary;
  std::map<std::pair<int64_t, int64_t>, PipelineSummary::Stage> stages;
  for (const MappingReportRow &row : rows) {
    if (row.memory.microbatches <= 1 || row.pass != TrainingPass::FWD)
      continue;
    summary.microbatches = row.memory.microbatches;
    if (row.memory.gpipe)
      summary.schedule = PipelineSchedule::GPipe;
    PipelineSummary::Stage &stage =
        stages[{row.memory.pipeFirstRow, row.memory.pipeRows}];
    if (stage.layers++ == 0) {
      stage.firstRow = row.memory.pipeFirstRow;
      stage.rows = row.memory.pipeRows;
      stage.firstLayer = row.layer;
    }
    stage.lastLayer = row.layer;
  }
  for (auto &entry : stages)
    summary.stages.push_back(std::move(entry.second));
  return summary;
}

MemorySavers MappingReport::memorySavers() const {
  MemorySavers savers;
  forEachDecisionField([&](const DecisionField &f) {
    if (!f.saverWords.empty())
      savers.counts.push_back({&f, 0});
  });
  for (const MappingReportRow &row : rows) {
    if (row.pass != TrainingPass::FWD)
      continue;
    for (MemorySavers::Count &count : savers.counts)
      count.layers += count.saver->isSet(row.memory);
  }
  return savers;
}

void dsm::core::writeMappingJSON(const MappingReport &report,
                                 llvm::raw_ostream &os) {
  llvm::json::OStream json(os, /*IndentSize=*/2);
  CycleBreakdown total = report.totalCycles();
  json.object([&] {
    json.attribute("batch", report.batch);
    json.attributeArray("layers", [&] {
      for (const MappingReportRow &row : report.rows)
        writeRow(json, row, report.frequencyHz);
    });
    json.attribute("mode", report.mode);
    // The report's contract (docs/schemas/dsm.spatial-report.schema.json).
    json.attribute("schema", "dsm.spatial-report/1");
    json.attributeObject("selection", [&] {
      json.attribute("exact", report.selectionExact);
      if (!report.selectionExact)
        json.attribute("states_kept", report.selectionStatesKept);
    });
    json.attribute("system", report.system);
    json.attributeObject("totals", [&] {
      json.attributeBegin("breakdown");
      writeCycles(json, total, kTotalsIndent,
                  report.pipelineIdle.total() > 0 ? &report.pipelineIdle
                                                  : nullptr);
      json.attributeEnd();
      json.attribute("cycles", total.total);
      // In the keys' sorted order, as the rest of the report.
      const bool flops = report.peakFlops > 0;
      const MappingReport::FlopCount count = report.flops();
      if (flops) {
        json.attribute("hardware_flop_utilization",
                       report.hardwareFlopUtilization());
        json.attribute("hardware_flops", count.hardware);
      }
      if (report.memory) {
        const MemoryPerChip &m = *report.memory;
        json.attributeObject("memory_per_chip", [&] {
          json.attribute("activations_bytes", m.activations);
          json.attribute("buffers_bytes", m.buffers);
          json.attribute("capacity_bytes", m.capacity);
          json.attribute("fits", m.fits());
          json.attribute("gradients_bytes", m.gradients);
          if (m.offloaded > 0) {
            json.attribute("host_capacity_bytes", m.hostCapacity);
            json.attribute("offloaded_bytes", m.offloaded);
          }
          json.attribute("optimizer_bytes", m.optimizer);
          if (report.memoryStage >= 0)
            json.attribute("stage", report.memoryStage);
          json.attribute("total_bytes", m.total());
          json.attribute("weights_bytes", m.weights);
        });
        MemorySavers savers = report.memorySavers();
        json.attributeObject("memory_savers", [&] {
          llvm::SmallVector<Field, 8> fields;
          for (const MemorySavers::Count &count : savers.counts)
            if (!count.saver->reportedOnlyWhenSet || count.layers > 0)
              fields.push_back({count.saver->saverKey, count.layers});
          llvm::sort(fields, byKey);
          for (const Field &field : fields)
            json.attribute(field.key, field.count);
        });
      }
      if (flops) {
        json.attribute("model_flop_utilization", report.modelFlopUtilization());
        json.attribute("model_flops", count.model);
      }
      PipelineSummary pipeline = report.pipeline();
      if (!pipeline.stages.empty())
        json.attributeObject("pipeline", [&] {
          json.attribute("microbatches", pipeline.microbatches);
          json.attribute("schedule",
                         stringifyPipelineSchedule(pipeline.schedule));
          json.attributeArray("stages", [&] {
            for (const PipelineSummary::Stage &stage : pipeline.stages)
              json.object([&] {
                json.attribute("first_layer", stage.firstLayer);
                json.attribute("first_row", stage.firstRow);
                json.attribute("last_layer", stage.lastLayer);
                json.attribute("layers", stage.layers);
                json.attribute("rows", stage.rows);
              });
          });
        });
      json.attribute("seconds", report.totalSeconds());
      json.attribute("utilization", report.utilization());
    });
  });
  os << "\n";
}

void dsm::core::writeMappingCSV(const MappingReport &report,
                                llvm::raw_ostream &os) {
  writeCsvRow(os, {"layer", "pass", "kind", "parallelism", "cycles", "seconds",
                   "utilization", "limited_by", "macs"});
  for (const MappingReportRow &row : report.rows)
    writeCsvRow(os, {row.layer, stringifyTrainingPass(row.pass).str(), row.kind,
                     stringifyParallelism(row.parallelism).str(),
                     csvNumber(row.cycles.total),
                     csvNumber(report.frequencyHz > 0
                                   ? row.cycles.total / report.frequencyHz
                                   : 0),
                     csvNumber(row.utilization()), row.limitedBy(),
                     csvNumber(row.macs)});
  // A pipeline's wait: part of the step, in no layer.
  if (report.pipelineIdle.total() > 0)
    for (auto [kind, cycles] :
         {std::pair<const char *, double>{"bubble", report.pipelineIdle.bubble},
          {"sends", report.pipelineIdle.sends}})
      writeCsvRow(
          os,
          {"(pipeline)", "", kind, "", csvNumber(cycles),
           csvNumber(report.frequencyHz > 0 ? cycles / report.frequencyHz : 0),
           csvNumber(0), "pipeline", csvNumber(0)});
}

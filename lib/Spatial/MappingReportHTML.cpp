//===- MappingReportHTML.cpp - The mapping report as one web page ---------===//
//
// A self-contained page (no script, no network): the totals; the torus with
// the chips the plan uses, each pipeline stage's rows in its own color; the
// memory per chip by category; a timeline of the step, one lane per stage,
// each pass a bar as long as its time on the stage's chips and the stage's
// wait for the pipeline apart; a stacked bar per layer and pass showing
// where its cycles go by CycleCategory (the paper's Fig. 13; bar length
// proportional to the row's cycles, so the layers that dominate show); and
// the per-layer table (Fig. 12) with each row's memory decisions (§III).
// Charts are inline SVG so that any browser, or a headless one taking a
// screenshot, renders them.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Spatial/MappingReport.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

using namespace dsm::core;

/// One color per CycleCategory, also used by the legend.
static constexpr std::array<llvm::StringLiteral, kNumCycleCategories>
    kCategoryColors = {"#2e7d32", "#a5d6a7", "#1565c0", "#ef6c00", "#8e24aa"};

/// One color per pipeline stage, cycled (ColorBrewer's Dark2); distinct
/// from the category colors, which the screenshot test counts.
static constexpr std::array<llvm::StringLiteral, 8> kStageColors = {
    "#1b9e77", "#d95f02", "#7570b3", "#e7298a",
    "#66a61e", "#e6ab02", "#a6761d", "#666666"};

/// The timeline's colors: a FWD, BWD and UPD pass, and a stage's wait.
static constexpr std::array<llvm::StringLiteral, 3> kPassColors = {
    "#4fc3f7", "#f06292", "#ffd54f"};
static constexpr llvm::StringLiteral kWaitColor = "#bdbdbd";

static void escape(llvm::raw_ostream &os, llvm::StringRef text) {
  for (char c : text) {
    switch (c) {
    case '<':
      os << "&lt;";
      break;
    case '>':
      os << "&gt;";
      break;
    case '&':
      os << "&amp;";
      break;
    case '"':
      os << "&quot;";
      break;
    default:
      os << c;
    }
  }
}

static std::string splitText(const DimSizes &split) {
  std::string text;
  for (int d = 0; d < kNumDims; ++d)
    if (split[d] != 1)
      text += (text.empty() ? "" : " ") + stringifyDim(Dim(d)).str() + ":" +
              std::to_string(split[d]);
  return text.empty() ? "-" : text;
}

static void writeChart(const MappingReport &report, llvm::raw_ostream &os) {
  constexpr int kLabelWidth = 260, kBarWidth = 640, kRowHeight = 16;
  double longest = 1;
  for (const MappingReportRow &row : report.rows)
    longest = std::max(longest, row.cycles.total);
  int height = kRowHeight * int(report.rows.size()) + 4;
  os << "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\""
     << kLabelWidth + kBarWidth + 110 << "\" height=\"" << height << "\">\n";
  int y = 2;
  for (const MappingReportRow &row : report.rows) {
    os << "<text x=\"" << kLabelWidth - 6 << "\" y=\"" << y + 12
       << "\" text-anchor=\"end\">";
    escape(os, row.layer);
    os << " " << stringifyTrainingPass(row.pass) << "</text>";
    double x = kLabelWidth;
    double scale = kBarWidth / longest;
    for (int k = 0; k < kNumCycleCategories; ++k) {
      double width = row.cycles.get(CycleCategory(k)) * scale;
      if (width <= 0)
        continue;
      os << llvm::formatv("<rect x=\"{0:F2}\" y=\"{1}\" width=\"{2:F2}\" "
                          "height=\"{3}\" fill=\"{4}\"><title>{5}: {6:F0} "
                          "cycles</title></rect>",
                          x, y, width, kRowHeight - 3, kCategoryColors[k],
                          stringifyCycleCategory(CycleCategory(k)),
                          row.cycles.get(CycleCategory(k)));
      x += width;
    }
    os << llvm::formatv("<text x=\"{0:F2}\" y=\"{1}\">{2:F0}</text>\n", x + 4,
                        y + 12, row.cycles.total);
    y += kRowHeight;
  }
  os << "</svg>\n";
}

/// The row's memory decisions (DeepSpatialMatrix §III, StepMemory.h), one
/// cell per decision record (DecisionRecords.h): what it finds on chip, its
/// DySM factor, its preloaded weights, the pipeline stage (or timestep pipe
/// group) it belongs to, sharding and recomputation.
static void writeDecisions(const MappingReportRow &row,
                           const PipelineSummary &pipeline,
                           llvm::raw_ostream &os) {
  DecisionCellContext context;
  context.residentWeightFraction = row.residentWeightFraction;
  const MemoryDecision &m = row.memory;
  const int stage = m.pipelined() && m.microbatches > 1
                        ? pipeline.stageAt(m.pipeFirstRow)
                        : -1;
  if (stage >= 0)
    context.stage =
        llvm::formatv("<span class=\"swatch\" style=\"background:{0}\">"
                      "</span>{1}",
                      kStageColors[stage % kStageColors.size()], stage)
            .str();
  for (const DecisionRecord *record : decisionRecords()) {
    const std::string cell = record->cell(m, context);
    os << (record->numeric ? "<td class=\"n\">" : "<td>")
       << (cell.empty() ? "-" : cell) << "</td>";
  }
}

static void writeTable(const MappingReport &report, llvm::raw_ostream &os) {
  os << "<table>\n<tr><th>layer</th><th>pass</th><th>kind</th>"
        "<th>parallelism</th><th>chip split</th><th>core split</th>"
        "<th>cycles</th>";
  for (int k = 0; k < kNumCycleCategories; ++k)
    os << "<th>" << stringifyCycleCategory(CycleCategory(k)) << "</th>";
  os << "<th>limited by</th>";
  for (const DecisionRecord *record : decisionRecords())
    os << "<th>" << record->heading << "</th>";
  os << "<th>alternatives (cycles)</th></tr>\n";
  const PipelineSummary pipeline = report.pipeline();
  for (const MappingReportRow &row : report.rows) {
    os << "<tr><td>";
    escape(os, row.layer);
    os << "</td><td>" << stringifyTrainingPass(row.pass) << "</td><td>";
    escape(os, row.kind);
    os << "</td><td>" << stringifyParallelism(row.parallelism) << "</td><td>"
       << splitText(row.chipSplit) << "</td><td>" << splitText(row.coreSplit)
       << "</td><td class=\"n\">" << llvm::format("%.0f", row.cycles.total)
       << "</td>";
    for (int k = 0; k < kNumCycleCategories; ++k) {
      double share =
          row.cycles.total > 0
              ? 100 * row.cycles.get(CycleCategory(k)) / row.cycles.total
              : 0;
      os << "<td class=\"n\">" << llvm::format("%.1f%%", share) << "</td>";
    }
    os << "<td>";
    escape(os, row.limitedBy());
    os << "</td>";
    writeDecisions(row, pipeline, os);
    os << "<td>";
    for (auto [p, cycles] : row.alternatives)
      os << stringifyParallelism(p) << " " << llvm::format("%.0f", cycles)
         << (p == row.parallelism ? " (chosen)" : "") << "<br>";
    os << "</td></tr>\n";
  }
  os << "</table>\n";
}

/// The torus, a square per chip, and the chips the plan's passes run on
/// (their blocks, at the torus's origin) against the idle ones.
static void writeTorus(const MappingReport &report, llvm::raw_ostream &os) {
  const int64_t rows = report.torusRows, columns = report.torusColumns;
  if (rows <= 0 || columns <= 0 || rows * columns > 65536)
    return;
  int64_t usedRows = 0, usedColumns = 0;
  for (const MappingReportRow &row : report.rows) {
    usedRows = std::max(usedRows, row.block.whole() ? rows : row.block.rows);
    usedColumns =
        std::max(usedColumns, row.block.whole() ? columns : row.block.columns);
  }
  const PipelineSummary pipeline = report.pipeline();
  const double cell =
      std::max(2.0, std::min(24.0, 480.0 / double(std::max(rows, columns))));
  os << "<h2>The plan on the torus</h2>\n<p>" << rows << " x " << columns
     << " chips (rows along Y, columns along X); the plan runs on " << usedRows
     << " x " << usedColumns
     << (usedRows * usedColumns == rows * columns ? " (every chip)"
                                                  : ", the others idle");
  if (pipeline.stages.size() == 1)
    os << ", with " << pipeline.describe();
  else if (!pipeline.stages.empty())
    os << ", as a pipeline: " << pipeline.describe()
       << ", each stage on its own torus rows";
  os << ".</p>\n<svg class=\"torus\" xmlns=\"http://www.w3.org/2000/svg\" "
     << "width=\"" << llvm::format("%.0f", cell * double(columns) + 2)
     << "\" height=\"" << llvm::format("%.0f", cell * double(rows) + 2)
     << "\">\n";
  // The stage whose rows hold torus row y, or -1.
  auto stageOfRow = [&](int64_t y) {
    for (size_t s = 0; s < pipeline.stages.size(); ++s)
      if (y >= pipeline.stages[s].firstRow &&
          y < pipeline.stages[s].firstRow + pipeline.stages[s].rows)
        return int(s);
    return -1;
  };
  for (int64_t y = 0; y < rows; ++y) {
    int stage = stageOfRow(y);
    for (int64_t x = 0; x < columns; ++x) {
      bool used = y < usedRows && x < usedColumns;
      llvm::StringRef fill = !used ? "#ddd"
                             : stage < 0
                                 ? "#37474f"
                                 : kStageColors[stage % kStageColors.size()];
      os << "<rect x=\"" << llvm::format("%.1f", 1 + cell * double(x))
         << "\" y=\"" << llvm::format("%.1f", 1 + cell * double(y))
         << "\" width=\"" << llvm::format("%.1f", cell * 0.9) << "\" height=\""
         << llvm::format("%.1f", cell * 0.9) << "\" fill=\"" << fill
         << "\"/>\n";
    }
  }
  os << "</svg>\n";
  if (pipeline.stages.empty())
    return;
  os << "<p class=\"legend stages\">";
  for (size_t s = 0; s < pipeline.stages.size(); ++s) {
    const PipelineSummary::Stage &stage = pipeline.stages[s];
    os << (s ? "<br>" : "")
       << "<span style=\"background:" << kStageColors[s % kStageColors.size()]
       << "\"></span>stage " << s << ": "
       << describeTorusRows(stage.firstRow, stage.rows) << ", layers ";
    escape(os, stage.firstLayer);
    os << " .. ";
    escape(os, stage.lastLayer);
    os << " (" << stage.layers << ")";
  }
  os << "<br>Each stage runs the minibatch as " << pipeline.microbatches
     << " microbatches, one forward and one backward in turn (1F1B).</p>\n";
}

/// The torus rows a pipeline stage's pass runs on as a share of the system's
/// chips (1 for a pass that is no pipeline stage): its cycles are its
/// stage's wall-clock time scaled by it.
static double stageShare(const MappingReport &report,
                         const MappingReportRow &row) {
  if (row.memory.microbatches <= 1 || row.memory.pipeRows <= 0 ||
      report.torusRows <= 0 || report.torusColumns <= 0)
    return 1;
  double blockShare = 1;
  int64_t planRows = report.torusRows;
  if (!row.block.whole()) {
    blockShare = double(row.block.rows * row.block.columns) /
                 double(report.torusRows * report.torusColumns);
    planRows = row.block.rows;
  }
  return blockShare * double(row.memory.pipeRows) / double(planRows);
}

/// A pipelined plan's schedule of microbatches, as Megatron-LM's and
/// PipeDream's papers draw it: one lane per stage, each microbatch's
/// forward and backward half a bar numbered with it (pipelineSchedule: a
/// stage's halves are its passes' times on its chips over the
/// microbatches, the update counted with the backward half; links free).
/// A long run draws its first microbatches, enough to show the pattern.
static void writeSchedule(const MappingReport &report, llvm::raw_ostream &os) {
  const PipelineSummary pipeline = report.pipeline();
  const size_t stages = pipeline.stages.size();
  if (stages == 0)
    return;
  std::vector<double> forward(stages, 0), backward(stages, 0);
  for (const MappingReportRow &row : report.rows) {
    const int stage = pipeline.stageAt(row.memory.pipeFirstRow);
    if (stage < 0)
      continue;
    const double cycles = row.cycles.total / stageShare(report, row) /
                          double(pipeline.microbatches);
    (row.pass == TrainingPass::FWD ? forward : backward)[size_t(stage)] +=
        cycles;
  }
  constexpr int64_t kMostBars = 4096;
  const int64_t drawn = std::min<int64_t>(
      pipeline.microbatches,
      std::max<int64_t>(int64_t(stages), kMostBars / int64_t(2 * stages)));
  const std::vector<ScheduledPass> passes =
      pipelineSchedule(forward, backward, drawn, pipeline.schedule);
  double end = 1;
  for (const ScheduledPass &pass : passes)
    end = std::max(end, pass.end);
  constexpr int kLabelWidth = 70, kLaneWidth = 800, kLaneHeight = 16;
  os << "<h2>Pipeline schedule</h2>\n<p>Each stage's microbatches ("
     << stringifyPipelineSchedule(pipeline.schedule)
     << "), a forward and a backward half each, numbered; the links taken as "
        "free";
  if (drawn < pipeline.microbatches)
    os << "; the first " << drawn << " of " << pipeline.microbatches
       << " microbatches";
  os << ".</p>\n<svg class=\"schedule\" xmlns=\"http://www.w3.org/2000/svg\" "
     << "width=\"" << kLabelWidth + kLaneWidth + 10 << "\" height=\""
     << kLaneHeight * int(stages) + 4 << "\">\n";
  for (size_t stage = 0; stage < stages; ++stage)
    os << "<text x=\"" << kLabelWidth - 6 << "\" y=\""
       << 2 + kLaneHeight * int(stage) + 12 << "\" text-anchor=\"end\">stage "
       << stage << "</text>";
  const double scale = kLaneWidth / end;
  for (const ScheduledPass &pass : passes) {
    const double x = kLabelWidth + pass.start * scale;
    const double width = (pass.end - pass.start) * scale;
    const int y = 2 + kLaneHeight * pass.stage;
    os << llvm::formatv(
        "<rect x=\"{0:F2}\" y=\"{1}\" width=\"{2:F2}\" height=\"{3}\" "
        "fill=\"{4}\"><title>stage {5}, microbatch {6} {7}: {8:F0} to {9:F0} "
        "cycles</title></rect>",
        x, y, width, kLaneHeight - 3,
        kPassColors[pass.backward ? int(TrainingPass::BWD)
                                  : int(TrainingPass::FWD)],
        pass.stage, pass.microbatch, pass.backward ? "backward" : "forward",
        pass.start, pass.end);
    if (width >= 12)
      os << llvm::formatv("<text x=\"{0:F2}\" y=\"{1}\" "
                          "text-anchor=\"middle\" font-size=\"9\">{2}</text>",
                          x + width / 2, y + 10, pass.microbatch);
  }
  os << "</svg>\n";
}

/// A timeline of the step: one lane per pipeline stage (one for a plan that
/// is not pipelined), each pass a bar as long as its time on the lane's
/// chips, in the order the passes run (FWD, then the backward half), and a
/// stage's wait for the pipeline as a bar of its own at the lane's end (it
/// falls in the fill, the drain and between microbatches; the lane sums it).
static void writeTimeline(const MappingReport &report, llvm::raw_ostream &os) {
  if (report.rows.empty())
    return;
  const PipelineSummary pipeline = report.pipeline();
  const size_t lanes = std::max<size_t>(1, pipeline.stages.size());
  struct Bar {
    const MappingReportRow *row; ///< null: the stage's wait
    double cycles;
  };
  std::vector<std::vector<Bar>> bars(lanes);
  std::vector<double> length(lanes, 0);
  for (const MappingReportRow &row : report.rows) {
    int stage = pipeline.stages.empty()
                    ? 0
                    : std::max(0, pipeline.stageAt(row.memory.pipeFirstRow));
    double share = stageShare(report, row);
    bars[stage].push_back({&row, row.cycles.total / share});
    length[stage] += row.cycles.total / share;
  }
  // A stage waits the rest of the step (the pipeline's bubble and sends,
  // in no row).
  const double step = report.totalCycles().total;
  double longest = 1;
  for (size_t s = 0; s < lanes; ++s) {
    const double wait =
        pipeline.stages.empty() ? 0 : std::max(0.0, step - length[s]);
    if (wait > 0)
      bars[s].push_back({nullptr, wait});
    longest = std::max(longest, length[s] + wait);
  }
  constexpr int kLabelWidth = 70, kLaneWidth = 800, kLaneHeight = 16;
  os << "<h2>Timeline of the step</h2>\n<p>";
  if (pipeline.stages.empty())
    os << "One lane: the passes one after another, each bar as long as its "
          "time";
  else
    os << "One lane per stage: its passes over the " << pipeline.microbatches
       << " microbatches, each bar as long as its time on the stage's chips, "
          "and the stage's wait for the pipeline (fill, drain, slower stages "
          "and links) at the lane's end; the stages wait "
       << llvm::format("%.1f%%", step > 0
                                     ? 100 * report.pipelineIdle.total() / step
                                     : 0.0)
       << " of the chips' time";
  os << ". The step takes " << llvm::format("%.6g", report.totalSeconds())
     << " s.</p>\n<p class=\"legend\">";
  for (int p = 0; p < 3; ++p)
    os << "<span style=\"background:" << kPassColors[p] << "\"></span>"
       << stringifyTrainingPass(TrainingPass(p));
  if (!pipeline.stages.empty())
    os << "<span style=\"background:" << kWaitColor << "\"></span>wait";
  os << "</p>\n<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" "
     << "width=\"" << kLabelWidth + kLaneWidth + 10 << "\" height=\""
     << kLaneHeight * int(lanes) + 4 << "\">\n";
  const double scale = kLaneWidth / longest;
  int y = 2;
  for (size_t s = 0; s < lanes; ++s) {
    os << "<text x=\"" << kLabelWidth - 6 << "\" y=\"" << y + 12
       << "\" text-anchor=\"end\">"
       << (pipeline.stages.empty() ? std::string("step")
                                   : "stage " + std::to_string(s))
       << "</text>";
    double x = kLabelWidth;
    for (const Bar &bar : bars[s]) {
      double width = bar.cycles * scale;
      os << llvm::formatv("<rect x=\"{0:F2}\" y=\"{1}\" width=\"{2:F2}\" "
                          "height=\"{3}\" fill=\"{4}\"><title>",
                          x, y, width, kLaneHeight - 3,
                          bar.row ? kPassColors[int(bar.row->pass)]
                                  : kWaitColor);
      if (bar.row) {
        escape(os, bar.row->layer);
        os << " " << stringifyTrainingPass(bar.row->pass);
      } else {
        os << "wait";
      }
      os << llvm::formatv(": {0:F0} cycles, {1:F1}% of the lane</title></rect>",
                          bar.cycles, 100 * bar.cycles / length[s]);
      x += width;
    }
    os << "\n";
    y += kLaneHeight;
  }
  os << "</svg>\n";
}

/// Memory per chip by category against the capacity, and the savers.
static void writeMemory(const MappingReport &report, llvm::raw_ostream &os) {
  if (!report.memory)
    return;
  const MemoryPerChip &m = *report.memory;
  os << "<h2>Memory per chip</h2>\n<p>";
  escape(os, describeMemory(m));
  os << (m.fits() ? "" : ": <b>does not fit</b>");
  if (report.memoryStage >= 0)
    os << ", on pipeline stage " << report.memoryStage;
  os << ".</p>\n";
  MemorySavers savers = report.memorySavers();
  if (savers.any())
    os << "<p>Memory savers: " << savers.describe() << ".</p>\n";
  const double scale = std::max(m.total(), m.capacity);
  if (!(scale > 0))
    return;
  const std::array<std::pair<llvm::StringLiteral, double>, 5> parts = {
      {{"weights", m.weights},
       {"gradients", m.gradients},
       {"optimizer", m.optimizer},
       {"activations", m.activations},
       {"buffers", m.buffers}}};
  const std::array<llvm::StringLiteral, 5> colors = {
      "#6a1b9a", "#ad1457", "#f9a825", "#00838f", "#827717"};
  const double width = 600;
  os << "<svg class=\"memory\" xmlns=\"http://www.w3.org/2000/svg\" "
        "width=\"620\" height=\"34\">\n";
  double x = 0;
  for (size_t k = 0; k < parts.size(); ++k) {
    double w = width * parts[k].second / scale;
    os << "<rect x=\"" << llvm::format("%.1f", x) << "\" y=\"4\" width=\""
       << llvm::format("%.1f", w) << "\" height=\"20\" fill=\"" << colors[k]
       << "\"><title>" << parts[k].first << ": ";
    escape(os, formatBytes(parts[k].second));
    os << "</title></rect>\n";
    x += w;
  }
  os << "<line class=\"capacity\" x1=\""
     << llvm::format("%.1f", width * m.capacity / scale) << "\" x2=\""
     << llvm::format("%.1f", width * m.capacity / scale)
     << "\" y1=\"0\" y2=\"30\" stroke=\"#000\" stroke-width=\"2\">"
     << "<title>capacity</title></line>\n</svg>\n<p class=\"legend\">";
  for (size_t k = 0; k < parts.size(); ++k)
    os << "<span style=\"background:" << colors[k] << "\"></span>"
       << parts[k].first;
  os << "; the line is a chip's capacity.</p>\n";
}

void dsm::core::writeMappingHTML(const MappingReport &report,
                                 llvm::raw_ostream &os) {
  CycleBreakdown total = report.totalCycles();
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
        "charset=\"utf-8\">\n"
     << "<title>dsm-opt mapping report: ";
  escape(os, report.system);
  os << "</title>\n<style>\n"
     << "body{font-family:sans-serif;margin:24px;color:#222}\n"
     << "table{border-collapse:collapse;font-size:12px}\n"
     << "th,td{border:1px solid #ccc;padding:2px 6px;text-align:left}\n"
     << "td.n{text-align:right}\n"
     << ".chart text{font-size:11px;font-family:monospace}\n"
     << ".legend span{display:inline-block;width:12px;height:12px;"
        "margin:0 4px 0 12px;vertical-align:middle}\n"
     << ".timeline text{font-size:11px;font-family:monospace}\n"
     << "span.swatch{display:inline-block;width:10px;height:10px;"
        "margin-right:4px}\n"
     << "</style>\n</head>\n<body>\n<h1>Mapping report</h1>\n<p>System <b>";
  escape(os, report.system);
  os << "</b>, " << (report.mode == "train" ? "training" : "inference")
     << ", minibatch " << report.batch << ": "
     << llvm::format("%.0f", total.total)
     << " cycles = " << llvm::format("%.6g", report.totalSeconds()) << " s per "
     << (report.mode == "train" ? "training step" : "inference")
     << ", utilization " << llvm::format("%.3f", report.utilization());
  if (std::string flops = report.describeFlops(); !flops.empty())
    os << "; " << flops;
  os << ".</p>\n";
  writeTorus(report, os);
  writeMemory(report, os);
  writeTimeline(report, os);
  writeSchedule(report, os);
  os << "<h2>Where the cycles go</h2>\n<p class=\"legend\">";
  for (int k = 0; k < kNumCycleCategories; ++k) {
    CycleCategory category = CycleCategory(k);
    double share =
        total.total > 0 ? 100 * total.get(category) / total.total : 0;
    os << "<span style=\"background:" << kCategoryColors[k] << "\"></span>"
       << stringifyCycleCategory(category) << llvm::format(" %.1f%%", share);
  }
  os << "</p>\n";
  if (report.pipelineIdle.total() > 0 && total.total > 0)
    os << "<p>The pipeline's stages wait "
       << llvm::format("%.1f%%",
                       100 * report.pipelineIdle.total() / total.total)
       << " of the step, in no layer: the bubble "
       << llvm::format("%.0f", report.pipelineIdle.bubble)
       << " cycles, the sends between stages "
       << llvm::format("%.0f", report.pipelineIdle.sends) << ".</p>\n";
  os << "<p>One bar per layer and pass, as long as its cycles; each "
        "part is a cycle category (docs/mapping-report.md).</p>\n";
  writeChart(report, os);
  os << "<h2>Layers</h2>\n";
  writeTable(report, os);
  os << "</body>\n</html>\n";
}

//===- MappingReport.h - The mapping by layer, and its totals ---*- C++ -*-===//
//
// The data behind --dsm-mapping-report (docs/mapping-report.md): one row per
// layer and pass with its parallelism, ChipD/CoreD/ArrayD, cycles by the
// categories of DeepSpatialMatrix Fig. 13, utilization and what limits it;
// totals per training step (or inference).
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SPATIAL_MAPPINGREPORT_H
#define DSM_CORE_SPATIAL_MAPPINGREPORT_H

#include "dsm/Core/Spatial/DecisionRecords.h"
#include "dsm/Core/Spatial/Mapping.h"
#include "dsm/Core/Spatial/PipelineParallelism.h"
#include "dsm/Core/Spatial/StepMemory.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <utility>
#include <vector>

namespace dsm::core {

struct MappingReportRow {
  std::string layer;
  TrainingPass pass = TrainingPass::FWD;
  std::string kind;
  Parallelism parallelism = Parallelism::Data;
  /// The chips it runs on: the whole torus or a block of it (ChipBlocks.h).
  ChipBlock block;
  DimSizes chipSplit = {1, 1, 1, 1, 1}, coreSplit = {1, 1, 1, 1, 1};
  /// Work per chip, per core and on the PE array at once.
  DimSizes chipD = {1, 1, 1, 1, 1}, coreD = {1, 1, 1, 1, 1},
           arrayD = {1, 1, 1, 1, 1};
  CycleBreakdown cycles;
  double macs = 0;
  std::vector<TransferGroup> transfers;
  /// FWD rows: the layer's cycles under each parallelism it could use.
  std::vector<std::pair<Parallelism, double>> alternatives;
  /// The memory optimizations of DeepSpatialMatrix §III the row's mapping uses.
  MemoryDecision memory;
  /// The part of the core's weight share that memory.preloadedWeightBytes
  /// keeps resident (0..1).
  double residentWeightFraction = 0;

  double utilization() const {
    return cycles.total > 0 ? cycles.useful / cycles.total : 0;
  }
  /// What bounds the row: "compute", "underuse", "aux_comp", or the
  /// transfer group and link whose time is not hidden.
  std::string limitedBy() const;
};

/// How many layers use each memory saver (StepMemory.h): the savers of the
/// decision records (DecisionRecords.h), in their order.
struct MemorySavers {
  struct Count {
    const DecisionField *saver = nullptr;
    int64_t layers = 0;
  };
  std::vector<Count> counts;
  bool any() const;
  /// "training state sharded on N layers, weights sharded on N, activations
  /// recomputed on N" (a saver reported only when set, only where it is):
  /// the table's and the HTML's words.
  std::string describe() const;
};

/// A pipelined plan's stages (PipelineParallelism.h), as its rows record
/// them: each stage's torus rows and its layers.
struct PipelineSummary {
  struct Stage {
    int64_t firstRow = 0, rows = 0;
    std::string firstLayer, lastLayer;
    int64_t layers = 0;
  };
  int64_t microbatches = 1;
  PipelineSchedule schedule = PipelineSchedule::OneFOneB;
  std::vector<Stage> stages; ///< by first row; empty: not pipelined
  /// "16 stages of 4 torus rows, 64 microbatches (1F1B)"; one stage:
  /// "gradient accumulation: 12 microbatches, one after another on every
  /// chip".
  std::string describe() const;
  /// The stage running on torus rows from `firstRow`, or -1.
  int stageAt(int64_t firstRow) const;
};

struct MappingReport {
  std::string system;
  /// The system's torus: rows (Y) and columns (X) of chips.
  int64_t torusRows = 0, torusColumns = 0;
  std::string mode; ///< "train" or "infer"
  int64_t batch = 0;
  double frequencyHz = 0;
  /// The system's peak FLOP/s, all chips together (a MAC as two FLOPs).
  double peakFlops = 0;
  std::vector<MappingReportRow> rows;
  /// False when some function's parallelisms were chosen among pruned
  /// states (not proven optimal); `selectionStatesKept` is then the bound.
  bool selectionExact = true;
  int64_t selectionStatesKept = 0;
  /// The memory of the fullest chip over the step (StepMemory.h), as the
  /// mapper counted it, and on a pipelined plan that chip's stage (-1:
  /// not pipelined).
  std::optional<MemoryPerChip> memory;
  int64_t memoryStage = -1;
  /// A pipelined plan's wait (the functions' dsm.pipeline_idle): part of
  /// the step, in no row.
  PipelineIdle pipelineIdle;

  /// The rows' cycles and, in the total only, the pipeline's wait.
  CycleBreakdown totalCycles() const;
  /// The FWD rows that use each memory saver.
  MemorySavers memorySavers() const;
  /// The pipeline the rows run in (no stages when none).
  PipelineSummary pipeline() const;
  double totalSeconds() const;
  double utilization() const;

  /// The step's floating-point operations (a MAC as two): the model's,
  /// every pass's MACs once -- the 6 N tokens plus attention of Kaplan et
  /// al. and Narayanan et al. -- and the hardware's, with the forward passes
  /// recomputation runs again.
  struct FlopCount {
    double model = 0, hardware = 0;
  };
  FlopCount flops() const;
  /// Model (hardware) FLOPs over what the chips could do at peak in the
  /// step's time (the pipeline's wait included): MFU and HFU.
  double modelFlopUtilization() const;
  double hardwareFlopUtilization() const;
  /// "model FLOPs: 3.386e+18 per step, 57.2% of peak (MFU); with
  /// recomputation 4.515e+18, 76.3% (HFU)": the table's and the HTML's
  /// words ("" where the peak is unknown).
  std::string describeFlops() const;
};

/// Whether a transfer group of `pass` overlaps the primary computation on a
/// chip of `system` (the memory streams always; rotations in FWD and UPD
/// unless the chip's tensor-parallel exchanges block:
/// ChipSpec::megatronTensorParallel).
bool isOverlappedGroup(llvm::StringRef name, TrainingPass pass,
                       const MultiChipSystem &system);

void printMappingTable(const MappingReport &report, llvm::raw_ostream &os);
/// The JSON report (docs/mapping-report.md), streamed row by row.
void writeMappingJSON(const MappingReport &report, llvm::raw_ostream &os);
/// One CSV row per layer and pass (docs/mapping-report.md): layer, pass,
/// kind, parallelism, cycles, seconds, utilization, limited_by, macs.
void writeMappingCSV(const MappingReport &report, llvm::raw_ostream &os);
/// The report as one self-contained web page: totals, the torus with the
/// chips (or pipeline stages) the plan uses, memory per chip, a timeline of
/// the step per stage, a stacked bar of the cycle categories per layer and
/// pass, the table with each row's memory decisions.
void writeMappingHTML(const MappingReport &report, llvm::raw_ostream &os);

} // namespace dsm::core

#endif // DSM_CORE_SPATIAL_MAPPINGREPORT_H

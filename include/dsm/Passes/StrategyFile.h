//===- StrategyFile.h - A spatial mapping's strategy as a file --*- C++ -*-===//
//
// A strategy file names how a network is split, in the spatial mapping's own
// option names -- the pipeline (stages, microbatches, schedule, stage-layers),
// the degrees (tensor, data, parallelism), the savers (recompute, shard,
// offload, sequence-parallel) and the search -- as a YAML mapping:
//
//   stages: 8
//   microbatches: 96
//   stage-layers: [75, 72, 72, 72, 72, 72, 72, 76]
//   recompute: full
//
// --dsm-select-mapping records the plan's strategy on each function it maps
// (`dsm.strategy`, each option's value as the option reads it), the mapping
// report writes it as such a file (report=<file>.yaml) and
// --dsm-map-system's strategy= reads one back: the same options, so the
// plan found by a search and given back is the same plan.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_PASSES_STRATEGYFILE_H
#define DSM_PASSES_STRATEGYFILE_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace dsm {

/// The options of --dsm-select-mapping a strategy names (the rest -- the
/// system, mode, batch, optimizer, explain -- are the job's, not its
/// strategy's).
llvm::ArrayRef<llvm::StringRef> getStrategyOptionNames();

/// One option a strategy file gives: its name, its value as the option's
/// parser reads it (a list comma-separated) and where the file gives it.
struct StrategyEntry {
  std::string name;
  std::string value;
  mlir::Location loc;
};

/// Reads the strategy file at `path`. A file that cannot be read, is not a
/// YAML mapping of option names to values (a scalar, or a list of scalars),
/// names an option twice or one that is not a strategy's, or gives a value
/// the option's parser refuses (tried on `selectMapping`, a scratch
/// --dsm-select-mapping) is an error at its line and column (at `loc` where
/// the file cannot be read).
mlir::FailureOr<llvm::SmallVector<StrategyEntry>>
readStrategyFile(llvm::StringRef path, mlir::Location loc,
                 mlir::Pass &selectMapping);

/// `entries` as --dsm-select-mapping's option text ("stages=8 ...").
std::string strategyOptionText(llvm::ArrayRef<StrategyEntry> entries);

/// The pipeline a plan runs as its strategy names it (microbatches 0: none,
/// the whole torus one stage of the whole minibatch; one stage of several:
/// gradient accumulation).
struct PlannedPipeline {
  int64_t stages = 1;
  int64_t microbatches = 0;
  std::string schedule;
  llvm::SmallVector<int64_t> stageLayers;
};

/// A plan's strategy as recorded on its function (`dsm.strategy`): the
/// strategy options `selectMapping` (a --dsm-select-mapping) runs with,
/// the pipeline's own from `pipeline`. Lists' braces are dropped, as are a
/// tensor= or data= of 0 (any) and microbatch-size= (the microbatches
/// carry it).
mlir::DictionaryAttr recordStrategy(mlir::MLIRContext *context,
                                    mlir::Pass &selectMapping,
                                    const PlannedPipeline &pipeline);

/// Each option of `pass` by name with its value as the pass prints it
/// (Pass::printAsTextualPipeline; a list's values comma-separated).
llvm::StringMap<std::string> printedOptionsOf(mlir::Pass &pass);

/// Writes `strategy` (a function's `dsm.strategy`) as a strategy file,
/// after a comment naming what it is the strategy of (`about`).
void writeStrategyFile(mlir::DictionaryAttr strategy, llvm::StringRef about,
                       llvm::raw_ostream &os);

} // namespace dsm

#endif // DSM_PASSES_STRATEGYFILE_H

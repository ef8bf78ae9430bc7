//===- OptionCheck.h - Pass options checked for people ----------*- C++ -*-===//
//
// MLIR's pass-option parser answers `bacth=3` with "no such option bacth"
// after an empty `error:` line, and `mode=trian` with "Cannot find option
// named 'trian'!". The drivers (dsm-opt, the C API) check the options a user
// wrote first and say it for people: the pass, the option, the closest known
// name, the values an enum option takes.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_PASSES_OPTIONCHECK_H
#define DSM_PASSES_OPTIONCHECK_H

#include "dsm/Support/ReportWriter.h" // namesSameFile
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"

namespace dsm {

/// Checks `options` (the text of `--<pass>="..."`) against `pass`'s options:
/// every key must name one (else "unknown option 'bacth'; did you mean
/// 'batch'?"), and an enum option's value must be one of its values (else
/// "mode=trian is not one of: train, infer"), and a scalar's value must read
/// as its type ("stages=1e3 is not an integer", "seed=-1 is not a whole
/// number (0 or more)", "explain=maybe is not true or false"). Reports the
/// first problem through `emit` (a message without the pass's name) and
/// fails. Values of other types are left to the pass's own parser.
mlir::LogicalResult
checkPassOptions(mlir::Pass &pass, llvm::StringRef options,
                 llvm::function_ref<void(const llvm::Twine &)> emit);

/// The option names `pass` takes, sorted.
llvm::SmallVector<llvm::StringRef> getPassOptionNames(mlir::Pass &pass);

/// Every option that takes a quantity has a documented range (the table in
/// docs/hardening.md): a value outside it is an error at `loc` saying
/// "<option> must be in [lo, hi]<unit>, got <value>" (with `note` after the
/// range, e.g. "0: no limit"), before any work. NaN is outside every range.
mlir::LogicalResult checkOptionRange(mlir::Location loc, llvm::StringRef option,
                                     int64_t value, int64_t lo, int64_t hi,
                                     llvm::StringRef unit = "",
                                     llvm::StringRef note = "");
mlir::LogicalResult checkOptionRange(mlir::Location loc, llvm::StringRef option,
                                     double value, double lo, double hi,
                                     llvm::StringRef unit = "",
                                     llvm::StringRef note = "");

/// `value` as people write it: integers whole (1000000, not 1e+06), others
/// in the fewest digits that read back the same (0.001, 1e+300), inf and nan
/// by name (diagnostics print a double as 1.000000e+06).
std::string formatQuantity(double value);

/// The placement searches' error when `time-budget=` (`budgetSeconds`) ran
/// out before `search` had anything to report (map-elites and ilp start
/// from no placement): `cannot <action>: the time budget of ... s ran out
/// before <search> <progress>; give a larger time-budget=`.
mlir::InFlightDiagnostic emitBudgetRanOut(mlir::Location loc,
                                          llvm::StringRef action,
                                          double budgetSeconds,
                                          llvm::StringRef search,
                                          llvm::StringRef progress);

/// The most seconds a search, a solver or one evaluator run may be given
/// (11.6 days): more is a typo (GLPK counts its limit in int milliseconds).
constexpr double kMaxSearchSeconds = 1e6;
/// The largest minibatch `batch=` takes.
constexpr int64_t kMaxBatch = 2147483647;

} // namespace dsm

#endif // DSM_PASSES_OPTIONCHECK_H

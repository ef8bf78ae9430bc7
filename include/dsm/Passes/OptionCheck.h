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

#include "mlir/Pass/Pass.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"

namespace dsm {

/// Checks `options` (the text of `--<pass>="..."`) against `pass`'s options:
/// every key must name one (else "unknown option 'bacth'; did you mean
/// 'batch'?"), and an enum option's value must be one of its values (else
/// "mode=trian is not one of: train, infer"). Reports the first problem
/// through `emit` (a message without the pass's name) and fails. Values of
/// other types are left to the pass's own parser.
mlir::LogicalResult
checkPassOptions(mlir::Pass &pass, llvm::StringRef options,
                 llvm::function_ref<void(const llvm::Twine &)> emit);

/// The option names `pass` takes, sorted.
llvm::SmallVector<llvm::StringRef> getPassOptionNames(mlir::Pass &pass);

} // namespace dsm

#endif // DSM_PASSES_OPTIONCHECK_H

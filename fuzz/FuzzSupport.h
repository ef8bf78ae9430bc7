//===- FuzzSupport.h - What the MLIR-level fuzzers share --------*- C++ -*-===//

#ifndef DSM_FUZZ_FUZZSUPPORT_H
#define DSM_FUZZ_FUZZSUPPORT_H

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"

namespace dsm::fuzz {
/// One context for the whole run, with every dialect and pass dsm-opt has and
/// threading off (a fuzzer runs one input at a time; threads only add noise).
mlir::MLIRContext &getContext();

/// Moves the process, once, into a fresh directory named after `name`: what
/// a fuzzed input makes the tool write (a report, a strategy file) lands
/// there.
void enterScratchDirectory(llvm::StringRef name);

/// Runs `--dsm-map-system{<options>}` on `model` (MLIR text, which must
/// parse), its diagnostics silenced: errors are fine. False where the
/// options do not parse as the pass's.
bool runMapSystem(llvm::StringRef options, llvm::StringRef model);
} // namespace dsm::fuzz

#endif // DSM_FUZZ_FUZZSUPPORT_H

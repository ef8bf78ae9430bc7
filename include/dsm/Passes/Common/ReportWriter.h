//===- ReportWriter.h - Reports to stdout or to a file ----------*- C++ -*-===//

#ifndef DSM_PASSES_REPORTWRITER_H
#define DSM_PASSES_REPORTWRITER_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/FunctionExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace dsm {

/// Writes a report produced by `print` to stdout (`path` = "-") or to `path`.
/// A file is written completely or not at all: it is created next to its
/// destination and renamed into place. Errors are emitted at `loc`.
mlir::LogicalResult
writeReport(llvm::StringRef path, mlir::Location loc,
            llvm::function_ref<void(llvm::raw_ostream &)> print);

} // namespace dsm

#endif // DSM_PASSES_REPORTWRITER_H

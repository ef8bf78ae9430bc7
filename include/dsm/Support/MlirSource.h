//===- MlirSource.h - MLIR text screened before it is parsed ----*- C++ -*-===//
//
// MLIR 22's parser crashes, instead of reporting, on some malformed text
// (dsm/Core/Support/MlirText.h). Every path of the tools that parses MLIR
// text (dsm-opt's input file or standard input, --dsm-export-shard's
// source=, dsm-translate --upgrade-mlir) screens it here first, so the
// answer is a located error on every path.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_SUPPORT_MLIRSOURCE_H
#define DSM_SUPPORT_MLIRSOURCE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/SourceMgr.h"

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace mlir {
class ParserConfig;
} // namespace mlir

namespace dsm {

/// Locates byte offsets of a text the front ends read by hand (a JSON
/// network, MLIR being upgraded) as file:line:column. The lines are indexed
/// once, so each lookup is a binary search, not a count from the start.
class TextLocator {
public:
  /// `text` must outlive the locator.
  TextLocator(llvm::StringRef text, llvm::StringRef fileName,
              mlir::MLIRContext *context);

  /// The 1-based line and column of `offset` (at most the text's size).
  std::pair<unsigned, unsigned> lineAndColumn(size_t offset) const;
  mlir::FileLineColLoc operator()(size_t offset) const;

private:
  llvm::SourceMgr sources;
  const char *start;
  std::string fileName;
  mlir::MLIRContext *context;
};

/// Emits, through `context`'s diagnostics, an error at the first place of
/// `buffer` the parser would crash on (its identifier names the file);
/// success when there is none.
mlir::LogicalResult screenMlirText(const llvm::MemoryBuffer &buffer,
                                   mlir::MLIRContext *context);

/// parseSourceFile<ModuleOp> of the file at `path`, screened first; null
/// after an error (a file that cannot be read is one).
mlir::OwningOpRef<mlir::ModuleOp>
parseScreenedFile(llvm::StringRef path, const mlir::ParserConfig &config);

} // namespace dsm

#endif // DSM_SUPPORT_MLIRSOURCE_H

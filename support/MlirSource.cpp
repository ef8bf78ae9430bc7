//===- MlirSource.cpp - MLIR text screened before it is parsed ------------===//

#include "dsm/Support/MlirSource.h"
#include "dsm/Core/Support/BoundedFile.h"
#include "dsm/Core/Support/MlirText.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

dsm::TextLocator::TextLocator(StringRef text, StringRef fileName,
                              MLIRContext *context)
    : start(text.data()), fileName(fileName.str()), context(context) {
  sources.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(text, fileName,
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
}

std::pair<unsigned, unsigned>
dsm::TextLocator::lineAndColumn(size_t offset) const {
  return sources.getLineAndColumn(llvm::SMLoc::getFromPointer(start + offset),
                                  sources.getMainFileID());
}

FileLineColLoc dsm::TextLocator::operator()(size_t offset) const {
  auto [line, column] = lineAndColumn(offset);
  return FileLineColLoc::get(context, fileName, line, column);
}

LogicalResult dsm::screenMlirText(const llvm::MemoryBuffer &buffer,
                                  MLIRContext *context) {
  StringRef text = buffer.getBuffer();
  std::optional<core::MlirTextProblem> problem =
      core::findMlirTextProblem(text);
  if (!problem)
    return success();
  TextLocator locate(text, buffer.getBufferIdentifier(), context);
  emitError(locate(problem->offset)) << problem->message;
  return failure();
}

OwningOpRef<ModuleOp> dsm::parseScreenedFile(StringRef path,
                                             const ParserConfig &config) {
  MLIRContext *context = config.getContext();
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      core::readBoundedFile(path);
  if (!buffer) {
    emitError(UnknownLoc::get(context))
        << "cannot open '" << path
        << "': " << llvm::toString(buffer.takeError());
    return nullptr;
  }
  if (failed(screenMlirText(**buffer, context)))
    return nullptr;
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  return parseSourceFile<ModuleOp>(sourceMgr, config);
}

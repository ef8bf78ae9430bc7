//===- OnnxTranslation.cpp - The --import-onnx translation ----------------===//

#include "dsm/Import/OnnxTranslation.h"
#include "dsm/Import/OnnxImporter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace {
/// Options of --import-onnx, registered with the translation.
struct OnnxTranslateOptions {
  llvm::cl::OptionCategory category{"ONNX import options (--import-onnx)"};
  llvm::cl::opt<dsm::ImportMode> mode{
      "onnx-mode",
      llvm::cl::desc("What to do with nodes the importer cannot "
                     "express as dsm operations"),
      llvm::cl::init(dsm::ImportMode::Strict),
      llvm::cl::values(clEnumValN(dsm::ImportMode::Strict, "strict",
                                  "report an error naming the node (default)"),
                       clEnumValN(dsm::ImportMode::Permissive, "permissive",
                                  "keep them as dsm.opaque")),
      llvm::cl::cat(category)};
  llvm::cl::opt<int64_t> batch{
      "onnx-batch",
      llvm::cl::desc("Size of dimension 0 of inputs where it is dynamic"),
      llvm::cl::init(0), llvm::cl::cat(category)};
  llvm::cl::list<std::string> dims{
      "onnx-dim",
      llvm::cl::desc("Size of a named dynamic dimension: <name>=<size>"),
      llvm::cl::CommaSeparated, llvm::cl::cat(category)};
  llvm::cl::opt<std::string> summary{
      "onnx-summary",
      llvm::cl::desc("Write the import summary to this file ('-' for stdout)"),
      llvm::cl::value_desc("file"), llvm::cl::cat(category)};
};

OnnxTranslateOptions &getOptions() {
  static OnnxTranslateOptions options;
  return options;
}

OwningOpRef<Operation *> translate(llvm::SourceMgr &sourceMgr,
                                   MLIRContext *context) {
  OnnxTranslateOptions &cl = getOptions();
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  Location fileLoc =
      FileLineColLoc::get(context, buffer->getBufferIdentifier(), 0, 0);
  dsm::ImportOptions options;
  options.summary = cl.summary;
  options.mode = cl.mode;
  options.batch = static_cast<int64_t>(cl.batch);
  for (const std::string &entry : cl.dims) {
    auto [name, value] = llvm::StringRef(entry).split('=');
    int64_t size;
    if (name.empty() || value.getAsInteger(10, size) || size < 0) {
      emitError(fileLoc) << "--onnx-dim expects <name>=<size>, got '" << entry
                         << "'";
      return nullptr;
    }
    options.dims[name.str()] = size;
  }
  OwningOpRef<ModuleOp> module =
      dsm::importOnnxModel(buffer->getMemBufferRef(), context, options);
  if (!module)
    return nullptr;
  return module.release().getOperation();
}
} // namespace

void dsm::registerImportOnnxTranslation() {
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  (void)getOptions();
  TranslateToMLIRRegistration registration(
      "import-onnx", "import an ONNX model (model.onnx) as dsm operations",
      translate, registerOnnxImportDialects);
}

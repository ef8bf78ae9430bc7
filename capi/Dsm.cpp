//===- Dsm.cpp - The C API of dsm-opt -------------------------------------===//

#include "dsm-c/Dsm.h"

#include "dsm/Core/Support/BoundedFile.h"
#include "dsm/Core/Support/ConsoleProgress.h"
#include "dsm/Dialect/DsmDialect.h"
#include "dsm/Export/Passes.h"
#include "dsm/Import/Passes.h"
#include "dsm/Passes/OptionCheck.h"
#include "dsm/Passes/Passes.h"
#include "dsm/Support/MlirSource.h"
#include "dsm/Support/ReportWriter.h"
#ifdef DSM_ENABLE_ONNX
#include "dsm/Import/OnnxImporter.h"
#endif

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

// The handle registers and loads the dialects a dsm model is written in
// (dsm, func for its functions, arith for its constants), so that a C caller
// can parse a model with nothing else: MLIR_DEFINE_CAPI_DIALECT_REGISTRATION
// would register dsm alone.
static void insertDsmDialects(MlirDialectRegistry registry) {
  unwrap(registry)
      ->insert<dsm::DsmDialect, mlir::func::FuncDialect,
               mlir::arith::ArithDialect>();
}
static MlirDialect loadDsmDialects(MlirContext context) {
  mlir::MLIRContext *ctx = unwrap(context);
  ctx->getOrLoadDialect<mlir::func::FuncDialect>();
  ctx->getOrLoadDialect<mlir::arith::ArithDialect>();
  return wrap(ctx->getOrLoadDialect<dsm::DsmDialect>());
}
static MlirStringRef dsmNamespace() {
  return wrap(dsm::DsmDialect::getDialectNamespace());
}
MlirDialectHandle mlirGetDialectHandle__dsm__() {
  static MlirDialectRegistrationHooks hooks = {insertDsmDialects,
                                               loadDsmDialects, dsmNamespace};
  return MlirDialectHandle{&hooks};
}

void dsmRegisterPasses(void) {
  static std::once_flag registered;
  std::call_once(registered, [] {
    dsm::registerDsmPasses();
    dsm::registerDsmImportPasses();
    dsm::registerDsmExportPasses();
  });
}

MlirLogicalResult dsmMapSystem(MlirModule module, MlirStringRef options) {
  mlir::ModuleOp op = unwrap(module);
  mlir::PassManager pm(op.getContext(), mlir::ModuleOp::getOperationName());
  // The string is read as the pass's options, never pasted into pipeline
  // text: "...} , dsm-workload-report{output=<path>" must not run a pass.
  std::unique_ptr<mlir::Pass> pass = dsm::createDsmMapSystem();
  std::string error;
  llvm::StringRef text(options.data, options.length);
  if (mlir::failed(
          dsm::checkPassOptions(*pass, text, [&](const llvm::Twine &message) {
            error = message.str();
          }))) {
    op.emitError() << "dsmMapSystem: bad options: " << error;
    return mlirLogicalResultFailure();
  }
  if (mlir::failed(
          pass->initializeOptions(llvm::StringRef(options.data, options.length),
                                  [&](const llvm::Twine &message) {
                                    error = message.str();
                                    return mlir::failure();
                                  }))) {
    op.emitError() << "dsmMapSystem: bad options: " << error;
    return mlirLogicalResultFailure();
  }
  pm.addPass(std::move(pass));
  return wrap(pm.run(op));
}

//===----------------------------------------------------------------------===//
// Self-contained entry points
//===----------------------------------------------------------------------===//

namespace {
/// A string the caller frees with dsmStringDestroy.
char *copyString(llvm::StringRef text) {
  char *copy = static_cast<char *>(std::malloc(text.size() + 1));
  if (!copy)
    return nullptr;
  std::memcpy(copy, text.data(), text.size());
  copy[text.size()] = 0;
  return copy;
}

void give(char **out, llvm::StringRef text) {
  if (out)
    *out = copyString(text);
}

/// One call: a context with the dialects models arrive in, and every
/// diagnostic formatted as dsm-opt prints it, into a string. Operations are
/// not printed beside their errors (the message and location say it).
struct Session {
  mlir::MLIRContext context;
  llvm::SourceMgr sources;
  std::string diagnosticText;
  llvm::raw_string_ostream diagnosticStream{diagnosticText};
  mlir::SourceMgrDiagnosticHandler handler{sources, &context, diagnosticStream};

  explicit Session(mlir::DialectRegistry &registry) {
    context.appendDialectRegistry(registry);
    context.printOpOnDiagnostic(false);
    context.printStackTraceOnDiagnostic(false);
  }
  std::string diagnostics() {
    diagnosticStream.flush();
    return diagnosticText;
  }
};

/// Serializes the calls: the report capture and the pass registry are
/// process-wide.
std::mutex &callMutex() {
  static std::mutex mutex;
  return mutex;
}

mlir::DialectRegistry modelDialects() {
  mlir::DialectRegistry registry;
  dsm::registerImportDialects(registry);
#ifdef DSM_ENABLE_ONNX
  dsm::registerOnnxImportDialects(registry);
#endif
  return registry;
}

#ifdef DSM_ENABLE_ONNX
/// Reads dsmImportOnnxFile's options into `options`; errors at `loc`.
mlir::LogicalResult parseImportOptions(llvm::StringRef text,
                                       dsm::ImportOptions &options,
                                       mlir::Location loc) {
  llvm::SmallVector<llvm::StringRef> words;
  text.split(words, ' ', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef word : words) {
    auto [key, value] = word.split('=');
    if (key == "mode" && (value == "strict" || value == "permissive")) {
      options.mode = value == "strict" ? dsm::ImportMode::Strict
                                       : dsm::ImportMode::Permissive;
      continue;
    }
    if (key == "batch" && !value.getAsInteger(10, options.batch) &&
        options.batch >= 0)
      continue;
    if (key == "dims") {
      llvm::SmallVector<llvm::StringRef> entries;
      value.split(entries, ',', -1, /*KeepEmpty=*/false);
      for (llvm::StringRef entry : entries) {
        auto [name, size] = entry.split('=');
        int64_t parsed;
        if (name.empty() || size.getAsInteger(10, parsed) || parsed < 0)
          return mlir::emitError(loc)
                 << "ONNX import: dims expects <name>=<size>,..., got '"
                 << entry << "'";
        options.dims[name.str()] = parsed;
      }
      continue;
    }
    return mlir::emitError(loc)
           << "ONNX import: bad option '" << word
           << "' (known: mode=strict|permissive, batch=<n>, "
              "dims=<name>=<n>,...)";
  }
  return options.verify(loc);
}

mlir::OwningOpRef<mlir::ModuleOp> importOnnxFile(Session &session,
                                                 llvm::StringRef path,
                                                 llvm::StringRef options) {
  mlir::Location fileLoc =
      mlir::FileLineColLoc::get(&session.context, path, 0, 0);
  dsm::ImportOptions importOptions;
  if (mlir::failed(parseImportOptions(options, importOptions, fileLoc)))
    return nullptr;
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      dsm::core::readBoundedFile(path, /*isText=*/false,
                                 /*requiresNullTerminator=*/false);
  if (!buffer) {
    mlir::emitError(fileLoc) << "cannot read '" << path
                             << "': " << llvm::toString(buffer.takeError());
    return nullptr;
  }
  return dsm::importOnnxModel((*buffer)->getMemBufferRef(), &session.context,
                              importOptions);
}
#endif

/// Runs --dsm-map-system with `options` on `module` and hands back what
/// dsmMapModelFile promises.
int mapModule(Session &session, mlir::OwningOpRef<mlir::ModuleOp> module,
              const char *options, char **report, char **mappedModule,
              char **diagnostics) {
  std::string reportText;
  bool mapped = false;
  if (module) {
    mlir::ModuleOp op = module.get();
    std::unique_ptr<mlir::Pass> pass = dsm::createDsmMapSystem();
    llvm::StringRef text = options ? options : "";
    mlir::Location loc = op.getLoc();
    std::string error;
    auto collect = [&](const llvm::Twine &message) {
      error = message.str();
      return mlir::failure();
    };
    if (mlir::failed(dsm::checkPassOptions(
            *pass, text,
            [&](const llvm::Twine &message) { error = message.str(); })) ||
        mlir::failed(pass->initializeOptions(text, collect))) {
      mlir::emitError(loc) << "--dsm-map-system: " << error;
    } else {
      mlir::PassManager pm(&session.context,
                           mlir::ModuleOp::getOperationName());
      pm.addPass(std::move(pass));
      dsm::ReportCapture capture(reportText);
      dsm::core::ConsoleProgress::clearInterrupt();
      mapped = mlir::succeeded(pm.run(op));
    }
    if (mapped && mappedModule) {
      std::string ir;
      llvm::raw_string_ostream os(ir);
      op->print(os);
      os.flush();
      give(mappedModule, ir);
    }
  }
  // An interrupted search reports its best so far, marked, and fails.
  int interrupt = dsm::core::ConsoleProgress::wasInterrupted()
                      ? dsm::core::ConsoleProgress::getInterruptSignal()
                      : 0;
  if (interrupt)
    dsm::core::ConsoleProgress::clearInterrupt();
  if (mapped || interrupt)
    give(report, reportText);
  give(diagnostics, session.diagnostics());
  return interrupt ? 128 + interrupt : mapped ? 0 : 1;
}

void clearOutputs(char **a, char **b, char **c) {
  for (char **out : {a, b, c})
    if (out)
      *out = nullptr;
}
} // namespace

int dsmMapModelFile(const char *modelPath, const char *options, char **report,
                    char **mappedModule, char **diagnostics) {
  std::lock_guard<std::mutex> lock(callMutex());
  clearOutputs(report, mappedModule, diagnostics);
  mlir::DialectRegistry registry = modelDialects();
  Session session(registry);
  llvm::StringRef path = modelPath ? modelPath : "";
  // A report= naming the model file is an error, never written over it.
  dsm::ProtectedFiles ownFiles;
  ownFiles.add(path, "the model");
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (path.ends_with(".onnx")) {
#ifdef DSM_ENABLE_ONNX
    module = importOnnxFile(session, path, "");
#else
    mlir::emitError(mlir::FileLineColLoc::get(&session.context, path, 0, 0))
        << "this dsm-opt was built without the ONNX importer "
           "(DSM_ENABLE_ONNX=OFF)";
#endif
  } else {
    mlir::ParserConfig config(&session.context);
    module = dsm::parseScreenedFile(path, config);
  }
  return mapModule(session, std::move(module), options, report, mappedModule,
                   diagnostics);
}

int dsmMapModelText(const char *mlirText, const char *bufferName,
                    const char *options, char **report, char **mappedModule,
                    char **diagnostics) {
  std::lock_guard<std::mutex> lock(callMutex());
  clearOutputs(report, mappedModule, diagnostics);
  mlir::DialectRegistry registry = modelDialects();
  Session session(registry);
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      llvm::MemoryBuffer::getMemBufferCopy(mlirText ? mlirText : "",
                                           bufferName ? bufferName : "<text>");
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (mlir::succeeded(dsm::screenMlirText(*buffer, &session.context))) {
    session.sources.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    mlir::ParserConfig config(&session.context);
    module = mlir::parseSourceFile<mlir::ModuleOp>(session.sources, config);
  }
  return mapModule(session, std::move(module), options, report, mappedModule,
                   diagnostics);
}

int dsmImportOnnxFile(const char *onnxPath, const char *options, char **module,
                      char **diagnostics) {
  std::lock_guard<std::mutex> lock(callMutex());
  clearOutputs(module, diagnostics, nullptr);
#ifdef DSM_ENABLE_ONNX
  mlir::DialectRegistry registry = modelDialects();
  Session session(registry);
  mlir::OwningOpRef<mlir::ModuleOp> imported =
      importOnnxFile(session, onnxPath ? onnxPath : "", options ? options : "");
  if (imported && module) {
    // Locations carry the layer names: printed, as dsm-translate does.
    std::string ir;
    llvm::raw_string_ostream os(ir);
    imported->print(os, mlir::OpPrintingFlags().enableDebugInfo());
    os.flush();
    give(module, ir);
  }
  give(diagnostics, session.diagnostics());
  return imported ? 0 : 1;
#else
  (void)onnxPath;
  (void)options;
  give(diagnostics, "this library was built without the ONNX importer "
                    "(DSM_ENABLE_ONNX=OFF)\n");
  return 2;
#endif
}

void dsmStringDestroy(char *string) { std::free(string); }

MlirStringRef dsmGetVersion(void) {
  return mlirStringRefCreate(DSM_VERSION, sizeof(DSM_VERSION) - 1);
}

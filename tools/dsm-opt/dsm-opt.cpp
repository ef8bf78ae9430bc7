//===- dsm-opt.cpp - The dsm-opt driver -----------------------------------===//
//
// mlir-opt with the dsm dialect, the dialects models arrive in, and every dsm
// pass and pipeline.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Support/BoundedFile.h"
#include "dsm/Core/Support/ConsoleProgress.h"
#include "dsm/Dialect/DsmDialect.h"
#include "dsm/Export/Passes.h"
#include "dsm/Export/ShardingModels.h"
#include "dsm/Import/Passes.h"
#include "dsm/Import/UpgradeMlir.h"
#include "dsm/Passes/OptionCheck.h"
#include "dsm/Passes/Passes.h"
#include "dsm/Support/MlirSource.h"
#include "dsm/Support/ReportWriter.h"
#include "dsm/Support/ToolOptions.h"

#include "mlir/Dialect/Shard/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <csignal>

/// Checks the options of every `--dsm-<pass>="..."` argument for people
/// (dsm/Passes/OptionCheck.h) before MLIR's parser sees them: an unknown
/// option gets the closest name, an enum value the values it may take.
static bool checkDsmPassArguments(int argc, char **argv,
                                  mlir::DialectRegistry &registry) {
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = llvm::StringRef(argv[i]).ltrim('-');
    if (!arg.starts_with("dsm-") || !arg.contains('='))
      continue;
    auto [name, options] = arg.split('=');
    const mlir::PassInfo *info = mlir::PassInfo::lookup(name);
    if (!info)
      continue;
    mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
    mlir::OpPassManager pm(mlir::ModuleOp::getOperationName());
    if (mlir::failed(info->addToPipeline(
            pm, "", [](const llvm::Twine &) { return mlir::failure(); })) ||
        pm.getPasses().empty())
      continue;
    mlir::Pass &pass = *pm.getPasses().begin();
    if (pass.getArgument() != name)
      continue;
    std::string problem;
    if (mlir::succeeded(dsm::checkPassOptions(
            pass, options,
            [&](const llvm::Twine &message) { problem = message.str(); })))
      continue;
    llvm::errs() << "dsm-opt: error: --" << name << ": " << problem << "\n";
    return false;
  }
  return true;
}

/// Says that the output `name` could not be written, and why.
static void outputFailed(llvm::StringRef name, std::error_code ec) {
  llvm::errs() << "dsm-opt: error: cannot write ";
  if (name == "-")
    llvm::errs() << "the output to standard output";
  else
    llvm::errs() << "'" << name << "'";
  llvm::errs() << ": " << ec.message() << "\n";
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  // --help lists the passes and MLIR's options, not LLVM's back ends'.
  dsm::hideOtherProjectsOptions();
  // --version names the tool, then the LLVM/MLIR it is built on.
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "dsm-opt version " DSM_VERSION "\n  built with LLVM/MLIR "
       << LLVM_VERSION_STRING << "\n";
  });
  mlir::DialectRegistry registry;
  dsm::registerImportDialects(registry);
  // Before any upstream sharding model, so that convolutions partition.
  dsm::registerShardingModels(registry);
  // What partitions a program --dsm-export-shard annotated.
  mlir::shard::registerShardingPropagation();
  mlir::shard::registerPartition();
  dsm::registerDsmPasses();
  dsm::registerDsmImportPasses();
  dsm::registerDsmExportPasses();
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv,
      "dsm-opt: maps deep neural networks onto accelerator systems\n",
      registry);
  // An error is said by its message and location: the operation it is at
  // is not printed beside it (a module-level refusal printed the whole
  // model), unless --mlir-print-op-on-diagnostic asks for it.
  if (llvm::cl::Option *printOp = llvm::cl::getRegisteredOptions().lookup(
          "mlir-print-op-on-diagnostic"))
    if (printOp->getNumOccurrences() == 0)
      *static_cast<llvm::cl::opt<bool> *>(printOp) = false;
  if (!checkDsmPassArguments(argc, argv, registry))
    return 1;
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // What is printed has been verified: on parsing, and after every pass
  // that changed it (--verify-each, on by default). The printer would
  // verify it once more to choose between the custom and the generic form
  // (on 10,000 transformer blocks, 0.4 s of a 20 s run); with either check
  // turned off, or the option given, it does as asked.
  if (config.shouldVerifyPasses() && config.shouldVerifyOnParsing())
    if (llvm::cl::Option *assumeVerified =
            llvm::cl::getRegisteredOptions().lookup(
                "mlir-print-assume-verified"))
      if (assumeVerified->getNumOccurrences() == 0)
        *static_cast<llvm::cl::opt<bool> *>(assumeVerified) = true;
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  // The input, a file or standard input, is read here so that what upstream
  // parsers crash on instead of reporting (MlirSource.h) is reported located
  // before parsing, whichever way it arrives.
  // Bounded (BoundedFile.h): /dev/zero is refused, not read until memory
  // runs out.
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> read =
      dsm::core::readBoundedFile(inputFilename, /*isText=*/false);
  if (!read) {
    llvm::errs() << "cannot open input file '" << inputFilename
                 << "': " << llvm::toString(read.takeError()) << "\n";
    return 1;
  }
  std::unique_ptr<llvm::MemoryBuffer> input = std::move(*read);
  {
    mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
    llvm::SourceMgr sources;
    sources.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(input->getMemBufferRef(),
                                         /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
    mlir::SourceMgrDiagnosticHandler handler(sources, &context);
    if (mlir::failed(dsm::screenMlirText(*input, &context)))
      return 1;
  }
  // The output is dsm-opt's own (not upstream's ToolOutputFile, which
  // truncates an existing file at once and removes it when the run fails or
  // a signal ends it): written beside an existing file and put in its place
  // only when the run succeeds (dsm::OutputFile).
  // No report may replace the model or the output (report=, trace=,
  // output= naming either is an error at the pass).
  dsm::ProtectedFiles ownFiles;
  std::unique_ptr<dsm::OutputFile> output =
      dsm::openToolOutput("dsm-opt", inputFilename, outputFilename, ownFiles);
  if (!output)
    return 1;
  // The reports are written once the pipeline has succeeded and the
  // output is complete: a failure or a signal in between leaves none.
  dsm::DeferredReports reports;
  // MlirOptMain reads a view: the text stays here for the hint below.
  mlir::LogicalResult ran = mlir::MlirOptMain(
      output->os(),
      llvm::MemoryBuffer::getMemBuffer(input->getMemBufferRef(),
                                       /*RequiresNullTerminator=*/false),
      registry, config);
  // A search ended by Ctrl-C or SIGTERM reported its best so far and
  // failed: that report is written, and the exit is as a shell reports the
  // signal (130, 143). A signal that came once every pass had run (while
  // the IR was printed) ends the run with neither the IR nor a report.
  std::error_code writeError = output->finish();
  if (writeError)
    outputFailed(outputFilename, writeError);
  bool written = !writeError;
  if (dsm::core::ConsoleProgress::wasInterrupted()) {
    if (mlir::failed(ran))
      (void)reports.commit();
    return 128 + (dsm::core::ConsoleProgress::getInterruptSignal()
                      ? dsm::core::ConsoleProgress::getInterruptSignal()
                      : SIGINT);
  }
  if (mlir::failed(ran)) {
    // A file from an older MLIR does not parse; MLIR's own error says where,
    // this says what upgrades it.
    mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
    if (dsm::hasOlderMlirSpellings(input->getBuffer(), &context))
      llvm::errs() << input->getBufferIdentifier()
                   << ": note: the file uses spellings of an older MLIR; "
                      "'dsm-translate --upgrade-mlir' rewrites them into the "
                      "current ones\n";
    return 1;
  }
  // An output that could not be written (a full disk, /dev/full) fails the
  // run: its reports are not written either.
  if (!written)
    return 1;
  if (std::error_code ec = output->commit()) {
    outputFailed(outputFilename, ec);
    return 1;
  }
  return reports.commit() ? 0 : 1;
}

//===- dsm-translate.cpp - The dsm-translate driver -----------------------===//
//
// mlir-translate with the dsm importers: `dsm-translate --import-onnx
// model.onnx` or `--import-paleo net.json` writes the model as dsm MLIR. Layer
// names are locations, so they are printed by default
// (--mlir-print-debuginfo=false turns them off). `--upgrade-mlir old.mlir`
// rewrites MLIR written before the current syntax into it.
//
// The driver is upstream mlirTranslateMain's, with the same command line,
// but its input is read by the bounded reader every input goes through
// (BoundedFile.h): upstream read a FIFO that never ends until memory ran
// out; and its output is kept back as dsm-opt's is (dsm::OutputFile): an
// existing -o file stays unless the translation succeeds, and no report
// (--onnx-summary=) replaces the input or the output.
//
//===----------------------------------------------------------------------===//

#ifdef DSM_ENABLE_ONNX
#include "dsm/Import/OnnxTranslation.h"
#endif

#include "dsm/Core/Support/BoundedFile.h"
#include "dsm/Import/PaleoTranslation.h"
#include "dsm/Import/UpgradeMlir.h"
#include "dsm/Support/ReportWriter.h"
#include "dsm/Support/ToolOptions.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/Timing.h"
#include "mlir/Support/ToolUtilities.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

/// Says that the output `name` could not be written, and why.
static void outputFailed(llvm::StringRef name, std::error_code ec) {
  llvm::errs() << "dsm-translate: error: cannot write ";
  if (name == "-")
    llvm::errs() << "the output to standard output";
  else
    llvm::errs() << "'" << name << "'";
  llvm::errs() << ": " << ec.message() << "\n";
}

/// The command line of upstream's mlirTranslateMain, whose driver this is:
/// the input and the output are dsm-translate's own (the input read by the
/// bounded reader, BoundedFile.h), the rest is as upstream does it.
struct TranslateOptions {
  llvm::cl::opt<std::string> inputFilename{llvm::cl::Positional,
                                           llvm::cl::desc("<input file>"),
                                           llvm::cl::init("-")};
  llvm::cl::opt<std::string> outputFilename{
      "o", llvm::cl::desc("Output filename"), llvm::cl::value_desc("filename"),
      llvm::cl::init("-")};
  llvm::cl::opt<bool> allowUnregisteredDialects{
      "allow-unregistered-dialect",
      llvm::cl::desc("Allow operation with no registered dialects "
                     "(discouraged: testing only!)"),
      llvm::cl::init(false)};
  llvm::cl::opt<std::string> inputSplitMarker{
      "split-input-file", llvm::cl::ValueOptional,
      llvm::cl::callback([this](const std::string &marker) {
        // Given without a value: the default marker.
        if (marker.empty())
          inputSplitMarker.setValue(mlir::kDefaultSplitMarker);
      }),
      llvm::cl::desc("Split the input file into chunks using the given or "
                     "default marker and process each chunk independently"),
      llvm::cl::init("")};
  llvm::cl::opt<mlir::SourceMgrDiagnosticVerifierHandler::Level>
      verifyDiagnostics{
          "verify-diagnostics", llvm::cl::ValueOptional,
          llvm::cl::desc("Check that emitted diagnostics match expected-* "
                         "lines on the corresponding line"),
          llvm::cl::values(
              clEnumValN(
                  mlir::SourceMgrDiagnosticVerifierHandler::Level::All, "all",
                  "Check all diagnostics (expected, unexpected, near-misses)"),
              clEnumValN(
                  mlir::SourceMgrDiagnosticVerifierHandler::Level::All, "",
                  "Check all diagnostics (expected, unexpected, near-misses)"),
              clEnumValN(
                  mlir::SourceMgrDiagnosticVerifierHandler::Level::OnlyExpected,
                  "only-expected", "Check only expected diagnostics"))};
  llvm::cl::opt<bool> errorDiagnosticsOnly{
      "error-diagnostics-only",
      llvm::cl::desc("Filter all non-error diagnostics "
                     "(discouraged: testing only!)"),
      llvm::cl::init(false)};
  llvm::cl::opt<std::string> outputSplitMarker{
      "output-split-marker",
      llvm::cl::desc("Split marker to use for merging the ouput"),
      llvm::cl::init("")};
  llvm::cl::list<const mlir::Translation *, bool, mlir::TranslationParser>
      translations{"", llvm::cl::desc("Translations to perform"),
                   llvm::cl::Required};
};

/// Runs the translations asked for on `input`, each on a new context, the
/// last one's result to `os` (as mlirTranslateMain does).
static mlir::LogicalResult translate(TranslateOptions &options,
                                     mlir::TimingScope &timing,
                                     std::unique_ptr<llvm::MemoryBuffer> input,
                                     llvm::raw_ostream &os) {
  // Translations expect a null-terminated buffer, which a chunk of a split
  // input is not.
  if (!input->getBuffer().ends_with('\0'))
    input = llvm::MemoryBuffer::getMemBufferCopy(input->getBuffer(),
                                                 input->getBufferIdentifier());
  std::string dataIn, dataOut;
  for (size_t i = 0, e = options.translations.size(); i < e; ++i) {
    llvm::raw_string_ostream dataStream(dataOut);
    llvm::raw_ostream &stream = i + 1 == e ? os : dataStream;
    const mlir::Translation &translation = *options.translations[i];
    mlir::TimingScope translationTiming =
        timing.nest(translation.getDescription());
    mlir::MLIRContext context;
    context.allowUnregisteredDialects(options.allowUnregisteredDialects);
    context.printOpOnDiagnostic(options.verifyDiagnostics.getNumOccurrences() ==
                                0);
    auto sources = std::make_shared<llvm::SourceMgr>();
    sources->AddNewSourceBuffer(std::move(input), llvm::SMLoc());
    mlir::LogicalResult result = mlir::success();
    if (options.verifyDiagnostics.getNumOccurrences()) {
      // Whether the translation fails does not matter (most such tests
      // expect it to): the diagnostics must be the expected ones.
      mlir::SourceMgrDiagnosticVerifierHandler handler(
          *sources, &context, options.verifyDiagnostics);
      (void)translation(sources, os, &context);
      result = handler.verify();
    } else if (options.errorDiagnosticsOnly) {
      mlir::SourceMgrDiagnosticHandler handler(*sources, &context);
      mlir::ScopedDiagnosticHandler errorsOnly(
          &context, [](mlir::Diagnostic &diagnostic) {
            return mlir::success(diagnostic.getSeverity() !=
                                 mlir::DiagnosticSeverity::Error);
          });
      result = translation(sources, stream, &context);
    } else {
      mlir::SourceMgrDiagnosticHandler handler(*sources, &context);
      result = translation(sources, stream, &context);
    }
    if (mlir::failed(result))
      return result;
    if (i + 1 < e) {
      dataIn = std::move(dataOut);
      dataOut.clear();
      input = llvm::MemoryBuffer::getMemBuffer(dataIn);
    }
  }
  return mlir::success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  // --help lists the translations and MLIR's options, not LLVM's back ends'.
  dsm::hideOtherProjectsOptions();
#ifdef DSM_ENABLE_ONNX
  dsm::registerImportOnnxTranslation();
#endif
  dsm::registerImportPaleoTranslation();
  dsm::registerUpgradeMlirTranslation();
  static TranslateOptions options;
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerTranslationCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  auto &registered = llvm::cl::getRegisteredOptions();
  if (llvm::cl::Option *debugInfo = registered.lookup("mlir-print-debuginfo"))
    static_cast<llvm::cl::opt<bool> *>(debugInfo)->setInitialValue(true);
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "dsm-translate: imports models into the dsm dialect\n");

  mlir::DefaultTimingManager timingManager;
  mlir::applyDefaultTimingManagerCLOptions(timingManager);
  mlir::TimingScope timing = timingManager.getRootScope();

  // Bounded (BoundedFile.h): a device such as /dev/zero, a file past 2 GiB
  // or a stream (a FIFO, standard input) that goes on past 2 GiB is
  // refused, naming the file, not read until memory runs out.
  const std::string &inputFilename = options.inputFilename;
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> read =
      dsm::core::readBoundedFile(inputFilename, /*isText=*/false);
  if (!read) {
    llvm::errs() << "dsm-translate: error: cannot open input file '"
                 << inputFilename << "': " << llvm::toString(read.takeError())
                 << "\n";
    return 1;
  }
  std::unique_ptr<llvm::MemoryBuffer> input = std::move(*read);
  // A translation may ask for its input aligned (none of dsm's do).
  if (std::optional<llvm::Align> alignment =
          options.translations[0]->getInputAlignment();
      alignment && !llvm::isAddrAligned(*alignment, input->getBufferStart())) {
    std::unique_ptr<llvm::WritableMemoryBuffer> aligned =
        llvm::WritableMemoryBuffer::getNewUninitMemBuffer(
            input->getBufferSize(), input->getBufferIdentifier(), alignment);
    llvm::copy(input->getBuffer(), aligned->getBufferStart());
    input = std::move(aligned);
  }

  // The output is dsm-translate's own, as dsm-opt's (upstream's
  // ToolOutputFile truncated an existing file at once and removed it when
  // the run failed): written beside an existing file and put in its place
  // only when the translation succeeds (dsm::OutputFile).
  // No report (--onnx-summary=) replaces the input or the output: an error
  // at the input naming both, nothing written.
  const std::string &outputFilename = options.outputFilename;
  dsm::ProtectedFiles ownFiles;
  std::unique_ptr<dsm::OutputFile> output = dsm::openToolOutput(
      "dsm-translate", inputFilename, outputFilename, ownFiles);
  if (!output)
    return 1;
  // The reports are written once the output is complete.
  dsm::DeferredReports reports;
  if (mlir::failed(mlir::splitAndProcessBuffer(
          std::move(input),
          [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
              llvm::raw_ostream &os) {
            return translate(options, timing, std::move(chunk), os);
          },
          output->os(), options.inputSplitMarker, options.outputSplitMarker)))
    return 1;
  // An output that could not be written (a full disk, /dev/full) fails the
  // run: its reports are not written either.
  if (std::error_code ec = output->commit()) {
    outputFailed(outputFilename, ec);
    return 1;
  }
  return reports.commit() ? 0 : 1;
}

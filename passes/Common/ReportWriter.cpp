//===- ReportWriter.cpp - Reports to stdout or to a file ------------------===//

#include "dsm/Passes/Common/ReportWriter.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;

LogicalResult
dsm::writeReport(StringRef path, Location loc,
                 llvm::function_ref<void(llvm::raw_ostream &)> print) {
  if (path.empty() || path == "-") {
    print(llvm::outs());
    llvm::outs().flush();
    return success();
  }
  // Write to a temporary file beside the destination, then rename, so a
  // failure never leaves a partial report behind.
  SmallString<128> model(path);
  model += ".tmp-%%%%%%";
  int fd;
  SmallString<128> tempPath;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueFile(model, fd, tempPath))
    return emitError(loc) << "cannot write report '" << path
                          << "': " << ec.message();
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    print(os);
    os.flush();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(tempPath);
      return emitError(loc) << "cannot write report '" << path
                            << "': " << message;
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(tempPath, path)) {
    llvm::sys::fs::remove(tempPath);
    return emitError(loc) << "cannot write report '" << path
                          << "': " << ec.message();
  }
  return success();
}

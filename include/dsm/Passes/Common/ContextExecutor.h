//===- ContextExecutor.h - The executor a pass hands the core ---*- C++ -*-===//
//
// The core never creates threads (dsm/Core/Support/Executor.h): a pass gives
// it the MLIRContext's thread pool, or this thread when threading is disabled
// (--mlir-disable-threading). Results are the same either way.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_PASSES_COMMON_CONTEXTEXECUTOR_H
#define DSM_PASSES_COMMON_CONTEXTEXECUTOR_H

#include "dsm/Core/Support/Executor.h"
#include "mlir/IR/MLIRContext.h"

#include <optional>

namespace dsm {

class ContextExecutor {
public:
  explicit ContextExecutor(mlir::MLIRContext *context) {
    if (context->isMultithreadingEnabled())
      pooled.emplace(context->getThreadPool());
  }

  core::Executor &get() {
    return pooled ? static_cast<core::Executor &>(*pooled) : serial;
  }

private:
  core::SerialExecutor serial;
  std::optional<core::ThreadPoolExecutor> pooled;
};

} // namespace dsm

#endif // DSM_PASSES_COMMON_CONTEXTEXECUTOR_H

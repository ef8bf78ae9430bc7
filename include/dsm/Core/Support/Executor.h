//===- Executor.h - Where the core runs independent work --------*- C++ -*-===//
//
// The core never creates threads of its own: a caller hands it an Executor.
// Passes wrap the MLIRContext's thread pool (so --mlir-disable-threading keeps
// everything on one thread); tools and unit tests use SerialExecutor or their
// own pool. Results must not depend on which executor ran the work: tasks
// write to their own slots and the caller combines them in index order.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SUPPORT_EXECUTOR_H
#define DSM_CORE_SUPPORT_EXECUTOR_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstddef>

namespace llvm {
class ThreadPoolInterface;
} // namespace llvm

namespace dsm::core {

class Executor {
public:
  virtual ~Executor();

  /// Calls `task(i)` for every i in [0, count) and returns when all are done.
  /// Tasks may run concurrently and in any order.
  virtual void parallelFor(size_t count,
                           llvm::function_ref<void(size_t)> task) = 0;

  /// How many tasks may run at once (1 for a serial executor).
  virtual unsigned getConcurrency() const = 0;
};

/// Runs every task on the calling thread, in index order.
class SerialExecutor final : public Executor {
public:
  void parallelFor(size_t count,
                   llvm::function_ref<void(size_t)> task) override;
  unsigned getConcurrency() const override { return 1; }
};

/// Runs tasks on an LLVM thread pool (in passes: the MLIRContext's).
class ThreadPoolExecutor final : public Executor {
public:
  explicit ThreadPoolExecutor(llvm::ThreadPoolInterface &pool) : pool(pool) {}
  void parallelFor(size_t count,
                   llvm::function_ref<void(size_t)> task) override;
  unsigned getConcurrency() const override;

private:
  llvm::ThreadPoolInterface &pool;
};

} // namespace dsm::core

#endif // DSM_CORE_SUPPORT_EXECUTOR_H

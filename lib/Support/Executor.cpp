//===- Executor.cpp - Where the core runs independent work ---------------===//

#include "dsm/Core/Support/Executor.h"

#include "llvm/Support/ThreadPool.h"

using namespace dsm::core;

Executor::~Executor() = default;

void SerialExecutor::parallelFor(size_t count,
                                 llvm::function_ref<void(size_t)> task) {
  for (size_t i = 0; i < count; ++i)
    task(i);
}

void ThreadPoolExecutor::parallelFor(size_t count,
                                     llvm::function_ref<void(size_t)> task) {
  if (count <= 1 || pool.getMaxConcurrency() <= 1) {
    for (size_t i = 0; i < count; ++i)
      task(i);
    return;
  }
  // A group of our own, so waiting does not wait for unrelated work that
  // shares the pool (the MLIRContext's pool serves the whole compiler).
  llvm::ThreadPoolTaskGroup group(pool);
  for (size_t i = 0; i < count; ++i)
    group.async([&task, i] { task(i); });
  group.wait();
}

unsigned ThreadPoolExecutor::getConcurrency() const {
  return pool.getMaxConcurrency();
}

//===- Executor.cpp - Where the core runs independent work ---------------===//

#include "dsm/Core/Support/Executor.h"

#include "llvm/Support/ThreadPool.h"

#include <algorithm>
#include <atomic>

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
  // One worker per thread, each taking the next index until none is left,
  // rather than one pool task per index: a task costs an allocation, a
  // future and a wake-up, as much as a small task's work (a design-space
  // exploration takes microseconds). The calling thread is one of the
  // workers. A group of our own, so waiting does not wait for unrelated
  // work that shares the pool (the MLIRContext's pool serves the whole
  // compiler).
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < count; i = next++)
      task(i);
  };
  size_t workers = std::min<size_t>(count, pool.getMaxConcurrency());
  llvm::ThreadPoolTaskGroup group(pool);
  for (size_t w = 1; w < workers; ++w)
    group.async(work);
  work();
  group.wait();
}

unsigned ThreadPoolExecutor::getConcurrency() const {
  return pool.getMaxConcurrency();
}

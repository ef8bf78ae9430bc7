//===- Progress.cpp - What a long search reports, and when it stops -------===//

#include "dsm/Core/Support/Progress.h"

#include <chrono>

using namespace dsm::core;

static double steadySeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Progress::~Progress() = default;

Progress &Progress::none() {
  static Progress silent;
  return silent;
}

DeadlineProgress::DeadlineProgress(Progress &inner, double seconds)
    : inner(inner), seconds(seconds), start(steadySeconds()) {}

bool DeadlineProgress::shouldStop() {
  if (inner.shouldStop())
    return true;
  if (!reached && seconds > 0 && steadySeconds() - start >= seconds)
    reached = true;
  return reached;
}

char InterruptedError::ID = 0;

void InterruptedError::log(llvm::raw_ostream &os) const {
  os << "interrupted after " << done << " of " << total << " " << unit;
}

std::error_code InterruptedError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

//===- Progress.cpp - What a long search reports, and when it stops -------===//

#include "dsm/Core/Support/Progress.h"

using namespace dsm::core;

Progress::~Progress() = default;

Progress &Progress::none() {
  static Progress silent;
  return silent;
}

char InterruptedError::ID = 0;

void InterruptedError::log(llvm::raw_ostream &os) const {
  os << "interrupted after " << done << " of " << total << " " << unit;
}

std::error_code InterruptedError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

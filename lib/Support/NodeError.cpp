//===- NodeError.cpp - A core error about one node of a graph -------------===//

#include "dsm/Core/Support/NodeError.h"

using namespace dsm::core;

char NodeError::ID = 0;

void NodeError::log(llvm::raw_ostream &os) const {
  os << "node " << node << ": " << message;
}

std::error_code NodeError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

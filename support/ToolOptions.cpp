//===- ToolOptions.cpp - What the tools' --help lists ---------------------===//

#include "dsm/Support/ToolOptions.h"

#include "llvm/Support/CommandLine.h"

void dsm::hideOtherProjectsOptions() {
  for (auto &entry : llvm::cl::getRegisteredOptions()) {
    llvm::cl::Option *option = entry.second;
    bool generic = false;
    for (llvm::cl::OptionCategory *category : option->Categories)
      generic |= category->getName() == "Generic Options";
    if (!generic)
      option->setHiddenFlag(llvm::cl::ReallyHidden);
  }
}

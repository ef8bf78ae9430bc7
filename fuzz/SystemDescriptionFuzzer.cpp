//===- SystemDescriptionFuzzer.cpp - Fuzz the system-description reader ---===//
//
// Any bytes: parse as YAML/JSON, validate as a system description. A valid
// description must survive the round trip through its stored form (what
// #dsm.system keeps in the IR) unchanged. Errors are fine; crashes, hangs and
// sanitizer reports are not.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/System/SpecNode.h"
#include "dsm/Core/System/SystemDescription.h"

#include <cstdint>
#include <cstdlib>

using namespace dsm::core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  llvm::Expected<SpecNode> tree = parseSpec(text, "fuzz.yaml");
  if (!tree) {
    llvm::consumeError(tree.takeError());
    return 0;
  }
  llvm::Expected<SystemDescription> system = readSystemDescription(*tree);
  if (!system) {
    llvm::consumeError(system.takeError());
    return 0;
  }
  llvm::Expected<SystemDescription> again =
      readSystemDescription(writeSystemDescription(*system));
  if (!again) {
    // A description we accepted must read back: anything else is a bug.
    llvm::errs() << "round trip failed: " << llvm::toString(again.takeError())
                 << "\n";
    std::abort();
  }
  return 0;
}

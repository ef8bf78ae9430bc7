//===- SystemLoader.cpp - Presets and system files ------------------------===//

#include "dsm/Core/System/SystemLoader.h"

#include "dsm/Core/Support/BoundedFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace dsm::core;

namespace {
// Generated from systems/*.yaml by systems/EmbedPresets.cmake.
#include "dsm/Core/System/SystemPresets.inc"
} // namespace

llvm::ArrayRef<SystemPreset> dsm::core::getSystemPresets() {
  return kSystemPresets;
}

llvm::Expected<SystemDescription> dsm::core::parseSystemDescription(
    llvm::StringRef text, llvm::StringRef fileName,
    std::vector<SpecWarning> *warnings, const SystemOverrides &overrides) {
  llvm::Expected<SpecNode> tree = parseSpec(text, fileName);
  if (!tree)
    return tree.takeError();
  // A file without a name of its own (the peer's device graphs) is named
  // after the file.
  return readSystemDescription(*tree, llvm::sys::path::stem(fileName), warnings,
                               overrides);
}

llvm::Expected<SystemDescription>
dsm::core::loadSystem(llvm::StringRef nameOrPath,
                      std::vector<SpecWarning> *warnings,
                      const SystemOverrides &overrides) {
  for (const SystemPreset &preset : getSystemPresets())
    if (preset.name == nameOrPath)
      return parseSystemDescription(preset.text, preset.fileName, warnings,
                                    overrides);

  // Bounded: `system=/dev/zero` is refused, not read until memory runs out.
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readBoundedFile(nameOrPath);
  if (!buffer) {
    SpecLocation loc;
    loc.file = nameOrPath.str();
    std::string message = llvm::toString(buffer.takeError());
    // A name that is no file may have been meant as a preset.
    if (llvm::sys::fs::exists(nameOrPath))
      return llvm::make_error<SpecError>(loc,
                                         "cannot read system file: " + message);
    std::vector<llvm::StringRef> names;
    for (const SystemPreset &preset : getSystemPresets())
      names.push_back(preset.name);
    return llvm::make_error<SpecError>(
        loc, "cannot open system file: " + message +
                 " (and it is not a preset: " + llvm::join(names, ", ") + ")");
  }
  return parseSystemDescription((*buffer)->getBuffer(), nameOrPath, warnings,
                                overrides);
}

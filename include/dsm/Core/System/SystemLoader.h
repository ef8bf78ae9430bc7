//===- SystemLoader.h - Presets and system files ----------------*- C++ -*-===//
//
// `system=<preset|file>`: a name from systems/ (compiled into the library, so
// the tool works from any directory) or a path to a YAML/JSON description.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SYSTEM_SYSTEMLOADER_H
#define DSM_CORE_SYSTEM_SYSTEMLOADER_H

#include "dsm/Core/System/SystemDescription.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace dsm::core {

struct SystemPreset {
  llvm::StringRef name;
  llvm::StringRef fileName; ///< as in the source tree, for messages
  llvm::StringRef text;
};

/// The built-in presets, sorted by name.
llvm::ArrayRef<SystemPreset> getSystemPresets();

/// Parses and validates a description from text; `fileName` names it in
/// errors. `warnings`, when given, receives located warnings
/// (readSystemDescription).
llvm::Expected<SystemDescription>
parseSystemDescription(llvm::StringRef text, llvm::StringRef fileName,
                       std::vector<SpecWarning> *warnings = nullptr,
                       const SystemOverrides &overrides = {});

/// Loads a preset by name, or else a file by path. Errors are SpecErrors that
/// name the file (and line and field where they have one).
llvm::Expected<SystemDescription>
loadSystem(llvm::StringRef nameOrPath,
           std::vector<SpecWarning> *warnings = nullptr,
           const SystemOverrides &overrides = {});

} // namespace dsm::core

#endif // DSM_CORE_SYSTEM_SYSTEMLOADER_H

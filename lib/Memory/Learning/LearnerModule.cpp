//===- LearnerModule.cpp - Loading the learner on first use ---------------===//
//
// Part of DsmMemory (no libtorch here): finds DsmMemoryLearning.so, loads it
// once with its libtorch, and asks it for learners. The module is looked for,
// in order, at
//
//   1. $DSM_LEARNING_MODULE, when set (a relocated or test build);
//   2. beside the binary this code is linked into, and in ../lib from it:
//      bin/dsm-opt finds lib/DsmMemoryLearning.so in the build tree and in
//      an installed (or moved) prefix alike, lib/DsmPlugin.so and
//      lib/libDsmCAPI.so find it beside them;
//   3. where this build put it, then where it installs it (a downstream
//      binary that links the static libraries from anywhere).
//
// Loaded with RTLD_LOCAL, so libtorch's symbols never interpose on the
// host's (libLLVM, protobuf); the module stays loaded for the process.
//
//===----------------------------------------------------------------------===//

#include "GraphPolicyLearner.h"

#include "../MemorySearches.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

using namespace dsm::core::memory;
using namespace dsm::core::memory::learning;

#define DSM_STRINGIFY_NAME(name) #name
#define DSM_STRINGIFY(name) DSM_STRINGIFY_NAME(name)

namespace {

/// The outcome of the one attempt to load the module: the entry point, or
/// why there is none.
struct LoadedModule {
  CreateGraphPolicyLearnerFn *create = nullptr;
  std::string failure;
};

#ifdef DSM_LEARNING_MODULE_NAME
/// The paths to try, in order (the file comment).
llvm::SmallVector<std::string> candidatePaths() {
  llvm::SmallVector<std::string> paths;
  if (const char *path = std::getenv("DSM_LEARNING_MODULE"); path && *path) {
    paths.push_back(path);
    return paths; // an explicit choice: no fallback that could hide it
  }
  Dl_info self;
  if (dladdr(reinterpret_cast<void *>(&loadGraphPolicyLearnerModule), &self) &&
      self.dli_fname) {
    llvm::SmallString<256> directory(self.dli_fname);
    llvm::sys::path::remove_filename(directory);
    llvm::SmallString<256> beside(directory), inLib(directory);
    llvm::sys::path::append(beside, DSM_LEARNING_MODULE_NAME);
    llvm::sys::path::append(inLib, "..", "lib", DSM_LEARNING_MODULE_NAME);
    paths.push_back(beside.str().str());
    paths.push_back(inLib.str().str());
  }
  paths.push_back(DSM_LEARNING_MODULE_BUILD_PATH);
  paths.push_back(DSM_LEARNING_MODULE_INSTALL_PATH);
  return paths;
}

LoadedModule load() {
  LoadedModule module;
  llvm::SmallVector<std::string> paths = candidatePaths();
  for (const std::string &path : paths) {
    if (!llvm::sys::fs::exists(path))
      continue;
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      module.failure = "cannot load " + path + ": " + dlerror();
      return module;
    }
    void *entry = dlsym(handle, DSM_STRINGIFY(DSM_GRAPH_POLICY_LEARNER_ENTRY));
    if (!entry) {
      module.failure = path + " is not this build's learner module (no " +
                       DSM_STRINGIFY(DSM_GRAPH_POLICY_LEARNER_ENTRY) + ")";
      dlclose(handle); // nothing of it is used
      return module;
    }
    module.create = reinterpret_cast<CreateGraphPolicyLearnerFn *>(entry);
    return module;
  }
  module.failure = "cannot find " DSM_LEARNING_MODULE_NAME " (looked at";
  for (const std::string &path : paths)
    module.failure += " " + path;
  module.failure += "; set DSM_LEARNING_MODULE to its path)";
  return module;
}
#endif

const LoadedModule &getModule() {
  static LoadedModule module;
  static std::once_flag once;
  std::call_once(once, [] {
#ifdef DSM_LEARNING_MODULE_NAME
    module = load();
#endif
  });
  return module;
}

} // namespace

llvm::Error learning::loadGraphPolicyLearnerModule(llvm::StringRef placement) {
#ifndef DSM_LEARNING_MODULE_NAME
  // Built without libtorch: there is no module.
  return detail::makeMissingLibraryError(placement, "libtorch", "libtorch-dev",
                                         "DSM_ENABLE_TORCH");
#else
  const LoadedModule &module = getModule();
  if (!module.create)
    return llvm::createStringError(
        llvm::Twine("placement '") + placement +
        "' needs libtorch's learner module: " + module.failure);
  return llvm::Error::success();
#endif
}

llvm::Expected<std::unique_ptr<GraphPolicyLearner>>
learning::createGraphPolicyLearner(llvm::StringRef placement,
                                   const PolicyGraph &graph,
                                   const SacHyperParameters &parameters,
                                   uint64_t seed) {
  if (llvm::Error error = loadGraphPolicyLearnerModule(placement))
    return std::move(error);
  std::string failure;
  std::unique_ptr<GraphPolicyLearner> learner(
      getModule().create(graph, parameters, seed, failure));
  if (!learner)
    return llvm::createStringError(
        llvm::Twine("placement '") + placement +
        "': cannot build the policy learner: " + failure);
  return learner;
}

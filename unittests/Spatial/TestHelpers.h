//===- TestHelpers.h - Shared fixtures of the core unit tests ---*- C++ -*-===//

#ifndef DSM_UNITTESTS_TESTHELPERS_H
#define DSM_UNITTESTS_TESTHELPERS_H

#include "dsm/Core/Spatial/LayerShape.h"
#include "dsm/Core/System/SystemLoader.h"

#include <gtest/gtest.h>

namespace dsm::core::testing {

/// A multi-chip preset (systems/<name>.yaml).
inline MultiChipSystem multiChipPreset(llvm::StringRef name) {
  llvm::Expected<SystemDescription> system = loadSystem(name);
  EXPECT_TRUE(static_cast<bool>(system)) << llvm::toString(system.takeError());
  return *system->getIf<MultiChipSystem>();
}

/// A convolution layer with a weight per (in, out, kernel position).
inline LayerShape convLayer(int64_t in, int64_t out, int64_t ij, int64_t kij,
                            int64_t mb, const char *name = "conv") {
  LayerShape l;
  l.name = name;
  l.kind = OpKind::Convolution;
  l.dims = {in, out, ij, kij, mb};
  l.params = double(in * out * kij);
  return l;
}

} // namespace dsm::core::testing

#endif // DSM_UNITTESTS_TESTHELPERS_H

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

/// One direction of an LSTM layer over `timesteps` steps: 4H gates (`out`)
/// over the input and hidden state (`in`), storing H of them.
inline LayerShape lstmLayer(int64_t in, int64_t out, int64_t mb,
                            int64_t timesteps, const char *name = "lstm") {
  LayerShape l;
  l.name = name;
  l.kind = OpKind::Lstm;
  l.dims = {in, out, 1, 1, mb};
  l.timesteps = timesteps;
  l.params = double(in) * double(out);
  l.writtenOutputFraction = 0.25;
  return l;
}

} // namespace dsm::core::testing

#endif // DSM_UNITTESTS_TESTHELPERS_H

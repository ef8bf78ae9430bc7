//===- Conventions.cpp - How work becomes time in the simulator -----------===//

#include "dsm/Core/Devices/Conventions.h"

using namespace dsm::core;
using namespace dsm::core::devices;

llvm::StringRef devices::stringifyConventionsKind(ConventionsKind kind) {
  switch (kind) {
  case ConventionsKind::Thesis:
    return "thesis";
  case ConventionsKind::Exprimo:
    return "exprimo";
  }
  return "thesis";
}

Conventions devices::getConventions(ConventionsKind kind) {
  Conventions conventions;
  conventions.kind = kind;
  if (kind == ConventionsKind::Exprimo) {
    // exprimo/optimizers/utils.py evaluate_placement(batch_size=128,
    // memory_penalization_factor=1); the E3 configurations'
    // simulator_comm_penalty 0.25; paleo/profilers/flops_profiler.py
    // divides bytes by 2^30 and a bandwidth in GB/s.
    conventions.batch = 128;
    conventions.paleoOpTimes = true;
    conventions.bandwidthScale = double(int64_t(1) << 30) / 1e9;
    conventions.channelEfficiency = 0.25;
    conventions.overflowMsPerByte = 1.0;
  }
  return conventions;
}

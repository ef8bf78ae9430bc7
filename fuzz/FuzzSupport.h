//===- FuzzSupport.h - What the MLIR-level fuzzers share --------*- C++ -*-===//

#ifndef DSM_FUZZ_FUZZSUPPORT_H
#define DSM_FUZZ_FUZZSUPPORT_H

#include "mlir/IR/MLIRContext.h"

namespace dsm::fuzz {
/// One context for the whole run, with every dialect and pass dsm-opt has and
/// threading off (a fuzzer runs one input at a time; threads only add noise).
mlir::MLIRContext &getContext();
} // namespace dsm::fuzz

#endif // DSM_FUZZ_FUZZSUPPORT_H

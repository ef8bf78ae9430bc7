//===- Window.h - Output extents of sliding windows -------------*- C++ -*-===//
//
// The shape rule of dsm's windowed operations (convolution, pooling) along one
// spatial dimension, and its inverse for importers: linalg and other front
// ends declare the output a window computes, which may be smaller than the
// padded input allows (torch-mlir pads a ceil-mode pool by an extra stride on
// the high side). An importer finds the dsm attributes under which the rule
// yields the declared extent, so it imports what the source computes rather
// than a recomputed shape.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_WORKLOAD_WINDOW_H
#define DSM_CORE_WORKLOAD_WINDOW_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace dsm::core {

/// One spatial dimension of a sliding window.
struct WindowDim {
  int64_t input = 1;
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t padLow = 0;
  int64_t padHigh = 0;

  /// Extent of the kernel with its dilation: (kernel - 1) * dilation + 1.
  int64_t effectiveKernel() const { return (kernel - 1) * dilation + 1; }
};

/// The output extent along `dim`: (padded input - effective kernel) / stride,
/// rounded down (or up with `ceilMode`), plus 1. PyTorch's ceil mode drops a
/// last window that would start in the high padding. Returns std::nullopt
/// when the window does not fit the padded input. Sizes must be positive and
/// paddings non-negative, and small enough not to overflow (the dialect's
/// verifiers check both before calling it).
std::optional<int64_t> windowOutputExtent(const WindowDim &dim, bool ceilMode);

/// How a window that produces declared output extents is written with dsm's
/// attributes.
struct WindowFit {
  /// Per dimension: the high padding to declare.
  llvm::SmallVector<int64_t, 2> padHigh;
  /// Per dimension: how many leading input elements to keep; less than the
  /// input when the windows never read its tail (the input is sliced).
  llvm::SmallVector<int64_t, 2> input;
  /// The rounding (shared by all dimensions, as dsm's `ceil_mode` is).
  bool ceilMode = false;
};

/// Finds, for windows over `dims` (with the padding as written), the dsm
/// attributes under which windowOutputExtent gives `outputs`. The low padding
/// never changes (it places the windows); the high padding only decides how
/// many windows fit and never grows (windows stay in the padded input as
/// written). Preferred, per dimension: the high padding as written, then equal
/// to the low one, then the smallest that fits; rounding down
/// unless PyTorch's ceil mode (when `allowCeilMode`) fits with a more
/// preferred padding. When no padding fits because the windows never read
/// the input's tail, the tail is sliced off. With `padAtMostHalfKernel`
/// (dsm's pooling rule) no padding exceeds half the kernel. Returns
/// std::nullopt when nothing fits: extents the windows cannot produce.
std::optional<WindowFit> fitDeclaredOutput(llvm::ArrayRef<WindowDim> dims,
                                           llvm::ArrayRef<int64_t> outputs,
                                           bool allowCeilMode,
                                           bool padAtMostHalfKernel);

} // namespace dsm::core

#endif // DSM_CORE_WORKLOAD_WINDOW_H

//===- Window.cpp - Output extents of sliding windows ---------------------===//

#include "dsm/Core/Workload/Window.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace dsm::core;

std::optional<int64_t> dsm::core::windowOutputExtent(const WindowDim &dim,
                                                     bool ceilMode) {
  int64_t padded = dim.input + dim.padLow + dim.padHigh;
  int64_t effective = dim.effectiveKernel();
  if (effective > padded)
    return std::nullopt;
  int64_t span = padded - effective;
  int64_t steps =
      ceilMode ? llvm::divideCeil(span, dim.stride) : span / dim.stride;
  // PyTorch's ceil mode drops a last window that starts in the high padding.
  if (ceilMode && steps * dim.stride >= dim.input + dim.padLow)
    --steps;
  return steps + 1;
}

namespace {
/// A high padding that gives the declared extent, and how far it is from the
/// padding as written (0: as written, 1: equal to the low one, 2: other).
struct Choice {
  int64_t padHigh;
  int preference;
};
} // namespace

/// The preferred high padding of `dim` under which the extent is `output`.
static std::optional<Choice> choosePadHigh(const WindowDim &dim, int64_t output,
                                           bool ceilMode,
                                           bool padAtMostHalfKernel) {
  // Windows never read past the padded input as written.
  int64_t limit =
      padAtMostHalfKernel ? std::min(dim.padHigh, dim.kernel / 2) : dim.padHigh;
  auto fits = [&](int64_t padHigh) {
    if (padHigh < 0 || padHigh > limit)
      return false;
    WindowDim candidate = dim;
    candidate.padHigh = padHigh;
    return windowOutputExtent(candidate, ceilMode) == output;
  };
  if (fits(dim.padHigh))
    return Choice{dim.padHigh, 0};
  if (fits(dim.padLow))
    return Choice{dim.padLow, 1};
  for (int64_t padHigh = 0; padHigh <= limit; ++padHigh)
    if (fits(padHigh))
      return Choice{padHigh, 2};
  return std::nullopt;
}

std::optional<WindowFit>
dsm::core::fitDeclaredOutput(llvm::ArrayRef<WindowDim> dims,
                             llvm::ArrayRef<int64_t> outputs,
                             bool allowCeilMode, bool padAtMostHalfKernel) {
  if (dims.size() != outputs.size())
    return std::nullopt;
  for (const WindowDim &dim : dims)
    if (padAtMostHalfKernel && dim.padLow * 2 > dim.kernel)
      return std::nullopt;
  // The best fit of each rounding: the worst preference over the dimensions.
  std::optional<WindowFit> best;
  int bestPreference = 3;
  for (bool ceilMode : {false, true}) {
    if (ceilMode && !allowCeilMode)
      break;
    WindowFit fit;
    fit.ceilMode = ceilMode;
    int preference = 0;
    for (auto [dim, output] : llvm::zip_equal(dims, outputs)) {
      std::optional<Choice> choice =
          choosePadHigh(dim, output, ceilMode, padAtMostHalfKernel);
      if (!choice) {
        preference = 3;
        break;
      }
      fit.padHigh.push_back(choice->padHigh);
      fit.input.push_back(dim.input);
      preference = std::max(preference, choice->preference);
    }
    if (preference < bestPreference) {
      best = fit;
      bestPreference = preference;
    }
  }
  if (best)
    return best;

  // The windows read [0, (output - 1) * stride + effective kernel) of the
  // padded input; an input longer than that loses its unread tail.
  WindowFit fit;
  for (auto [dim, output] : llvm::zip_equal(dims, outputs)) {
    std::optional<Choice> choice =
        choosePadHigh(dim, output, false, padAtMostHalfKernel);
    if (choice) {
      fit.padHigh.push_back(choice->padHigh);
      fit.input.push_back(dim.input);
      continue;
    }
    int64_t read =
        (output - 1) * dim.stride + dim.effectiveKernel() - dim.padLow;
    // (Windows that read nothing but the low padding have no such form.)
    if (output < 1 || read < 1 || read >= dim.input)
      return std::nullopt;
    WindowDim sliced = dim;
    sliced.input = read;
    sliced.padHigh = 0;
    if (windowOutputExtent(sliced, false) != output)
      return std::nullopt;
    fit.padHigh.push_back(0);
    fit.input.push_back(read);
  }
  return fit;
}

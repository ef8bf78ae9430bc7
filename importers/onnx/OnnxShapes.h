//===- OnnxShapes.h - Static shape rules of ONNX operators ------*- C++ -*-===//
//
// The shape arithmetic of ONNX operators (axes, broadcasting, Reshape's 0 and
// -1, Squeeze/Unsqueeze, Slice's clamping), shared by constant folding and
// the conversions. Errors are returned as messages for the caller to locate.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_IMPORTERS_ONNXSHAPES_H
#define DSM_IMPORTERS_ONNXSHAPES_H

#include "dsm/Dialect/DsmOps.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace dsm::onnx {

/// Shapes in messages print as the dialect prints them.
using ::dsm::formatShape;

/// `axis` in [-rank, rank) as [0, rank), or std::nullopt.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

/// Normalized, sorted, distinct axes; an error names the offending one.
llvm::Expected<llvm::SmallVector<int64_t>>
normalizeAxes(llvm::ArrayRef<int64_t> axes, int64_t rank);

/// NumPy (multidirectional) broadcast of two shapes.
llvm::Expected<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// The result of ONNX Reshape of `input` to `requested` (0 copies the input
/// dimension unless `allowZero`, one -1 is inferred).
llvm::Expected<llvm::SmallVector<int64_t>>
inferReshape(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> requested,
             bool allowZero);

/// Squeeze `axes` (all unit dimensions when empty).
llvm::Expected<llvm::SmallVector<int64_t>>
squeezeShape(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> axes);

/// Unsqueeze: insert unit dimensions at `axes` of the result.
llvm::Expected<llvm::SmallVector<int64_t>>
unsqueezeShape(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> axes);

/// Flatten at `axis`: [prod(d[:axis]), prod(d[axis:])].
llvm::Expected<llvm::SmallVector<int64_t>>
flattenShape(llvm::ArrayRef<int64_t> input, int64_t axis);

/// One dimension of a resolved Slice: elements start, start + step, ...
/// (`count` of them).
struct SliceRange {
  int64_t start = 0;
  int64_t step = 1;
  int64_t count = 0;
};

/// Resolves ONNX Slice's starts/ends/axes/steps (axes default 0..n-1, steps
/// default 1) against `shape`, clamping as the specification says.
llvm::Expected<llvm::SmallVector<SliceRange>>
resolveSlice(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> starts,
             llvm::ArrayRef<int64_t> ends, llvm::ArrayRef<int64_t> axes,
             llvm::ArrayRef<int64_t> steps);

} // namespace dsm::onnx

#endif // DSM_IMPORTERS_ONNXSHAPES_H

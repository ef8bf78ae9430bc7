//===- OnnxShapes.cpp - Static shape rules of ONNX operators --------------===//

#include "OnnxShapes.h"
#include "HostTensor.h"

#include "mlir/Dialect/Traits.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <algorithm>
#include <limits>

using namespace dsm::onnx;
using llvm::ArrayRef;
using llvm::SmallVector;

static llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::optional<int64_t> dsm::onnx::normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

llvm::Expected<SmallVector<int64_t>>
dsm::onnx::normalizeAxes(ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<int64_t> result;
  for (int64_t axis : axes) {
    std::optional<int64_t> normalized = normalizeAxis(axis, rank);
    if (!normalized)
      return error("axis " + llvm::Twine(axis) + " is out of range for rank " +
                   llvm::Twine(rank));
    if (llvm::is_contained(result, *normalized))
      return error("axis " + llvm::Twine(axis) + " is repeated");
    result.push_back(*normalized);
  }
  llvm::sort(result);
  return result;
}

llvm::Expected<SmallVector<int64_t>>
dsm::onnx::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  SmallVector<int64_t> result;
  if (!mlir::OpTrait::util::getBroadcastedShape(a, b, result))
    return error("shapes " + formatShape(a) + " and " + formatShape(b) +
                 " do not broadcast");
  return result;
}

llvm::Expected<SmallVector<int64_t>>
dsm::onnx::inferReshape(ArrayRef<int64_t> input, ArrayRef<int64_t> requested,
                        bool allowZero) {
  SmallVector<int64_t> result;
  int64_t inferred = -1;
  int64_t known = 1;
  for (auto [index, entry] : llvm::enumerate(requested)) {
    int64_t size = entry;
    if (size == 0 && !allowZero) {
      if (index >= input.size())
        return error("shape " + formatShape(requested) + " copies dimension " +
                     llvm::Twine(index) + " of a rank-" +
                     llvm::Twine(input.size()) + " input");
      size = input[index];
    } else if (size == -1) {
      if (inferred >= 0)
        return error("shape " + formatShape(requested) +
                     " has more than one -1");
      inferred = index;
    } else if (size < 0) {
      return error("shape " + formatShape(requested) +
                   " has a negative entry other than -1");
    }
    result.push_back(size);
    if (size != -1) {
      std::optional<int64_t> next = llvm::checkedMul(known, size);
      if (!next)
        return error("shape " + formatShape(requested) + " is too large");
      known = *next;
    }
  }
  std::optional<int64_t> total = getNumElements(input);
  if (!total)
    return error("input shape " + formatShape(input) + " is too large");
  if (inferred >= 0) {
    if (known == 0 || *total % known != 0)
      return error("cannot infer the -1 of " + formatShape(requested) +
                   " for input " + formatShape(input));
    result[inferred] = *total / known;
  } else if (known != *total) {
    return error("shape " + formatShape(requested) + " does not have the " +
                 llvm::Twine(*total) + " elements of input " +
                 formatShape(input));
  }
  return result;
}

llvm::Expected<SmallVector<int64_t>>
dsm::onnx::squeezeShape(ArrayRef<int64_t> input, ArrayRef<int64_t> axes) {
  auto normalized = normalizeAxes(axes, input.size());
  if (!normalized)
    return normalized.takeError();
  SmallVector<int64_t> result;
  for (auto [index, size] : llvm::enumerate(input)) {
    bool listed = llvm::is_contained(*normalized, int64_t(index));
    if (listed && size != 1)
      return error("cannot squeeze dimension " + llvm::Twine(index) +
                   " of size " + llvm::Twine(size));
    if (listed || (axes.empty() && size == 1))
      continue;
    result.push_back(size);
  }
  return result;
}

llvm::Expected<SmallVector<int64_t>>
dsm::onnx::unsqueezeShape(ArrayRef<int64_t> input, ArrayRef<int64_t> axes) {
  int64_t rank = input.size() + axes.size();
  auto normalized = normalizeAxes(axes, rank);
  if (!normalized)
    return normalized.takeError();
  SmallVector<int64_t> result;
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i)
    result.push_back(llvm::is_contained(*normalized, i) ? 1 : input[next++]);
  return result;
}

llvm::Expected<SmallVector<int64_t>>
dsm::onnx::flattenShape(ArrayRef<int64_t> input, int64_t axis) {
  int64_t rank = input.size();
  if (axis < -rank || axis > rank)
    return error("axis " + llvm::Twine(axis) + " is out of range for rank " +
                 llvm::Twine(rank));
  if (axis < 0)
    axis += rank;
  std::optional<int64_t> outer = getNumElements(input.take_front(axis));
  std::optional<int64_t> inner = getNumElements(input.drop_front(axis));
  if (!outer || !inner)
    return error("input shape " + formatShape(input) + " is too large");
  return SmallVector<int64_t>{*outer, *inner};
}

llvm::Expected<SmallVector<SliceRange>>
dsm::onnx::resolveSlice(ArrayRef<int64_t> shape, ArrayRef<int64_t> starts,
                        ArrayRef<int64_t> ends, ArrayRef<int64_t> axes,
                        ArrayRef<int64_t> steps) {
  int64_t rank = shape.size();
  if (starts.size() != ends.size())
    return error("starts and ends have different lengths");
  if (!axes.empty() && axes.size() != starts.size())
    return error("axes and starts have different lengths");
  if (!steps.empty() && steps.size() != starts.size())
    return error("steps and starts have different lengths");
  SmallVector<SliceRange> result;
  for (int64_t size : shape)
    result.push_back({0, 1, size});
  SmallVector<int64_t> seen;
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t axis = axes.empty() ? int64_t(i) : axes[i];
    std::optional<int64_t> normalized = normalizeAxis(axis, rank);
    if (!normalized)
      return error("axis " + llvm::Twine(axis) + " is out of range for rank " +
                   llvm::Twine(rank));
    if (llvm::is_contained(seen, *normalized))
      return error("axis " + llvm::Twine(axis) + " is repeated");
    seen.push_back(*normalized);
    int64_t dim = shape[*normalized];
    int64_t step = steps.empty() ? 1 : steps[i];
    if (step == 0)
      return error("step must not be 0");
    int64_t start = starts[i], end = ends[i];
    if (start < 0)
      start = start < -dim ? 0 : start + dim;
    if (end < 0)
      end = end < -dim ? -1 : end + dim;
    int64_t count;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      count = end > start ? (end - start - 1) / step + 1 : 0;
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      if (start <= end)
        count = 0;
      else if (step == std::numeric_limits<int64_t>::min())
        count = 1;
      else
        count = (start - end - 1) / -step + 1;
    }
    result[*normalized] = {start, step, count};
  }
  return result;
}

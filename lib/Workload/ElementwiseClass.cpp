//===- ElementwiseClass.cpp - What an elementwise function is -------------===//

#include "dsm/Core/Workload/ElementwiseClass.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

using namespace dsm::core;

llvm::StringRef dsm::core::stringifyElementwiseKind(ElementwiseKind kind) {
  switch (kind) {
  case ElementwiseKind::Unknown:
    return "unknown";
  case ElementwiseKind::Constant:
    return "constant";
  case ElementwiseKind::Copy:
    return "copy";
  case ElementwiseKind::Affine:
    return "affine";
  case ElementwiseKind::Relu:
    return "relu";
  case ElementwiseKind::Clamp:
    return "clamp";
  case ElementwiseKind::Sigmoid:
    return "sigmoid";
  case ElementwiseKind::Tanh:
    return "tanh";
  case ElementwiseKind::Gelu:
    return "gelu";
  case ElementwiseKind::HardSigmoid:
    return "hard_sigmoid";
  case ElementwiseKind::HardSwish:
    return "hard_swish";
  case ElementwiseKind::Silu:
    return "silu";
  case ElementwiseKind::Exp:
    return "exp";
  case ElementwiseKind::Erf:
    return "erf";
  case ElementwiseKind::Sqrt:
    return "sqrt";
  case ElementwiseKind::Rsqrt:
    return "rsqrt";
  case ElementwiseKind::Square:
    return "square";
  case ElementwiseKind::Add:
    return "add";
  case ElementwiseKind::Sub:
    return "sub";
  case ElementwiseKind::Mul:
    return "mul";
  case ElementwiseKind::Div:
    return "div";
  case ElementwiseKind::Max:
    return "max";
  case ElementwiseKind::Min:
    return "min";
  case ElementwiseKind::GatedSilu:
    return "gated_silu";
  case ElementwiseKind::BatchNorm:
    return "batch_norm";
  }
  return "unknown";
}

//===----------------------------------------------------------------------===//
// Sampling
//===----------------------------------------------------------------------===//

static constexpr double kInf = std::numeric_limits<double>::infinity();

/// Unary sample points: both sides of every breakpoint of the activations
/// (0 for ReLU, +-3 for the hard functions, 6 for ReLU6).
static const double kUnarySamples[] = {
    -9.5, -6.2, -4.1, -3.0, -2.3, -1.1, -0.45, -0.1, 0.0, 0.13,
    0.5,  0.97, 1.6,  2.4,  3.0,  3.7,  5.3,   6.0,  7.9, 12.5};

/// A deterministic pseudo-random value in [-8, 8), never close to 0 (so that
/// divisors are safe).
static double sampleValue(unsigned point, unsigned input) {
  uint32_t state = 2654435761u * (point + 1) ^ 40503u * (input + 7);
  state ^= state >> 13;
  state *= 0x5bd1e995u;
  state ^= state >> 15;
  double unit = double(state % 100000) / 100000.0; // [0, 1)
  double value = -8.0 + 16.0 * unit;
  if (std::fabs(value) < 0.25)
    value += value < 0 ? -0.5 : 0.5;
  return value;
}

static bool close(double actual, double expected) {
  if (std::isinf(expected) || std::isinf(actual))
    return actual == expected;
  if (std::isnan(expected) || std::isnan(actual))
    return false;
  return std::fabs(actual - expected) <=
         2e-6 * std::max(1.0, std::fabs(expected));
}

/// Evaluates `function` with `values[i]` at input `inputs[i]` (others 0).
static std::optional<double> evaluateAt(const ScalarFunction &function,
                                        llvm::ArrayRef<unsigned> inputs,
                                        llvm::ArrayRef<double> values) {
  llvm::SmallVector<double, 8> all(function.getNumInputs(), 0.0);
  for (auto [index, value] : llvm::zip_equal(inputs, values))
    all[index] = value;
  return function.evaluate(all);
}

/// Whether `function` restricted to `inputs` agrees with `reference` over
/// `points` sample tuples produced by `sample(point, input)`.
static bool
agrees(const ScalarFunction &function, llvm::ArrayRef<unsigned> inputs,
       unsigned points, llvm::function_ref<double(unsigned, unsigned)> sample,
       llvm::function_ref<double(llvm::ArrayRef<double>)> reference) {
  llvm::SmallVector<double, 8> values(inputs.size());
  for (unsigned p = 0; p < points; ++p) {
    for (unsigned i = 0; i < inputs.size(); ++i)
      values[i] = sample(p, i);
    std::optional<double> actual = evaluateAt(function, inputs, values);
    if (!actual || !close(*actual, reference(values)))
      return false;
  }
  return true;
}

static bool agreesUnary(const ScalarFunction &function, unsigned input,
                        llvm::function_ref<double(double)> reference) {
  unsigned inputs[] = {input};
  return agrees(
      function, inputs, std::size(kUnarySamples),
      [](unsigned p, unsigned) { return kUnarySamples[p]; },
      [&](llvm::ArrayRef<double> v) { return reference(v[0]); });
}

static bool
agreesN(const ScalarFunction &function, llvm::ArrayRef<unsigned> inputs,
        llvm::function_ref<double(llvm::ArrayRef<double>)> reference) {
  return agrees(function, inputs, 24, sampleValue, reference);
}

bool dsm::core::agreesWith(
    const ScalarFunction &function, llvm::ArrayRef<unsigned> inputs,
    llvm::function_ref<double(llvm::ArrayRef<double>)> reference) {
  if (inputs.size() == 1)
    return agreesUnary(function, inputs[0],
                       [&](double x) { return reference(llvm::ArrayRef(x)); });
  return agreesN(function, inputs, reference);
}

//===----------------------------------------------------------------------===//
// Reference functions
//===----------------------------------------------------------------------===//

static double relu(double x) { return std::max(x, 0.0); }
static double hardSigmoid(double x) {
  return std::min(std::max(x / 6.0 + 0.5, 0.0), 1.0);
}
static double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
static double geluErf(double x) {
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}
static double geluTanh(double x) {
  return 0.5 * x *
         (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}

//===----------------------------------------------------------------------===//
// Classification
//===----------------------------------------------------------------------===//

static ElementwiseClass classifyUnary(const ScalarFunction &f, unsigned x) {
  ElementwiseClass c;
  c.operands = {x};
  auto is = [&](ElementwiseKind kind, double (*reference)(double)) {
    if (!agreesUnary(f, x, reference))
      return false;
    c.kind = kind;
    return true;
  };
  // The identity must also be exact at 0: adding a small epsilon (RMSNorm's
  // 1e-6 before its rsqrt) is within the sampling tolerance but is work.
  unsigned inputs[] = {x};
  std::optional<double> atZero = evaluateAt(f, inputs, {0.0});
  if ((atZero && *atZero == 0 &&
       is(ElementwiseKind::Copy, [](double v) { return v; })) ||
      is(ElementwiseKind::Relu, relu))
    return c;

  // A clamp: read the bounds far out, then check in between.
  std::optional<double> low = evaluateAt(f, inputs, {-1e30});
  std::optional<double> high = evaluateAt(f, inputs, {1e30});
  if (low && high && !std::isnan(*low) && !std::isnan(*high)) {
    double lo = *low < -1e29 ? -kInf : *low;
    double hi = *high > 1e29 ? kInf : *high;
    // Unbounded on both sides it would be the identity (not exact at 0).
    bool bounded = !std::isinf(lo) || !std::isinf(hi);
    if (bounded && lo < hi && agreesUnary(f, x, [&](double v) {
          return std::min(std::max(v, lo), hi);
        })) {
      c.kind = ElementwiseKind::Clamp;
      c.min = lo;
      c.max = hi;
      return c;
    }
  }

  if (is(ElementwiseKind::HardSigmoid, hardSigmoid) ||
      is(ElementwiseKind::HardSwish,
         [](double v) { return v * hardSigmoid(v); }) ||
      is(ElementwiseKind::Sigmoid, sigmoid) ||
      is(ElementwiseKind::Silu, [](double v) { return v * sigmoid(v); }) ||
      is(ElementwiseKind::Tanh, [](double v) { return std::tanh(v); }) ||
      is(ElementwiseKind::Gelu, geluErf) ||
      is(ElementwiseKind::Gelu, geluTanh) ||
      is(ElementwiseKind::Exp, [](double v) { return std::exp(v); }) ||
      is(ElementwiseKind::Erf, [](double v) { return std::erf(v); }) ||
      is(ElementwiseKind::Square, [](double v) { return v * v; }))
    return c;

  // 1 / sqrt(scale * x + shift): the shift (a variance's epsilon) read at
  // 0, the scale at 1 (a mean's 1 / n, when the divisor is in the same body:
  // rsqrt(sum / n + eps)), the function checked where the square root is
  // real.
  auto scaleOf = [](double squareAt1, double shift) {
    double scale = squareAt1 - shift;
    // Noise of the shift's rounding: the plain root has no scale.
    return std::fabs(scale - 1.0) <= 1e-9 ? 1.0 : scale;
  };
  std::optional<double> at1 = evaluateAt(f, inputs, {1.0});
  if (std::optional<double> at0 = evaluateAt(f, inputs, {0.0});
      at0 && at1 && *at0 > 0 && *at1 > 0) {
    double shift = std::isinf(*at0) ? 0.0 : 1.0 / (*at0 * *at0);
    double scale = scaleOf(1.0 / (*at1 * *at1), shift);
    bool rsqrt = std::isfinite(shift) && std::isfinite(scale) && scale > 0;
    for (double v : kUnarySamples)
      if (rsqrt && v > 0) {
        std::optional<double> actual = evaluateAt(f, inputs, {v});
        rsqrt = actual && close(*actual, 1.0 / std::sqrt(scale * v + shift));
      }
    if (rsqrt) {
      c.kind = ElementwiseKind::Rsqrt;
      c.scale = scale;
      c.shift = shift;
      return c;
    }
  }

  // sqrt(scale * x + shift), likewise.
  if (std::optional<double> at0 = evaluateAt(f, inputs, {0.0});
      at0 && at1 && *at0 >= 0 && std::isfinite(*at0) && *at1 > 0 &&
      std::isfinite(*at1)) {
    double shift = *at0 * *at0;
    double scale = scaleOf(*at1 * *at1, shift);
    bool sqrt = scale > 0;
    for (double v : kUnarySamples)
      if (sqrt && v > 0) {
        std::optional<double> actual = evaluateAt(f, inputs, {v});
        sqrt = actual && close(*actual, std::sqrt(scale * v + shift));
      }
    if (sqrt) {
      c.kind = ElementwiseKind::Sqrt;
      c.scale = scale;
      c.shift = shift;
      return c;
    }
  }

  // scale * x + shift.
  std::optional<double> at0 = evaluateAt(f, inputs, {0.0});
  if (at0 && at1) {
    double shift = *at0, scale = *at1 - *at0;
    if (std::isfinite(shift) && std::isfinite(scale) &&
        agreesUnary(f, x, [&](double v) { return scale * v + shift; })) {
      c.kind = ElementwiseKind::Affine;
      c.scale = scale;
      c.shift = shift;
      return c;
    }
  }
  c.kind = ElementwiseKind::Unknown;
  return c;
}

static ElementwiseClass classifyBinary(const ScalarFunction &f, unsigned a,
                                       unsigned b) {
  ElementwiseClass c;
  struct Candidate {
    ElementwiseKind kind;
    double (*reference)(double, double);
    bool commutative;
  };
  static const Candidate candidates[] = {
      {ElementwiseKind::Add, [](double l, double r) { return l + r; }, true},
      {ElementwiseKind::Sub, [](double l, double r) { return l - r; }, false},
      {ElementwiseKind::Mul, [](double l, double r) { return l * r; }, true},
      {ElementwiseKind::Div, [](double l, double r) { return l / r; }, false},
      {ElementwiseKind::Max, [](double l, double r) { return std::max(l, r); },
       true},
      {ElementwiseKind::Min, [](double l, double r) { return std::min(l, r); },
       true},
      {ElementwiseKind::GatedSilu,
       [](double l, double r) { return l * sigmoid(l) * r; }, false},
  };
  for (const Candidate &candidate : candidates) {
    for (bool swapped : {false, true}) {
      if (swapped && candidate.commutative)
        continue;
      unsigned lhs = swapped ? b : a, rhs = swapped ? a : b;
      unsigned inputs[] = {lhs, rhs};
      if (agreesN(f, inputs, [&](llvm::ArrayRef<double> v) {
            return candidate.reference(v[0], v[1]);
          })) {
        c.kind = candidate.kind;
        c.operands = {lhs, rhs};
        return c;
      }
    }
  }
  return c;
}

/// Batch normalization in inference form, trying every assignment of the
/// five inputs to the roles.
static ElementwiseClass classifyBatchNorm(const ScalarFunction &f,
                                          llvm::ArrayRef<unsigned> dep) {
  ElementwiseClass c;
  llvm::SmallVector<unsigned, 5> order(dep);
  llvm::sort(order);
  do {
    // Roles: x, scale, offset, mean, variance. Probe the epsilon with
    // x = mean + 1, scale = 1, offset = 0, variance = 1.
    unsigned roles[] = {order[0], order[1], order[2], order[3], order[4]};
    std::optional<double> probe =
        evaluateAt(f, roles, {2.0, 1.0, 0.0, 1.0, 1.0});
    if (!probe || !(*probe > 0) || !std::isfinite(*probe))
      continue;
    double epsilon = 1.0 / (*probe * *probe) - 1.0;
    if (!(epsilon > -1e-6 && epsilon < 1.0))
      continue;
    epsilon = std::max(epsilon, 0.0);
    auto sample = [](unsigned p, unsigned i) {
      double v = sampleValue(p, i);
      return i == 4 ? std::fabs(v) + 0.5 : v; // a positive variance
    };
    if (agrees(f, roles, 24, sample, [&](llvm::ArrayRef<double> v) {
          return (v[0] - v[3]) / std::sqrt(v[4] + epsilon) * v[1] + v[2];
        })) {
      c.kind = ElementwiseKind::BatchNorm;
      c.operands.assign(std::begin(roles), std::end(roles));
      // Report the epsilon as the constant it most likely was (1e-5, 1e-3),
      // without the noise of its single-precision rounding.
      char text[32];
      std::snprintf(text, sizeof(text), "%.6g", epsilon);
      c.epsilon = std::strtod(text, nullptr);
      return c;
    }
  } while (std::next_permutation(order.begin(), order.end()));
  return c;
}

ElementwiseClass
dsm::core::classifyElementwise(const ScalarFunction &function) {
  llvm::SmallVector<unsigned, 8> dep;
  for (unsigned i = 0; i < function.getNumInputs(); ++i)
    if (function.dependsOn(i))
      dep.push_back(i);

  ElementwiseClass c;
  switch (dep.size()) {
  case 0: {
    llvm::SmallVector<double, 8> zeros(function.getNumInputs(), 0.0);
    if (std::optional<double> value = function.evaluate(zeros)) {
      c.kind = ElementwiseKind::Constant;
      c.value = *value;
    }
    break;
  }
  case 1:
    c = classifyUnary(function, dep[0]);
    break;
  case 2:
    c = classifyBinary(function, dep[0], dep[1]);
    break;
  case 5:
    c = classifyBatchNorm(function, dep);
    break;
  default:
    break;
  }
  if (c.kind == ElementwiseKind::Unknown)
    c.operands.assign(dep.begin(), dep.end());
  c.operations = function.countOperations();
  return c;
}

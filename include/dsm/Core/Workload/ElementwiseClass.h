//===- ElementwiseClass.h - What an elementwise function is -----*- C++ -*-===//
//
// Classifies a ScalarFunction as one of the operations the dsm dialect knows
// (ReLU, clamp, sigmoid, GELU, hard swish, batch normalization, ...) by
// evaluating it at sample points and comparing with reference definitions.
// Importers thereby recognise a function however a front end spells it
// (cmpf + select or maximumf for ReLU; a chain of add, clamp, divide and
// multiply for hard swish) without pattern-matching each spelling.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_WORKLOAD_ELEMENTWISECLASS_H
#define DSM_CORE_WORKLOAD_ELEMENTWISECLASS_H

#include "dsm/Core/Workload/ScalarFunction.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace dsm::core {

enum class ElementwiseKind {
  Unknown,  ///< none of the below (or not evaluable)
  Constant, ///< depends on no input: `value`
  // One input, `operands = {x}`.
  Copy,        ///< x
  Affine,      ///< scale * x + shift (other than the identity)
  Relu,        ///< max(x, 0)
  Clamp,       ///< min(max(x, min), max), either bound may be infinite
  Sigmoid,     ///< 1 / (1 + exp(-x))
  Tanh,        ///< tanh(x)
  Gelu,        ///< x * Phi(x), exact (erf) or tanh approximation
  HardSigmoid, ///< clamp(x / 6 + 1 / 2, 0, 1)
  HardSwish,   ///< x * hard_sigmoid(x)
  Silu,        ///< x * sigmoid(x) (SiLU, swish; Llama's SwiGLU gate)
  Exp,         ///< exp(x)
  Erf,         ///< erf(x) (the pieces of an erf GELU)
  Rsqrt,  ///< 1 / sqrt(scale * x + shift), scale > 0, shift >= 0 (a variance
          ///< plus epsilon; a sum of squares times 1 / n plus epsilon)
  Sqrt,   ///< sqrt(scale * x + shift), likewise (a layer norm's divisor)
  Square, ///< x * x (powf(x, 2))
  // Two inputs, `operands = {lhs, rhs}`.
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min,
  GatedSilu, ///< silu(lhs) * rhs (SwiGLU: the gate's SiLU times the up
             ///< projection, in one body)
  // Five inputs, `operands = {x, scale, offset, mean, variance}`.
  BatchNorm, ///< (x - mean) / sqrt(variance + epsilon) * scale + offset
};

llvm::StringRef stringifyElementwiseKind(ElementwiseKind kind);

struct ElementwiseClass {
  ElementwiseKind kind = ElementwiseKind::Unknown;
  /// The function's inputs in the roles of the kind (see ElementwiseKind).
  llvm::SmallVector<unsigned, 5> operands;
  double min = 0, max = 0;     ///< Clamp (+-infinity when unbounded)
  double scale = 1, shift = 0; ///< Affine, Rsqrt, Sqrt
  double epsilon = 0;          ///< BatchNorm
  double value = 0;            ///< Constant
  /// Operations per element (ScalarFunction::countOperations), the cost of
  /// the function if it is kept as an opaque operation.
  unsigned operations = 0;
};

/// Classifies `function` by the inputs it depends on.
ElementwiseClass classifyElementwise(const ScalarFunction &function);

/// Whether `function`, as a function of its inputs `inputs` (the others held
/// at 0), agrees with `reference` of as many arguments at a set of sample
/// points (relative tolerance 2e-6; arguments in [-8, 8]).
bool agreesWith(const ScalarFunction &function, llvm::ArrayRef<unsigned> inputs,
                llvm::function_ref<double(llvm::ArrayRef<double>)> reference);

} // namespace dsm::core

#endif // DSM_CORE_WORKLOAD_ELEMENTWISECLASS_H

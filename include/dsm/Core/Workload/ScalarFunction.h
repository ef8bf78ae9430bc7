//===- ScalarFunction.h - The scalar body of an elementwise op --*- C++ -*-===//
//
// What an elementwise operation computes for one element, as a small DAG over
// numbered inputs and constants: the body of a linalg.generic, or a chain of
// TOSA elementwise ops, written in plain terms so that it can be evaluated,
// classified (ElementwiseClass.h) and costed without MLIR. Importers build one
// per operation; the classification is a pure function of it.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_WORKLOAD_SCALARFUNCTION_H
#define DSM_CORE_WORKLOAD_SCALARFUNCTION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace dsm::core {

/// The operations a scalar function is made of. Comparisons yield 1 or 0.
enum class ScalarOpcode {
  Input,
  Constant,
  // Conversions: free, but a truncation rounds to single precision.
  Convert,
  TruncateToF32,
  // Unary arithmetic and transcendental functions.
  Neg,
  Abs,
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  Reciprocal,
  Tanh,
  Erf,
  Sigmoid,
  Floor,
  Ceil,
  Round,
  // Binary arithmetic.
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min,
  Pow,
  // Comparisons.
  CmpLT,
  CmpLE,
  CmpGT,
  CmpGE,
  CmpEQ,
  CmpNE,
  // select(condition, true value, false value).
  Select,
  /// An operation the evaluator does not know; it costs one operation and
  /// makes evaluation fail.
  Unknown,
};

/// A scalar function of `getNumInputs()` inputs. Nodes are appended in
/// topological order; each refers to earlier nodes by index.
class ScalarFunction {
public:
  /// Adds a node for input `index` (numbered by the caller, from 0).
  int input(unsigned index);
  int constant(double value);
  /// An operation over earlier nodes: 1 argument for unary opcodes and
  /// conversions, 2 for binary ones and comparisons, 3 for Select, any number
  /// for Unknown (whose `name` is kept for messages).
  int operation(ScalarOpcode opcode, llvm::ArrayRef<int> args,
                llvm::StringRef name = "");
  void setResult(int node) { result = node; }

  int getResult() const { return result; }
  unsigned getNumInputs() const { return numInputs; }
  bool empty() const { return result < 0; }

  /// The result for the given input values, or nothing when an Unknown
  /// operation is reached (or the function has no result).
  std::optional<double> evaluate(llvm::ArrayRef<double> inputs) const;

  /// Operations that cost work per element: every node the result depends on
  /// except inputs, constants and conversions.
  unsigned countOperations() const;

  /// Whether the result depends on input `index`.
  bool dependsOn(unsigned index) const;

  /// Replaces input `index` by `other` (whose inputs are renumbered through
  /// `otherInputs`: other's input i becomes input otherInputs[i] here).
  /// Composes the function of a consumer with that of its producer.
  void substitute(unsigned index, const ScalarFunction &other,
                  llvm::ArrayRef<unsigned> otherInputs);

  /// Replaces input `index` by a constant.
  void bind(unsigned index, double value);

  /// The names of Unknown operations the result depends on.
  llvm::SmallVector<std::string> getUnknownNames() const;

private:
  struct Node {
    ScalarOpcode opcode;
    llvm::SmallVector<int, 3> args;
    double value = 0;   ///< Constant
    unsigned index = 0; ///< Input
    std::string name;   ///< Unknown
  };
  /// Nodes reachable from the result.
  std::vector<bool> live() const;

  std::vector<Node> nodes;
  int result = -1;
  unsigned numInputs = 0;
};

} // namespace dsm::core

#endif // DSM_CORE_WORKLOAD_SCALARFUNCTION_H

//===- ElementwiseClassTest.cpp - Classifying scalar functions ------------===//

#include "dsm/Core/Workload/ElementwiseClass.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace dsm::core;
using Op = ScalarOpcode;

namespace {

TEST(ScalarFunctionTest, EvaluatesAndCounts) {
  // (x0 - x1) * 2, with a conversion that costs nothing.
  ScalarFunction f;
  int x0 = f.input(0), x1 = f.input(1);
  int d = f.operation(Op::Sub, {x0, x1});
  int c = f.operation(Op::Convert, {f.constant(2.0)});
  f.setResult(f.operation(Op::Mul, {d, c}));
  EXPECT_EQ(f.getNumInputs(), 2u);
  EXPECT_EQ(f.evaluate({5.0, 2.0}), 6.0);
  EXPECT_EQ(f.countOperations(), 2u);
  EXPECT_TRUE(f.dependsOn(1));
}

TEST(ScalarFunctionTest, UnknownOperationsAreCountedButNotEvaluated) {
  ScalarFunction f;
  f.setResult(f.operation(Op::Unknown, {f.input(0)}, "math.cbrt"));
  EXPECT_FALSE(f.evaluate({1.0}).has_value());
  EXPECT_EQ(f.countOperations(), 1u);
  EXPECT_EQ(f.getUnknownNames().front(), "math.cbrt");
  EXPECT_EQ(classifyElementwise(f).kind, ElementwiseKind::Unknown);
}

TEST(ElementwiseClassTest, ReluSpelledAsCompareAndSelect) {
  // torch-mlir: select(cmpf ugt x, 0, x, 0).
  ScalarFunction f;
  int x = f.input(0), zero = f.constant(0.0);
  int cmp = f.operation(Op::CmpGT, {x, zero});
  f.setResult(f.operation(Op::Select, {cmp, x, zero}));
  ElementwiseClass c = classifyElementwise(f);
  EXPECT_EQ(c.kind, ElementwiseKind::Relu);
  EXPECT_EQ(c.operands[0], 0u);
  EXPECT_EQ(c.operations, 2u);
}

TEST(ElementwiseClassTest, ClampBounds) {
  ScalarFunction f;
  int x = f.input(0);
  int lo = f.operation(Op::Max, {x, f.constant(0.0)});
  f.setResult(f.operation(Op::Min, {lo, f.constant(6.0)}));
  ElementwiseClass c = classifyElementwise(f);
  EXPECT_EQ(c.kind, ElementwiseKind::Clamp);
  EXPECT_EQ(c.min, 0.0);
  EXPECT_EQ(c.max, 6.0);

  ScalarFunction g; // min(x, 6): unbounded below
  g.setResult(g.operation(Op::Min, {g.input(0), g.constant(6.0)}));
  c = classifyElementwise(g);
  EXPECT_EQ(c.kind, ElementwiseKind::Clamp);
  EXPECT_EQ(c.min, -std::numeric_limits<double>::infinity());
}

TEST(ElementwiseClassTest, HardSwishComposedFromAChain) {
  // MobileNetV3 as torch-mlir writes it, one generic per step:
  // a = x + 3; b = relu(a); c = min(b, 6); d = c / 6; e = d * x.
  ScalarFunction add;
  add.setResult(add.operation(Op::Add, {add.input(0), add.constant(3.0)}));
  ScalarFunction clamp;
  int r = clamp.operation(Op::Max, {clamp.input(0), clamp.constant(0.0)});
  clamp.setResult(clamp.operation(Op::Min, {r, clamp.constant(6.0)}));
  ScalarFunction div;
  div.setResult(div.operation(Op::Div, {div.input(0), div.constant(6.0)}));
  ScalarFunction mul;
  mul.setResult(mul.operation(Op::Mul, {mul.input(0), mul.input(1)}));

  // Compose from the consumer backwards: input 0 of each stage is the
  // previous stage, whose input 0 is x (input 1 of the multiply).
  div.substitute(0, clamp, {0});
  div.substitute(0, add, {0});
  EXPECT_EQ(classifyElementwise(div).kind, ElementwiseKind::HardSigmoid);
  mul.substitute(0, div, {1});
  ElementwiseClass c = classifyElementwise(mul);
  EXPECT_EQ(c.kind, ElementwiseKind::HardSwish);
  EXPECT_EQ(c.operands[0], 1u);
  EXPECT_EQ(c.operations, 5u);
}

TEST(ElementwiseClassTest, GeluBothForms) {
  ScalarFunction f; // 0.5 * x * (1 + erf(x * 0.70710678))
  int x = f.input(0);
  int scaled = f.operation(Op::Mul, {x, f.constant(0.70710678118654752)});
  int e = f.operation(Op::Erf, {scaled});
  int one = f.operation(Op::Add, {e, f.constant(1.0)});
  int half = f.operation(Op::Mul, {x, f.constant(0.5)});
  f.setResult(f.operation(Op::Mul, {half, one}));
  EXPECT_EQ(classifyElementwise(f).kind, ElementwiseKind::Gelu);

  ScalarFunction g; // tanh approximation
  int y = g.input(0);
  int cube = g.operation(Op::Mul, {g.operation(Op::Mul, {y, y}), y});
  int inner = g.operation(
      Op::Add, {y, g.operation(Op::Mul, {cube, g.constant(0.044715)})});
  int t = g.operation(
      Op::Tanh, {g.operation(Op::Mul, {inner, g.constant(0.7978845608)})});
  int s = g.operation(Op::Add, {t, g.constant(1.0)});
  g.setResult(
      g.operation(Op::Mul, {g.operation(Op::Mul, {y, g.constant(0.5)}), s}));
  EXPECT_EQ(classifyElementwise(g).kind, ElementwiseKind::Gelu);
}

TEST(ElementwiseClassTest, SigmoidAndAffine) {
  ScalarFunction f; // 1 / (1 + exp(-x))
  int n = f.operation(Op::Neg, {f.input(0)});
  int d = f.operation(Op::Add, {f.constant(1.0), f.operation(Op::Exp, {n})});
  f.setResult(f.operation(Op::Div, {f.constant(1.0), d}));
  EXPECT_EQ(classifyElementwise(f).kind, ElementwiseKind::Sigmoid);

  ScalarFunction g; // x / 49: an average pool's divisor
  g.setResult(g.operation(Op::Div, {g.input(0), g.constant(49.0)}));
  ElementwiseClass c = classifyElementwise(g);
  EXPECT_EQ(c.kind, ElementwiseKind::Affine);
  EXPECT_NEAR(c.scale, 1.0 / 49.0, 1e-12);
  EXPECT_EQ(c.shift, 0.0);
}

TEST(ElementwiseClassTest, SiluAsTorchMlirWritesIt) {
  // aten.silu: x / (1 + exp(-x)).
  ScalarFunction f;
  int x = f.input(0);
  int e = f.operation(Op::Exp, {f.operation(Op::Neg, {x})});
  f.setResult(
      f.operation(Op::Div, {x, f.operation(Op::Add, {e, f.constant(1.0)})}));
  EXPECT_EQ(classifyElementwise(f).kind, ElementwiseKind::Silu);
}

TEST(ElementwiseClassTest, ErfAndSquareRootWithShift) {
  ScalarFunction e;
  e.setResult(e.operation(Op::Erf, {e.input(0)}));
  EXPECT_EQ(classifyElementwise(e).kind, ElementwiseKind::Erf);

  ScalarFunction s; // sqrt(variance + 1e-5): a layer norm's divisor
  s.setResult(s.operation(
      Op::Sqrt, {s.operation(Op::Add, {s.input(0), s.constant(1e-5)})}));
  ElementwiseClass c = classifyElementwise(s);
  EXPECT_EQ(c.kind, ElementwiseKind::Sqrt);
  EXPECT_NEAR(c.shift, 1e-5, 1e-9);

  ScalarFunction r; // 1 / sqrt(x) stays an rsqrt
  r.setResult(r.operation(Op::Rsqrt, {r.input(0)}));
  EXPECT_EQ(classifyElementwise(r).kind, ElementwiseKind::Rsqrt);
}

TEST(ElementwiseClassTest, SwigluGateInOneBody) {
  // Llama's MLP: silu(gate) * up, gate and up the inputs 1 and 0.
  ScalarFunction f;
  int up = f.input(0), gate = f.input(1);
  int e = f.operation(Op::Exp, {f.operation(Op::Neg, {gate})});
  int silu =
      f.operation(Op::Div, {gate, f.operation(Op::Add, {f.constant(1.0), e})});
  f.setResult(f.operation(Op::Mul, {silu, up}));
  ElementwiseClass c = classifyElementwise(f);
  EXPECT_EQ(c.kind, ElementwiseKind::GatedSilu);
  EXPECT_EQ(c.operands, (llvm::SmallVector<unsigned, 5>{1, 0}));

  ScalarFunction g; // sigmoid(gate) * up is not gated SiLU
  int gu = g.input(0), gg = g.input(1);
  g.setResult(g.operation(Op::Mul, {g.operation(Op::Sigmoid, {gg}), gu}));
  EXPECT_NE(classifyElementwise(g).kind, ElementwiseKind::GatedSilu);
}

TEST(ElementwiseClassTest, SmallEpsilonIsNotTheIdentity) {
  // RMSNorm's variance + 1e-6 before the rsqrt: within the sampling
  // tolerance of x, but work (an affine function), not a copy or a clamp.
  ScalarFunction f;
  f.setResult(f.operation(Op::Add, {f.input(0), f.constant(1e-6)}));
  ElementwiseClass c = classifyElementwise(f);
  EXPECT_EQ(c.kind, ElementwiseKind::Affine);
  EXPECT_EQ(c.shift, 1e-6);
  // x * 1 and x + 0 still are.
  ScalarFunction g;
  g.setResult(g.operation(Op::Mul, {g.input(0), g.constant(1.0)}));
  EXPECT_EQ(classifyElementwise(g).kind, ElementwiseKind::Copy);
}

TEST(ElementwiseClassTest, BinaryOperandOrder) {
  ScalarFunction f; // x1 - x0
  f.setResult(f.operation(Op::Sub, {f.input(1), f.input(0)}));
  ElementwiseClass c = classifyElementwise(f);
  EXPECT_EQ(c.kind, ElementwiseKind::Sub);
  EXPECT_EQ(c.operands[0], 1u);
  EXPECT_EQ(c.operands[1], 0u);

  ScalarFunction g; // residual addition
  g.setResult(g.operation(Op::Add, {g.input(0), g.input(1)}));
  EXPECT_EQ(classifyElementwise(g).kind, ElementwiseKind::Add);
}

TEST(ElementwiseClassTest, BatchNormInferenceWithRolesInAnyOrder) {
  // torch-mlir's body: inputs (x, weight, bias, mean, var), epsilon 1e-5
  // truncated from f64.
  ScalarFunction f;
  int x = f.input(0), w = f.input(1), b = f.input(2), m = f.input(3),
      v = f.input(4);
  int eps = f.operation(Op::TruncateToF32, {f.constant(1e-5)});
  int r = f.operation(Op::Rsqrt, {f.operation(Op::Add, {v, eps})});
  int centred = f.operation(Op::Sub, {x, m});
  int scaled = f.operation(Op::Mul, {f.operation(Op::Mul, {centred, r}), w});
  f.setResult(f.operation(Op::Add, {scaled, b}));
  ElementwiseClass c = classifyElementwise(f);
  ASSERT_EQ(c.kind, ElementwiseKind::BatchNorm);
  EXPECT_EQ(c.operands, (llvm::SmallVector<unsigned, 5>{0, 1, 2, 3, 4}));
  EXPECT_FLOAT_EQ(float(c.epsilon), 1e-5f);
  EXPECT_EQ(c.operations, 6u);
}

TEST(ElementwiseClassTest, ConstantAndBinding) {
  // sitofp(6) on a filled tensor: a constant.
  ScalarFunction f;
  f.setResult(f.operation(Op::Convert, {f.input(0)}));
  f.bind(0, 6.0);
  ElementwiseClass c = classifyElementwise(f);
  EXPECT_EQ(c.kind, ElementwiseKind::Constant);
  EXPECT_EQ(c.value, 6.0);
}

TEST(ElementwiseClassTest, RsqrtOfAVariancePlusEpsilon) {
  // torch-mlir's RMSNorm and layer norm: rsqrt(v + eps) in one body. The
  // epsilon is read back, so the importer can write it as a dsm.add.
  ScalarFunction f;
  int s = f.operation(Op::Add, {f.input(0), f.constant(1e-5)});
  f.setResult(f.operation(Op::Rsqrt, {s}));
  ElementwiseClass c = classifyElementwise(f);
  EXPECT_EQ(c.kind, ElementwiseKind::Rsqrt);
  EXPECT_NEAR(c.shift, 1e-5, 1e-12);

  ScalarFunction plain; // rsqrt(x)
  plain.setResult(plain.operation(Op::Rsqrt, {plain.input(0)}));
  c = classifyElementwise(plain);
  EXPECT_EQ(c.kind, ElementwiseKind::Rsqrt);
  EXPECT_EQ(c.shift, 0.0);

  ScalarFunction inverse; // 1 / x is no square root
  inverse.setResult(
      inverse.operation(Op::Div, {inverse.constant(1.0), inverse.input(0)}));
  EXPECT_NE(classifyElementwise(inverse).kind, ElementwiseKind::Rsqrt);
}

TEST(ElementwiseClassTest, RsqrtOfAScaledSumPlusEpsilon) {
  // RMSNorm after elementwise fusion: rsqrt(sum / 64 + eps) in one body.
  ScalarFunction f;
  int mean = f.operation(Op::Div, {f.input(0), f.constant(64.0)});
  int s = f.operation(Op::Add, {mean, f.constant(1e-6)});
  f.setResult(f.operation(Op::Rsqrt, {s}));
  ElementwiseClass c = classifyElementwise(f);
  EXPECT_EQ(c.kind, ElementwiseKind::Rsqrt);
  EXPECT_NEAR(c.scale, 1.0 / 64, 1e-12);
  EXPECT_NEAR(c.shift, 1e-6, 1e-12);

  ScalarFunction shifted; // rsqrt(x + eps) keeps the unit scale exactly
  shifted.setResult(shifted.operation(
      Op::Rsqrt, {shifted.operation(
                     Op::Add, {shifted.input(0), shifted.constant(1e-5)})}));
  EXPECT_EQ(classifyElementwise(shifted).scale, 1.0);
}

TEST(ElementwiseClassTest, SquareSpelledAsPower) {
  // torch-mlir's x.pow(2): powf(x, 2.0).
  ScalarFunction f;
  f.setResult(f.operation(Op::Pow, {f.input(0), f.constant(2.0)}));
  EXPECT_EQ(classifyElementwise(f).kind, ElementwiseKind::Square);
}

} // namespace

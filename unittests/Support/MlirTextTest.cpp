//===- MlirTextTest.cpp - Checks on MLIR source text ----------------------===//

#include "dsm/Core/Support/MlirText.h"

#include <gtest/gtest.h>

using dsm::core::findMlirTextProblem;

namespace {

std::optional<size_t> offsetOf(llvm::StringRef text) {
  if (auto problem = findMlirTextProblem(text))
    return problem->offset;
  return std::nullopt;
}

TEST(MlirTextTest, FindsBytesTheLexerRejects) {
  EXPECT_EQ(offsetOf("x = [1, \xc3\xa1"
                     "0]"),
            8u);
  EXPECT_EQ(offsetOf("a\x01"), 1u);
  EXPECT_FALSE(offsetOf("func.func @f() {\n\treturn\r\n}\n"));
}

TEST(MlirTextTest, StringsAndCommentsMayHoldAnyByte) {
  EXPECT_FALSE(offsetOf("// caf\xc3\xa9\n%x = \"\xc3\xa9\\\"\""));
  // A string ends at its quote, not at an escaped one.
  EXPECT_EQ(offsetOf("\"a\\\"b\" \xff"), 7u);
}

TEST(MlirTextTest, CustomPermutationsMustBeIntegerLists) {
  const char *prefix = "outs(%e : tensor<3x2xf32>) ";
  EXPECT_FALSE(offsetOf(std::string(prefix) + "permutation = [1, 0]"));
  EXPECT_FALSE(offsetOf(std::string(prefix) + "dimensions = [ ]"));
  EXPECT_FALSE(offsetOf(std::string(prefix) + "permutation = [-1,0]"));
  for (const char *bad :
       {"permutation =alg.yield", "permutation = 1", "permutation = [1",
        "permutation = [1 0]", "permutation = [1,,0]",
        "permutation = array<i64: 1, 0>"})
    EXPECT_EQ(offsetOf(std::string(prefix) + bad), 27u) << bad;
  // In an attribute dictionary (not after a ')') the generic syntax holds,
  // and an SSA value may be called %permutation.
  EXPECT_FALSE(offsetOf("<{permutation = array<i64: 1, 0>}>"));
  EXPECT_FALSE(offsetOf("foo(%a) %permutation = x"));
}

} // namespace

// dsm-fuzz-upgrade-mlir, 2026-11-26: 18,753 '(' in a type overflowed the
// parser's stack (dsm-opt and --upgrade-mlir crashed).
TEST(MlirTextTest, DeepNestingIsAProblem) {
  std::string deep = "%t = tensor<" + std::string(300, '(') + ">";
  std::optional<dsm::core::MlirTextProblem> problem =
      dsm::core::findMlirTextProblem(deep);
  ASSERT_TRUE(problem.has_value());
  // tensor's `<` is the first level.
  EXPECT_EQ(problem->offset, size_t(12 + 255));
  // Depth, not count: closed brackets open no level.
  EXPECT_FALSE(findMlirTextProblem(std::string(200, '(') +
                                   std::string(200, ')') +
                                   std::string(200, '('))
                   .has_value());
}

// 20,000 `tuple<` overflow the type parser's stack as `(` did.
TEST(MlirTextTest, DeepAngleBracketsAreAProblem) {
  std::string prefix = "func.func private @f() -> ";
  std::string deep = prefix;
  for (int i = 0; i < 300; ++i)
    deep += "tuple<";
  std::optional<size_t> at = offsetOf(deep);
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(*at, prefix.size() + 256 * 6 + 5); // the 257th `<`
  // Closed ones open no level; `>>` closes two.
  std::string closed = prefix;
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < 200; ++i)
      closed += "tuple<";
    closed += "f32" + std::string(200, '>') + ", ";
  }
  EXPECT_FALSE(offsetOf(closed));
  // `->` closes nothing: 200 levels, 100 arrows and 100 more levels are 300.
  std::string arrows = std::string(200, '<');
  for (int i = 0; i < 100; ++i)
    arrows += "() -> ";
  EXPECT_TRUE(offsetOf(arrows + std::string(100, '<')));
}

TEST(MlirTextTest, OrdinaryAngleBracketsAreNoProblem) {
  // Thousands of lines of function types, maps, sets with `>=` and `<=`
  // (a `>` closes only a `<`), comparisons in text and strings.
  std::string text = "#set = affine_set<(d0, d1) : (d0 - 1 >= 0, d1 <= 4)>\n";
  for (int i = 0; i < 2000; ++i)
    text += "%r = \"x.y\"(%a) {m = affine_map<(d0) -> (d0 floordiv 2)>, "
            "s = \"<<<< a < b\", t = #x.p<\"<\">} : "
            "(tensor<4xcomplex<f32>>) -> !x.t<(i32) -> i1> // a < b <\n";
  EXPECT_FALSE(offsetOf(text));
  // A `<` no parser takes as a bracket (`a < b` in a region) is dropped
  // with the brace around it: it never adds up over a file.
  std::string stray;
  for (int i = 0; i < 2000; ++i)
    stray += "x.op { a < b }\n";
  EXPECT_FALSE(offsetOf(stray));
}

// dsm-fuzz-upgrade-mlir, 2026-11-27: `linalg.batch_matmul_transpose_b<0.125>`
// upgraded to `linalg.batch_matmul indexing_maps = [..]<0.125>`, and MLIR
// 22's linalg parser read the float as a properties dictionary (upstream
// mlir-opt aborts on `linalg.matmul <0.125> ins(..)` too).
TEST(MlirTextTest, LinalgPropertiesMustBeADictionary) {
  const char *operands = " ins(%a, %b : tensor<2x2xf32>, tensor<2x2xf32>)";
  const char *maps = " indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>]";
  // Each with the `<` the error points at.
  std::pair<std::string, const char *> bad[] = {
      {std::string("%c = linalg.matmul <0.125>") + operands, "<0.125>"},
      {std::string("%c = linalg.matmul") + maps + "<1>" + operands, "<1>"},
      {std::string("%c = linalg.add <[1]>") + operands, "<[1]>"},
      {std::string("%c = linalg.generic {a = 1} < 2 >") + operands, "< 2 >"},
      {"%c = linalg.batch_matmul_transpose_b<0.125> : f32", "<0.125>"}};
  for (auto &[text, at] : bad)
    EXPECT_EQ(offsetOf(text), text.find(at)) << text;
  // Dictionaries, and `<` where no properties stand, are fine.
  for (std::string good :
       {std::string(
            "%c = linalg.matmul <{cast = #linalg.type_fn<cast_signed>}>") +
            operands,
        std::string("%c = linalg.matmul") + maps + " <{x}>" + operands,
        std::string("%c = linalg.generic {maps = [affine_map<(d) -> (d)>]}") +
            operands +
            " outs(%o : tensor<2xf32>) {\n^bb0(%x: f32):\n"
            "  linalg.yield %x : f32\n} -> tensor<2xf32>",
        std::string(
            "%e = linalg.elementwise kind=#linalg.elementwise_kind<exp>") +
            operands,
        std::string("\"linalg.matmul\"() <{x}> : () -> ()")})
    EXPECT_FALSE(offsetOf(good)) << good;
}

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
  EXPECT_EQ(problem->offset, size_t(12 + 256));
  // Depth, not count: closed brackets open no level.
  EXPECT_FALSE(findMlirTextProblem(std::string(200, '(') +
                                   std::string(200, ')') +
                                   std::string(200, '('))
                   .has_value());
}

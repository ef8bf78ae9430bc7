//===- MlirTextTest.cpp - Checks on MLIR source text ----------------------===//

#include "dsm/Core/Support/MlirText.h"

#include <gtest/gtest.h>

using dsm::core::findInvalidMlirByte;

namespace {

TEST(MlirTextTest, FindsBytesTheLexerRejects) {
  EXPECT_EQ(findInvalidMlirByte("permutation = [1, \xc3\xa1"
                                "0]"),
            18u);
  EXPECT_EQ(findInvalidMlirByte("a\x01"), 1u);
  EXPECT_FALSE(findInvalidMlirByte("func.func @f() {\n\treturn\r\n}\n"));
}

TEST(MlirTextTest, StringsAndCommentsMayHoldAnyByte) {
  EXPECT_FALSE(findInvalidMlirByte("// caf\xc3\xa9\n%x = \"\xc3\xa9\\\"\""));
  // A string ends at its quote, not at an escaped one.
  EXPECT_EQ(findInvalidMlirByte("\"a\\\"b\" \xff"), 7u);
}

} // namespace

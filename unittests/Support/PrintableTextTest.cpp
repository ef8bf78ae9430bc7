//===- PrintableTextTest.cpp - Names from models, safe on a terminal ------===//

#include "dsm/Core/Support/PrintableText.h"

#include <gtest/gtest.h>

using dsm::core::printableText;

TEST(PrintableTextTest, ControlCharactersAreEscaped) {
  EXPECT_EQ(printableText("conv1.weight"), "conv1.weight");
  EXPECT_EQ(printableText("a\x1b[2Jb"), "a\\x1b[2Jb");
  EXPECT_EQ(printableText(llvm::StringRef("x\0y", 3)), "x\\x00y");
  EXPECT_EQ(printableText("tab\there\nline\x7f"), "tab\\there\\nline\\x7f");
  EXPECT_EQ(printableText("back\\slash"), "back\\\\slash");
  // UTF-8 is text, not control.
  EXPECT_EQ(printableText("caf\xc3\xa9"), "caf\xc3\xa9");
}

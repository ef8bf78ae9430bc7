//===- PrintableTextTest.cpp - Names from models, safe on a terminal ------===//

#include "dsm/Core/Support/PrintableText.h"
#include "dsm/Core/Support/Csv.h"

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

// Issue 46, item 22: what a terminal acts on beyond ASCII's controls.
TEST(PrintableTextTest, C1ControlsBidiAndInvalidUtf8AreEscaped) {
  // C1 controls: U+009B is a CSI that starts an escape sequence by itself.
  EXPECT_EQ(printableText("a\xc2\x9b"
                          "2Jb"),
            "a\\u009b2Jb");
  EXPECT_EQ(printableText("\xc2\x80\xc2\x9f"), "\\u0080\\u009f");
  // U+00A0 and above are text.
  EXPECT_EQ(printableText("\xc2\xa0"), "\xc2\xa0");
  // Overrides, embeddings, isolates and marks that reorder what follows.
  EXPECT_EQ(printableText("fc\xe2\x80\xae"
                          "txt"),
            "fc\\u202etxt");
  EXPECT_EQ(printableText("\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9"),
            "\\u202a\\u2066\\u2069");
  EXPECT_EQ(printableText("\xe2\x80\x8e\xd8\x9c"), "\\u200e\\u061c");
  // Other characters of those blocks, and CJK, are kept.
  EXPECT_EQ(printableText("\xe2\x80\x94\xe5\xb1\x82"),
            "\xe2\x80\x94\xe5\xb1\x82");
  // Bytes that are not well-formed UTF-8: a lone continuation, a truncated
  // sequence, an overlong form, a surrogate, beyond U+10FFFF.
  EXPECT_EQ(printableText("a\x80z"), "a\\x80z");
  EXPECT_EQ(printableText("a\xe2\x80"), "a\\xe2\\x80");
  EXPECT_EQ(printableText("\xc0\xaf"), "\\xc0\\xaf");
  EXPECT_EQ(printableText("\xed\xa0\x80"), "\\xed\\xa0\\x80");
  EXPECT_EQ(printableText("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
  EXPECT_EQ(printableText("\xff"), "\\xff");
  // A 4-byte character is kept.
  EXPECT_EQ(printableText("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");
}

// Issue 46, item 22: a text cell a spreadsheet would run as a formula gets
// a quote first; numbers stay numbers.
TEST(CsvTest, FormulaCellsAreQuotedNumbersAreNot) {
  auto row = [](std::vector<std::string> fields) {
    std::string text;
    llvm::raw_string_ostream os(text);
    dsm::core::writeCsvRow(os, fields);
    return text;
  };
  EXPECT_EQ(row({"=HYPERLINK(\"http://x\",\"y\")", "fc"}),
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",fc\r\n");
  EXPECT_EQ(row({"+cmd", "@SUM(A1)", "-2+3", "-", "\tx"}),
            "'+cmd,'@SUM(A1),'-2+3,'-,'\tx\r\n");
  EXPECT_EQ(row({"-1.5", "-3", "-2e-05", "1.25E+30", "0"}),
            "-1.5,-3,-2e-05,1.25E+30,0\r\n");
  EXPECT_EQ(row({dsm::core::csvNumber(-1.5), dsm::core::csvNumber(-1e-300)}),
            "-1.5,-1e-300\r\n");
  EXPECT_EQ(row({"a=b", "fc-1", ""}), "a=b,fc-1,\r\n");
}

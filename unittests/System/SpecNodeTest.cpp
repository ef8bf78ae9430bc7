//===- SpecNodeTest.cpp - Located YAML/JSON trees -------------------------===//

#include "dsm/Core/System/SpecNode.h"
#include "dsm/Core/System/SpecReader.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace dsm::core;

namespace {

/// The single SpecError in `error`, as "line:col: message".
std::string describe(llvm::Error error) {
  std::string text;
  llvm::handleAllErrors(std::move(error), [&](const SpecError &e) {
    if (!text.empty())
      text += "\n";
    text += std::to_string(e.getLocation().line) + ":" +
            std::to_string(e.getLocation().column) + ": " +
            e.getMessage().str();
  });
  return text;
}

TEST(SpecNodeTest, ParsesNestedYamlWithLocations) {
  llvm::Expected<SpecNode> tree =
      parseSpec("a: 1\nb:\n  c: [x, y]\n  d: {e: 2}\n", "t.yaml");
  ASSERT_TRUE(static_cast<bool>(tree)) << llvm::toString(tree.takeError());
  ASSERT_TRUE(tree->isMapping());
  const SpecNode *b = tree->lookup("b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->getLocation().line, 3u);
  const SpecNode *c = b->lookup("c");
  ASSERT_TRUE(c && c->isSequence());
  ASSERT_EQ(c->getItems().size(), 2u);
  EXPECT_EQ(c->getItems()[1].getScalar(), "y");
  EXPECT_EQ(b->lookup("d")->lookup("e")->getLocation().line, 4u);
  EXPECT_EQ(b->lookup("d")->lookup("e")->getLocation().file, "t.yaml");
}

TEST(SpecNodeTest, ParsesJson) {
  llvm::Expected<SpecNode> tree =
      parseSpec(R"({"name": "x", "list": [1, 2]})", "t.json");
  ASSERT_TRUE(static_cast<bool>(tree)) << llvm::toString(tree.takeError());
  EXPECT_EQ(tree->lookup("name")->getScalar(), "x");
  EXPECT_EQ(tree->lookup("list")->getItems().size(), 2u);
}

TEST(SpecNodeTest, ReportsSyntaxErrorsWithLine) {
  llvm::Expected<SpecNode> tree = parseSpec("a: 1\nb: [1, 2\n", "bad.yaml");
  ASSERT_FALSE(static_cast<bool>(tree));
  std::string message = describe(tree.takeError());
  // The unclosed bracket opened at line 2, column 9.
  EXPECT_EQ(message.substr(0, 4), "2:9:") << message;
  EXPECT_NE(message.find("closing ]"), std::string::npos) << message;
}

TEST(SpecNodeTest, RejectsDuplicateKeys) {
  llvm::Expected<SpecNode> tree = parseSpec("a: 1\na: 2\n", "dup.yaml");
  ASSERT_FALSE(static_cast<bool>(tree));
  EXPECT_EQ(describe(tree.takeError()), "2:1: duplicate field 'a'");
}

TEST(SpecNodeTest, RejectsEmptyDocument) {
  for (llvm::StringRef text : {"", "# only a comment\n", "---\n"}) {
    llvm::Expected<SpecNode> tree = parseSpec(text, "empty.yaml");
    ASSERT_FALSE(static_cast<bool>(tree)) << text.str();
    EXPECT_NE(describe(tree.takeError()).find("empty document"),
              std::string::npos);
  }
}

TEST(SpecReaderTest, ReportsMissingUnknownAndOutOfRangeFieldsTogether) {
  llvm::Expected<SpecNode> tree =
      parseSpec("count: 0\nspeed: 0 GB/s\ncolour: red\n", "r.yaml");
  ASSERT_TRUE(static_cast<bool>(tree));
  SpecDiagnostics diags;
  SpecMapReader reader(*tree, "", diags);
  EXPECT_FALSE(reader.integer("count", 1).has_value());
  EXPECT_FALSE(
      reader.quantity("speed", QuantityKind::Bandwidth, Bound::Positive)
          .has_value());
  EXPECT_FALSE(reader.integer("size", 1).has_value());
  reader.choice<int>("color", {{"red", 1}}, 0);
  reader.finish();
  EXPECT_EQ(describe(diags.takeErrors()),
            "1:8: field 'count' must be at least 1, got 0\n"
            "2:8: field 'speed' must be positive, got '0 GB/s'\n"
            "1:1: missing field 'size'\n"
            "3:1: unknown field 'colour'; did you mean 'color'?");
}

TEST(SpecNodeTest, PrintsYamlThatParsesBack) {
  SpecNode root = SpecNode::mapping();
  root.add("name", SpecNode::scalar("a: b"));
  SpecNode &inner = root.add("inner", SpecNode::mapping());
  inner.add("x", SpecNode::scalar("1"));
  std::string text;
  llvm::raw_string_ostream os(text);
  printSpec(root, os);
  llvm::Expected<SpecNode> tree = parseSpec(text, "printed.yaml");
  ASSERT_TRUE(static_cast<bool>(tree)) << text;
  EXPECT_EQ(tree->lookup("name")->getScalar(), "a: b");
  EXPECT_EQ(tree->lookup("inner")->lookup("x")->getScalar(), "1");
}

} // namespace

//===- QuantityTest.cpp - Units in system descriptions --------------------===//

#include "dsm/Core/System/Quantity.h"

#include <gtest/gtest.h>

using namespace dsm::core;

namespace {

double parse(llvm::StringRef text, QuantityKind kind) {
  std::string error;
  std::optional<double> value = parseQuantity(text, kind, error);
  EXPECT_TRUE(value.has_value()) << text.str() << ": " << error;
  return value.value_or(-1);
}

std::string parseError(llvm::StringRef text, QuantityKind kind) {
  std::string error;
  EXPECT_FALSE(parseQuantity(text, kind, error).has_value()) << text.str();
  return error;
}

TEST(QuantityTest, DecimalAndBinaryPrefixes) {
  EXPECT_DOUBLE_EQ(parse("8 GB", QuantityKind::Bytes), 8e9);
  EXPECT_DOUBLE_EQ(parse("1 MiB", QuantityKind::Bytes), 1048576.0);
  EXPECT_DOUBLE_EQ(parse("24MB", QuantityKind::Bytes), 24e6);
  EXPECT_DOUBLE_EQ(parse("4096", QuantityKind::Bytes), 4096.0);
}

TEST(QuantityTest, BandwidthInBytesAndBits) {
  EXPECT_DOUBLE_EQ(parse("256 GB/s", QuantityKind::Bandwidth), 256e9);
  // PCIe3 x16 of Andreassen's thesis: 128 Gbit/s is 16 GB/s.
  EXPECT_DOUBLE_EQ(parse("128 Gbit/s", QuantityKind::Bandwidth), 16e9);
  EXPECT_DOUBLE_EQ(parse("1.5e3 MB/s", QuantityKind::Bandwidth), 1.5e9);
}

TEST(QuantityTest, FrequencyAndFlops) {
  EXPECT_DOUBLE_EQ(parse("2 GHz", QuantityKind::Frequency), 2e9);
  EXPECT_DOUBLE_EQ(parse("14000 GFLOPS", QuantityKind::Flops), 14e12);
  EXPECT_DOUBLE_EQ(parse("8 PFLOP/s", QuantityKind::Flops), 8e15);
}

TEST(QuantityTest, NegativeNumbersParse) {
  // Bounds are the reader's business, not the parser's.
  EXPECT_DOUBLE_EQ(parse("-3 GB/s", QuantityKind::Bandwidth), -3e9);
}

TEST(QuantityTest, RejectsUnitsOfAnotherKind) {
  EXPECT_NE(parseError("8 GHz", QuantityKind::Bytes).find("unknown unit 'GHz'"),
            std::string::npos);
  EXPECT_NE(parseError("256 GB", QuantityKind::Bandwidth).find("bandwidth"),
            std::string::npos);
}

TEST(QuantityTest, RejectsMalformedNumbers) {
  EXPECT_FALSE(parseError("fast", QuantityKind::Bandwidth).empty());
  EXPECT_FALSE(parseError("", QuantityKind::Bytes).empty());
  EXPECT_FALSE(parseError("1.2.3 GB", QuantityKind::Bytes).empty());
}

TEST(QuantityTest, FormatsWithReadableUnits) {
  EXPECT_EQ(formatQuantity(120e9, QuantityKind::Bandwidth), "120 GB/s");
  EXPECT_EQ(formatQuantity(1048576, QuantityKind::Bytes), "1 MiB");
  EXPECT_EQ(formatQuantity(2e9, QuantityKind::Frequency), "2 GHz");
}

} // namespace

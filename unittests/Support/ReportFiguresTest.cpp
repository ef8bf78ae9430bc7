//===- ReportFiguresTest.cpp - Finite figures in every report -------------===//

#include "dsm/Core/Support/ReportFigures.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace dsm::core;

namespace {
/// The error's message, or "" when the figures pass.
std::string check(llvm::StringRef json) {
  llvm::Error error = checkReportFigures(json);
  return error ? llvm::toString(std::move(error)) : std::string();
}
} // namespace

TEST(ReportFiguresTest, UnitsAreReadFromKeys) {
  EXPECT_EQ(getFigureUnit("cycles"), FigureUnit::Cycles);
  EXPECT_EQ(getFigureUnit("seconds"), FigureUnit::Seconds);
  EXPECT_EQ(getFigureUnit("step_time_ms"), FigureUnit::Milliseconds);
  EXPECT_EQ(getFigureUnit("latency_us"), FigureUnit::Microseconds);
  EXPECT_EQ(getFigureUnit("dur"), FigureUnit::Microseconds);
  EXPECT_EQ(getFigureUnit("peak_memory_bytes"), FigureUnit::Bytes);
  EXPECT_EQ(getFigureUnit("bandwidth_bytes_per_second"), FigureUnit::None);
  EXPECT_EQ(getFigureUnit("events_per_second"), FigureUnit::None);
  EXPECT_EQ(getFigureUnit("utilization"), FigureUnit::None);
}

TEST(ReportFiguresTest, FiniteFiguresInRangePass) {
  EXPECT_EQ(check(R"({"layers": [{"cycles": 12, "name": "conv1",
      "bytes": {"memory_bus": 1.5e9}, "seconds": 0.25}],
      "fitness": -3.5, "valid": true, "evaluator": null,
      "seconds": 1e15, "speedup": 1.2e300})"),
            "");
}

TEST(ReportFiguresTest, NonFiniteNumbersAreNamedWithTheirObject) {
  // Keys print sorted: the row's name comes after the figure.
  EXPECT_EQ(check(R"({"layers": [{"cycles": 1, "name": "a"},
      {"cycles": 2, "name": "b", "seconds": inf}, {"name": "c"}]})"),
            "figure 'layers[1].seconds' of 'b' is inf, not a finite number");
  EXPECT_EQ(check(R"({"speedup": nan})"),
            "figure 'speedup' is nan, not a finite number");
  EXPECT_EQ(check(R"({"x": [1, -nan]})"),
            "figure 'x[1]' is -nan, not a finite number");
}

TEST(ReportFiguresTest, TimesCyclesAndBytesHaveARange) {
  EXPECT_EQ(check(R"({"totals": {"seconds": 8.1e15}})"),
            "figure 'totals.seconds' is 8.1e15 s, beyond the 1e+15 s a "
            "report may hold");
  EXPECT_EQ(check(R"({"step_time_ms": 2e18})"),
            "figure 'step_time_ms' is 2e18 ms, beyond the 1e+18 ms a report "
            "may hold");
  EXPECT_EQ(check(R"({"rows": [{"cycles": -4, "name": "fc"}]})"),
            "figure 'rows[0].cycles' of 'fc' is -4 cycles, below zero");
  // A key without a unit inherits its holder's.
  EXPECT_EQ(check(R"({"bytes": {"on_chip": 2e21}})"),
            "figure 'bytes.on_chip' is 2e21 bytes, beyond the 1e+21 bytes a "
            "report may hold");
}

TEST(ReportFiguresTest, StringsAreNotFigures) {
  // A layer may be named after anything, with quotes and brackets escaped.
  EXPECT_EQ(check(R"({"name": "inf", "op": "a\"]}nan", "cycles": 3})"), "");
  EXPECT_EQ(check(R"({"name": "x\\", "seconds": 1})"), "");
}

TEST(ReportFiguresTest, TruncatedJsonIsAnError) {
  EXPECT_NE(check(R"({"layers": [)"), "");
  EXPECT_NE(check(R"({"name": "unterminated)"), "");
}

TEST(ReportFiguresTest, PiecesGiveTheVerdictOfTheWhole) {
  // Every split into pieces (of every size from 1 byte) gives the whole
  // text's verdict, the message to the byte: figures and strings split
  // anywhere, a failure named after its object ends, malformed text.
  const char *texts[] = {
      R"({"layers": [{"cycles": 12, "name": "conv1"}, {"cycles": 3.5e2,
          "name": "a \"quoted\" inf"}], "seconds": 1e-3, "ok": true})",
      R"({"layers": [{"cycles": 1, "name": "a"},
          {"cycles": 2, "name": "b", "seconds": inf}, {"name": "c"}]})",
      R"({"bytes": -12, "name": "below"})",
      R"({"layers": [{"cycles": 1e30}]})",
      R"({"layers": [{"cycles": 1})",
      R"({"name": "never closed)"};
  for (const char *text : texts) {
    llvm::StringRef json(text);
    const std::string whole = check(json);
    for (size_t size = 1; size <= json.size(); ++size) {
      FigureChecker checker;
      for (size_t at = 0; at < json.size(); at += size)
        checker.feed(json.substr(at, size));
      llvm::Error error = checker.finish();
      EXPECT_EQ(error ? llvm::toString(std::move(error)) : std::string(), whole)
          << "pieces of " << size << " bytes of " << text;
    }
  }
  // The texts above do fail where they should.
  EXPECT_EQ(check(texts[0]), "");
  EXPECT_NE(check(texts[1]), "");
  EXPECT_NE(check(texts[4]), "");
}

TEST(ReportFiguresTest, WholeFiguresOfFifteenDigitsPassUnread) {
  // The whole-number shortcut stops where the least limit (1e15 s) could be
  // passed: sixteen digits are read and checked.
  EXPECT_EQ(check(R"({"seconds": 999999999999999})"), "");
  EXPECT_NE(check(R"({"seconds": 1000000000000001})"), "");
  EXPECT_EQ(check(R"({"cycles": 1000000000000001})"), "");
}

namespace {
/// What llvm::json writes for `write`'s one value.
template <typename WriteFn> std::string written(WriteFn write) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream json(os);
  write(json);
  return text;
}
} // namespace

TEST(ReportFiguresTest, FiguresPrintAsLlvmJsonPrintsTheirDouble) {
  std::vector<double> figures = {0.0,
                                 -0.0,
                                 1.0,
                                 -7.0,
                                 151298048.0,
                                 0.075649023999999995,
                                 6.7680978937679357e-06,
                                 1e16 + 2,
                                 99999999999999984.0, // the last below 1e17
                                 1e17,
                                 1e21,
                                 -1e300,
                                 1.5e-320, // subnormal
                                 std::numeric_limits<double>::max(),
                                 std::numeric_limits<double>::infinity(),
                                 -std::numeric_limits<double>::infinity(),
                                 std::numeric_limits<double>::quiet_NaN()};
  // And a spread of bit patterns, whole and not, over every magnitude.
  uint64_t bits = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 2000; ++i) {
    bits ^= bits << 13, bits ^= bits >> 7, bits ^= bits << 17;
    double value;
    std::memcpy(&value, &bits, sizeof value);
    figures.push_back(value);
    figures.push_back(std::trunc(double(bits >> (i % 64))));
    figures.push_back(double(bits % 100000) / 1024);
  }
  for (double figure : figures) {
    std::string expected =
        written([&](llvm::json::OStream &json) { json.value(figure); });
    EXPECT_EQ(written([&](llvm::json::OStream &json) {
                writeJsonFigure(json, figure);
              }),
              expected);
    std::string printed;
    llvm::raw_string_ostream os(printed);
    printJsonFigure(os, figure);
    EXPECT_EQ(printed, expected);
  }
}

//===- Quantity.cpp - Numbers with units in system descriptions -----------===//

#include "dsm/Core/System/Quantity.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace dsm::core;

namespace {
struct Unit {
  llvm::StringLiteral name;
  double scale;
};
} // namespace

static constexpr double kKilo = 1e3, kMega = 1e6, kGiga = 1e9, kTera = 1e12,
                        kPeta = 1e15;
static constexpr double kKibi = 1024.0, kMebi = kKibi * 1024.0,
                        kGibi = kMebi * 1024.0, kTebi = kGibi * 1024.0;

static llvm::ArrayRef<Unit> unitsFor(QuantityKind kind) {
  static const Unit bytes[] = {{"B", 1},       {"KB", kKilo},  {"MB", kMega},
                               {"GB", kGiga},  {"TB", kTera},  {"KiB", kKibi},
                               {"MiB", kMebi}, {"GiB", kGibi}, {"TiB", kTebi}};
  static const Unit bandwidth[] = {{"B/s", 1},
                                   {"KB/s", kKilo},
                                   {"MB/s", kMega},
                                   {"GB/s", kGiga},
                                   {"TB/s", kTera},
                                   {"KiB/s", kKibi},
                                   {"MiB/s", kMebi},
                                   {"GiB/s", kGibi},
                                   {"TiB/s", kTebi},
                                   {"bit/s", 1.0 / 8},
                                   {"Kbit/s", kKilo / 8},
                                   {"Mbit/s", kMega / 8},
                                   {"Gbit/s", kGiga / 8},
                                   {"Tbit/s", kTera / 8}};
  static const Unit frequency[] = {
      {"Hz", 1}, {"kHz", kKilo}, {"MHz", kMega}, {"GHz", kGiga}};
  static const Unit flops[] = {{"FLOPS", 1},       {"GFLOPS", kGiga},
                               {"TFLOPS", kTera},  {"PFLOPS", kPeta},
                               {"FLOP/s", 1},      {"GFLOP/s", kGiga},
                               {"TFLOP/s", kTera}, {"PFLOP/s", kPeta}};
  static const Unit time[] = {
      {"s", 1}, {"ms", 1 / kKilo}, {"us", 1 / kMega}, {"ns", 1 / kGiga}};
  switch (kind) {
  case QuantityKind::Count:
    return {};
  case QuantityKind::Time:
    return time;
  case QuantityKind::Bytes:
    return bytes;
  case QuantityKind::Bandwidth:
    return bandwidth;
  case QuantityKind::Frequency:
    return frequency;
  case QuantityKind::Flops:
    return flops;
  }
  return {};
}

llvm::StringRef dsm::core::describeQuantityKind(QuantityKind kind) {
  switch (kind) {
  case QuantityKind::Count:
    return "a number";
  case QuantityKind::Bytes:
    return "a size such as '8 GB' or '1 MiB'";
  case QuantityKind::Bandwidth:
    return "a bandwidth such as '256 GB/s' or '128 Gbit/s'";
  case QuantityKind::Frequency:
    return "a frequency such as '2 GHz'";
  case QuantityKind::Flops:
    return "a throughput such as '14000 GFLOPS'";
  case QuantityKind::Time:
    return "a time such as '5 us'";
  }
  return "a number";
}

llvm::StringRef dsm::core::baseUnit(QuantityKind kind) {
  llvm::ArrayRef<Unit> units = unitsFor(kind);
  return units.empty() ? llvm::StringRef() : llvm::StringRef(units[0].name);
}

double dsm::core::minPlausibleQuantity(QuantityKind kind) {
  switch (kind) {
  case QuantityKind::Count:
    return 0;
  case QuantityKind::Bytes:
    return 1;
  case QuantityKind::Bandwidth:
  case QuantityKind::Frequency:
  case QuantityKind::Flops:
    return kKilo;
  case QuantityKind::Time:
    return 1e-12;
  }
  return 0;
}

std::optional<double> dsm::core::parseQuantity(llvm::StringRef text,
                                               QuantityKind kind,
                                               std::string &error, bool *bare) {
  text = text.trim();
  // Split "<number><spaces><unit>"; the unit may also follow without a space.
  size_t numberEnd = text.find_first_not_of("0123456789.eE+-");
  // An exponent sign only belongs to the number when it follows 'e'/'E';
  // "1e" followed by a unit letter such as "1 EB" is not supported anyway.
  llvm::StringRef number = text.substr(0, numberEnd);
  llvm::StringRef unit = text.substr(number.size()).trim();
  double value = 0;
  if (number.empty() || number.getAsDouble(value, /*AllowInexact=*/true)) {
    error = "expected " + describeQuantityKind(kind).str() + ", got '" +
            text.str() + "'";
    return std::nullopt;
  }
  if (!std::isfinite(value)) {
    error = "value '" + text.str() + "' is not finite";
    return std::nullopt;
  }
  if (bare)
    *bare = unit.empty();
  if (unit.empty())
    return value;
  for (const Unit &candidate : unitsFor(kind))
    if (candidate.name == unit)
      return value * candidate.scale;
  error = "unknown unit '" + unit.str() + "': expected " +
          describeQuantityKind(kind).str();
  return std::nullopt;
}

std::string dsm::core::formatQuantity(double value, QuantityKind kind) {
  struct Step {
    double scale;
    const char *name;
  };
  static const Step byteSteps[] = {
      {kTebi, "TiB"}, {kGibi, "GiB"}, {kMebi, "MiB"}, {kKibi, "KiB"}, {1, "B"}};
  static const Step bwSteps[] = {{kTera, "TB/s"},
                                 {kGiga, "GB/s"},
                                 {kMega, "MB/s"},
                                 {kKilo, "KB/s"},
                                 {1, "B/s"}};
  static const Step freqSteps[] = {
      {kGiga, "GHz"}, {kMega, "MHz"}, {kKilo, "kHz"}, {1, "Hz"}};
  static const Step timeSteps[] = {
      {1, "s"}, {1 / kKilo, "ms"}, {1 / kMega, "us"}, {1 / kGiga, "ns"}};
  static const Step flopSteps[] = {
      {kPeta, "PFLOPS"}, {kTera, "TFLOPS"}, {kGiga, "GFLOPS"}, {1, "FLOPS"}};
  llvm::ArrayRef<Step> steps;
  switch (kind) {
  case QuantityKind::Count:
    break;
  case QuantityKind::Bytes:
    steps = byteSteps;
    break;
  case QuantityKind::Bandwidth:
    steps = bwSteps;
    break;
  case QuantityKind::Frequency:
    steps = freqSteps;
    break;
  case QuantityKind::Flops:
    steps = flopSteps;
    break;
  case QuantityKind::Time:
    steps = timeSteps;
    break;
  }
  std::string result;
  llvm::raw_string_ostream os(result);
  for (const Step &step : steps) {
    if (std::fabs(value) >= step.scale || &step == &steps.back()) {
      os << llvm::format("%g", value / step.scale) << ' ' << step.name;
      return result;
    }
  }
  os << llvm::format("%g", value);
  return result;
}

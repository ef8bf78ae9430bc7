//===- Quantity.h - Numbers with units in system descriptions ---*- C++ -*-===//
//
// System files say "256 GB/s", "1 MiB", "2 GHz" or "14000 GFLOPS" the way the
// papers do; a bare number means the base unit (bytes, bytes/s, Hz, FLOP/s).
// Decimal prefixes are powers of 1000 (GB = 1e9 B), binary prefixes powers of
// 1024 (GiB), and "bit" units divide by 8.
//
// Every quantity has a plausible range in base units: at least 1 B, 1 KB/s,
// 1 kHz, 1 kFLOPS or 1 ps (minPlausibleQuantity), at most 1e21
// (kMaxSpecQuantity). Below it is a unit left out or a denormal that makes
// times infinite.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SYSTEM_QUANTITY_H
#define DSM_CORE_SYSTEM_QUANTITY_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace dsm::core {

enum class QuantityKind {
  Count,     ///< a plain number
  Bytes,     ///< B, KB, KiB, MB, MiB, GB, GiB, TB, TiB
  Bandwidth, ///< B/s ... TB/s, KiB/s ... TiB/s, bit/s, Kbit/s ... Tbit/s
  Frequency, ///< Hz, kHz, MHz, GHz
  Flops,     ///< FLOPS, GFLOPS, TFLOPS, PFLOPS (FLOP/s spellings too)
  Time,      ///< s, ms, us, ns
};

/// Human name of the unit family, for diagnostics ("a bandwidth such as
/// '256 GB/s'").
llvm::StringRef describeQuantityKind(QuantityKind kind);

/// The base unit of `kind`: "B", "B/s", "Hz", "FLOPS", "s" ("" for a count).
llvm::StringRef baseUnit(QuantityKind kind);

/// The least plausible non-zero value of `kind` in base units: 1 B, 1 KB/s,
/// 1 kHz, 1 kFLOPS, 1 ps (0 for a count, which has no unit).
double minPlausibleQuantity(QuantityKind kind);

/// Parses "<number> [unit]" into base units. Returns std::nullopt and sets
/// `error` on a malformed number or an unit that does not belong to `kind`.
/// `bare` (when given) tells whether the text had no unit.
std::optional<double> parseQuantity(llvm::StringRef text, QuantityKind kind,
                                    std::string &error, bool *bare = nullptr);

/// Formats a value in base units with a readable unit ("1.2e+11" -> "120
/// GB/s").
std::string formatQuantity(double value, QuantityKind kind);

} // namespace dsm::core

#endif // DSM_CORE_SYSTEM_QUANTITY_H

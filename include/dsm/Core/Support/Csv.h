//===- Csv.h - Rows of a report as CSV --------------------------*- C++ -*-===//
//
// `report=x.csv`: the per-layer (spatial), per-tensor (memory) or per-op
// (devices) rows of a report as RFC 4180 CSV, a header line first, for a
// spreadsheet or pandas.read_csv. One helper for the three writers.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SUPPORT_CSV_H
#define DSM_CORE_SUPPORT_CSV_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace dsm::core {

/// Writes one CSV line of `fields` (quoted where a comma, quote or line
/// break needs it, quotes doubled) and its line break. A text field that
/// starts with `=`, `+`, `-`, `@`, a tab or a carriage return, which a
/// spreadsheet would run as a formula, is written after a `'` (OWASP's
/// advice on CSV injection); a number (`-1.5`, `-2e-05`) is written as is.
void writeCsvRow(llvm::raw_ostream &os, llvm::ArrayRef<std::string> fields);

/// A number as a CSV field: integers exactly, others with the fewest of
/// 15 to 17 digits that read back as the same double.
std::string csvNumber(double value);

} // namespace dsm::core

#endif // DSM_CORE_SUPPORT_CSV_H

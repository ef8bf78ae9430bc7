//===- ReportFigures.h - Finite figures in every report ---------*- C++ -*-===//
//
// Reports are read by people and by scripts: `"seconds": inf` is not JSON,
// and a time of 1e300 s is no answer either. Every report has a JSON form
// whose keys name their units (`cycles`, `seconds`, `step_time_ms`,
// `latency_us`, `peak_bytes`; docs/mapping-report.md and the others), so one
// check over that form covers every figure of every report, whichever format
// the user asked for: the report writer (include/dsm/Support/ReportWriter.h)
// runs it before anything is written.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SUPPORT_REPORTFIGURES_H
#define DSM_CORE_SUPPORT_REPORTFIGURES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <memory>

namespace dsm::core {

/// What a report's figure counts, read from its JSON key: `cycles` and
/// `*_cycles` are cycles; `seconds`, `*_seconds`, `*_s` are seconds, `*_ms`
/// milliseconds, `*_us` and the Chrome trace's `ts` and `dur` microseconds;
/// `bytes` and `*_bytes` are bytes. A rate (`*_per_second`) is none of them.
/// A key without a unit inherits the unit of the key that holds it (the
/// mapping report's `"bytes": {"memory_bus": ...}`).
enum class FigureUnit {
  None,
  Cycles,
  Seconds,
  Milliseconds,
  Microseconds,
  Bytes
};

FigureUnit getFigureUnit(llvm::StringRef key);

/// The largest figure a report may hold, in the unit's own terms: 2^63
/// cycles; 1e15 s (about 30 million years, the bound the cost models keep
/// for one operation); 1e21 bytes (the largest system quantity).
double getFigureLimit(FigureUnit unit);

/// Prints `figure` as llvm::json prints the double ("%.17g"), byte for
/// byte, without printf: a whole number below 1e17 (every cycle and byte
/// count a report holds) as the integer, whose digits are the same, a
/// fraction through std::to_chars, which prints in the style of printf at
/// the precision given. A report of 10,000 layers holds tens of millions of
/// figures; their printf was a fifth of its writing time.
void printJsonFigure(llvm::raw_ostream &os, double figure);

/// Writes `figure` as a value of `json` (printJsonFigure).
void writeJsonFigure(llvm::json::OStream &json, double figure);

/// Checks every number in `json`, a report's JSON form as the tools write it
/// (llvm::json, which prints a non-finite double as `inf` or `nan`): each
/// must be finite, and each cycle count, time and byte count in [0, its
/// limit]. The error names the first figure that is not, by its path
/// (`layers[3].seconds`) and the `name` (or else `function`) of the object
/// holding it when it has one, with its value and the range.
llvm::Error checkReportFigures(llvm::StringRef json);

/// checkReportFigures on text that arrives in pieces, as it is written: a
/// report of 10,000 layers (480 MB of JSON) is checked without being held.
/// Pieces may split a token anywhere; only the unread end of the last piece
/// is kept. The same text, however split, gives the same verdict.
class FigureChecker {
public:
  FigureChecker();
  ~FigureChecker();
  FigureChecker(const FigureChecker &) = delete;
  FigureChecker &operator=(const FigureChecker &) = delete;

  /// Reads the next piece of the text.
  void feed(llvm::StringRef piece);
  /// The verdict on the whole text fed.
  llvm::Error finish();

private:
  class Scanner;
  std::unique_ptr<Scanner> scanner;
};

} // namespace dsm::core

#endif // DSM_CORE_SUPPORT_REPORTFIGURES_H

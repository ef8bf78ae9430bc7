//===- Csv.cpp - Rows of a report as CSV ----------------------------------===//

#include "dsm/Core/Support/Csv.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <cstdlib>

using namespace dsm::core;

/// Whether `field` is a number as csvNumber writes it: an optional '-',
/// digits, an optional fraction and an optional exponent.
static bool isCsvNumber(llvm::StringRef field) {
  auto digits = [&]() {
    size_t count = 0;
    while (!field.empty() && llvm::isDigit(field.front())) {
      field = field.drop_front();
      ++count;
    }
    return count > 0;
  };
  field.consume_front("-");
  if (!digits())
    return false;
  if (field.consume_front(".") && !digits())
    return false;
  if (field.consume_front("e") || field.consume_front("E")) {
    if (!field.consume_front("+"))
      field.consume_front("-");
    if (!digits())
      return false;
  }
  return field.empty();
}

void dsm::core::writeCsvRow(llvm::raw_ostream &os,
                            llvm::ArrayRef<std::string> fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i)
      os << ',';
    std::string guarded;
    llvm::StringRef field = fields[i];
    // A text cell a spreadsheet would read as a formula (OWASP's CSV
    // injection: `=HYPERLINK(...)`, `+cmd|...`, `@SUM(...)` as a layer's
    // name) starts with a quote, which makes it text; numbers (-1.5) stay.
    if (!field.empty() && llvm::StringRef("=+-@\t\r").contains(field.front()) &&
        !isCsvNumber(field)) {
      guarded = "'" + field.str();
      field = guarded;
    }
    if (field.find_first_of(",\"\r\n") == llvm::StringRef::npos) {
      os << field;
      continue;
    }
    os << '"';
    for (char c : field) {
      if (c == '"')
        os << '"';
      os << c;
    }
    os << '"';
  }
  os << "\r\n";
}

std::string dsm::core::csvNumber(double value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (std::isfinite(value) && value == std::floor(value) &&
      std::fabs(value) < 9.007199254740992e15)
    os << static_cast<int64_t>(value);
  else {
    // The shortest of 15..17 digits that reads back as the same double.
    for (int digits = 15; digits <= 17; ++digits) {
      text.clear();
      os << llvm::format("%.*g", digits, value);
      os.flush();
      if (std::strtod(text.c_str(), nullptr) == value)
        break;
    }
  }
  os.flush();
  return text;
}

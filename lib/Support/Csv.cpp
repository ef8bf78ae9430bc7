//===- Csv.cpp - Rows of a report as CSV ----------------------------------===//

#include "dsm/Core/Support/Csv.h"

#include "llvm/Support/Format.h"

#include <cmath>
#include <cstdlib>

using namespace dsm::core;

void dsm::core::writeCsvRow(llvm::raw_ostream &os,
                            llvm::ArrayRef<std::string> fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i)
      os << ',';
    llvm::StringRef field = fields[i];
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

//===- ReportFigures.cpp - Finite figures in every report -----------------===//
//
// A single pass over the JSON text: strings are skipped (a layer may be
// named "inf"), every bare token that is not true, false or null is a number
// and is read with strtod, and the path of keys and array indices leading to
// it names the figure when it is wrong.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Support/ReportFigures.h"

#include "dsm/Core/Support/PrintableText.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

using namespace dsm::core;

FigureUnit dsm::core::getFigureUnit(llvm::StringRef key) {
  if (key.ends_with("per_second"))
    return FigureUnit::None;
  if (key == "cycles" || key.ends_with("_cycles"))
    return FigureUnit::Cycles;
  if (key == "seconds" || key.ends_with("_seconds") || key.ends_with("_s"))
    return FigureUnit::Seconds;
  if (key.ends_with("_ms"))
    return FigureUnit::Milliseconds;
  if (key.ends_with("_us") || key == "ts" || key == "dur")
    return FigureUnit::Microseconds;
  if (key == "bytes" || key.ends_with("_bytes"))
    return FigureUnit::Bytes;
  return FigureUnit::None;
}

double dsm::core::getFigureLimit(FigureUnit unit) {
  constexpr double kMaxSeconds = 1e15;
  switch (unit) {
  case FigureUnit::None:
    return HUGE_VAL;
  case FigureUnit::Cycles:
    return 9223372036854775808.0; // 2^63
  case FigureUnit::Seconds:
    return kMaxSeconds;
  case FigureUnit::Milliseconds:
    return kMaxSeconds * 1e3;
  case FigureUnit::Microseconds:
    return kMaxSeconds * 1e6;
  case FigureUnit::Bytes:
    return 1e21;
  }
  return HUGE_VAL;
}

/// Whether `figure` prints the same as an integer under "%.17g": whole,
/// of 17 digits or fewer (beyond, printf writes an exponent), and not -0.
static bool printsAsInteger(double figure) {
  return std::abs(figure) < 1e17 && figure == std::trunc(figure) &&
         !(figure == 0 && std::signbit(figure));
}

void dsm::core::printJsonFigure(llvm::raw_ostream &os, double figure) {
  if (printsAsInteger(figure)) {
    os << static_cast<int64_t>(figure);
    return;
  }
  // llvm::json prints a double with max_digits10 significant digits.
  std::array<char, 64> text;
  std::to_chars_result printed = std::to_chars(
      text.data(), text.data() + text.size(), figure,
      std::chars_format::general, std::numeric_limits<double>::max_digits10);
  os.write(text.data(), printed.ptr - text.data());
}

void dsm::core::writeJsonFigure(llvm::json::OStream &json, double figure) {
  json.rawValue([&](llvm::raw_ostream &os) { printJsonFigure(os, figure); });
}

static llvm::StringRef unitName(FigureUnit unit) {
  switch (unit) {
  case FigureUnit::None:
    return "";
  case FigureUnit::Cycles:
    return " cycles";
  case FigureUnit::Seconds:
    return " s";
  case FigureUnit::Milliseconds:
    return " ms";
  case FigureUnit::Microseconds:
    return " us";
  case FigureUnit::Bytes:
    return " bytes";
  }
  return "";
}

namespace {
/// An object or array the scan is inside.
struct Frame {
  bool object;
  /// The key whose value comes next or is being read (objects).
  llvm::SmallString<24> key;
  /// The index of the current element (arrays).
  int64_t index = 0;
  /// The object's "name" (or "function"), when it has one and it has been
  /// read.
  std::string name;
  /// The unit of the current key (objects), and the unit in effect where
  /// the frame opened: found once, not per figure.
  FigureUnit keyUnit = FigureUnit::None, outer = FigureUnit::None;

  /// The unit of a figure read here: of the innermost key that has one.
  FigureUnit unit() const {
    return object && keyUnit != FigureUnit::None ? keyUnit : outer;
  }
};

} // namespace

/// The scan, over the text fed so far: `pending` holds what is not read
/// yet (a token split between pieces waits there for the rest).
class dsm::core::FigureChecker::Scanner {
public:
  /// Reads `piece`; `last`: the text ends with it.
  void feed(llvm::StringRef piece, bool last) {
    if (done)
      return;
    // Read in place when nothing waits; only an unread end is copied.
    const bool inPlace = pending.empty();
    if (!inPlace)
      pending.append(piece.data(), piece.size());
    text = inPlace ? piece : llvm::StringRef(pending);
    scan(last);
    base += pos;
    if (inPlace)
      pending.assign(text.data() + pos, text.size() - pos);
    else
      pending.erase(0, pos);
    pos = 0;
    text = llvm::StringRef();
  }

  llvm::Error verdict() const {
    if (!message)
      return llvm::Error::success();
    return llvm::createStringError(*message);
  }

private:
  void scan(bool last) {
    while (!done && pos < text.size()) {
      char c = text[pos];
      if (isBlank(c)) {
        // Runs of indentation: most of a pretty-printed report's bytes
        // (counted in a local: a store through `pos` per byte would be
        // reloaded, as the text's chars may alias it).
        const char *data = text.data();
        size_t at = pos + 1, size = text.size();
        while (at < size && isBlank(data[at]))
          ++at;
        pos = at;
        continue;
      }
      if (c == '{' || c == '[') {
        Frame frame{c == '{', {}, 0, ""};
        if (!stack.empty())
          frame.outer = stack.back().unit();
        stack.push_back(std::move(frame));
        expectKey = c == '{';
        ++pos;
        continue;
      }
      if (c == '}' || c == ']') {
        if (stack.empty())
          return malformed();
        if (failed && stack.size() == failedDepth)
          return finishFailure();
        stack.pop_back();
        expectKey = false;
        ++pos;
        continue;
      }
      if (c == ',') {
        if (stack.empty())
          return malformed();
        if (stack.back().object)
          expectKey = true;
        else
          ++stack.back().index;
        ++pos;
        continue;
      }
      if (c == '"') {
        size_t start = pos;
        std::optional<llvm::StringRef> string = readString();
        if (!string) {
          if (!last) { // the rest of the string is still to come
            pos = start;
            return;
          }
          return malformed();
        }
        if (expectKey && !stack.empty()) {
          stack.back().key = *string;
          stack.back().keyUnit = getFigureUnit(*string);
          expectKey = false;
        } else if (!stack.empty() && stack.back().object &&
                   (stack.back().key == "name" ||
                    (stack.back().key == "function" &&
                     stack.back().name.empty()))) {
          stack.back().name.assign(string->data(), string->size());
        }
        continue;
      }
      size_t end = tokenEnd(pos);
      if (end == llvm::StringRef::npos) {
        if (!last) // the token may go on in the next piece
          return;
        end = text.size();
      }
      llvm::StringRef token = text.slice(pos, end);
      pos = end;
      if (!failed && token != "true" && token != "false" && token != "null")
        check(token);
    }
    if (!last || done)
      return;
    if (failed)
      return finishFailure();
    if (!stack.empty())
      return malformed();
  }

  static bool isBlank(char c) {
    return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == ':';
  }

  /// Where the token at `from` ends: at the next of `,]}:` or white space
  /// (npos: not in this piece). A table, not find_first_of's set built
  /// afresh for each of a report's millions of numbers.
  size_t tokenEnd(size_t from) const {
    static const std::array<bool, 256> ends = [] {
      std::array<bool, 256> table{};
      for (unsigned char c : llvm::StringRef(",]}: \t\r\n"))
        table[c] = true;
      return table;
    }();
    for (size_t i = from; i < text.size(); ++i)
      if (ends[static_cast<unsigned char>(text[i])])
        return i;
    return llvm::StringRef::npos;
  }

  /// The string starting at `pos` (without its quotes and unescaped only
  /// as far as names need), moving past it; none if it does not end here.
  std::optional<llvm::StringRef> readString() {
    size_t start = ++pos;
    // Counted in a local, as in scan.
    const char *data = text.data();
    size_t at = start, size = text.size();
    while (at < size && data[at] != '"')
      at += data[at] == '\\' ? 2 : 1;
    pos = at;
    if (pos >= text.size())
      return std::nullopt;
    return text.slice(start, pos++);
  }

  void check(llvm::StringRef token) {
    // Most figures are whole counts: fifteen digits or fewer are finite,
    // not below zero, and below 1e15, the least of the limits.
    if (token.size() <= 15 &&
        llvm::all_of(token, [](char c) { return c >= '0' && c <= '9'; }) &&
        !token.empty())
      return;
    const FigureUnit unit =
        stack.empty() ? FigureUnit::None : stack.back().unit();
    const double limit = getFigureLimit(unit);
    // A number as JSON writes it parses whole with from_chars; anything
    // else is read as strtod reads it.
    double value = 0;
    const std::from_chars_result quick =
        std::from_chars(token.begin(), token.end(), value);
    if (!token.empty() && quick.ec == std::errc() && quick.ptr == token.end() &&
        std::isfinite(value) && (unit == FigureUnit::None || value >= 0) &&
        value <= limit)
      return;
    llvm::SmallString<32> copy(token);
    char *end = nullptr;
    value = std::strtod(copy.c_str(), &end);
    std::string why;
    llvm::raw_string_ostream os(why);
    if (copy.empty() || *end != 0 || !std::isfinite(value))
      os << "is " << token << ", not a finite number";
    else if (unit != FigureUnit::None && value < 0)
      os << "is " << token << unitName(unit) << ", below zero";
    else if (value > limit)
      os << "is " << token << unitName(unit) << ", beyond the "
         << llvm::format("%g", limit) << unitName(unit) << " a report may hold";
    else
      return;
    failed = true;
    failure = why;
    failedPath = path();
    // The name of the object holding the figure may come after it (keys
    // print sorted): read on to the end of that object.
    failedDepth = stack.size();
    for (size_t depth = stack.size(); depth > 0; --depth)
      if (stack[depth - 1].object) {
        failedDepth = depth;
        break;
      }
  }

  std::string path() const {
    std::string text;
    for (const Frame &frame : stack) {
      if (!frame.object)
        text += "[" + std::to_string(frame.index) + "]";
      else
        text += (text.empty() ? "" : ".") + frame.key.str().str();
    }
    return text;
  }

  void finishFailure() {
    std::string name;
    if (failedDepth > 0 && failedDepth <= stack.size())
      name = stack[failedDepth - 1].name;
    message = "figure '" + failedPath + "'" +
              (name.empty() ? "" : " of '" + printableText(name) + "'") + " " +
              failure;
    done = true;
  }

  void malformed() {
    message = "the report is not well-formed JSON near byte " +
              std::to_string(base + pos);
    done = true;
  }

  std::string pending;
  llvm::StringRef text;
  size_t pos = 0, base = 0;
  bool expectKey = false;
  llvm::SmallVector<Frame> stack;
  bool failed = false;
  std::string failure, failedPath;
  /// The depth of the object holding the failed figure.
  size_t failedDepth = 0;
  bool done = false;
  std::optional<std::string> message;
};

dsm::core::FigureChecker::FigureChecker()
    : scanner(std::make_unique<Scanner>()) {}
dsm::core::FigureChecker::~FigureChecker() = default;

void dsm::core::FigureChecker::feed(llvm::StringRef piece) {
  scanner->feed(piece, /*last=*/false);
}

llvm::Error dsm::core::FigureChecker::finish() {
  scanner->feed("", /*last=*/true);
  return scanner->verdict();
}

llvm::Error dsm::core::checkReportFigures(llvm::StringRef json) {
  FigureChecker checker;
  checker.feed(json);
  return checker.finish();
}

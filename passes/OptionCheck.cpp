//===- OptionCheck.cpp - Pass options checked for people ------------------===//

#include "dsm/Passes/OptionCheck.h"
#include "dsm/Passes/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassOptions.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace mlir;

namespace {
// A pass's options live in Pass::passOptions (private) and are listed in the
// llvm::cl::SubCommand that PassOptions derives from (protected). MLIR gives
// no accessor; an explicit instantiation may name a private member, which
// is how this reads them without copying MLIR's declarations.
struct PassOptionsMember {
  using type = detail::PassOptions Pass::*;
  friend type passOptionsMember(PassOptionsMember);
};
template <typename Tag, typename Tag::type Member> struct ExposeMember {
  friend typename Tag::type passOptionsMember(Tag) { return Member; }
};
template struct ExposeMember<PassOptionsMember, &Pass::passOptions>;

/// The cl::SubCommand base of a PassOptions, reached from a derived class.
struct OptionsView : detail::PassOptions {
  static llvm::cl::SubCommand &subCommand(detail::PassOptions &options) {
    return options;
  }
};

decltype(llvm::cl::SubCommand::OptionsMap) &optionMap(Pass &pass) {
  return OptionsView::subCommand(pass.*passOptionsMember(PassOptionsMember()))
      .OptionsMap;
}

/// The values of an enum option of type T, if `option` is one.
template <typename T>
bool enumValues(llvm::cl::Option *option,
                llvm::SmallVectorImpl<llvm::StringRef> &values) {
  using Opt = llvm::cl::opt<T, false, detail::PassOptions::OptionParser<T>>;
  auto *typed = dynamic_cast<Opt *>(option);
  if (!typed)
    return false;
  auto &parser = typed->getParser();
  for (unsigned i = 0, e = parser.getNumOptions(); i != e; ++i)
    values.push_back(parser.getOption(i));
  return true;
}

/// The enum options the dsm passes declare (Passes.td).
bool anyEnumValues(llvm::cl::Option *option,
                   llvm::SmallVectorImpl<llvm::StringRef> &values) {
  return enumValues<dsm::ExecutionMode>(option, values) ||
         enumValues<dsm::ReportFormat>(option, values) ||
         enumValues<dsm::ParallelismChoice>(option, values) ||
         enumValues<dsm::core::SearchMode>(option, values) ||
         enumValues<dsm::core::Optimizer>(option, values) ||
         enumValues<dsm::core::PipelineSchedule>(option, values) ||
         enumValues<dsm::core::RecomputeChoice>(option, values) ||
         enumValues<dsm::core::ShardChoice>(option, values) ||
         enumValues<dsm::core::OffloadChoice>(option, values) ||
         enumValues<dsm::core::devices::ConventionsKind>(option, values);
}

/// Whether `option` is a pass option of type T.
template <typename T> bool isOption(llvm::cl::Option *option) {
  return dynamic_cast<
             llvm::cl::opt<T, false, detail::PassOptions::OptionParser<T>> *>(
             option) != nullptr;
}

/// What is wrong with `value` for a scalar option -- an integer, a number
/// or a flag -- ("" when it reads, or the option is of another type), in
/// words for people where llvm::cl's own message would name no option.
std::string scalarProblem(llvm::cl::Option *option, llvm::StringRef value) {
  if (isOption<int64_t>(option) || isOption<int32_t>(option)) {
    int64_t number;
    return value.getAsInteger(0, number) ? "is not an integer" : "";
  }
  if (isOption<uint64_t>(option) || isOption<unsigned>(option)) {
    uint64_t number;
    return value.getAsInteger(0, number) ? "is not a whole number (0 or more)"
                                         : "";
  }
  if (isOption<double>(option)) {
    double number;
    return value.getAsDouble(number) ? "is not a number" : "";
  }
  if (isOption<bool>(option))
    return value.empty() ||
                   llvm::is_contained({"true", "false", "1", "0", "True",
                                       "False", "TRUE", "FALSE"},
                                      value)
               ? ""
               : "is not true or false";
  return "";
}

/// Splits MLIR pass-option text into key/value pairs, as
/// PassOptions::parseFromString does: whitespace between entries, a value
/// in quotes or braces may hold whitespace.
llvm::SmallVector<std::pair<llvm::StringRef, llvm::StringRef>>
splitOptions(llvm::StringRef text) {
  llvm::SmallVector<std::pair<llvm::StringRef, llvm::StringRef>> entries;
  size_t i = 0, n = text.size();
  while (i < n) {
    while (i < n && llvm::isSpace(text[i]))
      ++i;
    if (i == n)
      break;
    size_t keyStart = i;
    while (i < n && text[i] != '=' && !llvm::isSpace(text[i]))
      ++i;
    llvm::StringRef key = text.slice(keyStart, i);
    llvm::StringRef value;
    if (i < n && text[i] == '=') {
      size_t valueStart = ++i;
      int depth = 0;
      char quote = 0;
      while (i < n) {
        char c = text[i];
        if (quote) {
          if (c == quote)
            quote = 0;
        } else if (c == '"' || c == '\'') {
          quote = c;
        } else if (c == '{') {
          ++depth;
        } else if (c == '}') {
          --depth;
        } else if (depth <= 0 && llvm::isSpace(c)) {
          break;
        }
        ++i;
      }
      value = text.slice(valueStart, i);
    }
    entries.push_back({key, value});
  }
  return entries;
}
} // namespace

llvm::SmallVector<llvm::StringRef> dsm::getPassOptionNames(Pass &pass) {
  llvm::SmallVector<llvm::StringRef> names;
  for (auto &entry : optionMap(pass))
    names.push_back(entry.first);
  llvm::sort(names);
  return names;
}

LogicalResult
dsm::checkPassOptions(Pass &pass, llvm::StringRef options,
                      llvm::function_ref<void(const llvm::Twine &)> emit) {
  auto &map = optionMap(pass);
  for (auto [key, value] : splitOptions(options)) {
    auto it = map.find(key);
    if (it == map.end()) {
      llvm::StringRef best;
      unsigned bestDistance = ~0u;
      for (llvm::StringRef name : getPassOptionNames(pass)) {
        unsigned distance = key.edit_distance(name, /*AllowReplacements=*/true,
                                              /*MaxEditDistance=*/3);
        if (distance < bestDistance) {
          best = name;
          bestDistance = distance;
        }
      }
      std::string message = ("unknown option '" + key + "'").str();
      if (!best.empty() && bestDistance <= std::max<size_t>(2, key.size() / 3))
        message += ("; did you mean '" + best + "'?").str();
      else
        message +=
            " (options: " + llvm::join(getPassOptionNames(pass), ", ") + ")";
      emit(message);
      return failure();
    }
    llvm::StringRef bare = value;
    if (bare.size() >= 2 && (bare.front() == '"' || bare.front() == '\'') &&
        bare.back() == bare.front())
      bare = bare.drop_front().drop_back();
    if (std::string why = scalarProblem(it->second, bare); !why.empty()) {
      emit(key + "=" + value + " " + why);
      return failure();
    }
    llvm::SmallVector<llvm::StringRef> values;
    if (!anyEnumValues(it->second, values))
      continue;
    if (llvm::is_contained(values, bare))
      continue;
    emit(key + "=" + value + " is not one of: " + llvm::join(values, ", "));
    return failure();
  }
  return success();
}

mlir::InFlightDiagnostic dsm::emitBudgetRanOut(mlir::Location loc,
                                               llvm::StringRef action,
                                               double budgetSeconds,
                                               llvm::StringRef search,
                                               llvm::StringRef progress) {
  return mlir::emitError(loc)
         << "cannot " << action << ": the time budget of "
         << formatQuantity(budgetSeconds) << " s ran out before " << search
         << " " << progress << "; give a larger time-budget=";
}

std::string dsm::formatQuantity(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  if (value == std::trunc(value) && std::fabs(value) < 1e15)
    return std::to_string(int64_t(value));
  for (int digits = 1;; ++digits) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (digits >= 17 || std::strtod(text, nullptr) == value)
      return text;
  }
}
static std::string formatQuantity(int64_t value) {
  return std::to_string(value);
}
using dsm::formatQuantity;

template <typename T>
static LogicalResult checkRange(Location loc, llvm::StringRef option, T value,
                                T lo, T hi, llvm::StringRef unit,
                                llvm::StringRef note) {
  if (lo <= value && value <= hi)
    return success();
  InFlightDiagnostic diag = emitError(loc)
                            << option << " must be in [" << formatQuantity(lo)
                            << ", " << formatQuantity(hi) << "]";
  if (!unit.empty())
    diag << " " << unit;
  if (!note.empty())
    diag << " (" << note << ")";
  return diag << ", got " << formatQuantity(value);
}

LogicalResult dsm::checkOptionRange(Location loc, llvm::StringRef option,
                                    int64_t value, int64_t lo, int64_t hi,
                                    llvm::StringRef unit,
                                    llvm::StringRef note) {
  return checkRange(loc, option, value, lo, hi, unit, note);
}

LogicalResult dsm::checkOptionRange(Location loc, llvm::StringRef option,
                                    double value, double lo, double hi,
                                    llvm::StringRef unit,
                                    llvm::StringRef note) {
  return checkRange(loc, option, value, lo, hi, unit, note);
}

//===- SpecReader.cpp - Typed, validated reads from a SpecNode ------------===//

#include "dsm/Core/System/SpecReader.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace dsm::core;

void SpecDiagnostics::report(const SpecLocation &loc, std::string message) {
  errors.emplace_back(loc, std::move(message));
}

void SpecDiagnostics::warn(const SpecLocation &loc, std::string message) {
  warnings.push_back({loc, std::move(message)});
}

llvm::Error SpecDiagnostics::takeErrors() {
  llvm::Error all = llvm::Error::success();
  for (auto &[loc, message] : errors)
    all = llvm::joinErrors(
        std::move(all), llvm::make_error<SpecError>(loc, std::move(message)));
  errors.clear();
  return all;
}

SpecMapReader::SpecMapReader(const SpecNode &node, std::string path,
                             SpecDiagnostics &diags)
    : node(node), path(std::move(path)), diags(diags), valid(node.isMapping()) {
  if (!valid)
    diags.report(node.getLocation(),
                 (this->path.empty() ? std::string("the document")
                                     : "field '" + this->path + "'") +
                     " must be a mapping of fields");
}

std::string SpecMapReader::fieldPath(llvm::StringRef key) const {
  return path.empty() ? key.str() : path + "." + key.str();
}

const SpecLocation &SpecMapReader::keyLocation(llvm::StringRef key) const {
  for (const SpecNode::Entry &entry : node.getEntries())
    if (entry.key == key)
      return entry.value.getLocation();
  return node.getLocation();
}

void SpecMapReader::error(llvm::StringRef key, const std::string &message) {
  diags.report(keyLocation(key), message);
}

const SpecNode *SpecMapReader::take(llvm::StringRef key, bool required) {
  if (!valid)
    return nullptr;
  read.insert(key);
  const SpecNode *value = node.lookup(key);
  if (!value && required)
    diags.report(node.getLocation(), "missing field '" + fieldPath(key) + "'");
  return value;
}

std::optional<SpecMapReader> SpecMapReader::map(llvm::StringRef key,
                                                bool required) {
  const SpecNode *value = take(key, required);
  if (!value)
    return std::nullopt;
  SpecMapReader reader(*value, fieldPath(key), diags);
  if (!reader.isValid())
    return std::nullopt;
  return reader;
}

const SpecNode *SpecMapReader::sequence(llvm::StringRef key, bool required) {
  const SpecNode *value = take(key, required);
  if (value && !value->isSequence()) {
    diags.report(value->getLocation(),
                 "field '" + fieldPath(key) + "' must be a list");
    return nullptr;
  }
  return value;
}

std::optional<int64_t>
SpecMapReader::integer(llvm::StringRef key, int64_t min,
                       std::optional<int64_t> defaultValue) {
  const SpecNode *value = take(key, !defaultValue.has_value());
  if (!value)
    return defaultValue;
  int64_t result = 0;
  if (!value->isScalar() ||
      value->getScalar().trim().getAsInteger(10, result)) {
    diags.report(value->getLocation(), "field '" + fieldPath(key) +
                                           "' must be an integer, got '" +
                                           value->getScalar().str() + "'");
    return std::nullopt;
  }
  if (result < min) {
    diags.report(value->getLocation(),
                 "field '" + fieldPath(key) + "' must be at least " +
                     std::to_string(min) + ", got " + std::to_string(result));
    return std::nullopt;
  }
  // Counts multiply (rows x columns, chips x cores): bounding each keeps every
  // product far inside 64 bits.
  if (result > kMaxSpecInteger) {
    diags.report(value->getLocation(), "field '" + fieldPath(key) +
                                           "' must be at most " +
                                           std::to_string(kMaxSpecInteger) +
                                           ", got " + std::to_string(result));
    return std::nullopt;
  }
  return result;
}

std::optional<double>
SpecMapReader::quantity(llvm::StringRef key, QuantityKind kind, Bound bound,
                        std::optional<double> defaultValue) {
  const SpecNode *value = take(key, !defaultValue.has_value());
  if (!value)
    return defaultValue;
  std::string field = "field '" + fieldPath(key) + "'";
  if (!value->isScalar()) {
    diags.report(value->getLocation(),
                 field + " must be " + describeQuantityKind(kind).str());
    return std::nullopt;
  }
  std::string parseError;
  bool bare = false;
  std::optional<double> result =
      parseQuantity(value->getScalar(), kind, parseError, &bare);
  if (!result) {
    diags.report(value->getLocation(), field + ": " + parseError);
    return std::nullopt;
  }
  result = checkQuantity(*value, key, *result, kind, bound,
                         "'" + value->getScalar().str() + "'");
  if (result && bare && *result != 0 && !baseUnit(kind).empty() &&
      value->getLocation().line != 0)
    diags.warn(value->getLocation(),
               field + " has no unit: read as " +
                   value->getScalar().trim().str() + " " +
                   baseUnit(kind).str() + " (write the unit, as in " +
                   describeQuantityKind(kind).str() + ")");
  return result;
}

std::optional<double>
SpecMapReader::scaledNumber(llvm::StringRef key, QuantityKind kind,
                            double unitScale, llvm::StringRef unitName,
                            Bound bound, std::optional<double> defaultValue) {
  const SpecNode *value = take(key, !defaultValue.has_value());
  if (!value)
    return defaultValue ? std::optional<double>(*defaultValue * unitScale)
                        : std::nullopt;
  std::string field = "field '" + fieldPath(key) + "'";
  std::string parseError;
  std::optional<double> number =
      value->isScalar()
          ? parseQuantity(value->getScalar(), QuantityKind::Count, parseError)
          : std::nullopt;
  if (!number) {
    diags.report(value->getLocation(),
                 field + " must be a number (in " + unitName.str() + ")");
    return std::nullopt;
  }
  // Checked after scaling: 1e15 GB is within 1e21 as a number, not as bytes.
  return checkQuantity(*value, key, *number * unitScale, kind, bound,
                       "'" + value->getScalar().str() + "' " + unitName.str());
}

std::optional<double>
SpecMapReader::checkQuantity(const SpecNode &value, llvm::StringRef key,
                             double result, QuantityKind kind, Bound bound,
                             const std::string &written) {
  std::string field = "field '" + fieldPath(key) + "'";
  // 1e300 TB/s parses to infinity: no later arithmetic would survive it.
  if (!std::isfinite(result) || std::fabs(result) > kMaxSpecQuantity) {
    diags.report(value.getLocation(),
                 field + " is out of range, got " + written);
    return std::nullopt;
  }
  const char *violation = nullptr;
  switch (bound) {
  case Bound::Any:
    break;
  case Bound::NonNegative:
    if (result < 0)
      violation = "must not be negative";
    break;
  case Bound::Positive:
    if (result <= 0)
      violation = "must be positive";
    break;
  case Bound::Fraction:
    if (!(result > 0 && result <= 1))
      violation = "must be a fraction in (0, 1]";
    break;
  }
  if (violation) {
    diags.report(value.getLocation(),
                 field + " " + violation + ", got " + written);
    return std::nullopt;
  }
  // A 5e-324 Hz chip maps as infinite seconds; a unit left out reads a
  // gigahertz as hertz.
  double least = minPlausibleQuantity(kind);
  if (result != 0 && std::fabs(result) < least) {
    diags.report(value.getLocation(), field + " is implausibly small, got " +
                                          written +
                                          ": the least plausible value is " +
                                          formatQuantity(least, kind));
    return std::nullopt;
  }
  return result;
}

std::optional<std::string>
SpecMapReader::string(llvm::StringRef key,
                      std::optional<std::string> defaultValue) {
  const SpecNode *value = take(key, !defaultValue.has_value());
  if (!value)
    return defaultValue;
  // An unquoted number (JSON's -4, YAML's 12) where a string is meant is a
  // mistake, not a name.
  double number = 0;
  bool isNumber = value->isScalar() && !value->isQuoted() &&
                  !value->getScalar().trim().getAsDouble(number);
  if (!value->isScalar() || isNumber) {
    diags.report(value->getLocation(),
                 "field '" + fieldPath(key) + "' must be a string" +
                     (isNumber
                          ? ", got the number " + value->getScalar().str() +
                                " (quote it to use it as a name)"
                          : std::string()));
    return std::nullopt;
  }
  return value->getScalar().str();
}

std::optional<size_t> SpecMapReader::choiceIndex(
    llvm::StringRef key, llvm::ArrayRef<llvm::StringRef> names, bool optional) {
  const SpecNode *value = take(key, !optional);
  if (!value)
    return optional ? std::nullopt : std::optional<size_t>(names.size());
  if (value->isScalar())
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == value->getScalar())
        return i;
  diags.report(value->getLocation(),
               "field '" + fieldPath(key) + "' has unknown value '" +
                   value->getScalar().str() +
                   "'; expected one of: " + llvm::join(names, ", "));
  return names.size();
}

void SpecMapReader::finish() {
  if (!valid)
    return;
  for (const SpecNode::Entry &entry : node.getEntries()) {
    if (read.contains(entry.key))
      continue;
    std::string message = "unknown field '" + fieldPath(entry.key) + "'";
    // Suggest the closest known field: a typo is the usual cause.
    llvm::StringRef best;
    unsigned bestDistance = 3;
    for (const auto &known : read) {
      unsigned distance =
          llvm::StringRef(entry.key).edit_distance(known.getKey());
      if (distance < bestDistance && !node.lookup(known.getKey())) {
        bestDistance = distance;
        best = known.getKey();
      }
    }
    if (!best.empty())
      message += "; did you mean '" + best.str() + "'?";
    diags.report(entry.keyLocation, message);
  }
}

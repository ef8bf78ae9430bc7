//===- StrategyFile.cpp - A spatial mapping's strategy as a file ----------===//
//
// Reading and writing strategy files (StrategyFile.h): a YAML mapping of the
// spatial mapping's option names to the values the options read.
//
//===----------------------------------------------------------------------===//

#include "dsm/Passes/StrategyFile.h"

#include "dsm/Core/Support/BoundedFile.h"
#include "dsm/Passes/OptionCheck.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

using namespace mlir;
using namespace dsm;

llvm::ArrayRef<llvm::StringRef> dsm::getStrategyOptionNames() {
  // The order a strategy file is written in: the pipeline, the degrees,
  // the savers, the search.
  static const llvm::StringRef names[] = {"stages",
                                          "microbatches",
                                          "microbatch-size",
                                          "schedule",
                                          "stage-layers",
                                          "tensor",
                                          "data",
                                          "parallelism",
                                          "recompute",
                                          "sequence-parallel",
                                          "shard",
                                          "zero",
                                          "offload",
                                          "search",
                                          "optimizations"};
  return names;
}

llvm::StringMap<std::string> dsm::printedOptionsOf(Pass &pass) {
  // "name{a=1 b={x,y} c=z}": the options at brace depth 1, split at spaces.
  std::string text;
  llvm::raw_string_ostream os(text);
  pass.printAsTextualPipeline(os);
  llvm::StringRef body = llvm::StringRef(text).split('{').second;
  body.consume_back("}");
  llvm::StringMap<std::string> options;
  auto add = [&](llvm::StringRef printed) {
    auto [name, value] = printed.split('=');
    if (value.starts_with("{") && value.ends_with("}"))
      value = value.drop_front().drop_back();
    if (!name.empty())
      options[name] = value.str();
  };
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '{')
      ++depth;
    else if (body[i] == '}')
      --depth;
    else if (body[i] == ' ' && depth == 0) {
      add(body.slice(start, i));
      start = i + 1;
    }
  }
  add(body.drop_front(start));
  return options;
}

/// Whether a strategy's `name` and `value` are worth writing down: not a
/// degree of 0 (any), not the microbatch size (the microbatches carry it)
/// or the ZeRO stage (shard= does), not an empty list (the default).
static bool isRecorded(llvm::StringRef name, llvm::StringRef value) {
  if ((name == "tensor" || name == "data") && value == "0")
    return false;
  return name != "microbatch-size" && name != "zero" && !value.empty();
}

DictionaryAttr dsm::recordStrategy(MLIRContext *context, Pass &selectMapping,
                                   const PlannedPipeline &pipeline) {
  llvm::StringMap<std::string> values = printedOptionsOf(selectMapping);
  // The sharding by its ZeRO stage as shard= names it.
  static const char *const byZeroStage[] = {"none", "optimizer", "state",
                                            "weights"};
  auto zero = values.find("zero");
  if (zero != values.end() && zero->second.size() == 1 &&
      zero->second[0] >= '0' && zero->second[0] <= '3' &&
      byZeroStage[zero->second[0] - '0'])
    values["shard"] = byZeroStage[zero->second[0] - '0'];
  // The pipeline as planned, searched or given.
  values["stages"] = std::to_string(pipeline.stages);
  values.erase("microbatches");
  values.erase("schedule");
  values.erase("stage-layers");
  if (pipeline.microbatches > 0) {
    values["microbatches"] = std::to_string(pipeline.microbatches);
    values["schedule"] = pipeline.schedule;
    values["stage-layers"] =
        llvm::join(llvm::map_range(pipeline.stageLayers,
                                   [](int64_t n) { return std::to_string(n); }),
                   ",");
  }
  Builder builder(context);
  SmallVector<NamedAttribute> entries;
  for (llvm::StringRef name : getStrategyOptionNames()) {
    auto it = values.find(name);
    if (it != values.end() && isRecorded(name, it->second))
      entries.push_back(
          builder.getNamedAttr(name, builder.getStringAttr(it->second)));
  }
  return builder.getDictionaryAttr(entries);
}

void dsm::writeStrategyFile(DictionaryAttr strategy, llvm::StringRef about,
                            llvm::raw_ostream &os) {
  os << "# The strategy of " << about << ".\n"
     << "# Give it back with --dsm-map-system=\"... strategy=<this file>\" "
        "(docs/user-guide.md).\n";
  for (llvm::StringRef name : getStrategyOptionNames()) {
    auto attr = strategy.getAs<StringAttr>(name);
    if (!attr)
      continue;
    llvm::StringRef value = attr.getValue();
    os << name << ": ";
    // A list as a YAML sequence.
    if (name == "stage-layers" || name == "optimizations") {
      llvm::SmallVector<llvm::StringRef> items;
      value.split(items, ',');
      os << "[" << llvm::join(items, ", ") << "]\n";
    } else {
      os << value << "\n";
    }
  }
}

std::string dsm::strategyOptionText(llvm::ArrayRef<StrategyEntry> entries) {
  std::string text;
  for (const StrategyEntry &entry : entries) {
    if (!text.empty())
      text += ' ';
    text += entry.name + "=" + entry.value;
  }
  return text;
}

namespace {
/// Reads one strategy file's YAML, each problem an error at its line and
/// column.
class StrategyReader {
public:
  StrategyReader(llvm::StringRef path, MLIRContext *context)
      : path(path), context(context) {}

  FailureOr<SmallVector<StrategyEntry>>
  read(std::unique_ptr<llvm::MemoryBuffer> buffer, Pass &selectMapping);

private:
  Location locOf(llvm::SMLoc loc) {
    // A node the YAML parser gave up on may point nowhere in the file.
    if (!loc.isValid() || !sourceMgr.FindBufferContainingLoc(loc))
      return FileLineColLoc::get(context, path, 0, 0);
    auto [line, column] = sourceMgr.getLineAndColumn(loc);
    return FileLineColLoc::get(context, path, line, column);
  }
  LogicalResult fail(llvm::yaml::Node *node, const llvm::Twine &message) {
    emitError(locOf(node->getSourceRange().Start)) << message;
    return failure();
  }
  /// A scalar's text, or a list of scalars' comma-separated.
  FailureOr<std::string> valueOf(llvm::yaml::Node *node);

  std::string path;
  MLIRContext *context;
  llvm::SourceMgr sourceMgr;
};
} // namespace

FailureOr<std::string> StrategyReader::valueOf(llvm::yaml::Node *node) {
  llvm::SmallString<32> storage;
  if (auto *scalar = dyn_cast<llvm::yaml::ScalarNode>(node))
    return scalar->getValue(storage).str();
  auto *sequence = dyn_cast<llvm::yaml::SequenceNode>(node);
  if (!sequence) {
    (void)fail(node, "a strategy's value is a scalar or a list of scalars");
    return failure();
  }
  std::string joined;
  for (llvm::yaml::Node &item : *sequence) {
    auto *scalar = dyn_cast<llvm::yaml::ScalarNode>(&item);
    if (!scalar) {
      (void)fail(&item, "a list in a strategy holds scalars");
      return failure();
    }
    if (!joined.empty())
      joined += ',';
    joined += scalar->getValue(storage).str();
  }
  return joined;
}

/// The list option's items (stage-layers: integers), checked here: its
/// parser (llvm::cl's) says what is wrong on stderr, not to a handler. The
/// scalars' values are checkPassOptions's.
static LogicalResult checkValueType(llvm::StringRef name, llvm::StringRef value,
                                    Location loc) {
  if (name == "stage-layers") {
    llvm::SmallVector<llvm::StringRef> items;
    value.split(items, ',');
    for (llvm::StringRef item : items) {
      int64_t parsed;
      if (item.trim().getAsInteger(10, parsed))
        return emitError(loc)
               << name << ": '" << item.trim() << "' is not an integer";
    }
  }
  return success();
}

FailureOr<SmallVector<StrategyEntry>>
StrategyReader::read(std::unique_ptr<llvm::MemoryBuffer> buffer,
                     Pass &selectMapping) {
  // The YAML parser's own errors (a bad indentation, an unclosed bracket)
  // at their line and column.
  bool syntaxError = false;
  sourceMgr.setDiagHandler(
      [](const llvm::SMDiagnostic &diag, void *reader) {
        auto *self = static_cast<StrategyReader *>(reader);
        emitError(FileLineColLoc::get(self->context, self->path,
                                      diag.getLineNo(), diag.getColumnNo() + 1))
            << diag.getMessage();
      },
      this);
  const unsigned id = sourceMgr.AddNewSourceBuffer(std::move(buffer), {});
  llvm::yaml::Stream stream(sourceMgr.getMemoryBuffer(id)->getMemBufferRef(),
                            sourceMgr);
  SmallVector<StrategyEntry> entries;
  llvm::yaml::document_iterator document = stream.begin();
  if (document == stream.end() || !document->getRoot())
    return entries;
  llvm::yaml::Node *root = document->getRoot();
  if (isa<llvm::yaml::NullNode>(root))
    return entries;
  auto *mapping = dyn_cast<llvm::yaml::MappingNode>(root);
  if (!mapping) {
    if (!stream.failed())
      (void)fail(root, "a strategy file is a mapping of option names to "
                       "values (stages: 8, ...)");
    return failure();
  }
  const llvm::ArrayRef<llvm::StringRef> known = getStrategyOptionNames();
  llvm::StringSet<> seen;
  for (llvm::yaml::KeyValueNode &pair : *mapping) {
    auto *key = dyn_cast_or_null<llvm::yaml::ScalarNode>(pair.getKey());
    if (!key) {
      syntaxError = true;
      break;
    }
    llvm::SmallString<32> storage;
    const std::string name = key->getValue(storage).str();
    if (!llvm::is_contained(known, name)) {
      (void)fail(key, "'" + name +
                          "' is not an option of a strategy (options: " +
                          llvm::join(known, ", ") + ")");
      return failure();
    }
    if (!seen.insert(name).second) {
      (void)fail(key, "'" + name + "' is given twice");
      return failure();
    }
    if (!pair.getValue()) {
      syntaxError = true;
      break;
    }
    FailureOr<std::string> value = valueOf(pair.getValue());
    if (failed(value))
      return failure();
    // The parser said what is wrong with the file (at its line); what it
    // built after that is not the file's.
    if (stream.failed())
      return failure();
    Location loc = locOf(pair.getValue()->getSourceRange().Start);
    // The option's own parser's verdict, said as --dsm-map-system says it.
    std::string problem;
    if (failed(checkPassOptions(
            selectMapping, name + "=" + *value,
            [&](const llvm::Twine &message) { problem = message.str(); }))) {
      emitError(loc) << problem;
      return failure();
    }
    if (failed(checkValueType(name, *value, loc)))
      return failure();
    if (failed(selectMapping.initializeOptions(
            name + "=" + *value, [&](const llvm::Twine &message) {
              return emitError(loc) << name << ": " << message;
            })))
      return failure();
    entries.push_back({name, *value, loc});
  }
  if (syntaxError || stream.failed()) {
    if (!stream.failed())
      emitError(FileLineColLoc::get(context, path, 1, 1))
          << "a strategy file is a mapping of option names to values";
    return failure();
  }
  return entries;
}

FailureOr<SmallVector<StrategyEntry>>
dsm::readStrategyFile(llvm::StringRef path, Location loc, Pass &selectMapping) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      core::readBoundedFile(path);
  if (!buffer) {
    emitError(loc) << "cannot read the strategy file '" << path
                   << "': " << llvm::toString(buffer.takeError());
    return failure();
  }
  return StrategyReader(path, loc.getContext())
      .read(std::move(*buffer), selectMapping);
}

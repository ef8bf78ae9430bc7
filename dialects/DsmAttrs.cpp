//===- DsmAttrs.cpp - dsm enums and attributes ----------------------------===//

#include "dsm/Dialect/DsmAttrs.h"
#include "dsm/Dialect/DsmDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace dsm;

#include "dsm/Dialect/DsmEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dsm/Dialect/DsmAttrs.cpp.inc"

void DsmDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dsm/Dialect/DsmAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// SplitAttr
//===----------------------------------------------------------------------===//

LogicalResult SplitAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                int64_t in, int64_t out, int64_t ij,
                                int64_t kij, int64_t mb) {
  for (auto [name, factor] : {std::pair<const char *, int64_t>{"in", in},
                              {"out", out},
                              {"ij", ij},
                              {"kij", kij},
                              {"mb", mb}})
    if (factor < 1)
      return emitError() << "split factor '" << name
                         << "' must be at least 1, got " << factor;
  return success();
}

int64_t SplitAttr::getProduct() const {
  return getIn() * getOut() * getIj() * getKij() * getMb();
}

int64_t SplitAttr::getFactor(unsigned dim) const {
  switch (dim) {
  case 0:
    return getIn();
  case 1:
    return getOut();
  case 2:
    return getIj();
  case 3:
    return getKij();
  default:
    return getMb();
  }
}

SplitAttr dsm::getSplitAttr(MLIRContext *context, const core::DimSizes &split) {
  return SplitAttr::get(context, split[0], split[1], split[2], split[3],
                        split[4]);
}

core::DimSizes dsm::getDimSizes(SplitAttr split) {
  return {split.getIn(), split.getOut(), split.getIj(), split.getKij(),
          split.getMb()};
}

//===----------------------------------------------------------------------===//
// DeviceAttr
//===----------------------------------------------------------------------===//

LogicalResult DeviceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t id) {
  if (id < 0)
    return emitError() << "device id must not be negative, got " << id;
  return success();
}

//===----------------------------------------------------------------------===//
// SystemAttr
//===----------------------------------------------------------------------===//

/// Numbers are stored as integers when they are whole and fit, else as f64, so
/// the printed IR reads naturally (chips = 64, bandwidth = 1.2e11).
static Attribute scalarToAttr(MLIRContext *context, StringRef text) {
  Builder builder(context);
  int64_t integer;
  if (!text.getAsInteger(10, integer))
    return builder.getI64IntegerAttr(integer);
  double real;
  if (!text.getAsDouble(real, /*AllowInexact=*/true)) {
    if (real == double(int64_t(real)) && std::abs(real) < 9.0e15)
      return builder.getI64IntegerAttr(int64_t(real));
    return builder.getF64FloatAttr(real);
  }
  return builder.getStringAttr(text);
}

DictionaryAttr dsm::specToDictionary(MLIRContext *context,
                                     const core::SpecNode &node) {
  SmallVector<NamedAttribute> entries;
  auto convert = [&](const core::SpecNode &value, auto &&self) -> Attribute {
    switch (value.getKind()) {
    case core::SpecNode::Kind::Scalar:
      return scalarToAttr(context, value.getScalar());
    case core::SpecNode::Kind::Mapping:
      return specToDictionary(context, value);
    case core::SpecNode::Kind::Sequence: {
      SmallVector<Attribute> items;
      for (const core::SpecNode &item : value.getItems())
        items.push_back(self(item, self));
      return ArrayAttr::get(context, items);
    }
    }
    return Attribute();
  };
  for (const core::SpecNode::Entry &entry : node.getEntries())
    entries.emplace_back(StringAttr::get(context, entry.key),
                         convert(entry.value, convert));
  // Keep the file's field order: DictionaryAttr would sort, which is fine for
  // lookup, and the reader does not depend on order.
  return DictionaryAttr::get(context, entries);
}

static core::SpecNode attrToSpec(Attribute attr) {
  if (auto dict = dyn_cast<DictionaryAttr>(attr))
    return dictionaryToSpec(dict);
  if (auto array = dyn_cast<ArrayAttr>(attr)) {
    core::SpecNode node = core::SpecNode::sequence();
    for (Attribute item : array)
      node.append(attrToSpec(item));
    return node;
  }
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return core::SpecNode::scalar(std::to_string(integer.getInt()));
  if (auto real = dyn_cast<FloatAttr>(attr)) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::format("%.17g", real.getValueAsDouble());
    return core::SpecNode::scalar(text);
  }
  if (auto string = dyn_cast<StringAttr>(attr))
    return core::SpecNode::scalar(string.str());
  // Anything else is not part of the schema; the reader will say where.
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "<" << attr << ">";
  return core::SpecNode::scalar(text);
}

core::SpecNode dsm::dictionaryToSpec(DictionaryAttr dictionary) {
  core::SpecNode node = core::SpecNode::mapping();
  for (NamedAttribute entry : dictionary)
    node.add(entry.getName().str(), attrToSpec(entry.getValue()));
  return node;
}

/// The spec of a system attribute as the tree the reader validates; the name
/// parameter is the tree's `name`.
static core::SpecNode systemTree(StringRef name, DictionaryAttr spec) {
  core::SpecNode tree = core::SpecNode::mapping();
  tree.add("name", core::SpecNode::scalar(name.str()));
  core::SpecNode rest = dictionaryToSpec(spec);
  for (const core::SpecNode::Entry &entry : rest.getEntries())
    tree.add(entry.key, entry.value);
  return tree;
}

LogicalResult SystemAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef name, DictionaryAttr spec) {
  if (spec.contains("name"))
    return emitError() << "#dsm.system spec must not repeat the name";
  llvm::Expected<core::SystemDescription> system =
      core::readSystemDescription(systemTree(name, spec));
  if (system)
    return success();
  InFlightDiagnostic diag = emitError();
  diag << "invalid #dsm.system '" << name << "':";
  llvm::handleAllErrors(system.takeError(), [&](const core::SpecError &error) {
    diag << " " << error.getMessage() << ";";
  });
  return diag;
}

SystemAttr SystemAttr::get(MLIRContext *context,
                           const core::SystemDescription &system) {
  core::SpecNode tree = core::writeSystemDescription(system);
  core::SpecNode spec = core::SpecNode::mapping();
  for (const core::SpecNode::Entry &entry : tree.getEntries())
    if (entry.key != "name")
      spec.add(entry.key, entry.value);
  return SystemAttr::get(context, system.name,
                         specToDictionary(context, spec));
}

core::SystemDescription SystemAttr::getDescription() const {
  llvm::Expected<core::SystemDescription> system =
      core::readSystemDescription(systemTree(getName(), getSpec()));
  // The verifier accepted this attribute, so reading it again cannot fail.
  if (!system) {
    llvm::consumeError(system.takeError());
    return core::SystemDescription();
  }
  return std::move(*system);
}

FailureOr<core::SystemDescription> dsm::getModuleSystem(ModuleOp module) {
  auto attr = module->getAttrOfType<SystemAttr>(SystemAttr::kModuleAttrName);
  if (!attr)
    return emitError(module.getLoc())
           << "no target system on the module: attach one with "
              "--dsm-attach-system=\"system=<preset|file>\"";
  return attr.getDescription();
}

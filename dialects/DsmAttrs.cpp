//===- DsmAttrs.cpp - dsm enums and attributes ----------------------------===//

#include "dsm/Dialect/DsmAttrs.h"
#include "dsm/Dialect/DsmDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

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
      // A quoted scalar is a string even when it reads as a number.
      return value.isQuoted() ? StringAttr::get(context, value.getScalar())
                              : scalarToAttr(context, value.getScalar());
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
    return core::SpecNode::scalar(string.str(), {}, /*quoted=*/true);
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
  tree.add("name", core::SpecNode::scalar(name.str(), {}, /*quoted=*/true));
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
  return SystemAttr::get(context, system.name, specToDictionary(context, spec));
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

FailureOr<core::MultiChipSystem>
dsm::getModuleMultiChipSystem(ModuleOp module, StringRef purpose) {
  FailureOr<core::SystemDescription> system = getModuleSystem(module);
  if (failed(system))
    return failure();
  if (const auto *multiChip = system->getIf<core::MultiChipSystem>())
    return *multiChip;
  return emitError(module.getLoc())
         << purpose << " needs a multi-chip system; '" << system->name
         << "' is a " << core::stringifySystemKind(system->getKind());
}

bool dsm::isTransferDictionary(Attribute attr) {
  auto dictionary = dyn_cast<DictionaryAttr>(attr);
  return dictionary && llvm::all_of(dictionary, [](NamedAttribute entry) {
           return isa<TransferAttr>(entry.getValue());
         });
}

bool dsm::isAlternativesDictionary(Attribute attr) {
  auto dictionary = dyn_cast<DictionaryAttr>(attr);
  return dictionary && llvm::all_of(dictionary, [](NamedAttribute entry) {
           auto cycles = dyn_cast<IntegerAttr>(entry.getValue());
           return cycles && cycles.getType().isSignlessInteger(64) &&
                  symbolizeParallelism(entry.getName().getValue());
         });
}

//===----------------------------------------------------------------------===//
// Enum conversions
//===----------------------------------------------------------------------===//

core::Parallelism dsm::toCore(Parallelism p) {
  return core::Parallelism(static_cast<int>(p));
}
Parallelism dsm::fromCore(core::Parallelism p) {
  return Parallelism(static_cast<uint32_t>(p));
}
core::TrainingPass dsm::toCore(TrainingPass pass) {
  return core::TrainingPass(static_cast<int>(pass));
}
TrainingPass dsm::fromCore(core::TrainingPass pass) {
  return TrainingPass(static_cast<uint32_t>(pass));
}
core::Dim dsm::toCore(Dim dim) { return core::Dim(static_cast<int>(dim)); }
Dim dsm::fromCore(core::Dim dim) { return Dim(static_cast<uint32_t>(dim)); }

// The dialect's enums mirror the core's value for value.
static_assert(int(Parallelism::ModelXDataY) ==
              int(core::Parallelism::ModelXDataY));
static_assert(int(TrainingPass::UPD) == int(core::TrainingPass::UPD));
static_assert(int(Dim::MB) == int(core::Dim::MB));

//===----------------------------------------------------------------------===//
// WorkloadAttr
//===----------------------------------------------------------------------===//

LogicalResult WorkloadAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, StringRef kind, int64_t in,
    int64_t out, int64_t ij, int64_t kij, int64_t mb, int64_t ijIn,
    int64_t ijOut, int64_t groups, int64_t timesteps, int64_t directions,
    int64_t auxOps, int64_t auxInputs, int64_t params, StringRef reduces,
    int64_t savedInputs, int64_t savedKernels, int64_t savedOutputs,
    int64_t savedMasks, int64_t savedAttention, int64_t savedAttentionMasks,
    int64_t auxReads, int64_t auxWrites, int64_t auxDropout,
    int64_t auxMaskBytes) {
  if (!core::symbolizeOpKind(kind))
    return emitError() << "unknown workload kind '" << kind << "'";
  for (auto [name, value] : {std::pair<const char *, int64_t>{"in", in},
                             {"out", out},
                             {"ij", ij},
                             {"kij", kij},
                             {"mb", mb},
                             {"groups", groups},
                             {"timesteps", timesteps},
                             {"directions", directions}})
    if (value < 1)
      return emitError() << "workload '" << name << "' must be at least 1, got "
                         << value;
  if (directions > 2)
    return emitError() << "workload 'directions' must be 1 or 2, got "
                       << directions;
  if (in % groups != 0 || out % groups != 0)
    return emitError() << "workload groups (" << groups
                       << ") must divide 'in' and 'out'";
  // A fused pooling stores fewer pixels than it computes; a transposed
  // convolution scatters each of its ij pixels to at most kij.
  if ((ijOut + kij - 1) / kij > ij)
    return emitError() << "workload 'ij_out' (" << ijOut
                       << ") must not exceed 'ij' x 'kij' (" << ij << " x "
                       << kij << ")";
  for (auto [name, value] : {std::pair<const char *, int64_t>{"ij_in", ijIn},
                             {"ij_out", ijOut},
                             {"aux_ops", auxOps},
                             {"aux_inputs", auxInputs},
                             {"params", params},
                             {"saved_inputs", savedInputs},
                             {"saved_kernels", savedKernels},
                             {"saved_outputs", savedOutputs},
                             {"saved_masks", savedMasks},
                             {"saved_attention", savedAttention},
                             {"saved_attention_masks", savedAttentionMasks},
                             {"aux_reads", auxReads},
                             {"aux_writes", auxWrites},
                             {"aux_dropout", auxDropout},
                             {"aux_mask_bytes", auxMaskBytes}})
    if (value < 0)
      return emitError() << "workload '" << name
                         << "' must not be negative, got " << value;
  if (reduces != "" && reduces != "batch_norm" && reduces != "softmax" &&
      reduces != "batch_norm+softmax")
    return emitError() << "workload 'reduces' must be \"\", \"batch_norm\", "
                          "\"softmax\" or \"batch_norm+softmax\", got \""
                       << reduces << "\"";
  return success();
}

WorkloadAttr WorkloadAttr::get(MLIRContext *context,
                               const core::LayerShape &s) {
  using core::Dim;
  bool conv = s.kind == core::OpKind::Convolution;
  int64_t in = s.get(Dim::In) * (conv ? s.groups : 1);
  double outputs =
      double(s.get(Dim::Out)) * double(s.get(Dim::IJ)) * double(s.get(Dim::MB));
  int64_t ijIn =
      s.inputPixelRatio == 1.0
          ? 0
          : int64_t(std::llround(s.inputPixelRatio * double(s.get(Dim::IJ))));
  int64_t ijOut =
      s.outputPixelRatio == 1.0
          ? 0
          : int64_t(std::llround(s.outputPixelRatio * double(s.get(Dim::IJ))));
  std::string reduces;
  if (s.reducesStatistics)
    reduces = "batch_norm";
  if (s.reducesFeatures)
    reduces += reduces.empty() ? "softmax" : "+softmax";
  return WorkloadAttr::get(
      context, core::stringifyOpKind(s.kind), in, s.get(Dim::Out),
      s.get(Dim::IJ), s.get(Dim::KIJ), s.get(Dim::MB), ijIn, ijOut, s.groups,
      s.timesteps, s.directions, int64_t(std::llround(s.auxOps)),
      int64_t(std::llround(s.auxInputsPerOutput * outputs)),
      int64_t(std::llround(s.params)), reduces,
      int64_t(std::llround(s.saved.inputs)),
      int64_t(std::llround(s.saved.kernels)),
      int64_t(std::llround(s.saved.outputs)),
      int64_t(std::llround(s.saved.masks)),
      int64_t(std::llround(s.saved.attention)),
      int64_t(std::llround(s.saved.attentionMasks)),
      int64_t(std::llround(s.auxKernels.readElements)),
      int64_t(std::llround(s.auxKernels.writtenElements)),
      int64_t(std::llround(s.auxKernels.dropoutElements)),
      int64_t(std::llround(s.auxKernels.maskBytes)));
}

core::LayerShape WorkloadAttr::getShape(StringRef name) const {
  using core::Dim;
  core::LayerShape s;
  s.name = name.str();
  s.kind = core::symbolizeOpKind(getKind()).value_or(core::OpKind::Opaque);
  bool conv = s.kind == core::OpKind::Convolution;
  s.groups = getGroups();
  s.dims = {conv ? getIn() / getGroups() : getIn(), getOut(), getIj(), getKij(),
            getMb()};
  s.inputPixelRatio = getIjIn() > 0 ? double(getIjIn()) / double(getIj()) : 1.0;
  s.outputPixelRatio =
      getIjOut() > 0 ? double(getIjOut()) / double(getIj()) : 1.0;
  s.timesteps = getTimesteps();
  s.directions = getDirections();
  s.hasPrimary = core::getComputeClass(s.kind) == core::ComputeClass::Primary;
  s.params = double(getParams());
  s.hasWeights =
      s.hasPrimary && s.kind != core::OpKind::MatMul && getParams() > 0;
  s.auxOps = double(getAuxOps());
  double outputs = double(getOut()) * double(getIj()) * double(getMb());
  s.auxInputsPerOutput = double(getAuxInputs()) / outputs;
  s.writtenOutputFraction = s.kind == core::OpKind::Lstm ? 0.25 : 1.0;
  s.reducesStatistics = getReduces().contains("batch_norm");
  s.reducesFeatures = getReduces().contains("softmax");
  s.saved = {double(getSavedInputs()),    double(getSavedKernels()),
             double(getSavedOutputs()),   double(getSavedMasks()),
             double(getSavedAttention()), double(getSavedAttentionMasks())};
  s.auxKernels = {double(getAuxReads()), double(getAuxWrites()),
                  double(getAuxDropout()), double(getAuxMaskBytes())};
  return s;
}

//===----------------------------------------------------------------------===//
// MemoryDecisionAttr
//===----------------------------------------------------------------------===//

LogicalResult
MemoryDecisionAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           core::MemoryDecision decision) {
  if (std::string why = core::checkDecision(decision); !why.empty())
    return emitError() << why;
  return success();
}

MemoryDecisionAttr
MemoryDecisionAttr::getIfAny(MLIRContext *context,
                             const core::MemoryDecision &decision) {
  if (decision == core::MemoryDecision())
    return {};
  return get(context, decision);
}

/// `<key = value, ...>`: the fields that differ from their default, in the
/// records' order.
void MemoryDecisionAttr::print(AsmPrinter &printer) const {
  const core::MemoryDecision &decision = getDecision();
  printer << '<';
  bool first = true;
  core::forEachDecisionField([&](const core::DecisionField &f) {
    if (!f.isSet(decision))
      return;
    printer << (first ? "" : ", ") << f.key << " = ";
    if (f.flag)
      printer << (f.get(decision) ? "true" : "false");
    else
      printer << f.get(decision);
    first = false;
  });
  printer << '>';
}

/// `<key = value, ...>` in any order, each key once.
Attribute MemoryDecisionAttr::parse(AsmParser &parser, Type) {
  const llvm::SMLoc start = parser.getCurrentLocation();
  core::MemoryDecision decision;
  llvm::SmallDenseSet<const core::DecisionField *> seen;
  auto parseField = [&]() -> ParseResult {
    llvm::SMLoc loc = parser.getCurrentLocation();
    std::string key;
    if (parser.parseKeywordOrString(&key) || parser.parseEqual())
      return failure();
    const core::DecisionField *f = core::findDecisionField(key);
    if (!f) {
      std::vector<std::string> keys;
      core::forEachDecisionField(
          [&](const core::DecisionField &g) { keys.push_back(g.key.str()); });
      return parser.emitError(loc)
             << "unknown memory decision '" << key
             << "'; expected one of: " << llvm::join(keys, ", ");
    }
    if (!seen.insert(f).second)
      return parser.emitError(loc)
             << "memory decision '" << key << "' given twice";
    int64_t value = 0;
    if (f->flag) {
      bool flag = false;
      llvm::SMLoc valueLoc = parser.getCurrentLocation();
      if (succeeded(parser.parseOptionalKeyword("true")))
        flag = true;
      else if (failed(parser.parseOptionalKeyword("false")))
        return parser.emitError(valueLoc)
               << "expected true or false for '" << key << "'";
      value = flag;
    } else if (parser.parseInteger(value)) {
      return failure();
    }
    f->set(decision, value);
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::LessGreater,
                                     parseField))
    return {};
  return parser.getChecked<MemoryDecisionAttr>(start, parser.getContext(),
                                               decision);
}

LogicalResult
ChipBlockAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      int64_t rows, int64_t columns) {
  if (rows < 1 || columns < 1)
    return emitError() << "a chip block has at least one row and one column, "
                          "got "
                       << rows << " x " << columns;
  return success();
}

//===----------------------------------------------------------------------===//
// ArrayMapAttr, CyclesAttr, TransferAttr
//===----------------------------------------------------------------------===//

LogicalResult ArrayMapAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   Dim rows, Dim columns, int64_t rowTile,
                                   int64_t columnTile) {
  if (rows == columns)
    return emitError() << "the PE array's rows and columns must take "
                          "different dimensions, both are '"
                       << stringifyDim(rows) << "'";
  if (rowTile < 1 || columnTile < 1)
    return emitError() << "array tiles must be at least 1";
  return success();
}

LogicalResult CyclesAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t useful, int64_t underuse,
                                 int64_t ovldtVisible, int64_t nonOvldt,
                                 int64_t auxComp, int64_t total) {
  int64_t sum = 0;
  for (int64_t part : {useful, underuse, ovldtVisible, nonOvldt, auxComp}) {
    if (part < 0)
      return emitError() << "cycle categories must not be negative";
    if (llvm::AddOverflow(sum, part, sum))
      return emitError() << "cycle categories overflow 64 bits";
  }
  if (sum != total)
    return emitError() << "cycle categories add up to " << sum
                       << ", not the total " << total;
  return success();
}

CyclesAttr CyclesAttr::get(MLIRContext *context,
                           const core::CycleBreakdown &c) {
  auto round = [](double v) { return int64_t(std::llround(v)); };
  // Round the parts and make the total their sum, so the printed numbers
  // add up.
  int64_t useful = round(c.useful), underuse = round(c.underuse),
          ovldtVisible = round(c.ovldtVisible), nonOvldt = round(c.nonOvldt),
          auxComp = round(c.auxComp);
  return CyclesAttr::get(context, useful, underuse, ovldtVisible, nonOvldt,
                         auxComp,
                         useful + underuse + ovldtVisible + nonOvldt + auxComp);
}

core::CycleBreakdown CyclesAttr::getBreakdown() const {
  core::CycleBreakdown c;
  c.useful = double(getUseful());
  c.underuse = double(getUnderuse());
  c.ovldtVisible = double(getOvldtVisible());
  c.nonOvldt = double(getNonOvldt());
  c.auxComp = double(getAuxComp());
  c.total = double(getTotal());
  return c;
}

LogicalResult
ChipMemoryAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       int64_t weights, int64_t gradients, int64_t optimizer,
                       int64_t activations, int64_t buffers, int64_t offloaded,
                       int64_t stage) {
  int64_t total = 0;
  for (int64_t part : {weights, gradients, optimizer, activations, buffers}) {
    if (part < 0)
      return emitError() << "memory categories must not be negative";
    if (llvm::AddOverflow(total, part, total))
      return emitError() << "memory categories overflow 64 bits";
  }
  if (offloaded < 0)
    return emitError() << "offloaded bytes must not be negative";
  if (stage < -1)
    return emitError() << "the stage must be -1 (not pipelined) or at least 0";
  return success();
}

LogicalResult
PipelineIdleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         int64_t bubble, int64_t sends) {
  if (bubble < 0 || sends < 0)
    return emitError() << "idle cycles must not be negative";
  return success();
}

ChipMemoryAttr ChipMemoryAttr::get(MLIRContext *context,
                                   const core::MemoryPerChip &memory,
                                   int64_t stage) {
  // Whole bytes, rounded up: the record never understates the plan's need.
  auto bytes = [](double v) { return int64_t(std::ceil(v)); };
  return ChipMemoryAttr::get(context, bytes(memory.weights),
                             bytes(memory.gradients), bytes(memory.optimizer),
                             bytes(memory.activations), bytes(memory.buffers),
                             bytes(memory.offloaded), stage);
}

core::MemoryPerChip ChipMemoryAttr::getMemory() const {
  core::MemoryPerChip memory;
  memory.weights = double(getWeights());
  memory.gradients = double(getGradients());
  memory.optimizer = double(getOptimizer());
  memory.activations = double(getActivations());
  memory.buffers = double(getBuffers());
  memory.offloaded = double(getOffloaded());
  return memory;
}

TransferAttr TransferAttr::get(MLIRContext *context,
                               const core::TransferGroup &group) {
  auto bytes = [&](core::Link link) {
    return int64_t(std::llround(group.bytes[int(link)]));
  };
  return TransferAttr::get(
      context, bytes(core::Link::MemoryBus), bytes(core::Link::OnChip),
      bytes(core::Link::TorusX), bytes(core::Link::TorusY),
      bytes(core::Link::Host), int64_t(std::llround(group.cycles)),
      group.cycles > 0 ? core::stringifyLink(group.bottleneck) : StringRef());
}

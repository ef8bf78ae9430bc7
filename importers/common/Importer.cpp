//===- Importer.cpp - Shared machinery of the dsm front ends --------------===//

#include "dsm/Import/Importer.h"
#include "dsm/Import/BatchPlacement.h"
#include "dsm/Import/GraphFusion.h"
#include "dsm/Support/LayerName.h"
#include "dsm/Support/ReportWriter.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shape/IR/Shape.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <cmath>

using namespace mlir;
using namespace dsm;

/// Marks a dsm.weight whose name waits for its first consumer: the value is
/// the role ("weight", "bias", ...).
static constexpr StringLiteral kRoleAttr = "dsm.import_role";

static std::string locationString(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    os << llvm::sys::path::filename(file.getFilename().strref()) << ":"
       << file.getLine() << ":" << file.getColumn();
  else
    loc.print(os);
  return text;
}

//===----------------------------------------------------------------------===//
// Dialects
//===----------------------------------------------------------------------===//

void dsm::registerImportDialects(DialectRegistry &registry) {
  // What front ends emit (linalg on tensors, TOSA, ml_program globals) and
  // what partially lowered programs mix in: loops, buffers, vectors,
  // GPU kernels, LLVM, quantized types, sparse tensors, shape computations.
  registry.insert<DsmDialect, affine::AffineDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  complex::ComplexDialect, func::FuncDialect, gpu::GPUDialect,
                  index::IndexDialect, linalg::LinalgDialect, LLVM::LLVMDialect,
                  math::MathDialect, memref::MemRefDialect,
                  ml_program::MLProgramDialect, quant::QuantDialect,
                  scf::SCFDialect, shape::ShapeDialect,
                  sparse_tensor::SparseTensorDialect, tensor::TensorDialect,
                  tosa::TosaDialect, ub::UBDialect, vector::VectorDialect>();
}

//===----------------------------------------------------------------------===//
// What operations outside the dsm vocabulary do
//===----------------------------------------------------------------------===//

/// The tensor type a value that carries data but is no tensor is charged as
/// when kept opaque: a vector or a statically shaped buffer by its shape, an
/// integer or float scalar as a 0-d tensor. None for other values (index
/// scalars, tokens, dynamic buffers).
static std::optional<RankedTensorType> getDataType(Type type) {
  auto isData = [](Type element) {
    return isa<IntegerType, FloatType>(element);
  };
  if (auto vector = dyn_cast<VectorType>(type))
    return isData(vector.getElementType())
               ? std::optional(RankedTensorType::get(vector.getShape(),
                                                     vector.getElementType()))
               : std::nullopt;
  if (auto buffer = dyn_cast<MemRefType>(type))
    return isData(buffer.getElementType()) && buffer.hasStaticShape()
               ? std::optional(RankedTensorType::get(buffer.getShape(),
                                                     buffer.getElementType()))
               : std::nullopt;
  if (isData(type))
    return RankedTensorType::get({}, type);
  return std::nullopt;
}

/// The buffers of the function's body that `op` writes, directly or in its
/// regions, seen through views (a loop writing tiles of a buffer writes the
/// buffer): its memref inits if it is in destination style, else what its
/// memory effects say.
static SmallVector<Value> getWrittenBuffers(Operation *op) {
  SmallVector<Value> written;
  auto add = [&](Value buffer) {
    while (auto view = buffer.getDefiningOp<ViewLikeOpInterface>())
      buffer = view.getViewSource();
    if (isa<MemRefType>(buffer.getType()) &&
        !op->isProperAncestor(buffer.getParentBlock()->getParentOp()) &&
        !llvm::is_contained(written, buffer))
      written.push_back(buffer);
  };
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op)) {
    for (OpOperand &init : dps.getDpsInitsMutable())
      add(init.get());
    return written;
  }
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
      getEffectsRecursively(op);
  if (!effects)
    return written;
  for (const MemoryEffects::EffectInstance &effect : *effects)
    if (isa<MemoryEffects::Write>(effect.getEffect()))
      if (Value value = effect.getValue())
        add(value);
  return written;
}

/// Whether `op` does nothing but allocate, free or view memory.
static bool onlyAllocates(Operation *op) {
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
      getEffectsRecursively(op);
  return effects &&
         llvm::all_of(*effects, [](const MemoryEffects::EffectInstance &e) {
           return isa<MemoryEffects::Allocate, MemoryEffects::Free>(
               e.getEffect());
         });
}

/// Operations `op` executes: 1, the elements of a vector it produces, a
/// linalg op's body per iteration; what its regions execute, times the trip
/// count of a loop with constant bounds.
static double countExecutedOperations(Operation *op) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    double iterations = 1;
    for (int64_t range : linalgOp.getStaticLoopRanges())
      if (!ShapedType::isDynamic(range))
        iterations *= range;
    Block *body = linalgOp.getBlock();
    double perIteration =
        body ? std::max<double>(1, body->getOperations().size() - 1) : 1;
    return iterations * perIteration;
  }
  double inner = 0;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (Operation &nested : block)
        if (!nested.hasTrait<OpTrait::IsTerminator>())
          inner += countExecutedOperations(&nested);
  if (op->getNumRegions() == 0) {
    double elements = 1;
    for (Type type : op->getResultTypes())
      if (auto vector = dyn_cast<VectorType>(type))
        elements = std::max<double>(elements, vector.getNumElements());
    return elements;
  }
  if (auto loop = dyn_cast<LoopLikeOpInterface>(op)) {
    auto lower = loop.getLoopLowerBounds(), upper = loop.getLoopUpperBounds(),
         steps = loop.getLoopSteps();
    if (lower && upper && steps)
      for (auto [lb, ub, step] : llvm::zip_equal(*lower, *upper, *steps)) {
        std::optional<int64_t> l = getConstantIntValue(lb),
                               u = getConstantIntValue(ub),
                               s = getConstantIntValue(step);
        if (l && u && s && *s > 0)
          inner *= std::max<int64_t>(0, llvm::divideCeil(*u - *l, *s));
      }
  }
  return inner;
}

//===----------------------------------------------------------------------===//
// Importer: driver
//===----------------------------------------------------------------------===//

Importer::Importer(func::FuncOp func, const ImportOptions &options,
                   ImportSummary::Unit &summary)
    : GraphBuilder(func.getContext(), /*composeViews=*/false), func(func),
      options(options), summary(summary) {}

Importer::~Importer() = default;

LogicalResult Importer::fixDynamicArguments() {
  Block &entry = func.getBody().front();
  for (BlockArgument arg : entry.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type) {
      if (isa<TensorType>(arg.getType()))
        return func.emitError()
               << "argument #" << arg.getArgNumber() << " is unranked ("
               << arg.getType() << "); dsm needs static shapes";
      continue;
    }
    if (type.hasStaticShape())
      continue;
    SmallVector<int64_t> shape(type.getShape());
    for (auto [index, size] : llvm::enumerate(shape)) {
      if (!ShapedType::isDynamic(size))
        continue;
      if (index != 0)
        return func.emitError()
               << "argument #" << arg.getArgNumber() << " has dynamic shape "
               << type << "; dsm needs static shapes and only a dynamic batch "
               << "dimension (dimension 0) can be fixed, with batch=<N>";
      if (options.batch <= 0)
        return func.emitError()
               << "argument #" << arg.getArgNumber() << " has dynamic shape "
               << type << "; dsm needs static shapes: pass batch=<N> to fix "
               << "its batch dimension";
      size = options.batch;
    }
    arg.setType(type.clone(shape));
  }
  return success();
}

LogicalResult Importer::run() {
  if (!func.getBody().hasOneBlock())
    return func.emitError() << "cannot import a function with control flow ("
                            << func.getBody().getBlocks().size() << " blocks)";
  if (failed(fixDynamicArguments()))
    return failure();
  Block &body = func.getBody().front();
  for (Operation &op : body.without_terminator())
    originals.push_back(&op);
  // Shapes must be known (TOSA allows unranked tensors before inference),
  // elements numbers (quantized types parse, but dsm computes on plain
  // integers and floats).
  auto isNumber = [](Type element) {
    return isa<IntegerType, FloatType, IndexType>(element);
  };
  for (BlockArgument arg : body.getArguments())
    if (auto tensor = dyn_cast<TensorType>(arg.getType());
        tensor && !isNumber(tensor.getElementType()))
      return func.emitError()
             << "argument #" << arg.getArgNumber() << " has element type "
             << tensor.getElementType()
             << ", which dsm does not compute in (integers and floats)";
  for (Operation *op : originals)
    for (Type type : op->getResultTypes()) {
      if (isa<UnrankedTensorType>(type))
        return op->emitError()
               << "has an unranked result (" << type
               << "); dsm needs ranked, static shapes (infer them first)";
      if (auto tensor = dyn_cast<TensorType>(type);
          tensor && !isNumber(tensor.getElementType()))
        return op->emitError()
               << "has a result of element type " << tensor.getElementType()
               << ", which dsm does not compute in (integers and floats)";
    }

  for (Operation *op : originals) {
    current = op;
    builder.setInsertionPoint(op);
    if (pendingChains.count(op)) {
      if (failed(emitPendingChain(op)))
        return failure();
      continue;
    }
    if (isClaimed(op) || isLazy(op))
      continue;
    // Operations already in the dsm dialect stay, reading imported values.
    if (isa_and_nonnull<DsmDialect>(op->getDialect())) {
      for (OpOperand &operand : op->getOpOperands()) {
        FailureOr<Value> value = getActivation(operand.get());
        if (failed(value))
          return failure();
        operand.set(*value);
      }
      for (Value result : op->getResults())
        map(result, result);
      setImported(op, op->getName().getStringRef());
      continue;
    }
    // Runtime checks (cf.assert) and scalar bookkeeping (arith on scalars,
    // tensor.dim, affine.apply) carry no tensor work: they are dropped, and
    // what consumers need of them is read as constants. Vectors are data:
    // an op producing or reading one is work (vector.reduction).
    auto isShaped = [](Type type) { return isa<ShapedType>(type); };
    bool scalarOnly = op->getNumResults() > 0 && op->getNumRegions() == 0 &&
                      isMemoryEffectFree(op) &&
                      llvm::none_of(op->getResultTypes(), isShaped) &&
                      llvm::none_of(op->getOperandTypes(), [](Type type) {
                        return isa<VectorType>(type);
                      });
    if (op->getName().getStringRef() == "cf.assert" || scalarOnly) {
      setOutcome(op, Outcome::Dropped);
      continue;
    }
    // Conversions between tensors and buffers carry the same data: a buffer
    // stands for the tensor it was made from, a tensor read from a buffer
    // for what was last written into it.
    if (auto toBuffer = dyn_cast<bufferization::ToBufferOp>(op)) {
      FailureOr<Value> tensor = getActivation(toBuffer.getTensor());
      if (failed(tensor))
        return failure();
      map(toBuffer.getResult(), *tensor);
      setOutcome(op, Outcome::Dropped, "pass-through");
      continue;
    }
    if (auto toTensor = dyn_cast<bufferization::ToTensorOp>(op);
        toTensor && isMapped(toTensor.getBuffer())) {
      map(toTensor.getResult(), mapping.lookup(toTensor.getBuffer()));
      setOutcome(op, Outcome::Dropped, "pass-through");
      continue;
    }
    rejection.clear();
    FailureOr<bool> handled = handle(op);
    if (failed(handled))
      return failure();
    if (!*handled && failed(unrecognised(op, rejection)))
      return failure();
  }
  return finalize();
}

LogicalResult Importer::finalize() {
  Operation *terminator = func.getBody().front().getTerminator();
  current = terminator;
  builder.setInsertionPoint(terminator);
  for (OpOperand &operand : terminator->getOpOperands()) {
    FailureOr<Value> value = getActivation(operand.get());
    if (failed(value))
      return failure();
    operand.set(*value);
  }
  // Count outcomes before erasing.
  for (Operation *op : originals) {
    auto it = outcomes.find(op);
    std::pair<Outcome, std::string> outcome =
        it == outcomes.end() ? std::pair(Outcome::Dropped, std::string())
                             : it->second;
    // Tensors of one value were read as constants by their consumers.
    if (it == outcomes.end() && op->getNumResults() == 1 &&
        isa<RankedTensorType>(op->getResult(0).getType()) &&
        !op->getResult(0).use_empty() &&
        (getSplatValue(op->getResult(0)) || isConstantExpression(op)))
      outcome = {Outcome::Folded, "into its consumers"};
    summary.addSource(op->getName().getStringRef(), outcome.first,
                      outcome.second);
  }
  for (Operation *op : llvm::reverse(originals)) {
    if (isa_and_nonnull<DsmDialect>(op->getDialect()))
      continue;
    op->dropAllUses();
    op->erase();
  }
  func.setFunctionType(
      FunctionType::get(getContext(), func.getBody().front().getArgumentTypes(),
                        terminator->getOperandTypes()));
  // Compositions the translation left as pieces are recognised on the dsm
  // ops, as after every front end; the rows above describe the translation.
  if (failed(fuseGraph(func, [&](StringRef pattern, Operation *fused,
                                 ArrayRef<Operation *>) {
        summary.addPatternMatch(pattern);
        summary.addResult(pattern, fused->getName().getStringRef());
      })))
    return func.emitError()
           << "internal error: the graph fusions do not converge";
  // Which dimension of each reshape follows the batch, decided by
  // re-batching (dsm/Import/BatchPlacement.h).
  for (unsigned i = 0, e = placeBatchInReshapes(func); i < e; ++i) {
    summary.addPatternMatch(kBatchPlacedPattern);
    summary.addResult(kBatchPlacedPattern, ReshapeOp::getOperationName());
  }
  unsigned dsmOps = 0;
  for (Operation &op : func.getBody().front()) {
    if (&op == terminator)
      continue;
    // Fixed integer ids (BERT's position ids) and scalar operands (an
    // epsilon) stay constants, as in the dsm graphs the zoo writes: they are
    // neither parameters nor work.
    if (isa<arith::ConstantOp>(op))
      continue;
    if (!isa_and_nonnull<DsmDialect>(op.getDialect()))
      return op.emitError() << "internal error: '" << op.getName()
                            << "' was left behind by the import";
    ++dsmOps;
  }
  summary.dsmOps = dsmOps;
  if (!summary.opaque.empty())
    emitWarning(func.getLoc())
        << summary.opaque.size()
        << " operation(s) kept as dsm.opaque, charged by "
           "element count (see the import summary)";
  return success();
}

//===----------------------------------------------------------------------===//
// Importer: values
//===----------------------------------------------------------------------===//

void Importer::map(Value original, Value replacement) {
  mapping[original] = replacement;
}

FailureOr<Value> Importer::getActivation(Value original) {
  auto it = mapping.find(original);
  if (it != mapping.end())
    return it->second;
  if (auto arg = dyn_cast<BlockArgument>(original)) {
    if (arg.getOwner() != &func.getBody().front())
      return emitError(arg.getLoc()) << "cannot import a block argument of a "
                                        "nested region";
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !type.hasStaticShape())
      return func.emitError()
             << "argument #" << arg.getArgNumber() << " (" << arg.getType()
             << ") is not a statically shaped tensor";
    map(original, original);
    return original;
  }
  Operation *def = original.getDefiningOp();
  if (isLazy(def)) {
    if (!materializing.insert(def).second)
      return def->emitError("internal error: cyclic materialization");
    FailureOr<Value> value = materialize(cast<OpResult>(original));
    materializing.erase(def);
    if (failed(value))
      return failure();
    map(original, *value);
    return *value;
  }
  return def->emitError() << "the result of '" << def->getName()
                          << "' is read by '"
                          << (current ? current->getName().getStringRef()
                                      : StringRef("?"))
                          << "' but the import keeps no value for it (scalar "
                             "bookkeeping and operations without tensor "
                             "results are dropped)";
}

FailureOr<Value> Importer::materializeConstant(OpResult result) {
  Operation *op = result.getOwner();
  if (getSplatValue(result)) {
    setOutcome(op, Outcome::Opaque, "dsm.opaque");
    return createOpaque(op, result.getResultNumber(), {}, 0.0,
                        "splat constant used as data");
  }
  auto type = dyn_cast<RankedTensorType>(result.getType());
  if (!type)
    return emitError(op->getLoc()) << "cannot import the constant "
                                   << result.getType() << " as a tensor";
  // Integer tensors (positions, indices, shapes, masks) are data the model
  // computes with, not parameters: they stay constants.
  TypedAttr value;
  if (isa<IntegerType>(type.getElementType()) &&
      !getDsmElementType(type.getElementType()) &&
      matchPattern(result, m_Constant(&value))) {
    setImported(op, "arith.constant");
    return arith::ConstantOp::create(builder, op->getLoc(), value).getResult();
  }
  return getWeight(result, type.getShape(), type.getElementType(), "constant");
}

Operation *Importer::getConstantRoot(Value value) {
  for (int depth = 0; value && depth < 32; ++depth) {
    Operation *def = value.getDefiningOp();
    if (!def)
      return nullptr;
    if (def->hasTrait<OpTrait::ConstantLike>() ||
        isa<ml_program::GlobalLoadConstOp>(def))
      return def->getNumResults() == 1 &&
                     isa<RankedTensorType>(def->getResult(0).getType())
                 ? def
                 : nullptr;
    value = getViewSource(def);
  }
  return nullptr;
}

/// The name a constant carries: its location's name, a global's symbol, or a
/// dense resource's key (unless elided).
static std::string constantName(Operation *root) {
  std::string name;
  root->getLoc()->walk([&](Location inner) {
    if (auto named = dyn_cast<NameLoc>(inner)) {
      name = named.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (!name.empty())
    return name;
  if (auto load = dyn_cast<ml_program::GlobalLoadConstOp>(root))
    return load.getGlobal().getLeafReference().str();
  Attribute attr;
  if (matchPattern(root->getResult(0), m_Constant(&attr)))
    if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
      StringRef key = resource.getRawHandle().getKey();
      if (!key.empty() && !key.starts_with("__elided"))
        return key.str();
    }
  return "";
}

static bool isSplatConstant(Operation *root) {
  Attribute attr;
  if (!matchPattern(root->getResult(0), m_Constant(&attr)))
    return false;
  auto elements = dyn_cast<ElementsAttr>(attr);
  return elements && !isa<DenseResourceElementsAttr>(attr) &&
         elements.isSplat();
}

Type Importer::getDsmElementType(Type type) {
  Type element = getElementTypeOrSelf(type);
  if (element.isF32() || element.isF16() || element.isBF16() ||
      element.isInteger(8))
    return element;
  return Type();
}

FailureOr<Type> Importer::requireDsmElementType(Location loc, Value value) {
  if (Type type = getDsmElementType(value.getType()))
    return type;
  InFlightDiagnostic diag = emitError(loc);
  if (current)
    diag << "cannot import '" << current->getName() << "': ";
  return diag << "element type " << getElementTypeOrSelf(value.getType())
              << " is not supported by dsm (f32, f16, bf16, i8)";
}

bool Importer::isIntegerData(Value value) {
  Type element = getElementTypeOrSelf(value.getType());
  return isa<IntegerType>(element) && !getDsmElementType(element);
}

FailureOr<Value> Importer::convertIntegerData(Operation *op, Value value,
                                              Type elementType) {
  if (!isIntegerData(value) || !isa_and_present<FloatType>(elementType))
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  std::string reason;
  llvm::raw_string_ostream os(reason);
  os << "conversion of " << type.getElementType() << " data to " << elementType;
  return createOpaque(op, type.clone(elementType), value, 1.0, reason);
}

FailureOr<Value> Importer::getWeight(Value value, ArrayRef<int64_t> shape,
                                     Type elementType, StringRef role) {
  Operation *root = getConstantRoot(value);
  Location loc = current ? current->getLoc() : func.getLoc();
  if (!root)
    return emitError(loc) << "internal error: " << role << " is not a constant";
  auto rootType = cast<RankedTensorType>(root->getResult(0).getType());
  int64_t elements = 1;
  for (int64_t d : shape)
    elements *= d;
  if (!rootType.hasStaticShape() || rootType.getNumElements() != elements)
    return emitError(loc) << "cannot declare the " << role << " " << rootType
                          << " as a weight of shape " << formatShape(shape);
  if (!getDsmElementType(elementType))
    return emitError(loc) << "element type " << elementType
                          << " is not supported by dsm (f32, f16, bf16, i8)";
  for (Value view = value; view.getDefiningOp() != root;) {
    Operation *def = view.getDefiningOp();
    setOutcome(def, Outcome::Folded, "into dsm.weight");
    view = getViewSource(def);
  }
  bool splat = isSplatConstant(root);
  std::pair<Operation *, std::vector<int64_t>> key{
      root, std::vector<int64_t>(shape.begin(), shape.end())};
  if (!splat) {
    auto it = weights.find(key);
    if (it != weights.end() &&
        getElementTypeOrSelf(it->second.getType()) == elementType)
      return it->second;
  }
  std::string name = constantName(root);
  auto weight = WeightOp::create(builder, root->getLoc(),
                                 RankedTensorType::get(shape, elementType),
                                 builder.getStringAttr(name));
  if (name.empty())
    weight->setAttr(kRoleAttr, builder.getStringAttr(role));
  setImported(root, "dsm.weight");
  if (!splat)
    weights[key] = weight.getResult();
  return weight.getResult();
}

std::optional<double> Importer::getScalarConstant(Value value) {
  for (int depth = 0; value && depth < 8; ++depth) {
    Attribute attr;
    if (matchPattern(value, m_Constant(&attr))) {
      if (auto f = dyn_cast<FloatAttr>(attr))
        return f.getValueAsDouble();
      if (auto i = dyn_cast<IntegerAttr>(attr))
        return double(i.getValue().getSExtValue());
      if (auto elements = dyn_cast<DenseElementsAttr>(attr);
          elements && elements.isSplat()) {
        Type element = elements.getElementType();
        if (isa<FloatType>(element))
          return elements.getSplatValue<APFloat>().convertToDouble();
        if (isa<IntegerType>(element))
          return double(elements.getSplatValue<APInt>().getSExtValue());
      }
      return std::nullopt;
    }
    // Scalar conversions of constants (truncf, sitofp, index_cast, ...).
    Operation *def = value.getDefiningOp();
    if (!def || def->getNumOperands() != 1 || def->getNumResults() != 1 ||
        !isa<CastOpInterface>(def))
      return std::nullopt;
    value = def->getOperand(0);
  }
  return std::nullopt;
}

std::optional<double> Importer::getSplatValue(Value value, unsigned depth) {
  if (!value || depth > 8)
    return std::nullopt;
  if (std::optional<double> scalar = getScalarConstant(value))
    return scalar;
  Operation *def = value.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (Value source = getViewSource(def))
    return getSplatValue(source, depth + 1);
  // Computed elementwise from splats (a fill, sitofp of a filled tensor).
  std::optional<ElementwiseView> view = getElementwise(def);
  if (!view)
    return std::nullopt;
  core::ScalarFunction function = view->function;
  for (auto [index, operand] : llvm::enumerate(view->operands)) {
    if (!function.dependsOn(index))
      continue;
    std::optional<double> splat = getSplatValue(operand.value, depth + 1);
    if (!splat)
      return std::nullopt;
    function.bind(index, *splat);
  }
  SmallVector<double> zeros(function.getNumInputs(), 0.0);
  return function.evaluate(zeros);
}

//===----------------------------------------------------------------------===//
// Importer: creating dsm ops
//===----------------------------------------------------------------------===//

LogicalResult Importer::checkDeclaredShape(Operation *op, Type expected) {
  auto want = dyn_cast_or_null<RankedTensorType>(expected);
  if (!want)
    return success();
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  bool same = want.getRank() == result.getRank();
  for (int64_t d = 0; same && d < want.getRank(); ++d)
    same = want.isDynamicDim(d) || want.getDimSize(d) == result.getDimSize(d);
  if (same)
    return success();
  return emitError(op->getLoc())
         << "cannot import '"
         << (current ? current->getName().getStringRef() : StringRef("?"))
         << "': it declares a result of shape " << formatShape(want.getShape())
         << " but as '" << op->getName() << "' it computes "
         << formatShape(result.getShape())
         << " (an operation that reads only part of its input, which dsm "
            "cannot express)";
}

FailureOr<SmallVector<Value>> Importer::getActivations(ValueRange originals) {
  SmallVector<Value> values;
  for (Value original : originals) {
    FailureOr<Value> value = getActivation(original);
    if (failed(value))
      return failure();
    values.push_back(*value);
  }
  return values;
}

FailureOr<Importer::TypedActivation>
Importer::getTypedActivation(Location loc, Value original) {
  FailureOr<Value> activation = getActivation(original);
  if (failed(activation))
    return failure();
  FailureOr<Type> elementType = requireDsmElementType(loc, *activation);
  if (failed(elementType))
    return failure();
  return TypedActivation{*activation, *elementType};
}

FailureOr<Value> Importer::keepDataMovement(OpResult result, ValueRange inputs,
                                            StringRef reason) {
  Operation *op = result.getOwner();
  setOutcome(op, Outcome::Opaque, OpaqueOp::getOperationName());
  return createOpaque(op, result.getResultNumber(), inputs, 0.0, reason);
}

FailureOr<Value> Importer::createPool(Location loc, Type expected,
                                      PoolKind kind, Value activation,
                                      ArrayRef<int64_t> kernel,
                                      ArrayRef<int64_t> strides,
                                      ArrayRef<int64_t> padding, bool ceilMode,
                                      DataLayoutAttr layout) {
  if (kind == PoolKind::GlobalAverage) {
    FailureOr<GlobalAvgPoolOp> pool =
        create<GlobalAvgPoolOp>(loc, expected, activation, layout);
    if (failed(pool))
      return failure();
    return pool->getResult();
  }
  UnitAttr ceil = ceilMode ? builder.getUnitAttr() : UnitAttr();
  DenseI64ArrayAttr window = builder.getDenseI64ArrayAttr(kernel),
                    steps = builder.getDenseI64ArrayAttr(strides),
                    pads = builder.getDenseI64ArrayAttr(padding);
  Operation *pool = nullptr;
  if (kind == PoolKind::Max) {
    if (FailureOr<MaxPoolOp> max = create<MaxPoolOp>(
            loc, expected, activation, window, steps, pads, ceil, layout);
        succeeded(max))
      pool = *max;
  } else if (FailureOr<AvgPoolOp> average = create<AvgPoolOp>(
                 loc, expected, activation, window, steps, pads, ceil, layout);
             succeeded(average)) {
    pool = *average;
  }
  if (!pool)
    return failure();
  return pool->getResult(0);
}

FailureOr<RankedTensorType> Importer::staticType(Location loc, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return emitError(loc) << "cannot import a result of type " << type
                          << ": dsm needs ranked tensors";
  if (tensor.hasStaticShape())
    return tensor;
  SmallVector<int64_t> shape(tensor.getShape());
  for (auto [index, size] : llvm::enumerate(shape)) {
    if (!ShapedType::isDynamic(size))
      continue;
    if (index != 0 || options.batch <= 0)
      return emitError(loc)
             << "result type " << type
             << " is dynamic; dsm needs static shapes (batch=<N> fixes a "
                "dynamic batch dimension)";
    size = options.batch;
  }
  return tensor.clone(shape);
}

FailureOr<Value> Importer::createOpaque(Operation *op, unsigned index,
                                        ValueRange inputs, double opsPerElement,
                                        StringRef reason) {
  FailureOr<RankedTensorType> type =
      staticType(op->getLoc(), op->getResult(index).getType());
  if (failed(type))
    return failure();
  return createOpaque(op, *type, inputs, opsPerElement, reason);
}

FailureOr<Value> Importer::createOpaque(Operation *op, RankedTensorType type,
                                        ValueRange inputs, double opsPerElement,
                                        StringRef reason) {
  FailureOr<Value> opaque = GraphBuilder::opaque(
      op->getLoc(), type, op->getName().getStringRef(), inputs, opsPerElement);
  if (failed(opaque))
    return failure();
  ImportSummary::Opaque entry;
  entry.location = locationString(op->getLoc());
  entry.origin = op->getName().getStringRef().str();
  entry.reason = reason.str();
  entry.opsPerElement = opsPerElement;
  entry.elements = type.getNumElements();
  summary.addOpaque(std::move(entry));
  return opaque;
}

double Importer::estimateWork(Operation *op, RankedTensorType charged) {
  if (op->getNumRegions() == 0 || isa<linalg::LinalgOp>(op))
    return estimateOpsPerElement(op);
  // A loop nest or other region: what it executes, per element it yields or
  // writes.
  return countExecutedOperations(op) /
         double(std::max<int64_t>(1, charged.getNumElements()));
}

SmallVector<Value> Importer::getOpaqueInputs(Operation *op) {
  SmallVector<Value> inputs;
  for (Value operand : op->getOperands())
    if (isa<RankedTensorType>(operand.getType()))
      inputs.push_back(operand);
  return inputs;
}

LogicalResult Importer::unrecognised(Operation *op, StringRef reason) {
  if (options.mode == ImportMode::Strict) {
    InFlightDiagnostic diag = op->emitError()
                              << "cannot import '" << op->getName() << "'";
    if (!reason.empty())
      diag << ": " << reason;
    diag.attachNote() << "mode=permissive keeps unrecognised operations as "
                         "dsm.opaque";
    return failure();
  }
  llvm::SetVector<Value> sources;
  for (Value operand : getOpaqueInputs(op))
    sources.insert(operand);
  // Vectors, scalars computed from them and buffers written by operations
  // kept opaque are read as the dsm values that stand for them.
  for (Value operand : op->getOperands())
    if (!isa<TensorType>(operand.getType()) && isMapped(operand))
      sources.insert(operand);
  // A loop or other region reads what its body uses from outside: values
  // already imported and the function's arguments.
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  for (Value value : captured)
    if (isMapped(value) ||
        (isa<RankedTensorType>(value.getType()) && isa<BlockArgument>(value) &&
         value.getParentBlock() == &func.getBody().front()))
      sources.insert(value);
  SmallVector<Value> inputs;
  for (Value operand : sources) {
    FailureOr<Value> value = getActivation(operand);
    if (failed(value))
      return failure();
    inputs.push_back(*value);
  }
  StringRef why = reason.empty() ? "not recognised" : reason;
  bool any = false;
  auto keep = [&](Value original, RankedTensorType type) -> LogicalResult {
    FailureOr<Value> value =
        createOpaque(op, type, inputs, any ? 0.0 : estimateWork(op, type), why);
    if (failed(value))
      return failure();
    map(original, *value);
    any = true;
    return success();
  };
  for (OpResult result : op->getResults()) {
    Type type = result.getType();
    // Buffers are charged where they are written, not where they are made.
    if (isa<BaseMemRefType>(type))
      continue;
    if (isa<TensorType>(type)) {
      FailureOr<RankedTensorType> tensor = staticType(op->getLoc(), type);
      if (failed(tensor) || failed(keep(result, *tensor)))
        return failure();
    } else if (std::optional<RankedTensorType> data = getDataType(type)) {
      if (failed(keep(result, *data)))
        return failure();
    }
  }
  // An operation on buffers (linalg after bufferization, a loop nest, a
  // copy) is charged as what it writes; later readers of a buffer read it.
  if (!any)
    for (Value buffer : getWrittenBuffers(op))
      if (std::optional<RankedTensorType> data = getDataType(buffer.getType()))
        if (failed(keep(buffer, *data)))
          return failure();
  if (!any) {
    // Allocations, views and deallocations do no work; other side effects
    // without data dsm could keep are worth a warning.
    if (!onlyAllocates(op))
      op->emitWarning() << "dropping '" << op->getName()
                        << "': it produces no tensor for dsm to keep";
    setOutcome(op, Outcome::Dropped, "no tensor result");
    return success();
  }
  setOutcome(op, Outcome::Opaque, "dsm.opaque");
  return success();
}

void Importer::claim(Operation *op, Outcome outcome, StringRef result) {
  claimed.insert(op);
  setOutcome(op, outcome, result);
}

void Importer::setOutcome(Operation *op, Outcome outcome, StringRef result) {
  auto [it, inserted] = outcomes.try_emplace(op, outcome, result.str());
  if (inserted)
    return;
  // What an op became beats what it was folded into.
  bool became = it->second.first == Outcome::Imported ||
                it->second.first == Outcome::Opaque;
  if (became && (outcome != Outcome::Imported && outcome != Outcome::Opaque))
    return;
  it->second = {outcome, result.str()};
}

//===----------------------------------------------------------------------===//
// Importer: elementwise recognition
//===----------------------------------------------------------------------===//

bool Importer::isImportable(const core::ElementwiseClass &c) {
  using K = core::ElementwiseKind;
  switch (c.kind) {
  case K::Copy:
  case K::Relu:
  case K::Clamp:
  case K::Sigmoid:
  case K::Tanh:
  case K::Gelu:
  case K::HardSigmoid:
  case K::HardSwish:
  case K::Silu:
  case K::GatedSilu:
  case K::Exp:
  case K::Erf:
  case K::Rsqrt:
  case K::Sqrt:
  case K::Square:
  case K::Add:
  case K::Sub:
  case K::Mul:
  case K::Div:
  case K::BatchNorm:
    return true;
  default:
    return false;
  }
}

core::ElementwiseClass Importer::classify(const ElementwiseView &view,
                                          bool *bound) {
  if (bound)
    *bound = false;
  core::ElementwiseClass c = core::classifyElementwise(view.function);
  if (isImportable(c))
    return c;
  core::ScalarFunction boundFunction = view.function;
  bool any = false;
  for (auto [index, operand] : llvm::enumerate(view.operands)) {
    if (!boundFunction.dependsOn(index))
      continue;
    if (std::optional<double> splat = getSplatValue(operand.value)) {
      boundFunction.bind(index, *splat);
      any = true;
    }
  }
  if (!any)
    return c;
  if (bound)
    *bound = true;
  return core::classifyElementwise(boundFunction);
}

std::optional<ElementwiseView>
Importer::compose(const ElementwiseView &producer,
                  const ElementwiseView &consumer, unsigned index) {
  std::optional<SmallVector<ViewOperand>> operands =
      retarget(producer, consumer, index);
  if (!operands)
    return std::nullopt;
  ElementwiseView result = consumer;
  SmallVector<unsigned> renumber;
  for (const ViewOperand &operand : *operands) {
    auto it = llvm::find(result.operands, operand);
    if (it != result.operands.end() &&
        result.function.dependsOn(it - result.operands.begin())) {
      renumber.push_back(it - result.operands.begin());
      continue;
    }
    result.operands.push_back(operand);
    renumber.push_back(result.operands.size() - 1);
  }
  result.function.substitute(index, producer.function, renumber);
  return result;
}

bool Importer::isConstant(Value value, unsigned depth) {
  if (getConstantRoot(value) || getSplatValue(value).has_value())
    return true;
  Operation *def = value.getDefiningOp();
  return def && depth < 8 && isConstantExpression(def, depth + 1);
}

bool Importer::isConstantExpression(Operation *op, unsigned depth) {
  if (op->getNumResults() != 1)
    return false;
  std::optional<ElementwiseView> view = getElementwise(op);
  if (!view)
    return false;
  for (auto [index, operand] : llvm::enumerate(view->operands))
    if (view->function.dependsOn(index) && !isConstant(operand.value, depth))
      return false;
  return true;
}

FailureOr<Value> Importer::materializeConstantExpression(OpResult result) {
  setOutcome(result.getOwner(), Outcome::Opaque, "dsm.opaque");
  return createOpaque(result.getOwner(), result.getResultNumber(), {}, 0.0,
                      getSplatValue(result)
                          ? "splat tensor used as data"
                          : "constant expression used as data");
}

void Importer::inlineProducers(ElementwiseView &view,
                               SmallVector<Operation *> &absorbed,
                               unsigned depth, const ElementwiseView *root) {
  if (depth > 6)
    return;
  // Operands count as already read if the outermost view reads them.
  if (!root)
    root = &view;
  SmallVector<ViewOperand> rootOperands;
  for (auto [index, operand] : llvm::enumerate(root->operands))
    if (root->function.dependsOn(index))
      rootOperands.push_back(operand);
  for (unsigned index = 0; index < view.operands.size(); ++index) {
    if (!view.function.dependsOn(index))
      continue;
    Value value = view.operands[index].value;
    Operation *def = value.getDefiningOp();
    if (!def || isMapped(value) || isClaimed(def) || getConstantRoot(value) ||
        getSplatValue(value) || def->getBlock() != view.op->getBlock())
      continue;
    std::optional<ElementwiseView> producer = getElementwise(def);
    if (!producer)
      continue;
    bool constantOnly = isConstantExpression(def);
    // Not yet imported and read only here: compose it if it computes from
    // what the view already reads (the other branch of x * 0.5 * (1 +
    // erf(x / sqrt 2))), or from constants (rsqrt(variance + eps)).
    if (!constantOnly && !value.hasOneUse())
      continue;
    SmallVector<Operation *> nested;
    inlineProducers(*producer, nested, depth + 1, root);
    std::optional<SmallVector<ViewOperand>> operands =
        retarget(*producer, view, index);
    if (!operands)
      continue;
    bool known = true;
    for (auto [i, operand] : llvm::enumerate(*operands))
      if (producer->function.dependsOn(i) && !isConstant(operand.value) &&
          !llvm::is_contained(rootOperands, operand))
        known = false;
    if (!known)
      continue;
    std::optional<ElementwiseView> composed = compose(*producer, view, index);
    if (!composed)
      continue;
    view = std::move(*composed);
    if (!constantOnly) {
      absorbed.append(nested);
      absorbed.push_back(def);
    }
  }
}

/// The dsm op name a classification becomes.
static StringRef dsmOpName(const core::ElementwiseClass &c) {
  using K = core::ElementwiseKind;
  switch (c.kind) {
  case K::Relu:
    return ReluOp::getOperationName();
  case K::Clamp:
    return ClampOp::getOperationName();
  case K::Sigmoid:
    return SigmoidOp::getOperationName();
  case K::Tanh:
    return TanhOp::getOperationName();
  case K::Gelu:
    return GeluOp::getOperationName();
  case K::HardSigmoid:
    return HardSigmoidOp::getOperationName();
  case K::HardSwish:
    return HardSwishOp::getOperationName();
  case K::Exp:
    return ExpOp::getOperationName();
  case K::Rsqrt:
    return RsqrtOp::getOperationName();
  case K::Erf:
    return ErfOp::getOperationName();
  case K::Sqrt:
    return SqrtOp::getOperationName();
  case K::Square:
    return MulOp::getOperationName();
  case K::Silu:
    // dsm has no SiLU: a sigmoid and the product with its input.
    return "dsm.sigmoid + dsm.mul";
  case K::GatedSilu:
    return "dsm.sigmoid + dsm.mul x2";
  case K::Affine:
    // dsm has no affine operation: a scaling, a shift or both.
    return c.scale == 1   ? AddOp::getOperationName()
           : c.shift == 0 ? MulOp::getOperationName()
                          : "dsm.mul + dsm.add";
  case K::Add:
    return AddOp::getOperationName();
  case K::Sub:
    return SubOp::getOperationName();
  case K::Mul:
    return MulOp::getOperationName();
  case K::Div:
    return DivOp::getOperationName();
  case K::BatchNorm:
    return BatchNormOp::getOperationName();
  default:
    return "(pass-through)";
  }
}

FailureOr<bool> Importer::importElementwise(Operation *op) {
  FailureOr<bool> softmax = trySoftmax(op);
  if (failed(softmax) || *softmax)
    return softmax;
  std::optional<ElementwiseView> view = getElementwise(op);
  if (!view)
    return reject("elementwise op with several results, a non-identity result "
                  "indexing, or a body that is not a plain scalar function");
  SmallVector<Operation *> absorbed, bestAbsorbed;
  inlineProducers(*view, absorbed);

  std::optional<PendingChain> best;
  SmallVector<Operation *> chain{op}, bestChain;
  core::ElementwiseClass c = classify(*view);
  if (isImportable(c)) {
    best = PendingChain{*view, c, op};
    bestChain = chain;
    bestAbsorbed = absorbed;
  }
  ElementwiseView composite = *view;
  // An op that is something on its own (a batch normalization) is only
  // absorbed by a chain recognised as it is written: binding its splat
  // constants could make it vanish (a ReLU of x * 0.99999).
  bool startImportable = isImportable(c);
  for (int step = 0; step < 8; ++step) {
    Operation *last = chain.back();
    if (last->getNumResults() != 1 || !last->getResult(0).hasOneUse())
      break;
    Operation *user = *last->getResult(0).getUsers().begin();
    if (isClaimed(user) || user->getBlock() != op->getBlock())
      break;
    std::optional<ElementwiseView> next = getElementwise(user);
    if (!next)
      break;
    SmallVector<unsigned> uses;
    for (auto [index, operand] : llvm::enumerate(next->operands))
      if (operand.value == last->getResult(0) &&
          next->function.dependsOn(index))
        uses.push_back(index);
    if (uses.size() != 1 || !isFullSize(*next, uses[0]))
      break;
    std::optional<ElementwiseView> composed =
        compose(composite, *next, uses[0]);
    if (!composed)
      break;
    composite = std::move(*composed);
    composite.op = user;
    chain.push_back(user);
    inlineProducers(composite, absorbed);
    bool bound = false;
    core::ElementwiseClass cc = classify(composite, &bound);
    if (isImportable(cc) && !(startImportable && bound)) {
      best = PendingChain{composite, cc, op};
      bestChain = chain;
      bestAbsorbed = absorbed;
    }
  }
  // An affine function alone (x * 0.125, -x) is a scaling and a shift.
  if (!best && c.kind == core::ElementwiseKind::Affine) {
    best = PendingChain{*view, c, op};
    bestChain = {op};
    bestAbsorbed = absorbed;
  }
  // Arithmetic on integer data (positions offset in i64) has no dsm tensors
  // to compute in: it is kept opaque with its count, as a comparison of ids
  // is, in either mode. Copies and conversions pass it through.
  // A float converted to such integers (arith.fptosi) is converted, 1
  // operation per element.
  bool integerArithmetic = false;
  std::optional<Type> convertedFrom;
  if (best && isIntegerData(bestChain.back()->getResult(0))) {
    if (best->kind.kind != core::ElementwiseKind::Copy) {
      best.reset();
      integerArithmetic = true;
    } else if (Value source = best->view.operands[best->kind.operands[0]].value;
               !isIntegerData(source) && bestChain.size() == 1) {
      convertedFrom = getElementTypeOrSelf(source.getType());
      best.reset();
    }
  }
  if (!best && c.kind == core::ElementwiseKind::Unknown) {
    FailureOr<Value> product = emitProduct(*view);
    if (failed(product))
      return failure();
    if (*product) {
      for (Operation *member : absorbed)
        claimFused(member, MulOp::getOperationName());
      map(op->getResult(0), *product);
      setImported(op, MulOp::getOperationName());
      return true;
    }
  }
  if (!best) {
    SmallVector<std::string> unknown = view->function.getUnknownNames();
    if (!unknown.empty()) {
      rejection =
          ("elementwise function not recognised (" + Twine(c.operations) +
           " operation(s); not modelled: " + llvm::join(unknown, ", ") + ")")
              .str();
      return false;
    }
    // Every operation is known, dsm just has no operation for the whole (the
    // maximum of two tensors, silu(gate) * up in one body): it is kept
    // opaque with its exact count, in either mode.
    std::string what;
    unsigned operations = c.operations;
    if (integerArithmetic || convertedFrom) {
      std::string text;
      llvm::raw_string_ostream os(text);
      Type type = getElementTypeOrSelf(op->getResult(0).getType());
      if (convertedFrom) {
        os << "a conversion of " << *convertedFrom << " data to " << type;
        operations = 1;
      } else {
        os << "arithmetic on " << type << " data";
      }
      what = text;
    } else if (c.kind == core::ElementwiseKind::Unknown) {
      what = "an elementwise function of " + std::to_string(c.operands.size()) +
             " input(s)";
    } else {
      StringRef kind = core::stringifyElementwiseKind(c.kind);
      what = (StringRef("aeiou").contains(kind.front()) ? "an " : "a ") +
             kind.str();
    }
    SmallVector<Value> inputs;
    for (auto [index, operand] : llvm::enumerate(view->operands)) {
      if (!view->function.dependsOn(index) || isConstant(operand.value) ||
          llvm::is_contained(inputs, operand.value))
        continue;
      FailureOr<Value> value = getActivation(operand.value);
      if (failed(value))
        return failure();
      inputs.push_back(*value);
    }
    FailureOr<Value> opaque = createOpaque(
        op, 0, inputs, operations, what + ", which dsm has no operation for");
    if (failed(opaque))
      return failure();
    map(op->getResult(0), *opaque);
    setOutcome(op, Outcome::Opaque, "dsm.opaque");
    return true;
  }
  StringRef fused = dsmOpName(best->kind);
  for (Operation *member : bestAbsorbed)
    claimFused(member, fused);
  if (bestChain.size() == 1) {
    FailureOr<Value> value = emitElementwise(
        best->view, best->kind, op->getLoc(), op->getResult(0).getType());
    if (failed(value))
      return failure();
    map(op->getResult(0), *value);
    setImported(op, dsmOpName(best->kind));
    return true;
  }
  // The chain's later operands may be computed between its ops: emit it at
  // its last op, when they all are imported.
  for (Operation *member : ArrayRef(bestChain).drop_back())
    claimFused(member, fused);
  setImported(op, dsmOpName(best->kind));
  pendingChains.try_emplace(bestChain.back(), std::move(*best));
  claimed.insert(bestChain.back());
  return true;
}

FailureOr<Value> Importer::emitProduct(const ElementwiseView &view) {
  SmallVector<unsigned> factors;
  bool fullSize = false;
  for (auto [index, operand] : llvm::enumerate(view.operands))
    if (view.function.dependsOn(index)) {
      factors.push_back(index);
      fullSize |= operand.map && isFullSize(view, index);
    }
  if (factors.size() < 3 || !fullSize ||
      !core::agreesWith(view.function, factors, [](ArrayRef<double> v) {
        double product = 1;
        for (double factor : v)
          product *= factor;
        return product;
      }))
    return Value();
  std::stable_partition(factors.begin(), factors.end(), [&](unsigned index) {
    return !isConstant(view.operands[index].value);
  });
  if (isConstant(view.operands[factors.front()].value))
    return Value();
  Location loc = view.op->getLoc();
  Type elementType = getDsmElementType(view.op->getResult(0).getType());
  if (!isa_and_present<FloatType>(elementType))
    return Value();
  FailureOr<Value> product = getViewOperand(view, factors.front(), Type(), "");
  if (succeeded(product))
    product = convertIntegerData(view.op, *product, elementType);
  if (failed(product))
    return failure();
  for (unsigned index : ArrayRef(factors).drop_front()) {
    FailureOr<Value> factor = getViewOperand(view, index, elementType, "scale");
    if (succeeded(factor))
      factor = convertIntegerData(view.op, *factor, elementType);
    if (failed(factor))
      return failure();
    FailureOr<MulOp> mul = create<MulOp>(loc, Type(), *product, *factor);
    if (failed(mul))
      return failure();
    product = mul->getResult();
  }
  return product;
}

FailureOr<bool> Importer::importReduce(Operation *op,
                                       const ReduceView &reduce) {
  FailureOr<bool> softmax = trySoftmax(op);
  if (failed(softmax) || *softmax)
    return softmax;
  FailureOr<Value> input = getActivation(reduce.input);
  if (failed(input))
    return failure();
  if (reduce.squares) {
    FailureOr<MulOp> square =
        create<MulOp>(op->getLoc(), Type(), *input, *input);
    if (failed(square))
      return failure();
    input = square->getResult();
  }
  ReduceKind kind = reduce.kind;
  auto inputType = cast<RankedTensorType>(input->getType());
  int64_t count = 1;
  for (int64_t axis : reduce.axes)
    count *= inputType.getDimSize(axis);
  std::optional<SmallVector<Operation *>> divisor;
  if (kind == ReduceKind::Sum && count > 1 &&
      (divisor = matchScaleBy(op->getResult(0), 1.0 / double(count))))
    kind = ReduceKind::Mean;
  FailureOr<ReduceOp> result =
      create<ReduceOp>(op->getLoc(), op->getResult(0).getType(), *input,
                       ReduceKindAttr::get(getContext(), kind),
                       builder.getDenseI64ArrayAttr(reduce.axes),
                       reduce.keepDims ? builder.getUnitAttr() : UnitAttr());
  if (failed(result))
    return failure();
  setImported(op, ReduceOp::getOperationName());
  map(op->getResult(0), result->getResult());
  if (divisor) {
    for (Operation *member : *divisor)
      claimFused(member, "dsm.reduce mean");
    map(divisor->back()->getResult(0), result->getResult());
  }
  return true;
}

LogicalResult Importer::emitPendingChain(Operation *op) {
  PendingChain pending = pendingChains.lookup(op);
  FailureOr<Value> value =
      emitElementwise(pending.view, pending.kind, pending.first->getLoc(),
                      op->getResult(0).getType());
  if (failed(value))
    return failure();
  map(op->getResult(0), *value);
  setOutcome(op, Outcome::Fused, ("into " + dsmOpName(pending.kind)).str());
  return success();
}

FailureOr<Value> Importer::emitElementwise(const ElementwiseView &view,
                                           const core::ElementwiseClass &c,
                                           Location loc, Type expected) {
  using K = core::ElementwiseKind;
  // Activations first: they give the element type constants are declared in.
  auto isConstant = [&](unsigned index) {
    return getConstantRoot(view.operands[index].value) != nullptr;
  };
  Type elementType;
  for (unsigned index : c.operands)
    if (!isConstant(index)) {
      FailureOr<Value> value = getActivation(view.operands[index].value);
      if (failed(value))
        return failure();
      elementType = getElementTypeOrSelf(value->getType());
      break;
    }
  // Integer data (a mask, positions) converted in the body enters the
  // arithmetic in the result's float type.
  if (Type resultType = getDsmElementType(expected);
      !elementType ||
      (isa<IntegerType>(elementType) && isa_and_present<FloatType>(resultType)))
    elementType = resultType;
  if (!elementType)
    return emitError(loc) << "cannot import an elementwise function of "
                             "constants only into type "
                          << expected;
  auto operand = [&](unsigned role, StringRef name) -> FailureOr<Value> {
    FailureOr<Value> value =
        getViewOperand(view, c.operands[role], elementType, name);
    if (failed(value))
      return failure();
    return convertIntegerData(view.op, *value, elementType);
  };
  auto expectedType = dyn_cast<RankedTensorType>(expected);

  FailureOr<Value> result = failure();
  switch (c.kind) {
  case K::Copy:
    result = operand(0, "constant");
    break;
  case K::Relu:
  case K::Sigmoid:
  case K::Tanh:
  case K::Gelu:
  case K::HardSigmoid:
  case K::HardSwish:
  case K::Exp:
  case K::Erf: {
    FailureOr<Value> x = operand(0, "constant");
    if (failed(x))
      return failure();
    FailureOr<Operation *> op = failure();
    auto make = [&](auto tag) -> FailureOr<Operation *> {
      using OpTy = decltype(tag);
      FailureOr<OpTy> created = create<OpTy>(loc, Type(), *x);
      if (failed(created))
        return failure();
      return created->getOperation();
    };
    switch (c.kind) {
    case K::Relu:
      op = make(ReluOp());
      break;
    case K::Sigmoid:
      op = make(SigmoidOp());
      break;
    case K::Tanh:
      op = make(TanhOp());
      break;
    case K::Gelu:
      op = make(GeluOp());
      break;
    case K::HardSigmoid:
      op = make(HardSigmoidOp());
      break;
    case K::Exp:
      op = make(ExpOp());
      break;
    case K::Erf:
      op = make(ErfOp());
      break;
    default:
      op = make(HardSwishOp());
      break;
    }
    if (failed(op))
      return failure();
    result = (*op)->getResult(0);
    break;
  }
  case K::Square: {
    // x * x: the piece of a variance or a mean square.
    FailureOr<Value> x = operand(0, "constant");
    if (failed(x))
      return failure();
    FailureOr<MulOp> square = create<MulOp>(loc, Type(), *x, *x);
    if (failed(square))
      return failure();
    result = square->getResult();
    break;
  }
  case K::Rsqrt:
  case K::Sqrt: {
    // (1 /) sqrt(scale * x + shift): the scale (a mean's 1 / n) as a
    // dsm.mul and the shift (an epsilon) as a dsm.add of constants, so that
    // the graph fusions see a normalization's pieces.
    FailureOr<Value> x = operand(0, "constant");
    if (failed(x))
      return failure();
    Value radicand = *x;
    if (c.scale != 1) {
      FailureOr<MulOp> scaled = create<MulOp>(
          loc, Type(), radicand,
          scalarConstant(getElementTypeOrSelf(x->getType()), c.scale, loc));
      if (failed(scaled))
        return failure();
      radicand = scaled->getResult();
    }
    if (c.shift != 0) {
      FailureOr<AddOp> add = create<AddOp>(
          loc, Type(), radicand,
          scalarConstant(getElementTypeOrSelf(x->getType()), c.shift, loc));
      if (failed(add))
        return failure();
      radicand = add->getResult();
    }
    FailureOr<Operation *> root = failure();
    if (c.kind == K::Rsqrt) {
      if (FailureOr<RsqrtOp> op = create<RsqrtOp>(loc, Type(), radicand);
          succeeded(op))
        root = op->getOperation();
    } else if (FailureOr<SqrtOp> op = create<SqrtOp>(loc, Type(), radicand);
               succeeded(op)) {
      root = op->getOperation();
    }
    if (failed(root))
      return failure();
    result = (*root)->getResult(0);
    break;
  }
  case K::Affine: {
    // scale * x + shift: a dsm.mul and a dsm.add of scalar constants (the
    // attention scale of a transformer, a negation), which the graph fusions
    // see as pieces.
    FailureOr<Value> x = operand(0, "constant");
    if (failed(x))
      return failure();
    Value value = *x;
    if (c.scale != 1) {
      FailureOr<MulOp> scaled = create<MulOp>(
          loc, Type(), value,
          scalarConstant(getElementTypeOrSelf(value.getType()), c.scale, loc));
      if (failed(scaled))
        return failure();
      value = scaled->getResult();
    }
    if (c.shift != 0) {
      FailureOr<AddOp> shifted = create<AddOp>(
          loc, Type(), value,
          scalarConstant(getElementTypeOrSelf(value.getType()), c.shift, loc));
      if (failed(shifted))
        return failure();
      value = shifted->getResult();
    }
    result = value;
    break;
  }
  case K::Silu:
  case K::GatedSilu: {
    // x * sigmoid(x) (times the up projection): dsm has no SiLU operation.
    FailureOr<Value> x = operand(0, "constant");
    if (failed(x))
      return failure();
    FailureOr<SigmoidOp> sigmoid = create<SigmoidOp>(loc, Type(), *x);
    if (failed(sigmoid))
      return failure();
    FailureOr<MulOp> product =
        create<MulOp>(loc, Type(), *x, sigmoid->getResult());
    if (failed(product))
      return failure();
    result = product->getResult();
    if (c.kind == K::GatedSilu) {
      FailureOr<Value> up = operand(1, "constant");
      if (failed(up))
        return failure();
      FailureOr<MulOp> gated = create<MulOp>(loc, Type(), *result, *up);
      if (failed(gated))
        return failure();
      result = gated->getResult();
    }
    break;
  }
  case K::Clamp: {
    FailureOr<Value> x = operand(0, "constant");
    if (failed(x))
      return failure();
    FailureOr<ClampOp> op =
        create<ClampOp>(loc, Type(), *x, builder.getF64FloatAttr(c.min),
                        builder.getF64FloatAttr(c.max));
    if (failed(op))
      return failure();
    result = op->getResult();
    break;
  }
  case K::Add:
  case K::Sub:
  case K::Mul:
  case K::Div: {
    StringRef role = c.kind == K::Add   ? "bias"
                     : c.kind == K::Mul ? "scale"
                                        : "constant";
    FailureOr<Value> lhs = operand(0, role);
    FailureOr<Value> rhs =
        succeeded(lhs) ? operand(1, role) : FailureOr<Value>(failure());
    if (failed(rhs))
      return failure();
    FailureOr<Operation *> op = failure();
    auto make = [&](auto tag) -> FailureOr<Operation *> {
      using OpTy = decltype(tag);
      FailureOr<OpTy> created = create<OpTy>(loc, Type(), *lhs, *rhs);
      if (failed(created))
        return failure();
      return created->getOperation();
    };
    op = c.kind == K::Add   ? make(AddOp())
         : c.kind == K::Sub ? make(SubOp())
         : c.kind == K::Mul ? make(MulOp())
                            : make(DivOp());
    if (failed(op))
      return failure();
    result = (*op)->getResult(0);
    break;
  }
  case K::BatchNorm: {
    // Every statistic must be one value per channel along a single axis.
    SmallVector<int64_t> aligned = getAlignedShape(view, c.operands[1]);
    int64_t axis = -1, channels = 1;
    for (auto [index, size] : llvm::enumerate(aligned))
      if (size != 1) {
        if (axis >= 0)
          axis = -2;
        else
          axis = index;
        channels = size;
      }
    bool perChannel = axis >= 0;
    for (unsigned role = 1; role < 5 && perChannel; ++role)
      perChannel = isConstant(c.operands[role]) &&
                   getAlignedShape(view, c.operands[role]) == aligned;
    if (!perChannel)
      return emitError(loc) << "batch normalization statistics must be "
                               "per-channel constants";
    if (axis >= 0 && expectedType &&
        int64_t(aligned.size()) < expectedType.getRank())
      axis += expectedType.getRank() - aligned.size();
    FailureOr<Value> x = operand(0, "constant");
    if (failed(x))
      return failure();
    SmallVector<Value, 4> params;
    const char *roles[] = {"scale", "offset", "mean", "variance"};
    for (unsigned role = 1; role < 5; ++role) {
      FailureOr<Value> param =
          getWeight(view.operands[c.operands[role]].value, {channels},
                    elementType, roles[role - 1]);
      if (failed(param))
        return failure();
      params.push_back(*param);
    }
    FailureOr<BatchNormOp> op = create<BatchNormOp>(
        loc, Type(), *x, params[0], params[1], params[2], params[3],
        builder.getF64FloatAttr(c.epsilon > 0 ? c.epsilon : 1e-12),
        builder.getI64IntegerAttr(axis));
    if (failed(op))
      return failure();
    result = op->getResult();
    break;
  }
  default:
    return emitError(loc) << "internal error: cannot emit a "
                          << core::stringifyElementwiseKind(c.kind);
  }
  if (failed(result))
    return failure();
  // A result smaller than the op's (a broadcast copy) is widened opaquely.
  auto type = cast<RankedTensorType>(result->getType());
  if (expectedType && expectedType.hasStaticShape() &&
      type.getShape() != expectedType.getShape()) {
    bool same = type.getNumElements() == expectedType.getNumElements();
    if (same)
      return reshape(loc, *result, expectedType.getShape());
    return createOpaque(view.op, 0, ValueRange{*result}, 0.0, "broadcast");
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Importer: softmax and means
//===----------------------------------------------------------------------===//

std::optional<SmallVector<Operation *>> Importer::matchScaleBy(Value value,
                                                               double scale) {
  if (!value.hasOneUse())
    return std::nullopt;
  Operation *user = *value.getUsers().begin();
  if (isClaimed(user))
    return std::nullopt;
  std::optional<ElementwiseView> view = getElementwise(user);
  if (!view)
    return std::nullopt;
  SmallVector<Operation *> absorbed;
  inlineProducers(*view, absorbed);
  if (!absorbed.empty())
    return std::nullopt;
  core::ElementwiseClass c = classify(*view);
  if (c.kind != core::ElementwiseKind::Affine || c.operands.size() != 1 ||
      view->operands[c.operands[0]].value != value ||
      std::fabs(c.scale - scale) > 1e-6 * std::fabs(scale) || c.shift != 0)
    return std::nullopt;
  return SmallVector<Operation *>{user};
}

std::optional<SmallVector<Operation *>> Importer::matchBinaryChain(
    Value start, Value a, Value b,
    llvm::function_ref<double(ArrayRef<double>)> expected, bool fullSize) {
  SmallVector<Operation *> chain;
  std::optional<ElementwiseView> composite;
  Value last = start;
  for (int step = 0; step < 3; ++step) {
    if (!last.hasOneUse())
      return std::nullopt;
    Operation *user = *last.getUsers().begin();
    std::optional<ElementwiseView> next = getElementwise(user);
    if (!next || isClaimed(user))
      return std::nullopt;
    unsigned index = ~0u;
    for (auto [i, operand] : llvm::enumerate(next->operands))
      if (operand.value == last && next->function.dependsOn(i))
        index = i;
    if (index == ~0u)
      return std::nullopt;
    if (composite) {
      if (fullSize && !isFullSize(*next, index))
        return std::nullopt;
      composite = compose(*composite, *next, index);
      if (!composite)
        return std::nullopt;
    } else {
      composite = std::move(next);
    }
    chain.push_back(user);
    last = user->getResult(0);
    // Done when the composite reads exactly `a` and `b` and computes
    // `expected` of them.
    SmallVector<unsigned> inputs(2, ~0u);
    bool clean = true;
    for (auto [i, operand] : llvm::enumerate(composite->operands)) {
      if (!composite->function.dependsOn(i))
        continue;
      if (operand.value == a && (!fullSize || isFullSize(*composite, i)))
        inputs[0] = i;
      else if (operand.value == b)
        inputs[1] = i;
      else
        clean = false;
    }
    if (clean && inputs[0] != ~0u && inputs[1] != ~0u &&
        core::agreesWith(composite->function, inputs, expected))
      return chain;
  }
  return std::nullopt;
}

FailureOr<bool> Importer::trySoftmax(Operation *op) {
  // Either max-reduce(x) -> exp(x - max), or exp(x) directly.
  Operation *maxOp = nullptr, *expOp = nullptr;
  SmallVector<Operation *> expChain;
  Value x;
  int64_t axis = 0;
  if (std::optional<ReduceView> reduce = getReduce(op)) {
    if (reduce->kind != ReduceKind::Max || reduce->axes.size() != 1 ||
        !op->getResult(0).hasOneUse())
      return false;
    maxOp = op;
    x = reduce->input;
    axis = reduce->axes[0];
    // exp(x - max), possibly as a subtraction then an exponential.
    std::optional<SmallVector<Operation *>> chain = matchBinaryChain(
        op->getResult(0), x, op->getResult(0),
        [](ArrayRef<double> v) { return std::exp(v[0] - v[1]); },
        /*fullSize=*/true);
    if (!chain)
      return false;
    expChain = std::move(*chain);
    expOp = expChain.back();
  } else if (std::optional<ElementwiseView> exp = getElementwise(op)) {
    core::ElementwiseClass c = classify(*exp);
    if (c.kind != core::ElementwiseKind::Exp)
      return false;
    expOp = op;
    x = exp->operands[c.operands[0]].value;
    if (!isFullSize(*exp, c.operands[0]))
      return false;
  } else {
    return false;
  }
  if (expOp->getNumResults() != 1 || isClaimed(expOp))
    return false;
  Value e = expOp->getResult(0);
  // exp feeds a sum over the same axis and the division.
  SmallVector<Operation *> users(e.getUsers());
  if (users.size() != 2)
    return false;
  Operation *sumOp = nullptr;
  for (Operation *user : users)
    if (std::optional<ReduceView> sum = getReduce(user);
        sum && sum->kind == ReduceKind::Sum && !sum->squares &&
        sum->input == e && sum->axes.size() == 1)
      sumOp = user;
  if (!sumOp || !sumOp->getResult(0).hasOneUse())
    return false;
  if (!maxOp)
    axis = getReduce(sumOp)->axes[0];
  else if (getReduce(sumOp)->axes[0] != axis)
    return false;
  Operation *divOp =
      llvm::find(users, sumOp) == users.begin() ? users[1] : users[0];
  // The division, possibly as reciprocal then multiply.
  Value s = sumOp->getResult(0);
  std::optional<SmallVector<Operation *>> division = matchBinaryChain(
      s, e, s, [](ArrayRef<double> v) { return v[0] / v[1]; },
      /*fullSize=*/false);
  if (!division || division->back() != divOp)
    return false;
  SmallVector<Operation *> chain = std::move(*division);

  FailureOr<Value> input = getActivation(x);
  if (failed(input))
    return failure();
  FailureOr<SoftmaxOp> softmax =
      create<SoftmaxOp>(op->getLoc(), divOp->getResult(0).getType(), *input,
                        builder.getI64IntegerAttr(axis));
  if (failed(softmax))
    return failure();
  map(divOp->getResult(0), softmax->getResult());
  setImported(op, SoftmaxOp::getOperationName());
  for (Operation *member : {maxOp, expOp, sumOp})
    if (member && member != op)
      claimFused(member, "dsm.softmax");
  for (Operation *member : expChain)
    claimFused(member, "dsm.softmax");
  for (Operation *member : chain)
    claimFused(member, "dsm.softmax");
  return true;
}

//===----------------------------------------------------------------------===//
// Module-level driver
//===----------------------------------------------------------------------===//

void dsm::nameImportedWeights(ModuleOp module) {
  llvm::StringMap<unsigned> perKind;
  module.walk([&](WorkloadOpInterface op) {
    std::string layer =
        getLayerName(op, perKind[op->getName().getStringRef()]++);
    for (Value operand : op->getOperands()) {
      auto weight = operand.getDefiningOp<WeightOp>();
      if (!weight)
        continue;
      auto role = weight->getAttrOfType<StringAttr>(kRoleAttr);
      if (!role)
        continue;
      weight.setName(layer + "." + role.getValue().str());
      weight->removeAttr(kRoleAttr);
    }
  });
  // Declarations no layer reads (cannot happen in practice) get their role.
  module.walk([&](WeightOp weight) {
    if (auto role = weight->getAttrOfType<StringAttr>(kRoleAttr)) {
      weight.setName(role.getValue());
      weight->removeAttr(kRoleAttr);
    }
  });
}

LogicalResult dsm::runImport(
    ModuleOp module, StringRef passName, const ImportOptions &options,
    function_ref<std::unique_ptr<Importer>(func::FuncOp, const ImportOptions &,
                                           ImportSummary::Unit &)>
        makeImporter) {
  if (failed(options.verify(module.getLoc())) ||
      failed(inlineLocalCalls(module)))
    return failure();
  ImportSummary summary(passName, options.mode);
  SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
  for (func::FuncOp func : funcs) {
    if (func.isExternal())
      continue;
    std::unique_ptr<Importer> importer =
        makeImporter(func, options, summary.addUnit(func.getSymName()));
    if (failed(importer->run()))
      return failure();
  }
  // Globals the model no longer reads (torch-mlir's @global_seed).
  for (Operation &op :
       llvm::make_early_inc_range(module.getBody()->getOperations()))
    if (isa<ml_program::GlobalOp>(op) &&
        SymbolTable::symbolKnownUseEmpty(&op, module))
      op.erase();
  nameImportedWeights(module);
  return summary.write(options.summary, module.getLoc());
}

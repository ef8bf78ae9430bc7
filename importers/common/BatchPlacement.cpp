//===- BatchPlacement.cpp - Which reshape dimension carries the batch -----===//

#include "dsm/Import/BatchPlacement.h"
#include "dsm/Dialect/DsmInterfaces.h"
#include "dsm/Dialect/DsmOps.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

#include <algorithm>

using namespace mlir;
using namespace dsm;

namespace {
/// Re-batches a function in place, op by op, and puts every type back.
class Probe {
public:
  Probe(func::FuncOp func, int64_t factor)
      : func(func), factor(factor), inputs(func.getBody()) {
    for (Operation &op : func.getBody().front().without_terminator()) {
      index[&op] = ops.size();
      ops.push_back(&op);
      std::optional<std::pair<int64_t, double>> work;
      if (auto w = dyn_cast<WorkloadOpInterface>(&op)) {
        core::Workload workload = w.getWorkloadGiven(inputs);
        work = {workload.macs, workload.auxOps};
      }
      base.push_back(work);
    }
  }

  /// The position (in program order) of the first op that does not
  /// re-batch exactly at `factor` times the batch: its type cannot be
  /// inferred, or its work neither stays nor scales by `factor`. -1 if
  /// every op does.
  int64_t run();

  ArrayRef<Operation *> getOps() const { return ops; }
  size_t position(Operation *op) const { return index.lookup(op); }

private:
  int64_t firstFailure();
  void retype(Value value, Type type) {
    if (value.getType() == type)
      return;
    oldTypes.try_emplace(value, value.getType());
    value.setType(type);
  }
  Type oldTypeOf(Value value) const {
    auto it = oldTypes.find(value);
    return it == oldTypes.end() ? value.getType() : it->second;
  }
  /// dsm.opaque as --dsm-set-batch re-batches it: elementwise (its result
  /// the broadcast of its inputs) or shaped like its first input.
  bool rebatchOpaque(OpaqueOp op);

  func::FuncOp func;
  int64_t factor;
  /// Residual or bias adds, told apart once (the re-batching keeps them).
  InputDependence inputs;
  SmallVector<Operation *> ops;
  DenseMap<Operation *, size_t> index;
  SmallVector<std::optional<std::pair<int64_t, double>>> base;
  DenseMap<Value, Type> oldTypes;
};
} // namespace

bool Probe::rebatchOpaque(OpaqueOp op) {
  auto broadcast = [&](auto typeOf) -> std::optional<SmallVector<int64_t>> {
    SmallVector<int64_t> shape;
    for (Value input : op.getInputs()) {
      auto type = dyn_cast<RankedTensorType>(typeOf(input));
      SmallVector<int64_t> next;
      if (!type ||
          !OpTrait::util::getBroadcastedShape(shape, type.getShape(), next))
        return std::nullopt;
      shape = next;
    }
    return shape;
  };
  auto result = cast<RankedTensorType>(op.getResult().getType());
  std::optional<SmallVector<int64_t>> before =
      broadcast([&](Value v) { return oldTypeOf(v); });
  if (before && ArrayRef<int64_t>(*before) == result.getShape()) {
    std::optional<SmallVector<int64_t>> after =
        broadcast([](Value v) { return v.getType(); });
    if (!after)
      return false;
    retype(op.getResult(), result.clone(*after));
    return true;
  }
  if (!op.getInputs().empty() && oldTypeOf(op.getInputs()[0]) == Type(result)) {
    auto into = cast<RankedTensorType>(op.getInputs()[0].getType());
    retype(op.getResult(), result.clone(into.getShape()));
    return true;
  }
  return false;
}

int64_t Probe::firstFailure() {
  for (BlockArgument arg : func.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || type.getRank() == 0)
      continue;
    SmallVector<int64_t> shape(type.getShape());
    shape[0] *= factor;
    retype(arg, type.clone(shape));
  }
  for (auto [position, op] : llvm::enumerate(ops)) {
    if (llvm::none_of(op->getOperands(),
                      [&](Value v) { return oldTypes.count(v); }))
      continue;
    if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
      SmallVector<Type> types;
      if (failed(infer.inferReturnTypes(
              op->getContext(), std::nullopt, op->getOperands(),
              op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
              op->getRegions(), types)) ||
          types.size() != op->getNumResults())
        return position;
      for (auto [result, type] : llvm::zip(op->getResults(), types))
        retype(result, type);
    } else if (auto opaque = dyn_cast<OpaqueOp>(op)) {
      if (!rebatchOpaque(opaque))
        return position;
    } else {
      return position;
    }
    if (!base[position])
      continue;
    auto w = cast<WorkloadOpInterface>(op);
    if (w.workloadOverflows())
      return position;
    core::Workload now = w.getWorkloadGiven(inputs);
    auto [macs, aux] = *base[position];
    if ((now.macs != macs && now.macs != macs * factor) ||
        (now.auxOps != aux && now.auxOps != aux * double(factor)))
      return position;
  }
  return -1;
}

int64_t Probe::run() {
  // Rejected shapes are answers here, not errors.
  ScopedDiagnosticHandler silence(func.getContext(),
                                  [](Diagnostic &) { return success(); });
  int64_t failure = firstFailure();
  for (auto [value, type] : oldTypes)
    value.setType(type);
  oldTypes.clear();
  return failure;
}

/// The encodings a reshape to `shape` may have: the batch in each output
/// dimension (-1 there, the others as they are), or nowhere (a reshape of
/// data that does not follow the batch).
static SmallVector<SmallVector<int64_t>> candidates(ArrayRef<int64_t> shape) {
  SmallVector<SmallVector<int64_t>> encodings;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] < 1)
      continue;
    SmallVector<int64_t> encoding(shape);
    encoding[k] = -1;
    encodings.push_back(std::move(encoding));
  }
  encodings.emplace_back(shape);
  return encodings;
}

unsigned dsm::placeBatchInReshapes(func::FuncOp func) {
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return 0;
  // Only functions whose inputs all lead with one batch, and that have
  // reshapes to place it in.
  std::optional<int64_t> batch;
  for (BlockArgument arg : func.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !type.hasStaticShape() ||
        func.getArgAttr(arg.getArgNumber(), "dsm.batch_dim"))
      return 0;
    if (type.getRank() == 0)
      continue;
    if (batch && *batch != type.getDimSize(0))
      return 0;
    batch = type.getDimSize(0);
  }
  SmallVector<ReshapeOp> reshapes(func.getOps<ReshapeOp>());
  if (!batch || *batch < 1 || reshapes.empty())
    return 0;

  Probe probe(func, /*factor=*/2);
  int64_t failure = probe.run();
  if (failure < 0)
    return 0;

  // Reshapes written by the same code (the same shapes and encoding: the
  // same view in every attention layer) are placed together.
  using Key = std::tuple<Type, Type, Attribute>;
  llvm::MapVector<Key, SmallVector<ReshapeOp>> groups;
  DenseMap<Operation *, size_t> groupOf;
  for (ReshapeOp reshape : reshapes) {
    Key key{reshape.getInput().getType(), reshape.getType(),
            reshape.getShapeAttr()};
    groups[key].push_back(reshape);
  }
  for (auto [g, entry] : llvm::enumerate(groups))
    for (ReshapeOp reshape : entry.second)
      groupOf[reshape] = g;
  SmallVector<DenseI64ArrayAttr> original;
  for (ReshapeOp reshape : reshapes)
    original.push_back(reshape.getShapeAttr());
  auto setGroup = [&](size_t g, DenseI64ArrayAttr encoding) {
    for (ReshapeOp reshape : groups.begin()[g].second)
      reshape.setShapeAttr(encoding);
  };

  Builder builder(func.getContext());
  constexpr size_t kGroupsTried = 6;
  for (size_t step = 0; step < probe.getOps().size() && failure >= 0; ++step) {
    // The reshapes the failing op reads from, nearest first.
    SmallVector<size_t> cone;
    DenseSet<Operation *> seen;
    SmallVector<Operation *> work{probe.getOps()[failure]};
    SmallVector<Operation *> found;
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      if (!seen.insert(op).second)
        continue;
      if (isa<ReshapeOp>(op))
        found.push_back(op);
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && def->getBlock() == op->getBlock())
          work.push_back(def);
    }
    llvm::sort(found, [&](Operation *a, Operation *b) {
      return probe.position(a) > probe.position(b);
    });
    for (Operation *op : found)
      if (!llvm::is_contained(cone, groupOf[op]) && cone.size() < kGroupsTried)
        cone.push_back(groupOf[op]);

    // The placement that lets re-batching go furthest.
    int64_t best = failure;
    std::optional<std::pair<size_t, DenseI64ArrayAttr>> choice;
    for (size_t g : cone) {
      ReshapeOp first = groups.begin()[g].second.front();
      DenseI64ArrayAttr current = first.getShapeAttr();
      for (const SmallVector<int64_t> &encoding :
           candidates(first.getType().getShape())) {
        DenseI64ArrayAttr attr = builder.getDenseI64ArrayAttr(encoding);
        if (attr == current)
          continue;
        setGroup(g, attr);
        int64_t reached = probe.run();
        setGroup(g, current);
        if (reached < 0 || reached > best) {
          best = reached < 0 ? int64_t(probe.getOps().size()) : reached;
          choice = {g, attr};
          if (reached < 0)
            break;
        }
      }
      if (choice && best == int64_t(probe.getOps().size()))
        break;
    }
    if (!choice)
      break;
    setGroup(choice->first, choice->second);
    failure = best == int64_t(probe.getOps().size()) ? -1 : best;
  }

  unsigned changed = 0;
  for (auto [reshape, attr] : llvm::zip(reshapes, original)) {
    if (failure >= 0)
      reshape.setShapeAttr(attr); // no exact re-batching found: as written
    else
      changed += reshape.getShapeAttr() != attr;
  }
  return changed;
}

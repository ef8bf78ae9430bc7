//===- InlineCalls.cpp - Calls between a module's functions, inlined ------===//
//
// Front ends (torch-mlir, IREE, TF) may write a model as functions calling
// functions; the importers see one function per model. Inlining is planned
// before it is done: one depth-first walk of the call graph finds recursion
// and counts, per function, the operations it becomes once every call in it
// is inlined (saturating at the budget), so a call DAG that would expand
// exponentially is refused before a single operation is cloned. Then only
// the models (the functions nothing calls) are expanded, top down, each call
// once: a chain of N calls clones N bodies, where inlining into every
// function along the chain would clone N^2/2.
//
//===----------------------------------------------------------------------===//

#include "dsm/Import/Importer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace dsm;

namespace {

/// A function of the module with a body, as the plan sees it.
struct Callable {
  func::FuncOp func;
  /// Its calls to functions of the module with a body, in walk order.
  SmallVector<func::CallOp> calls;
  /// The index in `functions` of each call's callee.
  SmallVector<size_t> callees;
  /// The operations it clones into a caller, calls excluded: everything but
  /// its terminator, nested operations included.
  uint64_t ownOps = 0;
  /// The operations it clones into a caller once its calls are inlined too,
  /// saturated at budget + 1.
  uint64_t expandedOps = 0;
  /// Depth-first state: 0 not seen, 1 on the walk's stack, 2 counted.
  int state = 0;
  /// Called by another function of the module.
  bool called = false;
};

uint64_t saturatingAdd(uint64_t a, uint64_t b, uint64_t cap) {
  return a > cap || b > cap || a + b > cap ? cap : a + b;
}

class CallPlan {
public:
  CallPlan(ModuleOp module, uint64_t budget) : module(module), budget(budget) {}

  LogicalResult run() {
    SymbolTable table(module);
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal()) {
        index[func] = functions.size();
        functions.emplace_back();
        functions.back().func = func;
      }
    bool anyCall = false;
    for (Callable &callable : functions) {
      Operation *terminator = callable.func.getBody().back().getTerminator();
      callable.func.getBody().walk([&](Operation *op) {
        if (auto call = dyn_cast<func::CallOp>(op)) {
          auto callee = table.lookup<func::FuncOp>(call.getCallee());
          if (callee && !callee.isExternal()) {
            callable.calls.push_back(call);
            callable.callees.push_back(index.lookup(callee));
            anyCall = true;
            return;
          }
        }
        if (op != terminator)
          ++callable.ownOps;
      });
    }
    if (!anyCall)
      return success();
    for (size_t f = 0; f < functions.size(); ++f)
      if (functions[f].state == 0 && failed(count(f)))
        return failure();
    for (Callable &callable : functions)
      for (size_t callee : callable.callees)
        functions[callee].called = true;

    // The models are the functions nothing calls; a called function that
    // is also named elsewhere (not by a call) stays and is expanded too.
    llvm::DenseSet<StringAttr> named;
    for (Operation &op : module.getBody()->getOperations())
      if (std::optional<SymbolTable::UseRange> uses =
              SymbolTable::getSymbolUses(&op))
        for (const SymbolTable::SymbolUse &use : *uses)
          if (!isa<func::CallOp>(use.getUser()))
            named.insert(use.getSymbolRef().getRootReference());
    SmallVector<size_t> roots;
    for (auto [f, callable] : llvm::enumerate(functions))
      if (!callable.called || named.contains(callable.func.getSymNameAttr()))
        roots.push_back(f);

    // The budget, call by call, before anything is cloned.
    uint64_t created = 0;
    for (size_t root : roots)
      for (auto [call, callee] :
           llvm::zip_equal(functions[root].calls, functions[root].callees)) {
        created =
            saturatingAdd(created, functions[callee].expandedOps, budget + 1);
        if (created > budget)
          return call.emitError()
                 << "cannot inline @" << call.getCallee()
                 << ": the module's calls would expand into more than "
                 << budget << " operations, the most an import inlines";
      }

    for (size_t root : roots)
      expand(functions[root]);
    for (Callable &callable : functions)
      if (callable.called && !named.contains(callable.func.getSymNameAttr()))
        callable.func.erase();
    return success();
  }

private:
  /// Counts the expanded size of function `start` and of everything it
  /// calls, without recursion in C++ (a chain of calls may be long).
  LogicalResult count(size_t start) {
    // (function, index of the next call to visit)
    SmallVector<std::pair<size_t, size_t>> stack{{start, 0}};
    functions[start].state = 1;
    while (!stack.empty()) {
      auto &[f, next] = stack.back();
      Callable &callable = functions[f];
      if (next == callable.calls.size()) {
        uint64_t total = callable.ownOps;
        for (size_t callee : callable.callees)
          total =
              saturatingAdd(total, functions[callee].expandedOps, budget + 1);
        callable.expandedOps = total;
        callable.state = 2;
        stack.pop_back();
        continue;
      }
      func::CallOp call = callable.calls[next];
      size_t calleeIndex = callable.callees[next++];
      Callable &callee = functions[calleeIndex];
      if (callee.state == 1)
        return recursionError(call, calleeIndex, stack);
      if (!callee.func.getBody().hasOneBlock())
        return call.emitError() << "cannot inline @" << callee.func.getSymName()
                                << ": it has control flow";
      if (callee.state == 0) {
        callee.state = 1;
        stack.push_back({calleeIndex, 0});
      }
    }
    return success();
  }

  /// `call`, in the function on top of `stack`, calls a function already on
  /// it: names the cycle, from that function round to it again.
  LogicalResult recursionError(func::CallOp call, size_t callee,
                               ArrayRef<std::pair<size_t, size_t>> stack) {
    InFlightDiagnostic diag = call.emitError()
                              << "cannot import recursive calls: ";
    size_t from = 0;
    while (stack[from].first != callee)
      ++from;
    if (from + 1 == stack.size()) {
      diag << "@" << functions[callee].func.getSymName() << " calls itself";
      return diag;
    }
    for (size_t i = from; i < stack.size(); ++i)
      diag << "@" << functions[stack[i].first].func.getSymName()
           << (i == from ? " calls " : ", which calls ");
    diag << "@" << functions[callee].func.getSymName();
    return diag;
  }

  /// Inlines every call in `callable`, and every call those bring, until
  /// none is left.
  void expand(Callable &callable) {
    SmallVector<func::CallOp> work(callable.calls.rbegin(),
                                   callable.calls.rend());
    SymbolTable table(module);
    while (!work.empty()) {
      func::CallOp call = work.pop_back_val();
      auto callee = table.lookup<func::FuncOp>(call.getCallee());
      Block &body = callee.getBody().front();
      IRMapping mapping;
      mapping.map(body.getArguments(), call.getOperands());
      OpBuilder builder(call);
      for (Operation &op : body.without_terminator()) {
        Operation *clone = builder.clone(op, mapping);
        clone->walk([&](func::CallOp inner) {
          auto target = table.lookup<func::FuncOp>(inner.getCallee());
          if (target && !target.isExternal())
            work.push_back(inner);
        });
      }
      for (auto [result, returned] : llvm::zip_equal(
               call.getResults(), body.getTerminator()->getOperands()))
        result.replaceAllUsesWith(mapping.lookupOrDefault(returned));
      call.erase();
    }
  }

  ModuleOp module;
  uint64_t budget;
  std::vector<Callable> functions;
  llvm::DenseMap<Operation *, size_t> index;
};

} // namespace

LogicalResult dsm::inlineLocalCalls(ModuleOp module, uint64_t budget) {
  return CallPlan(module, budget).run();
}

//===- ParallelismSelection.h - One choice per layer, jointly ---*- C++ -*-===//
//
// DeepSpatialMatrix chooses each layer's parallelism, but switching parallelism
// between a producer and its consumer costs a relayout, so the best choice per
// layer is not always the best for the network. This picks one option per node
// of a DAG (layers in topological order) minimizing the nodes' costs plus the
// edges' switching costs (a pairwise min-sum problem), in one of two exact
// ways:
//
// - a dynamic program over the nodes in order whose state is the option of
//   every node a later node still reads (a residual shortcut, an attention
//   memory), when those states never number more than `maxStates`: linear
//   in the nodes on chains, residual and transformer graphs;
// - otherwise variable elimination (bucket elimination): nodes are
//   eliminated fewest-neighbours first, each leaving a table over its
//   neighbours minimized over its options, and the choices are read back in
//   reverse. Nested (U-Net) skips are series-parallel, so every table spans
//   at most two nodes: O(N K^3) time and O(N K^2) memory for K options.
//
// Only a graph too wide for elimination (a table of more than
// `maxFactorEntries`) goes to the dynamic program anyway, which then keeps
// the `maxStates` cheapest states per step and says the result is not exact.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SPATIAL_PARALLELISMSELECTION_H
#define DSM_CORE_SPATIAL_PARALLELISMSELECTION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace dsm::core {

/// The cost of each option of one node (every node has the same options:
/// the mapper's are a parallelism with a DySM factor).
using OptionCosts = std::vector<double>;
/// cost[from option][to option] of one edge, in one block of memory: a
/// network has an edge per pair of layers that talk, and a selection (and
/// the memo of selections) holds them all. Copies share the block until one
/// is written through (copy on write), and shareEqualSwitchCosts makes the
/// equal costs of a network's many alike edges one block: a network of
/// repeated blocks then holds a few, and equal edges compare at once.
class SwitchCosts {
public:
  SwitchCosts() = default;
  SwitchCosts(size_t numOptions, double value)
      : n(numOptions), values(std::make_shared<std::vector<double>>(
                           numOptions * numOptions, value)) {}

  size_t size() const { return n; }
  /// The costs from option `from` to each option.
  double *operator[](size_t from) { return own().data() + from * n; }
  const double *operator[](size_t from) const {
    return values ? values->data() + from * n : nullptr;
  }
  /// Every cost, row by row.
  llvm::MutableArrayRef<double> entries() { return own(); }
  llvm::ArrayRef<double> entries() const {
    return values ? llvm::ArrayRef<double>(*values) : llvm::ArrayRef<double>();
  }
  /// The block the costs are in: equal for copies and for costs made one
  /// by shareEqualSwitchCosts.
  const void *block() const { return values.get(); }

  bool operator==(const SwitchCosts &other) const {
    return n == other.n &&
           (values == other.values || entries() == other.entries());
  }
  bool operator!=(const SwitchCosts &other) const { return !(*this == other); }

private:
  friend void shareEqualSwitchCosts(llvm::MutableArrayRef<SwitchCosts *>);
  /// The block, this one's alone, to write to.
  std::vector<double> &own() {
    if (!values)
      values = std::make_shared<std::vector<double>>();
    else if (values.use_count() > 1)
      values = std::make_shared<std::vector<double>>(*values);
    return *values;
  }

  size_t n = 0;
  std::shared_ptr<std::vector<double>> values;
};

/// Makes every set of equal costs among `costs` one block.
void shareEqualSwitchCosts(llvm::MutableArrayRef<SwitchCosts *> costs);

/// Adds terms to edges' costs edge by edge, so that costs that were one
/// block and get the same terms are one block again: a network's repeated
/// blocks copy their costs once per distinct result, not once per edge,
/// and shareEqualSwitchCosts then finds them shared already.
class SwitchCostTerms {
public:
  /// Adds to `cost` what `apply` adds to it, which depends on nothing but
  /// `cost` and `terms` (compared bit for bit).
  void add(SwitchCosts &cost, llvm::ArrayRef<double> terms,
           llvm::function_ref<void(SwitchCosts &)> apply);

private:
  struct Result {
    /// The costs before the terms, held: their block keeps its address
    /// for the adder's life (no other block takes it) and is never
    /// written in place.
    SwitchCosts before;
    std::vector<double> terms;
    SwitchCosts after;
  };
  /// By a hash of the block and the terms.
  std::unordered_map<uint64_t, std::vector<Result>> results;
};

/// `numOptions` x `numOptions` switching costs, all `value`.
inline SwitchCosts makeSwitchCosts(size_t numOptions, double value = 0) {
  return SwitchCosts(numOptions, value);
}

struct SelectionEdge {
  int from = 0; ///< producer node; from < to
  int to = 0;
  SwitchCosts cost;
};

struct Selection {
  std::vector<int> choice; ///< an option per node
  double cost = 0;         ///< nodes' and edges' costs of that choice
  bool exact = true;       ///< false if states had to be pruned to maxStates
};

/// Chooses an option per node. Every node has nodeCost[0].size() options and
/// every edge that many squared; `nodeCost[i][o]` is infinity where option o
/// is not possible for node i; every node must have a finite option.
/// `maxStates` bounds the live-state set per step, `maxFactorEntries` the
/// tables of variable elimination (see the file comment). Ties are broken
/// by a fixed order (never a hash order): the same input, the same choice.
///
/// `farClasses` (0: none) says that an edge between nodes more than one
/// apart costs the same for every producer option of one class (option %
/// farClasses) -- the mapper's options are a parallelism and a DySM factor,
/// and only the next layer can reuse data on chip, so a shortcut's cost
/// depends on the parallelism alone. A node still read by such an edge is
/// then remembered by its class, keeping the state space that of the
/// classes on graphs with shortcuts. (Elimination reads the full tables and
/// needs no such promise.)
/// Selections kept for reuse where a problem is solved again with the same
/// costs (a weight-preloading sweep's scenarios often are): the same costs,
/// compared exactly, give the same selection. Keeps the few most recently
/// stored or found.
class SelectionMemo {
public:
  const Selection *find(const std::vector<OptionCosts> &nodeCost,
                        const std::vector<SelectionEdge> &edges);
  void store(const std::vector<OptionCosts> &nodeCost,
             const std::vector<SelectionEdge> &edges,
             const Selection &selection);

private:
  struct Entry {
    std::vector<OptionCosts> nodeCost;
    std::vector<SelectionEdge> edges;
    Selection selection;
  };
  std::vector<Entry> entries; ///< the most recent last
};

Selection selectOptions(const std::vector<OptionCosts> &nodeCost,
                        const std::vector<SelectionEdge> &edges,
                        size_t maxStates = 4096, int farClasses = 0,
                        size_t maxFactorEntries = size_t(1) << 16);

/// At most the cost of every choice, as a selection sums it: each node's
/// least option plus each edge's least switch (a switch may save, below
/// zero), less what rounding may take off a sum of that many terms. A
/// selection that cannot beat a bound below this need not be made.
double selectionCostLowerBound(const std::vector<OptionCosts> &nodeCost,
                               const std::vector<SelectionEdge> &edges);

/// A selection made under a capacity: the choice, the costs it was made
/// with (the base plus the price of every byte) and its cost without the
/// price.
struct PricedSelection {
  Selection selection;
  std::vector<OptionCosts> costs;
  double cycles = 0;
};

/// The selection `select` makes over `base` costs with every byte of each
/// (node, option) given the least price (cycles per byte) at which the
/// choice `fits`: a Lagrangian relaxation of the capacity, so the plan
/// fits and no plan is both faster and holds no more bytes, but it is not
/// proven the fastest that fits. The price walks up factors of 4 from the
/// unpriced cost per byte of `capacity`, then through the crossings of the
/// plans' cost lines. nullopt when even the choice of every node's fewest
/// bytes does not fit, or when no plan that fits can take fewer than `bound`
/// cycles: `room` is the most bytes of a plan that fits, so at a price
/// such a plan takes at least the priced selection's cost less price x
/// room (the Lagrangian dual; at price 0, the unpriced selection's cost).
/// `unpriced`: the selection over `base` if made already. `interrupted` is
/// asked between selections; its error stops.
/// Used by the mapper's CapacityFit (lib/Spatial/CapacityFit.cpp).
llvm::Expected<std::optional<PricedSelection>> selectByPricing(
    const std::vector<OptionCosts> &base,
    llvm::function_ref<Selection(const std::vector<OptionCosts> &)> select,
    llvm::function_ref<double(size_t node, int option)> bytes,
    llvm::function_ref<bool(llvm::ArrayRef<int> choice)> fits, double capacity,
    double room, double bound, const Selection *unpriced,
    llvm::function_ref<llvm::Error()> interrupted);

} // namespace dsm::core

#endif // DSM_CORE_SPATIAL_PARALLELISMSELECTION_H

//===- ParallelismSelection.h - One choice per layer, jointly ---*- C++ -*-===//
//
// 000 chooses each layer's parallelism, but switching parallelism between a
// producer and its consumer costs a relayout, so the best choice per layer is
// not always the best for the network. This picks one option per node of a
// DAG (layers in topological order) minimizing the nodes' costs plus the
// edges' switching costs, by dynamic programming over the nodes in order.
// The state is the option of every node whose output a later node still
// reads (a residual shortcut, an attention memory), which makes the result
// exact; when too many are live at once the cheapest states are kept.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_PARALLELISMSELECTION_H
#define DSM_CORE_PARALLELISMSELECTION_H

#include <array>
#include <cstddef>
#include <vector>

namespace dsm::core {

/// Options per node (the four parallelisms).
constexpr int kNumOptions = 4;
using OptionCosts = std::array<double, kNumOptions>;
/// cost[from option][to option] of one edge.
using SwitchCosts = std::array<OptionCosts, kNumOptions>;

struct SelectionEdge {
  int from = 0; ///< producer node; from < to
  int to = 0;
  SwitchCosts cost{};
};

struct Selection {
  std::vector<int> choice; ///< an option per node
  double cost = 0;         ///< nodes' and edges' costs of that choice
  bool exact = true;       ///< false if states had to be pruned
};

/// Chooses an option per node. `nodeCost[i][o]` is infinity where option o
/// is not possible for node i; every node must have a finite option.
/// `maxStates` bounds the live-state set per step.
Selection selectOptions(const std::vector<OptionCosts> &nodeCost,
                        const std::vector<SelectionEdge> &edges,
                        size_t maxStates = 4096);

} // namespace dsm::core

#endif // DSM_CORE_PARALLELISMSELECTION_H

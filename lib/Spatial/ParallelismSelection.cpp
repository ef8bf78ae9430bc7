//===- ParallelismSelection.cpp - One choice per layer, jointly -----------===//

#include "dsm/Core/Spatial/ParallelismSelection.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <utility>

using namespace dsm::core;

Selection dsm::core::selectOptions(const std::vector<OptionCosts> &nodeCost,
                                   const std::vector<SelectionEdge> &edges,
                                   size_t maxStates, int farClasses) {
  const size_t n = nodeCost.size();
  const int numOptions = n ? int(nodeCost.front().size()) : 0;
  std::vector<int> lastUse(n, -1);
  std::vector<std::vector<const SelectionEdge *>> incoming(n);
  for (const SelectionEdge &edge : edges) {
    lastUse[edge.from] = std::max(lastUse[edge.from], edge.to);
    incoming[edge.to].push_back(&edge);
  }

  // A state: the option of every node still to be read, sorted by node.
  using Live = std::vector<std::pair<int, int>>;
  struct State {
    Live live;
    double cost = 0;
    int parent = -1; ///< index in the previous stage
    int option = -1; ///< this node's option
  };
  Selection result;
  std::vector<std::vector<State>> stages(n + 1);
  stages[0].push_back(State());
  for (size_t i = 0; i < n; ++i) {
    std::map<Live, int> index;
    std::vector<State> &next = stages[i + 1];
    for (size_t s = 0; s < stages[i].size(); ++s) {
      const State &state = stages[i][s];
      for (int option = 0; option < numOptions; ++option) {
        if (!std::isfinite(nodeCost[i][option]))
          continue;
        double cost = state.cost + nodeCost[i][option];
        for (const SelectionEdge *edge : incoming[i]) {
          auto it =
              std::find_if(state.live.begin(), state.live.end(),
                           [&](auto &l) { return l.first == edge->from; });
          if (it != state.live.end())
            cost += edge->cost[it->second][option];
        }
        // Nodes before i are read from here on only by nodes at least two
        // after them: their class is all that matters.
        Live live;
        for (auto l : state.live)
          if (lastUse[l.first] > int(i))
            live.push_back(
                {l.first, farClasses > 0 ? l.second % farClasses : l.second});
        if (lastUse[i] > int(i))
          live.push_back({int(i), option});
        auto [it, inserted] = index.try_emplace(live, int(next.size()));
        if (inserted)
          next.push_back({std::move(live), cost, int(s), option});
        else if (cost < next[it->second].cost)
          next[it->second] = {next[it->second].live, cost, int(s), option};
      }
    }
    if (next.size() > maxStates) {
      // Keep the cheapest states, ties in the order they were found (a stable
      // order without std::stable_sort, whose temporary buffer libstdc++ 12
      // implements with the deprecated get_temporary_buffer).
      std::vector<size_t> order(next.size());
      std::iota(order.begin(), order.end(), size_t(0));
      std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return next[a].cost < next[b].cost ||
               (next[a].cost == next[b].cost && a < b);
      });
      order.resize(maxStates);
      std::vector<State> kept;
      kept.reserve(maxStates);
      for (size_t i : order)
        kept.push_back(std::move(next[i]));
      next = std::move(kept);
      result.exact = false;
    }
  }

  const std::vector<State> &last = stages[n];
  int s = int(std::min_element(last.begin(), last.end(),
                               [](const State &a, const State &b) {
                                 return a.cost < b.cost;
                               }) -
              last.begin());
  result.cost = last[s].cost;
  result.choice.assign(n, 0);
  for (size_t i = n; i > 0; --i) {
    result.choice[i - 1] = stages[i][s].option;
    s = stages[i][s].parent;
  }
  return result;
}

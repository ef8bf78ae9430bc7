//===- ParallelismSelection.cpp - One choice per layer, jointly -----------===//

#include "dsm/Core/Spatial/ParallelismSelection.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>
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
  // Only the current stage's live lists are kept; every stage keeps its
  // states' cost, parent and option for the way back.
  using Live = std::vector<std::pair<int, int>>;
  struct LiveHash {
    size_t operator()(const Live &live) const {
      size_t h = live.size();
      for (auto [node, option] : live)
        h = (h ^ (size_t(node) * 0x9e3779b97f4a7c15ULL + size_t(option))) *
            0xff51afd7ed558ccdULL;
      return h;
    }
  };
  struct State {
    double cost = 0;
    int parent = -1; ///< index in the previous stage
    int option = -1; ///< this node's option
  };
  Selection result;
  std::vector<std::vector<State>> stages(n + 1);
  stages[0].push_back(State());
  std::vector<Live> lives(1);
  for (size_t i = 0; i < n; ++i) {
    std::unordered_map<Live, int, LiveHash> index;
    index.reserve(stages[i].size() * size_t(numOptions));
    std::vector<State> &next = stages[i + 1];
    std::vector<Live> nextLives;
    std::vector<int> producerOption(incoming[i].size());
    Live staying, live;
    for (size_t s = 0; s < stages[i].size(); ++s) {
      const State &state = stages[i][s];
      const Live &stateLive = lives[s];
      // What this state says of node i's producers, and what stays live
      // past node i whatever its option. Nodes before i are read from here
      // on only by nodes at least two after them: their class is all that
      // matters.
      for (size_t e = 0; e < incoming[i].size(); ++e) {
        auto it =
            std::find_if(stateLive.begin(), stateLive.end(), [&](auto &l) {
              return l.first == incoming[i][e]->from;
            });
        producerOption[e] = it != stateLive.end() ? it->second : -1;
      }
      staying.clear();
      for (auto l : stateLive)
        if (lastUse[l.first] > int(i))
          staying.push_back(
              {l.first, farClasses > 0 ? l.second % farClasses : l.second});
      for (int option = 0; option < numOptions; ++option) {
        if (!std::isfinite(nodeCost[i][option]))
          continue;
        double cost = state.cost + nodeCost[i][option];
        for (size_t e = 0; e < incoming[i].size(); ++e)
          if (producerOption[e] >= 0)
            cost += incoming[i][e]->cost[producerOption[e]][option];
        // The key is built in a reused buffer and copied only when new.
        live.assign(staying.begin(), staying.end());
        if (lastUse[i] > int(i))
          live.push_back({int(i), option});
        auto it = index.find(live);
        if (it == index.end()) {
          index.emplace(live, int(next.size()));
          next.push_back({cost, int(s), option});
          nextLives.push_back(live);
        } else if (cost < next[it->second].cost) {
          next[it->second] = {cost, int(s), option};
        }
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
      std::vector<Live> keptLives;
      kept.reserve(maxStates);
      keptLives.reserve(maxStates);
      for (size_t k : order) {
        kept.push_back(next[k]);
        keptLives.push_back(std::move(nextLives[k]));
      }
      next = std::move(kept);
      nextLives = std::move(keptLives);
      result.exact = false;
    }
    lives = std::move(nextLives);
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

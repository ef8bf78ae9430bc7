//===- ParallelismSelection.cpp - One choice per layer, jointly -----------===//

#include "dsm/Core/Spatial/ParallelismSelection.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

using namespace dsm::core;

namespace {

/// The dynamic program in topological order over the options of the nodes
/// still to be read (the live states), pruned to the `maxStates` cheapest.
Selection selectByLiveStates(const std::vector<OptionCosts> &nodeCost,
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
    // A next state is what stays live past node i plus, if a later node
    // reads node i, its option: states with the same staying part share
    // it, so each distinct staying part is looked up once per state (not
    // once per option) and the next state found by its (part, option) slot.
    const bool nodeStaysLive = lastUse[i] > int(i);
    const int slotsPerPart = nodeStaysLive ? numOptions : 1;
    std::unordered_map<Live, int, LiveHash> partIndex;
    partIndex.reserve(stages[i].size());
    std::vector<int> slotState; // per (part, option) slot: a next state
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
      auto [part, newPart] =
          partIndex.try_emplace(staying, int(partIndex.size()));
      if (newPart)
        slotState.resize(slotState.size() + size_t(slotsPerPart), -1);
      const size_t firstSlot = size_t(part->second) * size_t(slotsPerPart);
      for (int option = 0; option < numOptions; ++option) {
        if (!std::isfinite(nodeCost[i][option]))
          continue;
        double cost = state.cost + nodeCost[i][option];
        for (size_t e = 0; e < incoming[i].size(); ++e)
          if (producerOption[e] >= 0)
            cost += incoming[i][e]->cost[producerOption[e]][option];
        int &found = slotState[firstSlot + (nodeStaysLive ? option : 0)];
        if (found < 0) {
          found = int(next.size());
          next.push_back({cost, int(s), option});
          live.assign(staying.begin(), staying.end());
          if (nodeStaysLive)
            live.push_back({int(i), option});
          nextLives.push_back(live);
        } else if (cost < next[found].cost) {
          next[found] = {cost, int(s), option};
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

//===----------------------------------------------------------------------===//
// Variable elimination: exact in time and memory linear in the number of
// nodes and exponential only in the width of the elimination order.
//===----------------------------------------------------------------------===//

/// A cost table over a few nodes' (finite) options, row-major in the order of
/// `scope` (sorted), the last node's option varying fastest.
struct Factor {
  std::vector<int> scope;
  std::vector<double> table;
};

/// `a * b`, saturating at SIZE_MAX.
size_t mulSat(size_t a, size_t b) {
  return a && b > std::numeric_limits<size_t>::max() / a
             ? std::numeric_limits<size_t>::max()
             : a * b;
}

/// Exact by variable (bucket) elimination, or std::nullopt when the
/// elimination order would need a table of more than `maxFactorEntries`
/// entries (a node and its neighbours then).
std::optional<Selection>
selectByElimination(const std::vector<OptionCosts> &nodeCost,
                    const std::vector<SelectionEdge> &edges,
                    size_t maxFactorEntries) {
  const size_t n = nodeCost.size();
  // Each node's domain: its finite options, ascending. Local option x of
  // node v is option domain[v][x].
  std::vector<std::vector<int>> domain(n);
  for (size_t v = 0; v < n; ++v) {
    for (size_t o = 0; o < nodeCost[v].size(); ++o)
      if (std::isfinite(nodeCost[v][o]))
        domain[v].push_back(int(o));
    if (domain[v].empty() ||
        domain[v].size() > std::numeric_limits<uint16_t>::max())
      return std::nullopt;
  }
  std::vector<std::vector<double>> unary(n);
  for (size_t v = 0; v < n; ++v)
    for (int o : domain[v])
      unary[v].push_back(nodeCost[v][o]);

  // One pairwise factor per connected pair, the sum of its edges in their
  // order; an edge to a node with a single option is a unary cost.
  std::vector<Factor> factors;
  std::map<std::pair<int, int>, size_t> pairFactor;
  for (const SelectionEdge &edge : edges) {
    const std::vector<int> &from = domain[edge.from], &to = domain[edge.to];
    if (from.size() == 1 || to.size() == 1) {
      if (from.size() == 1 && to.size() > 1)
        for (size_t y = 0; y < to.size(); ++y)
          unary[edge.to][y] += edge.cost[from[0]][to[y]];
      else if (to.size() == 1 && from.size() > 1)
        for (size_t x = 0; x < from.size(); ++x)
          unary[edge.from][x] += edge.cost[from[x]][to[0]];
      continue; // both fixed: a constant
    }
    auto [it, inserted] =
        pairFactor.try_emplace({edge.from, edge.to}, factors.size());
    if (inserted)
      factors.push_back({{edge.from, edge.to},
                         std::vector<double>(from.size() * to.size(), 0.0)});
    std::vector<double> &table = factors[it->second].table;
    for (size_t x = 0; x < from.size(); ++x)
      for (size_t y = 0; y < to.size(); ++y)
        table[x * to.size() + y] += edge.cost[from[x]][to[y]];
  }

  // The elimination order, greedily by fewest neighbours, then smallest new
  // table, then node id: on series-parallel graphs (treewidth 2, e.g. nested
  // skips) the fewest neighbours never exceeds two. Each eliminated node's
  // neighbours then become the scope of the table it leaves behind.
  std::vector<std::vector<int>> adjacent(n);
  for (const Factor &f : factors) {
    adjacent[f.scope[0]].push_back(f.scope[1]);
    adjacent[f.scope[1]].push_back(f.scope[0]);
  }
  for (std::vector<int> &a : adjacent) {
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
  }
  using Key = std::tuple<size_t, size_t, int>;
  auto keyOf = [&](int v) {
    size_t entries = 1;
    for (int u : adjacent[v])
      entries = mulSat(entries, domain[u].size());
    return Key{adjacent[v].size(), entries, v};
  };
  std::vector<Key> key(n);
  std::set<Key> queue;
  for (size_t v = 0; v < n; ++v)
    queue.insert(key[v] = keyOf(int(v)));
  std::vector<int> order;
  std::vector<std::vector<int>> scopeOf(n);
  order.reserve(n);
  while (!queue.empty()) {
    int v = std::get<2>(*queue.begin());
    queue.erase(queue.begin());
    if (mulSat(std::get<1>(key[v]), domain[v].size()) > maxFactorEntries)
      return std::nullopt; // too wide: the caller prunes instead
    order.push_back(v);
    scopeOf[v] = std::move(adjacent[v]);
    const std::vector<int> &scope = scopeOf[v];
    for (int u : scope) {
      std::vector<int> &a = adjacent[u];
      a.erase(std::lower_bound(a.begin(), a.end(), v));
      for (int w : scope) {
        auto it = std::lower_bound(a.begin(), a.end(), w);
        if (w != u && (it == a.end() || *it != w))
          a.insert(it, w);
      }
    }
    for (int u : scope) {
      queue.erase(key[u]);
      queue.insert(key[u] = keyOf(u));
    }
  }

  // Eliminate: a node's tables, summed and minimized over its options, leave
  // a table over its scope, and the minimizing option for the way back.
  std::vector<std::vector<size_t>> factorsOf(n);
  for (size_t f = 0; f < factors.size(); ++f)
    for (int v : factors[f].scope)
      factorsOf[v].push_back(f);
  std::vector<bool> consumed(factors.size(), false);
  std::vector<std::vector<uint16_t>> argmin(n);
  std::vector<size_t> offset, strideV;
  std::vector<std::vector<size_t>> strideS;
  for (int v : order) {
    const std::vector<int> &scope = scopeOf[v];
    std::vector<size_t> used;
    for (size_t f : factorsOf[v])
      if (!consumed[f]) {
        consumed[f] = true;
        used.push_back(f);
      }
    factorsOf[v].clear();
    // Each used table's stride for v and for each scope position.
    strideV.assign(used.size(), 0);
    strideS.assign(used.size(), std::vector<size_t>(scope.size(), 0));
    for (size_t k = 0; k < used.size(); ++k) {
      const std::vector<int> &fs = factors[used[k]].scope;
      size_t stride = 1;
      for (size_t p = fs.size(); p-- > 0;) {
        if (fs[p] == v)
          strideV[k] = stride;
        else
          strideS[k][std::lower_bound(scope.begin(), scope.end(), fs[p]) -
                     scope.begin()] = stride;
        stride *= domain[fs[p]].size();
      }
    }
    size_t entries = 1;
    for (int u : scope)
      entries *= domain[u].size();
    Factor left{scope, std::vector<double>(entries)};
    argmin[v].resize(entries);
    std::vector<size_t> digit(scope.size(), 0);
    offset.assign(used.size(), 0);
    for (size_t a = 0; a < entries; ++a) {
      double best = std::numeric_limits<double>::infinity();
      size_t bestX = 0;
      for (size_t x = 0; x < domain[v].size(); ++x) {
        double cost = unary[v][x];
        for (size_t k = 0; k < used.size(); ++k)
          cost += factors[used[k]].table[offset[k] + x * strideV[k]];
        if (cost < best || x == 0) {
          best = cost;
          bestX = x;
        }
      }
      left.table[a] = best;
      argmin[v][a] = uint16_t(bestX);
      // Next assignment of the scope, last position fastest.
      for (size_t p = scope.size(); p-- > 0;) {
        for (size_t k = 0; k < used.size(); ++k)
          offset[k] += strideS[k][p];
        if (++digit[p] < domain[scope[p]].size())
          break;
        for (size_t k = 0; k < used.size(); ++k)
          offset[k] -= digit[p] * strideS[k][p];
        digit[p] = 0;
      }
    }
    for (size_t f : used)
      std::vector<double>().swap(factors[f].table);
    if (!scope.empty()) {
      for (int u : scope)
        factorsOf[u].push_back(factors.size());
      factors.push_back(std::move(left));
      consumed.push_back(false);
    }
  }

  // Back in reverse order: a node's scope was eliminated after it.
  std::vector<size_t> local(n, 0);
  for (size_t i = order.size(); i-- > 0;) {
    int v = order[i];
    size_t a = 0;
    for (int u : scopeOf[v])
      a = a * domain[u].size() + local[u];
    local[v] = argmin[v][a];
  }
  Selection result;
  result.choice.resize(n);
  for (size_t v = 0; v < n; ++v)
    result.choice[v] = domain[v][local[v]];
  for (size_t v = 0; v < n; ++v)
    result.cost += nodeCost[v][result.choice[v]];
  for (const SelectionEdge &edge : edges)
    result.cost += edge.cost[result.choice[edge.from]][result.choice[edge.to]];
  return result;
}

/// Whether the live-state program never holds more than `maxStates` states:
/// the product, over the nodes live after a step, of the options they are
/// remembered by (the step's own node: its finite options; earlier ones:
/// their finite options' distinct classes).
bool liveStatesFit(const std::vector<OptionCosts> &nodeCost,
                   const std::vector<SelectionEdge> &edges, size_t maxStates,
                   int farClasses) {
  const size_t n = nodeCost.size();
  std::vector<int> lastUse(n, -1);
  for (const SelectionEdge &edge : edges)
    lastUse[edge.from] = std::max(lastUse[edge.from], edge.to);
  std::vector<std::vector<int>> expiring(n);
  for (size_t j = 0; j < n; ++j)
    if (lastUse[j] > int(j))
      expiring[lastUse[j]].push_back(int(j));
  auto count = [&](size_t j, bool byClass) {
    std::vector<bool> seen(nodeCost[j].size(), false);
    size_t distinct = 0;
    for (size_t o = 0; o < nodeCost[j].size(); ++o)
      if (std::isfinite(nodeCost[j][o])) {
        size_t value = byClass && farClasses > 0 ? o % farClasses : o;
        distinct += !seen[value];
        seen[value] = true;
      }
    return distinct;
  };
  // Live nodes with more than one class; past 64 of them no product fits.
  std::set<int> live;
  std::vector<size_t> classes(n, 1);
  for (size_t i = 0; i < n; ++i) {
    for (int j : expiring[i])
      live.erase(j);
    size_t states = lastUse[i] > int(i) ? count(i, false) : 1;
    for (int j : live)
      states = mulSat(states, classes[j]);
    if (states > maxStates)
      return false;
    if (lastUse[i] > int(i) && (classes[i] = count(i, true)) > 1) {
      live.insert(int(i));
      if (live.size() > 64)
        return false;
    }
  }
  return true;
}

} // namespace

Selection dsm::core::selectOptions(const std::vector<OptionCosts> &nodeCost,
                                   const std::vector<SelectionEdge> &edges,
                                   size_t maxStates, int farClasses,
                                   size_t maxFactorEntries) {
  // Where the live states fit, the dynamic program is exact and keeps the
  // choices (and tie-breaks) it always made; elsewhere elimination is exact
  // unless the graph is too wide for it, and only then are states pruned.
  if (!liveStatesFit(nodeCost, edges, maxStates, farClasses))
    if (std::optional<Selection> eliminated =
            selectByElimination(nodeCost, edges, maxFactorEntries))
      return std::move(*eliminated);
  return selectByLiveStates(nodeCost, edges, maxStates, farClasses);
}

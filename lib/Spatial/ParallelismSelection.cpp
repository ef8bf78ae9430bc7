//===- ParallelismSelection.cpp - One choice per layer, jointly -----------===//

#include "dsm/Core/Spatial/ParallelismSelection.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
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

/// Dense numbers for the distinct rows of `width` values, in the order they
/// are first seen: an open-addressing table over rows kept in one array, so
/// a lookup allocates nothing.
class RowNumbering {
public:
  RowNumbering(size_t width, size_t expected) { reset(width, expected); }
  /// The number of `row` (width values), numbering it if new.
  std::pair<int, bool> insert(const int *row) {
    if (width == 0) {
      bool fresh = count == 0;
      count = 1;
      return {0, fresh};
    }
    if (2 * (count + 1) > slots.size())
      grow();
    uint64_t h = hash(row);
    for (size_t i = h & (slots.size() - 1);; i = (i + 1) & (slots.size() - 1)) {
      int id = slots[i];
      if (id < 0) {
        slots[i] = int(count);
        rows.insert(rows.end(), row, row + width);
        hashes.push_back(h);
        return {int(count++), true};
      }
      if (hashes[id] == h && sameRow(row, rows.data() + size_t(id) * width))
        return {id, false};
    }
  }
  /// The values of the row numbered `id`.
  const int *row(int id) const { return rows.data() + size_t(id) * width; }
  size_t size() const { return count; }
  /// Every row's values, by number.
  const std::vector<int> &values() const { return rows; }
  /// Forgets every row, for rows of `newWidth` values, about `expected` of
  /// them (the buffers stay).
  void reset(size_t newWidth, size_t expected) {
    width = newWidth;
    count = 0;
    rows.clear();
    hashes.clear();
    size_t capacity = 16;
    while (capacity < 2 * expected)
      capacity *= 2;
    slots.assign(capacity, -1);
  }

private:
  bool sameRow(const int *a, const int *b) const {
    for (size_t k = 0; k < width; ++k)
      if (a[k] != b[k])
        return false;
    return true;
  }
  uint64_t hash(const int *row) const {
    uint64_t h = width;
    for (size_t k = 0; k < width; ++k)
      h = (h ^ (uint64_t(uint32_t(row[k])) + 0x9e3779b97f4a7c15ULL)) *
          0xff51afd7ed558ccdULL;
    return h ^ (h >> 29);
  }
  void grow() {
    slots.assign(2 * slots.size(), -1);
    for (size_t id = 0; id < count; ++id)
      for (size_t i = hashes[id] & (slots.size() - 1);;
           i = (i + 1) & (slots.size() - 1))
        if (slots[i] < 0) {
          slots[i] = int(id);
          break;
        }
  }

  size_t width = 0;
  size_t count = 0;
  std::vector<int> slots;
  std::vector<int> rows;
  std::vector<uint64_t> hashes;
};

/// Sorts `order` (in slot order) by cost, ties keeping their order: a stable
/// radix sort on the costs' bits, which order as the costs do once the sign
/// is folded in (no cost is NaN).
void sortByCost(std::vector<std::pair<double, size_t>> &order,
                std::vector<std::pair<double, size_t>> &buffer) {
  auto key = [](double cost) {
    uint64_t bits;
    cost += 0.0; // -0 is +0
    std::memcpy(&bits, &cost, sizeof bits);
    return bits >> 63 ? ~bits : bits | (uint64_t(1) << 63);
  };
  buffer.resize(order.size());
  for (int shift = 0; shift < 64; shift += 8) {
    size_t count[257] = {0};
    for (const auto &entry : order)
      ++count[((key(entry.first) >> shift) & 0xff) + 1];
    if (count[((key(order.front().first) >> shift) & 0xff) + 1] == order.size())
      continue; // one digit for all: the order stands
    for (int d = 0; d < 256; ++d)
      count[d + 1] += count[d];
    for (const auto &entry : order)
      buffer[count[(key(entry.first) >> shift) & 0xff]++] = entry;
    order.swap(buffer);
  }
}

/// Steps of the dynamic program that repeat the steps `period` before
/// them: for each step i in [first, end), node i's costs, how far ahead its
/// last reader is and its incoming edges (how far back, their costs, in
/// order) equal those of step i - period. None: period 0.
struct RepeatedSteps {
  size_t first = 0, end = 0, period = 0;
};

/// Periods searched for (a network's repeated block in layers) and the
/// fewest periods worth a search.
constexpr size_t kMaxStepPeriod = 1024;
constexpr size_t kMinRepeats = 8;

uint64_t mixBits(uint64_t h, uint64_t value) {
  h = (h ^ (value + 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;
  return h ^ (h >> 29);
}

uint64_t bitsOf(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

/// The longest run of repeated steps (the shortest period among equally
/// long runs), found by hashing each step and confirmed exactly.
RepeatedSteps findRepeatedSteps(
    const std::vector<OptionCosts> &nodeCost,
    const std::vector<std::vector<const SelectionEdge *>> &incoming,
    const std::vector<int> &lastUse) {
  const size_t n = nodeCost.size();
  RepeatedSteps best;
  if (n < 2 * kMinRepeats)
    return best;
  auto reach = [&](size_t i) {
    return lastUse[i] > int(i) ? uint64_t(lastUse[i] - int(i)) : 0;
  };
  std::vector<uint64_t> hash(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t h = mixBits(0, reach(i));
    for (double cost : nodeCost[i])
      h = mixBits(h, bitsOf(cost));
    // An edge by how far back it reaches and its costs' block: equal costs
    // made one block (shareEqualSwitchCosts) hash alike, and a run is
    // confirmed on the costs themselves below (the same block at once).
    for (const SelectionEdge *edge : incoming[i]) {
      h = mixBits(h, uint64_t(int(i) - edge->from));
      h = mixBits(h, uint64_t(reinterpret_cast<uintptr_t>(edge->cost.block())));
    }
    hash[i] = h;
  }
  auto sameStep = [&](size_t i, size_t period) {
    const size_t j = i - period;
    if (reach(i) != reach(j) || nodeCost[i] != nodeCost[j] ||
        incoming[i].size() != incoming[j].size())
      return false;
    for (size_t e = 0; e < incoming[i].size(); ++e)
      if (int(i) - incoming[i][e]->from != int(j) - incoming[j][e]->from ||
          incoming[i][e]->cost != incoming[j][e]->cost)
        return false;
    return true;
  };
  // Candidate periods: how far back a few steps' hashes recur (a block's
  // length, or a multiple where something else repeats more slowly, such
  // as recomputed segments). Each candidate's longest run by hash; the
  // longest of all is then confirmed step by step, and cut where a step
  // differs after all.
  std::vector<size_t> periods;
  for (size_t sample : {n / 4, n / 2, 3 * n / 4})
    for (size_t d = 1; d <= std::min(sample, kMaxStepPeriod); ++d)
      if (hash[sample - d] == hash[sample])
        periods.push_back(d);
  std::sort(periods.begin(), periods.end());
  periods.erase(std::unique(periods.begin(), periods.end()), periods.end());
  std::vector<std::pair<size_t, size_t>> runs; // (period, run)
  for (size_t period : periods) {
    // A multiple of a period whose run covers nearly every step has no
    // longer run.
    if (llvm::any_of(runs, [&](std::pair<size_t, size_t> shorter) {
          return period % shorter.first == 0 &&
                 shorter.second + 2 * period >= n;
        }))
      continue;
    size_t longest = 0;
    size_t runStart = period;
    for (size_t i = period; i <= n; ++i) {
      if (i < n && hash[i] == hash[i - period])
        continue;
      longest = std::max(longest, i - runStart);
      if (i - runStart > best.end - best.first)
        best = {runStart, i, period};
      runStart = i + 1;
    }
    runs.push_back({period, longest});
  }
  RepeatedSteps confirmed;
  for (size_t i = best.first, runStart = best.first; i <= best.end; ++i) {
    if (i < best.end && sameStep(i, best.period))
      continue;
    if (i - runStart > confirmed.end - confirmed.first)
      confirmed = {runStart, i, best.period};
    runStart = i + 1;
  }
  best = confirmed;
  if (best.end - best.first < kMinRepeats * best.period)
    return RepeatedSteps();
  return best;
}

/// A state's way back: its parent among the previous step's states and its
/// node's option.
struct Link {
  int parent = -1;
  int option = -1;
};

/// The live-state program's skipping of repeated blocks (below): holds the
/// program's states and, at each block boundary of the run, compares them
/// with those of the boundary a block before.
class RepeatSkipper {
public:
  RepeatSkipper(RepeatedSteps repeated, std::vector<Link> &links,
                std::vector<size_t> &firstLink, std::vector<double> &stateCost,
                const std::vector<int> &statePart, const RowNumbering &parts,
                std::vector<int> &liveNodes, const bool &optionInRow)
      : repeated(repeated), links(links), firstLink(firstLink),
        stateCost(stateCost), statePart(statePart), parts(parts),
        liveNodes(liveNodes), optionInRow(optionInRow) {}

  /// At the start of step `i`: the step to go on from -- `i`, or the run's
  /// end once the states repeat those a block before.
  size_t skipFrom(size_t i) {
    const size_t period = repeated.period;
    if (!period || i < repeated.first || i + period > repeated.end ||
        (i - repeated.first) % period != 0)
      return i;
    Boundary &now = boundaries[!lastIndex];
    record(i, now);
    Boundary &before = boundaries[lastIndex];
    if (!haveLast || before.step + period != i || !repeats(before, now)) {
      // `now` is the boundary to compare the next with (its buffers and
      // the other's are reused: a pruned program's states are thousands).
      lastIndex = !lastIndex;
      haveLast = true;
      return i;
    }
    // Skip `blocks` periods: each skipped step's states are those of the
    // block before, links and all, so its links are the block before's,
    // not copied (a deep network's would be a hundred megabytes). The end
    // of the links written so far becomes the start of the next step's.
    const size_t blocks = (repeated.end - i) / period;
    firstLink.pop_back();
    for (size_t b = 0; b < blocks; ++b)
      for (size_t u = 1; u <= period; ++u) {
        const size_t blockBefore = firstLink[i - period + u];
        firstLink.push_back(blockBefore);
      }
    firstLink.push_back(links.size());
    for (size_t s = 0; s < stateCost.size(); ++s)
      stateCost[s] += double(blocks) * (now.stateCost[s] - before.stateCost[s]);
    for (int &node : liveNodes)
      node += int(blocks * period);
    haveLast = false;
    skipped = true;
    return i + blocks * period;
  }
  /// Whether any block was skipped.
  bool skippedAny() const { return skipped; }

private:
  /// The states at a block boundary (a step i with (i - first) % period
  /// == 0).
  struct Boundary {
    size_t step = 0;
    std::vector<int> liveNodes, statePart, stateOption, partRows;
    std::vector<double> stateCost;
    bool optionInRow = false;
  };
  /// The states at step `i`, into `b`.
  void record(size_t i, Boundary &b) const {
    b.step = i;
    b.liveNodes.assign(liveNodes.begin(), liveNodes.end());
    b.statePart.assign(statePart.begin(), statePart.end());
    b.stateOption.resize(stateCost.size());
    for (size_t s = 0; s < stateCost.size(); ++s)
      b.stateOption[s] = links[firstLink[i] + s].option;
    b.partRows.assign(parts.values().begin(), parts.values().end());
    b.stateCost.assign(stateCost.begin(), stateCost.end());
    b.optionInRow = optionInRow;
  }
  /// Whether `now` repeats `before` a block later: the same options of the
  /// same nodes a block on (none from before the run), each state's cost
  /// grown by the same amount, to rounding.
  bool repeats(const Boundary &before, const Boundary &now) const {
    if (now.liveNodes.size() != before.liveNodes.size() ||
        now.statePart != before.statePart ||
        now.stateOption != before.stateOption ||
        now.partRows != before.partRows ||
        now.optionInRow != before.optionInRow)
      return false;
    for (size_t k = 0; k < now.liveNodes.size(); ++k)
      if (before.liveNodes[k] < int(repeated.first) ||
          now.liveNodes[k] != before.liveNodes[k] + int(repeated.period))
        return false;
    const double grown = now.stateCost[0] - before.stateCost[0];
    for (size_t s = 0; s < now.stateCost.size(); ++s) {
      const double delta = now.stateCost[s] - before.stateCost[s];
      const double scale = std::max(
          {std::abs(now.stateCost[s]), std::abs(now.stateCost[0]), 1.0});
      if (!(std::abs(delta - grown) <= 1e-12 * scale))
        return false;
    }
    return true;
  }

  const RepeatedSteps repeated;
  std::vector<Link> &links;
  std::vector<size_t> &firstLink;
  std::vector<double> &stateCost;
  const std::vector<int> &statePart;
  const RowNumbering &parts;
  std::vector<int> &liveNodes;
  const bool &optionInRow;
  /// The last boundary recorded (`lastIndex`) and the one being recorded.
  Boundary boundaries[2];
  int lastIndex = 0;
  bool haveLast = false;
  bool skipped = false;
};

/// Each node's last reader (-1: none) and the edges each node reads, in
/// edge order.
struct EdgeIndex {
  std::vector<int> lastUse;
  std::vector<std::vector<const SelectionEdge *>> incoming;
};

EdgeIndex indexEdges(size_t n, const std::vector<SelectionEdge> &edges) {
  EdgeIndex index;
  index.lastUse.assign(n, -1);
  index.incoming.resize(n);
  for (const SelectionEdge &edge : edges) {
    index.lastUse[edge.from] = std::max(index.lastUse[edge.from], edge.to);
    index.incoming[edge.to].push_back(&edge);
  }
  return index;
}

/// One step of the live-state program (LiveStateProgram::run): node i's
/// finite options and their own costs, the edges it reads, and the live
/// nodes that stay live past it.
struct LiveStep {
  size_t i = 0;
  size_t width = 0, partWidth = 0;
  bool nodeStaysLive = false;
  std::vector<int> finiteOptions;
  size_t numFinite = 0, slotsPerPart = 0;
  std::vector<double> ownCost;
  // The edges read here: the producer's position in a row, the costs by
  // the producer's option and this node's finite option.
  std::vector<size_t> producerAt;
  std::vector<std::vector<double>> readCost;
  size_t readEdges = 0;
  // Per state: the row of each edge's costs by its producer's option.
  std::vector<const double *> read;
  std::vector<size_t> stayingAt;
  std::vector<int> nextNodes;
  size_t stayingWidth = 0;
  // Only node i - 1's value is an option; older nodes are kept by class.
  std::vector<char> toClass;
  bool optionStays = false, optionByClass = false;
  size_t keysPerPart = 1;
};

/// The dynamic program of selectByLiveStates (below), its states and their
/// links kept from step to step.
///
/// A state: the option of every node still to be read (`liveNodes`, the
/// same for every state of a step). States with the same options of the
/// nodes that stay live past the step share a part, numbered as first
/// seen; a state's row is its part's row, then the option of the step's
/// node if a later node reads it. The states of the step have their cost
/// and part; every step keeps its states' links for the way back, in one
/// array (`firstLink`: where each step's links begin; a skipped step's
/// are those of the step a block before it).
class LiveStateProgram {
public:
  LiveStateProgram(const std::vector<OptionCosts> &nodeCost,
                   const std::vector<SelectionEdge> &edges, size_t maxStates,
                   int farClasses);

  Selection run();

private:
  void prepareStep(size_t i, LiveStep &step) const;
  void findReadEdges(LiveStep &step) const;
  void findStayingNodes(LiveStep &step) const;
  void expandStates(LiveStep &step);
  int nextPartOf(size_t s, const LiveStep &step, const int *partRow, int option,
                 bool &newPart);
  void relaxSlots(size_t s, const LiveStep &step, size_t firstSlot,
                  bool newPart);
  void keepCheapestSlots(const LiveStep &step);
  void keepSlot(size_t k, const LiveStep &step);
  void traceBack();

  const std::vector<OptionCosts> &nodeCost;
  const std::vector<SelectionEdge> &edges;
  const size_t n;
  const int numOptions;
  const size_t maxStates;
  const int farClasses;
  const EdgeIndex index;
  const std::vector<int> &lastUse = index.lastUse;

  Selection result;
  std::vector<Link> links;
  std::vector<size_t> firstLink = {0, 1};
  std::vector<double> stateCost, nextCost;
  std::vector<int> liveNodes, statePart, nextPart, partOfKey;
  RowNumbering parts, nextParts;
  bool optionInRow = false; // the previous step's node stays live
  // Scratch of a step, reused from step to step.
  std::vector<double> slotCost, candidate;
  std::vector<int> slotParent, slotOption, staying;
  std::vector<std::pair<double, size_t>> order, buffer; // (cost, slot)
  RepeatSkipper skipper;
};

LiveStateProgram::LiveStateProgram(const std::vector<OptionCosts> &nodeCost,
                                   const std::vector<SelectionEdge> &edges,
                                   size_t maxStates, int farClasses)
    : nodeCost(nodeCost), edges(edges), n(nodeCost.size()),
      numOptions(n ? int(nodeCost.front().size()) : 0),
      maxStates(std::max<size_t>(maxStates, 1)), farClasses(farClasses),
      index(indexEdges(n, edges)), links(1), stateCost(1, 0.0), statePart(1, 0),
      parts(0, 1), nextParts(0, 1),
      skipper(findRepeatedSteps(nodeCost, index.incoming, index.lastUse), links,
              firstLink, stateCost, statePart, parts, liveNodes, optionInRow) {
  // Room up front for a state per option of every step (a step keeps more
  // where earlier nodes stay live): grown from empty by doubling, the
  // array was copied and its new pages faulted in many times per selection
  // of a deep network. Pages never written are never faulted in.
  links.reserve(n * size_t(std::max(numOptions, 1)) + 1);
  parts.insert(nullptr);
}

Selection LiveStateProgram::run() {
  for (size_t i = 0; i < n; ++i) {
    if ((i = skipper.skipFrom(i)) >= n)
      break;
    LiveStep step;
    prepareStep(i, step);
    expandStates(step);
    keepCheapestSlots(step);
    firstLink.push_back(links.size());
    stateCost.swap(nextCost);
    std::swap(parts, nextParts);
    statePart.swap(nextPart);
    optionInRow = step.nodeStaysLive;
    liveNodes = std::move(step.nextNodes);
  }
  traceBack();
  return result;
}

/// The tables of step `i`. The next states: a slot per (part, finite
/// option) if a later node reads node i, else one per part, in the order
/// first found. Nodes before i are read from here on only by nodes at least
/// two after them: their class is all that matters.
void LiveStateProgram::prepareStep(size_t i, LiveStep &step) const {
  step.i = i;
  step.width = liveNodes.size();
  step.partWidth = optionInRow ? step.width - 1 : step.width;
  step.nodeStaysLive = lastUse[i] > int(i);
  for (int option = 0; option < numOptions; ++option)
    if (std::isfinite(nodeCost[i][option]))
      step.finiteOptions.push_back(option);
  step.numFinite = step.finiteOptions.size();
  step.slotsPerPart = step.nodeStaysLive ? step.numFinite : 1;
  step.ownCost.resize(step.numFinite);
  for (size_t r = 0; r < step.numFinite; ++r)
    step.ownCost[r] = nodeCost[i][step.finiteOptions[r]];
  findReadEdges(step);
  findStayingNodes(step);
}

/// The edges node i reads and their costs by the producer's option.
void LiveStateProgram::findReadEdges(LiveStep &step) const {
  const size_t numFinite = step.numFinite;
  for (const SelectionEdge *edge : index.incoming[step.i])
    for (size_t k = 0; k < step.width; ++k)
      if (liveNodes[k] == edge->from) {
        step.producerAt.push_back(k);
        std::vector<double> table(size_t(numOptions) * numFinite);
        for (int from = 0; from < numOptions; ++from)
          for (size_t r = 0; r < numFinite; ++r)
            table[size_t(from) * numFinite + r] =
                edge->cost[from][step.finiteOptions[r]];
        step.readCost.push_back(std::move(table));
        break;
      }
  step.readEdges = step.producerAt.size();
  step.read.resize(step.readEdges);
}

/// The live nodes staying past node i, and how a state's next part is
/// keyed.
void LiveStateProgram::findStayingNodes(LiveStep &step) const {
  const int i = int(step.i);
  for (size_t k = 0; k < step.width; ++k)
    if (lastUse[liveNodes[k]] > i) {
      step.stayingAt.push_back(k);
      step.nextNodes.push_back(liveNodes[k]);
    }
  if (step.nodeStaysLive)
    step.nextNodes.push_back(i);
  step.stayingWidth = step.stayingAt.size();
  step.toClass.resize(step.stayingWidth);
  for (size_t k = 0; k < step.stayingWidth; ++k)
    step.toClass[k] = farClasses > 0 && liveNodes[step.stayingAt[k]] == i - 1;
  // A state's next part depends on its part and, if its row has one and
  // it stays, its option's value there: looked up once per such key.
  step.optionStays = optionInRow && !step.stayingAt.empty() &&
                     step.stayingAt.back() == step.width - 1;
  step.optionByClass = step.optionStays && step.toClass.back();
  step.keysPerPart = !step.optionStays    ? 1
                     : step.optionByClass ? size_t(farClasses)
                                          : size_t(numOptions);
}

/// Every state's candidates for the next states, each slot keeping the
/// first of its least.
void LiveStateProgram::expandStates(LiveStep &step) {
  partOfKey.assign(parts.size() * step.keysPerPart, -1);
  const Link *stateLink = links.data() + firstLink[step.i];
  const size_t numStates = stateCost.size();
  const size_t numFinite = step.numFinite;
  nextParts.reset(step.stayingWidth, numStates);
  slotCost.clear();
  slotParent.clear();
  slotOption.clear();
  staying.resize(step.stayingWidth);
  candidate.resize(numFinite);
  for (size_t s = 0; s < numStates; ++s) {
    const int *partRow = parts.row(statePart[s]);
    const int option = optionInRow ? stateLink[s].option : 0;
    bool newPart = false;
    const int known = nextPartOf(s, step, partRow, option, newPart);
    const size_t firstSlot = size_t(known) * step.slotsPerPart;
    for (size_t e = 0; e < step.readEdges; ++e) {
      const size_t at = step.producerAt[e];
      const int from = at < step.partWidth ? partRow[at] : option;
      step.read[e] = step.readCost[e].data() + size_t(from) * numFinite;
    }
    if (step.nodeStaysLive && !newPart && step.readEdges <= 2) {
      // The common case in one pass, the sums in the order below.
      double *cost = slotCost.data() + firstSlot;
      int *parent = slotParent.data() + firstSlot;
      const double base = stateCost[s];
      const double *ownCost = step.ownCost.data();
      const double *const *read = step.read.data();
      auto relax = [&](auto candidateOf) {
        for (size_t r = 0; r < numFinite; ++r) {
          const double c = candidateOf(r);
          const bool better = c < cost[r];
          cost[r] = better ? c : cost[r];
          parent[r] = better ? int(s) : parent[r];
        }
      };
      if (step.readEdges == 0)
        relax([&](size_t r) { return base + ownCost[r]; });
      else if (step.readEdges == 1)
        relax([&](size_t r) { return base + ownCost[r] + read[0][r]; });
      else
        relax([&](size_t r) {
          return base + ownCost[r] + read[0][r] + read[1][r];
        });
      continue;
    }
    relaxSlots(s, step, firstSlot, newPart);
  }
}

/// The next part of state `s` (its row `partRow`, its option in the row
/// `option`): looked up by key, numbered when new (`newPart`).
int LiveStateProgram::nextPartOf(size_t s, const LiveStep &step,
                                 const int *partRow, int option,
                                 bool &newPart) {
  const int key = !step.optionStays    ? 0
                  : step.optionByClass ? option % farClasses
                                       : option;
  int &known = partOfKey[size_t(statePart[s]) * step.keysPerPart + size_t(key)];
  if (known < 0) {
    for (size_t k = 0; k < step.stayingWidth; ++k) {
      int value = step.stayingAt[k] < step.partWidth
                      ? partRow[step.stayingAt[k]]
                      : option;
      staying[k] = step.toClass[k] ? value % farClasses : value;
    }
    auto [part, fresh] = nextParts.insert(staying.data());
    known = part;
    newPart = fresh;
  }
  return known;
}

/// State `s`'s candidates into its part's slots (from `firstSlot`), outside
/// expandStates' common case: a new part's, or node i's best option alone
/// when no later node reads it. A slot keeps the first of its least
/// candidates.
void LiveStateProgram::relaxSlots(size_t s, const LiveStep &step,
                                  size_t firstSlot, bool newPart) {
  const size_t numFinite = step.numFinite;
  for (size_t r = 0; r < numFinite; ++r)
    candidate[r] = stateCost[s] + step.ownCost[r];
  for (size_t e = 0; e < step.readEdges; ++e)
    for (size_t r = 0; r < numFinite; ++r)
      candidate[r] += step.read[e][r];
  if (step.nodeStaysLive && newPart) {
    slotCost.insert(slotCost.end(), candidate.begin(), candidate.end());
    slotParent.insert(slotParent.end(), numFinite, int(s));
  } else if (step.nodeStaysLive) {
    double *cost = slotCost.data() + firstSlot;
    int *parent = slotParent.data() + firstSlot;
    for (size_t r = 0; r < numFinite; ++r) {
      // Without a branch: which candidate wins is data, not a pattern.
      const bool better = candidate[r] < cost[r];
      cost[r] = better ? candidate[r] : cost[r];
      parent[r] = better ? int(s) : parent[r];
    }
  } else {
    size_t best = 0;
    for (size_t r = 1; r < numFinite; ++r)
      if (candidate[r] < candidate[best])
        best = r;
    if (newPart) {
      slotCost.push_back(candidate[best]);
      slotParent.push_back(int(s));
      slotOption.push_back(step.finiteOptions[best]);
    } else if (candidate[best] < slotCost[firstSlot]) {
      slotCost[firstSlot] = candidate[best];
      slotParent[firstSlot] = int(s);
      slotOption[firstSlot] = step.finiteOptions[best];
    }
  }
}

/// The next states: every slot, or the `maxStates` cheapest.
void LiveStateProgram::keepCheapestSlots(const LiveStep &step) {
  const size_t numSlots = slotCost.size();
  nextPart.clear();
  nextCost.clear();
  if (numSlots <= maxStates) {
    for (size_t k = 0; k < numSlots; ++k)
      keepSlot(k, step);
    return;
  }
  // Keep the cheapest states, ties in the order they were found: the
  // first maxStates of that total order, in it.
  std::vector<double> &costs = candidate;
  costs.assign(slotCost.begin(), slotCost.end());
  std::nth_element(costs.begin(), costs.begin() + (maxStates - 1), costs.end());
  const double last = costs[maxStates - 1];
  size_t atLast = maxStates; // of the states costing `last`
  for (double cost : slotCost)
    atLast -= cost < last;
  order.clear();
  for (size_t k = 0; k < numSlots; ++k) {
    const double cost = slotCost[k];
    if (cost < last || (cost == last && atLast > 0)) {
      atLast -= cost == last;
      order.push_back({cost, k});
    }
  }
  sortByCost(order, buffer);
  for (auto [cost, k] : order)
    keepSlot(k, step);
  result.exact = false;
}

/// Slot `k` as a next state.
void LiveStateProgram::keepSlot(size_t k, const LiveStep &step) {
  nextCost.push_back(slotCost[k]);
  links.push_back(
      {slotParent[k], step.nodeStaysLive
                          ? step.finiteOptions[k % step.slotsPerPart]
                          : slotOption[k]});
  nextPart.push_back(int(k / step.slotsPerPart));
}

/// The cheapest final state's choice, by its links back.
void LiveStateProgram::traceBack() {
  size_t s = size_t(std::min_element(stateCost.begin(), stateCost.end()) -
                    stateCost.begin());
  result.cost = stateCost[s];
  result.choice.assign(n, 0);
  for (size_t i = n; i > 0; --i) {
    const Link &link = links[firstLink[i] + s];
    result.choice[i - 1] = link.option;
    s = size_t(link.parent);
  }
  if (skipper.skippedAny()) {
    // The costs grown by a multiple carry that multiple's rounding: the
    // choice's own sum instead.
    result.cost = 0;
    for (size_t v = 0; v < n; ++v)
      result.cost += nodeCost[v][result.choice[v]];
    for (const SelectionEdge &edge : edges)
      result.cost +=
          edge.cost[result.choice[edge.from]][result.choice[edge.to]];
  }
}

/// The dynamic program in topological order over the options of the nodes
/// still to be read (the live states), pruned to the `maxStates` cheapest.
///
/// A network of repeated blocks repeats its steps (findRepeatedSteps). Once
/// the states after a block are those after the block before, each cost
/// the same amount more, every later block of the run does the same again
/// (a step adds the same costs to every state and compares them, so a
/// constant added to all changes nothing): the program skips to the run's
/// end, the states' costs grown by as many times that amount and each
/// skipped step's way back that of the step a block before it, for a
/// choice that repeats the block's. A network
/// of ten thousand blocks is then selected for the cost of a few.
Selection selectByLiveStates(const std::vector<OptionCosts> &nodeCost,
                             const std::vector<SelectionEdge> &edges,
                             size_t maxStates, int farClasses) {
  return LiveStateProgram(nodeCost, edges, maxStates, farClasses).run();
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

double
dsm::core::selectionCostLowerBound(const std::vector<OptionCosts> &nodeCost,
                                   const std::vector<SelectionEdge> &edges) {
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  double least = 0, magnitude = 0;
  for (const OptionCosts &options : nodeCost) {
    double cheapest = kInfinity;
    for (double cost : options)
      cheapest = std::min(cheapest, cost);
    least += cheapest;
    magnitude += std::abs(cheapest);
  }
  // Alike edges share a block of costs (shareEqualSwitchCosts): each
  // block's least found once.
  llvm::DenseMap<const void *, double> cheapestOfBlock;
  for (const SelectionEdge &edge : edges) {
    auto [known, fresh] = cheapestOfBlock.try_emplace(edge.cost.block(), 0.0);
    if (fresh) {
      double cheapest = kInfinity;
      for (double cost : edge.cost.entries())
        cheapest = std::min(cheapest, cost);
      known->second = cheapest;
    }
    const double cheapest = known->second;
    least += cheapest;
    // A saving on the chosen path counts twice in its terms' magnitude.
    magnitude += 2 * std::abs(cheapest);
  }
  if (!std::isfinite(least))
    return least;
  // A sum of k terms, in any order, is within k x epsilon of their
  // magnitude of the exact sum; so is this one: four times that is left.
  const double terms = double(nodeCost.size() + edges.size() + 1);
  return least - 4 * terms * std::numeric_limits<double>::epsilon() *
                     (magnitude + std::abs(least));
}

void dsm::core::shareEqualSwitchCosts(
    llvm::MutableArrayRef<SwitchCosts *> costs) {
  // By a hash of every entry, each confirmed equal to the block it joins;
  // costs that share a block already are hashed once.
  std::unordered_map<uint64_t, std::vector<SwitchCosts *>> blocks;
  std::unordered_map<const void *, SwitchCosts *> seen;
  for (SwitchCosts *c : costs) {
    auto [known, fresh] = seen.try_emplace(c->block(), c);
    if (!fresh) {
      c->values = known->second->values;
      continue;
    }
    uint64_t h = mixBits(0, c->size());
    for (double v : c->entries())
      h = mixBits(h, bitsOf(v));
    std::vector<SwitchCosts *> &same = blocks[h];
    auto equal = llvm::find_if(
        same, [&](const SwitchCosts *other) { return *other == *c; });
    if (equal != same.end())
      c->values = (*equal)->values;
    else
      same.push_back(c);
  }
}

void SwitchCostTerms::add(SwitchCosts &cost, llvm::ArrayRef<double> terms,
                          llvm::function_ref<void(SwitchCosts &)> apply) {
  uint64_t h = mixBits(0, uint64_t(reinterpret_cast<uintptr_t>(cost.block())));
  for (double term : terms)
    h = mixBits(h, bitsOf(term));
  std::vector<Result> &alike = results[h];
  auto sameTerms = [&](const Result &r) {
    return r.before.block() == cost.block() && r.terms.size() == terms.size() &&
           std::equal(
               terms.begin(), terms.end(), r.terms.begin(),
               [](double a, double b) { return bitsOf(a) == bitsOf(b); });
  };
  auto known = llvm::find_if(alike, sameTerms);
  if (known != alike.end()) {
    cost = known->after;
    return;
  }
  SwitchCosts before = cost;
  apply(cost);
  alike.push_back({std::move(before), terms.vec(), cost});
}

static bool sameEdges(const std::vector<SelectionEdge> &a,
                      const std::vector<SelectionEdge> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t e = 0; e < a.size(); ++e)
    if (a[e].from != b[e].from || a[e].to != b[e].to || a[e].cost != b[e].cost)
      return false;
  return true;
}

const Selection *SelectionMemo::find(const std::vector<OptionCosts> &nodeCost,
                                     const std::vector<SelectionEdge> &edges) {
  for (size_t k = entries.size(); k-- > 0;) {
    if (entries[k].nodeCost != nodeCost || !sameEdges(entries[k].edges, edges))
      continue;
    // The one found becomes the most recent: a sweep's scenario without
    // preloading recurs at every reservation, between scenarios seen once.
    std::rotate(entries.begin() + k, entries.begin() + k + 1, entries.end());
    return &entries.back().selection;
  }
  return nullptr;
}

void SelectionMemo::store(const std::vector<OptionCosts> &nodeCost,
                          const std::vector<SelectionEdge> &edges,
                          const Selection &selection) {
  constexpr size_t kKept = 4;
  if (entries.size() == kKept)
    entries.erase(entries.begin());
  entries.push_back({nodeCost, edges, selection});
}

//===----------------------------------------------------------------------===//
// Selection under a capacity
//===----------------------------------------------------------------------===//

llvm::Expected<std::optional<PricedSelection>> dsm::core::selectByPricing(
    const std::vector<OptionCosts> &base,
    llvm::function_ref<Selection(const std::vector<OptionCosts> &)> select,
    llvm::function_ref<double(size_t, int)> bytes,
    llvm::function_ref<bool(llvm::ArrayRef<int>)> fits, double capacity,
    double room, double bound, const Selection *unpriced,
    llvm::function_ref<llvm::Error()> interrupted) {
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  // Every (node, option)'s bytes, once the search prices them: each price
  // asks for all of them.
  std::vector<double> byteTable;
  std::vector<size_t> firstOfNode;
  auto tabulate = [&] {
    if (!firstOfNode.empty())
      return;
    firstOfNode.reserve(base.size() + 1);
    firstOfNode.push_back(0);
    for (size_t i = 0; i < base.size(); ++i) {
      for (size_t o = 0; o < base[i].size(); ++o)
        byteTable.push_back(bytes(i, int(o)));
      firstOfNode.push_back(byteTable.size());
    }
  };
  auto bytesAt = [&](size_t i, int o) {
    return firstOfNode.empty() ? bytes(i, o)
                               : byteTable[firstOfNode[i] + size_t(o)];
  };
  auto bytesOf = [&](llvm::ArrayRef<int> choice) {
    double total = 0;
    for (size_t i = 0; i < choice.size(); ++i)
      total += bytesAt(i, choice[i]);
    return total;
  };
  // The costs at a price: the search keeps each selection's price and
  // writes the costs into one buffer, then once more for the plan it
  // returns (on 130,000 layers a copy of the costs is 20 MB).
  auto costsAt = [&](double price, std::vector<OptionCosts> &costs) {
    costs = base;
    if (!(price > 0))
      return;
    tabulate();
    for (size_t i = 0; i < costs.size(); ++i) {
      const double *b = byteTable.data() + firstOfNode[i];
      for (size_t o = 0; o < costs[i].size(); ++o)
        costs[i][o] += price * b[o];
    }
  };
  struct Priced {
    Selection selection;
    double price = 0, cycles = 0;
  };
  std::vector<OptionCosts> priced;
  auto selectAt = [&](double price) {
    Priced fit;
    fit.price = price;
    if (price == 0) {
      fit.selection = unpriced ? *unpriced : select(base);
    } else {
      costsAt(price, priced);
      fit.selection = select(priced);
    }
    fit.cycles = fit.selection.cost - price * bytesOf(fit.selection.choice);
    return fit;
  };
  auto result = [&](Priced fit) {
    PricedSelection selected;
    costsAt(fit.price, selected.costs);
    selected.selection = std::move(fit.selection);
    selected.cycles = fit.cycles;
    return std::optional<PricedSelection>(std::move(selected));
  };
  // Lagrangian duality: a plan that fits holds at most `room` bytes and
  // costs, with the price, at least the selection at that price; so it takes
  // at least the selection's cost less price x room cycles. Once that
  // reaches `bound` no plan that fits beats it, and the search ends. (At
  // price 0: the unpriced selection's cycles. A pruned selection's cost is
  // the best it found: the bound is then as good as the selection.)
  auto noneBeatsBound = [&](const Priced &at, double price) {
    if (price == 0)
      return at.cycles >= bound;
    const double least = at.selection.cost - price * room;
    // The priced sum's rounding, on the scale of its terms.
    const double rounding =
        1e-9 * (std::abs(at.selection.cost) + price * std::abs(room));
    return least - rounding >= bound;
  };
  // The search ends early: the fitting plan in hand if it beats the bound.
  auto ended = [&](Priced fitting) {
    return fitting.cycles < bound ? result(std::move(fitting))
                                  : std::optional<PricedSelection>();
  };
  Priced low = selectAt(0);
  if (noneBeatsBound(low, 0))
    return std::optional<PricedSelection>();
  if (fits(low.selection.choice))
    return result(std::move(low));
  // Even the plan holding the least of every layer's parameters does not
  // fit: no price helps.
  std::vector<int> least = low.selection.choice;
  for (size_t i = 0; i < least.size(); ++i)
    for (int o = 0; o < int(base[i].size()); ++o)
      if (base[i][o] < kInfinity && bytesAt(i, o) < bytesAt(i, least[i]))
        least[i] = o;
  if (!fits(least))
    return std::optional<PricedSelection>();

  // A price in cycles per byte that fits, up a grid of factors of 4 from
  // the plan's cycles per byte of capacity.
  double lowPrice = 0, highPrice = std::max(low.selection.cost, 1.0) / capacity;
  Priced high = selectAt(highPrice);
  for (int k = 0; !fits(high.selection.choice); ++k) {
    if (k == 40 || noneBeatsBound(high, highPrice))
      return std::optional<PricedSelection>();
    if (llvm::Error error = interrupted())
      return std::move(error);
    low = std::move(high);
    lowPrice = highPrice;
    highPrice *= 4;
    high = selectAt(highPrice);
  }
  if (noneBeatsBound(high, highPrice))
    return ended(std::move(high));
  // The least price: the selection's cost is the lower envelope of one line
  // per plan, cycles + price x bytes. Where the lines of the plans at the
  // two prices cross, either a third plan is cheaper (it replaces the
  // bound on its side) or the crossing is the breakpoint past which the
  // fitting plan is the selection's: done.
  for (int step = 0; step < 16; ++step) {
    if (llvm::Error error = interrupted())
      return std::move(error);
    double lowBytes = bytesOf(low.selection.choice),
           highBytes = bytesOf(high.selection.choice);
    if (!(lowBytes > highBytes))
      break;
    double price = (high.cycles - low.cycles) / (lowBytes - highBytes);
    if (!(price > lowPrice && price < highPrice))
      break;
    Priced middle = selectAt(price);
    if (noneBeatsBound(middle, price))
      return ended(std::move(high));
    if (middle.selection.choice == low.selection.choice ||
        middle.selection.choice == high.selection.choice)
      break;
    if (fits(middle.selection.choice)) {
      high = std::move(middle);
      highPrice = price;
    } else {
      low = std::move(middle);
      lowPrice = price;
    }
  }
  return result(std::move(high));
}

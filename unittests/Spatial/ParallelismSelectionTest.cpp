//===- ParallelismSelectionTest.cpp - One choice per layer, jointly -------===//

#include "dsm/Core/Spatial/ParallelismSelection.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <random>

using namespace dsm::core;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kNumOptions = 4;

SwitchCosts uniformSwitch(double cost) {
  SwitchCosts s = makeSwitchCosts(kNumOptions);
  for (int a = 0; a < kNumOptions; ++a)
    for (int b = 0; b < kNumOptions; ++b)
      s[a][b] = a == b ? 0 : cost;
  return s;
}

double costOf(const std::vector<OptionCosts> &nodes,
              const std::vector<SelectionEdge> &edges,
              const std::vector<int> &choice) {
  double c = 0;
  for (size_t i = 0; i < nodes.size(); ++i)
    c += nodes[i][choice[i]];
  for (const SelectionEdge &e : edges)
    c += e.cost[choice[e.from]][choice[e.to]];
  return c;
}

TEST(ParallelismSelectionTest, JointChoiceBeatsTheBestPerLayer) {
  // Layer 0 is slightly cheaper under option 1, layer 1 much cheaper under
  // option 0; switching costs 5. Alone: 9 + 10 + 5 = 24. Jointly: 10 + 10.
  std::vector<OptionCosts> nodes = {{10, 9, kInf, kInf}, {10, 20, kInf, kInf}};
  std::vector<SelectionEdge> edges = {{0, 1, uniformSwitch(5)}};
  Selection s = selectOptions(nodes, edges);
  EXPECT_EQ(s.choice, (std::vector<int>{0, 0}));
  EXPECT_DOUBLE_EQ(s.cost, 20);
  EXPECT_TRUE(s.exact);
}

TEST(ParallelismSelectionTest, ShortcutsCountAgainstEveryConsumer) {
  // a -> b -> c: a prefers option 0, b and c option 1; one switch (2) is
  // worth it: 1 + 1 + 1 + 2 = 5.
  std::vector<OptionCosts> nodes = {
      {1, 5, kInf, kInf}, {10, 1, kInf, kInf}, {5, 1, kInf, kInf}};
  std::vector<SelectionEdge> edges = {{0, 1, uniformSwitch(2)},
                                      {1, 2, uniformSwitch(2)}};
  Selection chain = selectOptions(nodes, edges);
  EXPECT_EQ(chain.choice, (std::vector<int>{0, 1, 1}));
  EXPECT_DOUBLE_EQ(chain.cost, 5);
  // A shortcut a -> c (a residual connection) makes switching expensive:
  // now a follows the others, 5 + 1 + 1.
  edges.push_back({0, 2, uniformSwitch(100)});
  Selection residual = selectOptions(nodes, edges);
  EXPECT_EQ(residual.choice, (std::vector<int>{1, 1, 1}));
  EXPECT_DOUBLE_EQ(residual.cost, 7);
}

TEST(ParallelismSelectionTest, ExactOnRandomResidualGraphs) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> cost(0, 10);
  for (int trial = 0; trial < 50; ++trial) {
    const int n = 6;
    std::vector<OptionCosts> nodes(n, OptionCosts(kNumOptions));
    for (OptionCosts &c : nodes)
      for (double &v : c)
        v = cost(random);
    nodes[trial % n][trial % kNumOptions] = kInf; // an impossible option
    std::vector<SelectionEdge> edges;
    for (int i = 1; i < n; ++i) {
      SelectionEdge chain{i - 1, i, makeSwitchCosts(kNumOptions)};
      for (double &v : chain.cost.entries())
        v = cost(random);
      edges.push_back(chain);
      if (i >= 2 && trial % 2) { // residual shortcuts
        SelectionEdge skip{i - 2, i, makeSwitchCosts(kNumOptions)};
        for (double &v : skip.cost.entries())
          v = cost(random);
        edges.push_back(skip);
      }
    }
    // Brute force over all 4^6 choices.
    double best = kInf;
    std::vector<int> choice(n, 0);
    for (int code = 0; code < 1 << (2 * n); ++code) {
      for (int i = 0; i < n; ++i)
        choice[i] = (code >> (2 * i)) & 3;
      best = std::min(best, costOf(nodes, edges, choice));
    }
    Selection s = selectOptions(nodes, edges);
    EXPECT_TRUE(s.exact);
    EXPECT_NEAR(s.cost, best, 1e-9) << "trial " << trial;
    EXPECT_NEAR(costOf(nodes, edges, s.choice), s.cost, 1e-9);
    for (int i = 0; i < n; ++i)
      EXPECT_TRUE(std::isfinite(nodes[i][s.choice[i]]));
  }
}

TEST(ParallelismSelectionTest, FarEdgesRememberOnlyTheClass) {
  // Four options in two classes (option % 2); shortcuts (i-2 -> i) cost the
  // same for producer options of one class, adjacent edges do not. The
  // result stays the brute-force optimum.
  std::mt19937 random(11);
  std::uniform_real_distribution<double> cost(0, 10);
  for (int trial = 0; trial < 30; ++trial) {
    const int n = 6;
    std::vector<OptionCosts> nodes(n, OptionCosts(kNumOptions));
    for (OptionCosts &c : nodes)
      for (double &v : c)
        v = cost(random);
    std::vector<SelectionEdge> edges;
    for (int i = 1; i < n; ++i) {
      SelectionEdge chain{i - 1, i, makeSwitchCosts(kNumOptions)};
      for (double &v : chain.cost.entries())
        v = cost(random);
      edges.push_back(chain);
      if (i >= 2) {
        SelectionEdge skip{i - 2, i, makeSwitchCosts(kNumOptions)};
        for (int to = 0; to < kNumOptions; ++to)
          for (int cls = 0; cls < 2; ++cls) {
            double v = cost(random);
            skip.cost[cls][to] = skip.cost[cls + 2][to] = v;
          }
        edges.push_back(skip);
      }
    }
    double best = kInf;
    std::vector<int> choice(n, 0);
    for (int code = 0; code < 1 << (2 * n); ++code) {
      for (int i = 0; i < n; ++i)
        choice[i] = (code >> (2 * i)) & 3;
      best = std::min(best, costOf(nodes, edges, choice));
    }
    Selection s = selectOptions(nodes, edges, 4096, /*farClasses=*/2);
    EXPECT_TRUE(s.exact);
    EXPECT_NEAR(s.cost, best, 1e-9) << "trial " << trial;
    EXPECT_NEAR(costOf(nodes, edges, s.choice), s.cost, 1e-9);
  }
}

TEST(ParallelismSelectionTest, ManyLiveLayersAreStillExact) {
  // Every node feeds the last one: all are live until the end, more states
  // than the dynamic program keeps, but a star is easy to eliminate.
  const int n = 8;
  std::vector<OptionCosts> nodes(n, OptionCosts{1, 2, 3, 4});
  std::vector<SelectionEdge> edges;
  for (int i = 0; i + 1 < n; ++i)
    edges.push_back({i, n - 1, uniformSwitch(1)});
  Selection s = selectOptions(nodes, edges, /*maxStates=*/16);
  EXPECT_TRUE(s.exact);
  EXPECT_EQ(s.choice, std::vector<int>(n, 0));
  EXPECT_DOUBLE_EQ(s.cost, n * 1.0);
}

/// Random costs in [0, 10), some impossible (infinite) where `infinities`.
OptionCosts randomCosts(std::mt19937 &random, int numOptions, bool infinities) {
  std::uniform_real_distribution<double> cost(0, 10);
  OptionCosts c(numOptions);
  for (double &v : c)
    v = infinities && random() % 5 == 0 ? kInf : cost(random);
  return c;
}

SelectionEdge randomEdge(std::mt19937 &random, int from, int to,
                         bool infinities) {
  SelectionEdge e{from, to, makeSwitchCosts(kNumOptions)};
  for (int from = 0; from < kNumOptions; ++from) {
    OptionCosts row = randomCosts(random, kNumOptions, infinities);
    std::copy(row.begin(), row.end(), e.cost[from]);
  }
  return e;
}

/// Every choice of n nodes of kNumOptions options: the least cost.
double bruteForce(const std::vector<OptionCosts> &nodes,
                  const std::vector<SelectionEdge> &edges) {
  const int n = int(nodes.size());
  double best = kInf;
  std::vector<int> choice(n, 0);
  for (int code = 0; code < 1 << (2 * n); ++code) {
    for (int i = 0; i < n; ++i)
      choice[i] = (code >> (2 * i)) & 3;
    best = std::min(best, costOf(nodes, edges, choice));
  }
  return best;
}

/// `half` layers down, `half` up, up layer i also reading down layer
/// half - 1 - i (the scaling bench's `nested` family without the adds).
std::vector<SelectionEdge> nestedSkips(std::mt19937 &random, int half) {
  std::vector<SelectionEdge> edges;
  for (int i = 1; i < 2 * half; ++i)
    edges.push_back(randomEdge(random, i - 1, i, false));
  for (int i = 0; i < half; ++i)
    edges.push_back(randomEdge(random, half - 1 - i, half + i, false));
  return edges;
}

TEST(ParallelismSelectionTest, EliminationMatchesBruteForceOnRandomGraphs) {
  // Chains, residual graphs, nested skips and random DAGs, with impossible
  // options and infinite switches; maxStates = 1 sends every graph with a
  // shortcut to elimination, the default keeps the dynamic program.
  std::mt19937 random(23);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 3 + trial % 5;
    const bool infinities = trial % 3 == 0;
    std::vector<OptionCosts> nodes(n);
    for (OptionCosts &c : nodes) {
      c = randomCosts(random, kNumOptions, infinities);
      c[random() % kNumOptions] = 1; // a finite option
    }
    std::vector<SelectionEdge> edges;
    switch (trial % 4) {
    case 0: // chain
      for (int i = 1; i < n; ++i)
        edges.push_back(randomEdge(random, i - 1, i, infinities));
      break;
    case 1: // residual
      for (int i = 1; i < n; ++i) {
        edges.push_back(randomEdge(random, i - 1, i, infinities));
        if (i >= 2 && i % 2 == 0)
          edges.push_back(randomEdge(random, i - 2, i, infinities));
      }
      break;
    case 2: // nested skips
      edges = nestedSkips(random, n / 2);
      break;
    default: // random DAG, parallel edges included
      for (int k = 0; k < 2 * n; ++k) {
        int a = int(random() % n), b = int(random() % n);
        if (a != b)
          edges.push_back(
              randomEdge(random, std::min(a, b), std::max(a, b), infinities));
      }
    }
    double best = bruteForce(nodes, edges);
    for (size_t maxStates : {size_t(1), size_t(4096)}) {
      Selection s = selectOptions(nodes, edges, maxStates);
      EXPECT_TRUE(s.exact);
      if (std::isfinite(best)) {
        EXPECT_NEAR(s.cost, best, 1e-9) << "trial " << trial;
        EXPECT_NEAR(costOf(nodes, edges, s.choice), s.cost, 1e-9);
      } else {
        EXPECT_EQ(s.cost, best) << "trial " << trial;
      }
      for (int i = 0; i < n; ++i)
        EXPECT_TRUE(std::isfinite(nodes[i][s.choice[i]]));
    }
  }
}

TEST(ParallelismSelectionTest,
     PricingFitsWheneverAnythingFitsAgainstBruteForce) {
  // The capacity-constrained selection (the mapper's CapacityFit) on random
  // chains and residual graphs small enough to enumerate: every choice's
  // cost and bytes (random per node and option; a choice fits when its
  // bytes add up to at most the capacity). When no choice fits, none is
  // returned; otherwise the choice returned fits, its cycles are its cost,
  // and no choice is faster with no more bytes -- what pricing the bytes
  // guarantees. It is a Lagrangian relaxation, not a search over every
  // choice: a faster choice that fits may hold more bytes (the duality
  // gap), which the brute force measures.
  std::mt19937 random(25);
  std::uniform_real_distribution<double> byteDist(0, 100);
  // The bounds the searches are given, from a generator of their own.
  std::mt19937 boundRandom(26);
  std::uniform_real_distribution<double> boundDist(0, 1.5);
  int fitting = 0, fastest = 0, none = 0, unbeaten = 0, givenUp = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 3 + trial % 4;
    std::vector<OptionCosts> nodes(n);
    std::vector<std::vector<double>> bytes(n, std::vector<double>(kNumOptions));
    for (int i = 0; i < n; ++i) {
      nodes[i] = randomCosts(random, kNumOptions, trial % 3 == 0);
      nodes[i][random() % kNumOptions] = 1 + byteDist(random) / 10;
      for (double &b : bytes[i])
        b = byteDist(random);
    }
    std::vector<SelectionEdge> edges;
    for (int i = 1; i < n; ++i) {
      edges.push_back(randomEdge(random, i - 1, i, false));
      if (trial % 2 && i >= 2 && i % 2 == 0)
        edges.push_back(randomEdge(random, i - 2, i, false));
    }
    auto bytesOf = [&](llvm::ArrayRef<int> choice) {
      double total = 0;
      for (int i = 0; i < n; ++i)
        total += bytes[i][choice[i]];
      return total;
    };
    // Capacities from below the least bytes to above the most.
    const double capacity = byteDist(random) * n * (trial % 5 == 0 ? 0.2 : 1);
    auto fits = [&](llvm::ArrayRef<int> choice) {
      return bytesOf(choice) <= capacity;
    };

    // Brute force: every choice of finite cost.
    struct Point {
      double cost, bytes;
    };
    std::vector<Point> points;
    double bestFitting = kInf;
    std::vector<int> choice(n, 0);
    for (int code = 0; code < 1 << (2 * n); ++code) {
      for (int i = 0; i < n; ++i)
        choice[i] = (code >> (2 * i)) & 3;
      double cost = costOf(nodes, edges, choice);
      if (!std::isfinite(cost))
        continue;
      points.push_back({cost, bytesOf(choice)});
      if (fits(choice))
        bestFitting = std::min(bestFitting, cost);
    }

    auto priced = [&](double bound) {
      return selectByPricing(
          nodes,
          [&](const std::vector<OptionCosts> &costs) {
            return selectOptions(costs, edges);
          },
          [&](size_t node, int option) { return bytes[node][option]; }, fits,
          capacity, /*room=*/capacity, bound, /*unpriced=*/nullptr,
          [] { return llvm::Error::success(); });
    };
    llvm::Expected<std::optional<PricedSelection>> result = priced(kInf);
    ASSERT_TRUE(static_cast<bool>(result))
        << llvm::toString(result.takeError());
    if (!std::isfinite(bestFitting)) {
      EXPECT_FALSE(result->has_value()) << "trial " << trial;
      ++none;
      continue;
    }
    ASSERT_TRUE(result->has_value()) << "trial " << trial;
    const PricedSelection &fit = **result;
    ++fitting;
    EXPECT_TRUE(fits(fit.selection.choice)) << "trial " << trial;
    const double cycles = costOf(nodes, edges, fit.selection.choice);
    EXPECT_NEAR(fit.cycles, cycles, 1e-9 * cycles) << "trial " << trial;
    EXPECT_GE(cycles, bestFitting - 1e-9 * cycles);
    const double held = bytesOf(fit.selection.choice);
    for (const Point &p : points)
      EXPECT_FALSE(p.cost < cycles * (1 - 1e-9) && p.bytes <= held)
          << "trial " << trial << ": a choice of " << p.cost << " cycles and "
          << p.bytes << " bytes beats " << cycles << " and " << held;
    fastest += cycles <= bestFitting * (1 + 1e-9);

    // A bound the search gives up on is one no choice that fits beats (the
    // dual bound); a bound above the choice found changes nothing. The
    // bounds: from the unpriced selection's cost, which any bound below
    // ends at once, to past the choice found.
    const double unpriced = selectOptions(nodes, edges).cost;
    const double bound =
        unpriced + (cycles - unpriced) * boundDist(boundRandom);
    llvm::Expected<std::optional<PricedSelection>> bounded = priced(bound);
    ASSERT_TRUE(static_cast<bool>(bounded))
        << llvm::toString(bounded.takeError());
    if (!bounded->has_value()) {
      EXPECT_GE(bestFitting, bound * (1 - 1e-9)) << "trial " << trial;
    }
    if (bound > cycles * (1 + 1e-9)) {
      ASSERT_TRUE(bounded->has_value()) << "trial " << trial;
      EXPECT_EQ((*bounded)->selection.choice, fit.selection.choice)
          << "trial " << trial;
    } else if (bound > unpriced) {
      ++unbeaten;
      givenUp += !bounded->has_value();
    }
  }
  // The dual bound ends many searches whose bound the unpriced selection
  // beats and the choice does not (27 of 62 with these seeds; none without
  // it). It cannot end those whose bound is above the best dual bound (the
  // relaxation's gap again).
  // Both outcomes occur, and the price finds the fastest fitting choice in
  // most trials (169 of 192 with this seed; the others are up to 17%
  // slower: the relaxation's gap). Pinned: a walk that stops early still
  // finds plans that fit, but fewer of them the fastest.
  EXPECT_EQ(none, 108);
  EXPECT_EQ(fitting, 192);
  EXPECT_EQ(fastest, 169) << fastest << " of " << fitting;
  EXPECT_EQ(givenUp, 27);
  EXPECT_EQ(unbeaten, 62);
}

TEST(ParallelismSelectionTest, PricingChoosesTheFastestPlanThatFits) {
  // One layer, three options: (10 cycles, 100 B), (12, 60), (20, 10); with
  // 60 B of room the second fits and is the fastest that does. The price
  // must walk past the one at which the third becomes cheapest too soon.
  const std::vector<OptionCosts> nodes = {{10, 12, 20}};
  const double bytes[] = {100, 60, 10};
  auto fits = [&](llvm::ArrayRef<int> choice) {
    return bytes[choice[0]] <= 60;
  };
  llvm::Expected<std::optional<PricedSelection>> result = selectByPricing(
      nodes,
      [&](const std::vector<OptionCosts> &costs) {
        return selectOptions(costs, {});
      },
      [&](size_t, int option) { return bytes[option]; }, fits,
      /*capacity=*/60, /*room=*/60, /*bound=*/kInf, /*unpriced=*/nullptr,
      [] { return llvm::Error::success(); });
  ASSERT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  ASSERT_TRUE(result->has_value());
  EXPECT_EQ((*result)->selection.choice, (std::vector<int>{1}));
  EXPECT_NEAR((*result)->cycles, 12, 1e-9);
}

TEST(ParallelismSelectionTest, DeepNestedSkipsAreExactAndAgree) {
  // Seven nested skips: 4^7 live states, more than 4096 (the dynamic program
  // would prune); elimination agrees with the unpruned dynamic program.
  std::mt19937 random(5);
  const int half = 7;
  std::vector<OptionCosts> nodes(2 * half);
  for (OptionCosts &c : nodes)
    c = randomCosts(random, kNumOptions, false);
  std::vector<SelectionEdge> edges = nestedSkips(random, half);
  Selection eliminated = selectOptions(nodes, edges);
  Selection unpruned = selectOptions(nodes, edges, /*maxStates=*/1 << 16);
  EXPECT_TRUE(eliminated.exact);
  EXPECT_TRUE(unpruned.exact);
  EXPECT_NEAR(eliminated.cost, unpruned.cost, 1e-9);
  EXPECT_NEAR(costOf(nodes, edges, eliminated.choice), eliminated.cost, 1e-9);
}

TEST(ParallelismSelectionTest, ThousandsOfNestedSkipsAreExact) {
  std::mt19937 random(9);
  const int half = 2000;
  std::vector<OptionCosts> nodes(2 * half);
  for (OptionCosts &c : nodes) {
    c = randomCosts(random, kNumOptions, true);
    c[random() % kNumOptions] = 1;
  }
  std::vector<SelectionEdge> edges = nestedSkips(random, half);
  Selection s = selectOptions(nodes, edges);
  EXPECT_TRUE(s.exact);
  EXPECT_NEAR(costOf(nodes, edges, s.choice), s.cost, 1e-6);
}

TEST(ParallelismSelectionTest, TooWideGraphsArePrunedAndSaySo) {
  // Every node feeds every later one (a clique): eliminating any node leaves
  // a table over all the others, wider than allowed here, so the dynamic
  // program prunes.
  const int n = 8;
  std::vector<OptionCosts> nodes(n, OptionCosts{1, 2, 3, 4});
  std::vector<SelectionEdge> edges;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      edges.push_back({i, j, uniformSwitch(1)});
  Selection s = selectOptions(nodes, edges, /*maxStates=*/16,
                              /*farClasses=*/0, /*maxFactorEntries=*/1024);
  EXPECT_FALSE(s.exact);
  EXPECT_DOUBLE_EQ(s.cost, n * 1.0); // the obvious optimum survives pruning
  // With room for its tables, elimination is exact.
  Selection wide = selectOptions(nodes, edges, 16, 0, size_t(1) << 16);
  EXPECT_TRUE(wide.exact);
  EXPECT_EQ(wide.choice, std::vector<int>(n, 0));
}

TEST(ParallelismSelectionTest, PrunedStatesKeepTheirTieBreaks) {
  // A graph too wide to be exact with 4 or 16 states, with integer costs so
  // that states tie: two nodes read from far along (like a transformer's
  // rotary tables), skips of three, a far switch that depends on the
  // producer's class (option % 2). Pruning keeps the cheapest states, ties
  // in the order they were found; the choices are the ones the dynamic
  // program made before its states were kept by part (a change of the
  // order would change them, and the mapper's plans).
  std::mt19937 random(25);
  const int n = 40;
  std::vector<OptionCosts> nodes(n, OptionCosts(kNumOptions));
  for (int i = 0; i < n; ++i)
    for (int o = 0; o < kNumOptions; ++o)
      nodes[i][o] = i % 5 == 4 && o == 3 ? kInf : double(random() % 3);
  std::vector<SelectionEdge> edges;
  auto connect = [&](int from, int to) {
    SelectionEdge edge{from, to, makeSwitchCosts(kNumOptions)};
    for (int a = 0; a < kNumOptions; ++a)
      for (int b = 0; b < kNumOptions; ++b)
        edge.cost[a][b] =
            to - from > 1 ? double((a % 2 + b) % 2) : double(random() % 2);
    edges.push_back(edge);
  };
  for (int i = 1; i < n; ++i) {
    connect(i - 1, i);
    if (i >= 3 && i % 3 == 0)
      connect(i - 3, i);
    if (i >= 2 && i % 4 == 1)
      connect(0, i);
    if (i >= 2 && i % 4 == 3)
      connect(1, i);
  }
  auto pruned = [&](size_t maxStates) {
    return selectOptions(nodes, edges, maxStates, /*farClasses=*/2,
                         /*maxFactorEntries=*/1);
  };
  Selection four = pruned(4), sixteen = pruned(16), exact = pruned(64);
  EXPECT_FALSE(four.exact);
  EXPECT_FALSE(sixteen.exact);
  EXPECT_TRUE(exact.exact);
  EXPECT_EQ(four.choice,
            (std::vector<int>{2, 3, 3, 2, 1, 0, 0, 3, 0, 0, 0, 1, 1, 2,
                              2, 1, 3, 0, 3, 1, 1, 2, 0, 3, 2, 1, 1, 1,
                              1, 1, 1, 1, 2, 1, 1, 1, 1, 0, 1, 1}));
  EXPECT_EQ(sixteen.choice,
            (std::vector<int>{2, 3, 3, 2, 1, 0, 0, 3, 0, 0, 0, 1, 1, 2,
                              2, 1, 2, 0, 2, 1, 1, 2, 0, 3, 2, 1, 1, 2,
                              1, 1, 2, 1, 2, 0, 1, 1, 0, 0, 2, 0}));
  EXPECT_EQ(exact.choice, sixteen.choice);
  for (const Selection *s : {&four, &sixteen, &exact})
    EXPECT_DOUBLE_EQ(s->cost, costOf(nodes, edges, s->choice));
  EXPECT_DOUBLE_EQ(exact.cost, 26);
}

TEST(ParallelismSelectionTest, CostLowerBoundHoldsForEveryChoice) {
  // Random chains with skips whose switches may save (below zero, as reuse
  // on chip does): the bound is at most the best choice, and is the sum of
  // the least terms up to rounding.
  std::mt19937 random(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 2 + trial % 5;
    std::vector<OptionCosts> nodes(n);
    for (OptionCosts &c : nodes)
      c = randomCosts(random, kNumOptions, trial % 3 == 0);
    for (OptionCosts &c : nodes)
      c[random() % kNumOptions] = 1; // a finite option
    std::vector<SelectionEdge> edges;
    for (int i = 1; i < n; ++i) {
      edges.push_back(randomEdge(random, i - 1, i, false));
      if (i >= 2 && trial % 2)
        edges.push_back(randomEdge(random, i - 2, i, false));
    }
    double leastTerms = 0;
    for (const OptionCosts &c : nodes)
      leastTerms += *std::min_element(c.begin(), c.end());
    for (SelectionEdge &edge : edges) {
      double least = kInf;
      for (double &cost : edge.cost.entries())
        least = std::min(least, cost -= 5);
      leastTerms += least;
    }
    const double bound = selectionCostLowerBound(nodes, edges);
    EXPECT_LE(bound, bruteForce(nodes, edges)) << "trial " << trial;
    EXPECT_LE(bound, leastTerms);
    EXPECT_NEAR(bound, leastTerms, 1e-9) << "trial " << trial;
  }
  // A node with no finite option: no choice is finite.
  EXPECT_EQ(selectionCostLowerBound({{kInf, kInf, kInf, kInf}}, {}), kInf);
  // Alike edges sharing one block of costs count its least each.
  std::vector<SelectionEdge> shared = {{0, 1, uniformSwitch(3)},
                                       {1, 2, uniformSwitch(3)}};
  shared.push_back({2, 3, shared[0].cost});
  shared.push_back({3, 4, uniformSwitch(2)});
  std::vector<SwitchCosts *> blocks;
  for (SelectionEdge &edge : shared)
    blocks.push_back(&edge.cost);
  shareEqualSwitchCosts(blocks);
  ASSERT_EQ(shared[0].cost.block(), shared[1].cost.block());
  std::vector<OptionCosts> five(5, OptionCosts{2, 1});
  double least = 5 * 1;
  for (const SelectionEdge &edge : shared)
    least += *std::min_element(edge.cost.entries().begin(),
                               edge.cost.entries().end());
  EXPECT_NEAR(selectionCostLowerBound(five, shared), least, 1e-9);
}

TEST(ParallelismSelectionTest, MemoReturnsTheSelectionOfTheSameCosts) {
  std::vector<OptionCosts> nodes = {{1, 5}, {4, 1}, {2, 2}};
  std::vector<SelectionEdge> edges = {{0, 1, uniformSwitch(3)},
                                      {1, 2, uniformSwitch(1)}};
  SelectionMemo memo;
  EXPECT_EQ(memo.find(nodes, edges), nullptr);
  Selection s = selectOptions(nodes, edges);
  memo.store(nodes, edges, s);
  const Selection *kept = memo.find(nodes, edges);
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->choice, s.choice);
  EXPECT_EQ(kept->cost, s.cost);
  // Any other cost, of a node or an edge, is another problem.
  std::vector<OptionCosts> cheaper = nodes;
  cheaper[1][0] = 0.5;
  EXPECT_EQ(memo.find(cheaper, edges), nullptr);
  std::vector<SelectionEdge> moved = edges;
  moved[1].cost[0][1] = 7;
  EXPECT_EQ(memo.find(nodes, moved), nullptr);
  // Problems that differ in the first node's first cost.
  auto storeWithFirstCost = [&](double cost) {
    std::vector<OptionCosts> other = nodes;
    other[0][0] = cost;
    memo.store(other, edges, selectOptions(other, edges));
  };
  // The last four are kept.
  for (int k = 0; k < 4; ++k)
    storeWithFirstCost(10 + k);
  EXPECT_EQ(memo.find(nodes, edges), nullptr);
  std::vector<OptionCosts> last = nodes;
  last[0][0] = 13;
  ASSERT_NE(memo.find(last, edges), nullptr);
  EXPECT_EQ(memo.find(last, edges)->choice, selectOptions(last, edges).choice);
  // One found again is kept as if stored last: three more stores leave it.
  std::vector<OptionCosts> first = nodes;
  first[0][0] = 10;
  ASSERT_NE(memo.find(first, edges), nullptr);
  for (int k = 0; k < 3; ++k)
    storeWithFirstCost(20 + k);
  ASSERT_NE(memo.find(first, edges), nullptr);
  EXPECT_EQ(memo.find(first, edges)->choice,
            selectOptions(first, edges).choice);
  EXPECT_EQ(memo.find(last, edges), nullptr);
}

TEST(ParallelismSelectionTest, SwitchCostsShareUntilWritten) {
  SwitchCosts a = uniformSwitch(3), b = a;
  EXPECT_EQ(a.block(), b.block());
  b[0][1] = 7; // b gets a block of its own; a keeps its costs
  EXPECT_NE(a.block(), b.block());
  EXPECT_EQ(a[0][1], 3);
  EXPECT_EQ(b[0][1], 7);
  EXPECT_NE(a, b);
  // Equal costs made apart become one block; unequal ones stay apart.
  SwitchCosts c = uniformSwitch(3), d = uniformSwitch(3), e = uniformSwitch(4);
  EXPECT_NE(c.block(), d.block());
  EXPECT_EQ(c, d);
  std::vector<SwitchCosts *> all = {&a, &b, &c, &d, &e};
  shareEqualSwitchCosts(all);
  EXPECT_EQ(a.block(), c.block());
  EXPECT_EQ(c.block(), d.block());
  EXPECT_NE(a.block(), b.block());
  EXPECT_NE(a.block(), e.block());
  d[1][0] = 9; // written again: d alone changes
  EXPECT_EQ(c[1][0], 3);
  EXPECT_EQ(a[1][0], 3);
  EXPECT_EQ(d[1][0], 9);
}

TEST(ParallelismSelectionTest, EdgesGivenTheSameTermsShareTheirResult) {
  // Five edges: four on one block, one on its own block of equal costs.
  std::vector<SwitchCosts> edges(4, uniformSwitch(3));
  edges.push_back(uniformSwitch(3));
  const std::vector<std::vector<double>> termsOf = {
      {1, 2}, {1, 2}, {2, 1}, {1, 2}, {1, 2}};
  std::vector<SwitchCosts> expected = edges;
  const SwitchCosts shared = edges[0];
  SwitchCostTerms terms;
  int applied = 0;
  for (size_t e = 0; e < edges.size(); ++e) {
    auto addDiagonal = [&](SwitchCosts &cost) {
      ++applied;
      for (size_t o = 0; o < termsOf[e].size(); ++o)
        cost[o][o] += termsOf[e][o];
    };
    addDiagonal(expected[e]);
    --applied;
    terms.add(edges[e], termsOf[e], addDiagonal);
  }
  // Every edge has what the terms add to its costs...
  for (size_t e = 0; e < edges.size(); ++e)
    EXPECT_EQ(edges[e], expected[e]) << "edge " << e;
  // ...computed once per block and terms: the first block's edges with
  // the same terms share one block; other terms, or another block before,
  // are another; and the costs before are left as they were.
  EXPECT_EQ(applied, 3);
  EXPECT_EQ(edges[0].block(), edges[1].block());
  EXPECT_EQ(edges[0].block(), edges[3].block());
  EXPECT_NE(edges[0].block(), edges[2].block());
  EXPECT_NE(edges[0].block(), edges[4].block());
  EXPECT_EQ(shared, uniformSwitch(3));
}

TEST(ParallelismSelectionTest, RepeatedBlocksAreSelectedExactly) {
  // A head, hundreds of copies of one random block (a chain with a
  // shortcut over it, as a residual block), a tail: the dynamic program
  // skips the repeated blocks once the states repeat (findRepeatedSteps).
  // Against variable elimination, which never skips, on the same graph;
  // with a shortcut from the head to the tail over every block, which is
  // live throughout, in half the trials.
  std::mt19937 random(11);
  std::uniform_real_distribution<double> cost(0, 10);
  auto randomSwitch = [&] {
    SwitchCosts s = makeSwitchCosts(kNumOptions);
    for (double &v : s.entries())
      v = cost(random);
    return s;
  };
  for (int trial = 0; trial < 12; ++trial) {
    const int period = 2 + trial % 3, blocks = 300, head = 3, tail = 2;
    const int n = head + period * blocks + tail;
    OptionCosts blockCost[4];
    SwitchCosts chainSwitch[4], shortcut = randomSwitch();
    for (int k = 0; k < period; ++k) {
      blockCost[k].resize(kNumOptions);
      for (double &v : blockCost[k])
        v = cost(random);
      chainSwitch[k] = randomSwitch();
    }
    std::vector<OptionCosts> nodes(n, OptionCosts(kNumOptions));
    std::vector<SelectionEdge> edges;
    for (int i = 0; i < n; ++i) {
      const bool inBlock = i >= head && i < head + period * blocks;
      const int k = (i - head) % period;
      if (inBlock)
        nodes[i] = blockCost[k];
      else
        for (double &v : nodes[i])
          v = cost(random);
      if (i > 0)
        edges.push_back({i - 1, i, inBlock ? chainSwitch[k] : randomSwitch()});
      if (inBlock && k == period - 1)
        edges.push_back({i - period, i, shortcut});
    }
    if (trial % 2)
      edges.push_back({1, n - 1, randomSwitch()});
    std::sort(edges.begin(), edges.end(),
              [](const SelectionEdge &a, const SelectionEdge &b) {
                return std::make_pair(a.to, a.from) <
                       std::make_pair(b.to, b.from);
              });
    Selection skipped = selectOptions(nodes, edges);
    Selection eliminated = selectOptions(nodes, edges, /*maxStates=*/1);
    ASSERT_TRUE(skipped.exact);
    ASSERT_TRUE(eliminated.exact);
    EXPECT_NEAR(skipped.cost, eliminated.cost, 1e-9 * eliminated.cost)
        << "trial " << trial;
    EXPECT_NEAR(costOf(nodes, edges, skipped.choice), skipped.cost,
                1e-9 * skipped.cost);
  }
}

} // namespace

//===- ParallelismSelectionTest.cpp - One choice per layer, jointly -------===//

#include "dsm/Core/Spatial/ParallelismSelection.h"

#include <gtest/gtest.h>

#include <cmath>
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
      for (auto &row : chain.cost)
        for (double &v : row)
          v = cost(random);
      edges.push_back(chain);
      if (i >= 2 && trial % 2) { // residual shortcuts
        SelectionEdge skip{i - 2, i, makeSwitchCosts(kNumOptions)};
        for (auto &row : skip.cost)
          for (double &v : row)
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
      for (auto &row : chain.cost)
        for (double &v : row)
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

TEST(ParallelismSelectionTest, PrunesWhenTooManyLayersAreLive) {
  // Every node feeds the last one: all are live until the end.
  const int n = 8;
  std::vector<OptionCosts> nodes(n, OptionCosts{1, 2, 3, 4});
  std::vector<SelectionEdge> edges;
  for (int i = 0; i + 1 < n; ++i)
    edges.push_back({i, n - 1, uniformSwitch(1)});
  Selection s = selectOptions(nodes, edges, /*maxStates=*/16);
  EXPECT_FALSE(s.exact);
  EXPECT_DOUBLE_EQ(s.cost, n * 1.0); // the obvious optimum survives pruning
}

} // namespace

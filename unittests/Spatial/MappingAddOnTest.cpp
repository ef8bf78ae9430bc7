//===- MappingAddOnTest.cpp - The mapper's add-ons, each alone ------------===//
//
// Each add-on built by its factory, on a small problem, its stages driven by
// hand as the solver would (dsm/Core/Spatial/MappingAddOn.h): what it reads
// of the other add-ons is the properties the test writes, what it decides
// is the properties and terms it writes.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Spatial/MappingAddOn.h"

#include "TestHelpers.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>

using namespace dsm::core;
using dsm::core::testing::convLayer;
using dsm::core::testing::multiChipPreset;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
/// Each usable option's cost: the objective of a selection is cycles,
/// positive (DySM grouping's search compares relative changes of it).
constexpr double kLayerCost = 1e9;

/// A 1x1 convolution large enough to be bound by memory: leaving its data on
/// chip saves its fetch (as SpatialMapperTest's reuse chain).
LayerShape memoryBoundConv(const char *name) {
  return convLayer(256, 256, 196, 1, 512, name);
}

LayerEdge primaryEdge(int producer, int consumer) {
  LayerEdge edge{producer, consumer, 256.0 * 196 * 512};
  edge.primaryInput = true;
  return edge;
}

/// A problem and its solver state, the add-on's stages run by hand.
class AddOnHarness {
public:
  AddOnHarness(LayerGraph layers, bool training, bool dysm = false)
      : system(multiChipPreset("dsm-8pf-asym")), model(system),
        graph(std::move(layers)) {
    options.spatialMinibatching = dysm;
    graph.assignTrainingPasses(training);
    llvm::Expected<MappingProblem> created =
        MappingProblem::create(model, graph, options, {});
    EXPECT_TRUE(static_cast<bool>(created))
        << llvm::toString(created.takeError());
    problem.emplace(std::move(*created));
    state = std::make_unique<MappingState>(*problem, progress, nullptr);
  }

  /// Request (every pass plainly, as the solver does, and what `addOn`
  /// asks for) and explore.
  void explore(MappingAddOn &addOn) {
    for (size_t i = 0; i < problem->numLayers(); ++i) {
      const LayerNode &layer = problem->layer(int(i));
      bool runs[kNumPasses] = {layer.fwd, layer.bwd, layer.upd};
      for (int pass = 0; pass < kNumPasses; ++pass)
        if (runs[pass])
          state->explorations.requestUsable(int(i), TrainingPass(pass),
                                            OnChip::Nothing);
    }
    addOn.requestExplorations(*state);
    llvm::Error error = state->explorations.run(serial, progress);
    ASSERT_FALSE(static_cast<bool>(error)) << llvm::toString(std::move(error));
  }

  /// Price: a layer's options usable where its FWD has a plain evaluation,
  /// all at one cost (the terms alone tell them apart), no relayout terms.
  void price() {
    const int numOptions = problem->numOptions();
    state->layerCost.assign(problem->numLayers(),
                            OptionCosts(numOptions, kInf));
    for (size_t i = 0; i < problem->numLayers(); ++i)
      for (int o = 0; o < numOptions; ++o)
        if (state->plain(int(i), TrainingPass::FWD, o))
          state->layerCost[i][o] = kLayerCost;
    state->switches.clear();
    for (const LayerEdge &edge : graph.edges)
      state->switches.push_back(
          {edge.producer, edge.consumer, makeSwitchCosts(numOptions)});
  }

  /// The FWD of `layer` as `addOn` realises it under `choice`.
  PassPlan realizeForward(const MappingAddOn &addOn, std::vector<int> choice,
                          int layer, bool inputOnChip = false) {
    state->choice = std::move(choice);
    PassPlan pp;
    pp.pass = TrainingPass::FWD;
    pp.eval = *state->plain(layer, TrainingPass::FWD, state->choice[layer]);
    PassRealization realization{pp, inputOnChip};
    addOn.realizePass(*state, layer, realization);
    lastInputOnChip = realization.inputOnChip;
    return pp;
  }

  /// An option of `layer` under which `variant` of its FWD is faster than
  /// its plain FWD (-1: none).
  int fasterOption(int layer, OnChip variant) const {
    for (int o = 0; o < problem->numOptions(); ++o) {
      const Evaluation *plain = state->plain(layer, TrainingPass::FWD, o);
      const Evaluation *with =
          state->explorations.best(layer, TrainingPass::FWD, o, variant);
      if (plain && with && with->cycles.total < plain->cycles.total)
        return o;
    }
    return -1;
  }
  /// An option of another parallelism than `option`'s, usable by every
  /// layer (-1: none).
  int otherParallelism(int option) const {
    for (int o = 0; o < problem->numOptions(); ++o)
      if (problem->parallelismOf(o) != problem->parallelismOf(option) &&
          llvm::all_of(state->layerCost,
                       [&](const OptionCosts &cost) { return cost[o] < kInf; }))
        return o;
    return -1;
  }

  MultiChipSystem system;
  PerformanceModel model;
  LayerGraph graph;
  MapperOptions options;
  std::optional<MappingProblem> problem;
  ExplorationProgress progress{Progress::none(), 1};
  SerialExecutor serial;
  std::unique_ptr<MappingState> state;
  bool lastInputOnChip = false;
};

//===----------------------------------------------------------------------===//
// Activation reuse
//===----------------------------------------------------------------------===//

/// a -> b, each a memory-bound 1x1 convolution, in training.
LayerGraph twoLayerChain() {
  LayerGraph g;
  g.layers = {{memoryBoundConv("a")}, {memoryBoundConv("b")}};
  g.edges = {primaryEdge(0, 1)};
  return g;
}

TEST(MappingAddOnTest, ActivationReuseTellsWhichLayersFindTheirDataOnChip) {
  AddOnHarness harness(twoLayerChain(), /*training=*/true);
  MappingState &state = *harness.state;
  std::unique_ptr<MappingAddOn> reuse = makeActivationReuse();
  harness.explore(*reuse);
  const LayerEdge *edge = &harness.problem->edge(0);

  // b's FWD may find its input (a's output) on chip; a's UPD the error b's
  // BWD leaves (b is a's only consumer). Not the other way round.
  const MappingProperties &properties = state.properties;
  EXPECT_EQ(properties.inputReuseOf(1), edge);
  EXPECT_EQ(properties.inputReuseOf(0), nullptr);
  EXPECT_EQ(properties.errorReuseOf(0), edge);
  EXPECT_EQ(properties.errorReuseOf(1), nullptr);
  // It asked for the explorations with the data on chip, and not elsewhere.
  EXPECT_FALSE(
      state.explorations.bests(1, TrainingPass::FWD, OnChip::Own).empty());
  EXPECT_TRUE(
      state.explorations.bests(0, TrainingPass::FWD, OnChip::Own).empty());

  // Memory-bound: under some option b's FWD is faster with its input on
  // chip, and MappingState::reused (read from the properties) says so.
  const int o = harness.fasterOption(1, OnChip::Own);
  ASSERT_GE(o, 0);
  const Evaluation *plain = state.plain(1, TrainingPass::FWD, o);
  const Evaluation *reused = state.reused(1, TrainingPass::FWD, o);
  ASSERT_NE(reused, nullptr);
  EXPECT_TRUE(reused->config.memory.inputOnChip);
  EXPECT_EQ(state.reused(0, TrainingPass::FWD, o), nullptr);

  // Price: the saving is an edge term on the diagonal (both ends on one
  // option) only: b's FWD and a's UPD.
  harness.price();
  reuse->addSelectionTerms(state);
  const SwitchCosts &cost = state.switches[0].cost;
  double expected = reused->cycles.total - plain->cycles.total;
  if (const Evaluation *upd = state.reused(0, TrainingPass::UPD, o))
    expected +=
        upd->cycles.total - state.plain(0, TrainingPass::UPD, o)->cycles.total;
  EXPECT_LT(cost[o][o], 0);
  EXPECT_DOUBLE_EQ(cost[o][o], expected);
  for (int f = 0; f < harness.problem->numOptions(); ++f)
    for (int t = 0; t < harness.problem->numOptions(); ++t)
      EXPECT_EQ(f == t ? 0.0 : cost[f][t], 0) << f << " -> " << t;

  // Realise: on one option b's FWD takes the evaluation with its input on
  // chip and says so to the add-ons after it; on two, the plain one.
  PassPlan same = harness.realizeForward(*reuse, {o, o}, 1);
  EXPECT_TRUE(harness.lastInputOnChip);
  EXPECT_TRUE(same.eval.config.memory.inputOnChip);
  EXPECT_EQ(same.eval.cycles.total, reused->cycles.total);
  const int other = harness.otherParallelism(o);
  ASSERT_GE(other, 0);
  PassPlan switched = harness.realizeForward(*reuse, {other, o}, 1);
  EXPECT_FALSE(harness.lastInputOnChip);
  EXPECT_FALSE(switched.eval.config.memory.inputOnChip);
  EXPECT_EQ(switched.eval.cycles.total, plain->cycles.total);
  // The first layer reads the network's input from memory.
  PassPlan first = harness.realizeForward(*reuse, {o, o}, 0);
  EXPECT_FALSE(first.eval.config.memory.inputOnChip);
}

//===----------------------------------------------------------------------===//
// Residual shortcuts
//===----------------------------------------------------------------------===//

/// a -> b -> c, with a's output added by c (a residual block's shortcut,
/// read by c's fused auxiliary computation).
LayerGraph residualBlock(double shortcutElements = 256.0 * 196 * 512) {
  LayerGraph g;
  LayerShape c = memoryBoundConv("c");
  c.auxInputsPerOutput = 1;
  g.layers = {{memoryBoundConv("a")}, {memoryBoundConv("b")}, {c}};
  g.edges = {primaryEdge(0, 1), primaryEdge(1, 2),
             LayerEdge{0, 2, shortcutElements}};
  return g;
}

TEST(MappingAddOnTest, ShortcutRetentionKeepsAResidualShortcutOnChip) {
  AddOnHarness harness(residualBlock(), /*training=*/false);
  MappingState &state = *harness.state;
  std::unique_ptr<MappingAddOn> shortcuts = makeShortcutRetention();
  harness.explore(*shortcuts);
  const LayerEdge *shortcut = &harness.problem->edge(2);
  const MappingProperties &properties = state.properties;

  // Request: the shortcut is c's candidate. With no input reuse told (no
  // properties.inputReuse), c's FWD is not explored with both on chip.
  EXPECT_EQ(properties.shortcutCandidateOf(2), shortcut);
  EXPECT_EQ(properties.shortcutCandidateOf(1), nullptr);
  EXPECT_FALSE(
      state.explorations.bests(2, TrainingPass::FWD, OnChip::Shortcut).empty());
  EXPECT_TRUE(
      state.explorations.bests(2, TrainingPass::FWD, OnChip::OwnAndShortcut)
          .empty());

  // Price: a small shortcut fits across b, so it is kept, and b holds its
  // share; the saving is a term between options of one parallelism.
  harness.price();
  shortcuts->addSelectionTerms(state);
  EXPECT_EQ(properties.keptShortcutOf(2), shortcut);
  const double share = harness.problem->shareOfEveryCore(shortcut->elements);
  EXPECT_EQ(properties.keptShortcutBytesAt(0), 0);
  EXPECT_EQ(properties.keptShortcutBytesAt(1), share);
  EXPECT_EQ(properties.keptShortcutBytesAt(2), 0);
  const int o = harness.fasterOption(2, OnChip::Shortcut);
  ASSERT_GE(o, 0);
  const double saving = properties.shortcutSavingOf(2, o);
  EXPECT_DOUBLE_EQ(
      saving,
      state.explorations.best(2, TrainingPass::FWD, o, OnChip::Shortcut)
              ->cycles.total -
          state.plain(2, TrainingPass::FWD, o)->cycles.total);
  EXPECT_LT(saving, 0);
  const int other = harness.otherParallelism(o);
  ASSERT_GE(other, 0);
  const SwitchCosts &cost = state.switches[2].cost;
  EXPECT_EQ(cost[o][o], saving);
  EXPECT_EQ(cost[other][o], 0);
  // The chain's edges have no term of it.
  EXPECT_EQ(state.switches[1].cost[o][o], 0);

  // Realise: c adds the shortcut from its scratchpad where a took its
  // parallelism, not elsewhere.
  PassPlan kept = harness.realizeForward(*shortcuts, {o, other, o}, 2);
  EXPECT_TRUE(kept.eval.config.memory.shortcutOnChip);
  PassPlan reread = harness.realizeForward(*shortcuts, {other, o, o}, 2);
  EXPECT_FALSE(reread.eval.config.memory.shortcutOnChip);
  // A block another add-on runs as one DySM group is that add-on's.
  state.properties.groupedConsumers = {0, 0, 1};
  PassPlan grouped = harness.realizeForward(*shortcuts, {o, o, o}, 2);
  EXPECT_FALSE(grouped.eval.config.memory.shortcutOnChip);
}

TEST(MappingAddOnTest, ShortcutRetentionDropsAShortcutThatDoesNotFit) {
  // A shortcut whose share alone is beyond a core's scratchpad.
  AddOnHarness harness(residualBlock(/*shortcutElements=*/1e18),
                       /*training=*/false);
  MappingState &state = *harness.state;
  std::unique_ptr<MappingAddOn> shortcuts = makeShortcutRetention();
  harness.explore(*shortcuts);
  harness.price();
  shortcuts->addSelectionTerms(state);
  EXPECT_NE(state.properties.shortcutCandidateOf(2), nullptr);
  EXPECT_EQ(state.properties.keptShortcutOf(2), nullptr);
  EXPECT_EQ(state.properties.keptShortcutBytesAt(1), 0);
  for (int o = 0; o < harness.problem->numOptions(); ++o)
    EXPECT_EQ(state.properties.shortcutSavingOf(2, o), 0);
  for (const SelectionEdge &edge : state.switches)
    for (double term : edge.cost.entries())
      EXPECT_EQ(term, 0);
}

//===----------------------------------------------------------------------===//
// DySM groups
//===----------------------------------------------------------------------===//

TEST(MappingAddOnTest, SpatialMinibatchGroupsRunAToldBlockAsOneGroup) {
  AddOnHarness harness(residualBlock(), /*training=*/false, /*dysm=*/true);
  MappingState &state = *harness.state;
  const MappingProblem &problem = *harness.problem;
  // The shortcut a -> c, told as a candidate (as the shortcuts' add-on
  // would), not kept whole.
  const LayerEdge *shortcut = &problem.edge(2);
  state.properties.shortcutCandidates = {nullptr, nullptr, shortcut};
  std::unique_ptr<MappingAddOn> groups = makeSpatialMinibatchGroups();
  harness.explore(*groups);
  // It asked for c's FWD with one spatial minibatch's shortcut on chip,
  // under the options with a DySM factor above 1 only.
  llvm::ArrayRef<const Evaluation *> spatial =
      state.explorations.bests(2, TrainingPass::FWD, OnChip::SpatialShortcut);
  ASSERT_EQ(spatial.size(), size_t(problem.numOptions()));
  for (int o = 0; o < problem.numOptions(); ++o)
    EXPECT_TRUE(problem.factorOf(o) > 1 || !spatial[o]) << o;

  // Every layer on an option of DySM factor 1, at no cost: the block's
  // group saving alone moves it, all three layers, to one option of a
  // factor above 1.
  harness.price();
  state.choice.assign(3, 0);
  ASSERT_EQ(problem.factorOf(0), 1);
  SerialExecutor serial;
  llvm::Error error = groups->reviseChoice(state, serial);
  ASSERT_FALSE(static_cast<bool>(error)) << llvm::toString(std::move(error));
  const int o = state.choice[2];
  EXPECT_GT(problem.factorOf(o), 1);
  EXPECT_EQ(state.choice[0], o);
  EXPECT_EQ(state.choice[1], o);

  // Realise: the block is one group, and c's FWD holds one spatial
  // minibatch's shortcut.
  groups->beginRealization(state);
  EXPECT_TRUE(state.properties.isGroupedConsumer(2));
  EXPECT_FALSE(state.properties.isGroupedConsumer(1));
  PassPlan grouped = harness.realizeForward(*groups, state.choice, 2);
  EXPECT_TRUE(grouped.eval.config.memory.shortcutOnChip);
  EXPECT_TRUE(grouped.eval.config.memory.shortcutPerSpatialMinibatch);
  EXPECT_LT(grouped.eval.cycles.total,
            state.plain(2, TrainingPass::FWD, o)->cycles.total);

  // Told that a is a pipe stage (its output streamed), it is not a group.
  state.properties.pipeStages = {1, 0, 0};
  groups->beginRealization(state);
  EXPECT_FALSE(state.properties.isGroupedConsumer(2));
}

//===----------------------------------------------------------------------===//
// Shortcut errors
//===----------------------------------------------------------------------===//

TEST(MappingAddOnTest, ShortcutErrorRetentionReadsTheCandidatesTold) {
  // Training: the block's error could stay on chip from c's BWD to b's,
  // across b -- but only for a shortcut some add-on told as a candidate.
  AddOnHarness harness(residualBlock(), /*training=*/true);
  MappingState &state = *harness.state;
  std::unique_ptr<MappingAddOn> errors = makeShortcutErrorRetention();
  errors->requestExplorations(state);
  EXPECT_EQ(state.properties.errorShortcutOf(2), nullptr);
  EXPECT_EQ(state.properties.errorBytesAt(1), 0);

  const LayerEdge *shortcut = &harness.problem->edge(2);
  AddOnHarness told(residualBlock(), /*training=*/true);
  told.state->properties.shortcutCandidates = {nullptr, nullptr,
                                               &told.problem->edge(2)};
  std::unique_ptr<MappingAddOn> toldErrors = makeShortcutErrorRetention();
  toldErrors->requestExplorations(*told.state);
  const MappingProperties &properties = told.state->properties;
  EXPECT_EQ(properties.errorShortcutOf(2), &told.problem->edge(2));
  const double share = told.problem->shareOfEveryCore(shortcut->elements);
  EXPECT_EQ(properties.errorBytesAt(0), 0);
  EXPECT_EQ(properties.errorBytesAt(1), share);
  EXPECT_EQ(properties.errorBytesAt(2), 0);
}

} // namespace

//===- EgrlSearch.cpp - EGRL and its policy-gradient learner alone --------===//
//
// Khadka et al. (EGRL), Algorithm 2 and App. C-E, on the cost model:
//
//   egrl  a population of 20 (App. B) -- 80% map chromosomes, evolved with
//         the EA's own operators (MemorySearches.h), and 20% Boltzmann
//         chromosomes (App. B "fraction ... Boltzmann": per-node prior logits
//         and per-decision temperatures, sampled into a map at every rollout,
//         App. E) -- plus one noisy rollout of the GNN policy per generation
//         (App. B "PG rollout size" 1). Every map evaluated goes to the
//         learner's replay buffer; after each generation the learner takes
//         one SAC gradient step per map evaluated (App. B "gradient steps
//         per environment step" 1) and migrates into the population (Alg. 2
//         l. 32). A Boltzmann chromosome bred with a map elite (different
//         encodings) has its prior seeded from the policy's posterior (Alg.
//         2 l. 15-17).
//   pg    the learner alone: each iteration one rollout of the policy into
//         the buffer and one gradient step -- the paper's "PG" baseline.
//
// The paper's population also holds GNN actors evolved by weight noise. Here
// the state is one fixed graph and an episode one step (App. B), so a
// deterministic actor *is* its map: the map chromosomes stand in for them
// and the learner migrates as its greedy map (docs/memory-placement.md).
//
// The learner (Learning/, libtorch) is a module built with DSM_ENABLE_TORCH
// and loaded when either search starts; without it both say what is missing.
//
//===----------------------------------------------------------------------===//

#include "MemorySearches.h"
#include "dsm/Core/Memory/MemoryPlacementSearch.h"

#include "Learning/GraphPolicyLearner.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace dsm::core;
using namespace dsm::core::memory;
using namespace dsm::core::memory::detail;

bool memory::isPolicyLearnerAvailable() {
  return !errorToBool(learning::loadGraphPolicyLearnerModule("egrl"));
}

using namespace dsm::core::memory::detail::evolution;
using namespace dsm::core::memory::learning;

namespace {
/// App. B "fraction of EA population that are Boltzmann".
constexpr double kBoltzmannShare = 0.2;
/// Boltzmann chromosomes: initial temperature, its bounds, and the mutation
/// noise (Alg. 2 l. 20, N(0, sigma)) on the priors and on log-temperatures;
/// the share of nodes a mutation touches. Not in the paper: ours.
constexpr float kInitialTemperature = 1.0f;
constexpr float kMinTemperature = 0.05f, kMaxTemperature = 10.0f;
constexpr double kPriorNoise = 0.5, kLogTemperatureNoise = 0.3;
constexpr double kMutatedNodeShare = 0.1;
/// Seeds the learner apart from the search's own stream.
constexpr uint64_t kLearnerSeedSalt = 0x5ac1ea4e2e0f1a9dULL;

/// The paper's node features (App. A) that our graph has: tensor sizes,
/// work, what is left after the node, and the sizes relative to the levels'
/// capacities (App. A's are raw; relative ones spare the network learning
/// the capacities). Logs tame the ranges; every column is standardised.
PolicyGraph buildPolicyGraph(const PlacementEvaluator &evaluator) {
  const MemoryGraph &graph = evaluator.getGraph();
  const CapacityChecker &checker = evaluator.getChecker();
  size_t count = graph.size();
  double sram =
      double(std::max<int64_t>(checker.getCapacity(MemoryLevel::SRAM), 1));
  double llc =
      double(std::max<int64_t>(checker.getCapacity(MemoryLevel::LLC), 1));
  std::vector<double> macsLeft(count + 1, 0), weightsLeft(count + 1, 0);
  std::vector<int> consumers(count, 0);
  for (size_t i = count; i-- > 0;) {
    macsLeft[i] = macsLeft[i + 1] + double(graph.getNode(i).macs);
    weightsLeft[i] = weightsLeft[i + 1] + double(graph.getNode(i).weightBytes);
    for (int32_t input : graph.getInputsOf(i))
      ++consumers[size_t(input)];
  }
  std::vector<std::vector<double>> columns;
  auto column = [&](auto value) {
    std::vector<double> &values = columns.emplace_back(count);
    for (size_t i = 0; i < count; ++i)
      values[i] = double(value(i));
  };
  auto node = [&](size_t i) -> const MemoryNode & { return graph.getNode(i); };
  auto inputBytes = [&](size_t i) {
    double bytes = double(node(i).externalInputBytes);
    for (int32_t input : graph.getInputsOf(i))
      bytes += double(graph.getNode(size_t(input)).outputBytes);
    return bytes;
  };
  column([&](size_t i) { return std::log1p(double(node(i).weightBytes)); });
  column([&](size_t i) { return std::log1p(double(node(i).outputBytes)); });
  column([&](size_t i) { return std::log1p(inputBytes(i)); });
  column([&](size_t i) { return std::log1p(double(node(i).macs)); });
  column([&](size_t i) { return std::log1p(node(i).auxOps); });
  column([&](size_t i) { return std::log1p(macsLeft[i]); });    // n_ops_left
  column([&](size_t i) { return std::log1p(weightsLeft[i]); }); // n_w_left
  column([&](size_t i) { return double(node(i).weightBytes) / sram; });
  column([&](size_t i) { return double(node(i).outputBytes) / sram; });
  column([&](size_t i) { return double(node(i).weightBytes) / llc; });
  column([&](size_t i) { return double(node(i).outputBytes) / llc; });
  column([&](size_t i) {
    LiveRange range = graph.getActivationRange(i);
    return double(range.last - range.first) / double(count);
  });
  column([&](size_t i) { return double(i) / double(count); });
  column([&](size_t i) { return consumers[i]; });

  PolicyGraph policyGraph;
  policyGraph.nodes = count;
  policyGraph.featuresPerNode = columns.size();
  policyGraph.features.assign(count * columns.size(), 0.0f);
  for (size_t c = 0; c < columns.size(); ++c) {
    double mean = 0, squares = 0;
    for (double value : columns[c])
      mean += value;
    mean /= double(std::max<size_t>(count, 1));
    for (double value : columns[c])
      squares += (value - mean) * (value - mean);
    double deviation = std::sqrt(squares / double(std::max<size_t>(count, 1)));
    for (size_t i = 0; i < count; ++i)
      policyGraph.features[i * columns.size() + c] =
          deviation > 1e-12 ? float((columns[c][i] - mean) / deviation) : 0.0f;
  }
  for (size_t i = 0; i < count; ++i)
    for (int32_t input : graph.getInputsOf(i))
      policyGraph.edges.push_back({input, int32_t(i)});
  return policyGraph;
}

/// Draws a level from the Boltzmann softmax of three logits at a
/// temperature (App. E).
MemoryLevel sampleLevel(const float *logits, float temperature, Random &rng) {
  double weights[kNumMemoryLevels];
  double top = logits[0] / temperature;
  for (int l = 1; l < kNumMemoryLevels; ++l)
    top = std::max(top, double(logits[l] / temperature));
  double total = 0;
  for (int l = 0; l < kNumMemoryLevels; ++l)
    total += weights[l] = std::exp(double(logits[l] / temperature) - top);
  double draw = rng.uniform() * total;
  for (int l = 0; l < kNumMemoryLevels - 1; ++l) {
    if (draw < weights[l])
      return MemoryLevel(l);
    draw -= weights[l];
  }
  return MemoryLevel(kNumMemoryLevels - 1);
}

MemoryLevel greatestLevel(const float *logits) {
  return MemoryLevel(std::max_element(logits, logits + kNumMemoryLevels) -
                     logits);
}

/// The policy's rollout: a map drawn from its log-probabilities.
MemoryMap samplePolicy(const std::vector<float> &logProbabilities,
                       Random &rng) {
  MemoryMap map(logProbabilities.size() / kLogitsPerNode);
  for (size_t i = 0; i < map.size(); ++i) {
    const float *node = &logProbabilities[i * kLogitsPerNode];
    map[i] = {sampleLevel(node, 1.0f, rng),
              sampleLevel(node + kNumMemoryLevels, 1.0f, rng)};
  }
  return map;
}

/// The policy's deterministic action: its most likely level per decision.
MemoryMap greedyPolicy(const std::vector<float> &logProbabilities) {
  MemoryMap map(logProbabilities.size() / kLogitsPerNode);
  for (size_t i = 0; i < map.size(); ++i) {
    const float *node = &logProbabilities[i * kLogitsPerNode];
    map[i] = {greatestLevel(node), greatestLevel(node + kNumMemoryLevels)};
  }
  return map;
}

/// One node of a Boltzmann chromosome (App. E): prior logits of the weights'
/// and the activations' levels, and a temperature per decision.
struct BoltzmannGene {
  std::array<float, kLogitsPerNode> prior;
  std::array<float, kDecisionsPerNode> temperature;
};
using BoltzmannChromosome = std::vector<BoltzmannGene>;

BoltzmannChromosome randomChromosome(size_t count, Random &rng) {
  BoltzmannChromosome chromosome(count);
  for (BoltzmannGene &gene : chromosome) {
    for (float &logit : gene.prior)
      logit = float(rng.normal());
    gene.temperature.fill(kInitialTemperature);
  }
  return chromosome;
}

MemoryMap sampleChromosome(const BoltzmannChromosome &chromosome, Random &rng) {
  MemoryMap map(chromosome.size());
  for (size_t i = 0; i < map.size(); ++i) {
    const BoltzmannGene &gene = chromosome[i];
    map[i] = {sampleLevel(gene.prior.data(), gene.temperature[0], rng),
              sampleLevel(gene.prior.data() + kNumMemoryLevels,
                          gene.temperature[1], rng)};
  }
  return map;
}

/// Alg. 2 l. 19-20 for a Boltzmann chromosome: Gaussian noise on the priors
/// and log-temperatures of some nodes, so temperatures are learned too.
void mutate(BoltzmannChromosome &chromosome, Random &rng) {
  if (!(rng.uniform() < kMutationProb))
    return;
  for (BoltzmannGene &gene : chromosome) {
    if (!(rng.uniform() < kMutatedNodeShare))
      continue;
    for (float &logit : gene.prior)
      logit += float(kPriorNoise * rng.normal());
    for (float &temperature : gene.temperature)
      temperature = std::clamp(
          float(temperature * std::exp(kLogTemperatureNoise * rng.normal())),
          kMinTemperature, kMaxTemperature);
  }
}

/// Alg. 2 l. 16-17: the prior of a Boltzmann chromosome seeded from the
/// policy's posterior, keeping the temperatures it had.
void seedFromPolicy(BoltzmannChromosome &chromosome,
                    const std::vector<float> &logProbabilities) {
  for (size_t i = 0; i < chromosome.size(); ++i)
    std::copy_n(&logProbabilities[i * kLogitsPerNode], kLogitsPerNode,
                chromosome[i].prior.begin());
}

struct Member {
  bool boltzmann = false;
  /// A map chromosome, or a Boltzmann chromosome's last sample.
  MemoryMap map;
  BoltzmannChromosome chromosome;
  Evaluation evaluation;
  bool evaluated = false;
};

/// Evaluates `maps` in parallel and records them in order, in the tracker
/// and in the replay buffer (Alg. 2 l. 6-7: every policy's experience).
std::vector<Evaluation> evaluateAndRemember(const PlacementEvaluator &evaluator,
                                            llvm::ArrayRef<MemoryMap> maps,
                                            SearchTracker &tracker,
                                            GraphPolicyLearner &learner,
                                            Executor &executor) {
  std::vector<Evaluation> evaluations(maps.size());
  executor.parallelFor(maps.size(), [&](size_t k) {
    evaluations[k] = evaluator.evaluate(maps[k]);
  });
  for (size_t k = 0; k < maps.size(); ++k) {
    tracker.record(maps[k], evaluations[k]);
    learner.addExperience(maps[k], evaluations[k].reward);
  }
  return evaluations;
}
/// Algorithm 2 until the budget ends.
void evolveWithPolicy(const PlacementEvaluator &evaluator,
                      const PlacementSearchOptions &options, Executor &executor,
                      SearchTracker &tracker, Random &rng,
                      GraphPolicyLearner &learner) {
  size_t count = evaluator.getGraph().size();

  // A mixed population with random parameters (App. C); the first map is
  // App. B's initial action, all DRAM.
  size_t boltzmannCount =
      size_t(std::lround(kBoltzmannShare * double(kPopulation)));
  std::vector<Member> population(kPopulation);
  for (size_t k = 0; k < kPopulation; ++k) {
    Member &member = population[k];
    member.boltzmann = k >= kPopulation - boltzmannCount;
    if (member.boltzmann)
      member.chromosome = randomChromosome(count, rng);
    else
      member.map = k == 0 ? makeUniformMap(count, MemoryLevel::DRAM)
                          : randomMap(count, rng);
  }

  std::vector<size_t> rolledOut;
  std::vector<MemoryMap> maps;
  while (tracker.getEvaluations() < options.iterations &&
         !tracker.shouldStop()) {
    // Rollouts (Alg. 2 l. 5-7): new map chromosomes, a fresh sample of every
    // Boltzmann chromosome, and one noisy rollout of the policy -- within
    // the budget left.
    std::vector<float> posterior = learner.getLogProbabilities();
    rolledOut.clear();
    maps.clear();
    int64_t left = options.iterations - tracker.getEvaluations();
    for (size_t k = 0; k < population.size() && int64_t(maps.size()) < left;
         ++k) {
      Member &member = population[k];
      if (member.boltzmann)
        member.map = sampleChromosome(member.chromosome, rng);
      else if (member.evaluated)
        continue;
      rolledOut.push_back(k);
      maps.push_back(member.map);
    }
    if (int64_t(maps.size()) < left)
      maps.push_back(samplePolicy(posterior, rng));
    std::vector<Evaluation> evaluations =
        evaluateAndRemember(evaluator, maps, tracker, learner, executor);
    for (auto [k, evaluation] : llvm::zip_first(rolledOut, evaluations)) {
      population[k].evaluation = evaluation;
      population[k].evaluated = true;
    }
    // Members cut by the budget do not compete.
    llvm::erase_if(population,
                   [](const Member &member) { return !member.evaluated; });
    if (tracker.getEvaluations() >= options.iterations)
      break;

    // The learner: one gradient step per map evaluated (Alg. 2 l. 21-31).
    for (size_t step = 0; step < maps.size(); ++step)
      learner.train();
    posterior = learner.getLogProbabilities();

    // Rank, keep the elites, breed the rest (Alg. 2 l. 8-20).
    std::stable_sort(population.begin(), population.end(),
                     [](const Member &a, const Member &b) {
                       return a.evaluation.reward > b.evaluation.reward;
                     });
    size_t elites = std::min(kElites, population.size());
    std::vector<Member> next(population.begin(), population.begin() + elites);
    std::vector<double> rewards;
    for (const Member &member : population)
      rewards.push_back(member.evaluation.reward);
    while (next.size() < kPopulation) {
      const Member &chosen = population[selectByTournament(rewards, rng)];
      const Member &elite = population[size_t(rng.below(elites))];
      // The child keeps the encoding of the member selected (so the
      // Boltzmann share changes only by selection); crossover needs the
      // elite's to match, else the policy seeds the prior (l. 12-17).
      Member child;
      child.boltzmann = chosen.boltzmann;
      if (!child.boltzmann) {
        child.map = chosen.map;
        if (!elite.boltzmann)
          crossOver(child.map, elite.map, rng);
        evolution::mutate(child.map, rng);
      } else {
        child.chromosome = chosen.chromosome;
        if (elite.boltzmann)
          crossOver(child.chromosome, elite.chromosome, rng);
        else
          seedFromPolicy(child.chromosome, posterior);
        mutate(child.chromosome, rng);
      }
      next.push_back(std::move(child));
    }
    // Migration (l. 32): the policy's deterministic action replaces the
    // last offspring (the new generation has no fitness yet to say which is
    // weakest; the oldest elites are never replaced).
    Member &migrant = next.back();
    migrant = Member();
    migrant.map = greedyPolicy(posterior);
    population = std::move(next);
  }
}

/// The learner alone until the budget ends.
void trainPolicyAlone(const PlacementEvaluator &evaluator,
                      const PlacementSearchOptions &options, Executor &executor,
                      SearchTracker &tracker, Random &rng,
                      GraphPolicyLearner &learner) {
  size_t count = evaluator.getGraph().size();
  // App. B's initial action first, then one rollout of the policy and one
  // gradient step per iteration (App. B "PG rollout size" 1).
  MemoryMap map = makeUniformMap(count, MemoryLevel::DRAM);
  while (tracker.getEvaluations() < options.iterations &&
         !tracker.shouldStop()) {
    evaluateAndRemember(evaluator, map, tracker, learner, executor);
    learner.train();
    map = samplePolicy(learner.getLogProbabilities(), rng);
  }
}

/// Runs `search` with the tracker, the search's generator and a learner on
/// the evaluator's graph (an empty graph needs none).
llvm::Expected<PlacementSearchResult> runWithLearner(
    llvm::StringRef name, const PlacementEvaluator &evaluator,
    const PlacementSearchOptions &options, Executor &executor,
    void (*search)(const PlacementEvaluator &, const PlacementSearchOptions &,
                   Executor &, SearchTracker &, Random &,
                   GraphPolicyLearner &)) {
  if (llvm::Error error = loadGraphPolicyLearnerModule(name))
    return std::move(error);
  SearchTracker tracker(evaluator, options);
  if (evaluator.getGraph().size() > 0) {
    Random rng(options.seed);
    llvm::Expected<std::unique_ptr<GraphPolicyLearner>> learner =
        createGraphPolicyLearner(name, buildPolicyGraph(evaluator),
                                 SacHyperParameters(),
                                 options.seed ^ kLearnerSeedSalt);
    if (!learner)
      return learner.takeError();
    search(evaluator, options, executor, tracker, rng, **learner);
  }
  return tracker.finish();
}
} // namespace

llvm::Expected<PlacementSearchResult>
detail::runEgrl(const PlacementEvaluator &evaluator,
                const PlacementSearchOptions &options, Executor &executor) {
  return runWithLearner("egrl", evaluator, options, executor, evolveWithPolicy);
}

llvm::Expected<PlacementSearchResult>
detail::runPolicyGradient(const PlacementEvaluator &evaluator,
                          const PlacementSearchOptions &options,
                          Executor &executor) {
  return runWithLearner("pg", evaluator, options, executor, trainPolicyAlone);
}

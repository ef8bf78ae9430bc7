//===- GraphPolicyLearner.h - The GNN policy trained by SAC -----*- C++ -*-===//
//
// The learned part of Khadka et al. (EGRL): a Graph U-Net policy over the
// workload graph (§3, App. A/B) trained off-policy with the paper's discrete
// SAC (App. D) from a replay buffer of (map, reward) pairs. With one step per
// episode (App. B) the state is the graph itself, so an experience is a map
// and its reward.
//
// This header is torch-free on purpose. The learner is implemented in
// GraphPolicyLearner.cpp, the one translation unit that includes libtorch,
// built (with DSM_ENABLE_TORCH) as the loadable module DsmMemoryLearning.so,
// which createGraphPolicyLearner loads on first use (LearnerModule.cpp).
// Loading libtorch costs a third of a second and 160 MB at start-up, so only
// placement=egrl and pg pay it, not every dsm-opt run.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_LIB_MEMORY_LEARNING_GRAPHPOLICYLEARNER_H
#define DSM_LIB_MEMORY_LEARNING_GRAPHPOLICYLEARNER_H

#include "dsm/Core/Memory/MemoryMap.h"

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace dsm::core::memory::learning {

/// The two decisions of a node (weights, activations), 3 levels each.
constexpr int kDecisionsPerNode = 2;
constexpr int kLogitsPerNode = kDecisionsPerNode * kNumMemoryLevels;

/// The state of §3: node features (App. A) and the layer graph's edges.
struct PolicyGraph {
  size_t nodes = 0;
  size_t featuresPerNode = 0;
  /// nodes x featuresPerNode, row-major, already normalised.
  std::vector<float> features;
  /// (producer, consumer) pairs; the network adds the reverse edges and
  /// self-loops.
  std::vector<std::pair<int32_t, int32_t>> edges;
};

/// App. B's values; where the paper gives none, ours
/// (docs/memory-placement.md).
struct SacHyperParameters {
  int hiddenSize = 128;             ///< App. B "GNN hidden layer size"
  int attentionHeads = 4;           ///< App. B "Number of GNN attention heads"
  int depth = 4;                    ///< App. B "GNN depth": attention layers
  double actorLearningRate = 1e-3;  ///< App. B
  double criticLearningRate = 1e-3; ///< App. B
  double alpha = 0.05;              ///< App. B entropy coefficient
  int batchSize = 24;               ///< App. B "Batch size for PG"
  double rewardScale = 5;           ///< App. B "Reward scaling multiplier"
  size_t replayCapacity = 100000;   ///< App. B "Replay buffer size"
  /// App. D's noisy one-hot action: N(0, sigma^2) clipped to [-c, c]. The
  /// paper gives no values; TD3's target smoothing ones.
  double actionNoiseSigma = 0.2;
  double actionNoiseClip = 0.5;
  /// Share of the nodes each Graph U-Net pooling keeps (Gao and Ji's gPool;
  /// not in App. B).
  double poolingRatio = 0.5;
};

/// The actor (Graph U-Net policy), the critic with two Q heads, their
/// optimizers and the shared replay buffer. Not thread-safe; every random
/// draw comes from the seed, and libtorch runs on one intra-op thread, so the
/// same seed gives the same training.
class GraphPolicyLearner {
public:
  virtual ~GraphPolicyLearner() = default;

  /// The policy's log-probabilities: nodes x kLogitsPerNode, per node the
  /// weights' 3 levels then the activations' 3 levels (DRAM, LLC, SRAM).
  virtual std::vector<float> getLogProbabilities() = 0;

  /// Stores one experience in the cyclic replay buffer (Alg. 2 l. 7).
  virtual void addExperience(const MemoryMap &map, double reward) = 0;
  virtual size_t getExperienceCount() const = 0;

  /// One gradient step of the critic and the actor on a minibatch, and the
  /// target network's soft update (Alg. 2 l. 23-31). No-op until the buffer
  /// holds a minibatch.
  virtual void train() = 0;

  /// The critic's last loss and the actor's last entropy (for tests).
  virtual double getLastCriticLoss() const = 0;
  virtual double getLastEntropy() const = 0;
};

/// Loads the module if it is not loaded yet (once per process): success, or
/// why `placement` cannot run -- built without libtorch, or the module not
/// found or not loadable.
llvm::Error loadGraphPolicyLearnerModule(llvm::StringRef placement);

/// A learner for `graph`, from the module (loaded by the first call).
llvm::Expected<std::unique_ptr<GraphPolicyLearner>>
createGraphPolicyLearner(llvm::StringRef placement, const PolicyGraph &graph,
                         const SacHyperParameters &parameters, uint64_t seed);

/// The module's one entry point, looked up by this name; the version in the
/// name changes whenever the interface above does, so a stale module is
/// refused instead of called. On failure it returns null and sets `error`.
#define DSM_GRAPH_POLICY_LEARNER_ENTRY dsmCreateGraphPolicyLearnerV1
using CreateGraphPolicyLearnerFn = GraphPolicyLearner *(
    const PolicyGraph &graph, const SacHyperParameters &parameters,
    uint64_t seed, std::string &error);

} // namespace dsm::core::memory::learning

#endif // DSM_LIB_MEMORY_LEARNING_GRAPHPOLICYLEARNER_H

//===- GraphPolicyLearner.cpp - The GNN policy trained by SAC -------------===//
//
// The only translation unit that includes libtorch (it compiles slowly), and
// the whole of the module DsmMemoryLearning.so: its one exported symbol is
// DSM_GRAPH_POLICY_LEARNER_ENTRY, which LearnerModule.cpp looks up.
//
// Actor: Gao and Ji's Graph U-Net (§3) whose convolutions are multi-head
// graph attention (App. B: 4 heads, width 128, depth 4 = two attention
// layers down with a gPool after each, one at the bottom, one up after a
// gUnpool, skip connections by addition), a linear head giving each node 2 x
// 3 logits. Critic: two residual graph convolutions over the node features
// concatenated with the (noisy one-hot) action, mean and max readout, two Q
// heads (App. D: "the minimum of two heads from the Q-Network").
//
// SAC as App. D modifies it: entropy computed exactly and averaged over the
// nodes, the critic regressed on a noisy one-hot action, the actor trained
// with the sampled policy gradient through the critic (its probabilities are
// the critic's action), fixed entropy coefficient alpha (App. B). With one
// step per episode (App. B) every transition is terminal: the Bellman target
// is the scaled reward, and a target critic (App. B's tau) would be updated
// but never read, so there is none (docs/memory-placement.md).
//
//===----------------------------------------------------------------------===//

#include "GraphPolicyLearner.h"

#include "dsm/Core/Support/Random.h"

#include <ATen/Parallel.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/adam.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <type_traits>

#ifdef __GLIBC__
#include <malloc.h>
#endif

using namespace dsm::core;
using namespace dsm::core::memory;
using namespace dsm::core::memory::learning;
using torch::Tensor;

namespace {

/// A graph as the layers see it: its adjacency with self-loops (symmetric,
/// 0/1), the additive mask that keeps attention on edges and, for the
/// workload's graph, the critic's propagation D^-1/2 A D^-1/2.
struct GraphMask {
  Tensor adjacency, mask, propagation;
};

GraphMask makeMask(Tensor adjacency) {
  GraphMask graph;
  graph.adjacency = std::move(adjacency);
  graph.mask = (1 - graph.adjacency) * -1e9;
  return graph;
}

GraphMask makeGraphMask(const PolicyGraph &graph) {
  int64_t nodes = int64_t(graph.nodes);
  std::vector<float> adjacency(size_t(nodes * nodes), 0.0f);
  for (int64_t node = 0; node < nodes; ++node)
    adjacency[size_t(node * nodes + node)] = 1;
  for (auto [producer, consumer] : graph.edges) {
    adjacency[size_t(producer * nodes + consumer)] = 1;
    adjacency[size_t(consumer * nodes + producer)] = 1;
  }
  GraphMask mask =
      makeMask(torch::from_blob(adjacency.data(), {nodes, nodes}, torch::kFloat)
                   .clone());
  Tensor scale = mask.adjacency.sum(1).rsqrt();
  mask.propagation = scale.unsqueeze(1) * mask.adjacency * scale.unsqueeze(0);
  return mask;
}

/// The graph on the nodes `kept` that gPool leaves, with Gao and Ji's
/// augmentation: kept nodes two hops apart are connected (A^2), so pooling
/// does not cut the graph apart.
GraphMask poolMask(const GraphMask &graph, const Tensor &kept) {
  Tensor twoHops = (graph.adjacency.mm(graph.adjacency) > 0).to(torch::kFloat);
  return makeMask(twoHops.index_select(0, kept).index_select(1, kept));
}

/// Multi-head graph attention (Velickovic et al.) over a batch of node
/// feature sets [batch, nodes, in] of one graph. Dense: the graphs have at
/// most a few hundred nodes, and a few large products beat many gathers.
struct GraphAttentionImpl : torch::nn::Module {
  GraphAttentionImpl(int64_t in, int64_t heads, int64_t perHead)
      : heads(heads), perHead(perHead) {
    projection = register_module(
        "projection",
        torch::nn::Linear(
            torch::nn::LinearOptions(in, heads * perHead).bias(false)));
    sourceScore =
        register_parameter("source_score", torch::empty({heads, 1, perHead}));
    targetScore =
        register_parameter("target_score", torch::empty({heads, 1, perHead}));
    bias = register_parameter("bias", torch::empty({heads * perHead}));
  }

  Tensor forward(const Tensor &x, const GraphMask &graph) {
    int64_t batch = x.size(0), nodes = x.size(1);
    Tensor h = projection->forward(x)
                   .view({batch, nodes, heads, perHead})
                   .transpose(1, 2); // [batch, heads, nodes, perHead]
    // score[b, k, i, j]: how much node i attends to its neighbour j.
    Tensor score =
        torch::leaky_relu((h * targetScore).sum(-1, true) +
                              (h * sourceScore).sum(-1).unsqueeze(-2),
                          0.2) +
        graph.mask;
    Tensor out = torch::matmul(torch::softmax(score, -1), h);
    return out.transpose(1, 2).reshape({batch, nodes, heads * perHead}) + bias;
  }

  int64_t heads, perHead;
  torch::nn::Linear projection{nullptr};
  Tensor sourceScore, targetScore, bias;
};
TORCH_MODULE(GraphAttention);

/// The actor: a Graph U-Net over one graph, [1, nodes, features] to
/// [nodes, 2, 3] logits.
struct GraphUNetImpl : torch::nn::Module {
  GraphUNetImpl(int64_t features, const SacHyperParameters &parameters)
      : ratio(parameters.poolingRatio) {
    int64_t width = parameters.hiddenSize, heads = parameters.attentionHeads;
    input = register_module("input", torch::nn::Linear(features, width));
    for (int layer = 0; layer < 4; ++layer)
      layers.push_back(
          register_module("attention" + std::to_string(layer),
                          GraphAttention(width, heads, width / heads)));
    for (int level = 0; level < 2; ++level)
      poolProjections.push_back(register_parameter(
          "pool" + std::to_string(level), torch::empty({width})));
    head = register_module("head", torch::nn::Linear(width, kLogitsPerNode));
  }

  /// gPool: keeps the ceil(ratio * n) nodes whose projection on `p` scores
  /// highest (in their order), scaled by their gate tanh(score).
  Tensor pool(const Tensor &x, const Tensor &p, const GraphMask &graph,
              Tensor &kept, GraphMask &pooled) {
    Tensor score = torch::tanh(torch::matmul(x, p) / p.norm()); // [1, n]
    int64_t keep =
        std::max<int64_t>(1, int64_t(std::ceil(ratio * double(x.size(1)))));
    kept = std::get<0>(torch::sort(std::get<1>(score.topk(keep, 1)), 1))
               .view({-1});
    pooled = poolMask(graph, kept);
    return x.index_select(1, kept) * score.index_select(1, kept).unsqueeze(-1);
  }

  /// gUnpool: back to the skip connection's nodes, zeros where pooled out,
  /// plus the skip connection.
  static Tensor unpool(const Tensor &x, const Tensor &kept,
                       const Tensor &skip) {
    return torch::zeros_like(skip).index_copy(1, kept, x) + skip;
  }

  Tensor forward(const Tensor &x, const GraphMask &graph) {
    Tensor kept1, kept2;
    GraphMask graph1, graph2;
    Tensor level0 =
        torch::elu(layers[0]->forward(torch::elu(input->forward(x)), graph));
    Tensor level1 = torch::elu(layers[1]->forward(
        pool(level0, poolProjections[0], graph, kept1, graph1), graph1));
    Tensor bottom = torch::elu(layers[2]->forward(
        pool(level1, poolProjections[1], graph1, kept2, graph2), graph2));
    Tensor up1 =
        torch::elu(layers[3]->forward(unpool(bottom, kept2, level1), graph1));
    Tensor up0 = unpool(up1, kept1, level0);
    return head->forward(up0).view({-1, kDecisionsPerNode, kNumMemoryLevels});
  }

  double ratio;
  torch::nn::Linear input{nullptr}, head{nullptr};
  std::vector<GraphAttention> layers;
  std::vector<Tensor> poolProjections;
};
TORCH_MODULE(GraphUNet);

/// The critic: Q(graph, map) for a batch of maps of one graph, two heads.
/// Its layers are graph convolutions (Kipf and Welling), not attention: one
/// propagation matrix serves the whole minibatch as a single matrix product,
/// where attention would be one small product per map and head (the paper
/// does not describe its critic).
struct TwinCriticImpl : torch::nn::Module {
  TwinCriticImpl(int64_t features, const SacHyperParameters &parameters) {
    int64_t width = parameters.hiddenSize;
    input = register_module(
        "input", torch::nn::Linear(features + kLogitsPerNode, width));
    for (int layer = 0; layer < 2; ++layer)
      layers.push_back(register_module("convolution" + std::to_string(layer),
                                       torch::nn::Linear(width, width)));
    for (int q = 0; q < 2; ++q) {
      hidden.push_back(register_module("hidden" + std::to_string(q),
                                       torch::nn::Linear(2 * width, width)));
      value.push_back(register_module("value" + std::to_string(q),
                                      torch::nn::Linear(width, 1)));
    }
  }

  /// features [batch, nodes, f], actions [batch, nodes, 6] -> [batch, 2].
  Tensor forward(const Tensor &features, const Tensor &actions,
                 const GraphMask &graph) {
    int64_t batch = actions.size(0), nodes = actions.size(1);
    Tensor h = torch::elu(input->forward(torch::cat({features, actions}, -1)));
    for (torch::nn::Linear &layer : layers) {
      // P (h W) for every map at once: [nodes, batch * width].
      Tensor mixed = layer->forward(h).transpose(0, 1).reshape({nodes, -1});
      h = h + torch::elu(graph.propagation.mm(mixed)
                             .view({nodes, batch, -1})
                             .transpose(0, 1));
    }
    Tensor readout =
        torch::cat({h.mean(1), std::get<0>(h.max(1))}, -1); // [batch, 2w]
    std::vector<Tensor> q;
    for (int k = 0; k < 2; ++k)
      q.push_back(value[size_t(k)]->forward(
          torch::elu(hidden[size_t(k)]->forward(readout))));
    return torch::cat(q, -1);
  }

  torch::nn::Linear input{nullptr};
  std::vector<torch::nn::Linear> layers, hidden, value;
};
TORCH_MODULE(TwinCritic);

/// Parameters drawn from the search's portable generator, not libtorch's:
/// uniform in +-1/sqrt(fan-in) like torch.nn.Linear's default.
void initialise(torch::nn::Module &module, Random &rng) {
  torch::NoGradGuard noGrad;
  for (Tensor &parameter : module.parameters()) {
    int64_t fanIn = parameter.dim() >= 2 ? parameter.numel() / parameter.size(0)
                                         : parameter.numel();
    double bound = 1.0 / std::sqrt(double(fanIn));
    std::vector<float> values(size_t(parameter.numel()));
    for (float &value : values)
      value = float((2 * rng.uniform() - 1) * bound);
    parameter.copy_(
        torch::from_blob(values.data(), parameter.sizes(), torch::kFloat));
  }
}

/// The learner's state: the networks, their optimizers, the replay buffer.
struct LearnerState {
  LearnerState(const PolicyGraph &graph, const SacHyperParameters &parameters,
               uint64_t seed)
      : parameters(parameters), rng(seed), nodes(int64_t(graph.nodes)),
        graphMask(makeGraphMask(graph)),
        actor(int64_t(graph.featuresPerNode), parameters),
        critic(int64_t(graph.featuresPerNode), parameters),
        actorOptimizer(actor->parameters(),
                       torch::optim::AdamOptions(parameters.actorLearningRate)),
        criticOptimizer(
            critic->parameters(),
            torch::optim::AdamOptions(parameters.criticLearningRate)) {
    features = torch::from_blob(const_cast<float *>(graph.features.data()),
                                {1, nodes, int64_t(graph.featuresPerNode)},
                                torch::kFloat)
                   .clone();
    initialise(*actor, rng);
    initialise(*critic, rng);
    actions.reserve(std::min<size_t>(parameters.replayCapacity, 4096));
  }

  /// The actor's log-probabilities [nodes, 2, 3].
  Tensor logProbabilities() {
    return torch::log_softmax(actor->forward(features, graphMask), -1);
  }

  void train() {
    size_t stored = rewards.size();
    int64_t batch = parameters.batchSize;
    if (stored < size_t(batch))
      return;
    // A minibatch of noisy one-hot actions (App. D) and scaled rewards.
    std::vector<float> noisy(size_t(batch * nodes * kLogitsPerNode));
    std::vector<float> targets(static_cast<size_t>(batch));
    for (int64_t b = 0; b < batch; ++b) {
      size_t sample = size_t(rng.below(stored));
      targets[size_t(b)] = float(parameters.rewardScale * rewards[sample]);
      const MemoryMap &map = actions[sample];
      float *row = &noisy[size_t(b * nodes * kLogitsPerNode)];
      for (int64_t i = 0; i < nodes; ++i) {
        float *node = row + i * kLogitsPerNode;
        node[int(map[size_t(i)].weights)] = 1;
        node[kNumMemoryLevels + int(map[size_t(i)].activations)] = 1;
        for (int k = 0; k < kLogitsPerNode; ++k)
          node[k] += float(std::clamp(
              parameters.actionNoiseSigma * rng.normal(),
              -parameters.actionNoiseClip, parameters.actionNoiseClip));
      }
    }
    Tensor actionBatch = torch::from_blob(
        noisy.data(), {batch, nodes, kLogitsPerNode}, torch::kFloat);
    Tensor y = torch::from_blob(targets.data(), {batch, 1}, torch::kFloat)
                   .expand({batch, 2});
    Tensor featureBatch = features.expand({batch, nodes, features.size(2)});

    // Critic: both heads regress on the (terminal) target.
    Tensor criticLoss = torch::mse_loss(
        critic->forward(featureBatch, actionBatch, graphMask), y);
    criticOptimizer.zero_grad();
    criticLoss.backward();
    criticOptimizer.step();
    lastCriticLoss = criticLoss.item<double>();

    // Actor: maximise min(Q1, Q2) of its own probabilities plus alpha times
    // its entropy, averaged over the nodes' decisions.
    Tensor logP = logProbabilities();
    Tensor p = logP.exp();
    Tensor entropy = -(p * logP).sum(-1).mean();
    Tensor q = critic->forward(features, p.view({1, nodes, kLogitsPerNode}),
                               graphMask);
    Tensor actorLoss =
        -(std::get<0>(q.min(-1)).mean() + parameters.alpha * entropy);
    actorOptimizer.zero_grad();
    actorLoss.backward();
    actorOptimizer.step();
    lastEntropy = entropy.item<double>();
  }

  SacHyperParameters parameters;
  Random rng;
  int64_t nodes;
  GraphMask graphMask;
  Tensor features;
  GraphUNet actor;
  TwinCritic critic;
  torch::optim::Adam actorOptimizer, criticOptimizer;
  /// The cyclic replay buffer.
  std::vector<MemoryMap> actions;
  std::vector<double> rewards;
  size_t nextSlot = 0;
  double lastCriticLoss = 0, lastEntropy = 0;
};

class TorchGraphPolicyLearner final : public GraphPolicyLearner {
public:
  TorchGraphPolicyLearner(const PolicyGraph &graph,
                          const SacHyperParameters &parameters, uint64_t seed) {
    // One intra-op thread: the same result whatever the machine, and the
    // population's evaluations own the other cores.
    at::set_num_threads(1);
#ifdef __GLIBC__
    // Every gradient step allocates and frees the same megabyte-sized
    // tensors; glibc's defaults hand them to mmap/munmap and trim the heap
    // each time, which cost a third of a ResNet-50 run in system time. Keep
    // blocks up to 64 MiB on the heap and trim only past 256 MiB free.
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
    impl = std::make_unique<LearnerState>(graph, parameters, seed);
  }

  std::vector<float> getLogProbabilities() override {
    torch::NoGradGuard noGrad;
    Tensor logP = impl->logProbabilities().contiguous();
    return std::vector<float>(logP.data_ptr<float>(),
                              logP.data_ptr<float>() + logP.numel());
  }

  void addExperience(const MemoryMap &map, double reward) override {
    if (impl->rewards.size() < impl->parameters.replayCapacity) {
      impl->actions.push_back(map);
      impl->rewards.push_back(reward);
      return;
    }
    impl->actions[impl->nextSlot] = map;
    impl->rewards[impl->nextSlot] = reward;
    impl->nextSlot = (impl->nextSlot + 1) % impl->parameters.replayCapacity;
  }

  size_t getExperienceCount() const override { return impl->rewards.size(); }

  void train() override { impl->train(); }

  double getLastCriticLoss() const override { return impl->lastCriticLoss; }
  double getLastEntropy() const override { return impl->lastEntropy; }

private:
  /// Built after the settings above, which must precede any tensor.
  std::unique_ptr<LearnerState> impl;
};
} // namespace

/// The module's entry point (GraphPolicyLearner.h). libtorch reports errors
/// (an allocation failing, say) by exception; none crosses the module.
extern "C" __attribute__((visibility("default"))) GraphPolicyLearner *
DSM_GRAPH_POLICY_LEARNER_ENTRY(const PolicyGraph &graph,
                               const SacHyperParameters &parameters,
                               uint64_t seed, std::string &error) {
  static_assert(
      std::is_same_v<decltype(DSM_GRAPH_POLICY_LEARNER_ENTRY),
                     CreateGraphPolicyLearnerFn>,
      "the entry point must have the type LearnerModule.cpp calls it by");
  try {
    return new TorchGraphPolicyLearner(graph, parameters, seed);
  } catch (const std::exception &exception) {
    error = exception.what();
    return nullptr;
  }
}

//===- MapElites.cpp - MAP-Elites of §3.2.3 -------------------------------===//
//
// An archive with one elite per niche; niches are (devices used, tensor
// transfers in 40 bins, modal device), Table 4.4. Each candidate comes from a
// tournament of 10 over the archive (with the crossover rate, two parents
// crossed at one point into one child), then each mutation applies once with
// its rate: random (one op to another device), copy (an op takes the device
// of the op before it), replace (every op of one device moves to another),
// zone (a run of ops to one device); a candidate left unchanged gets a random
// mutation. It enters the archive if its niche is empty or it beats the
// niche's elite. As the thesis's parallel version, a batch of candidates is
// made from one archive state and evaluated together; the batch size is
// fixed, so the result does not depend on the executor.
//
//===----------------------------------------------------------------------===//

#include "DeviceSearches.h"
#include "dsm/Core/Devices/DevicePlacementSearch.h"

#include <algorithm>

using namespace dsm::core::devices;
using namespace dsm::core::devices::detail;

namespace {
struct Elite {
  Placement genes;
  double fitness;
};
} // namespace

void detail::runMapElites(PlacementEvaluator &evaluator, const OpGraph &graph,
                          const SearchOptions &search, size_t devices) {
  const MapElitesOptions &options = search.mapElites;
  Random random(search.seed);
  size_t genes = graph.size();
  int64_t budget = search.evaluations;
  size_t bins = size_t(std::max(1, options.transferBins));
  int64_t maxTransfers = 0;
  for (size_t op = 0; op < genes; ++op)
    maxTransfers += std::min<int64_t>(
        int64_t(graph.getConsumers(int32_t(op)).size()), int64_t(devices) - 1);

  std::vector<Elite> elites;
  std::vector<int32_t> cellElite(devices * devices * bins, -1);
  auto niche = [&](const Placement &placement) {
    size_t used = size_t(countDevicesUsed(placement, devices)) - 1;
    size_t modal = size_t(getModalDevice(placement, devices));
    size_t bin = size_t(countTransfers(graph, placement)) * bins /
                 size_t(maxTransfers + 1);
    return (used * devices + modal) * bins + bin;
  };
  auto insert = [&](Placement placement, double fitness) {
    int32_t &slot = cellElite[niche(placement)];
    if (slot < 0) {
      slot = int32_t(elites.size());
      elites.push_back({std::move(placement), fitness});
    } else if (fitness < elites[slot].fitness) {
      elites[slot] = {std::move(placement), fitness};
    }
  };
  auto tournament = [&]() -> const Placement & {
    const Elite *best = nullptr;
    for (int32_t i = 0; i < std::max(1, options.tournamentSize); ++i) {
      const Elite &entrant = elites[random.below(elites.size())];
      if (!best || entrant.fitness < best->fitness)
        best = &entrant;
    }
    return best->genes;
  };

  size_t batch = size_t(std::max(1, options.batchSize));
  std::vector<Placement> candidates;
  std::vector<double> fitness;
  while (evaluator.getEvaluations() < budget && !evaluator.shouldStop()) {
    size_t count = size_t(
        std::min<int64_t>(int64_t(batch), budget - evaluator.getEvaluations()));
    candidates.clear();
    for (size_t i = 0; i < count; ++i) {
      if (elites.empty()) {
        candidates.push_back(randomPlacement(genes, devices, random));
        continue;
      }
      Placement child = tournament();
      bool changed = false;
      if (genes > 1 && elites.size() > 1 &&
          random.uniform() < options.crossoverRate) {
        const Placement &other = tournament();
        size_t point = 1 + random.below(genes - 1);
        std::copy(other.begin() + point, other.end(), child.begin() + point);
        changed = true;
      }
      if (random.uniform() < options.mutationRate) {
        mutateOneGene(child, devices, random);
        changed = true;
      }
      if (genes > 1 && random.uniform() < options.copyMutationRate) {
        size_t at = 1 + random.below(genes - 1);
        child[at] = child[at - 1];
        changed = true;
      }
      if (devices > 1 && random.uniform() < options.replaceMutationRate) {
        int32_t from = child[random.below(genes)];
        int32_t to = int32_t(random.below(devices - 1));
        to = to >= from ? to + 1 : to;
        std::replace(child.begin(), child.end(), from, to);
        changed = true;
      }
      if (random.uniform() < options.zoneMutationRate) {
        mutateZone(child, devices, random);
        changed = true;
      }
      if (!changed)
        mutateOneGene(child, devices, random);
      candidates.push_back(std::move(child));
    }
    fitness.resize(count);
    evaluator.evaluate(candidates, fitness);
    for (size_t i = 0; i < count; ++i)
      insert(std::move(candidates[i]), fitness[i]);
  }
}

//===- Random.h - A seeded generator the searches share ---------*- C++ -*-===//
//
// xoshiro256** seeded through splitmix64: the same seed gives the same
// sequence on every platform and standard library (std::uniform_*_distribution
// does not promise that), so a search is reproducible from its seed.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SUPPORT_RANDOM_H
#define DSM_CORE_SUPPORT_RANDOM_H

#include <cmath>
#include <cstdint>

namespace dsm::core {

class Random {
public:
  explicit Random(uint64_t seed) {
    for (uint64_t &word : state) {
      seed += 0x9e3779b97f4a7c15ULL;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      word = z ^ (z >> 31);
    }
  }

  uint64_t next() {
    uint64_t result = rotl(state[1] * 5, 7) * 9;
    uint64_t t = state[1] << 17;
    state[2] ^= state[0];
    state[3] ^= state[1];
    state[1] ^= state[2];
    state[0] ^= state[3];
    state[2] ^= t;
    state[3] = rotl(state[3], 45);
    return result;
  }

  /// Uniform in [0, bound), bound > 0.
  uint64_t below(uint64_t bound) {
    // Lemire's multiply-shift: unbiased enough for search, and fast.
    return uint64_t((__uint128_t(next()) * bound) >> 64);
  }

  /// Uniform in [0, 1).
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }

  /// Standard normal (Box-Muller).
  double normal() {
    double u = uniform(), v = uniform();
    return std::sqrt(-2.0 * std::log1p(-u)) * std::cos(6.283185307179586 * v);
  }

private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t state[4];
};

} // namespace dsm::core

#endif // DSM_CORE_SUPPORT_RANDOM_H

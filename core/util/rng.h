#pragma once
// Seeded random numbers. One engine type everywhere so a seed means the same thing in the
// trainer, the data shuffler and the tests.
#include <cstdint>
#include <random>

namespace core::util {

using Rng = std::mt19937_64;

// Derives an independent stream from a seed and a purpose tag (e.g. "init", "shuffle").
inline Rng makeRng(std::uint64_t seed, std::uint64_t stream = 0) {
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(stream), static_cast<std::uint32_t>(stream >> 32)};
  return Rng(seq);
}

}  // namespace core::util

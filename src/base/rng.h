// rng.h: a small seeded generator whose stream is identical natively and in
// WebAssembly. (std:: distributions differ between libstdc++ and libc++, so the
// core never uses them: the same seed must give the same curve everywhere.)
#pragma once

#include <cmath>
#include <cstdint>

#include "base/tensor.h"

namespace attn {

// SplitMix64 (Steele, Lea, Flood 2014): one 64-bit state, full period, good enough
// for initialisation, sampling and dropout in a teaching lab.
struct Rng {
  uint64_t state = 0x853c49e6748fea9bULL;

  explicit Rng(uint64_t seed = 0) : state(seed * 0x9e3779b97f4a7c15ULL + 0x853c49e6748fea9bULL) {}

  uint64_t next_u64() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1): the top 24 bits, so every value is exactly representable.
  float uniform() { return float(next_u64() >> 40) * (1.0f / 16777216.0f); }
  // Uniform in the open interval (0, 1): safe to take log of.
  float uniform_open() { return (float(next_u64() >> 40) + 0.5f) * (1.0f / 16777216.0f); }
  float uniform(float lo, float hi) { return lo + (hi - lo) * uniform(); }
  // Standard normal by Box-Muller (one of the pair; simple and deterministic).
  float normal() {
    const float u1 = uniform_open(), u2 = uniform();
    return std::sqrt(-2.0f * std::log(u1)) * std::cos(6.2831853071795864f * u2);
  }
  // Integer in [0, n).
  uint32_t below(uint32_t n) { return uint32_t((next_u64() >> 32) % n); }
};

// A (rows, cols) matrix with entries uniform in [-limit, limit), filled row by row
// (the order matters: it fixes which random number lands where).
inline Mat uniform_matrix(Rng& rng, int rows, int cols, float limit) {
  Mat M(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) M(r, c) = rng.uniform(-limit, limit);
  return M;
}

}  // namespace attn

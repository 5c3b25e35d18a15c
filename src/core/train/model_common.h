// model_common.h: small types shared by the trainable models.
#pragma once

#include <cstdint>
#include <string>

namespace attn::train {

// What evaluate() reports over a data set.
struct EvalResult {
  float loss = 0.0f;      // mean loss per prediction (per token for seq2seq)
  float accuracy = 0.0f;  // fraction of correct predictions, in [0, 1]
  int count = 0;          // how many predictions were scored
};

// One tensor of a model, for a "every tensor shape" table in the lessons.
struct ShapeInfo {
  std::string name;   // "embedded X"
  std::string shape;  // "(batch, n, d_model) = (32, 12, 32)"
  std::string note;   // what it is / where it comes from
};

// A seed for one (step, example) pair, so dropout masks and samples are fixed by
// the model's seed and the step count alone (and a loss can be recomputed with
// exactly the same randomness, which the gradient checks rely on).
inline uint64_t mix_seed(uint64_t seed, uint64_t step, uint64_t example) {
  uint64_t z = seed ^ (step * 0x9e3779b97f4a7c15ULL) ^ (example * 0xc2b2ae3d27d4eb4fULL);
  z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ULL;
  return z ^ (z >> 29);
}

}  // namespace attn::train

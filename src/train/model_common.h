// model_common.h: small types shared by the trainable models.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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

// The loop every model's loss and gradient share: the mean over a batch of
// per_example(i, scale), where i indexes the data set and scale = 1 / batch
// size is what a backward pass multiplies its loss gradient by. The sum is kept
// in double and taken in batch order, so every model's losses stay the same
// bits natively and in WebAssembly. An empty batch gives 0.
template <typename PerExample>
float mean_over_batch(const std::vector<int>& batch, PerExample&& per_example) {
  if (batch.empty()) return 0.0f;
  const float scale = 1.0f / float(batch.size());
  double total = 0.0;
  for (int i : batch) total += per_example(i, scale);
  return float(total / double(batch.size()));
}

// Held-out results of a classifier: score(example) returns {loss, right} for
// one example of the set.
struct ExampleScore {
  float loss = 0.0f;
  bool right = false;
};
template <typename Example, typename Score>
EvalResult evaluate_examples(const std::vector<Example>& set, Score&& score) {
  EvalResult ev;
  double total = 0.0;
  int right = 0;
  for (const Example& ex : set) {
    const ExampleScore s = score(ex);
    total += s.loss;
    right += s.right;
  }
  ev.count = int(set.size());
  if (ev.count) {
    ev.loss = float(total / ev.count);
    ev.accuracy = float(right) / float(ev.count);
  }
  return ev;
}

}  // namespace attn::train

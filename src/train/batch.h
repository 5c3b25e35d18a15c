// batch.h: mini-batches drawn from a data set of n examples, epoch by epoch.
// Each epoch is a fresh seeded shuffle (Fisher-Yates with attn::Rng) cut into
// consecutive batches, so every example is seen exactly once per epoch; the last
// batch of an epoch is smaller when batch_size does not divide n.
#pragma once

#include <cstdint>
#include <vector>

#include "base/rng.h"

namespace attn::train {

struct BatchOrder {
  int n = 0;
  int batch_size = 1;
  Rng rng;
  std::vector<int> order;  // the current epoch's permutation of 0..n-1
  int position = 0;        // next index into `order`
  int epoch = 0;           // completed epochs
  long batches = 0;        // batches handed out so far

  // Starts over: n examples, batches of batch_size (>= 1), shuffles from seed.
  void reset(int n_examples, int batch, uint64_t seed);
  // The next batch (example indices). Empty only when n == 0.
  std::vector<int> next();
};

// A seeded permutation of 0..n-1 (Fisher-Yates, drawing with Rng::below).
std::vector<int> shuffled_indices(int n, Rng& rng);

}  // namespace attn::train

// batch.cpp: seeded shuffling and mini-batch slicing.
#include "train/batch.h"

namespace attn::train {

std::vector<int> shuffled_indices(int n, Rng& rng) {
  std::vector<int> idx(n);
  for (int i = 0; i < n; ++i) idx[i] = i;
  for (int i = n - 1; i > 0; --i) {  // swap i with a uniform j in [0, i]
    const int j = int(rng.below(uint32_t(i + 1)));
    const int tmp = idx[i];
    idx[i] = idx[j];
    idx[j] = tmp;
  }
  return idx;
}

void BatchOrder::reset(int n_examples, int batch, uint64_t seed) {
  n = n_examples > 0 ? n_examples : 0;
  batch_size = batch > 0 ? batch : 1;
  rng = Rng(seed);
  order = shuffled_indices(n, rng);
  position = 0;
  epoch = 0;
  batches = 0;
}

std::vector<int> BatchOrder::next() {
  if (n == 0) return {};
  if (position >= n) {  // epoch finished: reshuffle
    ++epoch;
    order = shuffled_indices(n, rng);
    position = 0;
  }
  const int end = position + batch_size < n ? position + batch_size : n;
  std::vector<int> batch(order.begin() + position, order.begin() + end);
  position = end;
  ++batches;
  return batch;
}

}  // namespace attn::train

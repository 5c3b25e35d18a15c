// induction.cpp: generator of the repeated random sequences of the induction task.
//
// Sections: 1 generation, 2 target positions.
#include "data/induction.h"

#include <algorithm>
#include <numeric>
#include <utility>

namespace attn::data {

// ---------------------------------------------------------------- 1 generation
namespace {

InductionDesc clamped(const InductionDesc& desc) {
  InductionDesc d = desc;
  d.half_length = std::max(1, desc.half_length);
  d.min_half_length = desc.min_half_length > 0 && desc.min_half_length < d.half_length ? desc.min_half_length : 0;
  d.vocab = std::max(2, desc.vocab);
  d.train_count = std::max(0, desc.train_count);
  d.test_count = std::max(0, desc.test_count);
  d.distinct_first_half = desc.distinct_first_half && d.vocab >= d.half_length;
  return d;
}

}  // namespace

InductionSequence draw_induction_sequence(Rng& rng, const InductionDesc& desc) {
  const int V = desc.vocab;
  int L = desc.half_length;
  if (desc.min_half_length > 0) L = desc.min_half_length + int(rng.below(uint32_t(L - desc.min_half_length + 1)));
  InductionSequence s;
  s.tokens.resize(size_t(2 * L));
  if (desc.distinct_first_half) {
    // The first L entries of a random permutation of 0 .. V-1 (a partial
    // Fisher-Yates shuffle): L different tokens, each id equally likely.
    std::vector<int> ids(static_cast<size_t>(V));
    std::iota(ids.begin(), ids.end(), 0);
    for (int i = 0; i < L; ++i) {
      const int j = i + int(rng.below(uint32_t(V - i)));
      std::swap(ids[size_t(i)], ids[size_t(j)]);
      s.tokens[size_t(i)] = ids[size_t(i)];
    }
  } else {
    for (int i = 0; i < L; ++i) s.tokens[size_t(i)] = int(rng.below(uint32_t(V)));
  }
  std::copy(s.tokens.begin(), s.tokens.begin() + L, s.tokens.begin() + L);  // the repeat
  return s;
}

InductionData make_induction(const InductionDesc& desc) {
  InductionData data;
  data.desc = clamped(desc);
  Rng rng(desc.seed);
  for (int i = 0; i < data.desc.train_count; ++i) data.train.push_back(draw_induction_sequence(rng, data.desc));
  for (int i = 0; i < data.desc.test_count; ++i) data.test.push_back(draw_induction_sequence(rng, data.desc));
  return data;
}

// ---------------------------------------------------------------- 2 target positions
bool is_first_half_target(int j, int half_length) { return j >= 1 && j < half_length; }

bool is_repeated_half_target(int j, int half_length) { return j > half_length && j < 2 * half_length; }

}  // namespace attn::data

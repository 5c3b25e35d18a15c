// long_range.h: a task whose dependency distance is a dial (curriculum E1/E4).
//
// "Output the token seen k steps earlier": a sequence x_0 .. x_k of k + 1
// tokens, each drawn uniformly from an alphabet of A symbols; the label is x_0,
// the token k steps before the last one. Everything after x_0 is a distractor.
// An RNN must carry x_0 through k state updates; self-attention reaches it in
// one step from the last position. Chance accuracy is 1 / A.
#pragma once

#include <cstdint>
#include <vector>

namespace attn::data {

struct LongRangeDesc {
  int distance = 8;       // k >= 1: the answer is k steps before the last token
  int alphabet = 8;       // A >= 2 symbols, ids 0 .. A-1
  int train_count = 2000;
  int test_count = 500;
  uint64_t seed = 1;
};

struct LabeledSequence {
  std::vector<int> tokens;  // (k + 1) ids
  int label = 0;            // tokens[0]
};

struct LongRangeData {
  LongRangeDesc desc;
  std::vector<LabeledSequence> train, test;
};

// Deterministic in desc (the train and test sets are drawn from one stream).
LongRangeData make_long_range(const LongRangeDesc& desc);

}  // namespace attn::data

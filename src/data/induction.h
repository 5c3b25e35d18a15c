// induction.h: sequences for the induction-head task (issue 15).
//
// A sequence is 2L tokens: L tokens drawn uniformly from a vocabulary of V ids,
// then the same L tokens again. Trained to predict the next token, a model can
// do no better than chance (loss log V) in the first half, but in the second
// half the next token is the one that followed the current token's earlier
// occurrence: a layer-1 head that looks at the previous token and a layer-2
// head that looks for "the token after the last time I saw this one" (an
// induction head) predict it exactly.
//
//   tokens:  a b c d | a b c d          (L = 4)
//   target j (predicted from tokens 0..j-1):
//     first half     1 <= j < L        random: no model can know them
//     boundary       j = L             copies token 0, but only position tells
//     repeated half  L < j < 2L        the token after the earlier occurrence
//
// Sections: 1 description, 2 generation, 3 target positions.
#pragma once

#include <cstdint>
#include <vector>

#include "base/rng.h"

namespace attn::data {

// ---------------------------------------------------------------- 1 description
struct InductionDesc {
  int half_length = 16;  // L >= 1 tokens per half; sequences are 2L long
  // > 0 and < half_length: each sequence draws its own L uniformly from
  // min_half_length .. half_length (so the repeat starts at a varying position
  // and a model cannot find the earlier occurrence by position alone; it must
  // look the current token up). 0 (or >= half_length): every L = half_length.
  int min_half_length = 0;
  int vocab = 16;        // V >= 2 token ids, 0 .. V-1
  // true: the first half never repeats a token, so every token of the second
  // half has exactly one earlier occurrence to look up. Needs V >= L (ignored,
  // and false in the returned desc, when V < L).
  bool distinct_first_half = false;
  int train_count = 2000;
  int test_count = 200;
  uint64_t seed = 1;
};

struct InductionSequence {
  std::vector<int> tokens;  // (2L) ids; tokens[L + i] == tokens[i]
  int half_length() const { return int(tokens.size()) / 2; }  // L
};

struct InductionData {
  InductionDesc desc;  // as used: sizes clamped to their minimum
  std::vector<InductionSequence> train, test;
};

// ---------------------------------------------------------------- 2 generation
// One sequence from `rng` (desc must already be clamped, as make_induction's
// returned desc is): for a model trained on fresh sequences every step. With a
// varying L, L is drawn first, then the tokens.
InductionSequence draw_induction_sequence(Rng& rng, const InductionDesc& desc);

// Deterministic in desc: the train and then the test set, drawn from one
// stream attn::Rng(desc.seed).
InductionData make_induction(const InductionDesc& desc);

// ---------------------------------------------------------------- 3 target positions
// For the next-token target at index j of a 2L sequence (see the top).
bool is_first_half_target(int j, int half_length);     // 1 <= j < L
bool is_repeated_half_target(int j, int half_length);  // L < j < 2L

}  // namespace attn::data

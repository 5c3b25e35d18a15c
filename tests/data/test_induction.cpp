// The induction task's data: shapes, the repeat, the seed, the distinct-first-
// half option, how evenly the tokens are drawn, and which targets count as
// first half and repeated half.
#include <doctest/doctest.h>

#include <set>
#include <vector>

#include "data/induction.h"

using namespace attn;
using namespace attn::data;

TEST_CASE("induction data: 2L tokens in range, the second half repeats the first") {
  InductionDesc desc;
  desc.half_length = 7;
  desc.vocab = 5;
  desc.train_count = 50;
  desc.test_count = 20;
  desc.seed = 3;
  const InductionData data = make_induction(desc);
  REQUIRE(data.train.size() == 50);
  REQUIRE(data.test.size() == 20);
  for (const auto* set : {&data.train, &data.test}) {
    for (const InductionSequence& s : *set) {
      REQUIRE(s.tokens.size() == 14);
      for (int t : s.tokens) {
        CHECK(t >= 0);
        CHECK(t < 5);
      }
      for (int i = 0; i < 7; ++i) CHECK(s.tokens[size_t(7 + i)] == s.tokens[size_t(i)]);
    }
  }
  // The first halves are random: with V^L = 5^7 choices, 70 sequences are
  // almost surely not all alike (and not all constant).
  std::set<std::vector<int>> distinct;
  for (const InductionSequence& s : data.train) distinct.insert(s.tokens);
  CHECK(distinct.size() > 45);
}

TEST_CASE("induction data: the same seed gives the same sequences, another seed others") {
  InductionDesc desc;
  desc.train_count = 10;
  desc.test_count = 5;
  desc.seed = 11;
  const InductionData a = make_induction(desc), b = make_induction(desc);
  for (size_t i = 0; i < a.train.size(); ++i) CHECK(a.train[i].tokens == b.train[i].tokens);
  for (size_t i = 0; i < a.test.size(); ++i) CHECK(a.test[i].tokens == b.test[i].tokens);
  desc.seed = 12;
  const InductionData c = make_induction(desc);
  int same = 0;
  for (size_t i = 0; i < a.train.size(); ++i) same += a.train[i].tokens == c.train[i].tokens ? 1 : 0;
  CHECK(same == 0);
  // draw_induction_sequence continues one stream: the train set's first
  // sequence is the first draw from Rng(seed).
  Rng rng(11);
  CHECK(draw_induction_sequence(rng, a.desc).tokens == a.train[0].tokens);
}

TEST_CASE("induction data: every token id is drawn about equally often") {
  InductionDesc desc;
  desc.half_length = 10;
  desc.vocab = 8;
  desc.train_count = 800;
  desc.test_count = 0;
  const InductionData data = make_induction(desc);
  std::vector<int> counts(8, 0);
  for (const InductionSequence& s : data.train)
    for (int i = 0; i < 10; ++i) ++counts[size_t(s.tokens[size_t(i)])];
  // 8000 draws: 1000 expected per id, standard deviation about 30.
  for (int c : counts) {
    CHECK(c > 880);
    CHECK(c < 1120);
  }
}

TEST_CASE("induction data: distinct_first_half never repeats a token in the first half") {
  InductionDesc desc;
  desc.half_length = 6;
  desc.vocab = 6;  // every first half is a permutation of 0..5
  desc.distinct_first_half = true;
  desc.train_count = 100;
  const InductionData data = make_induction(desc);
  CHECK(data.desc.distinct_first_half);
  std::set<int> first_tokens;
  for (const InductionSequence& s : data.train) {
    const std::set<int> half(s.tokens.begin(), s.tokens.begin() + 6);
    CHECK(half.size() == 6);
    first_tokens.insert(s.tokens[0]);
  }
  CHECK(first_tokens.size() == 6);  // not always the same permutation start
  // Without it, 100 first halves of 6 tokens from 6 ids almost surely repeat one.
  desc.distinct_first_half = false;
  int with_repeat = 0;
  for (const InductionSequence& s : make_induction(desc).train)
    with_repeat += std::set<int>(s.tokens.begin(), s.tokens.begin() + 6).size() < 6 ? 1 : 0;
  CHECK(with_repeat > 80);
  // With fewer ids than positions it cannot hold: the returned desc says so.
  desc.distinct_first_half = true;
  desc.vocab = 4;
  CHECK(!make_induction(desc).desc.distinct_first_half);
}

TEST_CASE("induction data: sizes are clamped and targets split into first half, boundary, repeated half") {
  InductionDesc desc;
  desc.half_length = 0;
  desc.vocab = 1;
  desc.train_count = 2;
  desc.test_count = -1;
  const InductionData data = make_induction(desc);
  CHECK(data.desc.half_length == 1);
  CHECK(data.desc.vocab == 2);
  CHECK(data.test.empty());
  REQUIRE(data.train.size() == 2);
  CHECK(data.train[0].tokens.size() == 2);

  const int L = 4;  // targets j = 1 .. 7 of an 8-token sequence
  std::vector<int> first, repeated;
  for (int j = 0; j < 2 * L; ++j) {
    if (is_first_half_target(j, L)) first.push_back(j);
    if (is_repeated_half_target(j, L)) repeated.push_back(j);
  }
  CHECK(first == std::vector<int>{1, 2, 3});
  CHECK(repeated == std::vector<int>{5, 6, 7});  // j = 4 copies token 0, which only position can tell
}

TEST_CASE("induction data: min_half_length gives each sequence its own L, every L in range occurring") {
  InductionDesc desc;
  desc.half_length = 8;
  desc.min_half_length = 4;
  desc.vocab = 16;
  desc.distinct_first_half = true;
  desc.train_count = 200;
  desc.test_count = 0;
  const InductionData data = make_induction(desc);
  CHECK(data.desc.min_half_length == 4);
  std::set<int> lengths;
  for (const InductionSequence& s : data.train) {
    const int L = s.half_length();
    REQUIRE(int(s.tokens.size()) == 2 * L);
    CHECK(L >= 4);
    CHECK(L <= 8);
    lengths.insert(L);
    for (int i = 0; i < L; ++i) CHECK(s.tokens[size_t(L + i)] == s.tokens[size_t(i)]);
    CHECK(std::set<int>(s.tokens.begin(), s.tokens.begin() + L).size() == size_t(L));
  }
  CHECK(lengths == std::set<int>{4, 5, 6, 7, 8});
  // Out of range (>= half_length), it is off: every sequence is 2 * half_length long.
  desc.min_half_length = 8;
  const InductionData fixed = make_induction(desc);
  CHECK(fixed.desc.min_half_length == 0);
  for (const InductionSequence& s : fixed.train) CHECK(s.tokens.size() == 16);
}

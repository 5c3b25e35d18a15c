// The decoder's position options (train/decoder_positions.h): the kinds' names,
// rotary turns (norms kept, scores that depend on the offset alone, the turn
// back undoing the turn), the paper's ALiBi slopes, the window and sink masks,
// and the mapping of query heads onto shared key/value heads.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "base/rng.h"
#include "train/decoder_positions.h"

using namespace attn::train;

TEST_CASE("positions: every kind has a name that reads back, and only learned and sinusoidal add rows") {
  for (PositionKind k : {PositionKind::learned, PositionKind::sinusoidal, PositionKind::rope, PositionKind::alibi,
                         PositionKind::none}) {
    PositionKind back;
    REQUIRE(parse_position_kind(position_kind_name(k), &back));
    CHECK(back == k);
    CHECK(adds_position_rows(k) == (k == PositionKind::learned || k == PositionKind::sinusoidal));
  }
  PositionKind k;
  CHECK_FALSE(parse_position_kind("Rope", &k));
  CHECK_FALSE(parse_position_kind("", &k));
}

TEST_CASE("rope: a turn keeps every pair's length, and the turn back undoes it") {
  const RopeTable t = rope_table(256, 16);
  REQUIRE(t.pairs == 8);
  attn::Rng rng(7);
  std::vector<float> x(16);
  for (float& v : x) v = rng.normal();
  for (int pos : {0, 1, 31, 200, 255}) {
    std::vector<float> y = x;
    rope_turn(y.data(), t, pos);
    for (int i = 0; i < 8; ++i)
      CHECK(std::hypot(y[2 * i], y[2 * i + 1]) == doctest::Approx(std::hypot(x[2 * i], x[2 * i + 1])).epsilon(1e-6));
    rope_turn_back(y.data(), t, pos);
    for (int c = 0; c < 16; ++c) CHECK(y[c] == doctest::Approx(x[c]).epsilon(1e-5));
  }
  // Position 0 turns nothing; the first pair turns by pos radians (theta_0 = 1).
  std::vector<float> y = x;
  rope_turn(y.data(), t, 0);
  CHECK(y == x);
  CHECK(t.cos_row(3)[0] == float(std::cos(3.0)));
  CHECK(t.sin_row(100)[7] == float(std::sin(100.0 * std::pow(10000.0, -14.0 / 16.0))));
}

TEST_CASE("rope: a query's score with a key depends on their positions only through the offset") {
  const RopeTable t = rope_table(512, 8);
  attn::Rng rng(3);
  std::vector<float> q(8), k(8);
  for (float& v : q) v = rng.normal();
  for (float& v : k) v = rng.normal();
  auto score = [&](int i, int j) {
    std::vector<float> a = q, b = k;
    rope_turn(a.data(), t, i);
    rope_turn(b.data(), t, j);
    double s = 0;
    for (int c = 0; c < 8; ++c) s += double(a[c]) * b[c];
    return s;
  };
  for (int offset : {0, 1, 5, 40}) {
    const double ref = score(offset, 0);
    for (int j : {3, 100, 300, 400}) CHECK(score(j + offset, j) == doctest::Approx(ref).epsilon(1e-4));
  }
}

TEST_CASE("alibi: the paper's slopes, for powers of two and between them") {
  const std::vector<float> eight = alibi_slopes(8);
  REQUIRE(eight.size() == 8);
  for (int k = 0; k < 8; ++k) CHECK(eight[size_t(k)] == std::ldexp(1.0f, -(k + 1)));
  CHECK(alibi_slopes(4) == std::vector<float>{0.25f, 0.0625f, 0.015625f, 0.00390625f});
  CHECK(alibi_slopes(1) == std::vector<float>{std::ldexp(1.0f, -8)});
  // 6 heads: the 4 slopes of 4 heads, then slopes 1 and 3 (0-based 0 and 2) of 8 heads.
  CHECK(alibi_slopes(6) == std::vector<float>{0.25f, 0.0625f, 0.015625f, 0.00390625f, 0.5f, 0.125f});
  CHECK(alibi_slopes(0).empty());
}

TEST_CASE("masks: a window keeps the last w keys, sinks stay visible to every query, nothing later is seen") {
  // 8 positions, window 3, 1 sink: query 6 sees 0 (the sink) and 4, 5, 6.
  std::vector<int> seen;
  for (int j = 0; j < 8; ++j)
    if (key_visible(6, j, 3, 1)) seen.push_back(j);
  CHECK(seen == std::vector<int>{0, 4, 5, 6});
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      CHECK(key_visible(i, j, 0, 0) == (j <= i));  // window 0: all earlier keys
      if (j > i) CHECK_FALSE(key_visible(i, j, 3, 4));
    }
  CHECK(key_visible(2, 0, 1, 0) == false);
  CHECK(key_visible(2, 2, 1, 0) == true);  // window 1: only itself
}

TEST_CASE("shared heads: consecutive query heads share one key/value head") {
  std::vector<int> groups;
  for (int h = 0; h < 8; ++h) groups.push_back(kv_head_of(h, 8, 2));
  CHECK(groups == std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1});
  for (int h = 0; h < 4; ++h) {
    CHECK(kv_head_of(h, 4, 4) == h);  // ordinary multi-head attention
    CHECK(kv_head_of(h, 4, 1) == 0);  // multi-query attention
  }
}

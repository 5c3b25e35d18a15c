// The online softmax (attn/online_softmax.h) against its naive reference, the full
// softmax: over a sweep of lengths, tile sizes and widths, after every tile (the
// running output is attention over the keys read so far), with scores far too
// large for a plain exp, and with softmax.h's rules for -inf, +inf and NaN.
//
// Error metric: the largest absolute difference of the outputs. Tolerance 1e-6
// times the largest |v| (at least 1; the sweep's values are in [-1, 1], so 1e-6):
// both sides sum in float, the tiled side rescales its sums once per tile, so the
// two round differently by a few float epsilons of the output's size (the sweep's
// worst is printed; 6e-7 at 100 keys when written).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "attn/online_softmax.h"
#include "support/attn_test_util.h"

using namespace attn;
using attn::test::random_mat;

namespace {
const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

float largest_difference(const Mat& a, const Mat& b) { return (a - b).cwiseAbs().maxCoeff(); }

float tolerance(const Mat& V) {
  float big = 1.0f;
  for (Eigen::Index r = 0; r < V.rows(); ++r)
    for (Eigen::Index c = 0; c < V.cols(); ++c)
      if (std::isfinite(V(r, c))) big = std::max(big, std::abs(V(r, c)));
  return 1e-6f * big;
}

// A column of scores as K with d = 1 and q = [1], scale 1: s_j = K(j, 0) exactly.
Mat column(std::initializer_list<float> values) {
  Mat M(Eigen::Index(values.size()), 1);
  Eigen::Index j = 0;
  for (float v : values) M(j++, 0) = v;
  return M;
}
}  // namespace

TEST_CASE("online softmax: within 1e-6 of the full softmax over the sweep, after every tile") {
  Rng rng(37);
  float worst = 0.0f;
  int runs = 0;
  for (int n : {1, 2, 3, 5, 8, 13, 32, 64, 100})
    for (int tile : {1, 2, 3, 4, 7, 64, 200})
      for (int d : {1, 2, 8})
        for (float spread : {1.0f, 4.0f, 100.0f}) {  // 100: scores near 1e4, exp overflows float and double
          CAPTURE(n);
          CAPTURE(tile);
          CAPTURE(d);
          CAPTURE(spread);
          const int d_v = 1 + n % 3;
          const Mat q = random_mat(rng, 1, d, spread), K = random_mat(rng, n, d, spread), V = random_mat(rng, n, d_v, 2.0f);
          const OnlineSoftmaxRun run = online_softmax_attention(q, K, V, tile);
          REQUIRE(int(run.tiles.size()) == (n + tile - 1) / tile);
          CHECK(run.keys_read == n);
          CHECK(run.scores_held == std::min(tile, n));
          for (const OnlineSoftmaxTile& t : run.tiles) {
            const Mat prefix = full_softmax_attention(q, K, V, 0.0f, t.first + t.count);
            const float diff = largest_difference(t.out, prefix);
            worst = std::max(worst, diff);
            CHECK(diff <= tolerance(V));
            CHECK(t.rescale >= 0.0f);
            CHECK(t.rescale <= 1.0f);
            CHECK(t.m_new >= t.m_old);
            CHECK(t.l >= 1.0f);  // the maximum's own term is exp(0) = 1
          }
          CHECK(largest_difference(run.out, full_softmax_attention(q, K, V)) <= tolerance(V));
          ++runs;
        }
  MESSAGE("online softmax against the full softmax: largest difference " << worst << " over " << runs << " runs");
  CHECK(runs == 9 * 7 * 3 * 3);
}

TEST_CASE("online softmax: scores a plain exp cannot take stay exact") {
  // exp(89) is already inf in float; these scores are 1e4 and more apart.
  const Mat q = column({1.0f}).transpose();
  const Mat K = column({1e4f, -2e4f, 3e4f, 3e4f - 1.0f, 5.0f, 3e38f, -3e38f});
  Rng rng(5);
  const Mat V = random_mat(rng, 7, 2, 1.0f);
  CHECK(std::isinf(std::exp(3e4f)));
  for (int tile = 1; tile <= 7; ++tile) {
    CAPTURE(tile);
    const OnlineSoftmaxRun run = online_softmax_attention(q, K, V, tile, 1.0f);
    CHECK(attn::test::all_finite(run.out));
    CHECK(largest_difference(run.out, full_softmax_attention(q, K, V, 1.0f)) <= 1e-6f);
    CHECK(largest_difference(run.out, V.row(5)) <= 1e-6f);  // 3e38 takes all the weight
  }
}

TEST_CASE("online softmax: -inf, +inf and NaN scores follow softmax.h's rules, tile by tile") {
  const Mat q = column({1.0f}).transpose();
  Rng rng(7);
  struct Case {
    const char* name;
    Mat K;
  };
  const Case cases[] = {
      {"-inf keys get weight 0", column({-kInf, 0.5f, -kInf, 2.0f, 1.0f})},
      {"-inf first, finite later", column({-kInf, -kInf, -kInf, -kInf, 3.0f, 1.0f})},
      {"two +inf keys share the weight", column({1.0f, kInf, 2.0f, -1.0f, kInf, 7.0f})},
      {"+inf after finite keys", column({9.0f, 8.0f, 7.0f, 6.0f, kInf})},
      {"NaN is masked", column({kNaN, 1.0f, kNaN, 0.0f, 2.0f})},
      {"huge finite next to -inf", column({3e38f, -kInf, -3e38f, 3e38f})},
  };
  for (const Case& c : cases)
    for (int tile : {1, 2, 4, 8}) {
      CAPTURE(c.name);
      CAPTURE(tile);
      const Mat V = random_mat(rng, c.K.rows(), 3, 1.0f);
      const OnlineSoftmaxRun run = online_softmax_attention(q, c.K, V, tile, 1.0f);
      for (const OnlineSoftmaxTile& t : run.tiles) {
        CHECK(attn::test::all_finite(t.out));
        CHECK(largest_difference(t.out, full_softmax_attention(q, c.K, V, 1.0f, t.first + t.count)) <= 1e-6f);
      }
      CHECK(largest_difference(run.out, full_softmax_attention(q, c.K, V, 1.0f)) <= 1e-6f);
    }
  {  // the two +inf keys: exactly the mean of their values
    const Mat K = column({1.0f, kInf, 2.0f, -1.0f, kInf, 7.0f});
    const Mat V = random_mat(rng, 6, 2, 1.0f);
    const Mat mean = 0.5f * (V.row(1) + V.row(4));
    for (int tile : {1, 3, 6}) CHECK(largest_difference(online_softmax_attention(q, K, V, tile, 1.0f).out, mean) <= 1e-6f);
  }
  {  // NaN scores are counted
    const OnlineSoftmaxRun run = online_softmax_attention(q, column({kNaN, 1.0f, kNaN}), Mat::Ones(3, 1), 2, 1.0f);
    CHECK(run.nan_scores == 2);
    CHECK(run.out(0, 0) == doctest::Approx(1.0f));
  }
}

TEST_CASE("online softmax: a row with nothing usable gives zeros, and a key of weight 0 does not leak its value") {
  const Mat q = column({1.0f}).transpose();
  const Mat none = column({-kInf, kNaN, -kInf});
  const OnlineSoftmaxRun run = online_softmax_attention(q, none, Mat::Ones(3, 2), 2, 1.0f);
  CHECK(run.out.isZero(0.0f));
  CHECK(full_softmax_attention(q, none, Mat::Ones(3, 2), 1.0f).isZero(0.0f));
  for (const OnlineSoftmaxTile& t : run.tiles) CHECK(t.l == 0.0f);
  // Key 1 is -inf: weight 0, so its infinite value row adds nothing.
  Mat V = Mat::Ones(3, 2);
  V.row(1).setConstant(kInf);
  const Mat K = column({0.0f, -kInf, 0.0f});
  for (int tile : {1, 2, 3}) {
    const Mat out = online_softmax_attention(q, K, V, tile, 1.0f).out;
    CHECK(attn::test::all_finite(out));
    CHECK(largest_difference(out, Mat::Ones(1, 2)) <= 1e-6f);
  }
}

TEST_CASE("online softmax: the first tile's rescale is 0, later ones exp(m_old - m_new), 1 when the maximum stays") {
  const Mat q = column({1.0f}).transpose();
  const Mat K = column({1.0f, 0.0f, 3.0f, 2.0f, 0.5f, 0.5f});  // tiles of 2: maxima 1, 3, 0.5
  const OnlineSoftmaxRun run = online_softmax_attention(q, K, Mat::Ones(6, 1), 2, 1.0f);
  REQUIRE(run.tiles.size() == 3);
  CHECK(run.tiles[0].rescale == 0.0f);
  CHECK(run.tiles[0].m_new == 1.0f);
  CHECK(run.tiles[1].rescale == doctest::Approx(std::exp(-2.0f)));
  CHECK(run.tiles[1].m_new == 3.0f);
  CHECK(run.tiles[2].rescale == 1.0f);
  CHECK(run.tiles[2].l == doctest::Approx(std::exp(-2.0f) + std::exp(-3.0f) + 1.0f + std::exp(-1.0f) + 2.0f * std::exp(-2.5f)));
  // Only part of the way: max_tiles.
  const OnlineSoftmaxRun part = online_softmax_attention(q, K, Mat::Ones(6, 1), 2, 1.0f, 2);
  CHECK(part.tiles.size() == 2);
  CHECK(part.keys_read == 4);
  CHECK(online_softmax_attention(q, K, Mat::Ones(6, 1), 2, 1.0f, 0).tiles.empty());
}

// Scoring functions: Eigen vs reference over the shape sweep for every kind,
// the temperature, cosine's zero-vector guard, shape errors and finite-difference
// checks of every backward (Q, K and the score parameters).
#include <doctest/doctest.h>

#include <cmath>

#include "attn/reference.h"
#include "attn/scores.h"
#include "support/attn_test_util.h"
#include "support/gradcheck.h"

using namespace attn;
using attn::test::check_close;
using attn::test::random_mat;
using attn::test::random_vec;

namespace {
const ScoreKind kAllKinds[] = {ScoreKind::dot, ScoreKind::scaled_dot, ScoreKind::general, ScoreKind::additive,
                               ScoreKind::cosine};

bool same_width(ScoreKind kind) { return kind != ScoreKind::general && kind != ScoreKind::additive; }
}  // namespace

TEST_CASE("scores: Eigen matches the reference over the shape sweep, every kind") {
  // Tolerance: entries are O(1)..O(d); float sums of d products (plus tanh for
  // additive) against double reference sums: 2e-5 absolute + 2e-5 relative.
  Rng rng(21);
  for (ScoreKind kind : kAllKinds) {
    for (int n_q : attn::test::kSweep) {
      const int n_k = n_q % 2 == 0 ? n_q + 1 : n_q;  // some square, some not
      const int d_q = 5, d_k = same_width(kind) ? 5 : 3, d_a = 6;
      const Mat Q = random_mat(rng, n_q, d_q), K = random_mat(rng, n_k, d_k);
      const ScoreParams params = init_score_params(kind, d_q, d_k, d_a, 99);
      const ScoreDesc desc{kind, 0.75f};
      CAPTURE(score_kind_name(kind));
      CAPTURE(n_q);
      std::string error;
      const Mat S = compute_scores(Q, K, desc, params, &error);
      REQUIRE(error.empty());
      REQUIRE(S.rows() == n_q);
      REQUIRE(S.cols() == n_k);
      check_close("scores", S, ref::scores(Q, K, desc, params), 2e-5, 2e-5);
    }
  }
}

TEST_CASE("scores: scaled dot is dot / sqrt(d_k) and the temperature divides") {
  Rng rng(2);
  const Mat Q = random_mat(rng, 4, 9), K = random_mat(rng, 6, 9);
  const Mat dot = dot_scores(Q, K);
  check_close("scaled", scaled_dot_scores(Q, K), dot / 3.0f, 1e-6, 1e-6);
  const Mat hot = compute_scores(Q, K, ScoreDesc{ScoreKind::dot, 0.5f}, ScoreParams());
  check_close("temperature", hot, dot * 2.0f, 1e-6, 1e-6);
}

TEST_CASE("scores: general with W = I is the dot product - additive by hand") {
  Rng rng(4);
  const Mat Q = random_mat(rng, 3, 4), K = random_mat(rng, 5, 4);
  check_close("general I", general_scores(Q, K, Mat::Identity(4, 4)), dot_scores(Q, K), 1e-6, 1e-6);
  // Additive with d_a = 1: s_ij = v tanh(q_i w_q + k_j w_k).
  Mat W_q(4, 1), W_k(4, 1);
  W_q << 0.5f, -0.25f, 0.0f, 1.0f;
  W_k << -1.0f, 0.5f, 0.25f, 0.0f;
  Vec v_a(1);
  v_a << 2.0f;
  const Mat S = additive_scores(Q, K, W_q, W_k, v_a);
  const float expected = 2.0f * std::tanh(Q.row(1).dot(W_q.col(0)) + K.row(3).dot(W_k.col(0)));
  CHECK(S(1, 3) == doctest::Approx(expected).epsilon(1e-6));
}

TEST_CASE("scores: cosine is in [-1, 1], 1 for parallel vectors and 0 (not NaN) for zero vectors") {
  Rng rng(8);
  Mat Q = random_mat(rng, 3, 5);
  Mat K(4, 5);
  K.row(0) = Q.row(0) * 3.0f;   // parallel
  K.row(1) = -Q.row(1);         // anti-parallel
  K.row(2).setZero();           // zero vector
  K.row(3) = random_mat(rng, 1, 5);
  Q.row(2).setZero();
  const Mat S = cosine_scores(Q, K);
  CHECK(attn::test::all_finite(S));
  CHECK(S(0, 0) == doctest::Approx(1.0).epsilon(1e-5));
  CHECK(S(1, 1) == doctest::Approx(-1.0).epsilon(1e-5));
  for (int i = 0; i < 3; ++i) CHECK(S(i, 2) == 0.0f);
  for (int j = 0; j < 4; ++j) CHECK(S(2, j) == 0.0f);
  CHECK((S.array().abs() <= 1.0f + 1e-6f).all());
  // Gradients at a zero vector are finite too.
  const ScoreGrads g = scores_backward(Q, K, ScoreDesc{ScoreKind::cosine, 1.0f}, ScoreParams(), Mat::Ones(3, 4));
  CHECK(attn::test::all_finite(g.dQ));
  CHECK(attn::test::all_finite(g.dK));
}

TEST_CASE("scores: shape errors are reported as strings") {
  Rng rng(1);
  const Mat Q = random_mat(rng, 3, 4), K5 = random_mat(rng, 2, 5);
  std::string error;
  CHECK(compute_scores(Q, K5, ScoreDesc{ScoreKind::dot, 1.0f}, ScoreParams(), &error).size() == 0);
  CHECK(error.find("d_q == d_k") != std::string::npos);
  CHECK(!check_score_shapes(Q, K5, ScoreDesc{ScoreKind::general, 1.0f}, ScoreParams()).empty());
  CHECK(check_score_shapes(Q, K5, ScoreDesc{ScoreKind::general, 1.0f},
                           init_score_params(ScoreKind::general, 4, 5, 0, 1)).empty());
  ScoreParams additive = init_score_params(ScoreKind::additive, 4, 5, 3, 1);
  CHECK(check_score_shapes(Q, K5, ScoreDesc{ScoreKind::additive, 1.0f}, additive).empty());
  additive.W_k = Mat::Zero(4, 3);
  CHECK(check_score_shapes(Q, K5, ScoreDesc{ScoreKind::additive, 1.0f}, additive).find("W_k") != std::string::npos);
  additive.v_a.resize(0);
  CHECK(!check_score_shapes(Q, K5, ScoreDesc{ScoreKind::additive, 1.0f}, additive).empty());
  CHECK(!check_score_shapes(Q, Q, ScoreDesc{ScoreKind::dot, 0.0f}, ScoreParams()).empty());
  CHECK(!check_score_shapes(Q, Q, ScoreDesc{ScoreKind::dot, -1.0f}, ScoreParams()).empty());
}

TEST_CASE("scores backward matches finite differences for every kind (Q, K, parameters)") {
  for (ScoreKind kind : kAllKinds) {
    CAPTURE(score_kind_name(kind));
    Rng rng(31 + int(kind));
    const int d_q = 4, d_k = same_width(kind) ? 4 : 3, d_a = 5;
    Mat Q = random_mat(rng, 3, d_q), K = random_mat(rng, 4, d_k);
    ScoreParams p = init_score_params(kind, d_q, d_k, d_a, 7);
    if (kind == ScoreKind::additive) p.v_a = random_vec(rng, d_a, 1.5f);
    const ScoreDesc desc{kind, 0.8f};
    const Mat C = random_mat(rng, 3, 4);
    auto loss = [&] { return attn::test::weighted_sum(compute_scores(Q, K, desc, p), C); };
    // Scores are smooth and O(1): a tighter tolerance than the default (2e-2),
    // so even a 1% error in one gradient fails.
    const attn::test::GradCheck tight{1e-2f, 3e-3, 3e-4};
    const ScoreGrads g = scores_backward(Q, K, desc, p, C);
    attn::test::check_gradient("dQ", Q, g.dQ, loss, tight);
    attn::test::check_gradient("dK", K, g.dK, loss, tight);
    if (kind == ScoreKind::general) {
      attn::test::check_gradient("dW", p.W, g.dW, loss, tight);
    } else {
      CHECK(g.dW.size() == 0);
    }
    if (kind == ScoreKind::additive) {
      attn::test::check_gradient("dW_q", p.W_q, g.dW_q, loss, tight);
      attn::test::check_gradient("dW_k", p.W_k, g.dW_k, loss, tight);
      attn::test::check_gradient("dv_a", p.v_a, g.dv_a, loss, tight);
    } else {
      CHECK(g.dW_q.size() == 0);
      CHECK(g.dv_a.size() == 0);
    }
  }
}

TEST_CASE("score kind names round-trip") {
  for (ScoreKind k : kAllKinds) {
    ScoreKind parsed = ScoreKind::dot;
    CHECK(parse_score_kind(score_kind_name(k), &parsed));
    CHECK(parsed == k);
  }
  ScoreKind k = ScoreKind::dot;
  CHECK(parse_score_kind("bilinear", &k));
  CHECK(k == ScoreKind::general);
  CHECK_FALSE(parse_score_kind("euclid", &k));
}

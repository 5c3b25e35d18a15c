// Multi-head attention: Eigen vs reference over the shape sweep (self and cross,
// several score kinds and masks), shapes of every intermediate, permutation
// equivariance without position encoding, stacked layers, errors and
// finite-difference checks of every backward path.
#include <doctest/doctest.h>

#include <numeric>
#include <string>
#include <vector>

#include "attn/multihead.h"
#include "attn/positional.h"
#include "attn/reference.h"
#include "support/attn_test_util.h"
#include "support/gradcheck.h"

using namespace attn;
using attn::test::check_close;
using attn::test::random_mat;

namespace {

MultiHeadDesc mh_desc(int heads, ScoreKind score = ScoreKind::scaled_dot, MaskKind mask = MaskKind::none) {
  MultiHeadDesc d;
  d.heads = heads;
  d.score = score;
  d.mask = mask;
  return d;
}

MultiHeadParams mh_params(int d_model, int heads, int d_head, int d_out, ScoreKind score, uint64_t seed) {
  MultiHeadInitDesc init;
  init.d_model = d_model;
  init.heads = heads;
  init.d_head = d_head;
  init.d_out = d_out;
  init.score = score;
  init.d_additive = 3;
  init.seed = seed;
  return init_multihead_params(init);
}

// Rows of M reordered: out.row(i) = M.row(perm[i]).
Mat permute_rows(const Mat& M, const std::vector<int>& perm) {
  Mat out(M.rows(), M.cols());
  for (size_t i = 0; i < perm.size(); ++i) out.row(Eigen::Index(i)) = M.row(perm[i]);
  return out;
}

}  // namespace

TEST_CASE("multihead: Eigen matches the reference over the shape sweep (self and cross)") {
  // Tolerance: two float projections plus attention, against double sums:
  // 5e-5 absolute + 2e-4 relative on outputs and weights.
  struct Variant {
    const char* name;
    ScoreKind score;
    MaskKind mask;
    int d_out;
    bool cross;
  };
  const Variant variants[] = {
      {"self scaled_dot W_O", ScoreKind::scaled_dot, MaskKind::none, 6, false},
      {"self causal no W_O", ScoreKind::dot, MaskKind::causal, 0, false},
      {"self additive", ScoreKind::additive, MaskKind::none, 5, false},
      {"cross general padding", ScoreKind::general, MaskKind::padding, 7, true},
  };
  for (const Variant& v : variants) {
    for (int n : attn::test::kSweep) {
      CAPTURE(v.name);
      CAPTURE(n);
      Rng rng(500 + n);
      const int d_model = 8, heads = 2, d_head = 3;
      const Mat X_q = random_mat(rng, n, d_model);
      const Mat X_kv = v.cross ? random_mat(rng, n + 2, d_model) : X_q;
      MultiHeadDesc desc = mh_desc(heads, v.score, v.mask);
      desc.key_lengths = {std::max(1, n / 2)};
      const MultiHeadParams params = mh_params(d_model, heads, d_head, v.d_out, v.score, 7 + n);
      const MultiHeadResult r = multihead_forward(X_q, X_kv, desc, params);
      REQUIRE_MESSAGE(r.ok(), r.error);
      const MultiHeadResult e = ref::multihead(X_q, X_kv, desc, params);
      for (int t = 0; t < heads; ++t) {
        check_close("q", r.q[size_t(t)], e.q[size_t(t)], 5e-5, 2e-4);
        check_close("k", r.k[size_t(t)], e.k[size_t(t)], 5e-5, 2e-4);
        check_close("weights", r.weights[size_t(t)], e.weights[size_t(t)], 5e-5, 2e-4);
        check_close("head output", r.head_output[size_t(t)], e.head_output[size_t(t)], 5e-5, 2e-4);
      }
      check_close("concat", r.concat, e.concat, 5e-5, 2e-4);
      check_close("output", r.output, e.output, 5e-5, 2e-4);
    }
  }
}

TEST_CASE("multihead: shapes of every intermediate - one head without W_O is plain attention") {
  Rng rng(2);
  const int n_q = 5, n_k = 7, d_model = 6, heads = 3, d_head = 2, d_out = 4;
  const Mat X_q = random_mat(rng, n_q, d_model), X_kv = random_mat(rng, n_k, d_model);
  const MultiHeadParams params = mh_params(d_model, heads, d_head, d_out, ScoreKind::scaled_dot, 3);
  const MultiHeadResult r = multihead_forward(X_q, X_kv, mh_desc(heads), params);
  REQUIRE(r.ok());
  REQUIRE(r.q.size() == size_t(heads));
  REQUIRE(r.weights.size() == size_t(heads));
  CHECK(r.q[0].rows() == n_q);
  CHECK(r.q[0].cols() == d_head);
  CHECK(r.k[2].rows() == n_k);
  CHECK(r.v[1].cols() == d_head);
  CHECK(r.weights[1].rows() == n_q);
  CHECK(r.weights[1].cols() == n_k);
  CHECK(r.concat.cols() == heads * d_head);
  CHECK(r.output.rows() == n_q);
  CHECK(r.output.cols() == d_out);
  check_close("concat block of head 1", r.concat.middleCols(d_head, d_head), r.head_output[1], 0.0, 0.0);

  const MultiHeadParams one = mh_params(d_model, 1, 4, 0, ScoreKind::scaled_dot, 4);
  const MultiHeadResult single = self_attention_forward(X_q, mh_desc(1), one);
  REQUIRE(single.ok());
  const AttentionResult plain =
      attention_forward(X_q * one.W_Q, X_q * one.W_K, X_q * one.W_V, AttentionDesc{}, AttentionParams{});
  check_close("h=1 equals attention", single.output, plain.output, 1e-6, 1e-5);
}

TEST_CASE("multihead: self-attention without position encoding is permutation-equivariant") {
  Rng rng(6);
  const int n = 9, d_model = 6;
  const Mat X = random_mat(rng, n, d_model);
  const MultiHeadParams params = mh_params(d_model, 2, 3, 5, ScoreKind::scaled_dot, 8);
  std::vector<int> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  for (int i = n - 1; i > 0; --i) std::swap(perm[size_t(i)], perm[rng.below(uint32_t(i + 1))]);
  REQUIRE(perm != std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8});

  const Mat out = self_attention_forward(X, mh_desc(2), params).output;
  const Mat out_perm = self_attention_forward(permute_rows(X, perm), mh_desc(2), params).output;
  check_close("outputs permute with the inputs", out_perm, permute_rows(out, perm), 1e-5, 1e-4);

  // With position encoding added the symmetry is broken: the same check must
  // now fail clearly (this is what the lesson on positions shows).
  const Mat PE = sinusoidal_encoding(PositionalDesc{n, d_model});
  const Mat with_pe = self_attention_forward(X + PE, mh_desc(2), params).output;
  const Mat with_pe_perm = self_attention_forward(permute_rows(X, perm) + PE, mh_desc(2), params).output;
  CHECK((with_pe_perm - permute_rows(with_pe, perm)).cwiseAbs().maxCoeff() > 1e-3f);
}

TEST_CASE("multihead: invalid shapes are reported in result.error") {
  Rng rng(1);
  const Mat X = random_mat(rng, 4, 6);
  MultiHeadParams p = mh_params(6, 2, 3, 0, ScoreKind::scaled_dot, 1);
  CHECK(self_attention_forward(X, mh_desc(4), p).error.find("multiple of heads") != std::string::npos);
  CHECK(!self_attention_forward(X, mh_desc(0), p).ok());
  CHECK(multihead_forward(X, random_mat(rng, 3, 5), mh_desc(2), p).error.find("X_kv") != std::string::npos);
  MultiHeadParams bad_k = p;
  bad_k.W_K = Mat::Zero(6, 4);
  CHECK(self_attention_forward(X, mh_desc(2), bad_k).error.find("W_K") != std::string::npos);
  MultiHeadParams bad_o = p;
  bad_o.W_O = Mat::Zero(5, 2);
  CHECK(self_attention_forward(X, mh_desc(2), bad_o).error.find("W_O") != std::string::npos);
  CHECK(self_attention_forward(X, mh_desc(2, ScoreKind::general), p).error.find("head_score") != std::string::npos);
  MultiHeadDesc explicit_mask = mh_desc(2, ScoreKind::dot, MaskKind::explicit_mask);
  CHECK(self_attention_forward(X, explicit_mask, p).error.find("explicit") != std::string::npos);
  const MultiHeadResult good = self_attention_forward(X, mh_desc(2), p);
  CHECK(!self_attention_backward(X, mh_desc(2), p, good, Mat::Zero(4, 5)).ok());
  CHECK(self_attention_backward(X, mh_desc(2), p, good, Mat::Zero(4, 6)).ok());
}

TEST_CASE("multihead: a fully masked row propagates zeros and a per-head warning") {
  Rng rng(3);
  const Mat X = random_mat(rng, 3, 4);
  MultiHeadDesc desc = mh_desc(2, ScoreKind::scaled_dot, MaskKind::padding);
  desc.key_lengths = {3, 0, 2};
  const MultiHeadResult r = self_attention_forward(X, desc, mh_params(4, 2, 2, 3, ScoreKind::scaled_dot, 2));
  REQUIRE(r.ok());
  CHECK(r.output.row(1).isZero());
  CHECK(attn::test::contains(r.warnings, "head 1: softmax"));
}

TEST_CASE("multihead gradients: self-attention w.r.t. X, W_Q, W_K, W_V, W_O (several kinds and masks)") {
  struct Variant {
    const char* name;
    ScoreKind score;
    MaskKind mask;
    int d_out;
  };
  const Variant variants[] = {{"scaled_dot W_O", ScoreKind::scaled_dot, MaskKind::none, 3},
                              {"dot causal no W_O", ScoreKind::dot, MaskKind::causal, 0},
                              {"general", ScoreKind::general, MaskKind::none, 2},
                              {"additive causal", ScoreKind::additive, MaskKind::causal, 2}};
  for (const Variant& v : variants) {
    CAPTURE(v.name);
    Rng rng(60);
    Mat X = random_mat(rng, 3, 4);
    MultiHeadDesc desc = mh_desc(2, v.score, v.mask);
    desc.temperature = 0.8f;
    MultiHeadParams p = mh_params(4, 2, 2, v.d_out, v.score, 61);
    const MultiHeadResult r = self_attention_forward(X, desc, p);
    REQUIRE(r.ok());
    const Mat C = random_mat(rng, r.output.rows(), r.output.cols());
    const MultiHeadGrads g = self_attention_backward(X, desc, p, r, C);
    REQUIRE_MESSAGE(g.ok(), g.error);
    auto loss = [&] { return attn::test::weighted_sum(self_attention_forward(X, desc, p).output, C); };
    attn::test::check_gradient("dX", X, g.dX, loss);
    attn::test::check_gradient("dW_Q", p.W_Q, g.dW_Q, loss);
    attn::test::check_gradient("dW_K", p.W_K, g.dW_K, loss);
    attn::test::check_gradient("dW_V", p.W_V, g.dW_V, loss);
    if (v.d_out > 0) attn::test::check_gradient("dW_O", p.W_O, g.dW_O, loss);
    else CHECK(g.dW_O.size() == 0);
    if (v.score == ScoreKind::general) {
      REQUIRE(g.head_score.size() == 2);
      attn::test::check_gradient("head 1 dW", p.head_score[1].W, g.head_score[1].dW, loss);
    }
    if (v.score == ScoreKind::additive) {
      REQUIRE(g.head_score.size() == 2);
      attn::test::check_gradient("head 0 dW_q", p.head_score[0].W_q, g.head_score[0].dW_q, loss);
      attn::test::check_gradient("head 1 dv_a", p.head_score[1].v_a, g.head_score[1].dv_a, loss);
    }
  }
}

TEST_CASE("multihead gradients: cross attention w.r.t. X_q, X_kv and the weights") {
  Rng rng(70);
  Mat X_q = random_mat(rng, 2, 4), X_kv = random_mat(rng, 5, 4);
  MultiHeadDesc desc = mh_desc(2, ScoreKind::scaled_dot, MaskKind::padding);
  desc.key_lengths = {4, 3};
  MultiHeadParams p = mh_params(4, 2, 3, 3, ScoreKind::scaled_dot, 71);
  const MultiHeadResult r = multihead_forward(X_q, X_kv, desc, p);
  REQUIRE(r.ok());
  const Mat C = random_mat(rng, 2, 3);
  const MultiHeadGrads g = multihead_backward(X_q, X_kv, desc, p, r, C);
  REQUIRE(g.ok());
  CHECK(g.dX.size() == 0);  // only self_attention_backward fills dX
  auto loss = [&] { return attn::test::weighted_sum(multihead_forward(X_q, X_kv, desc, p).output, C); };
  attn::test::check_gradient("dX_q", X_q, g.dX_q, loss);
  attn::test::check_gradient("dX_kv", X_kv, g.dX_kv, loss);
  attn::test::check_gradient("dW_Q", p.W_Q, g.dW_Q, loss);
  attn::test::check_gradient("dW_K", p.W_K, g.dW_K, loss);
  attn::test::check_gradient("dW_V", p.W_V, g.dW_V, loss);
  attn::test::check_gradient("dW_O", p.W_O, g.dW_O, loss);
}

TEST_CASE("stacked self-attention: forward chains the layers - backward matches finite differences") {
  Rng rng(80);
  const int n = 4, d_model = 4;
  Mat X = random_mat(rng, n, d_model);
  std::vector<MultiHeadParams> layers = {mh_params(d_model, 2, 2, d_model, ScoreKind::scaled_dot, 81),
                                         mh_params(d_model, 2, 2, d_model, ScoreKind::scaled_dot, 82),
                                         mh_params(d_model, 2, 2, 0, ScoreKind::scaled_dot, 83)};  // no W_O: h*d_h = d_model
  for (bool residual : {false, true}) {
    CAPTURE(residual);
    StackDesc desc;
    desc.layer = mh_desc(2);  // shared by all layers: 2 heads of width 2
    desc.residual = residual;
    const StackResult r = stacked_self_attention_forward(X, desc, layers);
    REQUIRE_MESSAGE(r.ok(), r.error);
    REQUIRE(r.layers.size() == 3);
    // Manual chaining gives the same output.
    Mat x = X;
    for (const MultiHeadParams& p : layers) {
      const Mat y = self_attention_forward(x, desc.layer, p).output;
      x = residual ? Mat(x + y) : y;
    }
    check_close("stack output", r.output, x, 0.0, 0.0);

    const Mat C = random_mat(rng, n, d_model);
    const StackGrads g = stacked_self_attention_backward(desc, layers, r, C);
    REQUIRE_MESSAGE(g.ok(), g.error);
    auto loss = [&] { return attn::test::weighted_sum(stacked_self_attention_forward(X, desc, layers).output, C); };
    attn::test::check_gradient("stack dX", X, g.dX, loss);
    attn::test::check_gradient("stack layer 0 dW_Q", layers[0].W_Q, g.layers[0].dW_Q, loss);
    attn::test::check_gradient("stack layer 1 dW_O", layers[1].W_O, g.layers[1].dW_O, loss);
    attn::test::check_gradient("stack layer 2 dW_V", layers[2].W_V, g.layers[2].dW_V, loss);
  }
  // A layer whose output width is not d_model cannot feed the next one.
  std::vector<MultiHeadParams> bad = {mh_params(d_model, 2, 2, 3, ScoreKind::scaled_dot, 84)};
  StackDesc desc;
  desc.layer.heads = 2;
  CHECK(stacked_self_attention_forward(X, desc, bad).error.find("d_model") != std::string::npos);
  CHECK(!stacked_self_attention_forward(X, desc, {}).ok());
}

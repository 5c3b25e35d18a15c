// The Transformer block: LayerNorm statistics, GELU's erf form, the block
// against its pieces wired by hand (both norm placements), the causal mask, a
// tiny case worked out by hand, shape errors, and finite-difference checks of
// the gradient for x and every parameter in every setting.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "attn/transformer.h"
#include "support/attn_test_util.h"
#include "support/gradcheck.h"

using namespace attn;
using attn::test::check_close;
using attn::test::random_mat;
using attn::test::random_vec;

namespace {

// Calls f(name, parameter, its gradient) for every parameter of the block, in
// the order of TransformerBlockParams. `g` may be `p` itself.
template <typename F>
void for_each_param(TransformerBlockParams& p, TransformerBlockParams& g, F f) {
  f("W_Q", p.W_Q, g.W_Q);
  f("b_Q", p.b_Q, g.b_Q);
  f("W_K", p.W_K, g.W_K);
  f("b_K", p.b_K, g.b_K);
  f("W_V", p.W_V, g.W_V);
  f("b_V", p.b_V, g.b_V);
  f("W_O", p.W_O, g.W_O);
  f("b_O", p.b_O, g.b_O);
  f("ln1_gamma", p.ln1_gamma, g.ln1_gamma);
  f("ln1_beta", p.ln1_beta, g.ln1_beta);
  f("ln2_gamma", p.ln2_gamma, g.ln2_gamma);
  f("ln2_beta", p.ln2_beta, g.ln2_beta);
  f("W_1", p.W_1, g.W_1);
  f("b_1", p.b_1, g.b_1);
  f("W_2", p.W_2, g.W_2);
  f("b_2", p.b_2, g.b_2);
}

// Every parameter random (biases and betas too, gammas around 1), so that no
// term of the gradient can hide behind a zero.
TransformerBlockParams random_params(Rng& rng, int d_model, int d_ff) {
  TransformerInitDesc init;
  init.d_model = d_model;
  init.d_ff = d_ff;
  TransformerBlockParams p = init_transformer_block_params(init);  // the shapes
  for_each_param(p, p, [&](const char*, auto& x, auto&) {
    for (Eigen::Index r = 0; r < x.rows(); ++r)
      for (Eigen::Index c = 0; c < x.cols(); ++c) x(r, c) = rng.uniform(-0.8f, 0.8f);
  });
  p.ln1_gamma = Vec::Ones(d_model) + random_vec(rng, d_model, 0.4f);
  p.ln2_gamma = Vec::Ones(d_model) + random_vec(rng, d_model, 0.4f);
  return p;
}

// The attention sublayer written out directly from its definition (biases
// added explicitly, one masked softmax per head), to check the block's wiring.
Mat reference_attention(const Mat& z, const TransformerBlockDesc& desc, const TransformerBlockParams& p) {
  const Eigen::Index n = z.rows(), w = p.W_Q.cols(), d_h = w / desc.heads;
  const Mat Q = (z * p.W_Q).rowwise() + p.b_Q.transpose();  // (n, w)
  const Mat K = (z * p.W_K).rowwise() + p.b_K.transpose();
  const Mat V = (z * p.W_V).rowwise() + p.b_V.transpose();
  const BoolMat allowed = build_mask(MaskDesc{desc.causal ? MaskKind::causal : MaskKind::none, {}, {}}, int(n), int(n));
  Mat concat(n, w);
  for (int t = 0; t < desc.heads; ++t) {
    const Mat scores = Q.middleCols(t * d_h, d_h) * K.middleCols(t * d_h, d_h).transpose() /
                       std::sqrt(float(d_h));  // (n, n)
    concat.middleCols(t * d_h, d_h) = masked_softmax(scores, allowed) * V.middleCols(t * d_h, d_h);
  }
  return (concat * p.W_O).rowwise() + p.b_O.transpose();
}

Mat reference_block(const Mat& X, const TransformerBlockDesc& desc, const TransformerBlockParams& p) {
  auto ln1 = [&](const Mat& s) { return layer_norm_forward(s, p.ln1_gamma, p.ln1_beta, desc.eps).output; };
  auto ln2 = [&](const Mat& s) { return layer_norm_forward(s, p.ln2_gamma, p.ln2_beta, desc.eps).output; };
  auto ffn = [&](const Mat& z) { return feed_forward(z, p.W_1, p.b_1, p.W_2, p.b_2, desc.activation).output; };
  if (desc.norm_first) {
    const Mat h = X + reference_attention(ln1(X), desc, p);
    return h + ffn(ln2(h));
  }
  const Mat h = ln1(X + reference_attention(X, desc, p));
  return ln2(h + ffn(h));
}

// One row normalised in double: (s - mean) / sqrt(var + eps), biased variance.
std::vector<double> normalise(const std::vector<double>& s, double eps) {
  double mean = 0.0, var = 0.0;
  for (double v : s) mean += v / double(s.size());
  for (double v : s) var += (v - mean) * (v - mean) / double(s.size());
  std::vector<double> out;
  for (double v : s) out.push_back((v - mean) / std::sqrt(var + eps));
  return out;
}

}  // namespace

TEST_CASE("transformer: LayerNorm rows have mean 0 and variance 1 before the gain, gamma and beta apply after") {
  Rng rng(11);
  const int n = 5, d = 7;
  Mat S = random_mat(rng, n, d, 3.0f);
  S.row(2).array() += 40.0f;  // a large offset must not matter
  const Vec gamma = random_vec(rng, d, 2.0f), beta = random_vec(rng, d);
  const float eps = 1e-5f;
  const LayerNormResult r = layer_norm_forward(S, gamma, beta, eps);
  REQUIRE(r.normalized.rows() == n);
  REQUIRE(r.inv_std.size() == n);
  for (Eigen::Index i = 0; i < n; ++i) {
    CAPTURE(i);
    const double mean = r.normalized.row(i).cast<double>().mean();
    const double var = r.normalized.row(i).cast<double>().array().square().mean();
    CHECK(std::abs(mean) < 1e-5);  // float rounding of values around 40
    // var(normalized) = var / (var + eps), just under 1.
    const double raw_var = (S.row(i).cast<double>().array() - S.row(i).cast<double>().mean()).square().mean();
    CHECK(var == doctest::Approx(raw_var / (raw_var + eps)).epsilon(1e-5));
    CHECK(var < 1.0);
    CHECK(var > 0.999);
  }
  check_close("gamma * normalized + beta", r.output,
              Mat((r.normalized.array().rowwise() * gamma.transpose().array()).rowwise() + beta.transpose().array()),
              1e-6, 1e-6);
  // eps keeps a constant row finite: it normalises to zeros, then beta.
  const Mat flat = Mat::Constant(1, d, 3.0f);
  const LayerNormResult f = layer_norm_forward(flat, gamma, beta, eps);
  CHECK(f.normalized.isZero());
  check_close("constant row gives beta", f.output, Mat(beta.transpose()), 0.0, 0.0);
}

TEST_CASE("transformer: GELU is the erf form (not the tanh approximation), both derivatives match finite differences") {
  Mat x(1, 4);
  x << 1.0f, -0.5f, 2.5f, -3.0f;
  const Mat g = activate(x, Activation::gelu);
  // x Phi(x) with the standard normal CDF: Phi(1) = 0.8413447461, Phi(-0.5) = 0.3085375387.
  CHECK(double(g(0, 0)) == doctest::Approx(0.8413447461).epsilon(1e-6));
  CHECK(double(g(0, 1)) == doctest::Approx(-0.5 * 0.3085375387).epsilon(1e-6));
  // The tanh approximation gives 0.8411920 at 1: 1.5e-4 away, far beyond float error.
  const double tanh_form = 0.5 * (1.0 + std::tanh(std::sqrt(2.0 / 3.14159265358979) * (1.0 + 0.044715)));
  CHECK(std::abs(double(g(0, 0)) - tanh_form) > 1e-4);
  const Mat relu = activate(x, Activation::relu);
  CHECK(relu(0, 0) == 1.0f);
  CHECK(relu(0, 1) == 0.0f);

  Mat z(1, 6);
  z << -2.2f, -0.7f, -0.1f, 0.3f, 1.1f, 2.9f;  // none within the step of ReLU's kink
  for (Activation a : {Activation::relu, Activation::gelu}) {
    CAPTURE(std::string(activation_name(a)));
    const Mat analytic = activate_derivative(z, a);
    auto loss = [&] { return double(activate(z, a).sum()); };
    attn::test::check_gradient(std::string(activation_name(a)) + "'", z, analytic, loss);
  }
  Activation parsed = Activation::relu;
  CHECK(parse_activation("gelu", &parsed));
  CHECK(parsed == Activation::gelu);
  CHECK(!parse_activation("tanh", &parsed));
}

TEST_CASE("transformer: the block equals its pieces wired by hand (post-norm and pre-norm, causal on and off)") {
  for (bool norm_first : {false, true}) {
    for (bool causal : {false, true}) {
      CAPTURE(norm_first);
      CAPTURE(causal);
      Rng rng(20 + 2 * int(norm_first) + int(causal));
      const int n = 6, d_model = 6, d_ff = 10;
      const Mat X = random_mat(rng, n, d_model);
      const TransformerBlockParams p = random_params(rng, d_model, d_ff);
      TransformerBlockDesc desc;
      desc.heads = 3;
      desc.norm_first = norm_first;
      desc.causal = causal;
      desc.activation = Activation::gelu;
      const TransformerBlockResult r = transformer_block_forward(X, desc, p);
      REQUIRE_MESSAGE(r.ok(), r.error);
      REQUIRE(r.attention.weights.size() == 3);
      CHECK(r.attention.weights[0].rows() == n);
      CHECK(r.attention.weights[0].cols() == n);
      CHECK(r.ffn.hidden.cols() == d_ff);
      check_close("output", r.output, reference_block(X, desc, p), 1e-5, 1e-4);
      // The residual stream really is there: pre-norm's output minus the FFN is h.
      if (norm_first) check_close("y - ffn = h", Mat(r.output - r.ffn.output), r.mid, 1e-6, 1e-6);
    }
  }
}

TEST_CASE("transformer: the causal mask gives zero weight above the diagonal, and no row sees a later token") {
  Rng rng(30);
  const int n = 5, d_model = 4;
  Mat X = random_mat(rng, n, d_model);
  const TransformerBlockParams p = random_params(rng, d_model, 8);
  for (bool norm_first : {false, true}) {
    CAPTURE(norm_first);
    TransformerBlockDesc desc;
    desc.heads = 2;
    desc.norm_first = norm_first;
    desc.causal = true;
    const TransformerBlockResult r = transformer_block_forward(X, desc, p);
    REQUIRE(r.ok());
    for (const Mat& W : r.attention.weights) {
      for (Eigen::Index i = 0; i < n; ++i) {
        CHECK(W.row(i).sum() == doctest::Approx(1.0).epsilon(1e-6));
        for (Eigen::Index j = 0; j < n; ++j)
          if (j > i) CHECK(W(i, j) == 0.0f);
          else CHECK(W(i, j) > 0.0f);
      }
    }
    // Changing the last token changes only the last output row... (not by a
    // constant, which LayerNorm would remove before pre-norm attention sees it)
    Mat X2 = X;
    X2.row(n - 1) += random_mat(rng, 1, d_model);
    const Mat y2 = transformer_block_forward(X2, desc, p).output;
    CHECK(y2.topRows(n - 1) == r.output.topRows(n - 1));
    CHECK((y2.row(n - 1) - r.output.row(n - 1)).cwiseAbs().maxCoeff() > 1e-3f);
    // ...and without the mask every row sees it.
    desc.causal = false;
    const Mat open1 = transformer_block_forward(X, desc, p).output;
    const Mat open2 = transformer_block_forward(X2, desc, p).output;
    CHECK((open2.row(0) - open1.row(0)).cwiseAbs().maxCoeff() > 1e-4f);
  }
}

TEST_CASE("transformer: a tiny case worked out by hand (post-norm, causal, relu, two heads)") {
  // n = 2 tokens, d_model = 4, heads = 2 (d_h = 2), d_ff = 2, eps = 1e-5.
  TransformerInitDesc init;
  init.d_model = 4;
  init.d_ff = 2;
  TransformerBlockParams p = init_transformer_block_params(init);
  for_each_param(p, p, [](const char*, auto& x, auto&) { x.setZero(); });
  Mat X(2, 4);
  X << 1, 0, 2, 1,
       3, 2, 0, 3;
  // Head 0 (columns 0-1): W_Q and b_Q are 0 there, so every score is 0 and the
  //   causal softmax is uniform over the visible keys: row 0 [1, 0], row 1 [1/2, 1/2].
  // Head 1 (columns 2-3): q = b_Q's (c, 0) for every token and k_j = (x_j0, 0)
  //   (W_K(0, 2) = 1), so score(i, j) = c x_j0 / sqrt(2). With c = ln(3) / sqrt(2)
  //   row 1's scores are ln(3) / 2 and 3 ln(3) / 2: weights [1/4, 3/4].
  const float c = std::log(3.0f) / std::sqrt(2.0f);
  p.b_Q[2] = c;
  p.W_K(0, 2) = 1.0f;
  p.W_V = Mat::Identity(4, 4);  // V = x
  p.W_O = Mat::Identity(4, 4);  // attn = concat, b_O = 0
  // concat row 0 = (1, 0 | 2, 1);  row 1 = ((1+3)/2, (0+2)/2 | (2+3*0)/4, (1+3*3)/4) = (2, 1 | 0.5, 2.5).
  // s1 = x + concat: row 0 (2, 0, 4, 2): mean 2, var (0+4+4+0)/4 = 2;
  //                  row 1 (5, 3, 0.5, 5.5): mean 3.5, var (2.25+0.25+9+4)/4 = 3.875.
  p.ln1_gamma << 2, 1, 1, 1;
  p.ln1_beta << 0, 0, 1, 0;
  const double eps = 1e-5, r0 = 1.0 / std::sqrt(2.0 + eps), r1 = 1.0 / std::sqrt(3.875 + eps);
  // h = gamma1 * (s1 - mean) * r + beta1:
  const std::vector<double> h0 = {0.0, -2 * r0, 2 * r0 + 1, 0.0};
  const std::vector<double> h1 = {3 * r1, -0.5 * r1, -3 * r1 + 1, 2 * r1};
  // FFN: pre = (-h_1, h_2 - 1), ReLU, then hidden_0 -> column 0, hidden_1 -> column 3, plus b_2 = (0, 1, 0, 0).
  p.W_1(1, 0) = -1.0f;
  p.W_1(2, 1) = 1.0f;
  p.b_1 << 0, -1;
  p.W_2(0, 0) = 1.0f;
  p.W_2(1, 3) = 1.0f;
  p.b_2 << 0, 1, 0, 0;
  // pre row 0 = (2 r0, 2 r0) -> hidden (2 r0, 2 r0); pre row 1 = (0.5 r1, -3 r1) -> hidden (0.5 r1, 0).
  const std::vector<double> s2_0 = {h0[0] + 2 * r0, h0[1] + 1, h0[2], h0[3] + 2 * r0};
  const std::vector<double> s2_1 = {h1[0] + 0.5 * r1, h1[1] + 1, h1[2], h1[3]};
  p.ln2_gamma.setOnes();  // LN2 plain: y = normalise(s2)
  const std::vector<double> y0 = normalise(s2_0, eps), y1 = normalise(s2_1, eps);

  TransformerBlockDesc desc;
  desc.heads = 2;
  desc.causal = true;
  const TransformerBlockResult r = transformer_block_forward(X, desc, p);
  REQUIRE_MESSAGE(r.ok(), r.error);
  Mat w0(2, 2), w1(2, 2);
  w0 << 1, 0, 0.5, 0.5;
  w1 << 1, 0, 0.25, 0.75;
  check_close("head 0 weights", r.attention.weights[0], w0, 1e-6, 0.0);
  check_close("head 1 weights", r.attention.weights[1], w1, 1e-6, 0.0);
  Mat concat(2, 4);
  concat << 1, 0, 2, 1, 2, 1, 0.5, 2.5;
  check_close("concat", r.attention.concat, concat, 1e-6, 0.0);
  Mat h(2, 4), y(2, 4);
  for (int j = 0; j < 4; ++j) {
    h(0, j) = float(h0[size_t(j)]);
    h(1, j) = float(h1[size_t(j)]);
    y(0, j) = float(y0[size_t(j)]);
    y(1, j) = float(y1[size_t(j)]);
  }
  check_close("h (after LN1)", r.mid, h, 1e-5, 0.0);
  CHECK(r.ffn.hidden(1, 1) == 0.0f);  // ReLU cut -3 r1
  check_close("y", r.output, y, 1e-5, 0.0);
}

TEST_CASE("transformer: invalid shapes and settings are reported in result.error") {
  Rng rng(40);
  const Mat X = random_mat(rng, 3, 4);
  const TransformerBlockParams good = random_params(rng, 4, 6);
  TransformerBlockDesc desc;
  desc.heads = 2;
  REQUIRE(transformer_block_forward(X, desc, good).ok());
  auto error_of = [&](const TransformerBlockParams& p, const TransformerBlockDesc& d) {
    return transformer_block_forward(X, d, p).error;
  };
  TransformerBlockDesc three = desc;
  three.heads = 3;
  CHECK(error_of(good, three).find("multiple of heads") != std::string::npos);
  TransformerBlockDesc no_eps = desc;
  no_eps.eps = 0.0f;
  CHECK(error_of(good, no_eps).find("eps") != std::string::npos);
  TransformerBlockParams bad = good;
  bad.W_O = Mat::Zero(4, 3);
  CHECK(error_of(bad, desc).find("W_O") != std::string::npos);
  bad = good;
  bad.W_2 = Mat::Zero(5, 4);
  CHECK(error_of(bad, desc).find("W_2") != std::string::npos);
  bad = good;
  bad.b_1 = Vec::Zero(4);
  CHECK(error_of(bad, desc).find("b_1") != std::string::npos);
  bad = good;
  bad.ln2_beta = Vec::Zero(3);
  CHECK(error_of(bad, desc).find("ln2_beta") != std::string::npos);
  const TransformerBlockResult r = transformer_block_forward(X, desc, good);
  CHECK(!transformer_block_backward(X, desc, good, r, Mat::Zero(3, 5)).ok());
  CHECK(transformer_block_backward(X, desc, good, r, Mat::Zero(3, 4)).ok());
  CHECK(!transformer_block_backward(X, desc, good, TransformerBlockResult{}, Mat::Zero(3, 4)).ok());
}

TEST_CASE("transformer gradients: x and every parameter match finite differences "
          "(pre/post-norm x causal on/off x relu/gelu)") {
  std::map<std::string, double> worst_relative;  // per parameter, over all eight settings
  int setting = 0;
  for (bool norm_first : {false, true}) {
    for (bool causal : {false, true}) {
      for (Activation act : {Activation::relu, Activation::gelu}) {
        CAPTURE(norm_first);
        CAPTURE(causal);
        CAPTURE(std::string(activation_name(act)));
        const int n = 4, d_model = 4, d_ff = 6;
        TransformerBlockDesc desc;
        desc.heads = 2;
        desc.norm_first = norm_first;
        desc.causal = causal;
        desc.activation = act;
        // ReLU has a kink at 0, and a finite difference across it is meaningless:
        // draw inputs until every pre-activation is well away from it (GELU takes
        // the first draw).
        Rng rng(uint64_t(900 + 100 * setting++));
        Mat X;
        TransformerBlockParams p;
        TransformerBlockResult r;
        for (int draw = 0; draw < 20; ++draw) {
          X = random_mat(rng, n, d_model);
          p = random_params(rng, d_model, d_ff);
          r = transformer_block_forward(X, desc, p);
          REQUIRE_MESSAGE(r.ok(), r.error);
          if (act == Activation::gelu || r.ffn.pre.cwiseAbs().minCoeff() > 0.05f) break;
        }
        if (act == Activation::relu) REQUIRE(r.ffn.pre.cwiseAbs().minCoeff() > 0.05f);
        const Mat C = random_mat(rng, n, d_model);
        const TransformerBlockGrads g = transformer_block_backward(X, desc, p, r, C);
        REQUIRE_MESSAGE(g.ok(), g.error);
        auto loss = [&] { return attn::test::weighted_sum(transformer_block_forward(X, desc, p).output, C); };
        auto check = [&](const std::string& name, auto& param, const auto& analytic) {
          const attn::test::GradCheckReport report = attn::test::check_gradient_report(name, param, analytic, loss);
          if (name == "b_K") {
            // q_i . b_K adds the same amount to every score of row i, and softmax
            // ignores that: the key bias can never change the output.
            CHECK(analytic.cwiseAbs().maxCoeff() < 1e-5f);
            return;
          }
          CHECK(report.max_numeric > 1e-3);  // the parameter really moves the loss
          worst_relative[name] = std::max(worst_relative[name], report.relative_error());
        };
        check("x", X, g.dX);
        TransformerBlockParams grads = g.params;
        for_each_param(p, grads, [&](const char* name, auto& param, auto& grad) { check(name, param, grad); });
      }
    }
  }
  std::ostringstream table;
  table << "largest |analytic - numeric| / max|numeric| over 8 settings:";
  for (const auto& [name, rel] : worst_relative) table << " " << name << " " << rel << ";";
  MESSAGE(table.str());
  for (const auto& entry : worst_relative) {  // (no structured binding: CAPTURE's lambda cannot see one in clang 14)
    const std::string& name = entry.first;
    CAPTURE(name);
    CHECK(entry.second < 1e-2);
  }
}

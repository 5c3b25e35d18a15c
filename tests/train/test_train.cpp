// test_train.cpp: the training machinery of src/train -- deterministic
// elementary functions, kernels, losses, optimisers, initialisation, dropout,
// mini-batches and every layer's backward pass against finite differences.
// (The models built from these layers are tested in test_models.cpp,
// test_induction_model.cpp and test_char_lm.cpp.)
//
// Sections: 1 helpers, 2 fmath against the C library, 3 kernels against Eigen,
// 4 losses, 5 optimisers and initialisation, 6 layer gradients, 7 agreement
// with the attention / recurrent / Transformer-block code of src/attn, 8 CRF decoding.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "attn/multihead.h"
#include "attn/transformer.h"
#include "attn/recurrent.h"
#include "support/attn_test_util.h"
#include "support/gradcheck.h"
#include "train/attention_layer.h"
#include "train/batch.h"
#include "train/block_layers.h"
#include "train/crf.h"
#include "train/fmath.h"
#include "train/kernels.h"
#include "train/layers.h"
#include "train/loss.h"
#include "train/optim.h"
#include "train/param.h"

using namespace attn;
using namespace attn::train;
using attn::test::check_close;
using attn::test::random_mat;
using attn::test::weighted_sum;

namespace {

// ---------------------------------------------------------------- 1 helpers
// Relative error of a against the reference b (absolute near zero).
double rel_err(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-30); }

const CellKind kCells[] = {CellKind::rnn_tanh, CellKind::lstm, CellKind::gru};
std::string name_of(CellKind cell) { return cell_kind_name(cell); }

// Finite-difference check of every parameter in `params` (their .grad must hold
// the analytic gradient of `loss` at the current values).
void check_params(const std::string& what, const ParamList& params, const std::function<double()>& loss,
                  attn::test::GradCheck opt = {}) {
  for (Param* p : params) attn::test::check_gradient(what + " " + p->name, p->value, p->grad, loss, opt);
}

// A layer's parameter and input gradients against finite differences of
// sum(out .* C): out_of(X) runs the forward pass; backward(C, dX) runs it again
// on X, adds the parameter gradients and writes dX.
template <typename Forward, typename Backward>
void check_layer(const std::string& what, const ParamList& params, Mat& X, const Mat& C, Forward out_of,
                 Backward backward) {
  const auto loss = [&] { return weighted_sum(out_of(X), C); };
  zero_grads(params);
  Mat dX;
  backward(C, dX);
  check_params(what, params, loss);
  attn::test::check_gradient(what + " dX", X, dX, loss);
}

}  // namespace

// ---------------------------------------------------------------- 2 fmath
TEST_CASE("fmath: exp, log, tanh, sigmoid agree with the C library to ~1e-15 relative") {
  // Sweep: a dense grid plus the awkward places (0, tiny, large, near overflow).
  double worst_exp = 0, worst_log = 0, worst_tanh = 0, worst_sig = 0;
  for (int i = -4000; i <= 4000; ++i) {
    const double x = i * 0.0173 + 1e-3;  // covers [-69, 69]
    worst_exp = std::max(worst_exp, rel_err(det_exp(x), std::exp(x)));
    worst_tanh = std::max(worst_tanh, rel_err(det_tanh(x), std::tanh(x)));
    worst_sig = std::max(worst_sig, rel_err(det_sigmoid(x), 1.0 / (1.0 + std::exp(-x))));
    const double y = std::exp(i * 0.05);  // log over [e^-200, e^200]
    worst_log = std::max(worst_log, std::abs(det_log(y) - std::log(y)) / std::max(1.0, std::abs(std::log(y))));
  }
  for (double x : {700.0, -700.0, -740.0, 1e-9, -1e-9, 3e-5, 0.4, 2.5e-4})
    worst_exp = std::max(worst_exp, rel_err(det_exp(x), std::exp(x)));
  for (double x : {1e-9, -3e-5, 9.9e-5, 1.01e-4, 0.3, -21.9, 25.0})
    worst_tanh = std::max(worst_tanh, rel_err(det_tanh(x), std::tanh(x)));
  for (double y : {1e-310, 4.9e-324, 0.7071, 1.0, 1.4142135, 1.4142136, 1e300})
    worst_log = std::max(worst_log, std::abs(det_log(y) - std::log(y)) / std::max(1.0, std::abs(std::log(y))));
  MESSAGE("worst relative error: exp " << worst_exp << ", log " << worst_log << ", tanh " << worst_tanh
                                       << ", sigmoid " << worst_sig);
  CHECK(worst_exp < 1e-14);
  CHECK(worst_log < 1e-14);
  CHECK(worst_tanh < 1e-14);
  CHECK(worst_sig < 1e-14);
  // Edges.
  CHECK(det_exp(0.0) == 1.0);
  CHECK(det_exp(710.0) == INFINITY);
  CHECK(det_exp(-746.0) == 0.0);
  CHECK(det_log(1.0) == 0.0);
  CHECK(det_log(0.0) == -INFINITY);
  CHECK(std::isnan(det_log(-1.0)));
  CHECK(det_tanh(30.0) == 1.0);
  CHECK(det_tanh(-30.0) == -1.0);
  CHECK(det_sigmoid(-800.0) == 0.0);
  CHECK(det_sigmoid(800.0) == 1.0);
  CHECK(std::isnan(det_exp(NAN)));
  // The float versions are the correctly rounded float of the double result.
  for (float x : {-3.5f, -0.1f, 0.0f, 0.25f, 7.0f}) {
    CHECK(exp_f(x) == float(det_exp(double(x))));
    CHECK(std::abs(tanh_f(x) - std::tanh(x)) <= 1e-7f * std::max(1.0f, std::abs(std::tanh(x))));
  }
}

TEST_CASE("fmath: the float-only exp_fast stays within about an ulp of the C library") {
  double worst = 0;
  for (int i = -87000; i <= 88000; ++i) {
    const float x = float(i) * 1e-3f + 1e-4f;
    worst = std::max(worst, rel_err(double(exp_fast(x)), std::exp(double(x))));
  }
  for (float x : {0.0f, 1e-8f, -1e-8f, 0.3465f, -0.3466f, 88.29f, -87.29f})
    worst = std::max(worst, rel_err(double(exp_fast(x)), std::exp(double(x))));
  MESSAGE("exp_fast: worst relative error " << worst);
  CHECK(worst < 2e-7);
  CHECK(exp_fast(0.0f) == 1.0f);
  CHECK(exp_fast(88.4f) == INFINITY);
  CHECK(exp_fast(INFINITY) == INFINITY);
  CHECK(exp_fast(-88.0f) == 0.0f);
  CHECK(exp_fast(-INFINITY) == 0.0f);
  CHECK(std::isnan(exp_fast(NAN)));
}

// ---------------------------------------------------------------- 3 kernels
TEST_CASE("kernels: the plain-loop products equal Eigen's over a sweep of shapes") {
  // Tolerance: float sums of k terms of size <= 1, k <= 33: 1e-5 absolute.
  Rng rng(11);
  const int sizes[] = {1, 2, 3, 7, 16, 33};
  for (int n : sizes)
    for (int k : {1, 3, 16, 33}) {
      const int m = (n * 5 + k) % 17 + 1;
      const Mat X = random_mat(rng, n, k), W = random_mat(rng, k, m), D = random_mat(rng, n, m);
      Mat Y;
      matmul(X, W, Y);
      check_close("X W", Y, Mat(X * W), 1e-5, 1e-5);
      Mat G = Mat::Zero(k, m);
      matmul_tn_add(X, D, G);
      check_close("X^T D", G, Mat(X.transpose() * D), 1e-5, 1e-5);
      Mat Z;
      matmul_nt(D, W, Z);
      check_close("D W^T", Z, Mat(D * W.transpose()), 1e-5, 1e-5);
    }
}

TEST_CASE("kernels: matmul_nt_add gives the bits of one dot product per output element") {
  // The fast form sums over a transposed copy of W; the reference is the plain
  // dot product of each row of D with each row of W, added to Y: vec_mat_t_add.
  Rng rng(12);
  for (int n : {1, 4, 16})
    for (int k : {1, 5, 16, 32, 70})
      for (int m : {1, 3, 16, 96}) {
        const Mat D = random_mat(rng, n, m), W = random_mat(rng, k, m), Y0 = random_mat(rng, n, k);
        Mat fast = Y0, ref = Y0;
        matmul_nt_add(D, W, fast);
        // (kernels.cpp's dot, compiled without fused multiply-add; this file is not)
        for (int i = 0; i < n; ++i) vec_mat_t_add(&D(i, 0), W, &ref(i, 0));
        INFO("n " << n << ", k " << k << ", m " << m);
        CHECK(std::memcmp(fast.data(), ref.data(), sizeof(float) * size_t(fast.size())) == 0);
      }
  // An infinite weight times a zero gradient is NaN in the dot product; the fast form agrees.
  Mat D = Mat::Zero(1, 2), W = Mat::Ones(1, 2), Y = Mat::Zero(1, 1);
  W(0, 1) = std::numeric_limits<float>::infinity();
  matmul_nt_add(D, W, Y);
  CHECK(std::isnan(Y(0, 0)));
}

TEST_CASE("kernels: the tiled products give the bits of the plain saxpy loops, zero skipping and -0 included") {
  // References: kernels.cpp's own axpy and outer_add, one row at a time, in the
  // order the tiles must keep (this file is not built without fused multiply-add).
  Rng rng(13);
  for (int n : {1, 5})
    for (int k : {1, 7, 33})
      for (int m : {1, 31, 32, 45, 96}) {
        Mat X = random_mat(rng, n, k), W = random_mat(rng, k, m), D = random_mat(rng, n, m);
        Mat Y0 = random_mat(rng, n, m), G0 = random_mat(rng, k, m);
        X(0, 0) = 0.0f;   // skipped: the outputs keep their sign of zero
        Y0(0, 0) = -0.0f;
        G0(0, 0) = -0.0f;
        Mat fast = Y0, ref = Y0;
        matmul_add(X, W, fast);
        for (int i = 0; i < n; ++i)
          for (int p = 0; p < k; ++p)
            if (X(i, p) != 0.0f) axpy(X(i, p), &W(p, 0), &ref(i, 0), m);
        INFO("n " << n << ", k " << k << ", m " << m);
        CHECK(std::memcmp(fast.data(), ref.data(), sizeof(float) * size_t(fast.size())) == 0);
        Mat gfast = G0, gref = G0;
        matmul_tn_add(X, D, gfast);
        for (int i = 0; i < n; ++i) outer_add(&X(i, 0), &D(i, 0), gref);
        CHECK(std::memcmp(gfast.data(), gref.data(), sizeof(float) * size_t(gfast.size())) == 0);
        CHECK(std::signbit(fast(0, 0)) == std::signbit(ref(0, 0)));
      }
}

TEST_CASE("kernels: softmax_row is stable and its backward matches finite differences") {
  std::vector<float> s = {1e4f, -1e4f, 1e4f - 1.0f, 0.0f}, p(4);
  softmax_row(s.data(), 4, p.data());
  CHECK(p[0] == doctest::Approx(1.0 / (1.0 + std::exp(-1.0))).epsilon(1e-6));
  CHECK(p[1] == 0.0f);
  CHECK(p[0] + p[1] + p[2] + p[3] == doctest::Approx(1.0));
  Rng rng(5);
  Mat S = random_mat(rng, 1, 6, 2.0f), C = random_mat(rng, 1, 6);
  auto loss = [&] {
    Mat P(1, 6);
    softmax_row(S.data(), 6, P.data());
    return weighted_sum(P, C);
  };
  Mat P(1, 6), dS(1, 6);
  softmax_row(S.data(), 6, P.data());
  softmax_row_backward(P.data(), C.data(), 6, dS.data());
  attn::test::check_gradient("softmax_row", S, dS, loss);
}

// ---------------------------------------------------------------- 4 losses
TEST_CASE("losses: cross-entropy and binary cross-entropy from logits") {
  // Hand value: logits (0, ln 3) -> p = (1/4, 3/4); target 1 -> -log(3/4).
  const float z[2] = {0.0f, std::log(3.0f)};
  float dz[2];
  CHECK(softmax_cross_entropy_row(z, 2, 1, dz, 1.0f) == doctest::Approx(-std::log(0.75)).epsilon(1e-6));
  CHECK(dz[0] == doctest::Approx(0.25).epsilon(1e-6));
  CHECK(dz[1] == doctest::Approx(-0.25).epsilon(1e-6));
  // Huge logits stay finite (a naive exp would overflow).
  const float big[3] = {1e4f, -1e4f, 0.0f};
  CHECK(softmax_cross_entropy_row(big, 3, 1, nullptr, 1.0f) == doctest::Approx(2e4).epsilon(1e-6));
  CHECK(softmax_cross_entropy_row(big, 3, 0, nullptr, 1.0f) == 0.0f);
  // Mean over rows, and its gradient.
  Rng rng(7);
  Mat logits = random_mat(rng, 4, 5, 3.0f);
  const std::vector<int> y = {0, 4, 2, 2};
  Mat dlogits;
  softmax_cross_entropy(logits, y, &dlogits);
  attn::test::check_gradient("softmax cross-entropy", logits, dlogits,
                             [&] { return double(softmax_cross_entropy(logits, y, nullptr)); });
  // BCE: against the textbook formula in double, and the gradient sigmoid(z) - y.
  for (float zz : {-30.0f, -2.0f, -0.1f, 0.0f, 0.7f, 5.0f, 40.0f})
    for (float label : {0.0f, 1.0f}) {
      float d = 0.0f;
      const float L = binary_cross_entropy_logit(zz, label, &d, 1.0f);
      const double p = 1.0 / (1.0 + std::exp(-double(zz)));
      // softplus form of the textbook -log p / -log(1 - p), exact in double here
      const double softplus_neg = std::log1p(std::exp(-std::abs(double(zz)))) + std::max(-double(zz), 0.0);
      const double want = label > 0.5f ? softplus_neg : softplus_neg + double(zz);
      CHECK(L == doctest::Approx(want).epsilon(1e-5));
      CHECK(d == doctest::Approx(p - label).epsilon(1e-6));
    }
  CHECK(std::isfinite(binary_cross_entropy_logit(-1e4f, 1.0f, nullptr, 1.0f)));
  CHECK(binary_cross_entropy_logit(-1e4f, 1.0f, nullptr, 1.0f) == doctest::Approx(1e4));
}

// ---------------------------------------------------------------- 5 optimisers, initialisation, batches
TEST_CASE("optimisers: SGD, momentum and Adam's bias-corrected first steps") {
  Param p = make_param("w", 1, 3);
  p.value << 1.0f, -2.0f, 0.5f;
  ParamList list = {&p};
  SUBCASE("plain SGD: w - lr g") {
    Optimizer opt;
    opt.desc.kind = OptimizerKind::sgd;
    opt.desc.lr = 0.1f;
    p.grad << 1.0f, -4.0f, 0.0f;
    opt.step(list);
    CHECK(p.value(0, 0) == doctest::Approx(0.9));
    CHECK(p.value(0, 1) == doctest::Approx(-1.6));
    CHECK(p.value(0, 2) == doctest::Approx(0.5));
  }
  SUBCASE("momentum: the second step moves by lr (mu g + g)") {
    Optimizer opt;
    opt.desc.kind = OptimizerKind::sgd;
    opt.desc.lr = 0.1f;
    opt.desc.momentum = 0.5f;
    p.grad << 1.0f, 0.0f, 0.0f;
    opt.step(list);
    opt.step(list);
    CHECK(p.value(0, 0) == doctest::Approx(1.0 - 0.1 - 0.15));
  }
  SUBCASE("Adam: bias correction makes the first step lr * sign(g)") {
    Optimizer opt;
    opt.desc.lr = 0.01f;
    p.grad << 3.0f, -1e-3f, 0.0f;
    opt.step(list);
    CHECK(p.value(0, 0) == doctest::Approx(1.0 - 0.01).epsilon(1e-5));
    CHECK(p.value(0, 1) == doctest::Approx(-2.0 + 0.01).epsilon(1e-5));
    CHECK(p.value(0, 2) == 0.5f);
    // Step 2 with the same gradient: m^ = g and v^ = g^2 again, so the step is lr again.
    opt.step(list);
    CHECK(p.value(0, 0) == doctest::Approx(1.0 - 0.02).epsilon(1e-5));
    CHECK(opt.t == 2);
  }
  SUBCASE("gradient clipping keeps the direction and caps the norm") {
    p.grad << 3.0f, 4.0f, 0.0f;
    CHECK(clip_grad_norm(list, 1.0f) == doctest::Approx(5.0));
    CHECK(p.grad(0, 0) == doctest::Approx(0.6));
    CHECK(p.grad(0, 1) == doctest::Approx(0.8));
    CHECK(grad_norm(list) == doctest::Approx(1.0));
  }
}

TEST_CASE("initialisation: Glorot uniform bounds and spread, the same seed gives the same weights") {
  Rng rng(42);
  Param w = make_param("w", 60, 40);
  glorot_uniform(w, rng);
  const double limit = std::sqrt(6.0 / 100.0);
  double sum = 0, sq = 0, biggest = 0;
  for (Eigen::Index k = 0; k < w.value.size(); ++k) {
    const double x = w.value.data()[k];
    sum += x;
    sq += x * x;
    biggest = std::max(biggest, std::abs(x));
  }
  const double n = double(w.value.size());
  CHECK(biggest <= limit);
  CHECK(biggest > 0.95 * limit);
  CHECK(std::abs(sum / n) < 0.02);
  CHECK(sq / n == doctest::Approx(limit * limit / 3.0).epsilon(0.08));  // variance of U(-a, a) = a^2 / 3
  Rng again(42);
  Param w2 = make_param("w", 60, 40);
  glorot_uniform(w2, again);
  CHECK(w2.value == w.value);
}

TEST_CASE("dropout: inverted scaling keeps the mean, the mask is seeded") {
  Rng rng(9);
  const Mat mask = dropout_mask(50, 40, 0.5f, rng);
  int zeros = 0;
  double mean = 0;
  for (Eigen::Index k = 0; k < mask.size(); ++k) {
    const float m = mask.data()[k];
    CHECK((m == 0.0f || m == 2.0f));
    zeros += m == 0.0f;
    mean += m;
  }
  CHECK(double(zeros) / double(mask.size()) == doctest::Approx(0.5).epsilon(0.06));
  CHECK(mean / double(mask.size()) == doctest::Approx(1.0).epsilon(0.06));
  Rng again(9);
  CHECK(dropout_mask(50, 40, 0.5f, again) == mask);
  Rng r0(1);
  const Mat none = dropout_mask(3, 3, 0.0f, r0);
  CHECK(none == Mat::Ones(3, 3));  // p = 0: the identity
}

TEST_CASE("mini-batches: every example once per epoch, reshuffled, seeded") {
  BatchOrder order;
  order.reset(10, 4, 123);
  std::vector<int> seen(10, 0);
  std::vector<int> sizes;
  for (int b = 0; b < 3; ++b) {
    const std::vector<int> batch = order.next();
    sizes.push_back(int(batch.size()));
    for (int i : batch) seen[i]++;
  }
  CHECK(sizes == std::vector<int>{4, 4, 2});
  for (int c : seen) CHECK(c == 1);
  const std::vector<int> first_epoch = order.order;
  order.next();
  CHECK(order.epoch == 1);
  CHECK(order.order != first_epoch);  // a fresh shuffle (10! orders: equal by chance ~3e-7)
  BatchOrder same;
  same.reset(10, 4, 123);
  CHECK(same.next() == std::vector<int>(first_epoch.begin(), first_epoch.begin() + 4));
}

// ---------------------------------------------------------------- 6 layer gradients
TEST_CASE("gradients: embedding, dense, average pooling, dropout, ReLU") {
  Rng rng(21);
  Embedding emb;
  emb.init("emb", 5, 3, rng, 0.5f);
  Dense dense;
  dense.init("dense", 3, 2, rng);
  const std::vector<int> ids = {4, 1, 4, 0};  // a repeated id: its rows must add up
  const Mat mask = dropout_mask(1, 3, 0.3f, rng);
  const Mat C = random_mat(rng, 1, 2);
  // emb -> ReLU -> mean over time -> dropout -> dense
  auto forward = [&](Mat& X, Mat& R, Mat& pooled, Mat& dropped, Mat& Y) {
    emb.forward(ids, X);
    R = relu(X);
    pooled = mean_rows(R);
    dropped = apply_mask(pooled, mask);
    dense.forward(dropped, Y);
  };
  auto loss = [&] {
    Mat X, R, pooled, dropped, Y;
    forward(X, R, pooled, dropped, Y);
    return weighted_sum(Y, C);
  };
  ParamList params;
  emb.collect(params);
  dense.collect(params);
  zero_grads(params);
  Mat X, R, pooled, dropped, Y, ddropped;
  forward(X, R, pooled, dropped, Y);
  dense.backward(dropped, C, &ddropped);
  const Mat dR = mean_rows_backward(apply_mask(ddropped, mask), int(ids.size()));
  emb.backward(ids, relu_backward(X, dR));
  check_params("emb/dense", params, loss);
}

TEST_CASE("gradients: recurrent layer (tanh RNN, LSTM, GRU, forward and reverse, h0)") {
  for (CellKind cell : kCells)
    for (bool reverse : {false, true}) {
      CAPTURE(name_of(cell));
      CAPTURE(reverse);
      Rng rng(31);
      RecurrentLayer layer;
      layer.init("rnn", cell, 3, 4, rng);
      // Non-zero biases so every term of the backward pass matters.
      for (Param* p : {&layer.b_x, &layer.b_h}) p->value = random_mat(rng, 1, int(p->value.cols()), 0.5f);
      Mat X = random_mat(rng, 5, 3), h0 = random_mat(rng, 1, 4, 0.5f), C = random_mat(rng, 5, 4);
      auto loss = [&] {
        RecurrentTrace tr;
        recurrent_forward(layer, X, reverse, tr, &h0);
        return weighted_sum(tr.H, C);
      };
      ParamList params;
      layer.collect(params);
      zero_grads(params);
      RecurrentTrace tr;
      recurrent_forward(layer, X, reverse, tr, &h0);
      Mat dX, dh0;
      recurrent_backward(layer, tr, C, &dX, &dh0);
      check_params("recurrent", params, loss);
      attn::test::check_gradient("recurrent dX", X, dX, loss);
      attn::test::check_gradient("recurrent dh0", h0, dh0, loss);
    }
}

TEST_CASE("gradients: multi-head self-attention, with and without W_O") {
  for (int d_out : {5, 0}) {
    CAPTURE(d_out);
    Rng rng(41);
    SelfAttentionLayer layer;
    layer.init("mha", 6, 2, 3, d_out, rng);
    Mat X = random_mat(rng, 4, 6), C = random_mat(rng, 4, d_out > 0 ? d_out : 6);
    auto loss = [&] {
      SelfAttentionTrace tr;
      self_attention_forward(layer, X, tr);
      return weighted_sum(tr.out, C);
    };
    ParamList params;
    layer.collect(params);
    CHECK(params.size() == (d_out > 0 ? 4u : 3u));
    zero_grads(params);
    SelfAttentionTrace tr;
    self_attention_forward(layer, X, tr);
    Mat dX;
    self_attention_backward(layer, tr, C, dX);
    check_params("self-attention", params, loss);
    attn::test::check_gradient("self-attention dX", X, dX, loss);
  }
}

TEST_CASE("gradients: multi-head self-attention with masked padding (and causal)") {
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    Rng rng(43);
    SelfAttentionLayer layer;
    layer.init("mha", 6, 2, 3, 5, rng);
    layer.causal = causal;
    Mat X = random_mat(rng, 6, 6), C = random_mat(rng, 6, 5);
    const int valid = 4;  // rows 4 and 5 are pads
    auto loss = [&] {
      SelfAttentionTrace tr;
      self_attention_forward(layer, X, tr, nullptr, valid);
      return weighted_sum(tr.out, C);
    };
    ParamList params;
    layer.collect(params);
    zero_grads(params);
    SelfAttentionTrace tr;
    self_attention_forward(layer, X, tr, nullptr, valid);
    Mat dX;
    self_attention_backward(layer, tr, C, dX);
    check_params("self-attention, padded", params, loss);
    attn::test::check_gradient("self-attention, padded dX", X, dX, loss);
    CHECK(dX.bottomRows(2).cwiseAbs().maxCoeff() == 0.0f);  // the pads do not reach the loss
  }
}

TEST_CASE("gradients: attention pooling") {
  Rng rng(51);
  AttentionPooling pool;
  pool.init("pool", 4, 3, rng);
  pool.b.value = random_mat(rng, 1, 3, 0.5f);
  Mat Hs = random_mat(rng, 5, 4), C = random_mat(rng, 1, 4);
  auto loss = [&] {
    AttentionPoolingTrace tr;
    attention_pooling_forward(pool, Hs, tr);
    return weighted_sum(tr.pooled, C);
  };
  ParamList params;
  pool.collect(params);
  zero_grads(params);
  AttentionPoolingTrace tr;
  attention_pooling_forward(pool, Hs, tr);
  CHECK(tr.alpha.sum() == doctest::Approx(1.0));
  Mat dHs = Mat::Zero(5, 4);
  attention_pooling_backward(pool, Hs, tr, C, dHs);
  check_params("attention pooling", params, loss);
  attn::test::check_gradient("attention pooling dHs", Hs, dHs, loss);
}

TEST_CASE("gradients: decoder attention (additive, general, dot) over two decoder steps") {
  for (AlignScore kind : {AlignScore::additive, AlignScore::general, AlignScore::dot}) {
    CAPTURE(std::string(align_score_name(kind)));
    Rng rng(61);
    const int Hq = kind == AlignScore::dot ? 4 : 3, Hk = 4, S = 5;
    DecoderAttention att;
    att.init("att", kind, Hq, Hk, 3, rng);
    Mat Hs = random_mat(rng, S, Hk), queries = random_mat(rng, 2, Hq), C = random_mat(rng, 2, Hk);
    // Two queries share the keys: the additive key gradient must gather both.
    auto loss = [&] {
      DecoderAttentionKeys keys;
      decoder_attention_prepare(att, Hs, keys);
      double total = 0;
      for (int t = 0; t < 2; ++t) {
        DecoderAttentionStep step;
        decoder_attention_forward(att, &queries(t, 0), Hs, keys, step);
        total += weighted_sum(step.context, C.row(t));
      }
      return total;
    };
    ParamList params;
    att.collect(params);
    zero_grads(params);
    DecoderAttentionKeys keys;
    decoder_attention_prepare(att, Hs, keys);
    Mat dHs = Mat::Zero(S, Hk), dq = Mat::Zero(2, Hq);
    for (int t = 0; t < 2; ++t) {
      DecoderAttentionStep step;
      decoder_attention_forward(att, &queries(t, 0), Hs, keys, step);
      decoder_attention_backward(att, &queries(t, 0), Hs, keys, step, &C(t, 0), &dq(t, 0), dHs);
    }
    decoder_attention_finish(att, Hs, keys, dHs);
    check_params("decoder attention", params, loss);
    attn::test::check_gradient("decoder attention dHs", Hs, dHs, loss);
    attn::test::check_gradient("decoder attention dquery", queries, dq, loss);
  }
}

TEST_CASE("gradients: LayerNorm (gain and bias not at their start values) and its input") {
  Rng rng(101);
  LayerNorm ln;
  ln.init("ln", 5);
  ln.gamma.value = random_mat(rng, 1, 5);
  ln.beta.value = random_mat(rng, 1, 5);
  Mat X = random_mat(rng, 3, 5, 2.0f);
  ParamList params;
  ln.collect(params);
  check_layer(
      "layer norm", params, X, random_mat(rng, 3, 5),
      [&](const Mat& in) {
        LayerNormTrace tr;
        layer_norm_forward(ln, in, tr);
        return tr.out;
      },
      [&](const Mat& dOut, Mat& dX) {
        LayerNormTrace tr;
        layer_norm_forward(ln, X, tr);
        layer_norm_backward(ln, tr, dOut, dX);
      });
}

TEST_CASE("gradients: the GELU feed-forward layer, weights, biases and input") {
  Rng rng(103);
  FeedForward ff;
  ff.init("ffn", 4, 6, rng);
  ff.up.b.value = random_mat(rng, 1, 6, 0.5f);
  ff.down.b.value = random_mat(rng, 1, 4, 0.5f);
  Mat X = random_mat(rng, 3, 4, 1.5f);
  ParamList params;
  ff.collect(params);
  check_layer(
      "feed-forward", params, X, random_mat(rng, 3, 4),
      [&](const Mat& in) {
        FeedForwardTrace tr;
        feed_forward_forward(ff, in, tr);
        return tr.out;
      },
      [&](const Mat& dOut, Mat& dX) {
        FeedForwardTrace tr;
        feed_forward_forward(ff, X, tr);
        feed_forward_backward(ff, tr, dOut, dX);
      });
}

// ---------------------------------------------------------------- 7 agreement with src/attn
TEST_CASE("agreement: the training recurrent layer equals rnn_forward of recurrent.h") {
  // Same formulas, transposed weights (x-times-W here, PyTorch layout there).
  // Tolerance 2e-5: different exp/tanh implementations and summation orders.
  for (CellKind cell : kCells) {
    CAPTURE(name_of(cell));
    Rng rng(71);
    RecurrentLayer layer;
    layer.init("rnn", cell, 5, 7, rng);
    for (Param* p : {&layer.b_x, &layer.b_h}) p->value = random_mat(rng, 1, int(p->value.cols()), 0.5f);
    const Mat X = random_mat(rng, 9, 5);
    RecurrentTrace tr;
    recurrent_forward(layer, X, false, tr);
    RnnDesc desc;
    desc.cell = cell;
    RnnParams params;
    params.forward.w_ih = layer.W_x.value.transpose();
    params.forward.w_hh = layer.W_h.value.transpose();
    params.forward.b_ih = layer.b_x.value.transpose();
    params.forward.b_hh = layer.b_h.value.transpose();
    const RnnResult ref = rnn_forward(desc, params, X);
    REQUIRE(ref.error.empty());
    check_close("recurrent states", tr.H, ref.h, 2e-5, 2e-5);
  }
}

TEST_CASE("agreement: the training self-attention layer equals multihead_forward of multihead.h") {
  Rng rng(81);
  SelfAttentionLayer layer;
  layer.init("mha", 8, 2, 4, 6, rng);
  const Mat X = random_mat(rng, 7, 8);
  SelfAttentionTrace tr;
  self_attention_forward(layer, X, tr);
  MultiHeadDesc desc;
  desc.heads = 2;
  MultiHeadParams params;
  params.W_Q = layer.W_Q.value;
  params.W_K = layer.W_K.value;
  params.W_V = layer.W_V.value;
  params.W_O = layer.W_O.value;
  const MultiHeadResult ref = self_attention_forward(X, desc, params);
  REQUIRE(ref.ok());
  check_close("self-attention output", tr.out, ref.output, 2e-5, 2e-5);
  for (int h = 0; h < 2; ++h) check_close("head weights", tr.P[h], ref.weights[h], 2e-6, 2e-5);
}

TEST_CASE("agreement: additive decoder attention equals additive_scores + softmax of src/attn") {
  Rng rng(91);
  DecoderAttention att;
  att.init("att", AlignScore::additive, 3, 4, 5, rng);
  const Mat Hs = random_mat(rng, 6, 4), s = random_mat(rng, 1, 3);
  DecoderAttentionKeys keys;
  decoder_attention_prepare(att, Hs, keys);
  DecoderAttentionStep step;
  decoder_attention_forward(att, s.data(), Hs, keys, step);
  const Vec v_a = att.v.value.row(0).transpose();
  const Mat ref_scores = additive_scores(s, Hs, att.W_q.value, att.W_k.value, v_a);
  const Mat ref_weights = softmax_rows(ref_scores);
  check_close("additive alignment", step.alpha, ref_weights, 2e-6, 2e-5);
  check_close("context", step.context, Mat(ref_weights * Hs), 2e-6, 2e-5);
}

TEST_CASE("agreement: LayerNorm equals attn/transformer.h, tanh-GELU is within 1e-3 of the erf form") {
  Rng rng(107);
  LayerNorm ln;
  ln.init("ln", 6);
  ln.gamma.value = random_mat(rng, 1, 6);
  ln.beta.value = random_mat(rng, 1, 6);
  const Mat X = random_mat(rng, 4, 6, 3.0f);
  LayerNormTrace tr;
  layer_norm_forward(ln, X, tr);
  const LayerNormResult ref =
      attn::layer_norm_forward(X, ln.gamma.value.row(0).transpose(), ln.beta.value.row(0).transpose(), ln.eps);
  CHECK((tr.out - ref.output).cwiseAbs().maxCoeff() < 1e-5f);
  // GELU over [-6, 6]: the largest difference of the two forms (measured 4.7e-4).
  Mat pre(1, 1201);
  for (int k = 0; k <= 1200; ++k) pre(0, k) = -6.0f + 0.01f * float(k);
  Mat s, ours;
  gelu_forward(pre, s, ours);
  const Mat exact = attn::activate(pre, attn::Activation::gelu);
  const float worst = (ours - exact).cwiseAbs().maxCoeff();
  MESSAGE("largest |tanh-GELU - erf-GELU| on [-6, 6]: " << worst);
  CHECK(worst < 1e-3f);
}

// ---------------------------------------------------------------- 8 CRF decoding
TEST_CASE("crf: Viterbi finds the brute-force best sequence over a sweep of lengths and tag counts") {
  Rng rng(11);
  int cases = 0;
  for (int n : {1, 2, 3, 5, 7})
    for (int T : {1, 2, 3, 5})
      for (int rep = 0; rep < 4; ++rep) {
        const Mat E = random_mat(rng, n, T, 2.0f), A = random_mat(rng, T, T, 2.0f), start = random_mat(rng, 1, T, 2.0f);
        const TagPath fast = viterbi_decode(E, A, start), naive = brute_force_decode(E, A, start);
        CAPTURE(n);
        CAPTURE(T);
        // Random real scores have no ties: the same sequence, and the score agrees
        // with the reference's to rounding (the sums are taken in the same order).
        CHECK(fast.tags == naive.tags);
        CHECK(fast.score == doctest::Approx(naive.score).epsilon(1e-6));
        CHECK(fast.score == tag_path_score(E, A, start, fast.tags));
        CHECK(fast.score >= independent_tags(E, A, start).score - 1e-5f);
        ++cases;
      }
  CHECK(cases == 80);
}

TEST_CASE("crf: with no transition scores the CRF is the word-by-word tagger") {
  Rng rng(12);
  const Mat E = random_mat(rng, 6, 4), A = Mat::Zero(4, 4), start = Mat::Zero(1, 4);
  CHECK(viterbi_decode(E, A, start).tags == independent_tags(E, A, start).tags);
}

TEST_CASE("crf: BIO rules forbid I-X after anything but B-X and I-X, and at the start") {
  CHECK(bio_allowed("B-A1", "I-A1"));
  CHECK(bio_allowed("I-A1", "I-A1"));
  CHECK(!bio_allowed("O", "I-A1"));
  CHECK(!bio_allowed("B-A0", "I-A1"));
  CHECK(!bio_allowed("", "I-A1"));
  CHECK(bio_allowed("", "B-A1"));
  CHECK(bio_allowed("I-A2", "O"));
  CHECK(bio_allowed("O", "B-V"));
  const std::vector<std::string> tags = {"O", "B-A1", "I-A1"};
  Mat A, start;
  bio_transitions(tags, 4.0f, &A, &start);
  const Mat A_expected = (Mat(3, 3) << 0, 0, -4, 0, 0, 0, 0, 0, 0).finished();
  const Mat start_expected = (Mat(1, 3) << 0, 0, -4).finished();
  CHECK((A == A_expected));
  CHECK((start == start_expected));
  CHECK(bio_violations(tags, {0, 2, 1, 2}) == 1);   // O I-A1 B-A1 I-A1: O -> I-A1
  CHECK(bio_violations(tags, {2, 0, 2}) == 2);      // I-A1 at the start, and after O
  CHECK(bio_violations(tags, {1, 2, 2, 0}) == 0);
}

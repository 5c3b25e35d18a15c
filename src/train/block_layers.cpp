// block_layers.cpp: LayerNorm, GELU and the feed-forward layer (see
// block_layers.h). Row sums are taken in double in a fixed order; GELU's
// exponential is fmath.h's float-only exp_fast (GELU runs on every feed-forward
// unit, the model's most frequent non-linear function, and that loop
// vectorises), so the bits depend neither on the machine nor on the C library.
#include "train/block_layers.h"

#include <cmath>

#include "train/fmath.h"
#include "train/lanes.h"

namespace attn::train {

// ---------------------------------------------------------------- 1 LayerNorm
void LayerNorm::init(const std::string& name, int d) {
  gamma = make_param(name + ".gamma", 1, d);
  beta = make_param(name + ".beta", 1, d);
  gamma.value.setOnes();
}

// Both passes take R rows at a time (R = 4, then the last rows one by one):
// each row's sums are still added in order j = 0, 1, ..., and each parameter
// gradient still gains its rows in order, so the bits are those of one row at
// a time; but R independent chains of double adds overlap, where one row alone
// waited for each add before the next (the passes were latency-bound).
namespace {
constexpr int kNormRows = 4;

template <int R>
void layer_norm_rows(const LayerNorm& ln, const Mat& X, int i0, LayerNormTrace& tr) {
  const int d = int(X.cols());
  double sum[R] = {}, mean[R], sq[R] = {};
  for (int j = 0; j < d; ++j)  // pass 1: the mean
    for (int r = 0; r < R; ++r) sum[r] += X(i0 + r, j);
  for (int r = 0; r < R; ++r) mean[r] = sum[r] / d;
  for (int j = 0; j < d; ++j)  // pass 2: the biased variance, from the centred values (no cancellation)
    for (int r = 0; r < R; ++r) sq[r] += (X(i0 + r, j) - mean[r]) * (X(i0 + r, j) - mean[r]);
  for (int r = 0; r < R; ++r) {
    const int i = i0 + r;
    const float inv_std = float(1.0 / std::sqrt(sq[r] / d + double(ln.eps)));  // eps keeps a constant row finite
    tr.inv_std[size_t(i)] = inv_std;
    for (int j = 0; j < d; ++j) {  // pass 3: normalise, scale, shift
      tr.xhat(i, j) = float(X(i, j) - mean[r]) * inv_std;
      tr.out(i, j) = ln.gamma.value(0, j) * tr.xhat(i, j) + ln.beta.value(0, j);
    }
  }
}

template <int R>
void layer_norm_backward_group(const LayerNorm& ln, const LayerNormTrace& tr, const Mat& dOut, int i0, float* dgamma,
                               float* dbeta, std::vector<float>& dxhat, Mat& dX) {
  const int d = int(tr.xhat.cols());
  for (int r = 0; r < R; ++r) {  // the parameters' gradients and dxhat: element-wise loops that vectorise
    const float* dy = &dOut(i0 + r, 0);
    const float* xh = &tr.xhat(i0 + r, 0);
    float* dx = dxhat.data() + size_t(r) * size_t(d);
    for (int j = 0; j < d; ++j) {
      dgamma[j] += dy[j] * xh[j];
      dbeta[j] += dy[j];
      dx[j] = dy[j] * ln.gamma.value(0, j);
    }
  }
  double s1[R] = {}, s2[R] = {};  // sum of dxhat, sum of dxhat * xhat
  for (int j = 0; j < d; ++j)
    for (int r = 0; r < R; ++r) {
      const float dx = dxhat[size_t(r) * size_t(d) + size_t(j)];
      s1[r] += dx;
      s2[r] += double(dx) * tr.xhat(i0 + r, j);
    }
  for (int r = 0; r < R; ++r) {
    const int i = i0 + r;
    const float m1 = float(s1[r] / d), m2 = float(s2[r] / d);
    const float* dx = dxhat.data() + size_t(r) * size_t(d);
    for (int j = 0; j < d; ++j) dX(i, j) = tr.inv_std[size_t(i)] * (dx[j] - m1 - tr.xhat(i, j) * m2);
  }
}
}  // namespace

void layer_norm_forward(const LayerNorm& ln, const Mat& X, LayerNormTrace& tr) {
  const int n = int(X.rows()), d = int(X.cols());
  tr.xhat.resize(n, d);
  tr.out.resize(n, d);
  tr.inv_std.assign(size_t(n), 0.0f);
  int i = 0;
  for (; i + kNormRows <= n; i += kNormRows) layer_norm_rows<kNormRows>(ln, X, i, tr);
  for (; i < n; ++i) layer_norm_rows<1>(ln, X, i, tr);
}

void layer_norm_backward(LayerNorm& ln, const LayerNormTrace& tr, const Mat& dOut, Mat& dX) {
  dX.resize(tr.xhat.rows(), tr.xhat.cols());
  layer_norm_backward_rows(ln, tr, dOut, 0, int(tr.xhat.rows()), ln.gamma.grad.data(), ln.beta.grad.data(), dX);
}

void layer_norm_backward_rows(const LayerNorm& ln, const LayerNormTrace& tr, const Mat& dOut, int begin, int end,
                              float* dgamma, float* dbeta, Mat& dX) {
  std::vector<float> dxhat(size_t(kNormRows) * size_t(tr.xhat.cols()), 0.0f);
  int i = begin;
  for (; i + kNormRows <= end; i += kNormRows) layer_norm_backward_group<kNormRows>(ln, tr, dOut, i, dgamma, dbeta, dxhat, dX);
  for (; i < end; ++i) layer_norm_backward_group<1>(ln, tr, dOut, i, dgamma, dbeta, dxhat, dX);
}

// ---------------------------------------------------------------- 2 GELU
namespace {
constexpr float kSqrt2OverPi = 0.7978845608028654f;
constexpr float kCubic = 0.044715f;
}  // namespace

namespace {
// GELU's constants as vectors, read from one object (lanes.h, ExpFastConstants, says why).
struct GeluConstants {
  Lanes cubic = splat_lanes(kCubic), sqrt2_over_pi = splat_lanes(kSqrt2OverPi), minus_two = splat_lanes(-2.0f),
        one = splat_lanes(1.0f);
};
const GeluConstants& gelu_constants() {
  static const GeluConstants c;
  return c;
}
}  // namespace

void gelu_forward(const Mat& pre, Mat& s, Mat& out) {
  s.resize(pre.rows(), pre.cols());
  out.resize(pre.rows(), pre.cols());
  const float* x = pre.data();
  float* sp = s.data();
  float* o = out.data();
  const int n = int(pre.size());
  // kLanes at a time (lanes.h), then the last few one by one: the same operations in the same order.
  int k = 0;
  if (n >= kLanes) {
    const GeluConstants c = gelu_constants();
    const ExpFastConstants e = exp_fast_constants();
    for (; k + kLanes <= n; k += kLanes) {
      const Lanes xv = load_lanes(x + k);
      const Lanes minus_2u = c.minus_two * (c.sqrt2_over_pi * (xv + c.cubic * xv * xv * xv));
      const Lanes sv = c.one / (c.one + exp_fast_lanes(minus_2u, e));
      store_lanes(sp + k, sv);
      store_lanes(o + k, xv * sv);
    }
  }
  for (; k < n; ++k) {
    const float u = kSqrt2OverPi * (x[k] + kCubic * x[k] * x[k] * x[k]);
    sp[k] = 1.0f / (1.0f + exp_fast(-2.0f * u));  // e^{-2u} = inf gives s = 0: no NaN
    o[k] = x[k] * sp[k];
  }
}

void gelu_backward(const Mat& pre, const Mat& s, const Mat& dOut, Mat& dPre) {
  dPre.resize(pre.rows(), pre.cols());
  for (Eigen::Index k = 0; k < pre.size(); ++k) {
    const float x = pre.data()[k], sk = s.data()[k];
    const float du = kSqrt2OverPi * (1.0f + 3.0f * kCubic * x * x);  // u'(x)
    dPre.data()[k] = dOut.data()[k] * (sk + x * sk * (1.0f - sk) * 2.0f * du);
  }
}

// ---------------------------------------------------------------- 3 feed-forward
void FeedForward::init(const std::string& name, int d, int d_ff, Rng& rng) {
  up.init(name + ".up", d, d_ff, rng);
  down.init(name + ".down", d_ff, d, rng);
}

void feed_forward_forward(const FeedForward& ff, const Mat& X, FeedForwardTrace& tr) {
  tr.X = X;
  ff.up.forward(X, tr.pre);
  gelu_forward(tr.pre, tr.s, tr.hidden);
  ff.down.forward(tr.hidden, tr.out);
}

void feed_forward_backward(FeedForward& ff, const FeedForwardTrace& tr, const Mat& dOut, Mat& dX) {
  Mat dHidden, dPre;
  ff.down.backward(tr.hidden, dOut, &dHidden);
  gelu_backward(tr.pre, tr.s, dHidden, dPre);
  ff.up.backward(tr.X, dPre, &dX);
}

}  // namespace attn::train

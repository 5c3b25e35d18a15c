// kernels.cpp: plain-loop products and softmax (see kernels.h for the rules:
// fixed summation order, no Eigen arithmetic, no fused multiply-add).
#include "train/kernels.h"

#include <algorithm>
#include <vector>

#include "train/fmath.h"

namespace attn::train {

// ---------------------------------------------------------------- 1 products
// The products keep a tile of kTile outputs in a local array -- registers, once
// the compiler has vectorised its loops -- while the inner dimension streams
// past, instead of loading and storing the outputs once per term. Each output
// still gains exactly the same terms in exactly the same order as in the plain
// saxpy loops, so the bits do not change (tests/train/test_train.cpp compares
// them with the plain loops; the golden losses of every model pin them).
namespace {
constexpr int kTile = 32;
}  // namespace

void matmul(const Mat& X, const Mat& W, Mat& Y) {
  Y.setZero(X.rows(), W.cols());
  matmul_add(X, W, Y);
}

void matmul_add(const Mat& X, const Mat& W, Mat& Y) {
  for (Eigen::Index i = 0; i < X.rows(); ++i) vec_mat_add(&X(i, 0), W, &Y(i, 0));
}

void matmul_tn_add(const Mat& X, const Mat& D, Mat& G) {
  // G(p, j) gains X(i, p) D(i, j) for i = 0, 1, ... (skipping X(i, p) == 0), as
  // outer_add row after row would add them; a tile of G's row stays in registers
  // while the rows of D stream past.
  const int n = int(X.rows()), m = int(G.cols());
  for (Eigen::Index p = 0; p < G.rows(); ++p) {
    float* g = G.data() + p * m;
    int j0 = 0;
    for (; j0 + kTile <= m; j0 += kTile) {
      float acc[kTile];
      for (int j = 0; j < kTile; ++j) acc[j] = g[j0 + j];
      for (int i = 0; i < n; ++i) {
        const float a = X(i, p);
        if (a == 0.0f) continue;
        const float* d = &D(i, 0) + j0;
        for (int j = 0; j < kTile; ++j) acc[j] += a * d[j];
      }
      for (int j = 0; j < kTile; ++j) g[j0 + j] = acc[j];
    }
    for (int i = 0; i < n && j0 < m; ++i) {  // the last columns, fewer than a tile
      const float a = X(i, p);
      if (a == 0.0f) continue;
      axpy(a, &D(i, 0) + j0, g + j0, m - j0);
    }
  }
}

void matmul_nt(const Mat& D, const Mat& W, Mat& Y) {
  Y.setZero(D.rows(), W.rows());
  matmul_nt_add(D, W, Y);
}

void matmul_nt_add(const Mat& D, const Mat& W, Mat& Y) {
  // Row i of Y gains, for each k, the sum over j = 0, 1, ... of D(i, j) W(k, j):
  // vec_mat_t_add's dot products. Summing them in the saxpy form over a
  // transposed copy of W (a tile of k at once, j outermost) keeps each sum's
  // order, so the bits are those of the dot products, and the compiler can
  // vectorise across k; the dot products cannot be (their order is fixed).
  const int k = int(W.rows()), m = int(W.cols());
  thread_local std::vector<float> wt, sum;
  wt.resize(size_t(m) * size_t(k));
  sum.resize(size_t(k));
  for (int p = 0; p < k; ++p)
    for (int j = 0; j < m; ++j) wt[size_t(j) * size_t(k) + size_t(p)] = W(p, j);
  for (Eigen::Index i = 0; i < D.rows(); ++i) {
    int p0 = 0;
    for (; p0 + kTile <= k; p0 += kTile) {
      float acc[kTile];
      for (int p = 0; p < kTile; ++p) acc[p] = 0.0f;
      for (int j = 0; j < m; ++j) {  // no zero skipping: 0 * inf
        const float a = D(i, j);
        const float* w = &wt[size_t(j) * size_t(k) + size_t(p0)];
        for (int p = 0; p < kTile; ++p) acc[p] += a * w[p];
      }
      for (int p = 0; p < kTile; ++p) Y(i, p0 + p) += acc[p];
    }
    if (p0 == k) continue;
    std::fill(sum.begin(), sum.end(), 0.0f);  // the last k, fewer than a tile
    for (int j = 0; j < m; ++j) axpy(D(i, j), &wt[size_t(j) * size_t(k) + size_t(p0)], sum.data(), k - p0);
    for (int p = p0; p < k; ++p) Y(i, p) += sum[size_t(p - p0)];
  }
}

void vec_mat(const float* x, const Mat& W, float* y) {
  for (Eigen::Index j = 0; j < W.cols(); ++j) y[j] = 0.0f;
  vec_mat_add(x, W, y);
}

void vec_mat_add(const float* x, const Mat& W, float* y) {
  // y[j] gains x[p] W(p, j) for p = 0, 1, ..., skipping x[p] == 0 (adding 0 * w
  // changes nothing, w being finite); a tile of y stays in registers while the
  // rows of W stream past.
  const int k = int(W.rows()), m = int(W.cols());
  int j0 = 0;
  for (; j0 + kTile <= m; j0 += kTile) {
    float acc[kTile];
    for (int j = 0; j < kTile; ++j) acc[j] = y[j0 + j];
    for (int p = 0; p < k; ++p) {
      const float a = x[p];
      if (a == 0.0f) continue;
      const float* w = W.data() + size_t(p) * size_t(m) + size_t(j0);
      for (int j = 0; j < kTile; ++j) acc[j] += a * w[j];
    }
    for (int j = 0; j < kTile; ++j) y[j0 + j] = acc[j];
  }
  for (int p = 0; p < k && j0 < m; ++p) {  // the last columns, fewer than a tile
    const float a = x[p];
    if (a == 0.0f) continue;
    axpy(a, W.data() + size_t(p) * size_t(m) + size_t(j0), y + j0, m - j0);
  }
}

void vec_mat_t_add(const float* d, const Mat& W, float* y) {
  const int m = int(W.cols());
  for (Eigen::Index k = 0; k < W.rows(); ++k) y[k] += dot(d, W.data() + k * m, m);
}

void outer_add(const float* x, const float* d, Mat& G) {
  const int m = int(G.cols());
  for (Eigen::Index p = 0; p < G.rows(); ++p) {
    const float a = x[p];
    if (a == 0.0f) continue;
    axpy(a, d, G.data() + p * m, m);
  }
}

// ---------------------------------------------------------------- 2 row and column helpers
void add_row_bias(Mat& Y, const Mat& b) {
  for (Eigen::Index i = 0; i < Y.rows(); ++i)
    for (Eigen::Index j = 0; j < Y.cols(); ++j) Y(i, j) += b(0, j);
}

void colsum_add(const Mat& D, Mat& g) {
  for (Eigen::Index i = 0; i < D.rows(); ++i)
    for (Eigen::Index j = 0; j < D.cols(); ++j) g(0, j) += D(i, j);
}

float dot(const float* x, const float* y, int n) {
  float s = 0.0f;
  for (int j = 0; j < n; ++j) s += x[j] * y[j];
  return s;
}

void axpy(float a, const float* x, float* y, int n) {
  for (int j = 0; j < n; ++j) y[j] += a * x[j];
}

// ---------------------------------------------------------------- 3 softmax
void softmax_row(const float* s, int n, float* p) {
  float m = s[0];                                   // pass 1: the maximum
  for (int j = 1; j < n; ++j) m = s[j] > m ? s[j] : m;
  float total = 0.0f;                               // pass 2: exp(s - max), sum
  for (int j = 0; j < n; ++j) {
    p[j] = exp_f(s[j] - m);
    total += p[j];
  }
  const float inv = 1.0f / total;                   // pass 3: normalise (total >= 1)
  for (int j = 0; j < n; ++j) p[j] *= inv;
}

void softmax_row_backward(const float* p, const float* dp, int n, float* ds) {
  const float inner = dot(dp, p, n);
  for (int j = 0; j < n; ++j) ds[j] = p[j] * (dp[j] - inner);
}

}  // namespace attn::train

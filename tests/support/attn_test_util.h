// attn_test_util.h: small helpers shared by the attention-maths tests
// (test_softmax, test_scores, test_attention, test_multihead, test_positional).
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "base/rng.h"
#include "base/tensor.h"

namespace attn::test {

// The shape sweep of every Eigen-vs-reference comparison: odd sizes included,
// kept short so the whole executable stays fast (also under node/wasm).
inline const int kSweep[] = {1, 2, 3, 7, 16, 33, 64, 257};

inline Mat random_mat(Rng& rng, Eigen::Index rows, Eigen::Index cols, float scale = 1.0f) {
  Mat M(rows, cols);
  for (Eigen::Index r = 0; r < rows; ++r)
    for (Eigen::Index c = 0; c < cols; ++c) M(r, c) = rng.uniform(-scale, scale);
  return M;
}

inline Vec random_vec(Rng& rng, Eigen::Index size, float scale = 1.0f) {
  Vec v(size);
  for (Eigen::Index i = 0; i < size; ++i) v[i] = rng.uniform(-scale, scale);
  return v;
}

inline bool all_finite(const Mat& M) {
  for (Eigen::Index r = 0; r < M.rows(); ++r)
    for (Eigen::Index c = 0; c < M.cols(); ++c)
      if (!std::isfinite(M(r, c))) return false;
  return true;
}

// Passes when shapes agree and every element satisfies
// |actual - expected| <= atol + rtol * |expected|.
template <typename A, typename B>
void check_close(const std::string& name, const A& actual, const B& expected, double atol, double rtol) {
  REQUIRE_MESSAGE(actual.rows() == expected.rows(), name << ": rows " << actual.rows() << " vs " << expected.rows());
  REQUIRE_MESSAGE(actual.cols() == expected.cols(), name << ": cols " << actual.cols() << " vs " << expected.cols());
  double worst = 0.0;
  Eigen::Index wr = 0, wc = 0;
  for (Eigen::Index r = 0; r < actual.rows(); ++r)
    for (Eigen::Index c = 0; c < actual.cols(); ++c) {
      const double a = double(actual(r, c)), e = double(expected(r, c));
      const double diff = std::abs(a - e);  // exact agreement passes even with zero tolerance
      const double ratio = diff == 0.0 ? 0.0 : diff / (atol + rtol * std::abs(e));
      if (!(ratio <= worst)) {  // NaN counts as the worst
        worst = std::isnan(ratio) ? 1e30 : ratio;
        wr = r;
        wc = c;
      }
    }
  CHECK_MESSAGE(worst <= 1.0, name << ": " << actual(wr, wc) << " vs expected " << expected(wr, wc) << " at (" << wr
                                   << ", " << wc << "), error/tolerance = " << worst);
}

// Loss for gradient checks: sum_ij C_ij M_ij in double, so dL/dM = C.
inline double weighted_sum(const Mat& M, const Mat& C) {
  double s = 0.0;
  for (Eigen::Index r = 0; r < M.rows(); ++r)
    for (Eigen::Index c = 0; c < M.cols(); ++c) s += double(M(r, c)) * C(r, c);
  return s;
}

inline bool contains(const Warnings& warnings, const std::string& needle) {
  return std::any_of(warnings.begin(), warnings.end(),
                     [&](const std::string& w) { return w.find(needle) != std::string::npos; });
}

}  // namespace attn::test

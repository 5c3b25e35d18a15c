// gradcheck.h: compares an analytic gradient with central finite differences.
//
// The core is float32, so differences are taken with a fairly large step and the
// loss is accumulated in double; the check passes when every element satisfies
// |analytic - numeric| <= atol + rtol * max(|analytic|, |numeric|).
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "base/tensor.h"

namespace attn::test {

struct GradCheck {
  float eps = 1e-2f;    // finite-difference step
  double rtol = 2e-2;   // relative tolerance
  double atol = 2e-3;   // absolute tolerance
};

// What one check found, for tests that report their accuracy.
struct GradCheckReport {
  double worst = 0.0;         // largest violation ratio (<= 1 means pass)
  double max_abs_diff = 0.0;  // max |analytic - numeric| over the elements
  double max_numeric = 0.0;   // max |numeric|: the gradient's scale
  // max |analytic - numeric| / max |numeric| (0 for an all-zero gradient).
  double relative_error() const { return max_numeric > 0.0 ? max_abs_diff / max_numeric : max_abs_diff; }
};

// Perturbs each element of `param` in place (restoring it afterwards), evaluates
// `loss` on both sides and compares with `analytic` (same shape as param).
// CHECKs every element and returns what it found.
template <typename Derived, typename Analytic>
GradCheckReport check_gradient_report(const std::string& name, Eigen::MatrixBase<Derived>& param,
                                      const Analytic& analytic, const std::function<double()>& loss,
                                      GradCheck opt = {}) {
  REQUIRE_MESSAGE(param.rows() == analytic.rows(), name << ": gradient has the wrong number of rows");
  REQUIRE_MESSAGE(param.cols() == analytic.cols(), name << ": gradient has the wrong number of columns");
  GradCheckReport report;
  double& worst = report.worst;
  Eigen::Index wr = 0, wc = 0;
  double w_num = 0.0, w_ana = 0.0;
  for (Eigen::Index r = 0; r < param.rows(); ++r) {
    for (Eigen::Index c = 0; c < param.cols(); ++c) {
      const float saved = param(r, c);
      param(r, c) = saved + opt.eps;
      const double up = loss();
      param(r, c) = saved - opt.eps;
      const double down = loss();
      param(r, c) = saved;
      const double numeric = (up - down) / (2.0 * double(opt.eps));
      const double a = double(analytic(r, c));
      const double allowed = opt.atol + opt.rtol * std::max(std::abs(a), std::abs(numeric));
      const double ratio = std::abs(a - numeric) / allowed;
      report.max_abs_diff = std::max(report.max_abs_diff, std::abs(a - numeric));
      report.max_numeric = std::max(report.max_numeric, std::abs(numeric));
      if (!(ratio <= worst)) {  // also catches NaN
        worst = std::isnan(ratio) ? 1e30 : ratio;
        wr = r; wc = c; w_num = numeric; w_ana = a;
      }
    }
  }
  CHECK_MESSAGE(worst <= 1.0, name << ": analytic " << w_ana << " vs finite difference " << w_num
                                   << " at (" << wr << ", " << wc << ")");
  return report;
}

// The same check; returns only the largest violation ratio (<= 1 means pass).
template <typename Derived, typename Analytic>
double check_gradient(const std::string& name, Eigen::MatrixBase<Derived>& param,
                      const Analytic& analytic, const std::function<double()>& loss,
                      GradCheck opt = {}) {
  return check_gradient_report(name, param, analytic, loss, opt).worst;
}

}  // namespace attn::test

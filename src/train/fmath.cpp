// fmath.cpp: deterministic elementary functions (see fmath.h for why).
//
// exp: Cody-Waite range reduction x = k ln2 + r, |r| <= ln2/2, a degree-13
//      Taylor polynomial for e^r (truncation error < 2e-17 relative), then an
//      exact scaling by 2^k assembled from the exponent bits.
// log: x = m 2^e with m in [sqrt(1/2), sqrt(2)); log m = 2 atanh(s), s = (m-1)/(m+1),
//      |s| <= 0.172, whose odd series converges fast (10 terms: < 1e-17).
// tanh: (e^{2|x|} - 1) / (e^{2|x|} + 1) with the sign put back; below |x| = 0.5
//      e^{2|x|} - 1 comes from its own series, where the subtraction would cancel.
#include "train/fmath.h"

#include <cstdint>
#include <cstring>
#include <limits>

#include "train/lanes.h"

namespace attn::train {

namespace {

// 2^k for k in [-1022, 1023], built from the exponent field: exact.
double pow2(int k) {
  const uint64_t bits = uint64_t(k + 1023) << 52;
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// ln 2 split so that k * kLn2Hi is exact for |k| < 2^20 (fdlibm's constants).
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kInvLn2 = 1.44269504088896338700e+00;

}  // namespace

double det_exp(double x) {
  if (x != x) return x;                                   // NaN
  if (x > 709.782712893384) return std::numeric_limits<double>::infinity();
  if (x < -745.2) return 0.0;
  // 1. k = round(x / ln2) (half away from zero); the cast is exact, so k is the
  //    same everywhere.
  const double kd = static_cast<double>(static_cast<int64_t>(x * kInvLn2 + (x < 0 ? -0.5 : 0.5)));
  const int k = int(kd);
  // 2. r = x - k ln2 in two steps: the first product is exact, the second small.
  const double r = (x - kd * kLn2Hi) - kd * kLn2Lo;
  // 3. e^r by Horner on the Taylor series: 1 + r(1 + r/2(1 + r/3(...))).
  double p = 1.0;
  for (int n = 13; n >= 1; --n) p = 1.0 + p * r / double(n);
  // 4. times 2^k; two steps when 2^k alone is not a normal double.
  if (k > 1023) return p * pow2(1023) * pow2(k - 1023);
  if (k < -1022) return p * pow2(-1022) * pow2(k + 1022);
  return p * pow2(k);
}

double det_log(double x) {
  if (x != x) return x;
  if (x < 0.0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0.0) return -std::numeric_limits<double>::infinity();
  if (x == std::numeric_limits<double>::infinity()) return x;
  // 1. Split x = m 2^e with m in [1, 2); subnormals are first scaled by 2^54.
  int e = 0;
  if (x < 2.2250738585072014e-308) { x *= 18014398509481984.0; e = -54; }
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  e += int((bits >> 52) & 0x7ff) - 1023;
  bits = (bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
  double m;
  std::memcpy(&m, &bits, sizeof m);
  // 2. Centre m on 1 so |s| stays small: m in [sqrt(1/2), sqrt(2)).
  if (m > 1.4142135623730951) { m *= 0.5; e += 1; }
  // 3. log m = 2 (s + s^3/3 + s^5/5 + ...), s = (m - 1) / (m + 1).
  const double s = (m - 1.0) / (m + 1.0);
  const double z = s * s;
  double series = 0.0;
  for (int n = 21; n >= 3; n -= 2) series = (series + 1.0 / double(n)) * z;
  const double log_m = 2.0 * s + 2.0 * s * series;
  // 4. e ln2 + log m, the big part with the exact high half of ln 2.
  const double ed = double(e);
  return ed * kLn2Hi + (ed * kLn2Lo + log_m);
}

double det_tanh(double x) {
  if (x != x) return x;
  const double ax = x < 0 ? -x : x;
  double t;
  if (ax > 22.0) {
    t = 1.0;                                   // 1 - tanh(22) < 1e-19: rounds to 1
  } else if (ax < 0.5) {
    // e^u - 1 (u = 2|x| < 1) straight from its Taylor series, so nothing cancels:
    // u (1 + u/2 (1 + u/3 (...))), 18 terms (truncation < 1e-17).
    const double u = 2.0 * ax;
    double p = 1.0;
    for (int n = 18; n >= 2; --n) p = 1.0 + p * u / double(n);
    const double em1 = u * p;
    t = em1 / (em1 + 2.0);
  } else {
    const double e = det_exp(2.0 * ax);
    t = (e - 1.0) / (e + 1.0);
  }
  return x < 0 ? -t : t;
}

double det_sigmoid(double x) {
  if (x != x) return x;
  // For x >= 0 the exp argument is <= 0 (no overflow); for x < 0 use e^x / (1 + e^x).
  if (x >= 0.0) return 1.0 / (1.0 + det_exp(-x));
  const double e = det_exp(x);
  return e / (1.0 + e);
}

const ExpFastConstants& exp_fast_constants() {
  static const ExpFastConstants k;  // built once; read-only after (lanes.h says why it is not a literal)
  return k;
}

void exp_fast_array(const float* x, float* y, int n) {
  int i = 0;
  if (n >= kLanes) {
    const ExpFastConstants k = exp_fast_constants();
    for (; i + kLanes <= n; i += kLanes) store_lanes(y + i, exp_fast_lanes(load_lanes(x + i), k));
  }
#if defined(__clang__)
#pragma clang loop vectorize(disable) unroll(disable)
#endif
  for (; i < n; ++i) y[i] = exp_fast(x[i]);  // the last n % kLanes
}

}  // namespace attn::train

// fmath.h: exp, log, tanh and the logistic sigmoid built from + - * / and exact
// bit operations only, so a training run gives bit-identical numbers natively
// (glibc) and in WebAssembly (musl), whose std::exp / std::tanh may differ in
// the last bit -- and one differing bit early in training changes every loss
// after it.
//
// Each function works in double and the float versions round once at the end:
// the result is the correctly rounded float in all but very rare cases (error
// of the double computation is below ~1e-15 relative), and it is the SAME float
// on every IEEE-754 machine as long as the compiler does not fuse a*b+c into one
// rounding (src/train/CMakeLists.txt and src/data/CMakeLists.txt build with
// -ffp-contract=off for that reason).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

namespace attn::train {

// e^x. Overflows to +inf above ~709.78, underflows to 0 below ~-745.1; NaN in, NaN out.
double det_exp(double x);
// Natural log. log(0) = -inf, log(x < 0) = NaN, log(+inf) = +inf.
double det_log(double x);
// Hyperbolic tangent, odd, |result| <= 1.
double det_tanh(double x);
// 1 / (1 + e^-x), never overflows (large negative x gives exactly 0).
double det_sigmoid(double x);

inline float exp_f(float x) { return float(det_exp(double(x))); }
inline float log_f(float x) { return float(det_log(double(x))); }
inline float tanh_f(float x) { return float(det_tanh(double(x))); }
inline float sigmoid_f(float x) { return float(det_sigmoid(double(x))); }

// e^x in float arithmetic only, for the hottest element-wise loop (GELU on
// every feed-forward unit of the language model). Cody-Waite reduction
// x = k ln2 + r (|r| <= ln2/2), a degree-7 Taylor polynomial for e^r
// (truncation < 6e-9 relative), then the exact scaling by 2^k from the exponent
// bits. Relative error below 2e-7 (measured 7.3e-8; tests/train/test_train.cpp). It is
// +inf above 88.3 (a little early: e^88.3 = 2.2e38), 0 below -87.3 (no
// subnormal results), NaN for NaN. Written without branches (min, max, selects
// and a rounding by adding 1.5 * 2^23), so GCC, clang and emcc vectorise a
// loop of it; + - * and exact bit operations only, so the same bits on every
// IEEE-754 machine, vectorised or not (no fused multiply-add, see above).
inline float exp_fast(float x) {
  // NaN and the ends are replaced before the integer conversion (which must
  // never see NaN or overflow) and put back at the end.
  const float xc = std::min(std::max(x == x ? x : 0.0f, -87.3f), 88.3f);
  // k = round(x / ln2): adding and removing 1.5 * 2^23 rounds to an integer.
  const float kf = (xc * 1.44269504f + 12582912.0f) - 12582912.0f;  // in [-126, 127]
  const int k = int(kf);
  // r = x - k ln2 with ln 2 = 355/512 - 2.12194440e-4: k * 355/512 is exact.
  const float r = (xc - kf * 0.693359375f) - kf * -2.12194440e-4f;
  // e^r = 1 + r (1 + r (1/2 + r (1/6 + ... + r / 7!))), Horner from the top.
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const uint32_t bits = uint32_t(k + 127) << 23;  // 2^k, a normal float
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  float e = p * scale;
  e = x > 88.3f ? std::numeric_limits<float>::infinity() : e;
  e = x < -87.3f ? 0.0f : e;
  return x == x ? e : x;
}

// y[i] = exp_fast(x[i]) for i < n (x == y allowed), kLanes at a time with
// lanes.h's exp_fast_lanes (the same bits) and the last few one by one.
void exp_fast_array(const float* x, float* y, int n);

}  // namespace attn::train

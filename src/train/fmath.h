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

}  // namespace attn::train

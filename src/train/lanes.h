// lanes.h: the thin SIMD layer of the language model's batched step
// (kernels.cpp's register tiles, and the element-wise loops of fmath.h's
// exp_fast: GELU and the float softmaxes). One type, Lanes: kLanes floats as
// a GCC/clang vector extension, on which + - * / work lane by lane. emcc
// compiles it to WebAssembly SIMD128 (f32x4); with LAB_SIMD off it is one
// float wide, plain scalar code (the fallback: four emulated lanes ran at
// half its speed); GCC natively gives SSE or, when the machine has AVX, 8
// lanes. Lanes are independent, so the width changes no bit.
//
// a * b + c stays a multiply and an add: attn_train is compiled with
// -ffp-contract=off, so GCC with -march=native never fuses them into an FMA
// (WebAssembly SIMD128 has none), and a loop over Lanes gives the bits of the
// same loop over floats, natively and in WebAssembly.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(__AVX__) || defined(__SSE__)
#include <immintrin.h>
#endif

namespace attn::train {

#if defined(__AVX__) && !defined(__wasm__)
constexpr int kLanes = 8;
#elif defined(__wasm_simd128__) || defined(__SSE__)
constexpr int kLanes = 4;
#else
constexpr int kLanes = 1;  // no SIMD (WebAssembly with LAB_SIMD off): one float, plain scalar code
#endif
typedef float Lanes __attribute__((vector_size(kLanes * sizeof(float))));
typedef int32_t LaneBits __attribute__((vector_size(kLanes * sizeof(float))));   // comparisons' masks
typedef uint32_t LaneWords __attribute__((vector_size(kLanes * sizeof(float))));  // bits to shift

inline Lanes load_lanes(const float* p) {
  Lanes v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store_lanes(float* p, Lanes v) { std::memcpy(p, &v, sizeof v); }

// One broadcast instruction (a loop of lane stores, GCC turns into a chain of inserts).
inline Lanes splat_lanes(float x) {
#if defined(__wasm_simd128__)
  return (Lanes)wasm_f32x4_splat(x);
#elif defined(__AVX__)
  return (Lanes)_mm256_set1_ps(x);
#elif defined(__SSE__)
  return (Lanes)_mm_set1_ps(x);
#else
  Lanes v;
  for (int l = 0; l < kLanes; ++l) v[l] = x;
  return v;
#endif
}

// mask ? a : b, lane by lane; mask lanes all ones or all zeros (a comparison's).
inline Lanes select_lanes(LaneBits mask, Lanes a, Lanes b) {
  return (Lanes)((mask & (LaneBits)a) | (~mask & (LaneBits)b));
}
// mask ? a : +0.0f, lane by lane.
inline Lanes keep_lanes(LaneBits mask, Lanes a) { return (Lanes)(mask & (LaneBits)a); }

// std::max(a, b) = a < b ? b : a and std::min(a, b) = b < a ? b : a, lane by
// lane: WebAssembly's pseudo-maximum and -minimum, one instruction each.
inline Lanes max_lanes(Lanes a, Lanes b) {
#if defined(__wasm_simd128__)
  return (Lanes)wasm_f32x4_pmax((v128_t)a, (v128_t)b);
#else
  return select_lanes(a < b, b, a);
#endif
}
inline Lanes min_lanes(Lanes a, Lanes b) {
#if defined(__wasm_simd128__)
  return (Lanes)wasm_f32x4_pmin((v128_t)a, (v128_t)b);
#else
  return select_lanes(b < a, b, a);
#endif
}

// The largest of x[0..n-1], n >= 1, kLanes at a time: the same value as the
// plain loop m = x[j] > m ? x[j] : m, but for the sign of a zero maximum (and
// NaN inputs); the float softmaxes only subtract it before exp_fast, which
// gives e^{+0} = e^{-0} = 1, so their results have the same bits. (The plain
// loop compiled to a compare and branch per element in V8.)
inline float max_of(const float* x, int n) {
  int j = 0;
  float m = x[0];
  if (n >= kLanes) {
    Lanes mv = load_lanes(x);
    for (j = kLanes; j + kLanes <= n; j += kLanes) mv = max_lanes(mv, load_lanes(x + j));
    for (int l = 0; l < kLanes; ++l) m = mv[l] > m ? mv[l] : m;
  }
  for (; j < n; ++j) m = x[j] > m ? x[j] : m;
  return m;
}

// exp_fast_lanes's constants as vectors. exp_fast_array reads them from one
// object built at its first call (exp_fast_constants), so they are loads the
// optimisers cannot fold back into constants: V8 materialises every
// WebAssembly v128.const where it is used, with several instructions, and
// the 17 of them took more time than the arithmetic.
struct ExpFastConstants {
  Lanes lo, hi, log2e, round, ln2_hi, ln2_lo, c[8], inf;
  ExpFastConstants() {
    lo = splat_lanes(-87.3f);
    hi = splat_lanes(88.3f);
    log2e = splat_lanes(1.44269504f);
    round = splat_lanes(12582912.0f);  // 1.5 * 2^23
    ln2_hi = splat_lanes(0.693359375f);
    ln2_lo = splat_lanes(-2.12194440e-4f);
    const float coef[8] = {1.0f / 5040.0f, 1.0f / 720.0f, 1.0f / 120.0f, 1.0f / 24.0f, 1.0f / 6.0f, 0.5f, 1.0f, 1.0f};
    for (int i = 0; i < 8; ++i) c[i] = splat_lanes(coef[i]);
    inf = splat_lanes(__builtin_inff());
  }
};

// The one object of them (fmath.cpp), built at the first call.
const ExpFastConstants& exp_fast_constants();

// e^x lane by lane with the bits of fmath.h's exp_fast, written for SIMD:
// the same operations on the same values, but the clamps are the pseudo-min
// and -max of WebAssembly (std::min and std::max exactly; one instruction
// each, where f32x4.min and .max with their NaN rules take several), and 2^k comes from
// the bits of the rounded sum t = x / ln2 + 1.5 * 2^23, which are 0x4B400000
// + k: shifted left by 23 the constant drops out and k lands in the exponent
// field, as (k + 127) << 23 does once 127 << 23 is added (no float-to-int
// conversion, which WebAssembly saturates at some cost).
inline Lanes exp_fast_lanes(Lanes x, const ExpFastConstants& k) {
  const LaneBits is_num = x == x;
  const Lanes xc = min_lanes(max_lanes(keep_lanes(is_num, x), k.lo), k.hi);  // NaN as 0, then clamped
  const Lanes t = xc * k.log2e + k.round;
  const Lanes kf = t - k.round;
  const Lanes r = (xc - kf * k.ln2_hi) - kf * k.ln2_lo;
  Lanes p = k.c[0];
  for (int i = 1; i < 8; ++i) p = p * r + k.c[i];  // Horner from the top, as exp_fast
  const LaneWords scale_bits = ((LaneWords)t << 23) + (127u << 23);
  Lanes e = p * (Lanes)scale_bits;
  e = select_lanes(x > k.hi, k.inf, e);
  e = keep_lanes(~(x < k.lo), e);
  return select_lanes(is_num, e, x);
}

}  // namespace attn::train

// fast_attention.cpp: tiled attention with an online softmax, a register-tiled
// matrix product and a polynomial exp2, written once over a thin SIMD layer.
//
// Sections: 1 the SIMD layer (wasm SIMD128, AVX2, SSE2, scalar), 2 exp2,
// 3 register tiles, 4 matrix product, 5 tiled attention with online softmax,
// 6 the exact fallback path, 7 public entry points.
#include "attn/fast_attention.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "attn/softmax.h"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(__AVX2__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

// Keeps the compiler from auto-vectorising a loop, so the one-lane (ScalarOps)
// instantiation really is scalar code: the same binary then times SIMD against
// scalar honestly (see also ScalarOps::keep). The SIMD instantiations already
// work on whole vectors, so for them the hint changes nothing. (clang only:
// emcc and native clang; GCC 12 has no per-loop switch.)
#if defined(__clang__)
#define ATTN_NO_AUTO_VECTORIZE _Pragma("clang loop vectorize(disable)")
#define ATTN_NO_AUTO_VECTORIZE_OR_UNROLL _Pragma("clang loop vectorize(disable) unroll(disable)")
#else
#define ATTN_NO_AUTO_VECTORIZE
#define ATTN_NO_AUTO_VECTORIZE_OR_UNROLL
#endif

namespace attn {
namespace {

// ---------------------------------------------------------------- 1 the SIMD layer
// One struct per instruction set: a vector type V of W float lanes and the dozen
// operations the kernels use, all static inline. The kernels are templates over
// it (the role ggml's GGML_F32_VEC_* macros play, but type-checked), so the
// scalar struct gives a one-lane build of exactly the same algorithm.
//
//   max(a, b) = a < b ? b : a   and   min(a, b) = b < a ? b : a
// are the "pseudo" min/max of wasm SIMD (one maxps/minps on x86; wasm's f32x4.max
// with full NaN rules costs several instructions). A NaN in `a` survives both.
//
//   transpose(v): v is W vectors of W lanes, a W x W block; afterwards v[k]
//   holds what was lane k of every vector (used to turn R query rows x W keys
//   into W keys x R rows).
//
//   kColVecs: vectors per row of an attention register tile (R = W rows by
//   kColVecs * W columns), chosen so the accumulators fit the registers.
//
//   kDepthUnroll: steps of a register tile's depth loop per iteration (section
//   3). 1 in WebAssembly: V8 issues every load of a loop iteration before the
//   arithmetic that uses it, so a second step's 6 loaded vectors, next to the
//   8 accumulators, no longer fit in x86-64's 16 registers and the loop spills
//   (docs/benchmarks.md, "Kernels on Intel").
//
//   pow2_from_rounded(t): for t = x + 1.5 * 2^23 with integer-valued k = t - 1.5 * 2^23,
//   the bit pattern of t is 0x4B400000 + k. Shifting it left by 23 drops the
//   constant (its low 9 bits are 0) and moves k into the exponent field; adding
//   the exponent bias 127 gives the float 2^k. k = -127 gives bit pattern 0,
//   i.e. exactly 0.0f, which is how large negative exponents underflow cleanly.

// ScalarOps::mul_add passes its result through keep(): in WebAssembly an empty
// asm statement the optimiser cannot see through, so each accumulator must
// exist as a plain float there and clang's SLP vectoriser cannot pack the
// tile's independent accumulators into SIMD lanes behind our back (it
// otherwise does, in a SIMD build). It emits no instruction. (Natively the
// same trick made GCC keep the accumulators in memory, 5x slower; there the
// one-lane variant may be partly auto-vectorised.)
struct ScalarOps {
  static constexpr int W = 1, kColVecs = 4, kDepthUnroll = 2;
  using V = float;
  static V keep(V x) {
#if defined(__wasm__)
    __asm__("" : "+r"(x));
#endif
    return x;
  }
  static V load(const float* p) { return *p; }
  static void store(float* p, V v) { *p = v; }
  static V splat(float x) { return x; }
  static V add(V a, V b) { return a + b; }
  static V sub(V a, V b) { return a - b; }
  static V mul(V a, V b) { return a * b; }
  // Natively with FMA: one explicit fused multiply-add. GCC contracts a plain
  // a * b + c into an FMA in some instantiations and not in others (it depends
  // on how it vectorises the loop around it), so two paths that promise the
  // same bits (fused and unfused self-attention) could round differently.
#if defined(__FMA__) && !defined(__wasm__)
  static V mul_add(V a, V b, V c) { return std::fma(a, b, c); }
#else
  static V mul_add(V a, V b, V c) { return keep(a * b + c); }
#endif
  static V max(V a, V b) { return a < b ? b : a; }
  static V min(V a, V b) { return b < a ? b : a; }
  static void transpose(V (&)[1]) {}
  static V pow2_from_rounded(V t) {
    uint32_t bits;
    std::memcpy(&bits, &t, 4);
    bits = (bits << 23) + (127u << 23);
    float r;
    std::memcpy(&r, &bits, 4);
    return r;
  }
};

#if defined(__wasm_simd128__)
// WebAssembly SIMD128: 4 lanes. No fused multiply-add (that is relaxed-simd,
// which Emscripten 3.1.6 does not have), so mul_add is a mul and an add.
struct SimdOps {
  static constexpr int W = 4, kColVecs = 2, kDepthUnroll = 1;
  using V = v128_t;
  static V load(const float* p) { return wasm_v128_load(p); }
  static void store(float* p, V v) { wasm_v128_store(p, v); }
  static V splat(float x) { return wasm_f32x4_splat(x); }
  static V add(V a, V b) { return wasm_f32x4_add(a, b); }
  static V sub(V a, V b) { return wasm_f32x4_sub(a, b); }
  static V mul(V a, V b) { return wasm_f32x4_mul(a, b); }
  static V mul_add(V a, V b, V c) { return wasm_f32x4_add(wasm_f32x4_mul(a, b), c); }
  static V max(V a, V b) { return wasm_f32x4_pmax(a, b); }
  static V min(V a, V b) { return wasm_f32x4_pmin(a, b); }
  static void transpose(V (&v)[4]) {
    // interleave pairs of rows, then pairs of pairs (unpcklps/unpckhps, movlhps/movhlps in V8)
    const V t0 = wasm_i32x4_shuffle(v[0], v[1], 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(v[0], v[1], 2, 6, 3, 7);
    const V t2 = wasm_i32x4_shuffle(v[2], v[3], 0, 4, 1, 5), t3 = wasm_i32x4_shuffle(v[2], v[3], 2, 6, 3, 7);
    v[0] = wasm_i32x4_shuffle(t0, t2, 0, 1, 4, 5);
    v[1] = wasm_i32x4_shuffle(t0, t2, 2, 3, 6, 7);
    v[2] = wasm_i32x4_shuffle(t1, t3, 0, 1, 4, 5);
    v[3] = wasm_i32x4_shuffle(t1, t3, 2, 3, 6, 7);
  }
  static V pow2_from_rounded(V t) {
    return wasm_i32x4_add(wasm_i32x4_shl(t, 23), wasm_i32x4_splat(127 << 23));
  }
};
constexpr const char* kIsa = "wasm-simd128";
#elif defined(__AVX2__)
// AVX2: 8 lanes, with FMA when the target has it.
struct SimdOps {
  static constexpr int W = 8, kColVecs = 1, kDepthUnroll = 2;
  using V = __m256;
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static V splat(float x) { return _mm256_set1_ps(x); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
#if defined(__FMA__)
  static V mul_add(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
#else
  static V mul_add(V a, V b, V c) { return _mm256_add_ps(_mm256_mul_ps(a, b), c); }
#endif
  static V max(V a, V b) { return _mm256_max_ps(b, a); }  // b > a ? b : a
  static V min(V a, V b) { return _mm256_min_ps(b, a); }  // b < a ? b : a
  static void transpose(V (&v)[8]) {
    // 2x2 blocks of lanes, then 4x4 within each 128-bit half, then swap the halves
    V t[8], u[8];
    for (int i = 0; i < 8; i += 2) t[i] = _mm256_unpacklo_ps(v[i], v[i + 1]), t[i + 1] = _mm256_unpackhi_ps(v[i], v[i + 1]);
    for (int i = 0; i < 8; i += 4) {
      u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
      u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
      u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
      u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
    }
    for (int i = 0; i < 4; ++i) {
      v[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
      v[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
    }
  }
  static V pow2_from_rounded(V t) {
    const __m256i bits = _mm256_slli_epi32(_mm256_castps_si256(t), 23);
    return _mm256_castsi256_ps(_mm256_add_epi32(bits, _mm256_set1_epi32(127 << 23)));
  }
};
#if defined(__FMA__)
constexpr const char* kIsa = "avx2-fma";
#else
constexpr const char* kIsa = "avx2";
#endif
#elif defined(__SSE2__)
// SSE2 (every x86-64): 4 lanes.
struct SimdOps {
  static constexpr int W = 4, kColVecs = 2, kDepthUnroll = 2;
  using V = __m128;
  static V load(const float* p) { return _mm_loadu_ps(p); }
  static void store(float* p, V v) { _mm_storeu_ps(p, v); }
  static V splat(float x) { return _mm_set1_ps(x); }
  static V add(V a, V b) { return _mm_add_ps(a, b); }
  static V sub(V a, V b) { return _mm_sub_ps(a, b); }
  static V mul(V a, V b) { return _mm_mul_ps(a, b); }
  static V mul_add(V a, V b, V c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
  static V max(V a, V b) { return _mm_max_ps(b, a); }
  static V min(V a, V b) { return _mm_min_ps(b, a); }
  static void transpose(V (&v)[4]) {
    const V t0 = _mm_unpacklo_ps(v[0], v[1]), t1 = _mm_unpackhi_ps(v[0], v[1]);
    const V t2 = _mm_unpacklo_ps(v[2], v[3]), t3 = _mm_unpackhi_ps(v[2], v[3]);
    v[0] = _mm_movelh_ps(t0, t2);
    v[1] = _mm_movehl_ps(t2, t0);
    v[2] = _mm_movelh_ps(t1, t3);
    v[3] = _mm_movehl_ps(t3, t1);
  }
  static V pow2_from_rounded(V t) {
    const __m128i bits = _mm_slli_epi32(_mm_castps_si128(t), 23);
    return _mm_castsi128_ps(_mm_add_epi32(bits, _mm_set1_epi32(127 << 23)));
  }
};
constexpr const char* kIsa = "sse2";
#else
using SimdOps = ScalarOps;
constexpr const char* kIsa = "scalar";
#endif

// ---------------------------------------------------------------- 2 exp2
// 2^x = 2^k * 2^f with k = round(x) and f = x - k in [-0.5, 0.5].
// 2^f is a degree-5 polynomial whose coefficients were fitted (iteratively
// reweighted least squares on a dense grid) to minimise the maximum RELATIVE
// error on [-0.5, 0.5]: 7.5e-8 in exact arithmetic; in float with Horner's
// rule the whole exp2 measured 2.2e-7 (wasm) over [-126, 127]. 2^k is built directly in the exponent bits.
constexpr float kExp2C0 = 1.000000072e+00f;
constexpr float kExp2C1 = 6.931469670e-01f;
constexpr float kExp2C2 = 2.402211963e-01f;
constexpr float kExp2C3 = 5.550713279e-02f;
constexpr float kExp2C4 = 9.675546682e-03f;
constexpr float kExp2C5 = 1.327648719e-03f;

// kNonPositive: the caller guarantees x <= 0 (or NaN), as the softmax does, so
// the upper clamp can be skipped.
template <class Ops, bool kNonPositive = false>
inline typename Ops::V exp2_vec(typename Ops::V x) {
  using V = typename Ops::V;
  // 1 clamp: k = -127 encodes 0.0f (underflow, also for -inf) and k = 128 encodes
  //   +inf (overflow); beyond that the integer trick below would wrap around.
  x = Ops::max(x, Ops::splat(-127.0f));
  if (!kNonPositive) x = Ops::min(x, Ops::splat(128.0f));
  // 2 k = round-to-nearest(x): adding 1.5 * 2^23 leaves no fraction bits in the sum.
  const V magic = Ops::splat(12582912.0f);
  const V t = Ops::add(x, magic);
  const V k = Ops::sub(t, magic);
  const V f = Ops::sub(x, k);  // exact: k is within half a unit of x
  // 3 2^f by Horner's rule.
  V p = Ops::splat(kExp2C5);
  p = Ops::mul_add(p, f, Ops::splat(kExp2C4));
  p = Ops::mul_add(p, f, Ops::splat(kExp2C3));
  p = Ops::mul_add(p, f, Ops::splat(kExp2C2));
  p = Ops::mul_add(p, f, Ops::splat(kExp2C1));
  p = Ops::mul_add(p, f, Ops::splat(kExp2C0));
  // 4 2^x = 2^f * 2^k.
  return Ops::mul(p, Ops::pow2_from_rounded(t));
}

template <class Ops>
void exp2_array(const float* x, float* y, int count) {
  int i = 0;
  ATTN_NO_AUTO_VECTORIZE
  for (; i + Ops::W <= count; i += Ops::W) Ops::store(y + i, exp2_vec<Ops>(Ops::load(x + i)));
  ATTN_NO_AUTO_VECTORIZE
  for (; i < count; ++i) y[i] = exp2_vec<ScalarOps>(x[i]);  // same arithmetic, one lane
}

// ---------------------------------------------------------------- 3 register tiles
// acc (MR rows, NV vectors) += A (MR, depth) B (depth, NV*W): A is read one
// scalar at a time (broadcast to every lane), B one row of NV*W floats at a
// time. Every product in this file is a loop over such a tile; MR*NV
// accumulators plus NV B vectors and one broadcast stay within the 16 vector
// registers of x86-64 (and of V8's code for wasm, which keeps one as scratch).
// Natively the depth loop is unrolled by 2 to halve the loop overhead per
// multiply-add; in WebAssembly it is not (kDepthUnroll, section 1).
// Pointers are bumped by hand and constants are added to pointers, not to
// indices: emcc runs LLVM without loop strength reduction, and this way each
// step costs a couple of pointer adds while the constant offsets land in the
// loads' offset fields (so V8 emits no extra address arithmetic).
//
// tile_rows: A row-major with row stride lda (the matrix product).
template <class Ops, int MR, int NV>
inline void tile_rows(const float* A, size_t lda, const float* B, size_t ldb, int depth,
                      typename Ops::V (&acc)[MR][NV]) {
  using V = typename Ops::V;
  const float* A_row[MR];
  for (int r = 0; r < MR; ++r) A_row[r] = A + size_t(r) * lda;
  auto step = [&](int p, const float* B_p) {
    V b[NV];
    for (int v = 0; v < NV; ++v) b[v] = Ops::load(B_p + v * Ops::W);
    for (int r = 0; r < MR; ++r) {
      const V a = Ops::splat(A_row[r][p]);
      for (int v = 0; v < NV; ++v) acc[r][v] = Ops::mul_add(a, b[v], acc[r][v]);
    }
  };
  int p = 0;
  const float* B_p = B;
  if (Ops::kDepthUnroll == 2) {
    ATTN_NO_AUTO_VECTORIZE
    for (; p + 2 <= depth; p += 2, B_p += 2 * ldb) step(p, B_p), step(p + 1, B_p + ldb);
  }
  ATTN_NO_AUTO_VECTORIZE_OR_UNROLL
  for (; p < depth; ++p, B_p += ldb) step(p, B_p);
}

// tile_interleaved: A stored step-major with the MR rows side by side,
// A[p * MR + r] (the packed query tile and the probability tile), so the MR
// broadcasts of a step come from one address plus constant offsets.
template <class Ops, int MR, int NV>
inline void tile_interleaved(const float* A, const float* B, size_t ldb, int depth,
                             typename Ops::V (&acc)[MR][NV]) {
  using V = typename Ops::V;
  auto step = [&](const float* A_p, const float* B_p) {
    V b[NV];
    for (int v = 0; v < NV; ++v) b[v] = Ops::load(B_p + v * Ops::W);
    for (int r = 0; r < MR; ++r) {
      const V a = Ops::splat(A_p[r]);
      for (int v = 0; v < NV; ++v) acc[r][v] = Ops::mul_add(a, b[v], acc[r][v]);
    }
  };
  const float* A_p = A;
  const float* B_p = B;
  const float* const A_end = A + size_t(depth) * MR;
  if (Ops::kDepthUnroll == 2) {
    ATTN_NO_AUTO_VECTORIZE
    for (; A_p + 2 * MR <= A_end; A_p += 2 * MR, B_p += 2 * ldb) step(A_p, B_p), step(A_p + MR, B_p + ldb);
  }
  ATTN_NO_AUTO_VECTORIZE_OR_UNROLL
  for (; A_p < A_end; A_p += MR, B_p += ldb) step(A_p, B_p);
}

template <class Ops, int MR, int NV>
inline void tile_zero(typename Ops::V (&acc)[MR][NV]) {
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) acc[r][v] = Ops::splat(0.0f);
}

inline int round_up(int x, int multiple) { return (x + multiple - 1) / multiple * multiple; }

// ---------------------------------------------------------------- 4 matrix product
// B (k, n) packed into *packed (k, n_pad) with its columns zero-padded to
// n_pad, a multiple of 2W. assign() reuses the vector's storage when it is
// large enough (the workspace), and zeroes what a previous call left there.
inline void pack_columns(const float* B, size_t ldb, int k, int n, int n_pad, std::vector<float>* packed) {
  packed->assign(size_t(k) * size_t(n_pad), 0.0f);
  for (int p = 0; p < k; ++p)
    std::memcpy(packed->data() + size_t(p) * n_pad, B + size_t(p) * ldb, sizeof(float) * size_t(n));
}

template <class Ops, int MR>
void matmul_rows(const float* A, size_t lda, int k, const float* Bp, int n_pad, float* Cp) {
  for (int jc = 0; jc < n_pad; jc += 2 * Ops::W) {
    typename Ops::V acc[MR][2];
    tile_zero<Ops, MR, 2>(acc);
    tile_rows<Ops, MR, 2>(A, lda, Bp + jc, size_t(n_pad), k, acc);
    for (int r = 0; r < MR; ++r) {
      Ops::store(Cp + size_t(r) * n_pad + jc, acc[r][0]);
      Ops::store(Cp + size_t(r) * n_pad + jc + Ops::W, acc[r][1]);
    }
  }
}

// Cp (m, n_pad) = A (m, k) Bp (k, n_pad), n_pad a multiple of 2W; 4 rows at a
// time, then the last 1-3 rows.
template <class Ops>
void matmul_packed(const float* A, size_t lda, int m, int k, const float* Bp, int n_pad, float* Cp) {
  int i = 0;
  for (; i + 4 <= m; i += 4) matmul_rows<Ops, 4>(A + size_t(i) * lda, lda, k, Bp, n_pad, Cp + size_t(i) * n_pad);
  const float* A_rest = A + size_t(i) * lda;
  float* C_rest = Cp + size_t(i) * n_pad;
  switch (m - i) {
    case 3: matmul_rows<Ops, 3>(A_rest, lda, k, Bp, n_pad, C_rest); break;
    case 2: matmul_rows<Ops, 2>(A_rest, lda, k, Bp, n_pad, C_rest); break;
    case 1: matmul_rows<Ops, 1>(A_rest, lda, k, Bp, n_pad, C_rest); break;
    default: break;
  }
}

template <class Ops>
void matmul(const Mat& A, const Mat& B, Mat* C, FastAttentionWorkspace& ws) {
  const int m = int(A.rows()), k = int(A.cols()), n = int(B.cols());
  const int n_pad = round_up(n, 2 * Ops::W);
  pack_columns(B.data(), size_t(n), k, n, n_pad, &ws.v_padded);
  const std::vector<float>& Bp = ws.v_padded;  // (k, n_pad)
  std::vector<float>& Cp = ws.qkv;             // (m, n_pad), every element written below
  Cp.resize(size_t(m) * n_pad);
  matmul_packed<Ops>(A.data(), size_t(k), m, k, Bp.data(), n_pad, Cp.data());
  C->resize(m, n);
  for (int i = 0; i < m; ++i) std::memcpy(C->data() + size_t(i) * n, &Cp[size_t(i) * n_pad], sizeof(float) * size_t(n));
}

// ---------------------------------------------------------------- 5 tiled attention
// The problem on raw row-major pointers, so the self-attention path can point
// Q, K and V into one projection buffer.
struct AttentionProblem {
  const float* Q; size_t ldq;  // (n_q, d)
  const float* K; size_t ldk;  // (n_k, d)
  const float* V; size_t ldv;  // (n_k, d_v)
  int n_q, n_k, d, d_v;
  float scale;
  bool causal;
  float* out;      // (n_q, d_v), row stride d_v
  float* weights;  // (n_q, n_k), row stride n_k; null = not wanted
  unsigned passes = attention_passes::all;  // fewer only for per-pass timing (the output is then meaningless)
};

// Block sizes: for d = 64 a key block of K^T (16 KiB) plus its rows of V (16 KiB)
// fill a 32 KiB L1 data cache, and 8 query tiles (32 rows in wasm) reuse each
// block before it leaves L2. (Measured on the bench machine; 64-256 keys and
// 1-8 tiles were within a few per cent of each other.)
constexpr int kKeyBlock = kFastAttentionKeyBlock;  // keys per block (at most); a multiple of every backend's tile width
constexpr int kQueryTiles = 8;   // query tiles that share a key block while it is in cache
constexpr float kLog2e = 1.44269504088896341f;

// One query tile is R = W rows, so a vector holds "the same key for each of
// the tile's rows": the softmax state (running max m, running sum l) of all R
// rows is one vector, and the max / exp / sum of pass 3 need no horizontal
// reductions. The scores are stored key-major, S[j * R + r], which is also
// the interleaved layout pass 4 reads the probabilities in.
// The packed operands' shapes (pass 0), from the problem's.
template <class Ops>
struct PackedShape {
  static constexpr int W = Ops::W, R = Ops::W, NV = Ops::kColVecs, TW = NV * W;  // tile: R rows x TW columns
  int n_q_pad, d_v_pad, key_block, key_groups;
  PackedShape(int n_q, int n_k, int d_v)
      : n_q_pad(round_up(n_q, R)), d_v_pad(round_up(d_v, TW)),
        key_block(std::min(kKeyBlock, round_up(n_k, TW))),  // fewer keys than a block: a smaller one
        key_groups((n_k + TW - 1) / TW) {}
  size_t q_size(int d) const { return size_t(n_q_pad) * size_t(d); }
  size_t k_size(int d) const { return size_t(key_groups) * size_t(d) * size_t(TW); }
  size_t v_size(int n_k) const { return size_t(n_k) * size_t(d_v_pad); }
};

// Pass 0: pack the inputs into the layouts the register tiles read.
// Qp: n_q_pad / R tiles of (d, R), interleaved, times scale * log2(e): the
// scores then come out in base 2, so the softmax uses exp2 with no multiply
// per score. Rows past n_q are 0.
// Kt: one panel of (d, TW) per group of TW keys (key group g at Kt + g d TW),
// K transposed: the scores tile for keys 8g .. 8g+7 reads its panel from
// start to end, 32 consecutive bytes per step; keys past n_k are 0 (masked in
// pass 2).
// Vp: one panel of (n_k, TW) per group of TW columns of V (column group h at
// Vp + h n_k TW), columns past d_v zero: the weighted-sum tile for columns
// 8h .. 8h+7 reads key after key, again 32 consecutive bytes per step.
// (Until issue 26 Kt was (d, key_block) per block and Vp row-major (n_k,
// d_v_pad): a tile then took 32 bytes from every 256-byte row, so each step
// touched a new cache line and a key block's lines were spread over the
// whole panel; see docs/benchmarks.md, "Kernels on Intel".)
//
// Both transposes go W rows x W columns at a time through Ops::transpose
// (whole rows of W consecutive rows and columns; the rest one element at a
// time), so packing costs about a load, a shuffle and a store per W elements.
template <class Ops>
void transpose_rows(const float* src, size_t ld, int rows, int cols, float factor, bool scaled, float* dst,
                    size_t dst_ld, size_t dst_step) {
  // dst[c * dst_ld + r] = src[r * ld + c] (* factor), r < rows, c < cols; rows
  // r0 .. r0 + W - 1 land at dst + (r0 / W) * dst_step (consecutive there).
  using V = typename Ops::V;
  constexpr int W = Ops::W;
  const V f = Ops::splat(factor);
  for (int r0 = 0; r0 < rows; r0 += W) {
    float* out = dst + size_t(r0 / W) * dst_step;
    int c = 0;
    if (r0 + W <= rows)
      for (; c + W <= cols; c += W) {
        V block[W];
        for (int r = 0; r < W; ++r) block[r] = Ops::load(src + size_t(r0 + r) * ld + c);
        Ops::transpose(block);  // block[k]: column c + k of rows r0 .. r0 + W - 1
        for (int k = 0; k < W; ++k) Ops::store(out + size_t(c + k) * dst_ld, scaled ? Ops::mul(block[k], f) : block[k]);
      }
    for (int r = r0; r < std::min(rows, r0 + W); ++r)
      for (int cc = c; cc < cols; ++cc) {
        const float x = src[size_t(r) * ld + cc];
        out[size_t(cc) * dst_ld + (r - r0)] = scaled ? x * factor : x;
      }
  }
}

// B (rows, cols) into panels of TW columns: packed[(c / TW) rows TW + r TW + c % TW]
// = B[r ldb + c], and 0 for the columns past cols up to cols_pad (a multiple of TW).
template <class Ops>
void pack_column_panels(const float* B, size_t ldb, int rows, int cols, int cols_pad, std::vector<float>* packed) {
  constexpr int W = Ops::W, TW = Ops::kColVecs * Ops::W;
  packed->resize(size_t(rows) * size_t(cols_pad));
  for (int c0 = 0; c0 < cols_pad; c0 += TW) {
    float* panel = packed->data() + size_t(c0) * size_t(rows);
    const int width = std::min(TW, cols - c0);
    if (width == TW) {
      for (int r = 0; r < rows; ++r)
        for (int v = 0; v < Ops::kColVecs; ++v)
          Ops::store(panel + size_t(r) * TW + v * W, Ops::load(B + size_t(r) * ldb + c0 + v * W));
    } else {
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < TW; ++c) panel[size_t(r) * TW + c] = c < width ? B[size_t(r) * ldb + c0 + c] : 0.0f;
    }
  }
}

template <class Ops>
void pack_attention_inputs(const AttentionProblem& pr, const PackedShape<Ops>& g, FastAttentionWorkspace& ws) {
  constexpr int R = PackedShape<Ops>::R, TW = PackedShape<Ops>::TW;
  const int d = pr.d;
  ws.q_tiles.assign(g.q_size(d), 0.0f);
  transpose_rows<Ops>(pr.Q, pr.ldq, pr.n_q, d, pr.scale * kLog2e, true, ws.q_tiles.data(), R, size_t(d) * R);
  ws.k_panels.assign(g.k_size(d), 0.0f);
  for (int j0 = 0; j0 < pr.n_k; j0 += TW)  // one key group (a multiple of W keys) at a time
    transpose_rows<Ops>(pr.K + size_t(j0) * pr.ldk, pr.ldk, std::min(TW, pr.n_k - j0), d, 1.0f, false,
                        &ws.k_panels[size_t(j0 / TW) * d * TW], size_t(TW), Ops::W);
  pack_column_panels<Ops>(pr.V, pr.ldv, pr.n_k, pr.d_v, g.d_v_pad, &ws.v_padded);
}

// Passes 1-6 on the packed operands in ws (pass 0 or a fused projection wrote
// them); pr.Q, pr.K and pr.V are not read.
template <class Ops>
void attend_packed(const AttentionProblem& pr, const PackedShape<Ops>& g, FastAttentionWorkspace& ws) {
  using V = typename Ops::V;
  constexpr int W = Ops::W, R = Ops::W, NV = Ops::kColVecs, TW = NV * W;  // tile: R rows x TW columns
  const int n_q = pr.n_q, n_k = pr.n_k, d = pr.d, d_v = pr.d_v;
  const int d_v_pad = g.d_v_pad, key_block = g.key_block;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  const std::vector<float>& Qp = ws.q_tiles;
  const std::vector<float>& Kt = ws.k_panels;
  const std::vector<float>& Vp = ws.v_padded;

  // Per query tile: S (kKeyBlock, R) scores then probabilities, key-major, and
  // lanes (R) for per-row scalars. Per query block of up to kQueryTiles tiles,
  // which take turns on each key block while it is in cache: O (R, d_v_pad)
  // unnormalised output and the running max m and sum l (one lane per row) of
  // every tile.
  alignas(32) float S[kKeyBlock * R];
  alignas(32) float lanes[R];
  std::vector<float>& O_block = ws.out_partial;  // zeroed per query block below
  O_block.resize(size_t(kQueryTiles) * R * d_v_pad);
  V m[kQueryTiles], l[kQueryTiles];

  // Passes 1-4 for the tile of rows i0 .. i0+R-1 against keys kb .. kb+valid-1.
  auto attend_block = [&](int i0, int kb, int valid, V& m_tile, V& l_tile, float* O) {
    const int cols = round_up(valid, TW);
    const float* Q_tile = &Qp[size_t(i0) * d];
    const int rows_here = std::min(R, n_q - i0);
    int cols_softmax = cols;

    // Pass 1: scores (R, cols) = Q_tile (R, d) Kt_group (d, TW) for each group
    // of TW keys, each R x W register block transposed on the way out to
    // key-major S. The block maximum of pass 3 is taken here from the
    // registers, a max per W keys instead of a second pass over S.
    V block_max = Ops::splat(neg_inf);
    for (int jc = 0; (pr.passes & attention_passes::scores) && jc < cols; jc += TW) {
      V acc[R][NV];
      tile_zero<Ops, R, NV>(acc);
      tile_interleaved<Ops, R, NV>(Q_tile, &Kt[size_t((kb + jc) / TW) * d * TW], size_t(TW), d, acc);
      for (int v = 0; v < NV; ++v) {
        V block[W];
        for (int r = 0; r < R; ++r) block[r] = acc[r][v];
        Ops::transpose(block);  // block[k]: key jc + v*W + k, one lane per row
        for (int k = 0; k < W; ++k) {
          Ops::store(S + size_t(jc + v * W + k) * R, block[k]);
          block_max = Ops::max(block_max, block[k]);
        }
      }
    }

    // Pass 2: hide keys past n_k (tile padding) and, when causal, keys right of
    // each row's diagonal. -inf becomes exactly 0 in exp2 (it clamps to 2^-127).
    // A block with hidden keys takes its maximum again below, over what is
    // visible (a hidden score may be the largest; most blocks hide nothing).
    const bool hides = cols > valid || (pr.causal && i0 + 1 - kb < valid);
    for (int r = 0; r < R; ++r) {
      const int visible = pr.causal ? std::min(valid, i0 + r + 1 - kb) : valid;
      for (int j = std::max(visible, 0); j < cols; ++j) S[j * R + r] = neg_inf;
      if (pr.weights && r < rows_here)
        for (int j = 0; j < valid; ++j) pr.weights[size_t(i0 + r) * n_k + kb + j] = S[j * R + r];
    }

    // Pass 3: online softmax, all R rows at once. The new running maximum
    // m' = max(m, block max) is what every exponent is taken against, so each
    // p = 2^(s - m') <= 1 and huge logits cannot overflow. The sum l and the
    // output O were built against the old m, so both are rescaled by
    // 2^(m - m') <= 1 (0 on the first block, where m = -inf). Block 0 always
    // holds key 0, which every row may see, so m' is finite from then on.
    if (!(pr.passes & attention_passes::softmax)) cols_softmax = 0;
    if (hides) {
      block_max = Ops::splat(neg_inf);
      ATTN_NO_AUTO_VECTORIZE
      for (int j = 0; j < cols_softmax; ++j) block_max = Ops::max(block_max, Ops::load(S + j * R));
    }
    const V m_new = Ops::max(m_tile, block_max);
    const V correction = exp2_vec<Ops, true>(Ops::sub(m_tile, m_new));
    V row_sum = Ops::splat(0.0f);
    ATTN_NO_AUTO_VECTORIZE
    for (int j = 0; j < cols_softmax; ++j) {
      const V p = exp2_vec<Ops, true>(Ops::sub(Ops::load(S + j * R), m_new));
      Ops::store(S + j * R, p);
      row_sum = Ops::add(row_sum, p);
    }
    l_tile = Ops::mul_add(l_tile, correction, row_sum);
    m_tile = m_new;

    // Pass 4: O (R, d_v_pad) = O * correction + P (R, valid) V[kb .. kb+valid) (valid, d_v_pad),
    // TW columns at a time from V's column panels.
    Ops::store(lanes, correction);
    for (int jc = 0; (pr.passes & attention_passes::weighted_sum) && jc < d_v_pad; jc += TW) {
      V acc[R][NV];
      tile_zero<Ops, R, NV>(acc);
      tile_interleaved<Ops, R, NV>(S, &Vp[size_t(jc) * n_k + size_t(kb) * TW], size_t(TW), valid, acc);
      for (int r = 0; r < R; ++r) {
        const V c = Ops::splat(lanes[r]);
        for (int v = 0; v < NV; ++v) {
          float* o = O + size_t(r) * d_v_pad + jc + v * W;
          Ops::store(o, Ops::mul_add(Ops::load(o), c, acc[r][v]));
        }
      }
    }
  };

  for (int q0 = 0; q0 < n_q; q0 += kQueryTiles * R) {
    const int tiles = std::min(kQueryTiles, (n_q - q0 + R - 1) / R);
    std::fill(O_block.begin(), O_block.end(), 0.0f);
    for (int t = 0; t < tiles; ++t) m[t] = Ops::splat(neg_inf), l[t] = Ops::splat(0.0f);
    if (pr.weights)  // raw base-2 scores go here; keys never visited stay -inf (weight 0)
      for (int i = q0; i < std::min(n_q, q0 + tiles * R); ++i) std::fill_n(pr.weights + size_t(i) * n_k, n_k, neg_inf);
    // Causal: a tile's last row sees keys 0 .. i0 + R - 1; later blocks are skipped.
    auto key_end = [&](int i0) { return pr.causal ? std::min(n_k, i0 + R) : n_k; };

    for (int kb = 0; kb < key_end(q0 + (tiles - 1) * R); kb += key_block)
      for (int t = 0; t < tiles; ++t) {
        const int i0 = q0 + t * R, visible_end = key_end(i0);
        if (kb < visible_end)
          attend_block(i0, kb, std::min(key_block, visible_end - kb), m[t], l[t], &O_block[size_t(t) * R * d_v_pad]);
      }

    for (int t = 0; t < tiles; ++t) {
      const int i0 = q0 + t * R, rows_here = std::min(R, n_q - i0);
      const float* O = &O_block[size_t(t) * R * d_v_pad];
      // Pass 5: normalise. l >= 1 (the row maximum contributed 2^0), no division by 0.
      Ops::store(lanes, l[t]);
      for (int r = 0; (pr.passes & attention_passes::normalise) && r < rows_here; ++r) {
        const float inv = 1.0f / lanes[r];
        const V inv_v = Ops::splat(inv);
        const float* O_row = O + size_t(r) * d_v_pad;
        float* out_row = pr.out + size_t(i0 + r) * d_v;
        int c = 0;
        ATTN_NO_AUTO_VECTORIZE
        for (; c + W <= d_v; c += W) Ops::store(out_row + c, Ops::mul(Ops::load(O_row + c), inv_v));
        ATTN_NO_AUTO_VECTORIZE
        for (; c < d_v; ++c) out_row[c] = O_row[c] * inv;
      }
      // Pass 6 (only when the weights are wanted): weights = 2^(s - m) / l from
      // the raw scores kept in pass 2, now that each row's final m and l are known.
      if (pr.weights) {
        alignas(32) float m_lanes[R];
        Ops::store(m_lanes, m[t]);
        for (int r = 0; r < rows_here; ++r) {
          float* w = pr.weights + size_t(i0 + r) * n_k;
          ATTN_NO_AUTO_VECTORIZE
          for (int j = 0; j < n_k; ++j) w[j] -= m_lanes[r];
          exp2_array<Ops>(w, w, n_k);
          const float inv = 1.0f / lanes[r];
          ATTN_NO_AUTO_VECTORIZE
          for (int j = 0; j < n_k; ++j) w[j] *= inv;
        }
      }
    }
  }
}

// Pass 0, then passes 1-6. (With per-pass timing and pass 0 off, the
// buffers keep what they held: the timing then runs on the packing of the
// run before.)
template <class Ops>
void attention_tiled(const AttentionProblem& pr, FastAttentionWorkspace& ws) {
  const PackedShape<Ops> g(pr.n_q, pr.n_k, pr.d_v);
  if (pr.passes & attention_passes::pack) {
    pack_attention_inputs<Ops>(pr, g, ws);
  } else {
    ws.q_tiles.resize(g.q_size(pr.d));
    ws.k_panels.resize(g.k_size(pr.d));
    ws.v_padded.resize(g.v_size(pr.n_k));
  }
  attend_packed<Ops>(pr, g, ws);
}

// Self-attention's projections fused into pass 0: the product
// X (n, d_model) [W_Q | W_K | W_V] writes each register tile straight into the
// packed layout attend_packed reads -- Q's columns transposed into the query
// tiles and scaled, K's transposed into the key panels, V's rows as they are --
// so Q, K and V never exist row-major, and neither does the (n, 2 d_k + d_v)
// product nor a second pass that packs it. Each segment of [W_Q | W_K | W_V]
// is zero-padded to whole register tiles, so no tile straddles two. Every
// element sums the same terms in the same order as matmul_packed, so Qp, Kt
// and Vp hold exactly the bits pack_attention_inputs makes from its product.
template <class Ops>
void project_packed(const Mat& X, const SelfAttentionWeights& w, float q_factor, const PackedShape<Ops>& g,
                    FastAttentionWorkspace& ws) {
  using V = typename Ops::V;
  constexpr int W = Ops::W, R = Ops::W, NV = Ops::kColVecs, TW = NV * W;
  const int n = int(X.rows()), d_model = int(X.cols()), d_k = int(w.W_Q.cols());
  const int dk_pad = round_up(d_k, TW), width_pad = 2 * dk_pad + g.d_v_pad;
  // [W_Q 0 | W_K 0 | W_V 0] (d_model, width_pad) in panels of TW columns: the
  // columns jc .. jc + TW - 1 at Wp + jc d_model, (d_model, TW) row-major, so a
  // register tile reads its panel from start to end.
  std::vector<float>& Wp = ws.w_packed;
  Wp.assign(size_t(d_model) * width_pad, 0.0f);
  auto put = [&](const Mat& M, int first_column) {
    for (int p = 0; p < d_model; ++p)
      for (int c = 0; c < int(M.cols()); ++c) {
        const int col = first_column + c;
        Wp[size_t(col - col % TW) * d_model + size_t(p) * TW + col % TW] = M(p, c);
      }
  };
  put(w.W_Q, 0);
  put(w.W_K, dk_pad);
  put(w.W_V, 2 * dk_pad);
  // Every element of Qp and Vp is written below (rows past n from zero rows of
  // X); Kt's keys past the last row tile must be 0.
  ws.q_tiles.resize(g.q_size(d_k));
  ws.k_panels.assign(g.k_size(d_k), 0.0f);
  ws.v_padded.resize(g.v_size(n));
  float* const Qp = ws.q_tiles.data();
  float* const Kt = ws.k_panels.data();
  float* const Vp = ws.v_padded.data();
  const V factor = Ops::splat(q_factor);
  for (int i0 = 0; i0 < n; i0 += R) {
    const float* A = X.data() + size_t(i0) * d_model;
    if (i0 + R > n) {  // the last rows, fewer than a tile: zero-padded to one
      ws.qkv.assign(size_t(R) * d_model, 0.0f);
      std::memcpy(ws.qkv.data(), A, sizeof(float) * size_t(n - i0) * d_model);
      A = ws.qkv.data();
    }
    for (int jc = 0; jc < width_pad; jc += TW) {
      V acc[R][NV];
      tile_zero<Ops, R, NV>(acc);
      tile_rows<Ops, R, NV>(A, size_t(d_model), &Wp[size_t(jc) * d_model], size_t(TW), d_model, acc);
      if (jc >= 2 * dk_pad) {  // V: rows as they are, into the column panel of columns jc - 2 dk_pad ..
        float* panel = Vp + size_t(jc - 2 * dk_pad) * n;
        for (int r = 0; r < std::min(R, n - i0); ++r)
          for (int v = 0; v < NV; ++v) Ops::store(panel + size_t(i0 + r) * TW + v * W, acc[r][v]);
        continue;
      }
      const bool is_q = jc < dk_pad;
      for (int v = 0; v < NV; ++v) {
        V block[W];
        for (int r = 0; r < R; ++r) block[r] = acc[r][v];
        Ops::transpose(block);  // block[k]: column c of the segment, one lane per row i0 .. i0 + R - 1
        for (int k = 0; k < W; ++k) {
          const int c = (is_q ? jc : jc - dk_pad) + v * W + k;
          if (c >= d_k) break;
          if (is_q) Ops::store(Qp + size_t(i0 / R) * d_k * R + size_t(c) * R, Ops::mul(block[k], factor));
          else Ops::store(Kt + size_t(i0 / TW) * d_k * TW + size_t(c) * TW + (i0 % TW), block[k]);
        }
      }
    }
  }
}

// ---------------------------------------------------------------- 6 the exact fallback path
// For non-finite inputs and overflowing scores: scores in double (rounded to
// float, so an overflow becomes +-inf), softmax.h's masked_softmax for the
// NaN / inf rules, output accumulated in double over keys with non-zero weight.
void attention_exact(const AttentionProblem& pr, Warnings* warnings) {
  Mat scores(pr.n_q, pr.n_k);  // (n_q, n_k)
  for (int i = 0; i < pr.n_q; ++i)
    for (int j = 0; j < pr.n_k; ++j) {
      double s = 0.0;
      for (int c = 0; c < pr.d; ++c) s += double(pr.Q[size_t(i) * pr.ldq + c]) * double(pr.K[size_t(j) * pr.ldk + c]);
      scores(i, j) = float(s * double(pr.scale));
    }
  MaskDesc mask;
  mask.kind = pr.causal ? MaskKind::causal : MaskKind::none;
  const Mat P = masked_softmax(scores, build_mask(mask, pr.n_q, pr.n_k), warnings);  // (n_q, n_k)
  for (int i = 0; i < pr.n_q; ++i)
    for (int c = 0; c < pr.d_v; ++c) {
      double o = 0.0;
      for (int j = 0; j < pr.n_k; ++j)
        if (P(i, j) != 0.0f) o += double(P(i, j)) * double(pr.V[size_t(j) * pr.ldv + c]);
      pr.out[size_t(i) * pr.d_v + c] = float(o);
    }
  if (pr.weights) std::memcpy(pr.weights, P.data(), sizeof(float) * size_t(pr.n_q) * size_t(pr.n_k));
}

// x * 0 is 0 for every finite x and NaN for +-inf and NaN, so the sum of x * 0
// over a matrix is 0 exactly when every element is finite: W lanes at a time,
// no branch per element.
template <class Ops>
bool all_finite(const float* x, size_t rows, size_t cols, size_t ld) {
  using V = typename Ops::V;
  const V zero = Ops::splat(0.0f);
  V probe = zero;
  float tail = 0.0f;
  for (size_t i = 0; i < rows; ++i) {
    const float* row = x + i * ld;
    size_t c = 0;
    ATTN_NO_AUTO_VECTORIZE
    for (; c + Ops::W <= cols; c += Ops::W) probe = Ops::mul_add(Ops::load(row + c), zero, probe);
    for (; c < cols; ++c) tail += row[c] * 0.0f;
  }
  alignas(32) float lanes[Ops::W];
  Ops::store(lanes, probe);
  for (float lane : lanes) tail += lane;
  return tail == 0.0f;
}

// The fast kernel when its assumptions hold (finite inputs, finite scores --
// checked after the fact on the output), the exact path otherwise.
template <class Ops>
void attention_checked(const AttentionProblem& pr, Warnings* warnings, FastAttentionWorkspace& ws) {
  if (pr.passes != attention_passes::all) {  // per-pass timing: no fallback, whatever comes out
    if (pr.passes & attention_passes::checks)
      (void)(all_finite<Ops>(pr.Q, size_t(pr.n_q), size_t(pr.d), pr.ldq) &&
             all_finite<Ops>(pr.K, size_t(pr.n_k), size_t(pr.d), pr.ldk) &&
             all_finite<Ops>(pr.V, size_t(pr.n_k), size_t(pr.d_v), pr.ldv) &&
             all_finite<Ops>(pr.out, size_t(pr.n_q), size_t(pr.d_v), size_t(pr.d_v)));
    if (pr.passes & ~attention_passes::checks) attention_tiled<Ops>(pr, ws);
    return;
  }
  const bool inputs_finite = all_finite<Ops>(pr.Q, size_t(pr.n_q), size_t(pr.d), pr.ldq) &&
                             all_finite<Ops>(pr.K, size_t(pr.n_k), size_t(pr.d), pr.ldk) &&
                             all_finite<Ops>(pr.V, size_t(pr.n_k), size_t(pr.d_v), pr.ldv);
  if (inputs_finite) {
    attention_tiled<Ops>(pr, ws);
    const bool result_finite =
        all_finite<Ops>(pr.out, size_t(pr.n_q), size_t(pr.d_v), size_t(pr.d_v)) &&
        (!pr.weights || all_finite<Ops>(pr.weights, size_t(pr.n_q), size_t(pr.n_k), size_t(pr.n_k)));
    if (result_finite) return;
  }
  attention_exact(pr, warnings);
  if (warnings)
    warnings->push_back(inputs_finite
                            ? "fast attention: scores overflowed float; recomputed on the exact path"
                            : "fast attention: inputs are not all finite; computed on the exact path "
                              "(softmax rules for NaN and inf apply)");
}

// ---------------------------------------------------------------- 7 public entry points
std::string check_attention(const Mat& Q, const Mat& K, const Mat& V, const FastAttentionDesc& desc) {
  if (Q.rows() == 0 || K.rows() == 0) return "fast attention: Q and K need at least one row";
  if (Q.cols() == 0 || Q.cols() != K.cols())
    return "fast attention: Q (n_q, d) and K (n_k, d) need the same d >= 1; got " + std::to_string(Q.cols()) +
           " and " + std::to_string(K.cols());
  if (V.rows() != K.rows() || V.cols() == 0)
    return "fast attention: V must be (n_k, d_v) with n_k = " + std::to_string(K.rows()) + " and d_v >= 1";
  if (!std::isfinite(desc.scale) || desc.scale < 0.0f)
    return "fast attention: scale must be finite and > 0 (or 0 for 1/sqrt(d))";
  return "";
}

float effective_scale(const FastAttentionDesc& desc, int d) {
  return desc.scale > 0.0f ? desc.scale : 1.0f / std::sqrt(float(d));
}

template <class Ops>
std::string attention_entry(const Mat& Q, const Mat& K, const Mat& V, const FastAttentionDesc& desc, Mat* out,
                            Mat* weights, Warnings* warnings, FastAttentionWorkspace& ws,
                            unsigned passes = attention_passes::all) {
  std::string problem = check_attention(Q, K, V, desc);
  if (!problem.empty()) {
    out->resize(0, 0);
    return problem;
  }
  const int n_q = int(Q.rows()), n_k = int(K.rows()), d = int(Q.cols()), d_v = int(V.cols());
  out->resize(n_q, d_v);
  if (weights) weights->resize(n_q, n_k);
  const AttentionProblem pr{Q.data(), size_t(d), K.data(), size_t(d), V.data(), size_t(d_v), n_q, n_k, d, d_v,
                            effective_scale(desc, d), desc.causal, out->data(),
                            weights ? weights->data() : nullptr, passes};
  attention_checked<Ops>(pr, warnings, ws);
  return "";
}

template <class Ops>
std::string self_attention_unfused(const Mat& X, const SelfAttentionWeights& w, const FastSelfAttentionDesc& desc,
                                   Mat* out, Warnings* warnings, FastAttentionWorkspace& ws);

template <class Ops>
std::string self_attention_entry(const Mat& X, const SelfAttentionWeights& w, const FastSelfAttentionDesc& desc,
                                 Mat* out, Warnings* warnings, FastAttentionWorkspace& ws) {
  const Eigen::Index d_model = X.cols(), d_k = w.W_Q.cols(), d_v = w.W_V.cols();
  std::string problem;
  if (X.rows() == 0 || d_model == 0) problem = "fast self-attention: X must be (n, d_model) with n, d_model >= 1";
  else if (w.W_Q.rows() != d_model || w.W_K.rows() != d_model || w.W_V.rows() != d_model)
    problem = "fast self-attention: W_Q, W_K and W_V need d_model = " + std::to_string(d_model) + " rows";
  else if (d_k == 0 || w.W_K.cols() != d_k || d_v == 0)
    problem = "fast self-attention: W_Q and W_K must both be (d_model, d_k), W_V (d_model, d_v), d_k, d_v >= 1";
  else if (!std::isfinite(desc.attention.scale) || desc.attention.scale < 0.0f)
    problem = "fast self-attention: scale must be finite and > 0 (or 0 for 1/sqrt(d_k))";
  if (!problem.empty()) {
    out->resize(0, 0);
    return problem;
  }
  if (desc.projection == ProjectionKernel::eigen) {
    ws.Q.noalias() = X * w.W_Q;  // (n, d_k)
    ws.K.noalias() = X * w.W_K;  // (n, d_k)
    ws.V.noalias() = X * w.W_V;  // (n, d_v)
    return attention_entry<Ops>(ws.Q, ws.K, ws.V, desc.attention, out, nullptr, warnings, ws);
  }
  // The projections fused into pass 0 (project_packed). When a packed operand
  // or the output is not finite, the unfused path below takes over: its checks
  // and exact fallback give softmax.h's rules and the warnings.
  const int n = int(X.rows());
  const PackedShape<Ops> g(n, n, int(d_v));
  const float scale = effective_scale(desc.attention, int(d_k));
  project_packed<Ops>(X, w, scale * kLog2e, g, ws);
  out->resize(n, d_v);
  const AttentionProblem fused{nullptr, 0, nullptr, 0, nullptr, 0, n, n, int(d_k), int(d_v),
                               scale, desc.attention.causal, out->data(), nullptr};
  auto finite = [](const std::vector<float>& x) { return all_finite<Ops>(x.data(), 1, x.size(), x.size()); };
  if (finite(ws.q_tiles) && finite(ws.k_panels) && finite(ws.v_padded)) {
    attend_packed<Ops>(fused, g, ws);
    if (all_finite<Ops>(out->data(), size_t(n), size_t(d_v), size_t(d_v))) return "";
  }
  return self_attention_unfused<Ops>(X, w, desc, out, warnings, ws);
}

// One product X (n, d_model) [W_Q | W_K | W_V] (d_model, 2 d_k + d_v), packed
// straight from the three matrices; Q, K and V are then column ranges of QKV,
// and attention_checked packs them.
template <class Ops>
std::string self_attention_unfused(const Mat& X, const SelfAttentionWeights& w, const FastSelfAttentionDesc& desc,
                                   Mat* out, Warnings* warnings, FastAttentionWorkspace& ws) {
  const Eigen::Index d_model = X.cols(), d_k = w.W_Q.cols(), d_v = w.W_V.cols();
  const int n = int(X.rows()), width = int(2 * d_k + d_v), width_pad = round_up(width, 2 * Ops::W);
  std::vector<float>& Wp = ws.w_packed;  // (d_model, width_pad)
  Wp.assign(size_t(d_model) * width_pad, 0.0f);
  for (Eigen::Index p = 0; p < d_model; ++p) {
    float* row = &Wp[size_t(p) * width_pad];
    std::memcpy(row, w.W_Q.row(p).data(), sizeof(float) * size_t(d_k));
    std::memcpy(row + d_k, w.W_K.row(p).data(), sizeof(float) * size_t(d_k));
    std::memcpy(row + 2 * d_k, w.W_V.row(p).data(), sizeof(float) * size_t(d_v));
  }
  std::vector<float>& QKV = ws.qkv;  // (n, width_pad), every element written by the product
  QKV.resize(size_t(n) * width_pad);
  matmul_packed<Ops>(X.data(), size_t(d_model), n, int(d_model), Wp.data(), width_pad, QKV.data());
  out->resize(n, d_v);
  const AttentionProblem pr{QKV.data(), size_t(width_pad), QKV.data() + d_k, size_t(width_pad),
                            QKV.data() + 2 * d_k, size_t(width_pad), n, n, int(d_k), int(d_v),
                            effective_scale(desc.attention, int(d_k)), desc.attention.causal, out->data(), nullptr};
  attention_checked<Ops>(pr, warnings, ws);
  return "";
}

std::string check_matmul(const Mat& A, const Mat& B) {
  if (A.cols() != B.rows())
    return "fast matmul: A (m, k) and B (k, n) disagree on k: " + std::to_string(A.cols()) + " vs " +
           std::to_string(B.rows());
  return "";
}

}  // namespace

// Each entry point runs on the caller's workspace, or on one of its own that
// lives for this call only.
std::string fast_attention(const Mat& Q, const Mat& K, const Mat& V, const FastAttentionDesc& desc, Mat* out,
                           Mat* weights, Warnings* warnings, FastAttentionWorkspace* workspace) {
  FastAttentionWorkspace local;
  return attention_entry<SimdOps>(Q, K, V, desc, out, weights, warnings, workspace ? *workspace : local);
}

std::string fast_attention_scalar(const Mat& Q, const Mat& K, const Mat& V, const FastAttentionDesc& desc,
                                  Mat* out, Mat* weights, Warnings* warnings, FastAttentionWorkspace* workspace) {
  FastAttentionWorkspace local;
  return attention_entry<ScalarOps>(Q, K, V, desc, out, weights, warnings, workspace ? *workspace : local);
}

std::string fast_self_attention(const Mat& X, const SelfAttentionWeights& weights, const FastSelfAttentionDesc& desc,
                                Mat* out, Warnings* warnings, FastAttentionWorkspace* workspace) {
  FastAttentionWorkspace local;
  FastAttentionWorkspace& ws = workspace ? *workspace : local;
  if (!desc.scalar) return self_attention_entry<SimdOps>(X, weights, desc, out, warnings, ws);
  FastSelfAttentionDesc one_lane = desc;
  one_lane.projection = ProjectionKernel::fast;  // Eigen's product would be vectorised
  return self_attention_entry<ScalarOps>(X, weights, one_lane, out, warnings, ws);
}

std::string fast_matmul(const Mat& A, const Mat& B, Mat* C, FastAttentionWorkspace* workspace) {
  std::string problem = check_matmul(A, B);
  FastAttentionWorkspace local;
  if (problem.empty()) matmul<SimdOps>(A, B, C, workspace ? *workspace : local);
  return problem;
}

std::string fast_matmul_scalar(const Mat& A, const Mat& B, Mat* C, FastAttentionWorkspace* workspace) {
  std::string problem = check_matmul(A, B);
  FastAttentionWorkspace local;
  if (problem.empty()) matmul<ScalarOps>(A, B, C, workspace ? *workspace : local);
  return problem;
}

std::string fast_attention_passes(const Mat& Q, const Mat& K, const Mat& V, unsigned passes, Mat* out,
                                  FastAttentionWorkspace& workspace) {
  return attention_entry<SimdOps>(Q, K, V, FastAttentionDesc(), out, nullptr, nullptr, workspace,
                                  passes & attention_passes::all);
}

void exp2_approx(const float* x, float* y, int count) { exp2_array<SimdOps>(x, y, count); }

const char* fast_kernel_isa() { return kIsa; }

int fast_kernel_lanes() { return SimdOps::W; }

}  // namespace attn

// fast_attention.h: the fast path for softmax(Q K^T * scale) V -- what the lab
// runs when it only needs the answer quickly (timing lesson, benchmarks), next to
// the teaching kernels of attention.h that keep every intermediate.
//
//   Q (n_q, d), K (n_k, d), V (n_k, d_v)
//   output (n_q, d_v) = softmax(Q K^T * scale) V     (scaled-dot, optionally causal)
//
// How it is fast (details in fast_attention.cpp):
//  * tiled: one SIMD width of query rows (4 in wasm) against a block of 64 keys
//    at a time, 8 such row tiles taking turns on each key block while it is in
//    cache; the scores never exist as an (n_q, n_k) matrix unless the caller
//    asks for the weights;
//  * online softmax: a running row maximum and running sum per query, with the
//    partial output rescaled whenever the maximum grows (Milakov & Gimelshein
//    2018; the same idea as FlashAttention);
//  * a polynomial exp2 evaluated 4 (wasm, SSE) or 8 (AVX) lanes at a time;
//  * SIMD through wasm_simd128.h when compiled with -msimd128, SSE/AVX natively,
//    plain C++ otherwise -- all behind one small inline layer, so the same kernel
//    source also builds as a forced-scalar variant (fast_attention_scalar).
//
// Numerical contract:
//  * Finite inputs: never NaN; huge logits (|q.k * scale| ~ 1e4 and beyond) are
//    fine because every exponent is taken relative to the running row maximum.
//  * Non-finite inputs (any NaN / inf in Q, K, V), or finite inputs whose scores
//    overflow float: the call is recomputed on an exact path (scores in double,
//    attn::masked_softmax, so softmax.h's rules for NaN / +-inf apply; keys with
//    weight 0 contribute nothing to the output even if their V row is not
//    finite). One warning says so. The fast kernel itself assumes finite scores.
//  * Accuracy against the double-precision reference (attn::ref): see
//    tests/attn/test_fast_attention.cpp for the measured error and tolerances.
//
// Sections: 0 workspace, 1 attention, 2 self-attention with projections,
// 3 matrix product, 4 the exp2 approximation, 5 build information, 6 per-pass
// timing (for src/bench).
#pragma once

#include <string>
#include <vector>

#include "base/tensor.h"

namespace attn {

// ---------------------------------------------------------------- 0 workspace
// The kernels' scratch memory: packed copies of Q, K and V, partial outputs,
// the projection buffers. A caller that runs the kernels again and again keeps
// one workspace and passes it to every call: the buffers grow to the largest
// shape seen and are reused from then on, so repeated calls allocate nothing.
// (Natively that matters: glibc hands freed blocks above 128 KiB back to the OS,
// and each call would page-fault its scratch back in.) nullptr: the call
// allocates its own scratch and frees it. The results never depend on whether a
// workspace is passed or what it held before; its contents between calls mean
// nothing. One workspace per thread.
struct FastAttentionWorkspace {
  std::vector<float> q_tiles;      // attention: Q * scale * log2(e), tiles of (d, R) interleaved
  std::vector<float> k_panels;     // attention: K^T in blocks of (d, key block)
  std::vector<float> v_padded;     // attention: V (n_k, d_v padded); matmul: B (k, n padded)
  std::vector<float> out_partial;  // attention: unnormalised output of a block of query tiles
  std::vector<float> w_packed;     // self-attention: [W_Q | W_K | W_V] (d_model, padded)
  std::vector<float> qkv;          // self-attention: X [W_Q | W_K | W_V]; matmul: C (m, n padded)
  Mat Q, K, V;                     // self-attention with ProjectionKernel::eigen
};

// ---------------------------------------------------------------- 1 attention
// Keys per block of the online softmax (fewer when n_k is smaller): of the
// (n_q, n_k) scores, the kernel holds one block's for one query tile at a time,
// kFastAttentionKeyBlock x fast_kernel_lanes() of them (section 5 of the .cpp).
inline constexpr int kFastAttentionKeyBlock = 64;

struct FastAttentionDesc {
  float scale = 0.0f;   // multiplies Q K^T; 0 means 1 / sqrt(d); otherwise > 0 and finite
  bool causal = false;  // key j is hidden from query i when j > i (as MaskKind::causal,
                        // also for n_q != n_k); key 0 is always visible, so no row is empty
};

// output (n_q, d_v) into *out (resized; its storage is reused when the shape is
// unchanged). weights (n_q, n_k) into *weights when it is not null: the softmax
// weights, masked entries exactly 0 (this needs O(n_q n_k) memory; without it the
// kernel needs O((n_q + n_k) (d + d_v)) only). Returns "" on success, otherwise a
// message about the shapes or the scale (and *out is left empty). workspace: see
// section 0 (nullptr = allocate scratch for this call).
std::string fast_attention(const Mat& Q, const Mat& K, const Mat& V, const FastAttentionDesc& desc,
                           Mat* out, Mat* weights = nullptr, Warnings* warnings = nullptr,
                           FastAttentionWorkspace* workspace = nullptr);

// The same tiled kernel with the SIMD layer swapped for plain floats (one
// "lane"), compiled into the same binary, so the lab can time SIMD against
// scalar in the learner's browser. (The compiler may still auto-vectorise parts
// of it; the build without -msimd128 is the strictly scalar reference point.)
std::string fast_attention_scalar(const Mat& Q, const Mat& K, const Mat& V, const FastAttentionDesc& desc,
                                  Mat* out, Mat* weights = nullptr, Warnings* warnings = nullptr,
                                  FastAttentionWorkspace* workspace = nullptr);

// ---------------------------------------------------------------- 2 self-attention
// Single-head self-attention: Q = X W_Q, K = X W_K, V = X W_V, then attention.
struct SelfAttentionWeights {
  Mat W_Q;  // (d_model, d_k)
  Mat W_K;  // (d_model, d_k)
  Mat W_V;  // (d_model, d_v)
};

enum class ProjectionKernel {
  fast,   // fast_matmul's register tiles, one product X [W_Q | W_K | W_V] fused into the
          // attention's packing: each tile is written straight into the layouts the
          // attention passes read, so Q, K and V are never stored row-major (the same
          // bits as fast_matmul's three products followed by fast_attention)
  eigen   // Eigen's own product, three of them
};

// Whichever measured faster (src/bench, docs/benchmarks.md): in WebAssembly our
// kernel beat Eigen's SSE-mapped product by 10-30%; natively Eigen's AVX-512
// product was about 2-3x faster than our AVX2 tile.
#if defined(__EMSCRIPTEN__)
inline constexpr ProjectionKernel kFasterProjection = ProjectionKernel::fast;
#else
inline constexpr ProjectionKernel kFasterProjection = ProjectionKernel::eigen;
#endif

struct FastSelfAttentionDesc {
  FastAttentionDesc attention;  // scale 0 = 1 / sqrt(d_k)
  ProjectionKernel projection = kFasterProjection;
  bool scalar = false;          // force the one-lane kernels (projections and attention;
                                // `projection` is then ignored)
};

// X (n, d_model) -> output (n, d_v). Same return convention as fast_attention.
std::string fast_self_attention(const Mat& X, const SelfAttentionWeights& weights,
                                const FastSelfAttentionDesc& desc, Mat* out, Warnings* warnings = nullptr,
                                FastAttentionWorkspace* workspace = nullptr);

// ---------------------------------------------------------------- 3 matrix product
// C (m, n) = A (m, k) B (k, n), register-tiled 4 x (2 vectors). No finiteness
// rules: IEEE arithmetic as it comes. Returns "" or a shape message.
std::string fast_matmul(const Mat& A, const Mat& B, Mat* C, FastAttentionWorkspace* workspace = nullptr);
std::string fast_matmul_scalar(const Mat& A, const Mat& B, Mat* C, FastAttentionWorkspace* workspace = nullptr);

// ---------------------------------------------------------------- 4 exp2 approximation
// y[i] ~ 2^x[i], the kernel's exponential, vectorised like the kernel.
// Relative error at most 4e-7 for x in [-126, 127] (measured 2.2e-7 in wasm,
// 2.0e-7 natively with FMA; the polynomial alone is good to 7.5e-8, the rest
// is float rounding); x < -126.5
// gives exactly 0 (also for -inf), x > 127.5 gives +inf, NaN stays NaN.
void exp2_approx(const float* x, float* y, int count);

// ---------------------------------------------------------------- 5 build information
// The instruction set the fast kernels were compiled for: "wasm-simd128",
// "avx2-fma", "avx", "sse2" or "scalar".
const char* fast_kernel_isa();
// Lanes per vector in that instruction set (4, 8 or 1).
int fast_kernel_lanes();

// ---------------------------------------------------------------- 6 per-pass timing
// The passes of fast_attention (numbered as in fast_attention.cpp), as bits.
namespace attention_passes {
constexpr unsigned checks = 1;        // the finiteness checks of inputs and output
constexpr unsigned pack = 2;          // pass 0: Q scaled and interleaved, K^T panels, V padded
constexpr unsigned scores = 4;        // pass 1: Q K^T register tiles and each block's maximum (and the masks of pass 2)
constexpr unsigned softmax = 8;       // pass 3: exp2, running sums (and the maximum again where keys are hidden)
constexpr unsigned weighted_sum = 16; // pass 4: O = O * correction + P V
constexpr unsigned normalise = 32;    // pass 5: O / l into the output
constexpr unsigned all = 63;
}  // namespace attention_passes

// fast_attention's SIMD kernel with only `passes` switched on, never the exact
// fallback: for timing the passes one by one (src/bench --passes). Unless passes
// is attention_passes::all, *out holds nothing meaningful. Returns "" or a shape message.
std::string fast_attention_passes(const Mat& Q, const Mat& K, const Mat& V, unsigned passes, Mat* out,
                                  FastAttentionWorkspace& workspace);

}  // namespace attn

// fast_attention / fast_self_attention / fast_matmul / exp2_approx against the
// naive references (attn::ref, plain loops in double), over the shape sweep,
// plus the numerical contract (huge logits, non-finite input, overflow), input
// validation and the timing helper (timing.h).
//
// Error metric, per element: |fast - reference| <= atol + rtol * |reference|.
// Tolerances and why they are what they are:
//  * exp2_approx: relative error <= 4e-7 on [-126, 127] (the header's promise).
//  * attention output, inputs Q, K in [-1.5, 1.5], V in [-1, 1]: atol 2e-6,
//    rtol 1e-5. The reference accumulates in double; the kernel in float, with
//    Q pre-multiplied by scale * log2(e) and a 2.4e-7-accurate exp2. Measured
//    worst case over the sweep: 3e-7 absolute (SIMD and scalar alike).
//  * attention weights: same atol / rtol.
//  * matmul, inputs in [-1, 1]: atol 1e-6 * k (float accumulation of k terms).
//  * self-attention (projections, then attention): the attention tolerances.
//  * with a reused FastAttentionWorkspace: bit-identical to the same call without.
// Timing is never asserted (benchmarks are not tests): only shapes, validity and
// the median arithmetic (with a fake clock).
//
// Sections: 1 fixtures, 2 exp2, 3 attention vs reference, 4 numerical contract,
// 5 matmul and self-attention, 6 workspace reuse, 7 errors, 8 timing.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "attn/fast_attention.h"
#include "attn/reference.h"
#include "attn/timing.h"
#include "support/attn_test_util.h"

using namespace attn;
using attn::test::all_finite;
using attn::test::check_close;
using attn::test::contains;
using attn::test::kSweep;
using attn::test::random_mat;

// ---------------------------------------------------------------- 1 fixtures
namespace {

constexpr double kAttnAtol = 2e-6, kAttnRtol = 1e-5;

using AttentionFn = std::string (*)(const Mat&, const Mat&, const Mat&, const FastAttentionDesc&, Mat*, Mat*,
                                    Warnings*, FastAttentionWorkspace*);

struct Kernel {
  const char* name;
  AttentionFn fn;
  std::string run(const Mat& Q, const Mat& K, const Mat& V, const FastAttentionDesc& desc, Mat* out, Mat* weights,
                  Warnings* warnings, FastAttentionWorkspace* workspace = nullptr) const {
    return fn(Q, K, V, desc, out, weights, warnings, workspace);
  }
};
const Kernel kKernels[] = {{"simd", fast_attention}, {"scalar", fast_attention_scalar}};

// The reference for fast_attention(desc): dot scores divided by a temperature of
// 1 / scale (scaled_dot when the scale is the default 1 / sqrt(d)).
AttentionResult reference(const Mat& Q, const Mat& K, const Mat& V, const FastAttentionDesc& fast) {
  AttentionDesc desc;
  if (fast.scale > 0.0f) {
    desc.score = ScoreKind::dot;
    desc.temperature = 1.0f / fast.scale;
  }
  desc.mask = fast.causal ? MaskKind::causal : MaskKind::none;
  return ref::attention(Q, K, V, desc, AttentionParams());
}

std::string case_name(const char* kernel, int n_q, int n_k, int d, int d_v, bool causal) {
  return std::string(kernel) + " n_q=" + std::to_string(n_q) + " n_k=" + std::to_string(n_k) + " d=" +
         std::to_string(d) + " d_v=" + std::to_string(d_v) + (causal ? " causal" : "");
}

// Runs both kernels on one shape and compares output (and weights) with the reference.
void check_shape(int n_q, int n_k, int d, int d_v, bool causal, uint64_t seed) {
  Rng rng(seed);
  const Mat Q = random_mat(rng, n_q, d, 1.5f), K = random_mat(rng, n_k, d, 1.5f), V = random_mat(rng, n_k, d_v);
  FastAttentionDesc desc;
  desc.causal = causal;
  const AttentionResult expected = reference(Q, K, V, desc);
  for (const Kernel& kernel : kKernels) {
    const std::string name = case_name(kernel.name, n_q, n_k, d, d_v, causal);
    Mat out, weights, out_with_weights;
    Warnings warnings;
    REQUIRE(kernel.run(Q, K, V, desc, &out, nullptr, &warnings) == "");
    check_close(name + " output", out, expected.output, kAttnAtol, kAttnRtol);
    REQUIRE(kernel.run(Q, K, V, desc, &out_with_weights, &weights, &warnings) == "");
    check_close(name + " weights", weights, expected.weights, kAttnAtol, kAttnRtol);
    check_close(name + " output (weights requested)", out_with_weights, expected.output, kAttnAtol, kAttnRtol);
    CHECK_MESSAGE(warnings.empty(), name << ": finite input must not take the fallback path");
  }
}

double naive_exp2_rel_error(float x, float y) {
  const double expected = std::exp2(double(x));
  return std::abs(double(y) - expected) / expected;
}

}  // namespace

// ---------------------------------------------------------------- 2 exp2
TEST_CASE("fast exp2: relative error <= 4e-7 on [-126, 127], clean underflow and overflow") {
  std::vector<float> x;
  for (int i = 0; i <= 253 * 4096; ++i) x.push_back(-126.0f + float(i) / 4096.0f);  // every 1/4096 step
  for (int i = 0; i <= 100000; ++i) x.push_back(-1.0f + float(i) / 50000.0f);      // dense near 0
  std::vector<float> y(x.size());
  exp2_approx(x.data(), y.data(), int(x.size()));
  double worst = 0.0;
  float worst_x = 0.0f;
  for (size_t i = 0; i < x.size(); ++i) {
    const double e = naive_exp2_rel_error(x[i], y[i]);
    if (!(e <= worst)) worst = e, worst_x = x[i];
  }
  CHECK_MESSAGE(worst <= 4e-7, "worst relative error " << worst << " at x = " << worst_x);

  // Odd lengths exercise the one-lane tail; specials: underflow to exactly 0, overflow, NaN.
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {0.0f, 1.0f, -1.0f, -126.6f, -127.0f, -1000.0f, -inf, 127.6f, 1000.0f, inf,
                            std::numeric_limits<float>::quiet_NaN()};
  float out[11];
  exp2_approx(specials, out, 11);
  CHECK(std::abs(out[0] - 1.0f) <= 4e-7f);
  CHECK(std::abs(out[1] - 2.0f) <= 8e-7f);
  CHECK(std::abs(out[2] - 0.5f) <= 2e-7f);
  for (int i = 3; i <= 6; ++i) CHECK_MESSAGE(out[i] == 0.0f, "2^" << specials[i] << " -> " << out[i]);
  for (int i = 7; i <= 9; ++i) CHECK_MESSAGE(out[i] == inf, "2^" << specials[i] << " -> " << out[i]);
  CHECK(std::isnan(out[10]));
}

// ---------------------------------------------------------------- 3 attention vs reference
TEST_CASE("fast attention matches the reference over the shape sweep (square, causal on and off)") {
  const int dims[] = {1, 3, 16, 64};
  uint64_t seed = 100;
  for (int n : kSweep)
    for (int d : dims)
      for (bool causal : {false, true}) check_shape(n, n, d, d, causal, ++seed);
}

TEST_CASE("fast attention matches the reference for n_q != n_k and d_v != d") {
  struct Shape { int n_q, n_k, d, d_v; };
  const Shape shapes[] = {{1, 257, 16, 16}, {257, 1, 3, 5}, {7, 33, 64, 1}, {33, 7, 1, 64},
                          {130, 257, 16, 20}, {257, 130, 64, 3}, {5, 128, 8, 8}, {129, 256, 3, 17}};
  uint64_t seed = 500;
  for (const Shape& s : shapes)
    for (bool causal : {false, true}) check_shape(s.n_q, s.n_k, s.d, s.d_v, causal, ++seed);
}

// Lengths at the kernels' edges: one query tile (4 rows in wasm and SSE, 8 with
// AVX2) and one past it, a register tile of keys (8) and one past it, a key
// block (64) and its neighbours, two blocks; widths that leave a partial vector
// (5), exactly one register tile (8), and a d_v wider than d (40).
TEST_CASE("fast attention matches the reference at tile and block edges") {
  const int lengths[] = {4, 5, 8, 9, 63, 65, 127, 128, 129};
  uint64_t seed = 700;
  for (int n : lengths)
    for (bool causal : {false, true}) {
      check_shape(n, n, 8, 8, causal, ++seed);
      check_shape(n, n + 1, 5, 40, causal, ++seed);
      check_shape(n + 3, n, 32, 3, causal, ++seed);
    }
}

TEST_CASE("fast attention: explicit scale, rows of weights sum to 1, causal weights are exactly 0 above the diagonal") {
  Rng rng(7);
  const Mat Q = random_mat(rng, 33, 16, 1.5f), K = random_mat(rng, 33, 16, 1.5f), V = random_mat(rng, 33, 16);
  FastAttentionDesc desc;
  desc.scale = 0.7f;
  desc.causal = true;
  const AttentionResult expected = reference(Q, K, V, desc);
  Mat out, weights;
  REQUIRE(fast_attention(Q, K, V, desc, &out, &weights) == "");
  check_close("scale 0.7 output", out, expected.output, kAttnAtol, kAttnRtol);
  for (int i = 0; i < 33; ++i) {
    CHECK(std::abs(weights.row(i).sum() - 1.0f) <= 1e-5f);
    for (int j = i + 1; j < 33; ++j) CHECK(weights(i, j) == 0.0f);
  }
}

TEST_CASE("fast attention: output buffers are reused and resized across calls") {
  Rng rng(8);
  const Mat Q = random_mat(rng, 9, 4), K = random_mat(rng, 11, 4), V = random_mat(rng, 11, 6);
  Mat out = Mat::Constant(2, 2, 42.0f), weights = Mat::Constant(50, 50, 42.0f);
  REQUIRE(fast_attention(Q, K, V, FastAttentionDesc(), &out, &weights) == "");
  CHECK(out.rows() == 9);
  CHECK(out.cols() == 6);
  CHECK(weights.rows() == 9);
  CHECK(weights.cols() == 11);
  check_close("reused buffers", out, reference(Q, K, V, FastAttentionDesc()).output, kAttnAtol, kAttnRtol);
}

// ---------------------------------------------------------------- 4 numerical contract
TEST_CASE("fast attention: huge logits (~1e4) stay finite and match the reference") {
  Rng rng(9);
  const Mat Q = random_mat(rng, 64, 16, 100.0f), K = random_mat(rng, 64, 16, 100.0f), V = random_mat(rng, 64, 16);
  FastAttentionDesc desc;
  desc.scale = 1.0f;  // |q . k| up to ~1e5, typical gaps between the top two ~1e3
  for (const Kernel& kernel : kKernels)
    for (bool causal : {false, true}) {
      desc.causal = causal;
      Mat out, weights;
      Warnings warnings;
      REQUIRE(kernel.run(Q, K, V, desc, &out, &weights, &warnings) == "");
      CHECK(all_finite(out));
      CHECK(warnings.empty());
      const AttentionResult expected = reference(Q, K, V, desc);
      check_close(std::string(kernel.name) + " huge logits", out, expected.output, 1e-4, 1e-4);
      for (int i = 0; i < 64; ++i) CHECK(std::abs(weights.row(i).sum() - 1.0f) <= 1e-5f);
    }

  // Every logit equal to 1e4: exactly uniform weights, output = mean of V.
  const Mat Qc = Mat::Constant(5, 4, 50.0f), Kc = Mat::Constant(7, 4, 50.0f);  // q . k = 1e4
  Mat out;
  REQUIRE(fast_attention(Qc, Kc, V.topRows(7), FastAttentionDesc{1.0f, false}, &out) == "");
  const Eigen::RowVectorXf mean = V.topRows(7).colwise().mean();
  for (int i = 0; i < 5; ++i)
    for (int c = 0; c < 16; ++c) CHECK(std::abs(out(i, c) - mean[c]) <= 1e-6f);
}

// The scores tile takes each key block's maximum from its registers, padding
// keys and causally hidden keys included; a block that hides keys takes it
// again over what is visible. Here every visible score is about -800 and the
// hidden ones are 0 (the zero padding keys past n_k = 9, which is not a whole
// group of keys) or +800 (the keys right of row 0's diagonal): a maximum that
// counted them would turn every weight into 0 and the output into NaN.
TEST_CASE("fast attention: a hidden key with the largest score does not set the row maximum") {
  Rng rng(31);
  const Mat V = random_mat(rng, 9, 6);
  const Mat Q = Mat::Constant(9, 4, 20.0f);  // scale 1/2: q . k / 2 = +-800
  Mat K = Mat::Constant(9, 4, -20.0f);
  for (const Kernel& kernel : kKernels) {
    Mat out;
    Warnings warnings;
    REQUIRE(kernel.run(Q, K, V, FastAttentionDesc(), &out, nullptr, &warnings) == "");  // padding hidden
    CHECK(warnings.empty());
    const Eigen::RowVectorXf mean = V.colwise().mean();
    for (int i = 0; i < 9; ++i)
      for (int c = 0; c < 6; ++c) CHECK_MESSAGE(std::abs(out(i, c) - mean[c]) <= 1e-6f, kernel.name << " row " << i);
  }
  K.bottomRows(8).setConstant(20.0f);  // keys 1-8 score +800, hidden from row 0 when causal
  for (const Kernel& kernel : kKernels) {
    Mat out;
    Warnings warnings;
    REQUIRE(kernel.run(Q, K, V, FastAttentionDesc{0.0f, true}, &out, nullptr, &warnings) == "");
    CHECK(warnings.empty());
    for (int c = 0; c < 6; ++c) CHECK_MESSAGE(std::abs(out(0, c) - V(0, c)) <= 1e-6f, kernel.name);
    check_close(std::string(kernel.name) + " causal, hidden maxima", out,
                reference(Q, K, V, FastAttentionDesc{0.0f, true}).output, kAttnAtol, kAttnRtol);
  }
}

TEST_CASE("fast attention: scores that overflow float take the exact path (no NaN)") {
  const float big = 1e20f;  // q . k = 4e40 overflows float
  Mat Q = Mat::Constant(2, 4, big), K(3, 4), V(3, 2);
  K.row(0).setConstant(big);   // score +inf: takes all the weight
  K.row(1).setConstant(-big);  // score -inf: weight 0
  K.row(2).setZero();          // score 0: weight 0 next to +inf
  V << 1, 2, 3, 4, 5, 6;
  for (const Kernel& kernel : kKernels) {
    Mat out, weights;
    Warnings warnings;
    REQUIRE(kernel.run(Q, K, V, FastAttentionDesc{1.0f, false}, &out, &weights, &warnings) == "");
    CHECK(contains(warnings, "overflowed"));
    for (int i = 0; i < 2; ++i) {
      CHECK(out(i, 0) == 1.0f);
      CHECK(out(i, 1) == 2.0f);
      CHECK(weights(i, 0) == 1.0f);
      CHECK(weights(i, 1) == 0.0f);
    }
  }
}

TEST_CASE("fast attention: non-finite input follows softmax.h's rules") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  Rng rng(11);
  Mat Q = random_mat(rng, 3, 2), K(4, 2), V = random_mat(rng, 4, 3);
  K << 0, 1, 2, 1, 0, 1, 3, 1;
  Q.row(0) << inf, 0.5f;  // scores: NaN (0 * inf) for keys 0 and 2, +inf for keys 1 and 3
  Q.row(1) << nan, 0.0f;  // every score NaN: a fully masked row, zero output
  for (const Kernel& kernel : kKernels) {
    Mat out, weights;
    Warnings warnings;
    REQUIRE(kernel.run(Q, K, V, FastAttentionDesc(), &out, &weights, &warnings) == "");
    CHECK(contains(warnings, "not all finite"));
    for (int c = 0; c < 3; ++c) {
      CHECK(std::abs(out(0, c) - 0.5f * (V(1, c) + V(3, c))) <= 1e-6f);  // the two +inf keys share
      CHECK(out(1, c) == 0.0f);
    }
    CHECK(weights(0, 0) == 0.0f);
    CHECK(weights(0, 1) == 0.5f);
    CHECK(weights.row(1).isZero(0.0f));
    // Row 2 is ordinary and matches the reference.
    const AttentionResult expected = reference(Q.bottomRows(1), K, V, FastAttentionDesc());
    check_close(std::string(kernel.name) + " finite row", out.bottomRows(1), expected.output, 1e-6, 1e-6);
  }

  // A NaN value row that no query can see (causal) does not leak into the outputs.
  Mat Qf = random_mat(rng, 3, 2), Kf = random_mat(rng, 3, 2), Vn = random_mat(rng, 3, 2);
  Vn(2, 0) = nan;
  Mat out;
  REQUIRE(fast_attention(Qf, Kf, Vn, FastAttentionDesc{0.0f, true}, &out) == "");
  CHECK(all_finite(out.topRows(2)));
  CHECK(std::isnan(out(2, 0)));
}

// ---------------------------------------------------------------- 5 matmul and self-attention
TEST_CASE("fast matmul matches a naive double-precision product over the sweep") {
  const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 33, 64};
  Rng rng(12);
  for (int m : sizes)
    for (int k : {1, 2, 3, 5, 16, 64})
      for (int n : sizes) {
        const Mat A = random_mat(rng, m, k), B = random_mat(rng, k, n);
        Mat expected(m, n);
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < n; ++j) {
            double s = 0.0;
            for (int p = 0; p < k; ++p) s += double(A(i, p)) * double(B(p, j));
            expected(i, j) = float(s);
          }
        Mat C, C_scalar;
        REQUIRE(fast_matmul(A, B, &C) == "");
        REQUIRE(fast_matmul_scalar(A, B, &C_scalar) == "");
        const std::string name = "matmul " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
        check_close(name, C, expected, 1e-6 * k, 0.0);
        check_close(name + " scalar", C_scalar, expected, 1e-6 * k, 0.0);
      }
}

TEST_CASE("fast self-attention (both projection kernels, SIMD and scalar) matches the multi-head reference with h = 1") {
  struct Shape { int n, d_model, d_k, d_v; };
  const Shape shapes[] = {{1, 4, 4, 4},     {7, 3, 5, 5},      {33, 16, 16, 16}, {64, 64, 64, 64},
                          {257, 16, 8, 8},  {65, 12, 12, 12},  {130, 64, 40, 40}, {9, 64, 3, 3}};
  uint64_t seed = 900;
  for (const Shape& s : shapes)
    for (bool causal : {false, true}) {
      Rng rng(++seed);
      const Mat X = random_mat(rng, s.n, s.d_model);
      const float limit = 1.0f / std::sqrt(float(s.d_model));
      SelfAttentionWeights w{random_mat(rng, s.d_model, s.d_k, limit), random_mat(rng, s.d_model, s.d_k, limit),
                             random_mat(rng, s.d_model, s.d_v, limit)};
      MultiHeadDesc mh;
      mh.mask = causal ? MaskKind::causal : MaskKind::none;
      MultiHeadParams params;
      params.W_Q = w.W_Q;
      params.W_K = w.W_K;
      params.W_V = w.W_V;
      const MultiHeadResult expected = ref::multihead(X, X, mh, params);
      for (ProjectionKernel projection : {ProjectionKernel::fast, ProjectionKernel::eigen})
        for (bool scalar : {false, true}) {
          FastSelfAttentionDesc desc;
          desc.attention.causal = causal;
          desc.projection = projection;
          desc.scalar = scalar;
          Mat out;
          REQUIRE(fast_self_attention(X, w, desc, &out) == "");
          check_close("self-attention n=" + std::to_string(s.n) + (causal ? " causal" : "") +
                          (projection == ProjectionKernel::fast ? " fast" : " eigen") + (scalar ? " scalar" : ""),
                      out, expected.output, kAttnAtol, kAttnRtol);
        }
    }
}

// The fused projections (project_packed) sum every element of Q, K and V in the
// order fast_matmul does, so self-attention is bit for bit fast_matmul's three
// projections followed by fast_attention; and a non-finite X still reaches the
// exact path with its warning.
TEST_CASE("fast self-attention with fused projections: the same bits as fast_matmul then fast_attention") {
  struct Shape { int n, d_model, d_k, d_v; };
  const Shape shapes[] = {{1, 4, 4, 4}, {5, 3, 5, 7}, {64, 64, 64, 64}, {65, 12, 12, 20}, {130, 64, 40, 24}, {257, 16, 8, 8}};
  uint64_t seed = 1200;
  for (const Shape& s : shapes)
    for (bool causal : {false, true})
      for (bool scalar : {false, true}) {
        Rng rng(++seed);
        const Mat X = random_mat(rng, s.n, s.d_model);
        const float limit = 1.0f / std::sqrt(float(s.d_model));
        const SelfAttentionWeights w{random_mat(rng, s.d_model, s.d_k, limit), random_mat(rng, s.d_model, s.d_k, limit),
                                     random_mat(rng, s.d_model, s.d_v, limit)};
        auto product = scalar ? fast_matmul_scalar : fast_matmul;
        Mat Q, K, V, expected, out;
        REQUIRE(product(X, w.W_Q, &Q, nullptr) == "");
        REQUIRE(product(X, w.W_K, &K, nullptr) == "");
        REQUIRE(product(X, w.W_V, &V, nullptr) == "");
        FastSelfAttentionDesc desc;
        desc.attention.causal = causal;
        desc.projection = ProjectionKernel::fast;
        desc.scalar = scalar;
        REQUIRE((scalar ? fast_attention_scalar : fast_attention)(Q, K, V, desc.attention, &expected, nullptr, nullptr,
                                                                  nullptr) == "");
        REQUIRE(fast_self_attention(X, w, desc, &out) == "");
        REQUIRE(out.rows() == expected.rows());
        REQUIRE(out.cols() == expected.cols());
        CHECK_MESSAGE(std::memcmp(out.data(), expected.data(), sizeof(float) * size_t(out.size())) == 0,
                      "n=" << s.n << " d_model=" << s.d_model << " d_k=" << s.d_k << " d_v=" << s.d_v
                           << (causal ? " causal" : "") << (scalar ? " scalar" : ""));
      }

  Rng rng(1299);
  Mat X = random_mat(rng, 9, 8);
  X(4, 2) = std::numeric_limits<float>::quiet_NaN();
  const SelfAttentionWeights w{random_mat(rng, 8, 8), random_mat(rng, 8, 8), random_mat(rng, 8, 8)};
  Mat out;
  Warnings warnings;
  FastSelfAttentionDesc desc;
  desc.projection = ProjectionKernel::fast;
  REQUIRE(fast_self_attention(X, w, desc, &out, &warnings) == "");
  CHECK(contains(warnings, "not all finite"));
}

// ---------------------------------------------------------------- 6 workspace reuse
namespace {
// Same shape and the same bits: a workspace may change where the scratch lives,
// never a single result bit.
void check_identical(const std::string& name, const Mat& actual, const Mat& expected) {
  REQUIRE_MESSAGE(actual.rows() == expected.rows(), name << ": rows " << actual.rows() << " vs " << expected.rows());
  REQUIRE_MESSAGE(actual.cols() == expected.cols(), name << ": cols " << actual.cols() << " vs " << expected.cols());
  CHECK_MESSAGE(std::memcmp(actual.data(), expected.data(), sizeof(float) * size_t(actual.size())) == 0,
                name << ": results differ with a workspace");
}
}  // namespace

TEST_CASE("fast kernels: one reused workspace gives bit-identical results to none, across changing shapes") {
  struct Shape { int n_q, n_k, d, d_v; bool causal; };
  // Large first, then smaller (a longer buffer holds stale data from the call
  // before), odd sizes (zero padding must be rebuilt), then larger again.
  const Shape shapes[] = {{257, 257, 64, 64, false}, {5, 7, 3, 2, false},    {33, 130, 16, 20, true},
                          {1, 1, 1, 1, false},       {129, 256, 64, 17, true}, {300, 300, 64, 64, false},
                          {64, 64, 16, 16, true},    {130, 257, 5, 64, false}};
  FastAttentionWorkspace ws;  // one workspace for every kernel and shape
  uint64_t seed = 1300;
  for (const Shape& s : shapes) {
    Rng rng(++seed);
    const Mat Q = random_mat(rng, s.n_q, s.d, 1.5f), K = random_mat(rng, s.n_k, s.d, 1.5f),
              V = random_mat(rng, s.n_k, s.d_v);
    const std::string shape = case_name("", s.n_q, s.n_k, s.d, s.d_v, s.causal);
    FastAttentionDesc desc;
    desc.causal = s.causal;
    for (const Kernel& kernel : kKernels) {
      Mat out, out_ws, weights, weights_ws;
      REQUIRE(kernel.run(Q, K, V, desc, &out, nullptr, nullptr) == "");
      REQUIRE(kernel.run(Q, K, V, desc, &out_ws, nullptr, nullptr, &ws) == "");
      check_identical(std::string(kernel.name) + shape + " output", out_ws, out);
      REQUIRE(kernel.run(Q, K, V, desc, &out, &weights, nullptr) == "");
      REQUIRE(kernel.run(Q, K, V, desc, &out_ws, &weights_ws, nullptr, &ws) == "");
      check_identical(std::string(kernel.name) + shape + " output (weights requested)", out_ws, out);
      check_identical(std::string(kernel.name) + shape + " weights", weights_ws, weights);
    }

    // Self-attention: X (n_q, d) with d_k = d, d_v as above; every projection kernel.
    const Mat X = random_mat(rng, s.n_q, s.d);
    const float limit = 1.0f / std::sqrt(float(s.d));
    const SelfAttentionWeights w{random_mat(rng, s.d, s.d, limit), random_mat(rng, s.d, s.d, limit),
                                 random_mat(rng, s.d, s.d_v, limit)};
    for (ProjectionKernel projection : {ProjectionKernel::fast, ProjectionKernel::eigen})
      for (bool scalar : {false, true}) {
        FastSelfAttentionDesc self;
        self.attention.causal = s.causal;
        self.projection = projection;
        self.scalar = scalar;
        Mat out, out_ws;
        REQUIRE(fast_self_attention(X, w, self, &out) == "");
        REQUIRE(fast_self_attention(X, w, self, &out_ws, nullptr, &ws) == "");
        const std::string kind = projection == ProjectionKernel::fast ? " fast" : " eigen";
        check_identical("self-attention" + shape + kind + (scalar ? " scalar" : ""), out_ws, out);
      }

    // Matrix product: Q (n_q, d) B (d, d_v).
    const Mat B = random_mat(rng, s.d, s.d_v);
    Mat C, C_ws;
    REQUIRE(fast_matmul(Q, B, &C) == "");
    REQUIRE(fast_matmul(Q, B, &C_ws, &ws) == "");
    check_identical("matmul" + shape, C_ws, C);
    REQUIRE(fast_matmul_scalar(Q, B, &C) == "");
    REQUIRE(fast_matmul_scalar(Q, B, &C_ws, &ws) == "");
    check_identical("matmul scalar" + shape, C_ws, C);
  }

  // Once grown, the workspace is reused: a second call of the same shape moves no buffer.
  Rng rng(1400);
  const Mat Q = random_mat(rng, 200, 64), K = random_mat(rng, 200, 64), V = random_mat(rng, 200, 64);
  Mat out;
  REQUIRE(fast_attention(Q, K, V, FastAttentionDesc(), &out, nullptr, nullptr, &ws) == "");
  const float* before[] = {ws.q_tiles.data(), ws.k_panels.data(), ws.v_padded.data(), ws.out_partial.data()};
  REQUIRE(fast_attention(Q, K, V, FastAttentionDesc(), &out, nullptr, nullptr, &ws) == "");
  const float* after[] = {ws.q_tiles.data(), ws.k_panels.data(), ws.v_padded.data(), ws.out_partial.data()};
  for (int i = 0; i < 4; ++i) CHECK(before[i] == after[i]);
}

// ---------------------------------------------------------------- 7 errors
TEST_CASE("fast kernels report bad shapes and scales instead of computing") {
  Rng rng(13);
  const Mat Q = random_mat(rng, 3, 4), K = random_mat(rng, 5, 4), V = random_mat(rng, 5, 2);
  Mat out = Mat::Ones(2, 2);
  CHECK(fast_attention(Q, random_mat(rng, 5, 3), V, FastAttentionDesc(), &out) != "");
  CHECK(out.size() == 0);
  CHECK(fast_attention(Q, K, random_mat(rng, 4, 2), FastAttentionDesc(), &out) != "");
  CHECK(fast_attention(Mat(0, 4), K, V, FastAttentionDesc(), &out) != "");
  CHECK(fast_attention_scalar(Q, K, V, FastAttentionDesc{-1.0f, false}, &out) != "");
  CHECK(fast_attention(Q, K, V, FastAttentionDesc{std::numeric_limits<float>::quiet_NaN(), false}, &out) != "");
  CHECK(fast_matmul(Q, V, &out) != "");
  SelfAttentionWeights w{random_mat(rng, 4, 3), random_mat(rng, 4, 3), random_mat(rng, 4, 2)};
  CHECK(fast_self_attention(Q, w, FastSelfAttentionDesc(), &out) == "");
  w.W_K = random_mat(rng, 4, 2);
  CHECK(fast_self_attention(Q, w, FastSelfAttentionDesc(), &out) != "");
  CHECK(out.size() == 0);
  w.W_K = random_mat(rng, 3, 3);
  CHECK(fast_self_attention(Q, w, FastSelfAttentionDesc(), &out) != "");
}

TEST_CASE("fast kernel build information") {
  const std::string isa = fast_kernel_isa();
  CHECK((isa == "wasm-simd128" || isa == "avx2-fma" || isa == "avx2" || isa == "sse2" || isa == "scalar"));
  CHECK(fast_kernel_lanes() == (isa == "avx2-fma" || isa == "avx2" ? 8 : isa == "scalar" ? 1 : 4));
#if defined(__wasm_simd128__)
  CHECK(isa == "wasm-simd128");
#endif
}

// ---------------------------------------------------------------- 8 timing
namespace {
double g_fake_clock = 0.0;
// Each reading advances 1 ms, so every timed call lasts exactly 1 ms.
double fake_clock_ms() { return g_fake_clock += 1.0; }
}  // namespace

TEST_CASE("timing: one point per length, medians from the given clock, invalid descs rejected") {
  TimingDesc desc;
  desc.lengths = {1, 5, 12};
  desc.d = 4;
  desc.repeats = 3;
  desc.now_ms = fake_clock_ms;
  const TimingResult result = time_rnn_vs_attention(desc);
  REQUIRE(result.ok());
  REQUIRE(result.points.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(result.points[i].n == desc.lengths[i]);
    CHECK(result.points[i].rnn_ms == 1.0);
    CHECK(result.points[i].attention_ms == 1.0);
    CHECK(result.points[i].attention_scalar_ms == 1.0);
  }

  // The real clock: non-negative, finite times (their size is not a test matter).
  desc.now_ms = nullptr;
  desc.cell = CellKind::lstm;
  desc.repeats = 1;
  const TimingPoint p = time_rnn_vs_attention_at(desc, 8);
  CHECK(p.n == 8);
  for (double t : {p.rnn_ms, p.attention_ms, p.attention_scalar_ms}) CHECK((std::isfinite(t) && t >= 0.0));

  desc.lengths = {4, 0};
  CHECK(!time_rnn_vs_attention(desc).ok());
  desc.lengths = {4};
  desc.repeats = 0;
  CHECK(check_timing_desc(desc) != "");
  CHECK(time_rnn_vs_attention_at(desc, 4).n == 0);
}

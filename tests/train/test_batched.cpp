// test_batched.cpp: the pieces of the language model's batched training step
// (issue 36) -- the register-tiled products against their plain loops, bit
// for bit over a sweep of shapes; the fixed reduction tree, whose result must
// not depend on how a batch is split among workers; and the batched layers,
// whose every sequence's gradient must be what that sequence alone gives (bit
// for bit, but for attention's float softmax), checked against finite
// differences too.
//
// Sections: 1 helpers, 2 products and exp_fast's lanes, 3 the reduction tree,
// 4 batched layers.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "support/attn_test_util.h"
#include "support/gradcheck.h"
#include "train/batched_layers.h"
#include "train/decoder_attention.h"
#include "train/fmath.h"
#include "train/grad_tree.h"
#include "train/kernels.h"

using namespace attn;
using namespace attn::train;
using attn::test::random_mat;

namespace {

// ---------------------------------------------------------------- 1 helpers
bool same_bits(const float* a, const float* b, size_t n) { return std::memcmp(a, b, sizeof(float) * n) == 0; }
bool same_bits(const Mat& a, const Mat& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() && same_bits(a.data(), b.data(), size_t(a.size()));
}

std::vector<float> random_floats(Rng& rng, size_t n) {
  std::vector<float> v(n);
  for (float& x : v) x = rng.uniform(-1.0f, 1.0f);
  return v;
}

// One product of the given shape and options on random operands (strides
// padded by a few floats), by product() and by product_reference(); true when
// every element the product defines has the same bits.
bool tiled_matches_plain(Rng& rng, int M, int N, int K, bool transposed, bool bias, bool accumulate) {
  const int lda = (transposed ? M : K) + 3, ldb = N + 1, ldc = N + 2;
  const std::vector<float> A = random_floats(rng, size_t(transposed ? K : M) * size_t(lda) + 1);
  const std::vector<float> B = random_floats(rng, size_t(K) * size_t(ldb) + 1);
  const std::vector<float> b = random_floats(rng, size_t(N));
  const std::vector<float> C0 = random_floats(rng, size_t(M) * size_t(ldc) + 1);
  std::vector<float> fast = C0, plain = C0;
  Product p;
  p.M = M;
  p.N = N;
  p.K = K;
  p.A = A.data();
  p.lda = lda;
  p.a_transposed = transposed;
  p.B = B.data();
  p.ldb = ldb;
  p.ldc = ldc;
  p.bias = bias ? b.data() : nullptr;
  p.accumulate = accumulate;
  p.C = fast.data();
  product(p);
  p.C = plain.data();
  product_reference(p);
  return fast == plain;  // also the padding between rows: untouched by both
}

}  // namespace

// ---------------------------------------------------------------- 2 products
TEST_CASE("product: the register tiles give the plain loops' bits over a sweep of shapes, A read either way") {
  // Every tile shape (4 rows and the last 1-3; 2 vectors, 1 vector and the
  // last 1-7 columns) and a depth of 0 (the sums are +0).
  Rng rng(3601);
  int cases = 0, wrong = 0;
  for (int M : {1, 2, 3, 4, 5, 7, 8, 13, 32, 33})
    for (int N : {1, 3, 4, 5, 8, 9, 15, 16, 17, 31, 33, 64, 74})
      for (int K : {0, 1, 2, 5, 16, 33})
        for (int variant = 0; variant < 4; ++variant) {
          const bool transposed = variant & 1, bias = variant == 2, accumulate = variant == 3;
          ++cases;
          if (!tiled_matches_plain(rng, M, N, K, transposed, bias, accumulate)) {
            ++wrong;
            MESSAGE("M " << M << " N " << N << " K " << K << " transposed " << transposed << " bias " << bias
                         << " accumulate " << accumulate);
          }
        }
  CHECK(wrong == 0);
  CHECK(cases == 10 * 13 * 6 * 4);
}

TEST_CASE("product: the language model's shapes, and the bits of the one-sequence kernels (matmul, matmul_nt, matmul_tn_add)") {
  Rng rng(3602);
  struct Shape {
    int rows, k, m;
  };
  // The batch's 256 rows and one window's 32 through the projections, the FFN and the unembedding.
  for (const Shape& s : {Shape{256, 64, 64}, Shape{256, 64, 256}, Shape{256, 256, 64}, Shape{256, 64, 74},
                         Shape{32, 64, 74}, Shape{7, 16, 32}}) {
    CAPTURE(s.rows);
    CAPTURE(s.k);
    CAPTURE(s.m);
    const Mat X = random_mat(rng, s.rows, s.k), W = random_mat(rng, s.k, s.m), D = random_mat(rng, s.rows, s.m);
    Mat Y, dX;
    matmul(X, W, Y);  // section 1 (it skips zero terms: no bit changes for finite W)
    Mat Yt(s.rows, s.m), dXt(s.rows, s.k), G = Mat::Zero(s.k, s.m), Gt = Mat::Zero(s.k, s.m);
    Product p;
    p.M = s.rows, p.N = s.m, p.K = s.k, p.A = X.data(), p.lda = s.k, p.B = W.data(), p.ldb = s.m, p.C = Yt.data(),
    p.ldc = s.m;
    product(p);
    CHECK(same_bits(Y, Yt));
    matmul_nt(D, W, dX);
    std::vector<float> Wt(size_t(s.k) * size_t(s.m));
    transpose_into(W.data(), s.k, s.m, s.m, Wt.data(), s.k);
    Product q;
    q.M = s.rows, q.N = s.k, q.K = s.m, q.A = D.data(), q.lda = s.m, q.B = Wt.data(), q.ldb = s.k, q.C = dXt.data(),
    q.ldc = s.k;
    product(q);
    CHECK(same_bits(dX, dXt));
    matmul_tn_add(X, D, G);
    Product r;
    r.M = s.k, r.N = s.m, r.K = s.rows, r.A = X.data(), r.lda = s.k, r.a_transposed = true, r.B = D.data(),
    r.ldb = s.m, r.C = Gt.data(), r.ldc = s.m, r.accumulate = true;
    product(r);
    CHECK(same_bits(G, Gt));
  }
}

TEST_CASE("product: the causal shortcuts skip only zeros and unread outputs, so the bits stay") {
  // a_lower: A is zero after the diagonal (P, the score gradient); a_upper: zero
  // before it (their transposes); c_lower: only the lower triangle is compared.
  Rng rng(3603);
  for (int n : {1, 2, 3, 4, 5, 9, 16, 31, 32})
    for (int N : {n, 16}) {
      CAPTURE(n);
      CAPTURE(N);
      Mat L = random_mat(rng, n, n), U = random_mat(rng, n, n);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          if (j > i) L(i, j) = 0.0f;
          if (j < i) U(i, j) = 0.0f;  // U(r, p) == 0 for p < r
        }
      const Mat B = random_mat(rng, n, N);
      for (int mode = 0; mode < 3; ++mode) {  // L, U, L transposed
        CAPTURE(mode);
        const Mat& A = mode == 0 ? L : U;
        Mat fast = Mat::Constant(n, N, 7.0f), plain = fast;
        Product p;
        p.M = n, p.N = N, p.K = n, p.A = A.data(), p.lda = n, p.B = B.data(), p.ldb = N, p.ldc = N;
        p.a_lower = mode == 0;
        p.a_upper = mode != 0;
        if (mode == 2) {  // L read transposed: A(r, p) = L(p, r) == 0 for p < r
          p.A = L.data();
          p.a_transposed = true;
        }
        p.C = fast.data();
        product(p);
        p.C = plain.data();
        product_reference(p);
        CHECK(same_bits(fast, plain));
      }
      // c_lower on a square output.
      const Mat A = random_mat(rng, n, 16), Bt = random_mat(rng, 16, n);
      Mat fast(n, n), plain(n, n);
      Product p;
      p.M = n, p.N = n, p.K = 16, p.A = A.data(), p.lda = 16, p.B = Bt.data(), p.ldb = n, p.ldc = n, p.c_lower = true;
      p.C = fast.data();
      product(p);
      p.C = plain.data();
      product_reference(p);
      for (int i = 0; i < n; ++i) CHECK(same_bits(&fast(i, 0), &plain(i, 0), size_t(i) + 1));
    }
}

TEST_CASE("gelu_forward: the SIMD lanes give the bits of the one-at-a-time loop") {
  // One row of 1003 values (whole vectors and a tail) against each value alone
  // (a 1 x 1 input takes the scalar loop, compiled in the library).
  Mat pre(1, 1003);
  for (int k = 0; k < 1003; ++k) pre(0, k) = float(k - 500) * 0.02f + 1e-3f;
  pre(0, 7) = 200.0f;  // e^{-2u} overflows: s = 0
  pre(0, 8) = -200.0f;
  Mat s, out;
  gelu_forward(pre, s, out);
  int wrong = 0;
  for (int k = 0; k < 1003; ++k) {
    Mat one(1, 1), s1, o1;
    one(0, 0) = pre(0, k);
    gelu_forward(one, s1, o1);
    wrong += !same_bits(&s(0, k), &s1(0, 0), 1) || !same_bits(&out(0, k), &o1(0, 0), 1);
  }
  CHECK(wrong == 0);
}

TEST_CASE("transpose_into: every value moves to its transposed place, blocks of 4 and the edges, strides padded") {
  Rng rng(3609);
  for (int rows : {1, 3, 4, 5, 16, 32, 33})
    for (int cols : {1, 2, 4, 7, 16, 64, 74}) {
      const int lds = cols + 3, ldt = rows + 1;
      const std::vector<float> S = random_floats(rng, size_t(rows) * size_t(lds));
      std::vector<float> T(size_t(cols) * size_t(ldt), -7.0f), want = T;
      for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) want[size_t(j) * size_t(ldt) + size_t(i)] = S[size_t(i) * size_t(lds) + size_t(j)];
      transpose_into(S.data(), rows, cols, lds, T.data(), ldt);
      CAPTURE(rows);
      CAPTURE(cols);
      CHECK(T == want);  // the padding untouched too
    }
}

TEST_CASE("exp_fast_array: the SIMD lanes give exp_fast's bits, ends and NaN included") {
  std::vector<float> x;
  for (int i = -90000; i <= 90000; ++i) x.push_back(float(i) * 1e-3f + 3e-5f);
  for (float v : {0.0f, -0.0f, 1e-40f, -1e-40f, 88.29f, 88.3f, 88.31f, -87.29f, -87.3f, -87.31f, 1e30f, -1e30f,
                  INFINITY, -INFINITY, NAN, -NAN})
    x.push_back(v);
  x.push_back(0.5f);  // a length that leaves a tail of single floats
  std::vector<float> y(x.size());
  exp_fast_array(x.data(), y.data(), int(x.size()));
  // The reference: exp_fast itself, one float at a time (a call of one float
  // takes the scalar tail; through the library, compiled without fused
  // multiply-add as this file is not).
  int wrong = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    float want = 0.0f;
    exp_fast_array(&x[i], &want, 1);
    if (std::memcmp(&want, &y[i], sizeof want) != 0) ++wrong;
  }
  CHECK(wrong == 0);
  std::vector<float> in_place = x;
  exp_fast_array(in_place.data(), in_place.data(), int(in_place.size()));
  CHECK(same_bits(in_place.data(), y.data(), y.size()));
}

// ---------------------------------------------------------------- 3 the reduction tree
TEST_CASE("grad tree: the cover of a worker's examples, the split of a batch, and the tree's order") {
  CHECK(split_batch(8, 3) == std::vector<int>{0, 3, 6, 8});
  CHECK(split_batch(8, 1) == std::vector<int>{0, 8});
  CHECK(split_batch(3, 5) == std::vector<int>{0, 1, 2, 3, 3, 3});
  CHECK(tree_split(0, 8) == 4);
  CHECK(tree_split(0, 5) == 4);
  CHECK(tree_split(4, 7) == 6);
  const auto nodes = [](int B, int a, int b) {
    std::string s;
    for (const TreeNode& n : tree_cover(B, a, b)) s += "[" + std::to_string(n.begin) + "," + std::to_string(n.end) + ")";
    return s;
  };
  // 3 workers on 8 examples, 3/3/2: the nodes grad_tree.h names.
  CHECK(nodes(8, 0, 3) == "[0,2)[2,3)");
  CHECK(nodes(8, 3, 6) == "[3,4)[4,6)");
  CHECK(nodes(8, 6, 8) == "[6,8)");
  CHECK(nodes(8, 0, 8) == "[0,8)");
  CHECK(nodes(5, 0, 5) == "[0,5)");
  CHECK(nodes(5, 1, 5) == "[1,2)[2,4)[4,5)");

  // B = 8 on one worker: ((g0 + g1) + (g2 + g3)) + ((g4 + g5) + (g6 + g7)), element by element.
  Rng rng(3604);
  const size_t size = 37;
  std::vector<std::vector<float>> g(8);
  for (auto& x : g) x = random_floats(rng, size);
  GradientShare one;
  one.reset(8, 0, 8, size);
  for (int e = 0; e < 8; ++e) std::memcpy(one.leaf(e), g[size_t(e)].data(), sizeof(float) * size);
  one.sum_leaves(0, size);
  std::vector<float> grad;
  double loss = 0.0;
  REQUIRE(reduce_shares({&one}, grad, &loss));
  for (size_t k = 0; k < size; ++k) {
    const float want = ((g[0][k] + g[1][k]) + (g[2][k] + g[3][k])) + ((g[4][k] + g[5][k]) + (g[6][k] + g[7][k]));
    CHECK(grad[k] == want);
  }
}

TEST_CASE("grad tree: every split of batches of 1 to 9 among 1 to 8 workers gives the one-worker bits") {
  Rng rng(3605);
  const size_t size = 53;
  int splits = 0;
  for (int B = 1; B <= 9; ++B) {
    std::vector<std::vector<float>> g(static_cast<size_t>(B));
    std::vector<double> losses(static_cast<size_t>(B));
    for (int e = 0; e < B; ++e) {
      g[size_t(e)] = random_floats(rng, size);
      for (float& x : g[size_t(e)]) x *= std::pow(2.0f, float(e % 5) * 3.0f);  // scales that make rounding show
      losses[size_t(e)] = rng.uniform(0.0f, 100.0f);
    }
    std::vector<float> reference;
    double reference_loss = 0.0;
    for (int workers = 1; workers <= 8; ++workers) {
      const std::vector<int> bounds = split_batch(B, workers);
      std::vector<GradientShare> shares(static_cast<size_t>(workers));
      for (int w = 0; w < workers; ++w) {
        GradientShare& s = shares[size_t(w)];
        s.reset(B, bounds[size_t(w)], bounds[size_t(w) + 1], size);
        for (int e = s.begin; e < s.end; ++e) {
          std::memcpy(s.leaf(e), g[size_t(e)].data(), sizeof(float) * size);
          s.losses[size_t(e - s.begin)] = losses[size_t(e)];
        }
        // One parameter's slice at a time, as a model sums them: the same as all at once.
        s.sum_leaves(0, 20);
        s.sum_leaves(20, size - 20);
      }
      // Gathered in reverse order of arrival: the order of the shares does not matter.
      std::vector<GradientShare*> given;
      for (int w = workers - 1; w >= 0; --w) given.push_back(&shares[size_t(w)]);
      std::vector<float> grad;
      double loss = 0.0;
      REQUIRE(reduce_shares(given, grad, &loss));
      if (workers == 1) {
        reference = grad;
        reference_loss = loss;
      }
      CAPTURE(B);
      CAPTURE(workers);
      CHECK(same_bits(grad.data(), reference.data(), size));
      CHECK(loss == reference_loss);
      ++splits;
    }
  }
  CHECK(splits == 72);
  // Shares that leave a gap, or overlap, are refused.
  GradientShare a, b;
  a.reset(4, 0, 2, 3);
  b.reset(4, 3, 4, 3);
  std::vector<float> grad;
  CHECK_FALSE(reduce_shares({&a, &b}, grad, nullptr));
  b.reset(4, 1, 4, 3);
  CHECK_FALSE(reduce_shares({&a, &b}, grad, nullptr));
  CHECK(grad.empty());
}

TEST_CASE("product_tree: the weight gradient summed along the tree inside the product has the bits of per-sequence buffers and sum_leaves") {
  // Sequences of 32, 5, 0, 32, 1, 17, 32, 9 rows; every node of a batch of 8
  // and of its suffixes, for widths with and without column tails.
  Rng rng(3608);
  const std::vector<int> lengths = {32, 5, 0, 32, 1, 17, 32, 9};
  std::vector<int> starts = {0};
  for (int n : lengths) starts.push_back(starts.back() + n);
  const int R = starts.back();
  for (int M : {4, 7, 64})
    for (int N : {8, 74, 33}) {
      CAPTURE(M);
      CAPTURE(N);
      const Mat X = random_mat(rng, R, M), D = random_mat(rng, R, N);
      // The per-sequence buffers of [begin, end), then the tree, as a GradientShare sums them.
      const auto summed = [&](GradientShare& sh, int begin, int end) {
        sh.reset(8, begin, end, size_t(M) * size_t(N));
        for (int e = begin; e < end; ++e) {
          Product q;
          q.M = M, q.N = N, q.K = lengths[size_t(e)], q.A = X.data() + size_t(starts[size_t(e)]) * M, q.lda = M,
          q.a_transposed = true, q.B = D.data() + size_t(starts[size_t(e)]) * N, q.ldb = N, q.C = sh.leaf(e),
          q.ldc = N, q.accumulate = true;
          product(q);
        }
        sh.sum_leaves(0, sh.size);
      };
      GradientShare share;
      summed(share, 0, 8);
      for (const TreeNode& node : {TreeNode{0, 8}, TreeNode{0, 4}, TreeNode{4, 8}, TreeNode{6, 8}, TreeNode{2, 3}}) {
        CAPTURE(node.begin);
        CAPTURE(node.end);
        GradientShare sub;
        summed(sub, node.begin, node.end);
        REQUIRE(sub.nodes.size() == 1);
        Mat fast(M, N), plain(M, N);
        Product p;
        p.M = M, p.N = N, p.A = X.data(), p.lda = M, p.B = D.data(), p.ldb = N, p.ldc = N;
        p.C = fast.data();
        product_tree(p, starts.data(), node.begin, node.end);
        p.C = plain.data();
        product_tree_reference(p, starts.data(), node.begin, node.end);
        CHECK(same_bits(fast.data(), sub.node_sum(0), sub.size));
        CHECK(same_bits(plain.data(), sub.node_sum(0), sub.size));
        if (node.begin == 0 && node.end == 8) CHECK(same_bits(fast.data(), share.node_sum(0), share.size));
      }
    }
}

// ---------------------------------------------------------------- 4 batched layers
namespace {
// Sequences of these lengths stacked (one of a single row, none empty).
const std::vector<int> kBatchedLengths = {5, 1, 7, 4};

RowBatch stacked_rows() {
  RowBatch rows;
  for (int n : kBatchedLengths) rows.add(n);
  return rows;
}

// Each sequence's gradient buffers for `params`, zeroed.
struct Leaves {
  GradientLayout layout;
  std::vector<float> data;
  Leaves(const ParamList& params, int count) : layout(gradient_layout(params)), data(layout.size * size_t(count), 0.0f) {}
  SequenceGrads grads() { return SequenceGrads{&layout, data.data(), layout.size}; }
  // Sequence s's gradient of p as a matrix.
  Mat of(const Param& p, int s) {
    return Eigen::Map<const Mat>(grads().of(p, s), p.value.rows(), p.value.cols());
  }
  // The sum over every sequence (in order: only for finite differences).
  Mat total(const Param& p, int count) {
    Mat t = Mat::Zero(p.value.rows(), p.value.cols());
    for (int s = 0; s < count; ++s) t += of(p, s);
    return t;
  }
};

void nudge(const ParamList& params, Rng& rng) {
  for (Param* p : params)
    for (Eigen::Index k = 0; k < p->value.size(); ++k) p->value.data()[k] += rng.uniform(-0.3f, 0.3f);
}

// a and b equal bit for bit (tolerance 0), or within `tolerance` times b's
// largest entry.
bool near_or_same(const Mat& a, const Mat& b, double tolerance) {
  if (tolerance == 0.0) return same_bits(a, b);
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  return double((a - b).cwiseAbs().maxCoeff()) <= tolerance * std::max(1e-30, double(b.cwiseAbs().maxCoeff()));
}

// For each sequence: its rows of `batched` against what `one` computes from
// its rows of X alone, and its leaves against the one-sequence backward pass's
// Param::grads (zeroed first); `one(X_s, dOut_s, out_s, dX_s)` runs both passes.
void check_per_sequence(const std::string& what, const ParamList& params, Leaves& leaves, const Mat& X, const Mat& dOut,
                        const Mat& out, const Mat& dX,
                        const std::function<void(const Mat&, const Mat&, Mat&, Mat&)>& one, double tolerance = 0.0) {
  const RowBatch rows = stacked_rows();
  for (int s = 0; s < rows.count(); ++s) {
    CAPTURE(what);
    CAPTURE(s);
    zero_grads(params);
    Mat out_s, dX_s;
    one(X.middleRows(rows.begin(s), rows.length(s)), dOut.middleRows(rows.begin(s), rows.length(s)), out_s, dX_s);
    CHECK(near_or_same(Mat(out.middleRows(rows.begin(s), rows.length(s))), out_s, tolerance));
    CHECK(near_or_same(Mat(dX.middleRows(rows.begin(s), rows.length(s))), dX_s, tolerance));
    for (Param* p : params) {
      CAPTURE(p->name);
      CHECK(near_or_same(leaves.of(*p, s), p->grad, tolerance));
    }
  }
}
}  // namespace

namespace {
// A layer's parameters moved off their start values, its batched passes run
// over every row (`batched(dOut, grads, out, dX)`), then each sequence checked
// against `one` (check_per_sequence).
void check_rows_against_one(const std::string& what, const ParamList& params, Rng& rng, const Mat& X,
                            const std::function<void(const Mat&, const SequenceGrads&, Mat&, Mat&)>& batched,
                            const std::function<void(const Mat&, const Mat&, Mat&, Mat&)>& one, double tolerance = 0.0) {
  nudge(params, rng);
  const Mat dOut = random_mat(rng, X.rows(), X.cols());
  Leaves leaves(params, stacked_rows().count());
  Mat out, dX;
  batched(dOut, leaves.grads(), out, dX);
  check_per_sequence(what, params, leaves, X, dOut, out, dX, one, tolerance);
}
}  // namespace

TEST_CASE("batched layers: each sequence's rows and gradients are the one-sequence layers' bits") {
  Rng rng(3606);
  const RowBatch rows = stacked_rows();
  const int R = rows.rows(), d = 8;
  const Mat X = random_mat(rng, R, d);
  BatchScratch scratch;

  SUBCASE("causal self-attention (2 heads of 4, W_O)") {
    SelfAttentionLayer layer;
    layer.init("att", d, 2, 4, d, rng);
    layer.causal = true;
    ParamList params;
    layer.collect(params);
    CausalAttentionTrace tr;
    // The one difference: the batched softmax's exponentials come from the
    // float exp_fast (relative error below 2e-7), the one-sequence layer's from
    // the double exp_f. Measured: 3e-7 of the largest entry at most.
    check_rows_against_one(
        "attention", params, rng, X,
        [&](const Mat& dOut, const SequenceGrads& g, Mat& out, Mat& dX) {
          causal_attention_forward_rows(layer, X, rows, tr, scratch);
          out = tr.out;
          causal_attention_backward_rows(layer, X, tr, dOut, rows, g, dX, scratch);
        },
        [&](const Mat& Xs, const Mat& dOs, Mat& o, Mat& dXs) {
          SelfAttentionTrace t;
          self_attention_forward(layer, Xs, t);
          o = t.out;
          self_attention_backward(layer, t, dOs, dXs);
        },
        2e-6);
    // Edits: a head scaled and a row overridden give the one-sequence pass's rows too.
    AttentionEdits edits;
    edits.head_scale = {1.0f, 0.25f};
    edits.row_head = 0;
    edits.row = 3;
    edits.row_weights = {0.5f, -1.0f, 2.0f};
    causal_attention_forward_rows(layer, X, rows, tr, scratch, &edits);
    for (int s = 0; s < rows.count(); ++s) {
      SelfAttentionTrace t;
      self_attention_forward(layer, X.middleRows(rows.begin(s), rows.length(s)), t, &edits);
      CHECK(near_or_same(Mat(tr.out.middleRows(rows.begin(s), rows.length(s))), t.out, 2e-6));
      const int n = rows.length(s);
      for (int h = 0; h < 2; ++h) {
        CHECK(near_or_same(Eigen::Map<const Mat>(tr.p_at(rows, s, h), n, n), t.P[size_t(h)], 2e-6));
        if (h == 0 && n > 3)  // the overridden row: exactly the given weights, renormalised
          CHECK(same_bits(tr.p_at(rows, s, h) + 3 * n, &t.P[0](3, 0), size_t(n)));
      }
    }
  }
  SUBCASE("feed-forward (8 -> 12 -> 8, GELU)") {
    FeedForward ff;
    ff.init("ffn", d, 12, rng);
    ParamList params;
    ff.collect(params);
    check_rows_against_one(
        "ffn", params, rng, X,
        [&](const Mat& dOut, const SequenceGrads& g, Mat& out, Mat& dX) {
          FeedForwardTrace tr;
          feed_forward_forward_rows(ff, X, tr);
          out = tr.out;
          feed_forward_backward_rows(ff, X, tr, dOut, rows, g, dX, scratch);
        },
        [&](const Mat& Xs, const Mat& dOs, Mat& o, Mat& dXs) {
          FeedForwardTrace t;
          feed_forward_forward(ff, Xs, t);
          o = t.out;
          feed_forward_backward(ff, t, dOs, dXs);
        });
  }
  SUBCASE("LayerNorm") {
    LayerNorm ln;
    ln.init("ln", d);
    ParamList params;
    ln.collect(params);
    check_rows_against_one(
        "layernorm", params, rng, X,
        [&](const Mat& dOut, const SequenceGrads& g, Mat& out, Mat& dX) {
          LayerNormTrace tr;
          layer_norm_forward(ln, X, tr);
          out = tr.out;
          layer_norm_backward_rows(ln, tr, dOut, rows, g, dX);
        },
        [&](const Mat& Xs, const Mat& dOs, Mat& o, Mat& dXs) {
          LayerNormTrace t;
          layer_norm_forward(ln, Xs, t);
          o = t.out;
          layer_norm_backward(ln, t, dOs, dXs);
        });
  }
}

TEST_CASE("batched layers: the backward passes match finite differences (every sequence's gradients summed)") {
  Rng rng(3607);
  const RowBatch rows = stacked_rows();
  const int R = rows.rows(), d = 8;
  Mat X = random_mat(rng, R, d);
  const Mat C = random_mat(rng, R, d);  // loss = sum(out .* C)
  BatchScratch scratch;
  // Runs `forward` for the loss, and `backward` for the analytic gradients.
  const auto check = [&](const std::string& what, const ParamList& params, const std::function<Mat(const Mat&)>& forward,
                         const std::function<void(const SequenceGrads&, Mat&)>& backward) {
    Leaves leaves(params, rows.count());
    Mat dX;
    backward(leaves.grads(), dX);
    const auto loss = [&] { return attn::test::weighted_sum(forward(X), C); };
    for (Param* p : params) {
      const Mat g = leaves.total(*p, rows.count());
      attn::test::check_gradient(what + " " + p->name, p->value, g, loss);
    }
    attn::test::check_gradient(what + " dX", X, dX, loss);
  };
  SelfAttentionLayer layer;
  layer.init("att", d, 2, 4, d, rng);
  layer.causal = true;
  ParamList ap;
  layer.collect(ap);
  nudge(ap, rng);
  CausalAttentionTrace at;
  check("causal attention", ap,
        [&](const Mat& x) { causal_attention_forward_rows(layer, x, rows, at, scratch); return at.out; },
        [&](const SequenceGrads& g, Mat& dX) {
          causal_attention_forward_rows(layer, X, rows, at, scratch);
          causal_attention_backward_rows(layer, X, at, C, rows, g, dX, scratch);
        });
  FeedForward ff;
  ff.init("ffn", d, 12, rng);
  ParamList fp;
  ff.collect(fp);
  nudge(fp, rng);
  FeedForwardTrace ft;
  check("feed-forward", fp, [&](const Mat& x) { feed_forward_forward_rows(ff, x, ft); return ft.out; },
        [&](const SequenceGrads& g, Mat& dX) {
          feed_forward_forward_rows(ff, X, ft);
          feed_forward_backward_rows(ff, X, ft, C, rows, g, dX, scratch);
        });
  LayerNorm ln;
  ln.init("ln", d);
  ParamList lp;
  ln.collect(lp);
  nudge(lp, rng);
  LayerNormTrace lt;
  check("LayerNorm", lp, [&](const Mat& x) { layer_norm_forward(ln, x, lt); return lt.out; },
        [&](const SequenceGrads& g, Mat& dX) {
          layer_norm_forward(ln, X, lt);
          layer_norm_backward_rows(ln, lt, C, rows, g, dX);
        });
  Dense dense;
  dense.init("dense", d, 5, rng);
  ParamList dp;
  dense.collect(dp);
  nudge(dp, rng);
  const Mat C5 = random_mat(rng, R, 5);
  Leaves leaves(dp, rows.count());
  Mat dX;
  dense_backward_rows(dense, X, C5, rows, leaves.grads(), &dX, scratch);
  const auto loss = [&] {
    Mat Y;
    dense_forward_rows(dense, X, Y);
    return attn::test::weighted_sum(Y, C5);
  };
  for (Param* p : dp) attn::test::check_gradient("dense " + p->name, p->value, leaves.total(*p, rows.count()), loss);
  attn::test::check_gradient("dense dX", X, dX, loss);
}

// kernels.cpp: plain-loop products and softmax (see kernels.h for the rules:
// fixed summation order, no Eigen arithmetic, no fused multiply-add), and the
// register-tiled products of the language model's batched step.
//
// Sections follow kernels.h: 1 products, 2 row and column helpers, 3 softmax,
// 4 register-tiled products.
#include "train/kernels.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "train/fmath.h"
#include "train/lanes.h"

namespace attn::train {

// ---------------------------------------------------------------- 1 products
// The products keep a tile of kTile outputs in a local array -- registers, once
// the compiler has vectorised its loops -- while the inner dimension streams
// past, instead of loading and storing the outputs once per term. Each output
// still gains exactly the same terms in exactly the same order as in the plain
// saxpy loops, so the bits do not change (tests/train/test_train.cpp compares
// them with the plain loops; the golden losses of every model pin them).
namespace {
constexpr int kTile = 32;
}  // namespace

void matmul(const Mat& X, const Mat& W, Mat& Y) {
  Y.setZero(X.rows(), W.cols());
  matmul_add(X, W, Y);
}

void matmul_add(const Mat& X, const Mat& W, Mat& Y) {
  for (Eigen::Index i = 0; i < X.rows(); ++i) vec_mat_add(&X(i, 0), W, &Y(i, 0));
}

void matmul_tn_add(const Mat& X, const Mat& D, Mat& G) {
  // G(p, j) gains X(i, p) D(i, j) for i = 0, 1, ... (skipping X(i, p) == 0), as
  // outer_add row after row would add them; a tile of G's row stays in registers
  // while the rows of D stream past.
  const int n = int(X.rows()), m = int(G.cols());
  for (Eigen::Index p = 0; p < G.rows(); ++p) {
    float* g = G.data() + p * m;
    int j0 = 0;
    for (; j0 + kTile <= m; j0 += kTile) {
      float acc[kTile];
      for (int j = 0; j < kTile; ++j) acc[j] = g[j0 + j];
      for (int i = 0; i < n; ++i) {
        const float a = X(i, p);
        if (a == 0.0f) continue;
        const float* d = &D(i, 0) + j0;
        for (int j = 0; j < kTile; ++j) acc[j] += a * d[j];
      }
      for (int j = 0; j < kTile; ++j) g[j0 + j] = acc[j];
    }
    for (int i = 0; i < n && j0 < m; ++i) {  // the last columns, fewer than a tile
      const float a = X(i, p);
      if (a == 0.0f) continue;
      axpy(a, &D(i, 0) + j0, g + j0, m - j0);
    }
  }
}

void matmul_nt(const Mat& D, const Mat& W, Mat& Y) {
  Y.setZero(D.rows(), W.rows());
  matmul_nt_add(D, W, Y);
}

void matmul_nt_add(const Mat& D, const Mat& W, Mat& Y) {
  // Row i of Y gains, for each k, the sum over j = 0, 1, ... of D(i, j) W(k, j):
  // vec_mat_t_add's dot products. Summing them in the saxpy form over a
  // transposed copy of W (a tile of k at once, j outermost) keeps each sum's
  // order, so the bits are those of the dot products, and the compiler can
  // vectorise across k; the dot products cannot be (their order is fixed).
  const int k = int(W.rows()), m = int(W.cols());
  thread_local std::vector<float> wt, sum;
  wt.resize(size_t(m) * size_t(k));
  sum.resize(size_t(k));
  for (int p = 0; p < k; ++p)
    for (int j = 0; j < m; ++j) wt[size_t(j) * size_t(k) + size_t(p)] = W(p, j);
  for (Eigen::Index i = 0; i < D.rows(); ++i) {
    int p0 = 0;
    for (; p0 + kTile <= k; p0 += kTile) {
      float acc[kTile];
      for (int p = 0; p < kTile; ++p) acc[p] = 0.0f;
      for (int j = 0; j < m; ++j) {  // no zero skipping: 0 * inf
        const float a = D(i, j);
        const float* w = &wt[size_t(j) * size_t(k) + size_t(p0)];
        for (int p = 0; p < kTile; ++p) acc[p] += a * w[p];
      }
      for (int p = 0; p < kTile; ++p) Y(i, p0 + p) += acc[p];
    }
    if (p0 == k) continue;
    std::fill(sum.begin(), sum.end(), 0.0f);  // the last k, fewer than a tile
    for (int j = 0; j < m; ++j) axpy(D(i, j), &wt[size_t(j) * size_t(k) + size_t(p0)], sum.data(), k - p0);
    for (int p = p0; p < k; ++p) Y(i, p) += sum[size_t(p - p0)];
  }
}

void vec_mat(const float* x, const Mat& W, float* y) {
  for (Eigen::Index j = 0; j < W.cols(); ++j) y[j] = 0.0f;
  vec_mat_add(x, W, y);
}

void vec_mat_add(const float* x, const Mat& W, float* y) {
  // y[j] gains x[p] W(p, j) for p = 0, 1, ..., skipping x[p] == 0 (adding 0 * w
  // changes nothing, w being finite); a tile of y stays in registers while the
  // rows of W stream past.
  const int k = int(W.rows()), m = int(W.cols());
  int j0 = 0;
  for (; j0 + kTile <= m; j0 += kTile) {
    float acc[kTile];
    for (int j = 0; j < kTile; ++j) acc[j] = y[j0 + j];
    for (int p = 0; p < k; ++p) {
      const float a = x[p];
      if (a == 0.0f) continue;
      const float* w = W.data() + size_t(p) * size_t(m) + size_t(j0);
      for (int j = 0; j < kTile; ++j) acc[j] += a * w[j];
    }
    for (int j = 0; j < kTile; ++j) y[j0 + j] = acc[j];
  }
  for (int p = 0; p < k && j0 < m; ++p) {  // the last columns, fewer than a tile
    const float a = x[p];
    if (a == 0.0f) continue;
    axpy(a, W.data() + size_t(p) * size_t(m) + size_t(j0), y + j0, m - j0);
  }
}

void vec_mat_t_add(const float* d, const Mat& W, float* y) {
  const int m = int(W.cols());
  for (Eigen::Index k = 0; k < W.rows(); ++k) y[k] += dot(d, W.data() + k * m, m);
}

void outer_add(const float* x, const float* d, Mat& G) {
  const int m = int(G.cols());
  for (Eigen::Index p = 0; p < G.rows(); ++p) {
    const float a = x[p];
    if (a == 0.0f) continue;
    axpy(a, d, G.data() + p * m, m);
  }
}

// ---------------------------------------------------------------- 2 row and column helpers
void add_row_bias(Mat& Y, const Mat& b) {
  for (Eigen::Index i = 0; i < Y.rows(); ++i)
    for (Eigen::Index j = 0; j < Y.cols(); ++j) Y(i, j) += b(0, j);
}

void colsum_add(const Mat& D, Mat& g) {
  for (Eigen::Index i = 0; i < D.rows(); ++i)
    for (Eigen::Index j = 0; j < D.cols(); ++j) g(0, j) += D(i, j);
}

float dot(const float* x, const float* y, int n) {
  float s = 0.0f;
  for (int j = 0; j < n; ++j) s += x[j] * y[j];
  return s;
}

void axpy(float a, const float* x, float* y, int n) {
  for (int j = 0; j < n; ++j) y[j] += a * x[j];
}

// ---------------------------------------------------------------- 3 softmax
void softmax_row(const float* s, int n, float* p) {
  float m = s[0];                                   // pass 1: the maximum
  for (int j = 1; j < n; ++j) m = s[j] > m ? s[j] : m;
  float total = 0.0f;                               // pass 2: exp(s - max), sum
  for (int j = 0; j < n; ++j) {
    p[j] = exp_f(s[j] - m);
    total += p[j];
  }
  const float inv = 1.0f / total;                   // pass 3: normalise (total >= 1)
  for (int j = 0; j < n; ++j) p[j] *= inv;
}

void softmax_row_fast(const float* s, int n, float* p) {
  const float m = max_of(s, n);                     // pass 1: the maximum (lanes.h)
  for (int j = 0; j < n; ++j) p[j] = s[j] - m;  // pass 2: exp(s - max), then the sum
  exp_fast_array(p, p, n);
  float total = 0.0f;
  for (int j = 0; j < n; ++j) total += p[j];
  const float inv = 1.0f / total;                   // pass 3: normalise (total >= 1)
  for (int j = 0; j < n; ++j) p[j] *= inv;
}

void softmax_row_backward(const float* p, const float* dp, int n, float* ds) {
  const float inner = dot(dp, p, n);
  for (int j = 0; j < n; ++j) ds[j] = p[j] * (dp[j] - inner);
}

// ---------------------------------------------------------------- 4 register-tiled products
// Over lanes.h's SIMD layer. A register tile is MR rows by NV vectors of C:
// MR * NV accumulators, NV vectors of B's row p and one broadcast of A(i, p)
// per step -- 4 x 2 = 8 + 2 + 1 registers, within the 16 of x86-64 (V8 keeps
// one of them as scratch, so 4 x 3 would spill in WebAssembly). Each step p
// multiplies and adds 2 MR NV vectors from NV + MR loads. The pointers into A
// and B are bumped by hand (emcc's LLVM runs without loop strength reduction).
namespace {
constexpr int kTileRows = 4;  // MR
constexpr int kTileVecs = 2;  // NV

// The depth loop of a tile is left as written: unrolled by LLVM, each copy's
// exit test splits the loop, and V8 then spilled the accumulators at every
// split. (clang only; GCC does not unroll it.)
#if defined(__clang__)
#define TRAIN_TILE_LOOP _Pragma("clang loop unroll(disable) vectorize(disable)")
#else
#define TRAIN_TILE_LOOP
#endif

// What a product writes, given the finished sum (the same rule for every tile).
template <typename T>
inline T finish(const Product& p, T sum, T c, T bias) {
  if (p.accumulate) return c + sum;
  return p.bias ? sum + bias : sum;
}

// C(i0.., j0..) for MR rows and NV vectors, summing p = k0 .. k1-1. kAT: A is
// read transposed (A(i, p) = A[p * lda + i]): the MR broadcasts of a step are
// then neighbours in memory.
template <int MR, int NV, bool kAT>
inline void tile(const Product& p, int i0, int j0, int k0, int k1) {
  Lanes acc[MR][NV];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) acc[r][v] = Lanes{};
  const size_t lda = size_t(p.lda), ldb = size_t(p.ldb);
  const size_t a_row = kAT ? 1 : lda, a_step = kAT ? lda : 1;
  const float* a = kAT ? p.A + size_t(k0) * lda + size_t(i0) : p.A + size_t(i0) * lda + size_t(k0);
  const float* b = p.B + size_t(k0) * ldb + size_t(j0);
  const float* const a_end = a + size_t(std::max(0, k1 - k0)) * a_step;  // the loop's only test
  TRAIN_TILE_LOOP
  for (; a != a_end; a += a_step, b += ldb) {
    Lanes bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = load_lanes(b + v * kLanes);
    for (int r = 0; r < MR; ++r) {
      const Lanes av = splat_lanes(a[size_t(r) * a_row]);
      for (int v = 0; v < NV; ++v) acc[r][v] += av * bv[v];
    }
  }
  for (int r = 0; r < MR; ++r) {
    float* c = p.C + size_t(i0 + r) * size_t(p.ldc) + size_t(j0);
    for (int v = 0; v < NV; ++v) {
      const Lanes old = p.accumulate ? load_lanes(c + v * kLanes) : Lanes{};
      const Lanes bias = p.bias ? load_lanes(p.bias + j0 + v * kLanes) : Lanes{};
      store_lanes(c + v * kLanes, finish(p, acc[r][v], old, bias));
    }
  }
}

// The last w < kLanes columns, one float at a time, in the same order.
template <int MR, bool kAT>
void tile_tail(const Product& p, int i0, int j0, int w, int k0, int k1) {
  float acc[MR][kLanes] = {};
  for (int k = k0; k < k1; ++k) {
    const float* b = p.B + size_t(k) * size_t(p.ldb) + size_t(j0);
    for (int r = 0; r < MR; ++r) {
      const float a = kAT ? p.A[size_t(k) * size_t(p.lda) + size_t(i0 + r)] : p.A[size_t(i0 + r) * size_t(p.lda) + size_t(k)];
      for (int c = 0; c < w; ++c) acc[r][c] += a * b[c];
    }
  }
  for (int r = 0; r < MR; ++r) {
    float* c = p.C + size_t(i0 + r) * size_t(p.ldc) + size_t(j0);
    for (int q = 0; q < w; ++q) c[q] = finish(p, acc[r][q], c[q], p.bias ? p.bias[j0 + q] : 0.0f);
  }
}

// Rows i0 .. i0+MR-1 across columns 0 .. n_end-1.
template <int MR, bool kAT>
void row_block(const Product& p, int i0, int n_end, int k0, int k1) {
  constexpr int kWide = kTileVecs * kLanes;
  int j0 = 0;
  for (; j0 + kWide <= n_end; j0 += kWide) tile<MR, kTileVecs, kAT>(p, i0, j0, k0, k1);
  for (; j0 + kLanes <= n_end; j0 += kLanes) tile<MR, 1, kAT>(p, i0, j0, k0, k1);
  if (j0 < n_end) tile_tail<MR, kAT>(p, i0, j0, n_end - j0, k0, k1);
}

// Each row block is its own WebAssembly function, reached through this table
// so that the linker's optimiser (binaryen) cannot inline it into its one
// caller: inlined, the tile's loop sat in one large function where V8, which
// unrolls small loops, kept the accumulators in memory between the copies, and
// the products ran at 40% of the speed they reach as separate functions.
using RowBlock = void (*)(const Product&, int, int, int, int);
constexpr RowBlock kRowBlocks[2][kTileRows] = {
    {row_block<1, false>, row_block<2, false>, row_block<3, false>, row_block<4, false>},
    {row_block<1, true>, row_block<2, true>, row_block<3, true>, row_block<4, true>}};

void product_rows(const Product& p, const RowBlock* blocks) {
  for (int i0 = 0; i0 < p.M; i0 += kTileRows) {
    const int mr = std::min(kTileRows, p.M - i0);
    // Zero terms skipped at either end leave a sum that starts from +0 as it was.
    const int k0 = p.a_upper ? std::min(i0, p.K) : 0;
    const int k1 = p.a_lower ? std::min(p.K, i0 + mr) : p.K;
    // c_lower: columns up to the block's last row, rounded up to whole vectors.
    const int n_end = p.c_lower ? std::min(p.N, (i0 + mr + kLanes - 1) / kLanes * kLanes) : p.N;
    blocks[mr - 1](p, i0, n_end, k0, k1);
  }
}
}  // namespace

void product(const Product& p) { product_rows(p, kRowBlocks[p.a_transposed ? 1 : 0]); }

namespace {
// Rows i0 .. i0 + mr - 1 of sequence s's A^T B, summed from +0, into out
// (mr, N) with row stride ldo -- or, with add, out + that sum (the tile's
// accumulate: left + right when the right half of a node is one sequence).
void tree_leaf(const Product& p, const int* starts, int s, int i0, int mr, float* out, int ldo, bool add) {
  Product q = p;
  q.A = p.A + size_t(starts[s]) * size_t(p.lda) + size_t(i0);
  q.B = p.B + size_t(starts[s]) * size_t(p.ldb);
  q.C = out;
  q.ldc = ldo;
  q.M = mr;
  q.K = starts[s + 1] - starts[s];
  q.a_transposed = true;
  q.accumulate = add;
  q.bias = nullptr;
  kRowBlocks[1][mr - 1](q, 0, q.N, 0, q.K);
}

// Rows i0 .. i0 + mr - 1 of node [lo, hi)'s sum into out (mr, N), row stride
// ldo; `levels` holds a buffer of kTileRows x N floats per level below this one.
void tree_rows(const Product& p, const int* starts, int lo, int hi, int i0, int mr, float* out, int ldo, float* levels) {
  if (hi - lo == 1) {
    tree_leaf(p, starts, lo, i0, mr, out, ldo, false);
    return;
  }
  const int mid = tree_split(lo, hi), N = p.N;
  float* deeper = levels + size_t(kTileRows) * size_t(N);
  tree_rows(p, starts, lo, mid, i0, mr, out, ldo, deeper);
  if (hi - mid == 1) {  // left + right in the tile's own epilogue
    tree_leaf(p, starts, mid, i0, mr, out, ldo, true);
    return;
  }
  float* right = levels;
  tree_rows(p, starts, mid, hi, i0, mr, right, N, deeper);
  for (int r = 0; r < mr; ++r) {  // left + right, element by element (sum_leaves's add)
    float* o = out + size_t(r) * size_t(ldo);
    const float* x = right + size_t(r) * size_t(N);
    for (int j = 0; j < N; ++j) o[j] += x[j];
  }
}
}  // namespace

void product_tree(const Product& p, const int* starts, int lo, int hi) {
  if (hi <= lo) return;
  int depth = 1;
  while ((1 << depth) < hi - lo) ++depth;  // levels of the tree below the node
  std::vector<float> levels(size_t(depth + 1) * size_t(kTileRows) * size_t(std::max(1, p.N)));
  for (int i0 = 0; i0 < p.M; i0 += kTileRows) {
    const int mr = std::min(kTileRows, p.M - i0);
    tree_rows(p, starts, lo, hi, i0, mr, p.C + size_t(i0) * size_t(p.ldc), p.ldc, levels.data());
  }
}

void product_tree_reference(const Product& p, const int* starts, int lo, int hi) {
  if (hi <= lo) return;
  if (hi - lo == 1) {
    Product q = p;
    q.A = p.A + size_t(starts[lo]) * size_t(p.lda);
    q.B = p.B + size_t(starts[lo]) * size_t(p.ldb);
    q.K = starts[lo + 1] - starts[lo];
    q.a_transposed = true;
    q.accumulate = false;
    q.bias = nullptr;
    product_reference(q);
    return;
  }
  const int mid = tree_split(lo, hi);
  product_tree_reference(p, starts, lo, mid);
  std::vector<float> right(size_t(p.M) * size_t(p.N));
  Product q = p;
  q.C = right.data();
  q.ldc = p.N;
  product_tree_reference(q, starts, mid, hi);
  for (int i = 0; i < p.M; ++i)
    for (int j = 0; j < p.N; ++j) p.C[size_t(i) * size_t(p.ldc) + size_t(j)] += right[size_t(i) * size_t(p.N) + size_t(j)];
}

void product_reference(const Product& p) {
  for (int i = 0; i < p.M; ++i)
    for (int j = 0; j < p.N; ++j) {
      if (p.c_lower && j > i) continue;
      float sum = 0.0f;
      for (int k = 0; k < p.K; ++k) {
        const float a = p.a_transposed ? p.A[size_t(k) * size_t(p.lda) + size_t(i)] : p.A[size_t(i) * size_t(p.lda) + size_t(k)];
        sum += a * p.B[size_t(k) * size_t(p.ldb) + size_t(j)];
      }
      float& c = p.C[size_t(i) * size_t(p.ldc) + size_t(j)];
      c = finish(p, sum, c, p.bias ? p.bias[j] : 0.0f);
    }
}

namespace {
typedef float Quad __attribute__((vector_size(4 * sizeof(float))));
inline Quad load_quad(const float* p) {
  Quad v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
}  // namespace

void transpose_into(const float* S, int rows, int cols, int lds, float* T, int ldt) {
  // 4 x 4 blocks through vector shuffles (each value is only moved), then the
  // last rows and columns one by one.
  const int rows4 = rows / 4 * 4, cols4 = cols / 4 * 4;
  for (int i = 0; i < rows4; i += 4)
    for (int j = 0; j < cols4; j += 4) {
      const float* s = S + size_t(i) * size_t(lds) + size_t(j);
      const Quad r0 = load_quad(s), r1 = load_quad(s + lds), r2 = load_quad(s + 2 * size_t(lds)),
                 r3 = load_quad(s + 3 * size_t(lds));
      const Quad t0 = __builtin_shufflevector(r0, r1, 0, 4, 1, 5), t1 = __builtin_shufflevector(r0, r1, 2, 6, 3, 7);
      const Quad t2 = __builtin_shufflevector(r2, r3, 0, 4, 1, 5), t3 = __builtin_shufflevector(r2, r3, 2, 6, 3, 7);
      const Quad c[4] = {__builtin_shufflevector(t0, t2, 0, 1, 4, 5), __builtin_shufflevector(t0, t2, 2, 3, 6, 7),
                         __builtin_shufflevector(t1, t3, 0, 1, 4, 5), __builtin_shufflevector(t1, t3, 2, 3, 6, 7)};
      for (int q = 0; q < 4; ++q) std::memcpy(T + size_t(j + q) * size_t(ldt) + size_t(i), &c[q], sizeof(Quad));
    }
  for (int i = 0; i < rows; ++i)
    for (int j = i < rows4 ? cols4 : 0; j < cols; ++j) T[size_t(j) * size_t(ldt) + size_t(i)] = S[size_t(i) * size_t(lds) + size_t(j)];
}

}  // namespace attn::train

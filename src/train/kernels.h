// kernels.h: the few dense kernels training needs, as plain loops with a fixed
// order of additions -- no Eigen arithmetic (whose SIMD reductions and fused
// multiply-adds differ between an AVX2 build and a wasm SIMD128 build), so a
// seeded run gives the same bits natively and in the browser.
//
// Matrices are attn::Mat (row-major); a "row vector" of width m is a (1, m) Mat or
// a float pointer. The products are written in the "saxpy" form
// y[j] += x[p] * W(p, j) with j innermost: every output element still sums its
// terms in the order p = 0, 1, ..., so the compiler may vectorise across j
// without changing a single bit.
//
// Sections: 1 products, 2 row and column helpers, 3 softmax over one row,
// 4 register-tiled products (the language model's batched step).
#pragma once

#include "base/tensor.h"
#include "train/grad_tree.h"

namespace attn::train {

// ---------------------------------------------------------------- 1 products
// Y (n, m) = X (n, k) W (k, m). Y is resized.
void matmul(const Mat& X, const Mat& W, Mat& Y);
// Y (n, m) += X (n, k) W (k, m). Y must already be (n, m).
void matmul_add(const Mat& X, const Mat& W, Mat& Y);
// G (k, m) += X^T D with X (n, k), D (n, m): the weight gradient of Y = X W.
void matmul_tn_add(const Mat& X, const Mat& D, Mat& G);
// Y (n, k) = D W^T with D (n, m), W (k, m): the input gradient of Y = X W. Resized.
void matmul_nt(const Mat& D, const Mat& W, Mat& Y);
// Y (n, k) += D W^T.
void matmul_nt_add(const Mat& D, const Mat& W, Mat& Y);

// One row: y (m) = x (k) W (k, m), and y += x W.
void vec_mat(const float* x, const Mat& W, float* y);
void vec_mat_add(const float* x, const Mat& W, float* y);
// y (k) += d (m) W^T, W (k, m).
void vec_mat_t_add(const float* d, const Mat& W, float* y);
// G (k, m) += x (k)^T d (m): the weight gradient of one row.
void outer_add(const float* x, const float* d, Mat& G);

// ---------------------------------------------------------------- 2 row and column helpers
// Y(i, :) += b for every row; b is (1, m).
void add_row_bias(Mat& Y, const Mat& b);
// g (1, m) += sum over rows of D (n, m): the bias gradient.
void colsum_add(const Mat& D, Mat& g);
// sum_j x[j] y[j] in order j = 0, 1, ...
float dot(const float* x, const float* y, int n);
// y[j] += a x[j]
void axpy(float a, const float* x, float* y, int n);

// ---------------------------------------------------------------- 3 softmax over one row
// p = softmax(s), n >= 1 entries. Pass 1 finds the maximum and subtracts it (so
// exp never overflows and the largest term is exactly 1); pass 2 exponentiates
// (fmath.h exp) and sums; pass 3 divides. Uses no mask: callers pass only the
// visible entries.
void softmax_row(const float* s, int n, float* p);
// ds = p .* (dp - sum_j dp_j p_j): the softmax backward for one row.
void softmax_row_backward(const float* p, const float* dp, int n, float* ds);
// The language model's softmax (batched_layers.h, since issue 36): the same
// three passes in float with fmath.h's exp_fast, whose loop vectorises (exp_f
// works in double, one element at a time: it took an eighth of a batched
// step). The sum is taken in order j = 0, 1, ...; the same bits everywhere.
void softmax_row_fast(const float* s, int n, float* p);

// ---------------------------------------------------------------- 4 register-tiled products
// C (M, N) = A (M, K) B (K, N) on raw row-major storage: every product of the
// language model's batched training step (char_lm.h), whose products run over
// all the rows of a batch at once -- the forward product X W (+ bias), the
// input gradient D W^T (W transposed first, transpose_into), the weight
// gradient X^T D (A read transposed), and attention's Q K^T, P V and their
// gradients. Each output element is
//   sum = A(i, 0) B(0, j) + A(i, 1) B(1, j) + ... + A(i, K-1) B(K-1, j),
// added in that order starting from +0, every multiply and every add rounded
// on its own (no fused multiply-add: see kernels.cpp), and then written as
// C = sum, C = sum + bias[j], or C = C + sum. That order does not depend on
// where the element falls in a register tile, so product() and the plain loops
// of product_reference() give the same bits, natively and in WebAssembly.
// (Section 1's kernels also skip zero terms of A; for finite B that changes no
// bit of a sum that starts from +0, so these give section 1's bits too.)
struct Product {
  int M = 0, N = 0, K = 0;
  const float* A = nullptr;
  int lda = 0;
  bool a_transposed = false;    // A(i, p) = A[i * lda + p], or A[p * lda + i] when true
  const float* B = nullptr;
  int ldb = 0;                  // B(p, j) = B[p * ldb + j]
  float* C = nullptr;
  int ldc = 0;                  // C(i, j) = C[i * ldc + j]
  const float* bias = nullptr;  // (N): C = sum + bias[j]
  bool accumulate = false;      // C = C + sum (bias must then be null)
  // Causal attention's square products skip what is known to be zero or is not
  // read (M == K or N == M): the results they do write have the same bits.
  bool a_lower = false;         // A(i, p) == 0 for p > i: the sum stops at p = i
  bool a_upper = false;         // A(i, p) == 0 for p < i: the sum starts at p = i
  bool c_lower = false;         // only C(i, j), j <= i, is wanted; the rest is left unspecified
};
// C (M, N) = A (M, K) B (K, N) on row-major storage with the given row strides.
inline Product product_of(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
  Product p;
  p.M = M;
  p.N = N;
  p.K = K;
  p.A = A;
  p.lda = lda;
  p.B = B;
  p.ldb = ldb;
  p.C = C;
  p.ldc = ldc;
  return p;
}
// Register tiles over a thin SIMD layer (kernels.cpp).
void product(const Product& p);
// The same sums as three plain loops, i, j, then p: the reference product() is
// tested against, bit for bit, over a sweep of shapes (tests/train/test_train.cpp).
void product_reference(const Product& p);
// T (cols, rows) = S (rows, cols)^T; S with row stride lds, T with row stride ldt.
void transpose_into(const float* S, int rows, int cols, int lds, float* T, int ldt);

// A batch's weight gradient, summed over its sequences along grad_tree.h's
// tree inside the product: C (M, N) = the sum, over the node [lo, hi) of
// sequences, of A_s^T B_s, where sequence s is rows starts[s] ..
// starts[s + 1] - 1 of A (read transposed) and of B. Each sequence's product
// is summed from +0 as product() sums it, and the sequences' products are then
// added along the tree: node [lo, hi) = node [lo, mid) + node [mid, hi), mid =
// tree_split(lo, hi). So C has the bits of each sequence's product in a buffer
// of its own followed by GradientShare::sum_leaves -- but no such buffer is
// written: the partial sums stay in a few row buffers of L1 size. p gives M,
// N, A, lda, B, ldb, C and ldc (A is read transposed; the rest is unused).
void product_tree(const Product& p, const int* starts, int lo, int hi);
// The same from product_reference, one sequence at a time into whole buffers.
void product_tree_reference(const Product& p, const int* starts, int lo, int hi);

}  // namespace attn::train

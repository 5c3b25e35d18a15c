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
// Sections: 1 products, 2 row and column helpers, 3 softmax over one row.
#pragma once

#include "base/tensor.h"

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

}  // namespace attn::train

// batched_layers.cpp: the decoder's layers over stacked sequences (see
// batched_layers.h). Each pass says which one-sequence pass it matches.
#include "train/batched_layers.h"

#include <algorithm>
#include <cmath>

#include "train/kernels.h"

namespace attn::train {

// ---------------------------------------------------------------- 2 dense
namespace {
// Y (R, m) = X (R, k) W (k, m) (+ bias (m)).
void rows_times(const Mat& X, const Mat& W, Mat& Y, const float* bias) {
  const int k = int(W.rows()), m = int(W.cols());
  Y.resize(X.rows(), m);
  Product p = product_of(int(X.rows()), m, k, X.data(), k, W.data(), m, Y.data(), m);
  p.bias = bias;
  product(p);
}

// Each sequence's bias gradient: its rows of dY summed into its buffer, row
// after row (colsum_add's order).
void bias_gradient_rows(const Mat& dY, const RowBatch& rows, const Param& b, const SequenceGrads& grads) {
  const int m = int(dY.cols());
  for (int s = 0; s < rows.count(); ++s) {
    float* g = grads.of(b, s);
    for (int i = rows.begin(s); i < rows.begin(s) + rows.length(s); ++i)
      for (int j = 0; j < m; ++j) g[j] += dY(i, j);
  }
}
}  // namespace

void dense_forward_rows(const Dense& layer, const Mat& X, Mat& Y) { rows_times(X, layer.W.value, Y, layer.b.value.data()); }

void product_rows(const Mat& X, const Mat& W, Mat& Y) { rows_times(X, W, Y, nullptr); }

void input_gradient_rows(const Mat& dY, const Mat& W, Mat& dX, bool accumulate, BatchScratch& scratch) {
  // dX(i, p) = sum over j of dY(i, j) W(p, j), j = 0, 1, ...: matmul_nt's sums,
  // as a product with W^T (m, k) so that the tiles read it by rows.
  const int k = int(W.rows()), m = int(W.cols());
  scratch.transposed.resize(size_t(k) * size_t(m));
  transpose_into(W.data(), k, m, m, scratch.transposed.data(), k);
  if (!accumulate) dX.resize(dY.rows(), k);
  Product p = product_of(int(dY.rows()), k, m, dY.data(), m, scratch.transposed.data(), k, dX.data(), k);
  p.accumulate = accumulate;
  product(p);
}

void weight_gradient_rows(const Mat& X, const Mat& dY, const RowBatch& rows, const Param& W,
                          const SequenceGrads& grads) {
  // G_s(p, j) += sum over sequence s's rows i of X(i, p) dY(i, j), in row order:
  // matmul_tn_add's sums on one sequence, from its zeroed buffer.
  const int k = int(X.cols()), m = int(dY.cols());
  if (grads.nodes) {  // summed along the tree within the product, the nodes' sums written
    for (const TreeNode& node : *grads.nodes) {
      const Product p = product_of(k, m, 0, X.data(), k, dY.data(), m, grads.of(W, node.begin - grads.first), m);
      product_tree(p, rows.start.data(), node.begin - grads.first, node.end - grads.first);
    }
    return;
  }
  for (int s = 0; s < rows.count(); ++s) {
    Product p = product_of(k, m, rows.length(s), X.data() + size_t(rows.begin(s)) * size_t(k), k,
                           dY.data() + size_t(rows.begin(s)) * size_t(m), m, grads.of(W, s), m);
    p.a_transposed = true;
    p.accumulate = true;
    product(p);
  }
}

void dense_backward_rows(const Dense& layer, const Mat& X, const Mat& dY, const RowBatch& rows,
                         const SequenceGrads& grads, Mat* dX, BatchScratch& scratch) {
  // Dense::backward: dW += X^T dY, db += column sums of dY, dX = dY W^T.
  weight_gradient_rows(X, dY, rows, layer.W, grads);
  bias_gradient_rows(dY, rows, layer.b, grads);
  if (dX) input_gradient_rows(dY, layer.W.value, *dX, false, scratch);
}

// ---------------------------------------------------------------- 3 feed-forward and LayerNorm
void feed_forward_forward_rows(const FeedForward& ff, const Mat& X, FeedForwardTrace& tr) {
  dense_forward_rows(ff.up, X, tr.pre);
  gelu_forward(tr.pre, tr.s, tr.hidden);
  dense_forward_rows(ff.down, tr.hidden, tr.out);
}

void feed_forward_backward_rows(const FeedForward& ff, const Mat& X, const FeedForwardTrace& tr, const Mat& dOut,
                                const RowBatch& rows, const SequenceGrads& grads, Mat& dX, BatchScratch& scratch) {
  dense_backward_rows(ff.down, tr.hidden, dOut, rows, grads, &scratch.hidden_grad, scratch);
  gelu_backward(tr.pre, tr.s, scratch.hidden_grad, scratch.pre_grad);
  dense_backward_rows(ff.up, X, scratch.pre_grad, rows, grads, &dX, scratch);
}

void layer_norm_backward_rows(const LayerNorm& ln, const LayerNormTrace& tr, const Mat& dOut, const RowBatch& rows,
                              const SequenceGrads& grads, Mat& dX) {
  dX.resize(tr.xhat.rows(), tr.xhat.cols());
  for (int s = 0; s < rows.count(); ++s)
    layer_norm_backward_rows(ln, tr, dOut, rows.begin(s), rows.begin(s) + rows.length(s), grads.of(ln.gamma, s),
                             grads.of(ln.beta, s), dX);
}

}  // namespace attn::train

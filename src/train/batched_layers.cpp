// batched_layers.cpp: the decoder's layers over stacked sequences (see
// batched_layers.h). Each pass says which one-sequence pass it matches.
#include "train/batched_layers.h"

#include <algorithm>
#include <cmath>

#include "train/kernels.h"

namespace attn::train {

// ---------------------------------------------------------------- 2 dense
namespace {
// C (M, N) = A (M, K) B (K, N) on row-major storage with the given row strides.
Product product_of(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
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

// ---------------------------------------------------------------- 4 causal multi-head self-attention
const float* CausalAttentionTrace::p_at(const RowBatch& rows, int s, int t) const {
  const size_t n = size_t(rows.length(s));
  return P.data() + p_offset[size_t(s)] + size_t(t) * n * n;
}

namespace {
// One head's block of a (R, h d_h) matrix: sequence s's rows, head t's columns.
const float* head_block(const Mat& M, const RowBatch& rows, int s, int off) {
  return M.data() + size_t(rows.begin(s)) * size_t(M.cols()) + size_t(off);
}
float* head_block(Mat& M, const RowBatch& rows, int s, int off) {
  return M.data() + size_t(rows.begin(s)) * size_t(M.cols()) + size_t(off);
}

}  // namespace

void causal_attention_forward_rows(const SelfAttentionLayer& layer, const Mat& X, const RowBatch& rows,
                                   CausalAttentionTrace& tr, BatchScratch& scratch, const AttentionEdits* edits) {
  // self_attention_forward with causal = true, sequence by sequence.
  const int dh = layer.d_head, hd = layer.heads * dh;
  const float scale = 1.0f / std::sqrt(float(dh));  // keeps score variance ~1 as d_h grows
  tr.head_scale = edits ? edits->head_scale : std::vector<float>();
  tr.fixed_head = edits && edits->row >= 0 ? edits->row_head : -1;
  tr.fixed_row = tr.fixed_head >= 0 ? edits->row : -1;
  product_rows(X, layer.W_Q.value, tr.Q);
  product_rows(X, layer.W_K.value, tr.K);
  product_rows(X, layer.W_V.value, tr.V);
  tr.p_offset.assign(size_t(rows.count()), 0);
  size_t total = 0;
  for (int s = 0; s < rows.count(); ++s) {
    tr.p_offset[size_t(s)] = total;
    total += size_t(layer.heads) * size_t(rows.length(s)) * size_t(rows.length(s));
  }
  tr.P.assign(total, 0.0f);
  tr.concat.resize(X.rows(), hd);
  for (int s = 0; s < rows.count(); ++s) {
    const int n = rows.length(s);
    scratch.keys_t.resize(size_t(dh) * size_t(n));
    scratch.square.resize(size_t(n) * size_t(n));
    for (int h = 0; h < layer.heads; ++h) {
      const int off = h * dh;
      float* P = tr.P.data() + tr.p_offset[size_t(s)] + size_t(h) * size_t(n) * size_t(n);
      // 1. scores S (n, n) = Q_h K_h^T, each a dot product over d_h in order; only j <= i.
      transpose_into(head_block(tr.K, rows, s, off), n, dh, hd, scratch.keys_t.data(), n);
      Product sp = product_of(n, n, dh, head_block(tr.Q, rows, s, off), hd, scratch.keys_t.data(), n,
                                  scratch.square.data(), n);
      sp.c_lower = true;
      product(sp);
      // 2. each row's softmax over its i + 1 visible keys (P stays 0 after them).
      for (int i = 0; i < n; ++i) {
        float* srow = scratch.square.data() + size_t(i) * size_t(n);
        if (h == tr.fixed_head && i == tr.fixed_row) {
          override_row_weights(edits->row_weights, i + 1, P + size_t(i) * size_t(n));
          continue;
        }
        for (int j = 0; j <= i; ++j) srow[j] *= scale;
        softmax_row_fast(srow, i + 1, P + size_t(i) * size_t(n));
      }
      // 3. Z_h = P V_h: P's zeros after the diagonal add nothing, so the sum stops there.
      Product zp = product_of(n, dh, n, P, n, head_block(tr.V, rows, s, off), hd,
                                  head_block(tr.concat, rows, s, off), hd);
      zp.a_lower = true;
      product(zp);
      const float hs = edited_head_scale(tr.head_scale, h);
      if (hs != 1.0f)
        for (int i = 0; i < n; ++i)
          for (int c = 0; c < dh; ++c) tr.concat(rows.begin(s) + i, off + c) *= hs;
    }
  }
  if (layer.output_projection)
    product_rows(tr.concat, layer.W_O.value, tr.out);
  else
    tr.out = tr.concat;
}

void causal_attention_backward_rows(const SelfAttentionLayer& layer, const Mat& X, const CausalAttentionTrace& tr,
                                    const Mat& dOut, const RowBatch& rows, const SequenceGrads& grads, Mat& dX,
                                    BatchScratch& scratch) {
  // self_attention_backward with causal = true and no edits, sequence by sequence.
  const int dh = layer.d_head, hd = layer.heads * dh, R = int(X.rows());
  const float scale = 1.0f / std::sqrt(float(dh));
  const Mat* dconcat_of = &dOut;
  if (layer.output_projection) {
    weight_gradient_rows(tr.concat, dOut, rows, layer.W_O, grads);
    input_gradient_rows(dOut, layer.W_O.value, scratch.dconcat, false, scratch);
    dconcat_of = &scratch.dconcat;
  }
  const Mat& dconcat = *dconcat_of;
  Mat& dQ = scratch.dQ;
  Mat& dK = scratch.dK;
  Mat& dV = scratch.dV;
  for (Mat* m : {&dQ, &dK, &dV}) m->resize(R, hd);  // every element is written below
  for (int s = 0; s < rows.count(); ++s) {
    const int n = rows.length(s);
    scratch.values_t.resize(size_t(dh) * size_t(n));
    scratch.square.resize(size_t(n) * size_t(n));
    scratch.square_grad.resize(size_t(n) * size_t(n));
    for (int h = 0; h < layer.heads; ++h) {
      const int off = h * dh;
      const float* P = tr.p_at(rows, s, h);
      const float* dZ = head_block(dconcat, rows, s, off);
      // 1. dP (n, n) = dZ_h V_h^T (dot products over d_h; only j <= i are read).
      transpose_into(head_block(tr.V, rows, s, off), n, dh, hd, scratch.values_t.data(), n);
      Product dp = product_of(n, n, dh, dZ, hd, scratch.values_t.data(), n, scratch.square.data(), n);
      dp.c_lower = true;
      product(dp);
      // 2. dV_h = P^T dZ_h: dV_j gains P(i, j) dZ_i for i = j, j + 1, ... in order.
      Product vp = product_of(n, dh, n, P, n, dZ, hd, head_block(dV, rows, s, off), hd);
      vp.a_transposed = true;
      vp.a_upper = true;
      product(vp);
      // 3. G(i, j) = the softmax's backward of row i, times the score scale; 0 after i.
      float* G = scratch.square_grad.data();
      for (int i = 0; i < n; ++i) {
        float* g = G + size_t(i) * size_t(n);
        softmax_row_backward(P + size_t(i) * size_t(n), scratch.square.data() + size_t(i) * size_t(n), i + 1, g);
        for (int j = 0; j <= i; ++j) g[j] *= scale;
        for (int j = i + 1; j < n; ++j) g[j] = 0.0f;
      }
      // 4. dQ_h = G K_h (over j <= i) and dK_h = G^T Q_h (over i >= j).
      Product qp = product_of(n, dh, n, G, n, head_block(tr.K, rows, s, off), hd, head_block(dQ, rows, s, off), hd);
      qp.a_lower = true;
      product(qp);
      Product kp = product_of(n, dh, n, G, n, head_block(tr.Q, rows, s, off), hd, head_block(dK, rows, s, off), hd);
      kp.a_transposed = true;
      kp.a_upper = true;
      product(kp);
    }
  }
  weight_gradient_rows(X, dQ, rows, layer.W_Q, grads);
  weight_gradient_rows(X, dK, rows, layer.W_K, grads);
  weight_gradient_rows(X, dV, rows, layer.W_V, grads);
  input_gradient_rows(dQ, layer.W_Q.value, dX, false, scratch);
  input_gradient_rows(dK, layer.W_K.value, dX, true, scratch);
  input_gradient_rows(dV, layer.W_V.value, dX, true, scratch);
}

}  // namespace attn::train

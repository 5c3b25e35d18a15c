// batched_layers.h: the language model's layers (char_lm.h) over a batch of
// sequences stacked row by row, so that every matrix product of a training
// step runs over all R rows of the batch at once (kernels.h, section 4),
// while each sequence's parameter gradients go to a buffer of their own:
// grad_tree.h then adds those up in a fixed order, whatever worker computed
// which sequence.
//
// Row by row, every value is the one the one-sequence layers compute
// (layers.h, attention_layer.h, block_layers.h): the products sum in the same
// order, the rest is the same code -- except attention's softmax, which takes
// its exponentials from the float exp_fast (softmax_row_fast). So sequence s's
// gradient buffer holds, bit for bit, what that sequence's backward pass alone
// adds to zeroed Param::grads through the dense, feed-forward and LayerNorm
// layers, and the same to about a float's rounding through attention
// (tests/train/test_batched.cpp). Causal self-attention only (the decoder's),
// without padding.
//
// Sections: 1 the batch and its gradient buffers, 2 dense, 3 feed-forward and
// LayerNorm, 4 causal multi-head self-attention.
#pragma once

#include <vector>

#include "base/tensor.h"
#include "train/attention_layer.h"
#include "train/block_layers.h"
#include "train/grad_tree.h"
#include "train/layers.h"

namespace attn::train {

// ---------------------------------------------------------------- 1 the batch
// Sequence s is rows [start[s], start[s + 1]) of every (R, .) matrix.
struct RowBatch {
  std::vector<int> start = {0};

  void clear() { start.assign(1, 0); }
  void add(int rows) { start.push_back(start.back() + rows); }
  int count() const { return int(start.size()) - 1; }
  int rows() const { return start.back(); }
  int begin(int s) const { return start[size_t(s)]; }
  int length(int s) const { return start[size_t(s) + 1] - start[size_t(s)]; }
};

// Sequence s's gradient of parameter p: `stride` floats per sequence from
// `base`, each laid out by `layout`. Backward passes ADD into it.
//
// With `nodes` (a GradientShare's, its sequence 0 being example `first`), the
// weight matrices' gradients are summed along the tree inside the product
// (kernels.h, product_tree) and only the nodes' sums are written, each where
// the share keeps it (of(p, node.begin - first)); the other buffers of those
// matrices are left as they were, and GradientShare::sum_leaves must not be
// run over them.
struct SequenceGrads {
  const GradientLayout* layout = nullptr;
  float* base = nullptr;
  size_t stride = 0;
  const std::vector<TreeNode>* nodes = nullptr;
  int first = 0;

  float* of(const Param& p, int s) const { return base + size_t(s) * stride + layout->offset_of(p); }
};

// Storage the passes below reuse from call to call (no allocation once a
// step has run): a transposed weight matrix, one head's square matrices, the
// backward passes' inner gradients.
struct BatchScratch {
  std::vector<float> transposed, keys_t, values_t, square, square_grad;
  Mat hidden_grad, pre_grad;   // feed-forward: dL/d(hidden), dL/d(pre)
  Mat dconcat, dQ, dK, dV;     // attention
};

// ---------------------------------------------------------------- 2 dense
// Y (R, d_out) = X W + b: Dense::forward's bits.
void dense_forward_rows(const Dense& layer, const Mat& X, Mat& Y);
// Y (R, m) = X W (no bias).
void product_rows(const Mat& X, const Mat& W, Mat& Y);
// dX (R, k) = dY W^T, or dX += dY W^T with accumulate (dX already (R, k)).
void input_gradient_rows(const Mat& dY, const Mat& W, Mat& dX, bool accumulate, BatchScratch& scratch);
// Each sequence's X_s^T dY_s (its rows only) added into its gradient of W
// (with grads.nodes: the nodes' sums written instead, see SequenceGrads).
void weight_gradient_rows(const Mat& X, const Mat& dY, const RowBatch& rows, const Param& W,
                          const SequenceGrads& grads);
// dW and db of each sequence added into its buffers; dX = dY W^T when dX is not null.
void dense_backward_rows(const Dense& layer, const Mat& X, const Mat& dY, const RowBatch& rows,
                         const SequenceGrads& grads, Mat* dX, BatchScratch& scratch);

// ---------------------------------------------------------------- 3 feed-forward and LayerNorm
// The traces do not copy their input (tr.X stays empty): the backward pass
// is given X again.
void feed_forward_forward_rows(const FeedForward& ff, const Mat& X, FeedForwardTrace& tr);
void feed_forward_backward_rows(const FeedForward& ff, const Mat& X, const FeedForwardTrace& tr, const Mat& dOut,
                                const RowBatch& rows, const SequenceGrads& grads, Mat& dX, BatchScratch& scratch);
// LayerNorm's forward pass is row by row already (layer_norm_forward).
void layer_norm_backward_rows(const LayerNorm& ln, const LayerNormTrace& tr, const Mat& dOut, const RowBatch& rows,
                              const SequenceGrads& grads, Mat& dX);

// ---------------------------------------------------------------- 4 causal multi-head self-attention
// Per sequence s of n_s rows and head t, on the columns t d_h .. (t+1) d_h - 1:
//   S = Q_t K_t^T (n_s, n_s), only j <= i;  P(i, :) = softmax(S(i, 0..i) / sqrt(d_h)), 0 after i;
//   Z_t = P V_t; concat; out = concat W_O.
// The softmax is softmax_row_fast (kernels.h), the decoder's since issue 36;
// everything else is self_attention_forward's arithmetic.
struct CausalAttentionTrace {
  Mat Q, K, V;                    // (R, h d_h)
  std::vector<float> P;           // sequence s, head t: (n_s, n_s) row-major at p_at(s, t)
  std::vector<size_t> p_offset;   // where sequence s's heads start
  Mat concat;                     // (R, h d_h), each head times its head_scale
  Mat out;                        // (R, d_out)
  std::vector<float> head_scale;  // as applied (empty: all 1)
  int fixed_head = -1, fixed_row = -1;  // the overridden row (in every sequence), if any

  const float* p_at(const RowBatch& rows, int s, int t) const;
};
// edits as for self_attention_forward; the row override applies to row `row`
// of every sequence long enough to have it.
void causal_attention_forward_rows(const SelfAttentionLayer& layer, const Mat& X, const RowBatch& rows,
                                   CausalAttentionTrace& tr, BatchScratch& scratch,
                                   const AttentionEdits* edits = nullptr);
// X (R, d_model) the forward pass's input, dOut (R, d_out) -> each sequence's
// weight gradients added; dX (R, d_model) written. The forward pass must have
// had no edits (training has none).
void causal_attention_backward_rows(const SelfAttentionLayer& layer, const Mat& X, const CausalAttentionTrace& tr,
                                    const Mat& dOut, const RowBatch& rows, const SequenceGrads& grads, Mat& dX,
                                    BatchScratch& scratch);

}  // namespace attn::train

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
// LayerNorm. Causal multi-head self-attention, with the decoder's options, is
// in decoder_attention.h.
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

}  // namespace attn::train

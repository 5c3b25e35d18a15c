// attention_layer.h: multi-head self-attention as a trainable layer -- its
// forward pass, a backward pass that ADDS the weight gradients into
// Param::grad, the trace the backward pass reads, and edits of a trained
// layer's heads for inspection. Rows are tokens; no batch dimension. Shared by
// every attention model of the lab (the long-range classifier, the sentiment
// model, the induction model, the character language model).
//
// All arithmetic goes through kernels.h and fmath.h (fixed order, no fused
// multiply-add, own exp), so a seeded run is bit-identical natively and in
// WebAssembly.
#pragma once

#include <string>
#include <vector>

#include "base/rng.h"
#include "base/tensor.h"
#include "train/param.h"

namespace attn::train {

//   Q = X W_Q, K = X W_K, V = X W_V                     (n, h*d_h)
//   head t: P_t = softmax(Q_t K_t^T / sqrt(d_h))        (n, n)
//           Z_t = P_t V_t                               (n, d_h)
//   concat = [Z_0 | ... | Z_{h-1}]                      (n, h*d_h)
//   out = concat W_O      (n, d_out)   or out = concat when there is no W_O
// Causal (a decoder): query i sees keys 0..i only -- the softmax runs over those
// i + 1 scores and P(i, j > i) = 0, exactly as if the later scores were -inf.
// Padding (a review padded to a batch's common length): with `valid` = n_v <= n
// the positions n_v.. are pads, masked out of every softmax the same way (their
// scores -inf, their weights exactly 0); nothing reads them, so their own rows
// are not computed (0 in Q, K, V, P and the output) and get no gradient. The real
// rows are then bit for bit those of the unpadded input (tests/train checks this,
// and checks the masked softmax against masked_softmax of attn/softmax.h).
struct SelfAttentionLayer {
  int d_model = 0, heads = 1, d_head = 0;
  bool output_projection = true;
  bool causal = false;
  Param W_Q, W_K, W_V;  // (d_model, h*d_h)
  Param W_O;            // (h*d_h, d_out) when output_projection

  // kv_heads > 0 makes W_K and W_V (d_model, kv_heads*d_h): the decoder's
  // shared key/value heads (decoder_attention.h; only its passes read them).
  void init(const std::string& name, int d_model, int heads, int d_head, int d_out, Rng& rng, int kv_heads = 0);
  void collect(ParamList& out);
};

// Edits of a trained layer's heads, applied in the forward pass without
// retraining (the backward pass follows them too):
//   head_scale[t]  multiplies head t's output Z_t (0 ablates the head, 1 keeps
//                  it; missing entries are 1);
//   row override   head row_head's weights in row `row` become row_weights
//                  (negative entries count as 0, then renormalised to sum 1 over
//                  the visible keys; all zero gives the uniform row). That row
//                  no longer depends on Q and K, so its score gradient is 0.
struct AttentionEdits {
  std::vector<float> head_scale;
  int row_head = -1;  // < 0: no override
  int row = -1;
  std::vector<float> row_weights;
};
// Head h's factor in head_scale (1 when missing).
float edited_head_scale(const std::vector<float>& head_scale, int h);
// An overridden row's weights p (m): `wanted` over the first m keys, negative
// entries as 0, renormalised (uniform when nothing is left).
void override_row_weights(const std::vector<float>& wanted, int m, float* p);

struct SelfAttentionTrace {
  Mat X;                // (n, d_model)
  Mat Q, K, V;          // (n, h*d_h)
  std::vector<Mat> P;   // h x (n, n) attention weights, rows sum to 1
  Mat concat;           // (n, h*d_h) head outputs, each times its head_scale
  Mat out;              // (n, d_out)
  std::vector<float> head_scale;  // as applied (empty: all 1)
  int fixed_head = -1, fixed_row = -1;  // the overridden row, if any
  int valid = 0;        // rows 0..valid-1 are real; the rest are masked padding
};

// valid < 0 (or >= n): no padding. See "Padding" above.
void self_attention_forward(const SelfAttentionLayer& layer, const Mat& X, SelfAttentionTrace& tr,
                            const AttentionEdits* edits = nullptr, int valid = -1);
// dOut (n, d_out). Adds weight gradients; writes dX (n, d_model).
void self_attention_backward(SelfAttentionLayer& layer, const SelfAttentionTrace& tr, const Mat& dOut,
                             Mat& dX);

}  // namespace attn::train

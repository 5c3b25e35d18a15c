// multihead.h: multi-head attention (Vaswani et al. 2017), self and cross, and
// a stack of self-attention layers (so "more heads" can be set against "more
// layers").
//
//   X_q (n_q, d_model) gives the queries, X_kv (n_k, d_model) keys and values;
//   self-attention is X_q = X_kv = X.
//   Q = X_q W_Q, K = X_kv W_K, V = X_kv W_V        each (n, h*d_h)
//   head t uses columns [t*d_h, (t+1)*d_h):  Q_t (n_q, d_h), K_t, V_t (n_k, d_h)
//   Z_t = attention(Q_t, K_t, V_t)                 (n_q, d_h), weights_t (n_q, n_k)
//   concat = [Z_0 | Z_1 | ... | Z_{h-1}]           (n_q, h*d_h)
//   output = concat W_O                            (n_q, d_out)  (= concat without W_O)
//
// Every head runs attention_forward (attention.h) in soft mode, so the score
// kinds and masks are exactly the single-head ones.
//
// Sections: 1 configuration, 2 forward, 3 backward, 4 stacked layers,
// 5 parameter initialisation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/attention.h"
#include "base/tensor.h"

namespace attn {

// ---------------------------------------------------------------- 1 configuration
struct MultiHeadDesc {
  int heads = 1;                      // h; d_h = W_Q.cols() / h (must divide evenly)
  ScoreKind score = ScoreKind::scaled_dot;  // scaled_dot divides by sqrt(d_h)
  float temperature = 1.0f;
  MaskKind mask = MaskKind::none;     // explicit_mask reads MultiHeadParams::mask
  std::vector<int> key_lengths;       // MaskKind::padding (see MaskDesc)
};

struct MultiHeadParams {
  Mat W_Q;  // (d_model, h*d_h)
  Mat W_K;  // (d_model, h*d_h)
  Mat W_V;  // (d_model, h*d_h)
  Mat W_O;  // (h*d_h, d_out), or empty for no output projection
  // ScoreKind::general / additive only: one ScoreParams per head (size h),
  // shapes as in scores.h with d_q = d_k = d_h. Empty for the other kinds.
  std::vector<ScoreParams> head_score;
  BoolMat mask;  // MaskKind::explicit_mask: (n_q, n_k)
};

struct MultiHeadResult {
  std::vector<Mat> q;        // h x (n_q, d_h)
  std::vector<Mat> k;        // h x (n_k, d_h)
  std::vector<Mat> v;        // h x (n_k, d_h)
  std::vector<Mat> scores;   // h x (n_q, n_k)
  std::vector<Mat> weights;  // h x (n_q, n_k)
  std::vector<Mat> head_output;  // h x (n_q, d_h)
  Mat concat;                // (n_q, h*d_h)
  Mat output;                // (n_q, d_out); equals concat when W_O is empty
  Warnings warnings;
  std::string error;         // non-empty: invalid input, everything else empty
  bool ok() const { return error.empty(); }
};

// ---------------------------------------------------------------- 2 forward
// Cross attention (queries from X_q, keys/values from X_kv). Shapes are checked;
// a mismatch is reported in result.error.
MultiHeadResult multihead_forward(const Mat& X_q, const Mat& X_kv, const MultiHeadDesc& desc,
                                  const MultiHeadParams& params);
// Self-attention: multihead_forward(X, X, ...).
MultiHeadResult self_attention_forward(const Mat& X, const MultiHeadDesc& desc,
                                       const MultiHeadParams& params);

// ---------------------------------------------------------------- 3 backward
struct MultiHeadGrads {
  Mat dX_q;   // (n_q, d_model)
  Mat dX_kv;  // (n_k, d_model)
  Mat dX;     // self_attention_backward only: dX_q + dX_kv (X plays both roles)
  Mat dW_Q, dW_K, dW_V;  // (d_model, h*d_h)
  Mat dW_O;   // (h*d_h, d_out); empty when W_O is empty
  std::vector<ScoreGrads> head_score;  // general/additive: per-head dW / dW_q, dW_k, dv_a
  std::string error;
  bool ok() const { return error.empty(); }
};

// `forward` must come from multihead_forward on the same inputs;
// grad_output: dL/doutput (n_q, d_out).
MultiHeadGrads multihead_backward(const Mat& X_q, const Mat& X_kv, const MultiHeadDesc& desc,
                                  const MultiHeadParams& params, const MultiHeadResult& forward,
                                  const Mat& grad_output);
MultiHeadGrads self_attention_backward(const Mat& X, const MultiHeadDesc& desc,
                                       const MultiHeadParams& params, const MultiHeadResult& forward,
                                       const Mat& grad_output);

// ---------------------------------------------------------------- 4 stacked layers
// L self-attention layers, each with its own weights: X_{l+1} = MHA_l(X_l), or
// X_{l+1} = X_l + MHA_l(X_l) with `residual`. Every layer's output must have
// width d_model (W_O (h*d_h, d_model), or h*d_h == d_model without W_O).
struct StackDesc {
  MultiHeadDesc layer;   // shared by every layer (heads, score kind, mask)
  bool residual = false;
};

struct StackResult {
  std::vector<MultiHeadResult> layers;  // L per-layer results (inputs: X, X_1, ...)
  std::vector<Mat> inputs;              // L inputs X_0 = X, X_1, ..., X_{L-1}
  Mat output;                           // (n, d_model) X_L
  Warnings warnings;
  std::string error;
  bool ok() const { return error.empty(); }
};

StackResult stacked_self_attention_forward(const Mat& X, const StackDesc& desc,
                                           const std::vector<MultiHeadParams>& layers);

struct StackGrads {
  Mat dX;                              // (n, d_model)
  std::vector<MultiHeadGrads> layers;  // per-layer weight grads (dW_Q, ...)
  std::string error;
  bool ok() const { return error.empty(); }
};

StackGrads stacked_self_attention_backward(const StackDesc& desc,
                                           const std::vector<MultiHeadParams>& layers,
                                           const StackResult& forward, const Mat& grad_output);

// ---------------------------------------------------------------- 5 initialisation
struct MultiHeadInitDesc {
  int d_model = 8;
  int heads = 2;
  int d_head = 4;       // d_h
  int d_out = 0;        // 0 = no W_O; else W_O is (h*d_h, d_out)
  ScoreKind score = ScoreKind::scaled_dot;  // general/additive also get head_score
  int d_additive = 0;   // additive hidden size d_a; 0 = d_h
  uint64_t seed = 1;
};
// Uniform in +/- 1/sqrt(fan_in) from attn::Rng(seed).
MultiHeadParams init_multihead_params(const MultiHeadInitDesc& desc);

}  // namespace attn

// transformer.h: one Transformer block (Vaswani et al. 2017) -- multi-head
// self-attention and a position-wise feed-forward layer, each wrapped in a
// residual connection and a LayerNorm -- forward and backward.
//
// Weights follow the rest of the core: x times W, one row per token.
//   x (n, d_model); y = x W + b with W (d_in, d_out) and b (d_out).
//   (A framework that stores a Linear's weight as (d_out, d_in), such as
//   PyTorch's nn.Linear or in_proj_weight, holds the transpose of our W.)
//
// Attention sublayer, width w = h * d_h (usually w = d_model):
//   Q = z W_Q + b_Q, K = z W_K + b_K, V = z W_V + b_V   each (n, w)
//   head t: weights_t = softmax(Q_t K_t^T / sqrt(d_h) [+ causal mask])  (n, n)
//   attn(z) = [head_0 | ... | head_{h-1}] W_O + b_O    (n, d_model)
// Feed-forward sublayer, hidden width d_ff:
//   ffn(z) = act(z W_1 + b_1) W_2 + b_2                (n, d_model)
// LayerNorm over each row (biased variance, as PyTorch's nn.LayerNorm):
//   LN(s) = gamma * (s - mean) / sqrt(var + eps) + beta
// Placement:
//   post-norm (norm_first = false, the 2017 paper and PyTorch's default):
//     h = LN1(x + attn(x));     y = LN2(h + ffn(h))
//   pre-norm (norm_first = true):
//     h = x + attn(LN1(x));     y = h + ffn(LN2(h))
//
// Sections: 1 configuration and activations, 2 LayerNorm, 3 feed-forward,
// 4 the block forward, 5 the block backward, 6 initialisation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/multihead.h"
#include "base/tensor.h"

namespace attn {

// ---------------------------------------------------------------- 1 configuration and activations
enum class Activation {
  relu,  // max(0, x)
  gelu   // x * Phi(x) = 0.5 x (1 + erf(x / sqrt 2)): the exact (erf) form, as
         // PyTorch's nn.GELU() default, not the tanh approximation
};

// "relu", "gelu"; the parser returns false for other names.
const char* activation_name(Activation a);
bool parse_activation(const std::string& name, Activation* a);

// Element-wise act(x) and act'(x) (ReLU's derivative at exactly 0 is taken as 0).
Mat activate(const Mat& x, Activation a);
Mat activate_derivative(const Mat& x, Activation a);

struct TransformerBlockDesc {
  int heads = 1;               // h; d_h = W_Q.cols() / h (must divide evenly)
  bool norm_first = false;     // false: post-norm, true: pre-norm (see the top)
  bool causal = false;         // query i sees keys 0..i only
  Activation activation = Activation::relu;
  float eps = 1e-5f;           // LayerNorm's eps (PyTorch's default); > 0
};

// Every learned parameter. The gradients use the same struct (same shapes).
struct TransformerBlockParams {
  Mat W_Q, W_K, W_V;       // (d_model, w), w = h * d_h
  Vec b_Q, b_K, b_V;       // (w)
  Mat W_O;                 // (w, d_model)
  Vec b_O;                 // (d_model)
  Vec ln1_gamma, ln1_beta; // (d_model) LN1: after attention (post) / before it (pre)
  Vec ln2_gamma, ln2_beta; // (d_model) LN2: after the FFN (post) / before it (pre)
  Mat W_1;                 // (d_model, d_ff)
  Vec b_1;                 // (d_ff)
  Mat W_2;                 // (d_ff, d_model)
  Vec b_2;                 // (d_model)
};

// ---------------------------------------------------------------- 2 LayerNorm
struct LayerNormResult {
  Mat normalized;  // (n, d) (s - mean) / sqrt(var + eps), before gamma and beta
  Vec inv_std;     // (n) 1 / sqrt(var + eps) per row
  Mat output;      // (n, d) gamma * normalized + beta
};

// Normalises each row of s (n, d); gamma and beta are (d). Shapes are the
// caller's to check (transformer_block_forward does).
LayerNormResult layer_norm_forward(const Mat& s, const Vec& gamma, const Vec& beta, float eps);

struct LayerNormGrads {
  Mat ds;      // (n, d)
  Vec dgamma;  // (d)
  Vec dbeta;   // (d)
};

// grad_output: dL/doutput (n, d); `forward` from layer_norm_forward.
LayerNormGrads layer_norm_backward(const LayerNormResult& forward, const Vec& gamma, const Mat& grad_output);

// ---------------------------------------------------------------- 3 feed-forward
struct FeedForwardResult {
  Mat pre;     // (n, d_ff) z W_1 + b_1
  Mat hidden;  // (n, d_ff) act(pre)
  Mat output;  // (n, d_model) hidden W_2 + b_2
};

FeedForwardResult feed_forward(const Mat& z, const Mat& W_1, const Vec& b_1, const Mat& W_2, const Vec& b_2,
                               Activation activation);

struct FeedForwardGrads {
  Mat dz;   // (n, d_model)
  Mat dW_1; // (d_model, d_ff)
  Vec db_1; // (d_ff)
  Mat dW_2; // (d_ff, d_model)
  Vec db_2; // (d_model)
};

FeedForwardGrads feed_forward_backward(const Mat& z, const Mat& W_1, const Mat& W_2, Activation activation,
                                       const FeedForwardResult& forward, const Mat& grad_output);

// ---------------------------------------------------------------- 4 the block forward
struct TransformerBlockResult {
  Mat attention_input;        // (n, d_model) what attention reads: x (post) or LN1(x) (pre)
  MultiHeadResult attention;  // per-head q, k, v (biases included), scores, weights (n, n)
  Mat attention_output;       // (n, d_model) attn(...) = concat W_O + b_O
  LayerNormResult norm1;      // post: LN1(x + attn);  pre: LN1(x)
  Mat mid;                    // (n, d_model) h, the residual stream between the sublayers
  Mat ffn_input;              // (n, d_model) h (post) or LN2(h) (pre)
  FeedForwardResult ffn;      // hidden (n, d_ff), output (n, d_model)
  LayerNormResult norm2;      // post: LN2(h + ffn);  pre: LN2(h)
  Mat output;                 // (n, d_model) y
  Warnings warnings;
  std::string error;          // non-empty: invalid input, everything else empty
  bool ok() const { return error.empty(); }
};

// Checks every shape (and heads, eps) and reports the first problem in
// result.error; never throws.
TransformerBlockResult transformer_block_forward(const Mat& X, const TransformerBlockDesc& desc,
                                                 const TransformerBlockParams& params);

// ---------------------------------------------------------------- 5 the block backward
struct TransformerBlockGrads {
  Mat dX;                        // (n, d_model)
  TransformerBlockParams params; // dL/d every parameter, shaped like the parameters
  std::string error;
  bool ok() const { return error.empty(); }
};

// `forward` must come from transformer_block_forward on the same inputs;
// grad_output: dL/dy (n, d_model).
TransformerBlockGrads transformer_block_backward(const Mat& X, const TransformerBlockDesc& desc,
                                                 const TransformerBlockParams& params,
                                                 const TransformerBlockResult& forward, const Mat& grad_output);

// ---------------------------------------------------------------- 6 initialisation
struct TransformerInitDesc {
  int d_model = 8;   // w = d_model: any heads dividing d_model can use these
  int d_ff = 16;
  uint64_t seed = 1;
};
// Weights uniform in +/- 1/sqrt(fan_in) from attn::Rng(seed); biases 0;
// gamma 1, beta 0.
TransformerBlockParams init_transformer_block_params(const TransformerInitDesc& desc);

}  // namespace attn

// block_layers.h: the parts of a Transformer block that layers.h does not have --
// LayerNorm, the GELU activation and the position-wise feed-forward layer --
// each with its forward pass, a backward pass that ADDS parameter gradients, and
// the trace the backward pass reads. Rows are tokens; no batch dimension.
//
//   LayerNorm   y = gamma * (x - mean) / sqrt(var + eps) + beta, per row (n, d);
//               biased variance (divides by d), as PyTorch's nn.LayerNorm
//   GELU        x Phi(x) in its tanh form (Hendrycks & Gimpel 2016, the one
//               GPT-2 uses): 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3),
//               computed as x s with s = sigmoid(2 u) = 1 / (1 + e^{-2u}) -- the
//               same function, since 0.5 (1 + tanh u) = sigmoid(2 u) -- with
//               fmath.h's exp_fast: the erf form of attn/transformer.h needs
//               std::erf, whose last bit may differ between C libraries, and this
//               gives the same bits natively and in WebAssembly. The two forms
//               differ by less than 5e-4.
//   FFN         y = GELU(x W_1 + b_1) W_2 + b_2   (n, d) -> (n, d_ff) -> (n, d)
//
// Sections: 1 LayerNorm, 2 GELU, 3 feed-forward.
#pragma once

#include <string>
#include <vector>

#include "base/rng.h"
#include "base/tensor.h"
#include "train/layers.h"
#include "train/param.h"

namespace attn::train {

// ---------------------------------------------------------------- 1 LayerNorm
struct LayerNorm {
  Param gamma;  // (1, d), starts at 1
  Param beta;   // (1, d), starts at 0
  float eps = 1e-5f;

  void init(const std::string& name, int d);
  void collect(ParamList& out) { out.push_back(&gamma); out.push_back(&beta); }
};

struct LayerNormTrace {
  Mat xhat;                   // (n, d) (x - mean) / sqrt(var + eps)
  std::vector<float> inv_std; // (n)
  Mat out;                    // (n, d)
};

void layer_norm_forward(const LayerNorm& ln, const Mat& X, LayerNormTrace& tr);
// dOut (n, d). gamma, beta gradients added; dX (n, d) written:
//   dxhat = dOut * gamma,
//   dX = inv_std * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat))   per row
// (mean and inv_std depend on every entry of the row, hence the two means).
void layer_norm_backward(LayerNorm& ln, const LayerNormTrace& tr, const Mat& dOut, Mat& dX);
// The same for rows [begin, end) only, adding their gamma and beta gradients
// into dgamma and dbeta (d each) and writing those rows of dX (already (n, d)).
void layer_norm_backward_rows(const LayerNorm& ln, const LayerNormTrace& tr, const Mat& dOut, int begin, int end,
                              float* dgamma, float* dbeta, Mat& dX);

// ---------------------------------------------------------------- 2 GELU
// out = GELU(pre), and s = sigmoid(2 u), which the backward pass reuses. All (n, m).
void gelu_forward(const Mat& pre, Mat& s, Mat& out);
// dPre = dOut * GELU'(pre), GELU'(x) = s + x s (1 - s) 2 u',
// u' = sqrt(2/pi) (1 + 3 * 0.044715 x^2).
void gelu_backward(const Mat& pre, const Mat& s, const Mat& dOut, Mat& dPre);

// ---------------------------------------------------------------- 3 feed-forward
struct FeedForward {
  Dense up;    // (d, d_ff)
  Dense down;  // (d_ff, d)

  void init(const std::string& name, int d, int d_ff, Rng& rng);
  void collect(ParamList& out) { up.collect(out); down.collect(out); }
};

struct FeedForwardTrace {
  Mat X;       // (n, d) input
  Mat pre;     // (n, d_ff) X W_1 + b_1
  Mat s;       // (n, d_ff) GELU's sigmoid(2 u)
  Mat hidden;  // (n, d_ff) GELU(pre)
  Mat out;     // (n, d)
};

void feed_forward_forward(const FeedForward& ff, const Mat& X, FeedForwardTrace& tr);
// dOut (n, d) -> weight gradients added, dX (n, d) written.
void feed_forward_backward(FeedForward& ff, const FeedForwardTrace& tr, const Mat& dOut, Mat& dX);

}  // namespace attn::train

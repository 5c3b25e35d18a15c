// attention.h: one attention call over (Q, K, V) -- score -> normalise ->
// weighted sum -- in every flavour the lab teaches: soft (global), hard, local
// (Luong's local-m and local-p) and Gumbel-softmax.
//
//   Q (n_q, d_q), K (n_k, d_k), V (n_k, d_v)
//   scores  (n_q, n_k) = score(Q, K) / temperature
//   weights (n_q, n_k) = normalise(scores)         (mode-dependent, see Mode)
//   output  (n_q, d_v) = weights V
//
// Sections: 1 configuration, 2 forward, 3 backward (+ local-p initialisation),
// 4 enum names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/scores.h"
#include "attn/softmax.h"
#include "base/tensor.h"

namespace attn {

// ---------------------------------------------------------------- 1 configuration
enum class Mode {
  // softmax over every allowed key; rows sum to 1; differentiable.
  soft,
  // exactly one key per query gets weight 1 (one-hot row), chosen by HardKind.
  // Not differentiable w.r.t. the scores: attention_backward returns a gradient
  // for V only, and dQ, dK and the score-parameter grads are ZERO (the choice
  // is piecewise constant in Q and K; training it needs REINFORCE or Gumbel).
  hard,
  // softmax restricted to a window |j - p_i| <= window around a centre p_i
  // chosen by CenterKind. local-m: rows sum to 1. local-p: the windowed softmax
  // is multiplied by a Gaussian exp(-(j - p_i)^2 / (2 sigma^2)), sigma =
  // window / 2, so local-p rows sum to LESS than 1 (Luong et al. 2015).
  // local-p backward reaches W_p and v_p through the Gaussian factor (and the
  // windowed softmax); which keys are inside the window is a step function of
  // p_i and contributes no gradient.
  local,
  // Gumbel-softmax: softmax((scores + g) / gumbel_tau) with g_ij = -log(-log u_ij),
  // u_ij uniform from attn::Rng(seed). The noise is fixed by the seed, so the
  // backward pass is the softmax backward of (scores + g) / gumbel_tau. Small
  // tau pushes rows towards one-hot samples; large tau towards uniform.
  gumbel
};

enum class HardKind {
  argmax,  // the highest-scoring allowed key (the first one on ties)
  sample   // one key drawn from the soft weights, attn::Rng(seed), row by row
};

enum class CenterKind {
  monotonic,  // local-m: p_i = i (query i looks around key i)
  predictive  // local-p: p_i = n_k * sigmoid(v_p . tanh(q_i W_p)), a real number
};

// Plain aggregate; the defaults are global scaled-dot attention with no mask.
struct AttentionDesc {
  ScoreKind score = ScoreKind::scaled_dot;
  float temperature = 1.0f;         // divides the scores; > 0
  MaskKind mask = MaskKind::none;   // explicit_mask reads AttentionParams::mask
  std::vector<int> key_lengths;     // MaskKind::padding: size 1 or n_q (see MaskDesc)
  Mode mode = Mode::soft;
  HardKind hard = HardKind::argmax; // Mode::hard
  uint64_t seed = 0;                // Mode::hard + sample, Mode::gumbel
  int window = 2;                   // Mode::local: half-width D (>= 0; >= 1 for local-p)
  CenterKind center = CenterKind::monotonic;  // Mode::local
  float gumbel_tau = 1.0f;          // Mode::gumbel: softmax temperature tau; > 0
};

// Learned parameters and the explicit mask; set only what the desc uses.
struct AttentionParams {
  Mat W;     // ScoreKind::general:  (d_q, d_k)
  Mat W_q;   // ScoreKind::additive: (d_q, d_a)
  Mat W_k;   // ScoreKind::additive: (d_k, d_a)
  Vec v_a;   // ScoreKind::additive: (d_a)
  Mat W_p;   // local-p: (d_q, d_p)
  Vec v_p;   // local-p: (d_p)
  BoolMat mask;  // MaskKind::explicit_mask: (n_q, n_k), true = may attend
};

struct AttentionResult {
  Mat scores;    // (n_q, n_k) score(Q, K) / temperature, before any mask
  Mat weights;   // (n_q, n_k) attention weights (masked keys are exactly 0)
  Mat output;    // (n_q, d_v) weights V
  Vec centers;   // Mode::local: (n_q) window centre p_i; empty otherwise
  Mat gumbel_noise;  // Mode::gumbel: (n_q, n_k) the g_ij added to the scores
  BoolMat allowed;   // (n_q, n_k) the mask actually applied (window included)
  Warnings warnings;
  std::string error; // non-empty: invalid input, every matrix above is empty
  bool ok() const { return error.empty(); }
};

// ---------------------------------------------------------------- 2 forward
// Validates every shape the desc needs (Q/K/V rows and columns, score params,
// W_p/v_p, explicit mask, key_lengths, temperature/tau/window) and reports the
// first problem in result.error; never throws or aborts.
AttentionResult attention_forward(const Mat& Q, const Mat& K, const Mat& V, const AttentionDesc& desc,
                                  const AttentionParams& params);

// ---------------------------------------------------------------- 3 backward
// Gradients of a loss L given dL/doutput. Matrices that do not apply to the desc
// are left empty (e.g. dW unless score == general; dW_p/dv_p unless local-p).
struct AttentionGrads {
  Mat dQ;    // (n_q, d_q)   zero for Mode::hard
  Mat dK;    // (n_k, d_k)   zero for Mode::hard
  Mat dV;    // (n_k, d_v)
  Mat dW;    // general
  Mat dW_q;  // additive
  Mat dW_k;  // additive
  Vec dv_a;  // additive
  Mat dW_p;  // local-p
  Vec dv_p;  // local-p
  std::string error;  // non-empty: invalid input (same checks as forward, plus
                      // forward must be ok and grad_output (n_q, d_v))
  bool ok() const { return error.empty(); }
};

// `forward` must be the result of attention_forward on exactly these inputs.
// grad_output: dL/doutput, (n_q, d_v).
AttentionGrads attention_backward(const Mat& Q, const Mat& K, const Mat& V, const AttentionDesc& desc,
                                  const AttentionParams& params, const AttentionResult& forward,
                                  const Mat& grad_output);

// Random local-p parameters W_p (d_q, d_p) and v_p (d_p), uniform in
// +/- 1/sqrt(fan_in) from attn::Rng(seed); other fields of *params are untouched.
void init_local_p_params(AttentionParams* params, int d_q, int d_p, uint64_t seed);

// ---------------------------------------------------------------- 4 names
// "soft", "hard", "local", "gumbel" / "argmax", "sample" / "monotonic", "predictive".
// The parsers also accept "global" (soft), "local-m"/"local_m" (monotonic) and
// "local-p"/"local_p" (predictive); they return false for unknown names.
const char* mode_name(Mode mode);
const char* hard_kind_name(HardKind kind);
const char* center_kind_name(CenterKind kind);
bool parse_mode(const std::string& name, Mode* mode);
bool parse_hard_kind(const std::string& name, HardKind* kind);
bool parse_center_kind(const std::string& name, CenterKind* kind);

}  // namespace attn

// scores.h: scoring functions -- stage 1 of score -> normalise -> weighted sum.
// Each compares every query row with every key row: Q (n_q, d_q), K (n_k, d_k)
// -> scores (n_q, n_k), where scores(i, j) says how relevant key j is to query i.
//
// Sections: 1 kinds and parameters, 2 forward (one function per kind, plus one
// dispatcher that also applies the temperature and checks shapes), 3 backward,
// 4 parameter initialisation, 5 enum names.
#pragma once

#include <cstdint>
#include <string>

#include "base/tensor.h"

namespace attn {

// ---------------------------------------------------------------- 1 kinds and parameters
enum class ScoreKind {
  dot,         // q . k                                (needs d_q == d_k)
  scaled_dot,  // q . k / sqrt(d_k)                    (needs d_q == d_k)
  general,     // q W k^T, "bilinear" (Luong); W is (d_q, d_k)
  additive,    // v_a . tanh(q W_q + k W_k) (Bahdanau); W_q (d_q, d_a), W_k (d_k, d_a), v_a (d_a)
  cosine       // q . k / (|q|_eps |k|_eps), see cosine_scores (needs d_q == d_k)
};

// Learned parameters of the scoring function; only the ones the kind uses must
// be set (the others may stay empty). x-times-W convention: a query is a row.
struct ScoreParams {
  Mat W;    // general:  (d_q, d_k)
  Mat W_q;  // additive: (d_q, d_a)
  Mat W_k;  // additive: (d_k, d_a)
  Vec v_a;  // additive: (d_a)
};

struct ScoreDesc {
  ScoreKind kind = ScoreKind::scaled_dot;
  // Every score is divided by the temperature: < 1 sharpens the softmax that
  // follows, > 1 flattens it. Must be > 0 and finite.
  float temperature = 1.0f;
};

// Guard for cosine similarity: a row's norm is taken as sqrt(|x|^2 + eps^2), so
// a zero vector scores 0 against everything instead of dividing by zero. For any
// vector with |x| >> eps the result equals the textbook cosine (relative change
// about (eps/|x|)^2 / 2), and the guard keeps the function smooth everywhere,
// so its gradient is defined everywhere too.
constexpr float kCosineEps = 1e-6f;

// ---------------------------------------------------------------- 2 forward
// Plain kinds, no temperature, no shape checks (callers must pass valid shapes;
// use compute_scores for checked input). All return scores: (n_q, n_k).
Mat dot_scores(const Mat& Q, const Mat& K);
Mat scaled_dot_scores(const Mat& Q, const Mat& K);
Mat general_scores(const Mat& Q, const Mat& K, const Mat& W);
Mat additive_scores(const Mat& Q, const Mat& K, const Mat& W_q, const Mat& W_k, const Vec& v_a);
Mat cosine_scores(const Mat& Q, const Mat& K);

// Returns "" when Q, K and the parameters the kind needs have consistent shapes
// (and the temperature is > 0 and finite), else a message naming the mismatch.
std::string check_score_shapes(const Mat& Q, const Mat& K, const ScoreDesc& desc,
                               const ScoreParams& params);

// Checked dispatcher: scores (n_q, n_k) = kind(Q, K) / temperature. On a shape
// error returns an empty matrix and sets *error (when not null).
Mat compute_scores(const Mat& Q, const Mat& K, const ScoreDesc& desc, const ScoreParams& params,
                   std::string* error = nullptr);

// ---------------------------------------------------------------- 3 backward
// Gradients of a loss L through compute_scores (temperature included). Matrices
// for parameters the kind does not use are left empty.
struct ScoreGrads {
  Mat dQ;   // (n_q, d_q)
  Mat dK;   // (n_k, d_k)
  Mat dW;   // general:  (d_q, d_k)
  Mat dW_q; // additive: (d_q, d_a)
  Mat dW_k; // additive: (d_k, d_a)
  Vec dv_a; // additive: (d_a)
};

// grad_scores: dL/dscores (n_q, n_k). Inputs must be the ones given to
// compute_scores (shapes are assumed valid: check them with check_score_shapes).
ScoreGrads scores_backward(const Mat& Q, const Mat& K, const ScoreDesc& desc,
                           const ScoreParams& params, const Mat& grad_scores);

// ---------------------------------------------------------------- 4 initialisation
// Random parameters for `kind` (uniform in +/- 1/sqrt(fan_in), from attn::Rng
// with `seed`); d_a is the additive hidden size. Kinds without parameters get
// an empty ScoreParams.
ScoreParams init_score_params(ScoreKind kind, int d_q, int d_k, int d_a, uint64_t seed);

// ---------------------------------------------------------------- 5 names
// "dot", "scaled_dot", "general", "additive", "cosine".
const char* score_kind_name(ScoreKind kind);
// Returns false (and leaves *kind alone) for an unknown name. Also accepts
// "bilinear" for general.
bool parse_score_kind(const std::string& name, ScoreKind* kind);

}  // namespace attn

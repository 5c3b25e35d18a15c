// attention.cpp: attention_forward / attention_backward for every Mode.
//
// Sections: 1 helpers (validation, local windows, Gumbel noise, hard choice),
// 2 forward, 3 backward, 4 initialisation and names.
#include "attn/attention.h"

#include <cmath>
#include <limits>

#include "base/rng.h"

namespace attn {

// ---------------------------------------------------------------- 1 helpers
namespace {

ScoreDesc score_desc_of(const AttentionDesc& desc) { return ScoreDesc{desc.score, desc.temperature}; }

ScoreParams score_params_of(const AttentionParams& p) { return ScoreParams{p.W, p.W_q, p.W_k, p.v_a}; }

MaskDesc mask_desc_of(const AttentionDesc& desc, const AttentionParams& params) {
  return MaskDesc{desc.mask, desc.key_lengths, params.mask};
}

bool is_local_p(const AttentionDesc& desc) {
  return desc.mode == Mode::local && desc.center == CenterKind::predictive;
}

// Every check attention_forward needs; "" when the inputs are consistent.
std::string validate(const Mat& Q, const Mat& K, const Mat& V, const AttentionDesc& desc,
                     const AttentionParams& params) {
  if (Q.rows() == 0 || K.rows() == 0) return "attention: Q and K need at least one row";
  if (V.rows() != K.rows())
    return "attention: V " + shape_str(V.rows(), V.cols()) + " must have one row per key; K is " +
           shape_str(K.rows(), K.cols());
  if (V.cols() == 0) return "attention: V needs at least one column";
  std::string problem = check_score_shapes(Q, K, score_desc_of(desc), score_params_of(params));
  if (!problem.empty()) return "attention: " + problem;
  build_mask(mask_desc_of(desc, params), int(Q.rows()), int(K.rows()), &problem);
  if (!problem.empty()) return "attention: " + problem;
  if (desc.mode == Mode::gumbel && (!(desc.gumbel_tau > 0.0f) || !std::isfinite(desc.gumbel_tau)))
    return "attention: gumbel_tau must be > 0 and finite";
  if (desc.mode == Mode::local) {
    if (desc.window < 0) return "attention: local window must be >= 0";
    if (is_local_p(desc)) {
      if (desc.window < 1) return "attention: local-p needs window >= 1 (sigma = window / 2 must be > 0)";
      if (params.v_p.size() == 0) return "attention: local-p needs v_p (d_p) with d_p >= 1";
      if (params.W_p.rows() != Q.cols() || params.W_p.cols() != params.v_p.size())
        return "attention: local-p needs W_p (d_q, d_p) = " + shape_str(Q.cols(), params.v_p.size()) +
               ", got " + shape_str(params.W_p.rows(), params.W_p.cols());
    }
  }
  return "";
}

// Intermediates of the local-p centre p_i = n_k * sigmoid(v_p . tanh(q_i W_p)).
struct PredictedCenters {
  Mat hidden;  // (n_q, d_p) tanh(Q W_p)
  Vec p;       // (n_q) centres in [0, n_k]
};

PredictedCenters predict_centers(const Mat& Q, const Mat& W_p, const Vec& v_p, Eigen::Index n_k) {
  PredictedCenters c;
  c.hidden = (Q * W_p).array().tanh().matrix();          // (n_q, d_p)
  const Eigen::ArrayXf z = (c.hidden * v_p).array();     // (n_q)
  c.p = (float(n_k) / (1.0f + (-z).exp())).matrix();     // exp(-z) -> inf gives p = 0, no NaN
  return c;
}

// Gaussian factor of local-p: G(i, j) = exp(-(j - p_i)^2 / (2 sigma^2)). (n_q, n_k)
Mat gaussian_factor(const Vec& centers, Eigen::Index n_k, float sigma) {
  Mat G(centers.size(), n_k);
  for (Eigen::Index i = 0; i < centers.size(); ++i)
    for (Eigen::Index j = 0; j < n_k; ++j) {
      const float offset = float(j) - centers[i];
      G(i, j) = std::exp(-offset * offset / (2.0f * sigma * sigma));
    }
  return G;
}

// Gumbel(0, 1) noise, row by row from one Rng(seed): g = -log(-log u), u in (0, 1).
Mat gumbel_noise(Eigen::Index n_q, Eigen::Index n_k, uint64_t seed) {
  Rng rng(seed);
  Mat G(n_q, n_k);
  for (Eigen::Index i = 0; i < n_q; ++i)
    for (Eigen::Index j = 0; j < n_k; ++j) G(i, j) = -std::log(-std::log(rng.uniform_open()));
  return G;
}

// One-hot weights (n_q, n_k) from the argmax of the allowed, non-NaN scores
// (first index on ties). Rows where every allowed score is -inf or NaN stay 0.
Mat argmax_weights(const Mat& S, const BoolMat& allowed, Warnings* warnings) {
  Mat P = Mat::Zero(S.rows(), S.cols());
  long empty_rows = 0;
  Eigen::Index first_empty = -1;
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    Eigen::Index best = -1;
    for (Eigen::Index j = 0; j < S.cols(); ++j) {
      const float s = S(i, j);
      if (!allowed(i, j) || std::isnan(s) || s == -std::numeric_limits<float>::infinity()) continue;
      if (best < 0 || s > S(i, best)) best = j;
    }
    if (best >= 0) {
      P(i, best) = 1.0f;
    } else {
      if (first_empty < 0) first_empty = i;
      ++empty_rows;
    }
  }
  if (empty_rows > 0)
    warnings->push_back("hard attention: " + std::to_string(empty_rows) + " row(s) fully masked (first: row " +
                        std::to_string(first_empty) + "); their weights and output are zero");
  return P;
}

// One-hot weights drawn from the rows of `soft` (one Rng draw per query row, in
// row order, even for all-zero rows, so row i always uses the i-th draw).
Mat sampled_weights(const Mat& soft, uint64_t seed) {
  Rng rng(seed);
  Mat P = Mat::Zero(soft.rows(), soft.cols());
  for (Eigen::Index i = 0; i < soft.rows(); ++i) {
    const float u = rng.uniform();  // [0, 1)
    Eigen::Index chosen = -1, last_positive = -1;
    float cumulative = 0.0f;
    for (Eigen::Index j = 0; j < soft.cols(); ++j) {
      if (soft(i, j) <= 0.0f) continue;
      last_positive = j;
      cumulative += soft(i, j);
      if (u < cumulative) { chosen = j; break; }
    }
    // Rounding can leave the cumulative sum just under u: take the last key
    // that had any weight. A fully masked row has none and stays 0.
    if (chosen < 0) chosen = last_positive;
    if (chosen >= 0) P(i, chosen) = 1.0f;
  }
  return P;
}

}  // namespace

// ---------------------------------------------------------------- 2 forward
AttentionResult attention_forward(const Mat& Q, const Mat& K, const Mat& V, const AttentionDesc& desc,
                                  const AttentionParams& params) {
  AttentionResult r;
  r.error = validate(Q, K, V, desc, params);
  if (!r.ok()) return r;
  const Eigen::Index n_q = Q.rows(), n_k = K.rows();

  // Stage 1: scores (n_q, n_k), temperature included.
  r.scores = compute_scores(Q, K, score_desc_of(desc), score_params_of(params));
  r.allowed = build_mask(mask_desc_of(desc, params), int(n_q), int(n_k));  // (n_q, n_k)

  // Stage 2: weights (n_q, n_k), by mode.
  switch (desc.mode) {
    case Mode::soft:
      r.weights = masked_softmax(r.scores, r.allowed, &r.warnings);
      break;
    case Mode::hard:
      if (desc.hard == HardKind::argmax)
        r.weights = argmax_weights(r.scores, r.allowed, &r.warnings);
      else
        r.weights = sampled_weights(masked_softmax(r.scores, r.allowed, &r.warnings), desc.seed);
      break;
    case Mode::gumbel:
      r.gumbel_noise = gumbel_noise(n_q, n_k, desc.seed);
      r.weights = masked_softmax((r.scores + r.gumbel_noise) / desc.gumbel_tau, r.allowed, &r.warnings);
      break;
    case Mode::local: {
      // 2a: the centre of each query's window.
      if (is_local_p(desc)) {
        r.centers = predict_centers(Q, params.W_p, params.v_p, n_k).p;
      } else {
        r.centers.resize(n_q);
        for (Eigen::Index i = 0; i < n_q; ++i) r.centers[i] = float(i);
      }
      // 2b: hide keys outside |j - p_i| <= D, on top of the caller's mask.
      for (Eigen::Index i = 0; i < n_q; ++i)
        for (Eigen::Index j = 0; j < n_k; ++j)
          if (std::abs(float(j) - r.centers[i]) > float(desc.window)) r.allowed(i, j) = false;
      // 2c: softmax inside the window; local-p then fades it with a Gaussian.
      r.weights = masked_softmax(r.scores, r.allowed, &r.warnings);
      if (is_local_p(desc))
        r.weights.array() *= gaussian_factor(r.centers, n_k, 0.5f * float(desc.window)).array();
      break;
    }
  }

  // Stage 3: output (n_q, d_v) = weights (n_q, n_k) V (n_k, d_v).
  r.output = r.weights * V;
  return r;
}

// ---------------------------------------------------------------- 3 backward
AttentionGrads attention_backward(const Mat& Q, const Mat& K, const Mat& V, const AttentionDesc& desc,
                                  const AttentionParams& params, const AttentionResult& forward,
                                  const Mat& grad_output) {
  AttentionGrads g;
  g.error = validate(Q, K, V, desc, params);
  if (!g.ok()) return g;
  if (!forward.ok()) {
    g.error = "attention backward: the forward result has an error: " + forward.error;
    return g;
  }
  const Eigen::Index n_q = Q.rows(), n_k = K.rows();
  if (forward.weights.rows() != n_q || forward.weights.cols() != n_k || forward.allowed.rows() != n_q ||
      forward.allowed.cols() != n_k || forward.scores.rows() != n_q || forward.scores.cols() != n_k) {
    g.error = "attention backward: the forward result does not match these inputs";
    return g;
  }
  if (grad_output.rows() != n_q || grad_output.cols() != V.cols()) {
    g.error = "attention backward: grad_output is " + shape_str(grad_output.rows(), grad_output.cols()) +
              ", expected (n_q, d_v) = " + shape_str(n_q, V.cols());
    return g;
  }
  const Mat& P = forward.weights;  // (n_q, n_k)

  // Pass 1: output = P V.
  g.dV = P.transpose() * grad_output;       // (n_k, d_v)
  const Mat dP = grad_output * V.transpose();  // (n_q, n_k)

  // Pass 2: back through the normalisation to dL/dscores (n_q, n_k).
  Mat dS;
  Vec dcenters;  // local-p: dL/dp_i (n_q)
  switch (desc.mode) {
    case Mode::soft:
      dS = softmax_backward(P, dP);
      break;
    case Mode::hard:
      // A one-hot choice is piecewise constant in the scores: zero gradient.
      dS = Mat::Zero(n_q, n_k);
      break;
    case Mode::gumbel:
      // P = softmax((S + g) / tau) with g fixed by the seed.
      dS = softmax_backward(P, dP) / desc.gumbel_tau;
      break;
    case Mode::local:
      if (!is_local_p(desc)) {
        dS = softmax_backward(P, dP);
      } else {
        // P = A .* G with A the windowed softmax and G the Gaussian around p_i.
        // The window edges move with p too, but membership is piecewise
        // constant in p, so only A's and G's smooth dependence is followed.
        const float sigma = 0.5f * float(desc.window);
        const Mat A = masked_softmax(forward.scores, forward.allowed);   // (n_q, n_k)
        const Mat G = gaussian_factor(forward.centers, n_k, sigma);       // (n_q, n_k)
        dS = softmax_backward(A, (dP.array() * G.array()).matrix());
        // dG_ij/dp_i = G_ij (j - p_i) / sigma^2
        dcenters = Vec::Zero(n_q);
        for (Eigen::Index i = 0; i < n_q; ++i)
          for (Eigen::Index j = 0; j < n_k; ++j)
            dcenters[i] += dP(i, j) * A(i, j) * G(i, j) * (float(j) - forward.centers[i]) / (sigma * sigma);
      }
      break;
  }

  // Pass 3: back through the scoring function (Q, K and its parameters).
  ScoreGrads sg = scores_backward(Q, K, score_desc_of(desc), score_params_of(params), dS);
  g.dQ = std::move(sg.dQ);
  g.dK = std::move(sg.dK);
  g.dW = std::move(sg.dW);
  g.dW_q = std::move(sg.dW_q);
  g.dW_k = std::move(sg.dW_k);
  g.dv_a = std::move(sg.dv_a);

  // Pass 4 (local-p): back through p_i = n_k sigmoid(z_i), z_i = v_p . tanh(q_i W_p).
  if (is_local_p(desc)) {
    const PredictedCenters c = predict_centers(Q, params.W_p, params.v_p, n_k);
    // dp/dz = n_k sigma(z) (1 - sigma(z)) = p (1 - p / n_k)
    const Eigen::ArrayXf dz =
        dcenters.array() * c.p.array() * (1.0f - c.p.array() / float(n_k));  // (n_q)
    g.dv_p = c.hidden.transpose() * dz.matrix();                           // (d_p)
    // dL/d(Q W_p) = dz_i v_p .* (1 - hidden^2): (n_q, d_p)
    const Mat dpre = ((dz.matrix() * params.v_p.transpose()).array() *
                      (1.0f - c.hidden.array().square())).matrix();
    g.dW_p = Q.transpose() * dpre;                // (d_q, d_p)
    g.dQ += dpre * params.W_p.transpose();        // (n_q, d_q)
  }
  return g;
}

// ---------------------------------------------------------------- 4 initialisation and names
void init_local_p_params(AttentionParams* params, int d_q, int d_p, uint64_t seed) {
  Rng rng(seed);
  const float limit_w = 1.0f / std::sqrt(float(d_q > 0 ? d_q : 1));
  const float limit_v = 1.0f / std::sqrt(float(d_p > 0 ? d_p : 1));
  params->W_p.resize(d_q, d_p);
  for (int r = 0; r < d_q; ++r)
    for (int c = 0; c < d_p; ++c) params->W_p(r, c) = rng.uniform(-limit_w, limit_w);
  params->v_p.resize(d_p);
  for (int c = 0; c < d_p; ++c) params->v_p[c] = rng.uniform(-limit_v, limit_v);
}

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::soft: return "soft";
    case Mode::hard: return "hard";
    case Mode::local: return "local";
    case Mode::gumbel: return "gumbel";
  }
  return "soft";
}

const char* hard_kind_name(HardKind kind) { return kind == HardKind::sample ? "sample" : "argmax"; }

const char* center_kind_name(CenterKind kind) {
  return kind == CenterKind::predictive ? "predictive" : "monotonic";
}

bool parse_mode(const std::string& name, Mode* mode) {
  if (name == "soft" || name == "global") *mode = Mode::soft;
  else if (name == "hard") *mode = Mode::hard;
  else if (name == "local") *mode = Mode::local;
  else if (name == "gumbel") *mode = Mode::gumbel;
  else return false;
  return true;
}

bool parse_hard_kind(const std::string& name, HardKind* kind) {
  if (name == "argmax") *kind = HardKind::argmax;
  else if (name == "sample") *kind = HardKind::sample;
  else return false;
  return true;
}

bool parse_center_kind(const std::string& name, CenterKind* kind) {
  if (name == "monotonic" || name == "local-m" || name == "local_m") *kind = CenterKind::monotonic;
  else if (name == "predictive" || name == "local-p" || name == "local_p") *kind = CenterKind::predictive;
  else return false;
  return true;
}

}  // namespace attn

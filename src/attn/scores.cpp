// scores.cpp: the five scoring functions, their backward passes and a checked
// dispatcher.
//
// Sections: 1 forward per kind, 2 shape checks and dispatcher, 3 backward,
// 4 initialisation, 5 names.
#include "attn/scores.h"

#include <algorithm>
#include <cmath>

#include "base/rng.h"

namespace attn {

namespace {

// 1 / sqrt(|x_i|^2 + eps^2) for every row x_i of X: the guarded inverse norm of
// cosine similarity (see kCosineEps). (n)
Eigen::ArrayXf guarded_inverse_norms(const Mat& X) {
  return (X.rowwise().squaredNorm().array() + kCosineEps * kCosineEps).rsqrt();
}

}  // namespace

// ---------------------------------------------------------------- 1 forward per kind
Mat dot_scores(const Mat& Q, const Mat& K) {
  return Q * K.transpose();  // (n_q, d) (d, n_k) -> (n_q, n_k)
}

Mat scaled_dot_scores(const Mat& Q, const Mat& K) {
  // For random q, k with unit-variance entries, q . k has variance d_k; dividing
  // by sqrt(d_k) keeps the scores O(1) so the softmax does not saturate.
  const float scale = 1.0f / std::sqrt(float(K.cols()));
  return (Q * K.transpose()) * scale;
}

Mat general_scores(const Mat& Q, const Mat& K, const Mat& W) {
  return (Q * W) * K.transpose();  // (n_q, d_q)(d_q, d_k)(d_k, n_k)
}

Mat additive_scores(const Mat& Q, const Mat& K, const Mat& W_q, const Mat& W_k, const Vec& v_a) {
  const Mat Qa = Q * W_q;  // (n_q, d_a): every query projected once
  const Mat Ka = K * W_k;  // (n_k, d_a): every key projected once
  Mat S(Q.rows(), K.rows());  // scores: (n_q, n_k)
  for (Eigen::Index i = 0; i < Q.rows(); ++i) {
    // hidden: (n_k, d_a) = tanh(q_i W_q + k_j W_k) for every key j at once
    const Mat hidden = (Ka.rowwise() + Qa.row(i)).array().tanh().matrix();
    S.row(i) = (hidden * v_a).transpose();
  }
  return S;
}

Mat cosine_scores(const Mat& Q, const Mat& K) {
  // Normalise the rows first, then one matrix product: (n_q, d)(d, n_k).
  const Mat Qn = guarded_inverse_norms(Q).matrix().asDiagonal() * Q;
  const Mat Kn = guarded_inverse_norms(K).matrix().asDiagonal() * K;
  return Qn * Kn.transpose();
}

// ---------------------------------------------------------------- 2 checks and dispatcher
std::string check_score_shapes(const Mat& Q, const Mat& K, const ScoreDesc& desc, const ScoreParams& params) {
  if (!(desc.temperature > 0.0f) || !std::isfinite(desc.temperature))
    return "scores: temperature must be > 0 and finite, got " + std::to_string(desc.temperature);
  if (Q.cols() == 0 || K.cols() == 0) return "scores: Q and K need at least one column";
  const Eigen::Index d_q = Q.cols(), d_k = K.cols();
  switch (desc.kind) {
    case ScoreKind::dot:
    case ScoreKind::scaled_dot:
    case ScoreKind::cosine:
      if (d_q != d_k)
        return std::string("scores: ") + score_kind_name(desc.kind) + " needs d_q == d_k, got Q " +
               shape_str(Q.rows(), d_q) + " and K " + shape_str(K.rows(), d_k);
      break;
    case ScoreKind::general:
      if (params.W.rows() != d_q || params.W.cols() != d_k)
        return "scores: general needs W (d_q, d_k) = " + shape_str(d_q, d_k) + ", got " +
               shape_str(params.W.rows(), params.W.cols());
      break;
    case ScoreKind::additive: {
      const Eigen::Index d_a = params.v_a.size();
      if (d_a == 0) return "scores: additive needs v_a (d_a) with d_a >= 1";
      if (params.W_q.rows() != d_q || params.W_q.cols() != d_a)
        return "scores: additive needs W_q (d_q, d_a) = " + shape_str(d_q, d_a) + ", got " +
               shape_str(params.W_q.rows(), params.W_q.cols());
      if (params.W_k.rows() != d_k || params.W_k.cols() != d_a)
        return "scores: additive needs W_k (d_k, d_a) = " + shape_str(d_k, d_a) + ", got " +
               shape_str(params.W_k.rows(), params.W_k.cols());
      break;
    }
  }
  return "";
}

Mat compute_scores(const Mat& Q, const Mat& K, const ScoreDesc& desc, const ScoreParams& params,
                   std::string* error) {
  const std::string problem = check_score_shapes(Q, K, desc, params);
  if (!problem.empty()) {
    if (error) *error = problem;
    return Mat();
  }
  Mat S;  // scores: (n_q, n_k)
  switch (desc.kind) {
    case ScoreKind::dot: S = dot_scores(Q, K); break;
    case ScoreKind::scaled_dot: S = scaled_dot_scores(Q, K); break;
    case ScoreKind::general: S = general_scores(Q, K, params.W); break;
    case ScoreKind::additive: S = additive_scores(Q, K, params.W_q, params.W_k, params.v_a); break;
    case ScoreKind::cosine: S = cosine_scores(Q, K); break;
  }
  if (desc.temperature != 1.0f) S /= desc.temperature;
  return S;
}

// ---------------------------------------------------------------- 3 backward
ScoreGrads scores_backward(const Mat& Q, const Mat& K, const ScoreDesc& desc, const ScoreParams& params,
                           const Mat& grad_scores) {
  ScoreGrads g;
  // scores = raw / T, so dL/draw = dL/dscores / T.
  const Mat dS = grad_scores / desc.temperature;  // (n_q, n_k)
  switch (desc.kind) {
    case ScoreKind::dot:
      g.dQ = dS * K;              // (n_q, n_k)(n_k, d)
      g.dK = dS.transpose() * Q;  // (n_k, n_q)(n_q, d)
      break;
    case ScoreKind::scaled_dot: {
      const float scale = 1.0f / std::sqrt(float(K.cols()));
      g.dQ = (dS * K) * scale;
      g.dK = (dS.transpose() * Q) * scale;
      break;
    }
    case ScoreKind::general: {
      // S = Q W K^T
      const Mat QW = Q * params.W;                 // (n_q, d_k)
      g.dQ = dS * (K * params.W.transpose());      // (n_q, n_k)(n_k, d_q)
      g.dK = dS.transpose() * QW;                  // (n_k, n_q)(n_q, d_k)
      g.dW = Q.transpose() * (dS * K);             // (d_q, n_q)(n_q, d_k)
      break;
    }
    case ScoreKind::additive: {
      // s_ij = v_a . h_ij with h_ij = tanh(a_i + b_j), a = Q W_q, b = K W_k.
      const Mat Qa = Q * params.W_q;  // (n_q, d_a)
      const Mat Ka = K * params.W_k;  // (n_k, d_a)
      const Eigen::Index d_a = params.v_a.size();
      Mat dQa = Mat::Zero(Q.rows(), d_a);  // (n_q, d_a)
      Mat dKa = Mat::Zero(K.rows(), d_a);  // (n_k, d_a)
      g.dv_a = Vec::Zero(d_a);
      const Eigen::RowVectorXf v_row = params.v_a.transpose();  // (1, d_a)
      for (Eigen::Index i = 0; i < Q.rows(); ++i) {
        const Mat hidden = (Ka.rowwise() + Qa.row(i)).array().tanh().matrix();  // (n_k, d_a)
        const Eigen::VectorXf dS_i = dS.row(i).transpose();                      // (n_k)
        g.dv_a += hidden.transpose() * dS_i;
        // dL/dpre_ij = dS_ij * v_a .* (1 - h_ij^2): (n_k, d_a)
        const Mat dpre = ((dS_i * v_row).array() * (1.0f - hidden.array().square())).matrix();
        dQa.row(i) = dpre.colwise().sum();
        dKa += dpre;
      }
      g.dQ = dQa * params.W_q.transpose();  // (n_q, d_q)
      g.dK = dKa * params.W_k.transpose();  // (n_k, d_k)
      g.dW_q = Q.transpose() * dQa;         // (d_q, d_a)
      g.dW_k = K.transpose() * dKa;         // (d_k, d_a)
      break;
    }
    case ScoreKind::cosine: {
      // s_ij = qn_i . kn_j with qn = q / r(q), r(q) = sqrt(|q|^2 + eps^2).
      // d qn / d q applied to u: u / r - q (q . u) / r^3.
      const Eigen::ArrayXf inv_rq = guarded_inverse_norms(Q);  // (n_q)
      const Eigen::ArrayXf inv_rk = guarded_inverse_norms(K);  // (n_k)
      const Mat Qn = inv_rq.matrix().asDiagonal() * Q;          // (n_q, d)
      const Mat Kn = inv_rk.matrix().asDiagonal() * K;          // (n_k, d)
      const Mat dQn = dS * Kn;                                  // (n_q, d)
      const Mat dKn = dS.transpose() * Qn;                      // (n_k, d)
      // u / r - (qn . u) qn / r  (same formula, written with the normalised rows)
      const Eigen::ArrayXf q_proj = (Qn.array() * dQn.array()).rowwise().sum();  // (n_q)
      const Eigen::ArrayXf k_proj = (Kn.array() * dKn.array()).rowwise().sum();  // (n_k)
      g.dQ = inv_rq.matrix().asDiagonal() * (dQn - q_proj.matrix().asDiagonal() * Qn);
      g.dK = inv_rk.matrix().asDiagonal() * (dKn - k_proj.matrix().asDiagonal() * Kn);
      break;
    }
  }
  return g;
}

// ---------------------------------------------------------------- 4 initialisation
ScoreParams init_score_params(ScoreKind kind, int d_q, int d_k, int d_a, uint64_t seed) {
  ScoreParams p;
  Rng rng(seed);
  if (kind == ScoreKind::general) {
    p.W = uniform_matrix(rng, d_q, d_k, 1.0f / std::sqrt(float(std::max(d_q, 1))));
  } else if (kind == ScoreKind::additive) {
    p.W_q = uniform_matrix(rng, d_q, d_a, 1.0f / std::sqrt(float(std::max(d_q, 1))));
    p.W_k = uniform_matrix(rng, d_k, d_a, 1.0f / std::sqrt(float(std::max(d_k, 1))));
    const Mat v = uniform_matrix(rng, d_a, 1, 1.0f / std::sqrt(float(std::max(d_a, 1))));
    p.v_a = v.col(0);
  }
  return p;
}

// ---------------------------------------------------------------- 5 names
const char* score_kind_name(ScoreKind kind) {
  switch (kind) {
    case ScoreKind::dot: return "dot";
    case ScoreKind::scaled_dot: return "scaled_dot";
    case ScoreKind::general: return "general";
    case ScoreKind::additive: return "additive";
    case ScoreKind::cosine: return "cosine";
  }
  return "scaled_dot";
}

bool parse_score_kind(const std::string& name, ScoreKind* kind) {
  if (name == "dot") *kind = ScoreKind::dot;
  else if (name == "scaled_dot") *kind = ScoreKind::scaled_dot;
  else if (name == "general" || name == "bilinear") *kind = ScoreKind::general;
  else if (name == "additive") *kind = ScoreKind::additive;
  else if (name == "cosine") *kind = ScoreKind::cosine;
  else return false;
  return true;
}

}  // namespace attn

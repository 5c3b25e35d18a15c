// reference.cpp: slow, plain-loop versions of every attention forward op.
// Element access only; sums in double; one formula per line, straight from the
// definitions in the headers.
//
// Sections: 1 masks and softmax, 2 scores, 3 attention modes, 4 multi-head,
// 5 positional encoding.
#include "attn/reference.h"

#include <cmath>
#include <limits>

#include "base/rng.h"

namespace attn::ref {

namespace {
const double kInf = std::numeric_limits<double>::infinity();
}

// ---------------------------------------------------------------- 1 masks and softmax
BoolMat build_mask(const MaskDesc& mask, int n_q, int n_k) {
  BoolMat allowed(n_q, n_k);
  for (int i = 0; i < n_q; ++i) {
    for (int j = 0; j < n_k; ++j) {
      bool ok = true;
      if (mask.kind == MaskKind::causal) ok = j <= i;
      if (mask.kind == MaskKind::padding) {
        const int length = mask.key_lengths.size() == 1 ? mask.key_lengths[0] : mask.key_lengths[size_t(i)];
        ok = j < length;
      }
      if (mask.kind == MaskKind::explicit_mask) ok = mask.allowed(i, j);
      allowed(i, j) = ok;
    }
  }
  return allowed;
}

Mat masked_softmax(const Mat& logits, const BoolMat& allowed) {
  const int n_q = int(logits.rows()), n_k = int(logits.cols());
  Mat P(n_q, n_k);
  for (int i = 0; i < n_q; ++i) {
    // visible: allowed by the mask and not NaN
    int plus_inf = 0;
    double max_finite = -kInf;
    for (int j = 0; j < n_k; ++j) {
      const double x = logits(i, j);
      const bool visible = (allowed.size() == 0 || allowed(i, j)) && !std::isnan(x);
      if (!visible) continue;
      if (x == kInf) ++plus_inf;
      else if (x > max_finite) max_finite = x;
    }
    double total = 0.0;
    for (int j = 0; j < n_k; ++j) {
      const double x = logits(i, j);
      const bool visible = (allowed.size() == 0 || allowed(i, j)) && !std::isnan(x);
      if (visible && plus_inf == 0 && x > -kInf) total += std::exp(x - max_finite);
    }
    for (int j = 0; j < n_k; ++j) {
      const double x = logits(i, j);
      const bool visible = (allowed.size() == 0 || allowed(i, j)) && !std::isnan(x);
      double w = 0.0;
      if (visible && plus_inf > 0) w = (x == kInf) ? 1.0 / plus_inf : 0.0;
      else if (visible && total > 0.0 && x > -kInf) w = std::exp(x - max_finite) / total;
      P(i, j) = float(w);
    }
  }
  return P;
}

// ---------------------------------------------------------------- 2 scores
Mat scores(const Mat& Q, const Mat& K, const ScoreDesc& desc, const ScoreParams& params) {
  const int n_q = int(Q.rows()), n_k = int(K.rows()), d_q = int(Q.cols()), d_k = int(K.cols());
  Mat S(n_q, n_k);
  for (int i = 0; i < n_q; ++i) {
    for (int j = 0; j < n_k; ++j) {
      double s = 0.0;
      if (desc.kind == ScoreKind::dot || desc.kind == ScoreKind::scaled_dot) {
        for (int c = 0; c < d_q; ++c) s += double(Q(i, c)) * K(j, c);
        if (desc.kind == ScoreKind::scaled_dot) s /= std::sqrt(double(d_k));
      } else if (desc.kind == ScoreKind::general) {
        // q W k^T = sum_a sum_b q_a W_ab k_b
        for (int a = 0; a < d_q; ++a)
          for (int b = 0; b < d_k; ++b) s += double(Q(i, a)) * params.W(a, b) * K(j, b);
      } else if (desc.kind == ScoreKind::additive) {
        const int d_a = int(params.v_a.size());
        for (int c = 0; c < d_a; ++c) {
          double pre = 0.0;
          for (int a = 0; a < d_q; ++a) pre += double(Q(i, a)) * params.W_q(a, c);
          for (int b = 0; b < d_k; ++b) pre += double(K(j, b)) * params.W_k(b, c);
          s += double(params.v_a[c]) * std::tanh(pre);
        }
      } else {  // cosine
        double qq = 0.0, kk = 0.0, qk = 0.0;
        for (int c = 0; c < d_q; ++c) {
          qq += double(Q(i, c)) * Q(i, c);
          kk += double(K(j, c)) * K(j, c);
          qk += double(Q(i, c)) * K(j, c);
        }
        const double eps2 = double(kCosineEps) * kCosineEps;
        s = qk / (std::sqrt(qq + eps2) * std::sqrt(kk + eps2));
      }
      S(i, j) = float(s / desc.temperature);
    }
  }
  return S;
}

// ---------------------------------------------------------------- 3 attention modes
AttentionResult attention(const Mat& Q, const Mat& K, const Mat& V, const AttentionDesc& desc,
                          const AttentionParams& params) {
  AttentionResult r;
  const int n_q = int(Q.rows()), n_k = int(K.rows()), d_v = int(V.cols());
  r.scores = ref::scores(Q, K, ScoreDesc{desc.score, desc.temperature}, ScoreParams{params.W, params.W_q, params.W_k, params.v_a});
  r.allowed = ref::build_mask(MaskDesc{desc.mask, desc.key_lengths, params.mask}, n_q, n_k);
  r.weights = Mat(n_q, n_k);

  if (desc.mode == Mode::soft) {
    r.weights = ref::masked_softmax(r.scores, r.allowed);
  } else if (desc.mode == Mode::hard && desc.hard == HardKind::argmax) {
    for (int i = 0; i < n_q; ++i) {
      int best = -1;
      for (int j = 0; j < n_k; ++j) {
        const float s = r.scores(i, j);
        const bool candidate = r.allowed(i, j) && !std::isnan(s) && s > -std::numeric_limits<float>::infinity();
        if (candidate && (best < 0 || s > r.scores(i, best))) best = j;
      }
      for (int j = 0; j < n_k; ++j) r.weights(i, j) = (j == best) ? 1.0f : 0.0f;
    }
  } else if (desc.mode == Mode::hard) {  // sample
    const Mat soft = ref::masked_softmax(r.scores, r.allowed);
    Rng rng(desc.seed);
    for (int i = 0; i < n_q; ++i) {
      const double u = rng.uniform();  // one draw per row, always
      int chosen = -1, last_positive = -1;
      double cumulative = 0.0;
      for (int j = 0; j < n_k && chosen < 0; ++j) {
        if (soft(i, j) <= 0.0f) continue;
        last_positive = j;
        cumulative += soft(i, j);
        if (u < cumulative) chosen = j;
      }
      if (chosen < 0) chosen = last_positive;
      for (int j = 0; j < n_k; ++j) r.weights(i, j) = (j == chosen) ? 1.0f : 0.0f;
    }
  } else if (desc.mode == Mode::gumbel) {
    Rng rng(desc.seed);
    r.gumbel_noise = Mat(n_q, n_k);
    Mat perturbed(n_q, n_k);
    for (int i = 0; i < n_q; ++i)
      for (int j = 0; j < n_k; ++j) {
        const double u = rng.uniform_open();
        r.gumbel_noise(i, j) = float(-std::log(-std::log(u)));
        perturbed(i, j) = float((double(r.scores(i, j)) + r.gumbel_noise(i, j)) / desc.gumbel_tau);
      }
    r.weights = ref::masked_softmax(perturbed, r.allowed);
  } else {  // local
    const bool predictive = desc.center == CenterKind::predictive;
    r.centers = Vec(n_q);
    for (int i = 0; i < n_q; ++i) {
      if (!predictive) {
        r.centers[i] = float(i);
        continue;
      }
      // z = v_p . tanh(q_i W_p); p = n_k sigmoid(z)
      double z = 0.0;
      for (int c = 0; c < params.W_p.cols(); ++c) {
        double pre = 0.0;
        for (int a = 0; a < Q.cols(); ++a) pre += double(Q(i, a)) * params.W_p(a, c);
        z += double(params.v_p[c]) * std::tanh(pre);
      }
      r.centers[i] = float(n_k / (1.0 + std::exp(-z)));
    }
    for (int i = 0; i < n_q; ++i)
      for (int j = 0; j < n_k; ++j)
        if (std::abs(double(j) - r.centers[i]) > desc.window) r.allowed(i, j) = false;
    r.weights = ref::masked_softmax(r.scores, r.allowed);
    if (predictive) {
      const double sigma = desc.window / 2.0;
      for (int i = 0; i < n_q; ++i)
        for (int j = 0; j < n_k; ++j) {
          const double offset = double(j) - r.centers[i];
          r.weights(i, j) = float(r.weights(i, j) * std::exp(-offset * offset / (2.0 * sigma * sigma)));
        }
    }
  }

  // output_i = sum_j w_ij v_j
  r.output = Mat(n_q, d_v);
  for (int i = 0; i < n_q; ++i)
    for (int c = 0; c < d_v; ++c) {
      double o = 0.0;
      for (int j = 0; j < n_k; ++j) o += double(r.weights(i, j)) * V(j, c);
      r.output(i, c) = float(o);
    }
  return r;
}

// ---------------------------------------------------------------- 4 multi-head
namespace {
// X (n, d_in) times the columns [first, first + count) of W (d_in, *).
Mat project_columns(const Mat& X, const Mat& W, int first, int count) {
  Mat out(X.rows(), count);
  for (int r = 0; r < X.rows(); ++r)
    for (int c = 0; c < count; ++c) {
      double s = 0.0;
      for (int a = 0; a < X.cols(); ++a) s += double(X(r, a)) * W(a, first + c);
      out(r, c) = float(s);
    }
  return out;
}
}  // namespace

MultiHeadResult multihead(const Mat& X_q, const Mat& X_kv, const MultiHeadDesc& desc, const MultiHeadParams& params) {
  MultiHeadResult r;
  const int h = desc.heads, d_h = int(params.W_Q.cols()) / h, n_q = int(X_q.rows());
  AttentionDesc ad;
  ad.score = desc.score;
  ad.temperature = desc.temperature;
  ad.mask = desc.mask;
  ad.key_lengths = desc.key_lengths;
  r.concat = Mat(n_q, h * d_h);
  for (int t = 0; t < h; ++t) {
    r.q.push_back(project_columns(X_q, params.W_Q, t * d_h, d_h));
    r.k.push_back(project_columns(X_kv, params.W_K, t * d_h, d_h));
    r.v.push_back(project_columns(X_kv, params.W_V, t * d_h, d_h));
    AttentionParams ap;
    if (!params.head_score.empty()) {
      ap.W = params.head_score[size_t(t)].W;
      ap.W_q = params.head_score[size_t(t)].W_q;
      ap.W_k = params.head_score[size_t(t)].W_k;
      ap.v_a = params.head_score[size_t(t)].v_a;
    }
    ap.mask = params.mask;
    AttentionResult head = ref::attention(r.q.back(), r.k.back(), r.v.back(), ad, ap);
    for (int i = 0; i < n_q; ++i)
      for (int c = 0; c < d_h; ++c) r.concat(i, t * d_h + c) = head.output(i, c);
    r.scores.push_back(head.scores);
    r.weights.push_back(head.weights);
    r.head_output.push_back(head.output);
  }
  if (params.W_O.size() == 0) {
    r.output = r.concat;
  } else {
    r.output = project_columns(r.concat, params.W_O, 0, int(params.W_O.cols()));
  }
  return r;
}

// ---------------------------------------------------------------- 5 positional encoding
Mat sinusoidal_encoding(const PositionalDesc& desc) {
  const int n = desc.n, d = desc.d;
  Mat PE(n, d);
  for (int pos = 0; pos < n; ++pos) {
    for (int c = 0; c < d; ++c) {
      double value = 0.0;
      if (desc.layout == PositionalLayout::interleaved) {
        const int i = c / 2;  // PE[pos, 2i] = sin, PE[pos, 2i+1] = cos
        const double angle = pos / std::pow(double(desc.base), 2.0 * i / d);
        value = (c % 2 == 0) ? std::sin(angle) : std::cos(angle);
      } else {
        const int half = d / 2;  // first half cos, second half sin
        const int i = c < half ? c : c - half;
        const double angle = pos / std::pow(double(desc.base), 2.0 * i / d);
        value = c < half ? std::cos(angle) : std::sin(angle);
      }
      PE(pos, c) = float(value);
    }
  }
  return PE;
}

Mat combine_positional(const Mat& X, const Mat& PE, CombineKind kind) {
  const int n = int(X.rows()), d_x = int(X.cols()), d_pe = int(PE.cols());
  Mat out(n, kind == CombineKind::sum ? d_x : d_x + d_pe);
  for (int r = 0; r < n; ++r) {
    if (kind == CombineKind::sum) {
      for (int c = 0; c < d_x; ++c) out(r, c) = X(r, c) + PE(r, c);
    } else {
      for (int c = 0; c < d_x; ++c) out(r, c) = X(r, c);
      for (int c = 0; c < d_pe; ++c) out(r, d_x + c) = PE(r, c);
    }
  }
  return out;
}

}  // namespace attn::ref

// multihead.cpp: multi-head attention built from attention_forward/backward per
// head, plus stacked self-attention layers.
//
// Sections: 1 helpers and validation, 2 forward, 3 backward, 4 stacked layers,
// 5 initialisation.
#include "attn/multihead.h"

#include <cmath>

#include "base/rng.h"

namespace attn {

// ---------------------------------------------------------------- 1 helpers and validation
namespace {

bool needs_head_score(ScoreKind kind) { return kind == ScoreKind::general || kind == ScoreKind::additive; }

AttentionDesc head_desc(const MultiHeadDesc& desc) {
  AttentionDesc a;
  a.score = desc.score;
  a.temperature = desc.temperature;
  a.mask = desc.mask;
  a.key_lengths = desc.key_lengths;
  a.mode = Mode::soft;
  return a;
}

AttentionParams head_params(const MultiHeadDesc& desc, const MultiHeadParams& params, int t) {
  AttentionParams a;
  if (needs_head_score(desc.score)) {
    const ScoreParams& s = params.head_score[size_t(t)];
    a.W = s.W;
    a.W_q = s.W_q;
    a.W_k = s.W_k;
    a.v_a = s.v_a;
  }
  a.mask = params.mask;
  return a;
}

// Checks the projections; per-head score shapes and the mask are checked by
// attention_forward itself on head 0 (all heads share their shapes).
std::string validate(const Mat& X_q, const Mat& X_kv, const MultiHeadDesc& desc, const MultiHeadParams& params) {
  if (desc.heads < 1) return "multihead: heads must be >= 1";
  const Eigen::Index d_model = X_q.cols();
  if (X_q.rows() == 0 || X_kv.rows() == 0) return "multihead: X_q and X_kv need at least one row";
  if (X_kv.cols() != d_model)
    return "multihead: X_q has d_model = " + std::to_string(d_model) + " but X_kv has " +
           std::to_string(X_kv.cols()) + " columns";
  const Eigen::Index width = params.W_Q.cols();  // h * d_h
  const char* names[3] = {"W_Q", "W_K", "W_V"};
  const Mat* mats[3] = {&params.W_Q, &params.W_K, &params.W_V};
  for (int m = 0; m < 3; ++m)
    if (mats[m]->rows() != d_model || mats[m]->cols() != width)
      return std::string("multihead: ") + names[m] + " is " + shape_str(mats[m]->rows(), mats[m]->cols()) +
             ", expected (d_model, h*d_h) = " + shape_str(d_model, width);
  if (width == 0 || width % desc.heads != 0)
    return "multihead: W_Q has " + std::to_string(width) + " columns, not a positive multiple of heads = " +
           std::to_string(desc.heads);
  if (params.W_O.size() > 0 && params.W_O.rows() != width)
    return "multihead: W_O is " + shape_str(params.W_O.rows(), params.W_O.cols()) + ", expected (h*d_h, d_out) with h*d_h = " +
           std::to_string(width);
  if (needs_head_score(desc.score) && params.head_score.size() != size_t(desc.heads))
    return std::string("multihead: score ") + score_kind_name(desc.score) + " needs head_score with one entry per head (" +
           std::to_string(desc.heads) + "), got " + std::to_string(params.head_score.size());
  return "";
}

}  // namespace

// ---------------------------------------------------------------- 2 forward
MultiHeadResult multihead_forward(const Mat& X_q, const Mat& X_kv, const MultiHeadDesc& desc,
                                  const MultiHeadParams& params) {
  MultiHeadResult r;
  r.error = validate(X_q, X_kv, desc, params);
  if (!r.ok()) return r;
  const int h = desc.heads;
  const Eigen::Index d_h = params.W_Q.cols() / h;

  // Pass 1: project once for all heads; head t owns columns [t d_h, (t+1) d_h).
  const Mat Q = X_q * params.W_Q;   // (n_q, h*d_h)
  const Mat K = X_kv * params.W_K;  // (n_k, h*d_h)
  const Mat V = X_kv * params.W_V;  // (n_k, h*d_h)

  // Pass 2: each head attends independently, in its own d_h-wide subspace.
  const AttentionDesc ad = head_desc(desc);
  r.concat.resize(X_q.rows(), h * d_h);  // (n_q, h*d_h)
  for (int t = 0; t < h; ++t) {
    r.q.push_back(Q.middleCols(t * d_h, d_h));
    r.k.push_back(K.middleCols(t * d_h, d_h));
    r.v.push_back(V.middleCols(t * d_h, d_h));
    AttentionResult head = attention_forward(r.q.back(), r.k.back(), r.v.back(), ad, head_params(desc, params, t));
    if (!head.ok()) {
      MultiHeadResult failed;
      failed.error = "multihead: head " + std::to_string(t) + ": " + head.error;
      return failed;
    }
    for (const std::string& w : head.warnings) r.warnings.push_back("head " + std::to_string(t) + ": " + w);
    r.concat.middleCols(t * d_h, d_h) = head.output;
    r.scores.push_back(std::move(head.scores));
    r.weights.push_back(std::move(head.weights));
    r.head_output.push_back(std::move(head.output));
  }

  // Pass 3: mix the heads back together.
  r.output = params.W_O.size() > 0 ? Mat(r.concat * params.W_O) : r.concat;  // (n_q, d_out)
  return r;
}

MultiHeadResult self_attention_forward(const Mat& X, const MultiHeadDesc& desc, const MultiHeadParams& params) {
  return multihead_forward(X, X, desc, params);
}

// ---------------------------------------------------------------- 3 backward
MultiHeadGrads multihead_backward(const Mat& X_q, const Mat& X_kv, const MultiHeadDesc& desc,
                                  const MultiHeadParams& params, const MultiHeadResult& forward,
                                  const Mat& grad_output) {
  MultiHeadGrads g;
  g.error = validate(X_q, X_kv, desc, params);
  if (!g.ok()) return g;
  const int h = desc.heads;
  const Eigen::Index d_h = params.W_Q.cols() / h, n_q = X_q.rows(), n_k = X_kv.rows();
  if (!forward.ok() || forward.weights.size() != size_t(h) || forward.concat.rows() != n_q ||
      forward.concat.cols() != h * d_h) {
    g.error = "multihead backward: the forward result does not match these inputs";
    return g;
  }
  if (grad_output.rows() != forward.output.rows() || grad_output.cols() != forward.output.cols()) {
    g.error = "multihead backward: grad_output is " + shape_str(grad_output.rows(), grad_output.cols()) +
              ", expected (n_q, d_out) = " + shape_str(forward.output.rows(), forward.output.cols());
    return g;
  }

  // Pass 1: output = concat W_O.
  Mat dconcat;  // (n_q, h*d_h)
  if (params.W_O.size() > 0) {
    g.dW_O = forward.concat.transpose() * grad_output;  // (h*d_h, d_out)
    dconcat = grad_output * params.W_O.transpose();
  } else {
    dconcat = grad_output;
  }

  // Pass 2: every head's attention backward, written into its column block.
  const AttentionDesc ad = head_desc(desc);
  const BoolMat allowed =
      build_mask(MaskDesc{desc.mask, desc.key_lengths, params.mask}, int(n_q), int(n_k));
  Mat dQ(n_q, h * d_h), dK(n_k, h * d_h), dV(n_k, h * d_h);
  for (int t = 0; t < h; ++t) {
    AttentionResult head;  // soft mode needs only the weights (and consistent shapes)
    head.scores = forward.scores[size_t(t)];
    head.weights = forward.weights[size_t(t)];
    head.allowed = allowed;
    const AttentionGrads hg = attention_backward(forward.q[size_t(t)], forward.k[size_t(t)], forward.v[size_t(t)], ad,
                                                 head_params(desc, params, t), head,
                                                 dconcat.middleCols(t * d_h, d_h));
    if (!hg.ok()) {
      MultiHeadGrads failed;
      failed.error = "multihead backward: head " + std::to_string(t) + ": " + hg.error;
      return failed;
    }
    dQ.middleCols(t * d_h, d_h) = hg.dQ;
    dK.middleCols(t * d_h, d_h) = hg.dK;
    dV.middleCols(t * d_h, d_h) = hg.dV;
    if (needs_head_score(desc.score)) g.head_score.push_back(ScoreGrads{Mat(), Mat(), hg.dW, hg.dW_q, hg.dW_k, hg.dv_a});
  }

  // Pass 3: the projections Q = X_q W_Q, K = X_kv W_K, V = X_kv W_V.
  g.dW_Q = X_q.transpose() * dQ;   // (d_model, h*d_h)
  g.dW_K = X_kv.transpose() * dK;
  g.dW_V = X_kv.transpose() * dV;
  g.dX_q = dQ * params.W_Q.transpose();                                      // (n_q, d_model)
  g.dX_kv = dK * params.W_K.transpose() + dV * params.W_V.transpose();      // (n_k, d_model)
  return g;
}

MultiHeadGrads self_attention_backward(const Mat& X, const MultiHeadDesc& desc, const MultiHeadParams& params,
                                       const MultiHeadResult& forward, const Mat& grad_output) {
  MultiHeadGrads g = multihead_backward(X, X, desc, params, forward, grad_output);
  if (g.ok()) g.dX = g.dX_q + g.dX_kv;  // X feeds both the queries and the keys/values
  return g;
}

// ---------------------------------------------------------------- 4 stacked layers
StackResult stacked_self_attention_forward(const Mat& X, const StackDesc& desc,
                                           const std::vector<MultiHeadParams>& layers) {
  StackResult r;
  if (layers.empty()) {
    r.error = "stack: needs at least one layer";
    return r;
  }
  Mat current = X;  // X_l: (n, d_model)
  for (size_t l = 0; l < layers.size(); ++l) {
    MultiHeadResult layer = self_attention_forward(current, desc.layer, layers[l]);
    if (!layer.ok()) {
      StackResult failed;
      failed.error = "stack: layer " + std::to_string(l) + ": " + layer.error;
      return failed;
    }
    if (layer.output.cols() != X.cols()) {
      StackResult failed;
      failed.error = "stack: layer " + std::to_string(l) + " outputs " + std::to_string(layer.output.cols()) +
                     " columns, but the next layer needs d_model = " + std::to_string(X.cols());
      return failed;
    }
    for (const std::string& w : layer.warnings) r.warnings.push_back("layer " + std::to_string(l) + ": " + w);
    Mat next = desc.residual ? Mat(current + layer.output) : layer.output;
    r.inputs.push_back(std::move(current));
    r.layers.push_back(std::move(layer));
    current = std::move(next);
  }
  r.output = std::move(current);
  return r;
}

StackGrads stacked_self_attention_backward(const StackDesc& desc, const std::vector<MultiHeadParams>& layers,
                                           const StackResult& forward, const Mat& grad_output) {
  StackGrads g;
  if (!forward.ok() || forward.layers.size() != layers.size() || forward.inputs.size() != layers.size()) {
    g.error = "stack backward: the forward result does not match these layers";
    return g;
  }
  if (grad_output.rows() != forward.output.rows() || grad_output.cols() != forward.output.cols()) {
    g.error = "stack backward: grad_output must be (n, d_model) = " +
              shape_str(forward.output.rows(), forward.output.cols());
    return g;
  }
  g.layers.resize(layers.size());
  Mat dX = grad_output;  // dL/dX_{l+1}
  for (size_t l = layers.size(); l-- > 0;) {
    MultiHeadGrads lg = self_attention_backward(forward.inputs[l], desc.layer, layers[l], forward.layers[l], dX);
    if (!lg.ok()) {
      StackGrads failed;
      failed.error = "stack backward: layer " + std::to_string(l) + ": " + lg.error;
      return failed;
    }
    // X_{l+1} = [X_l +] MHA(X_l): the residual path passes dX straight through.
    dX = desc.residual ? Mat(dX + lg.dX) : lg.dX;
    g.layers[l] = std::move(lg);
  }
  g.dX = std::move(dX);
  return g;
}

// ---------------------------------------------------------------- 5 initialisation
MultiHeadParams init_multihead_params(const MultiHeadInitDesc& desc) {
  MultiHeadParams p;
  Rng rng(desc.seed);
  const int width = desc.heads * desc.d_head;  // h * d_h
  const float limit_in = 1.0f / std::sqrt(float(desc.d_model > 0 ? desc.d_model : 1));
  p.W_Q = uniform_matrix(rng, desc.d_model, width, limit_in);
  p.W_K = uniform_matrix(rng, desc.d_model, width, limit_in);
  p.W_V = uniform_matrix(rng, desc.d_model, width, limit_in);
  if (desc.d_out > 0) p.W_O = uniform_matrix(rng, width, desc.d_out, 1.0f / std::sqrt(float(width > 0 ? width : 1)));
  if (needs_head_score(desc.score)) {
    const int d_a = desc.d_additive > 0 ? desc.d_additive : desc.d_head;
    for (int t = 0; t < desc.heads; ++t)
      p.head_score.push_back(init_score_params(desc.score, desc.d_head, desc.d_head, d_a, rng.next_u64()));
  }
  return p;
}

}  // namespace attn

// sentiment_model.cpp: embedding -> PE -> multi-head self-attention -> average
// pooling -> dropout -> dense(1, sigmoid), trained with BCE and Adam.
//
// Sections: construction, forward, training (forward_backward, loss,
// train_step), evaluation and inspection (predict, head weights, shape table).
#include "train/sentiment_model.h"

#include <string>

#include "train/fmath.h"
#include "train/loss.h"

namespace attn::train {

SentimentModel::SentimentModel(const SentimentModelDesc& desc) : desc_(desc) {
  optimizer.desc = desc.optimizer;
  Rng rng(desc.seed);
  embed_.init("embed", desc.vocab, desc.d_model, rng, 0.5f);
  attention_.init("attention", desc.d_model, desc.heads, desc.head_size, 0, rng);  // no W_O
  out_.init("out", desc.heads * desc.head_size, 1, rng);
}

ParamList SentimentModel::params() {
  ParamList p;
  embed_.collect(p);
  attention_.collect(p);
  out_.collect(p);
  return p;
}

struct SentimentModel::Trace {
  Mat X;        // (n, d) embedded + PE
  SelfAttentionTrace att;  // att.out = Z (n, h*d_h)
  Mat mask;     // (1, h*d_h) dropout mask (all ones at evaluation)
  Mat dropped;  // (1, h*d_h) g'
  Mat logit;    // (1, 1)
};

void SentimentModel::forward(const std::vector<int>& ids, bool training, uint64_t noise_seed, Trace& tr) const {
  Mat X;
  embed_.forward(ids, X);
  tr.X = add_sinusoidal_position(X);
  self_attention_forward(attention_, tr.X, tr.att);
  const Mat g = mean_rows(tr.att.out);
  if (training && desc_.dropout > 0.0f) {
    Rng rng(noise_seed);
    tr.mask = dropout_mask(1, int(g.cols()), desc_.dropout, rng);
  } else {
    tr.mask = Mat::Ones(1, g.cols());
  }
  tr.dropped = apply_mask(g, tr.mask);
  out_.forward(tr.dropped, tr.logit);
}

float SentimentModel::forward_backward(const std::vector<data::Review>& set, const std::vector<int>& batch) {
  zero_grads(params());
  return mean_over_batch(batch, [&](int i, float scale) {
    Trace tr;
    forward(set[i].ids, true, mix_seed(desc_.seed, uint64_t(steps_), uint64_t(i)), tr);
    Mat dlogit(1, 1);
    const float l = binary_cross_entropy_logit(tr.logit(0, 0), float(set[i].label), &dlogit(0, 0), scale);
    Mat ddropped, dX;
    out_.backward(tr.dropped, dlogit, &ddropped);
    const Mat dZ = mean_rows_backward(apply_mask(ddropped, tr.mask), int(set[i].ids.size()));
    self_attention_backward(attention_, tr.att, dZ, dX);
    embed_.backward(set[i].ids, dX);  // PE is constant: dX passes through the sum
    return l;
  });
}

float SentimentModel::loss(const std::vector<data::Review>& set, const std::vector<int>& batch) const {
  return mean_over_batch(batch, [&](int i, float) {
    Trace tr;
    forward(set[i].ids, true, mix_seed(desc_.seed, uint64_t(steps_), uint64_t(i)), tr);
    return binary_cross_entropy_logit(tr.logit(0, 0), float(set[i].label), nullptr, 1.0f);
  });
}

float SentimentModel::train_step(const std::vector<data::Review>& set, const std::vector<int>& batch) {
  const float l = forward_backward(set, batch);
  optimizer.step(params());
  ++steps_;
  return l;
}

EvalResult SentimentModel::evaluate(const std::vector<data::Review>& set) const {
  return evaluate_examples(set, [&](const data::Review& r) {
    Trace tr;
    forward(r.ids, false, 0, tr);
    const float z = tr.logit(0, 0);
    return ExampleScore{binary_cross_entropy_logit(z, float(r.label), nullptr, 1.0f), (z > 0.0f) == (r.label == 1)};
  });
}

float SentimentModel::predict(const std::vector<int>& ids) const {
  if (ids.empty()) return 0.5f;
  Trace tr;
  forward(ids, false, 0, tr);
  return sigmoid_f(tr.logit(0, 0));
}

std::vector<Mat> SentimentModel::head_weights(const std::vector<int>& ids) const {
  if (ids.empty()) return {};
  Trace tr;
  forward(ids, false, 0, tr);
  return tr.att.P;
}

Mat SentimentModel::attention_received(const std::vector<int>& ids) const {
  const std::vector<Mat> P = head_weights(ids);
  const int n = int(ids.size());
  Mat out = Mat::Zero(int(P.size()), n);
  for (size_t h = 0; h < P.size(); ++h) {
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) out(int(h), j) += P[h](i, j);
    for (int j = 0; j < n; ++j) out(int(h), j) /= float(n);
  }
  return out;
}

std::vector<ShapeInfo> SentimentModel::describe_shapes(int n, int batch) const {
  const int d = desc_.d_model, h = desc_.heads, dh = desc_.head_size, V = desc_.vocab;
  auto s = [](std::initializer_list<int> dims) {
    std::string out = "(";
    bool first = true;
    for (int x : dims) {
      out += (first ? "" : ", ") + std::to_string(x);
      first = false;
    }
    return out + ")";
  };
  return {
      {"word ids", "(batch, n) = " + s({batch, n}), "one review per row; the original pads to n = 80"},
      {"embedding table", "(V, d) = " + s({V, d}), "one learned row per word (original V = 10,000)"},
      {"embedded X", "(batch, n, d) = " + s({batch, n, d}), "row i = the embedding of word i"},
      {"position PE", "(n, d) = " + s({n, d}), "sinusoidal, frequencies 1/10000^(2i/d); added to X"},
      {"W_Q, W_K, W_V", "(d, h*d_h) = " + s({d, h * dh}), "one projection per role, all heads side by side"},
      {"Q, K, V", "(batch, n, h*d_h) = " + s({batch, n, h * dh}), "X' W_Q, X' W_K, X' W_V"},
      {"per-head Q_t, K_t, V_t", "(batch, h, n, d_h) = " + s({batch, h, n, dh}), "reshape, then swap n and h"},
      {"scores / weights", "(batch, h, n, n) = " + s({batch, h, n, n}),
       "Q_t K_t^T / sqrt(d_h), softmax over the last axis"},
      {"head outputs Z_t", "(batch, h, n, d_h) = " + s({batch, h, n, dh}), "weights times V_t"},
      {"concatenated Z", "(batch, n, h*d_h) = " + s({batch, n, h * dh}), "heads side by side again"},
      {"pooled g", "(batch, h*d_h) = " + s({batch, h * dh}), "mean over the n positions"},
      {"dropout(g)", "(batch, h*d_h) = " + s({batch, h * dh}), "p = 0.5 while training, identity when evaluating"},
      {"dense w, b", "(h*d_h, 1), (1) = " + s({h * dh, 1}) + ", (1)", "one logit per review"},
      {"p(positive)", "(batch, 1) = " + s({batch, 1}), "sigmoid of the logit; BCE against the label"},
  };
}

}  // namespace attn::train

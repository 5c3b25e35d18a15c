// sentiment_model.cpp: embedding -> PE -> multi-head self-attention -> average
// pooling -> dropout -> dense(1, sigmoid), trained with BCE and Adam.
//
// Sections: construction, forward, training (forward_backward, loss,
// train_step), evaluation and inspection (predict, head weights, shape table).
#include "train/sentiment_model.h"

#include <algorithm>
#include <string>

#include "attn/positional.h"
#include "base/enum_names.h"
#include "train/fmath.h"
#include "train/loss.h"

namespace attn::train {

namespace {
constexpr EnumName<PositionMode> kPositionModes[] = {
    {PositionMode::none, "none"}, {PositionMode::sum, "sum"}, {PositionMode::concat, "concat"}};
}  // namespace

const char* position_mode_name(PositionMode mode) { return enum_name(kPositionModes, mode); }
bool parse_position_mode(const std::string& name, PositionMode* mode) { return parse_enum(kPositionModes, name, mode); }

std::string sentiment_desc_error(const SentimentModelDesc& d) {
  if (d.vocab < 1) return "vocab must be at least 1 (got " + std::to_string(d.vocab) + ")";
  if (d.d_model < 1) return "d_model must be at least 1 (got " + std::to_string(d.d_model) + ")";
  if (d.heads < 1) return "heads must be at least 1 (got " + std::to_string(d.heads) + ")";
  if (d.head_size < 1) return "head_size must be at least 1 (got " + std::to_string(d.head_size) + ")";
  if (d.position == PositionMode::concat && (d.position_width < 1 || d.position_width >= d.d_model))
    return "position_width must be between 1 and d_model - 1 = " + std::to_string(d.d_model - 1) + " for concat (got " +
           std::to_string(d.position_width) + ")";
  if (!(d.dropout >= 0.0f && d.dropout < 1.0f)) return "dropout must be in [0, 1)";
  return "";
}

int sentiment_embed_width(const SentimentModelDesc& d) {
  return d.position == PositionMode::concat ? d.d_model - d.position_width : d.d_model;
}

SentimentModel::SentimentModel(const SentimentModelDesc& desc) : Model(desc.optimizer), desc_(desc) {
  Rng rng(desc.seed);
  embed_.init("embed", desc.vocab, sentiment_embed_width(desc), rng, 0.5f);
  attention_.init("attention", desc.d_model, desc.heads, desc.head_size, 0, rng);  // no W_O
  out_.init("out", desc.heads * desc.head_size, 1, rng);
}

void SentimentModel::collect(ParamList& p) {
  embed_.collect(p);
  attention_.collect(p);
  out_.collect(p);
}

struct SentimentModel::Trace {
  int n = 0;    // words; rows n.. of X are pads
  bool mask = true;
  Mat X;        // (L, d) X': embedded (pads 0), with PE added, appended or not at all
  SelfAttentionTrace att;  // att.out = Z (L, h*d_h)
  Mat mask_drop;  // (1, h*d_h) dropout mask (all ones at evaluation)
  Mat dropped;  // (1, h*d_h) g'
  Mat logit;    // (1, 1)
};

int SentimentModel::padded_length(const std::vector<int>& ids) const {
  return std::max(int(ids.size()), desc_.pad_length);
}

void SentimentModel::forward(const std::vector<int>& ids, int length, bool mask, bool training, uint64_t noise_seed,
                             Trace& tr) const {
  const int n = int(ids.size()), L = std::max(n, length);
  tr.n = n;
  tr.mask = mask;
  Mat X;
  embed_.forward(ids, X);  // (n, d_e)
  // Pad positions: no word, a zero row, then the position encoding like any row.
  // Masked, nothing ever reads a pad, so its row stays 0 and the encoding is
  // added to the words' rows only (the same numbers, less work).
  const int encoded = mask ? n : L;
  X.conservativeResize(encoded, Eigen::NoChange);
  X.bottomRows(encoded - n).setZero();
  switch (desc_.position) {
    case PositionMode::none: tr.X = X; break;
    case PositionMode::sum: tr.X = add_sinusoidal_position(X); break;
    case PositionMode::concat: {
      PositionalDesc pd;
      pd.n = int(X.rows());
      pd.d = desc_.position_width;
      tr.X = combine_positional(X, sinusoidal_encoding(pd), CombineKind::concat);
      break;
    }
  }
  if (L > encoded) {
    tr.X.conservativeResize(L, Eigen::NoChange);
    tr.X.bottomRows(L - encoded).setZero();
  }
  // Masked: the pads' scores are -inf for every query and their rows are left
  // out (layers.h); unmasked: they are keys, values and queries like the words.
  self_attention_forward(attention_, tr.X, tr.att, nullptr, mask ? n : -1);
  const Mat g = mask && L > n ? mean_rows(Mat(tr.att.out.topRows(n))) : mean_rows(tr.att.out);  // over the words only
  if (training && desc_.dropout > 0.0f) {
    Rng rng(noise_seed);
    tr.mask_drop = dropout_mask(1, int(g.cols()), desc_.dropout, rng);
  } else {
    tr.mask_drop = Mat::Ones(1, g.cols());
  }
  tr.dropped = apply_mask(g, tr.mask_drop);
  out_.forward(tr.dropped, tr.logit);
}

double SentimentModel::example_gradient(const Set& set, int i, float scale) {
  const std::vector<int>& ids = set[size_t(i)].ids;
  Trace tr;
  forward(ids, padded_length(ids), desc_.mask_padding, true, mix_seed(desc_.seed, uint64_t(steps_), uint64_t(i)), tr);
  Mat dlogit(1, 1);
  const float l = binary_cross_entropy_logit(tr.logit(0, 0), float(set[size_t(i)].label), &dlogit(0, 0), scale);
  Mat ddropped, dX;
  out_.backward(tr.dropped, dlogit, &ddropped);
  // The pooling's gradient goes to the rows it averaged: the n words when masked
  // (the pads' rows get 0), all L rows when not.
  const int L = int(tr.X.rows()), pooled = tr.mask ? tr.n : L;
  Mat dZ = mean_rows_backward(apply_mask(ddropped, tr.mask_drop), pooled);
  if (pooled < L) {
    dZ.conservativeResize(L, Eigen::NoChange);
    dZ.bottomRows(L - pooled).setZero();
  }
  self_attention_backward(attention_, tr.att, dZ, dX);
  // PE is constant: dX passes through the sum; with concat only the learned
  // columns go back to the embedding. Pad rows have no embedding to update.
  const Mat dwords = L > tr.n ? Mat(dX.topRows(tr.n)) : dX;
  if (desc_.position == PositionMode::concat)
    embed_.backward(ids, combine_positional_backward(dwords, sentiment_embed_width(desc_), CombineKind::concat));
  else
    embed_.backward(ids, dwords);
  return l;
}

double SentimentModel::example_loss(const Set& set, int i) const {
  const std::vector<int>& ids = set[size_t(i)].ids;
  Trace tr;
  forward(ids, padded_length(ids), desc_.mask_padding, true, mix_seed(desc_.seed, uint64_t(steps_), uint64_t(i)), tr);
  return binary_cross_entropy_logit(tr.logit(0, 0), float(set[size_t(i)].label), nullptr, 1.0f);
}

EvalResult SentimentModel::evaluate(const std::vector<data::Review>& set) const {
  return evaluate_examples(set, [&](const data::Review& r) {
    Trace tr;
    forward(r.ids, padded_length(r.ids), desc_.mask_padding, false, 0, tr);
    const float z = tr.logit(0, 0);
    return ExampleScore{binary_cross_entropy_logit(z, float(r.label), nullptr, 1.0f), (z > 0.0f) == (r.label == 1)};
  });
}

float SentimentModel::predict(const std::vector<int>& ids) const {
  return predict(ids, padded_length(ids), desc_.mask_padding);
}

float SentimentModel::predict(const std::vector<int>& ids, int length, bool mask) const {
  if (ids.empty()) return 0.5f;
  Trace tr;
  forward(ids, length, mask, false, 0, tr);
  return sigmoid_f(tr.logit(0, 0));
}

std::vector<Mat> SentimentModel::head_weights(const std::vector<int>& ids) const {
  // The words' own weights: (n, n), what the pads would add is not shown here.
  std::vector<Mat> P = head_weights(ids, padded_length(ids), desc_.mask_padding);
  const Eigen::Index n = Eigen::Index(ids.size());
  for (Mat& p : P) p = Mat(p.topLeftCorner(n, n));
  return P;
}

std::vector<Mat> SentimentModel::head_weights(const std::vector<int>& ids, int length, bool mask) const {
  if (ids.empty()) return {};
  Trace tr;
  forward(ids, length, mask, false, 0, tr);
  return tr.att.P;
}

float SentimentModel::weight_on_padding(const std::vector<int>& ids, int length, bool mask) const {
  const std::vector<Mat> P = head_weights(ids, length, mask);
  const Eigen::Index n = Eigen::Index(ids.size());
  double total = 0.0;
  for (const Mat& p : P) total += p.topRightCorner(n, p.cols() - n).sum() / double(n);
  return P.empty() ? 0.0f : float(total / double(P.size()));
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

namespace {
std::string dims(std::initializer_list<int> ds) {
  std::string out = "(";
  bool first = true;
  for (int x : ds) {
    out += (first ? "" : ", ") + std::to_string(x);
    first = false;
  }
  return out + ")";
}

std::string percent(float p) { return std::to_string(int(p * 100.0f + 0.5f)) + "%"; }
}  // namespace

std::vector<ShapeInfo> SentimentModel::describe_shapes(int n, int batch) const {
  const int d = desc_.d_model, h = desc_.heads, dh = desc_.head_size, V = desc_.vocab;
  const int de = sentiment_embed_width(desc_), dp = desc_.position_width;
  std::vector<ShapeInfo> out = {
      {"word ids", "(batch, n) = " + dims({batch, n}),
       desc_.pad_length > 0 ? "one review per row, its words then pads up to n = " + std::to_string(desc_.pad_length) +
                                  " (the original pads to 80)"
                            : "one review per row; the original pads to n = 80"},
      {"embedding table", "(V, d_e) = " + dims({V, de}), "one learned row per word (original V = 20,000)"},
      {"embedded X", "(batch, n, d_e) = " + dims({batch, n, de}), "row i = the embedding of word i"},
  };
  switch (desc_.position) {
    case PositionMode::none:
      out.push_back({"X' = X", "(batch, n, d) = " + dims({batch, n, d}),
                     "no position encoding: shuffle the words and nothing changes"});
      break;
    case PositionMode::sum:
      out.push_back({"position PE", "(n, d) = " + dims({n, d}), "sinusoidal, frequencies 1/10000^(2i/d)"});
      out.push_back({"X' = X + PE", "(batch, n, d) = " + dims({batch, n, d}), "added: the same d columns carry both"});
      break;
    case PositionMode::concat:
      out.push_back({"position PE", "(n, d_pe) = " + dims({n, dp}), "sinusoidal, frequencies 1/10000^(2i/d_pe)"});
      out.push_back({"X' = [X | PE]", "(batch, n, d_e + d_pe) = " + dims({batch, n, d}),
                     std::to_string(de) + " learned columns, then " + std::to_string(dp) + " position columns"});
      break;
  }
  if (desc_.pad_length > 0)
    out.insert(out.begin() + 1, {"padding mask", "(batch, n) = " + dims({batch, n}),
                                 desc_.mask_padding ? "1 on words, 0 on pads: a pad's score is -inf, and the mean skips it"
                                                    : "off: pads are attended to and averaged like words"});
  const std::string drop = desc_.dropout > 0.0f ? "p = " + percent(desc_.dropout) + " while training, identity when evaluating"
                                                : "off: g passes unchanged";
  const std::vector<ShapeInfo> rest = {
      {"W_Q, W_K, W_V", "(d, h*d_h) = " + dims({d, h * dh}), "one projection per role, all heads side by side"},
      {"Q, K, V", "(batch, n, h*d_h) = " + dims({batch, n, h * dh}), "X' W_Q, X' W_K, X' W_V"},
      {"per-head Q_t, K_t, V_t", "(batch, h, n, d_h) = " + dims({batch, h, n, dh}), "reshape, then swap n and h"},
      {"scores / weights", "(batch, h, n, n) = " + dims({batch, h, n, n}), "Q_t K_t^T / sqrt(d_h), softmax over the last axis"},
      {"head outputs Z_t", "(batch, h, n, d_h) = " + dims({batch, h, n, dh}), "weights times V_t"},
      {"concatenated Z", "(batch, n, h*d_h) = " + dims({batch, n, h * dh}), "heads side by side again"},
      {"pooled g", "(batch, h*d_h) = " + dims({batch, h * dh}), "mean over the n positions"},
      {"dropout(g)", "(batch, h*d_h) = " + dims({batch, h * dh}), drop},
      {"dense w, b", "(h*d_h, 1), (1) = " + dims({h * dh, 1}) + ", (1)", "one logit per review"},
      {"p(positive)", "(batch, 1) = " + dims({batch, 1}), "sigmoid of the logit; BCE against the label"},
  };
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

std::vector<ShapeInfo> SentimentModel::describe_layers(int n, int batch) const {
  const int d = desc_.d_model, h = desc_.heads, dh = desc_.head_size, V = desc_.vocab;
  const int de = sentiment_embed_width(desc_), dp = desc_.position_width;
  const std::string pe = desc_.position == PositionMode::none  ? "left out: X' = X"
                         : desc_.position == PositionMode::sum ? "X + PE (n, " + std::to_string(d) + ")"
                                                               : "[X | PE], PE (n, " + std::to_string(dp) + ")";
  return {
      {"Input", dims({batch, n}), "word ids"},
      {"Embedding", dims({batch, n, de}), "table (V, d_e) = " + dims({V, de})},
      {"Position_Embedding", dims({batch, n, d}), pe},
      {"Attention", dims({batch, n, h * dh}), std::to_string(h) + " heads of d_h = " + std::to_string(dh) +
                                                   ", W_Q, W_K, W_V (" + std::to_string(d) + ", " + std::to_string(h * dh) + ")"},
      {"GlobalAveragePooling1D", dims({batch, h * dh}), "mean over the n words"},
      {"Dropout", dims({batch, h * dh}), desc_.dropout > 0.0f ? "rate " + percent(desc_.dropout) + ", training only" : "off"},
      {"Dense", dims({batch, 1}), "1 unit, sigmoid: p(positive)"},
  };
}

}  // namespace attn::train

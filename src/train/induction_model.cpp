// induction_model.cpp: token and position embedding -> causal attention-only
// layers on a residual stream -> unembedding, trained on next-token
// cross-entropy with Adam; evaluation by halves, head probes and edits.
//
// Sections: 1 edits, 2 construction, 3 forward, 4 training, 5 evaluation and
// inspection, 6 head scores.
#include "train/induction_model.h"

#include <algorithm>
#include <string>

#include "train/kernels.h"
#include "train/loss.h"

namespace attn::train {

// ---------------------------------------------------------------- 1 edits
void InductionEdits::scale_head(int l, int head, float scale) {
  if (l < 0 || head < 0) return;
  if (int(layer.size()) <= l) layer.resize(size_t(l) + 1);
  std::vector<float>& s = layer[size_t(l)].head_scale;
  if (int(s.size()) <= head) s.resize(size_t(head) + 1, 1.0f);
  s[size_t(head)] = scale;
}

void InductionEdits::override_row(int l, int head, int row, const std::vector<float>& weights) {
  if (l < 0 || head < 0) return;
  if (int(layer.size()) <= l) layer.resize(size_t(l) + 1);
  AttentionEdits& e = layer[size_t(l)];
  e.row_head = head;
  e.row = row;
  e.row_weights = weights;
}

// ---------------------------------------------------------------- 2 construction
InductionModel::InductionModel(const InductionModelDesc& desc) : Model(desc.optimizer), desc_(desc) {
  Rng rng(desc.seed);
  embed_.init("embed", desc.vocab, desc.d_model, rng, 0.5f);
  pos_ = make_param("pos", desc.max_length, desc.d_model);
  uniform_init(pos_, rng, 0.5f);
  layers_.resize(size_t(desc.layers));
  for (int l = 0; l < desc.layers; ++l) {
    SelfAttentionLayer& a = layers_[size_t(l)];
    a.init("layer" + std::to_string(l + 1), desc.d_model, desc.heads, desc.head_size, desc.d_model, rng);
    a.causal = true;
  }
  unembed_.init("unembed", desc.d_model, desc.vocab, rng);
}

void InductionModel::collect(ParamList& p) {
  embed_.collect(p);
  p.push_back(&pos_);
  for (SelfAttentionLayer& a : layers_) a.collect(p);
  unembed_.collect(p);
}

// ---------------------------------------------------------------- 3 forward
struct InductionModel::Trace {
  std::vector<Mat> X;                    // layers + 1 residual streams (n, d)
  std::vector<SelfAttentionTrace> att;   // one per layer
  Mat logits;                            // (n, V)
};

void InductionModel::forward(const std::vector<int>& tokens, const InductionEdits* edits, Trace& tr) const {
  const int n = int(tokens.size()), d = desc_.d_model;
  tr.X.assign(layers_.size() + 1, Mat());
  tr.att.assign(layers_.size(), SelfAttentionTrace());
  embed_.forward(tokens, tr.X[0]);
  for (int i = 0; i < n; ++i) axpy(1.0f, &pos_.value(position_row(i), 0), &tr.X[0](i, 0), d);
  for (size_t l = 0; l < layers_.size(); ++l) {
    self_attention_forward(layers_[l], tr.X[l], tr.att[l], edits ? edits->of(int(l)) : nullptr);
    tr.X[l + 1] = tr.X[l];
    for (int i = 0; i < n; ++i) axpy(1.0f, &tr.att[l].out(i, 0), &tr.X[l + 1](i, 0), d);
  }
  unembed_.forward(tr.X.back(), tr.logits);
}

double InductionModel::sequence_loss(const Mat& logits, const std::vector<int>& tokens, float scale, Mat* dlogits) {
  const int n = int(tokens.size()), V = int(logits.cols());
  if (dlogits) dlogits->setZero(n, V);
  double total = 0.0;
  for (int i = 0; i + 1 < n; ++i)
    total += softmax_cross_entropy_row(&logits(i, 0), V, tokens[size_t(i) + 1], dlogits ? &(*dlogits)(i, 0) : nullptr,
                                       scale);
  return total;
}

// ---------------------------------------------------------------- 4 training
float InductionModel::forward_backward(const Set& set, const std::vector<int>& batch, const InductionEdits* edits) {
  edits_ = edits;
  const float l = Model::forward_backward(set, batch);
  edits_ = nullptr;
  return l;
}

float InductionModel::loss(const Set& set, const std::vector<int>& batch, const InductionEdits* edits) const {
  return mean_over_batch(batch, [&](int i, float) { return sequence_mean_loss(set[size_t(i)].tokens, edits); });
}

double InductionModel::example_loss(const Set& set, int i) const {
  return sequence_mean_loss(set[size_t(i)].tokens, edits_);
}

double InductionModel::sequence_mean_loss(const std::vector<int>& tokens, const InductionEdits* edits) const {
  if (tokens.size() < 2) return 0.0;
  Trace tr;
  forward(tokens, edits, tr);
  return sequence_loss(tr.logits, tokens, 1.0f, nullptr) / double(tokens.size() - 1);
}

// The loss of a sequence is the mean over its targets, so each target's
// gradient is scaled by 1 / (n - 1) as well as by the batch's 1 / B.
double InductionModel::example_gradient(const Set& set, int i, float scale) {
  const std::vector<int>& tokens = set[size_t(i)].tokens;
  const int n = int(tokens.size()), d = desc_.d_model;
  if (n < 2) return 0.0;
  Trace tr;
  forward(tokens, edits_, tr);
  const float per_target = 1.0f / float(n - 1);
  Mat dlogits, dX, dA;
  const double total = sequence_loss(tr.logits, tokens, scale * per_target, &dlogits) * double(per_target);
  unembed_.backward(tr.X.back(), dlogits, &dX);
  for (size_t l = layers_.size(); l-- > 0;) {
    self_attention_backward(layers_[l], tr.att[l], dX, dA);
    dX += dA;  // the residual passes dX through unchanged
  }
  for (int j = 0; j < n; ++j) axpy(1.0f, &dX(j, 0), &pos_.grad(position_row(j), 0), d);
  embed_.backward(tokens, dX);
  return total;
}

// ---------------------------------------------------------------- 5 evaluation and inspection
InductionEval InductionModel::evaluate(const std::vector<data::InductionSequence>& set,
                                       const InductionEdits* edits, HeadScores* scores) const {
  double loss[3] = {0.0, 0.0, 0.0};
  int right[3] = {0, 0, 0}, count[3] = {0, 0, 0};
  if (scores) *scores = HeadScores{Mat::Zero(desc_.layers, desc_.heads), Mat::Zero(desc_.layers, desc_.heads)};
  for (const data::InductionSequence& s : set) {
    Trace tr;
    forward(s.tokens, edits, tr);
    if (scores) add_head_scores(tr.att, s, scores);
    const int n = int(s.tokens.size()), V = desc_.vocab, half_length = s.half_length();
    for (int j = 1; j < n; ++j) {  // target j, predicted from row j - 1
      const float* z = &tr.logits(j - 1, 0);
      const int y = s.tokens[size_t(j)];
      const double l = softmax_cross_entropy_row(z, V, y, nullptr, 1.0f);
      const bool ok = argmax(z, V) == y;
      const int part = data::is_first_half_target(j, half_length)      ? 0
                       : data::is_repeated_half_target(j, half_length) ? 1
                                                                       : -1;
      for (int k : {part, 2}) {
        if (k < 0) continue;
        loss[k] += l;
        right[k] += ok;
        ++count[k];
      }
    }
  }
  if (scores && !set.empty()) {
    scores->previous_token /= float(set.size());
    scores->induction /= float(set.size());
  }
  EvalResult r[3];
  for (int k = 0; k < 3; ++k) {
    r[k].count = count[k];
    if (count[k]) {
      r[k].loss = float(loss[k] / count[k]);
      r[k].accuracy = float(right[k]) / float(count[k]);
    }
  }
  return InductionEval{r[0], r[1], r[2]};
}

Mat InductionModel::logits(const std::vector<int>& tokens, const InductionEdits* edits) const {
  if (tokens.empty()) return Mat();
  Trace tr;
  forward(tokens, edits, tr);
  return tr.logits;
}

std::vector<int> InductionModel::predictions(const std::vector<int>& tokens, const InductionEdits* edits) const {
  const Mat z = logits(tokens, edits);
  std::vector<int> out;
  for (Eigen::Index i = 0; i < z.rows(); ++i) out.push_back(argmax(&z(i, 0), int(z.cols())));
  return out;
}

std::vector<std::vector<Mat>> InductionModel::attention(const std::vector<int>& tokens,
                                                        const InductionEdits* edits) const {
  if (tokens.empty()) return {};
  Trace tr;
  forward(tokens, edits, tr);
  std::vector<std::vector<Mat>> out;
  for (const SelfAttentionTrace& a : tr.att) out.push_back(a.P);
  return out;
}

// ---------------------------------------------------------------- 6 head scores
float previous_token_score(const Mat& P) {
  const int n = int(P.rows());
  if (n < 2) return 0.0f;
  double total = 0.0;
  for (int i = 1; i < n; ++i) total += P(i, i - 1);
  return float(total / (n - 1));
}

float induction_score(const Mat& P, const std::vector<int>& tokens, int half_length) {
  const int n = std::min(int(tokens.size()), int(P.rows()));
  double total = 0.0;
  int queries = 0;
  for (int i = 0; i < n; ++i) {
    if (!data::is_repeated_half_target(i + 1, half_length)) continue;
    double w = 0.0;
    for (int k = 0; k < i; ++k)
      if (tokens[size_t(k)] == tokens[size_t(i)]) w += P(i, k + 1);
    total += w;
    ++queries;
  }
  return queries ? float(total / queries) : 0.0f;
}

void InductionModel::add_head_scores(const std::vector<SelfAttentionTrace>& att, const data::InductionSequence& seq,
                                     HeadScores* sum) {
  for (int l = 0; l < int(att.size()); ++l)
    for (int h = 0; h < int(att[size_t(l)].P.size()); ++h) {
      const Mat& P = att[size_t(l)].P[size_t(h)];
      sum->previous_token(l, h) += previous_token_score(P);
      sum->induction(l, h) += induction_score(P, seq.tokens, seq.half_length());
    }
}

HeadScores head_scores(const InductionModel& model, const std::vector<data::InductionSequence>& set,
                       const InductionEdits* edits) {
  HeadScores s;
  model.evaluate(set, edits, &s);
  return s;
}

}  // namespace attn::train

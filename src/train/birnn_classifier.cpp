// birnn_classifier.cpp: BiGRU + attention pooling or average pooling.
#include "train/birnn_classifier.h"

#include "train/fmath.h"
#include "train/loss.h"

namespace attn::train {

const char* pooling_kind_name(PoolingKind kind) { return kind == PoolingKind::attention ? "attention" : "average"; }

BiRnnClassifier::BiRnnClassifier(const BiRnnClassifierDesc& desc) : Model(desc.optimizer), desc_(desc) {
  Rng rng(desc.seed);
  embed_.init("embed", desc.vocab, desc.embed, rng, 0.5f);
  forward_rnn_.init("forward_rnn", desc.cell, desc.embed, desc.hidden, rng);
  backward_rnn_.init("backward_rnn", desc.cell, desc.embed, desc.hidden, rng);
  if (desc.pooling == PoolingKind::attention) pool_.init("pool", 2 * desc.hidden, desc.attention_size, rng);
  out_.init("out", 2 * desc.hidden, 1, rng);
}

void BiRnnClassifier::collect(ParamList& p) {
  embed_.collect(p);
  forward_rnn_.collect(p);
  backward_rnn_.collect(p);
  if (desc_.pooling == PoolingKind::attention) pool_.collect(p);
  out_.collect(p);
}

struct BiRnnClassifier::Trace {
  Mat X;                       // (n, E)
  RecurrentTrace fwd, bwd;     // H: (n, H) each
  Mat Hs;                      // (n, 2H)
  AttentionPoolingTrace pool;  // alpha (1, n), pooled (1, 2H)
  Mat pooled;                  // (1, 2H)
  Mat logit;                   // (1, 1)
};

void BiRnnClassifier::forward(const std::vector<int>& ids, Trace& tr) const {
  const int n = int(ids.size()), H = desc_.hidden;
  embed_.forward(ids, tr.X);
  recurrent_forward(forward_rnn_, tr.X, false, tr.fwd);
  recurrent_forward(backward_rnn_, tr.X, true, tr.bwd);
  tr.Hs.resize(n, 2 * H);
  tr.Hs.leftCols(H) = tr.fwd.H;
  tr.Hs.rightCols(H) = tr.bwd.H;
  if (desc_.pooling == PoolingKind::attention) {
    attention_pooling_forward(pool_, tr.Hs, tr.pool);
    tr.pooled = tr.pool.pooled;
  } else {
    tr.pooled = mean_rows(tr.Hs);
  }
  out_.forward(tr.pooled, tr.logit);
}

double BiRnnClassifier::example_gradient(const Set& set, int i, float scale) {
  const int H = desc_.hidden;
  const std::vector<int>& ids = set[size_t(i)].ids;
  const int n = int(ids.size());
  Trace tr;
  forward(ids, tr);
  Mat dlogit(1, 1), dpooled;
  const float l = binary_cross_entropy_logit(tr.logit(0, 0), float(set[size_t(i)].label), &dlogit(0, 0), scale);
  out_.backward(tr.pooled, dlogit, &dpooled);
  Mat dHs;
  if (desc_.pooling == PoolingKind::attention) {
    dHs = Mat::Zero(n, 2 * H);
    attention_pooling_backward(pool_, tr.Hs, tr.pool, dpooled, dHs);
  } else {
    dHs = mean_rows_backward(dpooled, n);
  }
  const Mat dH_f = dHs.leftCols(H), dH_b = dHs.rightCols(H);
  Mat dX_f, dX_b;
  recurrent_backward(forward_rnn_, tr.fwd, dH_f, &dX_f);
  recurrent_backward(backward_rnn_, tr.bwd, dH_b, &dX_b);
  for (Eigen::Index k = 0; k < dX_f.size(); ++k) dX_f.data()[k] += dX_b.data()[k];
  embed_.backward(ids, dX_f);
  return l;
}

double BiRnnClassifier::example_loss(const Set& set, int i) const {
  Trace tr;
  forward(set[size_t(i)].ids, tr);
  return binary_cross_entropy_logit(tr.logit(0, 0), float(set[size_t(i)].label), nullptr, 1.0f);
}

EvalResult BiRnnClassifier::evaluate(const std::vector<data::Review>& set) const {
  return evaluate_examples(set, [&](const data::Review& r) {
    Trace tr;
    forward(r.ids, tr);
    const float z = tr.logit(0, 0);
    return ExampleScore{binary_cross_entropy_logit(z, float(r.label), nullptr, 1.0f), (z > 0.0f) == (r.label == 1)};
  });
}

float BiRnnClassifier::predict(const std::vector<int>& ids) const {
  if (ids.empty()) return 0.5f;
  Trace tr;
  forward(ids, tr);
  return sigmoid_f(tr.logit(0, 0));
}

Mat BiRnnClassifier::word_weights(const std::vector<int>& ids) const {
  const int n = int(ids.size());
  if (n == 0) return Mat();
  if (desc_.pooling == PoolingKind::average) return Mat::Constant(1, n, 1.0f / float(n));
  Trace tr;
  forward(ids, tr);
  return tr.pool.alpha;
}

}  // namespace attn::train

// sequence_classifier.cpp: recurrent and self-attention classifiers for the
// long-range task (see sequence_classifier.h).
//
// Sections: 1 names and construction, 2 forward, 3 backward, 4 training and
// evaluation.
#include "train/sequence_classifier.h"

#include <algorithm>
#include <cmath>

#include "base/enum_names.h"
#include "train/fmath.h"
#include "train/kernels.h"
#include "train/loss.h"

namespace attn::train {

// ---------------------------------------------------------------- 1 names and construction
namespace {
constexpr EnumName<SequenceModelKind> kSequenceModelKinds[] = {
    {SequenceModelKind::rnn_tanh, "rnn"},           {SequenceModelKind::lstm, "lstm"},
    {SequenceModelKind::gru, "gru"},                {SequenceModelKind::attention, "attention"},
    {SequenceModelKind::rnn_tanh, "rnn_tanh"},      {SequenceModelKind::attention, "transformer"},
    {SequenceModelKind::attention, "self_attention"}};
}  // namespace

const char* sequence_model_kind_name(SequenceModelKind kind) { return enum_name(kSequenceModelKinds, kind); }
bool parse_sequence_model_kind(const std::string& name, SequenceModelKind* kind) {
  return parse_enum(kSequenceModelKinds, name, kind);
}

namespace {
CellKind cell_of(SequenceModelKind kind) {
  return kind == SequenceModelKind::lstm ? CellKind::lstm
                                         : (kind == SequenceModelKind::gru ? CellKind::gru : CellKind::rnn_tanh);
}
}  // namespace

SequenceClassifier::SequenceClassifier(const SequenceClassifierDesc& desc) : Model(desc.optimizer), desc_(desc) {
  Rng rng(desc.seed);
  const int E = desc.embed;
  embed_.init("embed", desc.vocab, E, rng, 0.5f);
  if (desc.kind == SequenceModelKind::attention) {
    const int heads = desc.heads > 0 ? desc.heads : 1;
    blocks_.resize(desc.layers > 0 ? desc.layers : 1);
    for (size_t l = 0; l < blocks_.size(); ++l) {
      const std::string name = "block" + std::to_string(l);
      blocks_[l].attention.init(name + ".attention", E, heads, E / heads, E, rng);
      blocks_[l].ffn_in.init(name + ".ffn_in", E, desc.ffn, rng);
      blocks_[l].ffn_out.init(name + ".ffn_out", desc.ffn, E, rng);
    }
    head_.init("head", E, desc.classes, rng);
  } else {
    rnn_.init("rnn", cell_of(desc.kind), E, desc.hidden, rng);
    head_.init("head", desc.hidden, desc.classes, rng);
  }
}

void SequenceClassifier::collect(ParamList& p) {
  embed_.collect(p);
  if (desc_.kind == SequenceModelKind::attention) {
    for (Block& b : blocks_) {
      b.attention.collect(p);
      b.ffn_in.collect(p);
      b.ffn_out.collect(p);
    }
  } else {
    rnn_.collect(p);
  }
  head_.collect(p);
}

// ---------------------------------------------------------------- 2 forward
struct SequenceClassifier::Trace {
  struct BlockTrace {
    SelfAttentionTrace attention;
    Mat X_mid;   // (n, E) X_in + attention
    Mat F1;      // (n, ffn) before ReLU
    Mat R;       // (n, ffn) after ReLU
    Mat X_out;   // (n, E)
  };
  Mat X0;                         // (n, E) embedded (+ PE for attention with positions)
  RecurrentTrace rnn;
  std::vector<BlockTrace> blocks;
  Mat last;                       // (1, E or H) the read-out row (or mean row)
  Mat logits;                     // (1, classes)
};

void SequenceClassifier::forward(const std::vector<int>& tokens, Trace& tr) const {
  const int n = int(tokens.size());
  Mat X;
  embed_.forward(tokens, X);
  if (desc_.kind == SequenceModelKind::attention) {
    tr.X0 = desc_.positions ? add_sinusoidal_position(X) : X;
    tr.blocks.resize(blocks_.size());
    const Mat* X_in = &tr.X0;
    for (size_t l = 0; l < blocks_.size(); ++l) {
      Trace::BlockTrace& bt = tr.blocks[l];
      self_attention_forward(blocks_[l].attention, *X_in, bt.attention);
      bt.X_mid = *X_in;
      for (Eigen::Index k = 0; k < bt.X_mid.size(); ++k) bt.X_mid.data()[k] += bt.attention.out.data()[k];
      blocks_[l].ffn_in.forward(bt.X_mid, bt.F1);
      bt.R = relu(bt.F1);
      blocks_[l].ffn_out.forward(bt.R, bt.X_out);
      for (Eigen::Index k = 0; k < bt.X_out.size(); ++k) bt.X_out.data()[k] += bt.X_mid.data()[k];
      X_in = &bt.X_out;
    }
    if (desc_.mean_readout) {
      // The mean row, summed row by row in order: Eigen's colwise().mean() sums
      // in a tree when it vectorises and in a line when it does not, so a build
      // without SIMD trained to different bits.
      tr.last = Mat::Zero(1, X_in->cols());
      for (int i = 0; i < n; ++i) axpy(1.0f, &(*X_in)(i, 0), tr.last.data(), int(X_in->cols()));
      for (Eigen::Index c = 0; c < tr.last.cols(); ++c) tr.last(0, c) /= float(n);
    } else {
      tr.last = X_in->row(n - 1);
    }
  } else {
    tr.X0 = X;
    recurrent_forward(rnn_, tr.X0, false, tr.rnn);
    tr.last = tr.rnn.H.row(n - 1);
  }
  head_.forward(tr.last, tr.logits);
}

// ---------------------------------------------------------------- 3 backward
void SequenceClassifier::backward(const std::vector<int>& tokens, Trace& tr, const float* dlogits) {
  const int n = int(tokens.size());
  Mat dlogit_row(1, desc_.classes), dlast;
  for (int c = 0; c < desc_.classes; ++c) dlogit_row(0, c) = dlogits[c];
  head_.backward(tr.last, dlogit_row, &dlast);
  Mat dX0;
  if (desc_.kind == SequenceModelKind::attention) {
    Mat dX = Mat::Zero(n, desc_.embed);
    if (desc_.mean_readout) {
      for (int i = 0; i < n; ++i) dX.row(i) = dlast / float(n);  // every row counts 1/n
    } else {
      dX.row(n - 1) = dlast;  // only the last row is read out
    }
    for (int l = int(blocks_.size()) - 1; l >= 0; --l) {
      Trace::BlockTrace& bt = tr.blocks[l];
      Block& b = blocks_[l];
      // X_out = X_mid + ffn(X_mid): both paths reach X_mid.
      Mat dR, dX_mid;
      b.ffn_out.backward(bt.R, dX, &dR);
      b.ffn_in.backward(bt.X_mid, relu_backward(bt.F1, dR), &dX_mid);
      for (Eigen::Index k = 0; k < dX_mid.size(); ++k) dX_mid.data()[k] += dX.data()[k];
      // X_mid = X_in + attention(X_in).
      Mat dX_att;
      self_attention_backward(b.attention, bt.attention, dX_mid, dX_att);
      for (Eigen::Index k = 0; k < dX_att.size(); ++k) dX_att.data()[k] += dX_mid.data()[k];
      dX = dX_att;
    }
    dX0 = dX;  // PE (if any) is a constant: the embedding receives dX_0 unchanged
  } else {
    Mat dH = Mat::Zero(n, desc_.hidden);
    dH.row(n - 1) = dlast;
    recurrent_backward(rnn_, tr.rnn, dH, &dX0);
  }
  embed_.backward(tokens, dX0);
}

// ---------------------------------------------------------------- 4 training and evaluation
double SequenceClassifier::example_gradient(const Set& set, int i, float scale) {
  std::vector<float> dlogits(size_t(desc_.classes));
  Trace tr;
  forward(set[size_t(i)].tokens, tr);
  const float l = softmax_cross_entropy_row(tr.logits.data(), desc_.classes, set[size_t(i)].label, dlogits.data(), scale);
  backward(set[size_t(i)].tokens, tr, dlogits.data());
  return l;
}

double SequenceClassifier::example_loss(const Set& set, int i) const {
  Trace tr;
  forward(set[size_t(i)].tokens, tr);
  return softmax_cross_entropy_row(tr.logits.data(), desc_.classes, set[size_t(i)].label, nullptr, 1.0f);
}

EvalResult SequenceClassifier::evaluate(const std::vector<data::LabeledSequence>& set) const {
  return evaluate_examples(set, [&](const data::LabeledSequence& ex) {
    Trace tr;
    forward(ex.tokens, tr);
    return ExampleScore{softmax_cross_entropy_row(tr.logits.data(), desc_.classes, ex.label, nullptr, 1.0f),
                        argmax(tr.logits.data(), desc_.classes) == ex.label};
  });
}

int SequenceClassifier::predict(const std::vector<int>& tokens) const {
  if (tokens.empty()) return 0;
  Trace tr;
  forward(tokens, tr);
  return argmax(tr.logits.data(), desc_.classes);
}

std::vector<float> SequenceClassifier::probabilities(const std::vector<int>& tokens) const {
  std::vector<float> p(size_t(desc_.classes), 1.0f / float(desc_.classes));
  if (tokens.empty()) return p;
  Trace tr;
  forward(tokens, tr);
  const float top = tr.logits.maxCoeff();
  float sum = 0.0f;
  for (int c = 0; c < desc_.classes; ++c) sum += p[size_t(c)] = exp_f(tr.logits(0, c) - top);  // same bits everywhere
  for (float& v : p) v /= sum;
  return p;
}

std::vector<std::vector<Mat>> SequenceClassifier::attention_weights(const std::vector<int>& tokens) const {
  std::vector<std::vector<Mat>> out;
  if (desc_.kind != SequenceModelKind::attention || tokens.empty()) return out;
  Trace tr;
  forward(tokens, tr);
  for (const Trace::BlockTrace& bt : tr.blocks) out.push_back(bt.attention.P);
  return out;
}

}  // namespace attn::train

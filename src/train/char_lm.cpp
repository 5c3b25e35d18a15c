// char_lm.cpp: the character language model's forward and backward passes,
// its evaluation, and sampling (see char_lm.h).
//
// Sections: 1 construction, 2 forward, 3 backward, 4 evaluation and inspection,
// 5 sampling.
#include "train/char_lm.h"

#include <algorithm>
#include <string>

#include "train/fmath.h"
#include "train/kernels.h"
#include "train/loss.h"

namespace attn::train {

// ---------------------------------------------------------------- 1 construction
CharLm::CharLm(const CharLmDesc& desc) : Model(desc.optimizer), desc_(desc) {
  Rng rng(desc.seed);
  const int d = desc.d_model, heads = std::max(1, desc.heads);
  embed_.init("embed", desc.vocab, d, rng, 0.1f);
  pos_ = make_param("pos", desc.context, d);
  uniform_init(pos_, rng, 0.1f);
  blocks_.resize(size_t(desc.layers));
  for (int l = 0; l < desc.layers; ++l) {
    Block& b = blocks_[size_t(l)];
    const std::string name = "block" + std::to_string(l + 1);
    b.ln1.init(name + ".ln1", d);
    b.attention.init(name + ".attention", d, heads, std::max(1, d / heads), d, rng);
    b.attention.causal = true;
    b.ln2.init(name + ".ln2", d);
    b.ffn.init(name + ".ffn", d, desc.d_ff, rng);
  }
  final_norm_.init("final_norm", d);
  unembed_.init("unembed", d, desc.vocab, rng);
}

void CharLm::collect(ParamList& p) {
  embed_.collect(p);
  p.push_back(&pos_);
  for (Block& b : blocks_) {
    b.ln1.collect(p);
    b.attention.collect(p);
    b.ln2.collect(p);
    b.ffn.collect(p);
  }
  final_norm_.collect(p);
  unembed_.collect(p);
}

// ---------------------------------------------------------------- 2 forward
struct CharLm::Trace {
  struct BlockTrace {
    LayerNormTrace ln1, ln2;
    SelfAttentionTrace attention;
    FeedForwardTrace ffn;
  };
  std::vector<int> inputs;         // tokens[0..n-1]
  Mat X0;                          // (n, d) embeddings + positions
  std::vector<Mat> mid, out;       // per block: X after attention, after the FFN (n, d)
  std::vector<BlockTrace> blocks;
  LayerNormTrace final_norm;
  Mat logits;                      // (n, V)
};

CharLmEdits scale_head(int layers, int layer, int head, int heads, float scale) {
  CharLmEdits e(size_t(std::max(0, layers)));
  if (layer >= 0 && layer < layers && head >= 0 && head < heads) {
    e[size_t(layer)].head_scale.assign(size_t(heads), 1.0f);
    e[size_t(layer)].head_scale[size_t(head)] = scale;
  }
  return e;
}

void CharLm::forward(const std::vector<int>& tokens, Trace& tr, const CharLmEdits* edits) const {
  const size_t L = blocks_.size();
  const int d = desc_.d_model;
  tr.inputs = tokens;
  if (int(tr.inputs.size()) > desc_.context) tr.inputs.erase(tr.inputs.begin(), tr.inputs.end() - desc_.context);
  const int n = int(tr.inputs.size());
  embed_.forward(tr.inputs, tr.X0);
  for (int i = 0; i < n; ++i) axpy(1.0f, &pos_.value(i, 0), &tr.X0(i, 0), d);
  tr.mid.assign(L, Mat());
  tr.out.assign(L, Mat());
  tr.blocks.assign(L, Trace::BlockTrace());
  const Mat* X = &tr.X0;
  for (size_t l = 0; l < L; ++l) {
    const Block& b = blocks_[l];
    Trace::BlockTrace& bt = tr.blocks[l];
    layer_norm_forward(b.ln1, *X, bt.ln1);
    const AttentionEdits* e = edits && l < edits->size() ? &(*edits)[l] : nullptr;
    self_attention_forward(b.attention, bt.ln1.out, bt.attention, e);
    tr.mid[l] = *X + bt.attention.out;  // the residual: X + MHA(LN1(X))
    layer_norm_forward(b.ln2, tr.mid[l], bt.ln2);
    feed_forward_forward(b.ffn, bt.ln2.out, bt.ffn);
    tr.out[l] = tr.mid[l] + bt.ffn.out;  // X + FFN(LN2(X))
    X = &tr.out[l];
  }
  layer_norm_forward(final_norm_, *X, tr.final_norm);
  unembed_.forward(tr.final_norm.out, tr.logits);
}

double CharLm::window_loss(const Mat& logits, const int* targets, float scale, Mat* dlogits) {
  const int n = int(logits.rows()), V = int(logits.cols());
  if (dlogits) dlogits->setZero(n, V);
  double total = 0.0;
  for (int i = 0; i < n; ++i)
    total += softmax_cross_entropy_row(&logits(i, 0), V, targets[i], dlogits ? &(*dlogits)(i, 0) : nullptr, scale);
  return total;
}

// ---------------------------------------------------------------- 3 backward
int CharLm::batch_units(const Set& set, const std::vector<int>& batch) const {
  int units = 0;
  for (int i : batch) units += std::max(0, std::min(int(set[size_t(i)].tokens.size()) - 1, desc_.context));
  return units;
}

// A window longer than context + 1 ids keeps its last context + 1.
std::vector<int> CharLm::window_of(const std::vector<int>& tokens) const {
  const size_t keep = std::min(tokens.size(), size_t(desc_.context) + 1);
  return std::vector<int>(tokens.end() - long(keep), tokens.end());
}

double CharLm::example_loss(const Set& set, int i) const {
  const std::vector<int> tokens = window_of(set[size_t(i)].tokens);
  if (tokens.size() < 2) return 0.0;
  Trace tr;
  forward(std::vector<int>(tokens.begin(), tokens.end() - 1), tr);
  return window_loss(tr.logits, tokens.data() + 1, 1.0f, nullptr);
}

double CharLm::example_gradient(const Set& set, int i, float scale) {
  const std::vector<int> tokens = window_of(set[size_t(i)].tokens);
  if (tokens.size() < 2) return 0.0;
  return sequence_gradient(std::vector<int>(tokens.begin(), tokens.end() - 1),
                           std::vector<int>(tokens.begin() + 1, tokens.end()), scale);
}

double CharLm::sequence_gradient(const std::vector<int>& tokens, const std::vector<int>& targets, float scale) {
  if (tokens.empty() || targets.size() != tokens.size() || int(tokens.size()) > desc_.context) return 0.0;
  Trace tr;
  forward(tokens, tr);
  Mat dlogits, dX, dA;
  const double total = window_loss(tr.logits, targets.data(), scale, &dlogits);
  unembed_.backward(tr.final_norm.out, dlogits, &dA);
  layer_norm_backward(final_norm_, tr.final_norm, dA, dX);  // dX: dL/d(the last block's output)
  for (size_t l = blocks_.size(); l-- > 0;) {
    Block& b = blocks_[l];
    const Trace::BlockTrace& bt = tr.blocks[l];
    // out = mid + FFN(LN2(mid)): dL/dmid = dX + the path through the FFN.
    Mat dNorm, dBranch;
    feed_forward_backward(b.ffn, bt.ffn, dX, dNorm);
    layer_norm_backward(b.ln2, bt.ln2, dNorm, dBranch);
    dX += dBranch;
    // mid = X + MHA(LN1(X)): the same again.
    self_attention_backward(b.attention, bt.attention, dX, dNorm);
    layer_norm_backward(b.ln1, bt.ln1, dNorm, dBranch);
    dX += dBranch;
  }
  const int d = desc_.d_model;
  for (int j = 0; j < int(tr.inputs.size()); ++j) axpy(1.0f, &dX(j, 0), &pos_.grad(j, 0), d);
  embed_.backward(tr.inputs, dX);
  return total;
}

// ---------------------------------------------------------------- 4 evaluation and inspection
Mat CharLm::logits(const std::vector<int>& tokens, const CharLmEdits* edits) const {
  if (tokens.empty()) return Mat();
  Trace tr;
  forward(tokens, tr, edits);
  return tr.logits;
}

EvalResult CharLm::evaluate(const std::vector<data::TextWindow>& set, const CharLmEdits* edits) const {
  EvalResult ev;
  double total = 0.0;
  int right = 0;
  const int V = desc_.vocab;
  for (const data::TextWindow& w : set) {
    if (w.tokens.size() < 2) continue;
    const std::vector<int> tokens = window_of(w.tokens);
    Trace tr;
    forward(std::vector<int>(tokens.begin(), tokens.end() - 1), tr, edits);
    for (int i = 0; i < int(tr.logits.rows()); ++i) {
      const int y = tokens[size_t(i) + 1];
      total += softmax_cross_entropy_row(&tr.logits(i, 0), V, y, nullptr, 1.0f);
      right += argmax(&tr.logits(i, 0), V) == y;
      ++ev.count;
    }
  }
  if (ev.count) {
    ev.loss = float(total / ev.count);
    ev.accuracy = float(right) / float(ev.count);
  }
  return ev;
}

std::vector<std::vector<Mat>> CharLm::attention(const std::vector<int>& tokens, const CharLmEdits* edits) const {
  if (tokens.empty()) return {};
  Trace tr;
  forward(tokens, tr, edits);
  std::vector<std::vector<Mat>> out;
  for (const Trace::BlockTrace& b : tr.blocks) out.push_back(b.attention.P);
  return out;
}

// ---------------------------------------------------------------- 5 sampling
int sample_logits(const float* logits, int V, const SampleDesc& desc, Rng& rng) {
  std::vector<int> order;
  for (int c = 0; c < V; ++c)
    if (c != desc.banned || V == 1) order.push_back(c);
  V = int(order.size());
  // Highest first, the lower id first among equals, so the draw is the same everywhere.
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return logits[a] > logits[b]; });
  const int k = desc.top_k > 0 && desc.top_k < V ? desc.top_k : V;
  const double T = desc.temperature > 0.0f ? double(desc.temperature) : 1.0;
  std::vector<double> w(static_cast<size_t>(k));
  double total = 0.0;
  for (int r = 0; r < k; ++r) {  // exp((z - max) / T) <= 1: never overflows
    w[size_t(r)] = det_exp((double(logits[order[size_t(r)]]) - double(logits[order[0]])) / T);
    total += w[size_t(r)];
  }
  const double u = double(rng.uniform()) * total;
  double cum = 0.0;
  for (int r = 0; r < k; ++r) {
    cum += w[size_t(r)];
    if (u < cum) return order[size_t(r)];
  }
  return order[size_t(k - 1)];
}

std::vector<int> sample_text(const CharLm& model, const std::vector<int>& prompt, int count, const SampleDesc& desc,
                             Rng& rng, const CharLmEdits* edits) {
  std::vector<int> text = prompt;
  if (text.empty()) return {};
  const int n = model.desc().context;
  for (int s = 0; s < count; ++s) {
    const std::vector<int> window(text.end() - std::min(int(text.size()), n), text.end());
    const Mat z = model.logits(window, edits);
    text.push_back(sample_logits(&z(z.rows() - 1, 0), int(z.cols()), desc, rng));
  }
  return std::vector<int>(text.begin() + long(prompt.size()), text.end());
}

}  // namespace attn::train

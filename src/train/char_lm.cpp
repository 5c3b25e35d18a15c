// char_lm.cpp: the character language model's forward and backward passes,
// its evaluation, and sampling (see char_lm.h).
//
// Sections: 1 construction, 2 forward, 3 backward, 4 evaluation and inspection,
// 5 sampling.
#include "train/char_lm.h"

#include <algorithm>
#include <limits>
#include <string>

#include "attn/positional.h"
#include "train/fmath.h"
#include "train/kernels.h"
#include "train/loss.h"

namespace attn::train {

// ---------------------------------------------------------------- 1 construction
bool char_lm_options_ok(const CharLmDesc& desc, std::string* why) {
  const int heads = std::max(1, desc.heads);
  return decoder_options_ok(desc.options, heads, std::max(1, desc.d_model / heads), why);
}

namespace {
// The sinusoidal rows of positions 0 .. n-1 (attn/positional.h: interleaved
// sin / cos, base 10000, angles in double): row p does not depend on n.
Mat sinusoidal_rows(int n, int d) {
  PositionalDesc pd;
  pd.n = n;
  pd.d = d;
  return sinusoidal_encoding(pd);
}
}  // namespace

CharLm::CharLm(const CharLmDesc& desc) : Model(desc.optimizer), desc_(desc) {
  Rng rng(desc.seed);
  const int d = desc.d_model, heads = std::max(1, desc.heads), dh = std::max(1, d / heads);
  // Options that do not fit the sizes fall back to the defaults' (callers
  // check them first with char_lm_options_ok).
  if (!char_lm_options_ok(desc_, nullptr)) desc_.options = DecoderOptions();
  const DecoderOptions& o = desc_.options;
  embed_.init("embed", desc.vocab, d, rng, 0.1f);
  if (o.position == PositionKind::learned) {
    pos_ = make_param("pos", desc.context, d);
    uniform_init(pos_, rng, 0.1f);
  } else if (o.position == PositionKind::sinusoidal) {
    sinusoid_ = sinusoidal_rows(desc.context, d);
  } else if (o.position == PositionKind::rope) {
    rope_ = rope_table(desc.context, dh);
  } else if (o.position == PositionKind::alibi) {
    alibi_ = alibi_slopes(heads);
  }
  blocks_.resize(size_t(desc.layers));
  for (int l = 0; l < desc.layers; ++l) {
    Block& b = blocks_[size_t(l)];
    const std::string name = "block" + std::to_string(l + 1);
    b.ln1.init(name + ".ln1", d);
    b.attention.init(name + ".attention", d, heads, dh, d, rng, kv_heads_of(o, heads));
    b.attention.causal = true;
    b.ln2.init(name + ".ln2", d);
    b.ffn.init(name + ".ffn", d, desc.d_ff, rng);
  }
  final_norm_.init("final_norm", d);
  unembed_.init("unembed", d, desc.vocab, rng);
}

void CharLm::collect(ParamList& p) {
  embed_.collect(p);
  if (desc_.options.position == PositionKind::learned) p.push_back(&pos_);
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
CharLmEdits scale_head(int layers, int layer, int head, int heads, float scale) {
  CharLmEdits e(size_t(std::max(0, layers)));
  if (layer >= 0 && layer < layers && head >= 0 && head < heads) {
    e[size_t(layer)].head_scale.assign(size_t(heads), 1.0f);
    e[size_t(layer)].head_scale[size_t(head)] = scale;
  }
  return e;
}

int CharLm::readable(int n) const {
  return desc_.options.position == PositionKind::learned ? std::min(n, desc_.context) : n;
}

long long CharLm::multiply_adds(long long rows, long long pairs) const {
  const long long d = desc_.d_model, dh = d_head(), hd = (long long)std::max(1, desc_.heads) * dh,
                  kvd = (long long)kv_heads() * dh, F = desc_.d_ff, V = desc_.vocab;
  // Per row and layer: Q, K, V, W_O and the two feed-forward products; per
  // scored pair: a dot product and a weighted sum over d_h.
  return rows * (desc_.layers * (d * (hd + 2 * kvd) + hd * d + 2 * d * F) + d * V) + pairs * 2 * dh;
}

const Mat* CharLm::position_rows(int n, CharLmWorkspace& ws) const {
  if (desc_.options.position == PositionKind::learned) return &pos_.value;
  if (desc_.options.position != PositionKind::sinusoidal) return nullptr;
  if (n <= sinusoid_.rows()) return &sinusoid_;
  if (ws.positions.rows() < n) ws.positions = sinusoidal_rows(std::max(n, 2 * int(ws.positions.rows())), desc_.d_model);
  return &ws.positions;
}

CausalOptions CharLm::attention_options(int n, CharLmWorkspace& ws) const {
  CausalOptions o;
  o.window = desc_.options.window;
  o.sinks = desc_.options.sinks;
  if (!alibi_.empty()) o.alibi = alibi_.data();
  if (desc_.options.position == PositionKind::rope) {
    if (n <= rope_.positions) {
      o.rope = &rope_;
    } else {
      if (ws.rope.positions < n) ws.rope = rope_table(std::max(n, 2 * ws.rope.positions), d_head());
      o.rope = &ws.rope;
    }
  }
  return o;
}

void CharLm::forward(CharLmWorkspace& ws, const CharLmEdits* edits) const {
  const size_t L = blocks_.size();
  const int d = desc_.d_model;
  int longest = 0;
  for (int s = 0; s < ws.rows.count(); ++s) longest = std::max(longest, ws.rows.length(s));
  embed_.forward(ws.inputs, ws.X0);
  if (const Mat* P = position_rows(longest, ws))
    for (int s = 0; s < ws.rows.count(); ++s)  // + the position of each row in its own sequence
      for (int j = 0; j < ws.rows.length(s); ++j) axpy(1.0f, &(*P)(j, 0), &ws.X0(ws.rows.begin(s) + j, 0), d);
  const CausalOptions options = attention_options(longest, ws);
  ws.blocks.resize(L);
  long long pairs = 0;
  const Mat* X = &ws.X0;
  for (size_t l = 0; l < L; ++l) {
    const Block& b = blocks_[l];
    CharLmWorkspace::Block& bt = ws.blocks[l];
    layer_norm_forward(b.ln1, *X, bt.ln1);
    const AttentionEdits* e = edits && l < edits->size() ? &(*edits)[l] : nullptr;
    causal_attention_forward_rows(b.attention, bt.ln1.out, ws.rows, bt.attention, ws.scratch, e, options);
    pairs += bt.attention.pairs;
    bt.mid = *X + bt.attention.out;  // the residual: X + MHA(LN1(X))
    layer_norm_forward(b.ln2, bt.mid, bt.ln2);
    feed_forward_forward_rows(b.ffn, bt.ln2.out, bt.ffn);
    bt.out = bt.mid + bt.ffn.out;  // X + FFN(LN2(X))
    X = &bt.out;
  }
  layer_norm_forward(final_norm_, *X, ws.final_norm);
  dense_forward_rows(unembed_, ws.final_norm.out, ws.logits);
  ws.multiply_adds = multiply_adds(ws.rows.rows(), pairs);
}

// ---------------------------------------------------------------- 3 backward: a share of a batch
int CharLm::batch_units(const Set& set, const std::vector<int>& batch) const {
  int units = 0;
  for (int i : batch) units += std::max(0, std::min(int(set[size_t(i)].tokens.size()) - 1, desc_.context));
  return units;
}

// A window longer than context + 1 ids keeps its last context + 1.
CharLm::Sequence CharLm::window_sequence(const std::vector<int>& window) const {
  const size_t keep = std::min(window.size(), size_t(desc_.context) + 1);
  Sequence q;
  if (keep < 2) return q;
  q.inputs = window.data() + (window.size() - keep);
  q.targets = q.inputs + 1;
  q.n = int(keep) - 1;
  return q;
}

void CharLm::share_of(const std::vector<Sequence>& seqs, float scale, GradientShare& share, CharLmWorkspace& ws) {
  const int V = desc_.vocab, d = desc_.d_model;
  if (seqs.empty()) return;  // an empty share (more workers than examples)
  ws.rows.clear();
  ws.inputs.clear();
  ws.targets.clear();
  for (const Sequence& q : seqs) {  // every sequence has its rows, none if it predicts nothing
    ws.rows.add(q.n);
    ws.inputs.insert(ws.inputs.end(), q.inputs, q.inputs + q.n);
    ws.targets.insert(ws.targets.end(), q.targets, q.targets + q.n);
  }
  const RowBatch& rows = ws.rows;
  if (rows.rows() == 0) {  // no sequence has anything to predict: no loss, a zero gradient
    std::fill(share.leaves.begin(), share.leaves.end(), 0.0f);
    std::fill(share.losses.begin(), share.losses.end(), 0.0);
    return;
  }
  // The weight matrices' gradients are summed along the tree inside their
  // products (only the share's node sums are written); every other
  // parameter's starts from zero in each window's buffer and is summed after.
  const ParamList params = this->params();
  std::vector<char> in_tree(params.size(), 0);
  for (const Param* w : tree_summed())
    for (size_t k = 0; k < params.size(); ++k) in_tree[k] |= params[k] == w;
  const auto slice = [&](size_t k) { return std::make_pair(ws.layout.offset[k], size_t(params[k]->value.size())); };
  for (size_t k = 0; k < params.size(); ++k)
    if (!in_tree[k])
      for (int e = share.begin; e < share.end; ++e) std::fill_n(share.leaf(e) + slice(k).first, slice(k).second, 0.0f);
  const SequenceGrads grads{&ws.layout, share.leaves.data(), share.size, &share.nodes, share.begin};
  forward(ws);
  // The loss of each sequence (its rows in order, in double) and dL/dlogits, times scale.
  ws.dlogits.resize(ws.logits.rows(), V);
  ws.exps.resize(size_t(V));
  for (int s = 0; s < rows.count(); ++s) {
    double total = 0.0;
    for (int i = rows.begin(s); i < rows.begin(s) + rows.length(s); ++i)
      total += softmax_cross_entropy_row_fast(&ws.logits(i, 0), V, ws.targets[size_t(i)], &ws.dlogits(i, 0), scale,
                                              ws.exps.data());
    share.losses[size_t(s)] = total;
  }
  // Backward, as the one-sequence pass: the unembedding, the final LayerNorm,
  // the blocks from the last, then positions and embeddings.
  dense_backward_rows(unembed_, ws.final_norm.out, ws.dlogits, rows, grads, &ws.dA, ws.scratch);
  layer_norm_backward_rows(final_norm_, ws.final_norm, ws.dA, rows, grads, ws.dX);  // dL/d(the last block's output)
  int longest = 0;
  for (int s = 0; s < rows.count(); ++s) longest = std::max(longest, rows.length(s));
  const CausalOptions options = attention_options(longest, ws);  // the forward pass's
  for (size_t l = blocks_.size(); l-- > 0;) {
    const Block& b = blocks_[l];
    const CharLmWorkspace::Block& bt = ws.blocks[l];
    // out = mid + FFN(LN2(mid)): dL/dmid = dX + the path through the FFN.
    feed_forward_backward_rows(b.ffn, bt.ln2.out, bt.ffn, ws.dX, rows, grads, ws.dNorm, ws.scratch);
    layer_norm_backward_rows(b.ln2, bt.ln2, ws.dNorm, rows, grads, ws.dBranch);
    ws.dX += ws.dBranch;
    // mid = X + MHA(LN1(X)): the same again.
    causal_attention_backward_rows(b.attention, bt.ln1.out, bt.attention, ws.dX, rows, grads, ws.dNorm, ws.scratch,
                                   options);
    layer_norm_backward_rows(b.ln1, bt.ln1, ws.dNorm, rows, grads, ws.dBranch);
    ws.dX += ws.dBranch;
  }
  const bool learned = desc_.options.position == PositionKind::learned;  // the only positions with a gradient
  for (int s = 0; s < rows.count(); ++s) {
    float* dP = learned ? grads.of(pos_, s) : nullptr;
    float* dE = grads.of(embed_.table, s);
    for (int j = 0; j < rows.length(s); ++j) {
      const int i = rows.begin(s) + j;
      if (dP) axpy(1.0f, &ws.dX(i, 0), dP + size_t(j) * size_t(d), d);
      axpy(1.0f, &ws.dX(i, 0), dE + size_t(ws.inputs[size_t(i)]) * size_t(d), d);
    }
  }
  for (size_t k = 0; k < params.size(); ++k)
    if (!in_tree[k]) share.sum_leaves(slice(k).first, slice(k).second);
}

std::vector<const Param*> CharLm::tree_summed() const {
  std::vector<const Param*> w;
  for (const Block& b : blocks_) {
    w.insert(w.end(), {&b.attention.W_Q, &b.attention.W_K, &b.attention.W_V, &b.ffn.up.W, &b.ffn.down.W});
    if (b.attention.output_projection) w.push_back(&b.attention.W_O);
  }
  w.push_back(&unembed_.W);
  return w;
}

void CharLm::gradient_share(const Set& set, const std::vector<int>& batch, int begin, int end, GradientShare& share,
                            CharLmWorkspace& ws) {
  const int B = int(batch.size());
  begin = std::max(0, std::min(begin, B));
  end = std::max(begin, std::min(end, B));
  ws.layout = gradient_layout(params());
  share.reset(B, begin, end, ws.layout.size, false);  // share_of zeroes what it adds into
  const int units = batch_units(set, batch);
  std::vector<Sequence> seqs;
  for (int e = begin; e < end; ++e) seqs.push_back(window_sequence(set[size_t(batch[size_t(e)])].tokens));
  share_of(seqs, units > 0 ? 1.0f / float(units) : 0.0f, share, ws);
}

float CharLm::gather_shares(const std::vector<GradientShare*>& shares, const Set& set, const std::vector<int>& batch) {
  const ParamList params = this->params();
  if (batch.empty()) {  // nothing to learn from (a run without its text): no gradient, loss 0
    zero_grads(params);
    return 0.0f;
  }
  const GradientLayout layout = gradient_layout(params);
  double total = 0.0;
  const float* grad = reduce_shares_in_place(shares, &total);
  if (!grad || shares[0]->size != layout.size) return std::numeric_limits<float>::quiet_NaN();
  for (size_t k = 0; k < params.size(); ++k)
    std::copy_n(grad + layout.offset[k], params[k]->grad.size(), params[k]->grad.data());
  const int units = batch_units(set, batch);
  return units > 0 ? float(total / double(units)) : 0.0f;
}

float CharLm::forward_backward(const Set& set, const std::vector<int>& batch) {
  gradient_share(set, batch, 0, int(batch.size()), own_share_, own_ws_);
  return gather_shares({&own_share_}, set, batch);
}

double CharLm::sequences_gradient(const std::vector<std::vector<int>>& tokens,
                                  const std::vector<std::vector<int>>& targets, float scale) {
  std::vector<Sequence> seqs(tokens.size());
  for (size_t s = 0; s < tokens.size(); ++s) {
    const int n = int(tokens[s].size());
    if (n == 0 || s >= targets.size() || int(targets[s].size()) != n || readable(n) < n) continue;
    seqs[s] = {tokens[s].data(), targets[s].data(), n};
  }
  const ParamList params = this->params();
  own_ws_.layout = gradient_layout(params);
  own_share_.reset(int(seqs.size()), 0, int(seqs.size()), own_ws_.layout.size, false);
  double total = 0.0;
  if (seqs.empty()) return total;
  share_of(seqs, scale, own_share_, own_ws_);
  for (double l : own_share_.losses) total += l;
  const float* g = own_share_.node_sum(0);  // the root: one share covers the whole tree
  for (size_t k = 0; k < params.size(); ++k)
    axpy(1.0f, g + own_ws_.layout.offset[k], params[k]->grad.data(), int(params[k]->grad.size()));
  return total;
}

double CharLm::example_gradient(const Set& set, int i, float scale) {
  const Sequence q = window_sequence(set[size_t(i)].tokens);
  if (q.n == 0) return 0.0;
  return sequences_gradient({std::vector<int>(q.inputs, q.inputs + q.n)}, {std::vector<int>(q.targets, q.targets + q.n)},
                            scale);
}

double CharLm::example_loss(const Set& set, int i) const {
  const Sequence q = window_sequence(set[size_t(i)].tokens);
  if (q.n == 0) return 0.0;
  CharLmWorkspace ws;
  ws.inputs.assign(q.inputs, q.inputs + q.n);
  ws.rows.add(q.n);
  forward(ws);
  ws.exps.resize(size_t(desc_.vocab));
  double total = 0.0;
  for (int r = 0; r < q.n; ++r)
    total += softmax_cross_entropy_row_fast(&ws.logits(r, 0), desc_.vocab, q.targets[r], nullptr, 1.0f, ws.exps.data());
  return total;
}

// ---------------------------------------------------------------- 4 evaluation and inspection
Mat CharLm::logits(const std::vector<int>& tokens, const CharLmEdits* edits, long long* work) const {
  if (tokens.empty()) return Mat();
  CharLmWorkspace ws;
  ws.inputs.assign(tokens.end() - readable(int(tokens.size())), tokens.end());
  ws.rows.add(int(ws.inputs.size()));
  forward(ws, edits);
  if (work) *work = ws.multiply_adds;
  return ws.logits;
}

EvalResult CharLm::evaluate(const std::vector<data::TextWindow>& set, const CharLmEdits* edits) const {
  // Windows in batches of up to 16, each row scored in order: the same sums as
  // one window at a time.
  EvalResult ev;
  double total = 0.0;
  int right = 0;
  const int V = desc_.vocab;
  CharLmWorkspace ws;
  ws.exps.resize(size_t(V));
  std::vector<Sequence> seqs;
  for (size_t w = 0; w < set.size();) {
    seqs.clear();
    ws.rows.clear();
    ws.inputs.clear();
    for (; w < set.size() && seqs.size() < 16; ++w) {
      const Sequence q = window_sequence(set[w].tokens);
      if (q.n == 0) continue;
      seqs.push_back(q);
      ws.rows.add(q.n);
      ws.inputs.insert(ws.inputs.end(), q.inputs, q.inputs + q.n);
    }
    if (seqs.empty()) break;
    forward(ws, edits);
    for (size_t s = 0; s < seqs.size(); ++s)
      for (int j = 0; j < seqs[s].n; ++j) {
        const int i = ws.rows.begin(int(s)) + j, y = seqs[s].targets[j];
        total += softmax_cross_entropy_row_fast(&ws.logits(i, 0), V, y, nullptr, 1.0f, ws.exps.data());
        right += argmax(&ws.logits(i, 0), V) == y;
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
  CharLmWorkspace ws;
  ws.inputs.assign(tokens.end() - readable(int(tokens.size())), tokens.end());
  ws.rows.add(int(ws.inputs.size()));
  forward(ws, edits);
  const int n = int(ws.inputs.size());
  std::vector<std::vector<Mat>> out;
  for (const CharLmWorkspace::Block& b : ws.blocks) {
    out.emplace_back();
    for (int h = 0; h < desc_.heads; ++h)
      out.back().push_back(Eigen::Map<const Mat>(b.attention.p_at(ws.rows, 0, h), n, n));
  }
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
  for (int s = 0; s < count; ++s) {
    const std::vector<int> window(text.end() - model.readable(int(text.size())), text.end());
    const Mat z = model.logits(window, edits);
    text.push_back(sample_logits(&z(z.rows() - 1, 0), int(z.cols()), desc, rng));
  }
  return std::vector<int>(text.begin() + long(prompt.size()), text.end());
}

}  // namespace attn::train

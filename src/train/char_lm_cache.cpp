// char_lm_cache.cpp: generation with a key/value cache (char_lm_cache.h). One
// row goes through the same functions as a row of CharLm::forward: the
// embedding and position rows, LayerNorm, the cached attention step, the
// feed-forward layer, the final LayerNorm and the unembedding.
#include "train/char_lm_cache.h"

#include <algorithm>

#include "attn/positional.h"
#include "train/kernels.h"

namespace attn::train {

CharLmCache::CharLmCache(const CharLm& model, const CharLmEdits* edits) : model_(model), edits_(edits) { reset(); }

void CharLmCache::reset() {
  const DecoderOptions& o = model_.desc_.options;
  rings_.assign(model_.blocks_.size(), KvRing());
  for (KvRing& r : rings_) r.reset(o.window, o.sinks, model_.kv_heads() * model_.d_head());
  text_.clear();
  rows_ = multiply_adds_ = 0;
}

CacheSize CharLmCache::size() const {
  const DecoderOptions& o = model_.desc_.options;
  CacheSize c;
  c.layers = int(rings_.size());
  c.entries = rings_.empty() ? 0 : rings_[0].held();
  c.capacity = o.window > 0 ? std::min(o.sinks, o.window) + o.window
               : o.position == PositionKind::learned ? model_.desc_.context
                                                     : 0;
  c.numbers_per_entry = 2 * model_.kv_heads() * model_.d_head();
  c.numbers = (long long)c.layers * c.entries * c.numbers_per_entry;
  c.bytes = c.numbers * (long long)sizeof(float);
  return c;
}

void CharLmCache::step(int token) {
  const CharLm& m = model_;
  const int d = m.desc_.d_model, pos = rings_.empty() ? 0 : rings_[0].length;
  const PositionKind kind = m.desc_.options.position;
  // 1. X_0: the token's embedding plus its position's row, as forward adds them.
  m.embed_.forward({token}, x_);
  const Mat* P = nullptr;
  if (kind == PositionKind::learned) {
    P = &m.pos_.value;
  } else if (kind == PositionKind::sinusoidal) {
    P = &m.sinusoid_;
    if (pos >= P->rows()) {
      if (positions_.rows() <= pos) {
        PositionalDesc pd;
        pd.n = std::max(pos + 1, 2 * int(positions_.rows()));
        pd.d = d;
        positions_ = sinusoidal_encoding(pd);
      }
      P = &positions_;
    }
  }
  if (P) axpy(1.0f, &(*P)(pos, 0), x_.data(), d);
  // 2. the options at this position: the model's rotary table, or a longer one.
  CausalOptions o;
  o.window = m.desc_.options.window;
  o.sinks = m.desc_.options.sinks;
  if (!m.alibi_.empty()) o.alibi = m.alibi_.data();
  if (kind == PositionKind::rope) {
    o.rope = &m.rope_;
    if (pos >= m.rope_.positions) {
      if (rope_.positions <= pos) rope_ = rope_table(std::max(pos + 1, 2 * rope_.positions), m.d_head());
      o.rope = &rope_;
    }
  }
  // 3. the blocks, then the unembedding: every layer's key and value of this row
  //    are appended to its ring.
  long long pairs = 0;
  for (size_t l = 0; l < m.blocks_.size(); ++l) {
    const CharLm::Block& b = m.blocks_[l];
    layer_norm_forward(b.ln1, x_, ln_);
    const AttentionEdits* e = edits_ && l < edits_->size() ? &(*edits_)[l] : nullptr;
    causal_attention_step(b.attention, ln_.out, o, rings_[l], attended_, scratch_, e, &pairs);
    mid_ = x_ + attended_;  // X + MHA(LN1(X))
    layer_norm_forward(b.ln2, mid_, ln_);
    feed_forward_forward_rows(b.ffn, ln_.out, ffn_);
    x_ = mid_ + ffn_.out;  // + FFN(LN2(X))
  }
  layer_norm_forward(m.final_norm_, x_, ln_);
  dense_forward_rows(m.unembed_, ln_.out, logits_);
  ++rows_;
  multiply_adds_ += m.multiply_adds(1, pairs);
}

void CharLmCache::reread(const std::vector<int>& tokens) {
  // The batched pass over the tokens (CharLm::logits's), whose keys and values
  // of every layer then fill the rings in position order (a window's ring keeps
  // the last rows written).
  const CharLm& m = model_;
  ws_.inputs = tokens;
  ws_.rows.clear();
  ws_.rows.add(int(tokens.size()));
  m.forward(ws_, edits_);
  for (size_t l = 0; l < rings_.size(); ++l) {
    KvRing& r = rings_[l];
    r.reset(r.window, r.sinks, r.width);
    const CausalAttentionTrace& tr = ws_.blocks[l].attention;
    for (int p = 0; p < int(tokens.size()); ++p) {
      const size_t at = size_t(r.slot(p)) * size_t(r.width);
      if (at + size_t(r.width) > r.K.size()) {
        r.K.resize(at + size_t(r.width));
        r.V.resize(at + size_t(r.width));
      }
      std::copy_n(&tr.K(p, 0), r.width, r.K.data() + at);
      std::copy_n(&tr.V(p, 0), r.width, r.V.data() + at);
    }
    r.length = int(tokens.size());
  }
  logits_ = ws_.logits.bottomRows(1);
  rows_ += (long long)tokens.size();
  multiply_adds_ += ws_.multiply_adds;
}

const float* CharLmCache::push(int token) {
  text_.push_back(token);
  const int n = model_.desc_.context;
  if (model_.desc_.options.position == PositionKind::learned && int(text_.size()) > n) {
    // No position row past the context: re-read the last `context` tokens at
    // positions 0 .. context-1 in one batched pass, the cache refilled with them.
    reread(std::vector<int>(text_.end() - n, text_.end()));
  } else {
    step(token);
  }
  return logits_.data();
}

const float* CharLmCache::push_all(const std::vector<int>& tokens) {
  const float* z = nullptr;
  for (int t : tokens) z = push(t);
  return z;
}

std::vector<int> sample_text_cached(const CharLm& model, const std::vector<int>& prompt, int count,
                                    const SampleDesc& desc, Rng& rng, const CharLmEdits* edits, CacheSize* cache_out) {
  if (prompt.empty()) return {};
  CharLmCache cache(model, edits);
  const float* z = cache.push_all(prompt);
  std::vector<int> out;
  for (int s = 0; s < count; ++s) {
    out.push_back(sample_logits(z, model.desc().vocab, desc, rng));
    if (s + 1 < count) z = cache.push(out.back());
  }
  if (cache_out) *cache_out = cache.size();
  return out;
}

}  // namespace attn::train

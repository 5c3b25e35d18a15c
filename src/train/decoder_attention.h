// decoder_attention.h: the language model's causal multi-head self-attention
// (char_lm.h) -- over a batch of stacked sequences for training and for
// re-reading a whole prefix, and one new row at a time against cached keys and
// values for generation -- with the decoder's options (decoder_positions.h):
// key/value heads shared by groups of query heads, rotary or ALiBi positions,
// and a window with sinks.
//
// Per sequence of n rows (row i at position i) and query head t, reading
// key/value head g = kv_head_of(t, heads, kv_heads):
//   Q = X W_Q (n, h d_h), K = X W_K, V = X W_V (n, kv d_h)
//   rope: every d_h-column head of Q and K turned by its row's position
//   S(i, j) = Q_t(i) . K_g(j) / sqrt(d_h)           for visible j, else -inf
//             (alibi: - slope_t (i - j) added after the scale)
//   P(i, :) = softmax(S(i, 0..i)), exactly 0 at every key i cannot see
//   Z_t = P V_g; concat; out = concat W_O
// Visible keys: key_visible(i, j, window, sinks). With the defaults (kv_heads
// = heads, no rope or ALiBi, no window) every step is the arithmetic the
// decoder had before its options, so its bits are unchanged.
//
// The batched pass scores every j <= i and masks (the softmax of -inf is
// exactly 0); the cached step scores only the visible keys. They give the same
// bits: each visible score is the same dot product over d_h in order, the
// softmax sees the same values in the same order (exact zeros in between add
// nothing to a sum that starts from +0), and each output column sums P(i, j)
// V(j) over j in increasing order from +0, where a masked term is a zero.
//
// Sections: 1 options, 2 the batched passes, 3 one new row against a cache.
#pragma once

#include <vector>

#include "base/tensor.h"
#include "train/attention_layer.h"
#include "train/batched_layers.h"
#include "train/decoder_positions.h"

namespace attn::train {

// ---------------------------------------------------------------- 1 options
// The layer's key/value heads are its W_K's columns over d_h (W_K and W_V are
// (d_model, kv_heads d_h)); the rest of the options travel here.
struct CausalOptions {
  int window = 0, sinks = 0;          // key_visible's (0: every earlier key)
  const RopeTable* rope = nullptr;    // turns q and k; rows for every position a pass reaches
  const float* alibi = nullptr;       // (heads) slopes; null: no bias
};
// Key/value heads of a layer built for the decoder.
inline int layer_kv_heads(const SelfAttentionLayer& layer) { return int(layer.W_K.value.cols()) / layer.d_head; }

// Which keys query i sees, as two runs: j < sink_end, then from <= j <= i.
struct VisibleKeys {
  int sink_end = 0, from = 0;
  int count(int i) const { return sink_end + i - from + 1; }
};
VisibleKeys visible_keys(int i, int window, int sinks);

// ---------------------------------------------------------------- 2 the batched passes
struct CausalAttentionTrace {
  Mat Q, K, V;                    // (R, h d_h), (R, kv d_h) twice; Q and K turned when rope
  std::vector<float> P;           // sequence s, head t: (n_s, n_s) row-major at p_at(s, t)
  std::vector<size_t> p_offset;   // where sequence s's heads start
  Mat concat;                     // (R, h d_h), each head times its head_scale
  Mat out;                        // (R, d_out)
  std::vector<float> head_scale;  // as applied (empty: all 1)
  int fixed_head = -1, fixed_row = -1;  // the overridden row (in every sequence), if any
  long long pairs = 0;            // (query, key) pairs scored, over the heads

  const float* p_at(const RowBatch& rows, int s, int t) const;
};
// edits as for self_attention_forward; the row override applies to row `row`
// of every sequence long enough to have it, its weights spread over the keys
// that row sees.
void causal_attention_forward_rows(const SelfAttentionLayer& layer, const Mat& X, const RowBatch& rows,
                                   CausalAttentionTrace& tr, BatchScratch& scratch,
                                   const AttentionEdits* edits = nullptr, const CausalOptions& options = {});
// X (R, d_model) the forward pass's input, dOut (R, d_out) -> each sequence's
// weight gradients added; dX (R, d_model) written. The forward pass must have
// had no edits (training has none) and the same options.
void causal_attention_backward_rows(const SelfAttentionLayer& layer, const Mat& X, const CausalAttentionTrace& tr,
                                    const Mat& dOut, const RowBatch& rows, const SequenceGrads& grads, Mat& dX,
                                    BatchScratch& scratch, const CausalOptions& options = {});

// ---------------------------------------------------------------- 3 one new row against a cache
// One layer's keys and values of the rows read so far, at most `capacity`
// rows held. Without a window every row stays; with one, the first `sinks`
// positions keep their rows and the others share `window` rows as a rolling
// buffer (the oldest is overwritten: no later query can see it).
struct KvRing {
  int window = 0, sinks = 0;   // the options it was made for
  int width = 0;               // kv d_h
  int length = 0;              // positions read: 0 .. length-1
  std::vector<float> K, V;     // (held rows, width) each; K turned when rope

  void reset(int window, int sinks, int width);
  int held() const;             // rows held now
  int slot(int pos) const;      // where position pos's row is (pos must be held)
};
// Scratch of the cached step (no allocation once it has run).
struct StepScratch {
  Mat q, kv;                         // (1, h d_h), (1, kv d_h)
  std::vector<float> scores, weights, wanted;
  std::vector<int> keys;             // the visible positions
};
// x (1, d_model), the row at position cache.length: its key and value are
// added to the cache, and its output (1, d_out) written -- the bits the
// batched pass gives that row. *pairs gains the (query, key) pairs scored.
void causal_attention_step(const SelfAttentionLayer& layer, const Mat& x, const CausalOptions& options,
                           KvRing& cache, Mat& out, StepScratch& scratch, const AttentionEdits* edits,
                           long long* pairs);

}  // namespace attn::train

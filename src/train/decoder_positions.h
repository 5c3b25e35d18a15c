// decoder_positions.h: the ways a decoder can know where a token is, and which
// earlier tokens a query may see -- the options of the language model beyond
// its learned position table (curriculum I2-I4). Pure functions and small
// tables; the decoder's forward and backward passes (char_lm.cpp) and its
// generation with a cache use them, and `attnlab eval` names them.
//
//   learned     a table P (context, d) added to the embeddings (GPT-2); it has
//               no row past the context it was trained on
//   sinusoidal  the fixed table of Vaswani et al. 2017 (attn/positional.h,
//               interleaved sin / cos, base 10000) added to the embeddings
//   rope        rotary embeddings (Su et al. 2021): within each head, the
//               query's and key's columns (2i, 2i+1) turn by the angle
//               pos * theta_i, theta_i = base^(-2i / d_h), base 10000, so a
//               score depends on the two positions only through their offset
//   alibi       a bias on each score, -slope_h * (i - j), for query i and key j
//               (Press et al. 2021), with the paper's slopes per head
//   none        no position signal but the causal mask itself
//
// Angles and slopes are computed in double and rounded once to float, as
// attn/positional.cpp does, so every build gets the same floats.
//
// Sections: 1 kinds, 2 rotary tables and turns, 3 ALiBi slopes, 4 which keys a
// query sees (windows and sinks), 5 shared key/value heads, 6 the options
// together.
#pragma once

#include <string>
#include <vector>

namespace attn::train {

// ---------------------------------------------------------------- 1 kinds
enum class PositionKind { learned, sinusoidal, rope, alibi, none };
const char* position_kind_name(PositionKind kind);  // "learned", "sinusoidal", "rope", "alibi", "none"
bool parse_position_kind(const std::string& name, PositionKind* kind);
// Whether the kind adds a row to each embedding (learned, sinusoidal): those
// are the kinds whose table ends somewhere.
bool adds_position_rows(PositionKind kind);
// Whether a position past the training context still means something: every
// kind but learned (sinusoidal's table is a formula with a row for any
// position; rope and alibi depend on offsets; none has nothing to run out of).
// A learned model re-reads its last `context` tokens instead.
inline bool positions_grow(PositionKind kind) { return kind != PositionKind::learned; }

// ---------------------------------------------------------------- 2 rotary tables and turns
constexpr double kRopeBase = 10000.0;
// cos and sin of pos * theta_i for positions 0 .. positions-1 and pairs
// i = 0 .. d_h/2 - 1, row by row: (positions, d_h / 2) each. d_h must be even.
struct RopeTable {
  int positions = 0, pairs = 0;
  std::vector<float> cos, sin;
  const float* cos_row(int pos) const { return cos.data() + size_t(pos) * size_t(pairs); }
  const float* sin_row(int pos) const { return sin.data() + size_t(pos) * size_t(pairs); }
};
RopeTable rope_table(int positions, int d_h, double base = kRopeBase);
// x (d_h) turned in place by position pos's angles: for each pair
// (a, b) = (x[2i], x[2i+1]): a' = a cos - b sin, b' = a sin + b cos.
void rope_turn(float* x, const RopeTable& t, int pos);
// The gradient through a turn: the same pairs turned back (by -angle), which is
// the transpose of the turn.
void rope_turn_back(float* dx, const RopeTable& t, int pos);

// ---------------------------------------------------------------- 3 ALiBi slopes
// The paper's slopes: for h a power of two, 2^(-8k/h) for heads k = 1 .. h
// (8 heads: 1/2, 1/4, ..., 1/256); otherwise those of the largest power of two
// below h, then every other slope of twice that many, as its reference code does.
std::vector<float> alibi_slopes(int heads);

// ---------------------------------------------------------------- 4 which keys a query sees
// Query i sees key j when j <= i (causal) and either window == 0 (every earlier
// key), or j lies within the last `window` positions (i - j < window), or j is
// one of the first `sinks` positions, which stay visible to every query.
inline bool key_visible(int i, int j, int window, int sinks) {
  return j <= i && (window <= 0 || i - j < window || j < sinks);
}

// ---------------------------------------------------------------- 5 shared key/value heads
// Grouped-query attention: `heads` query heads share `kv_heads` key/value heads
// (kv_heads divides heads), consecutive query heads in one group: query head h
// reads key/value head h / (heads / kv_heads). kv_heads == heads is ordinary
// multi-head attention, kv_heads == 1 multi-query attention.
inline int kv_head_of(int head, int heads, int kv_heads) { return head / (heads / kv_heads); }

// ---------------------------------------------------------------- 6 the options together
// The decoder's options beyond its sizes (train/char_lm.h, CharLmDesc). The
// defaults are the model as it was before them: every head its own keys and
// values, a learned table, every earlier key visible.
struct DecoderOptions {
  int kv_heads = 0;                            // key/value heads; 0: heads (ordinary multi-head attention)
  PositionKind position = PositionKind::learned;
  int window = 0;                              // each query sees at most the last `window` keys; 0: all
  int sinks = 0;                               // the first `sinks` positions stay visible (window > 0 only)
};
// The options in one call: decoder_options(PositionKind::rope, 1, 8, 2).
inline DecoderOptions decoder_options(PositionKind position, int kv_heads = 0, int window = 0, int sinks = 0) {
  DecoderOptions o;
  o.kv_heads = kv_heads;
  o.position = position;
  o.window = window;
  o.sinks = sinks;
  return o;
}
// kv_heads with 0 read as heads.
inline int kv_heads_of(const DecoderOptions& o, int heads) { return o.kv_heads > 0 ? o.kv_heads : heads; }
// Whether the options fit a model of `heads` heads of d_h columns; false with
// a reason (kv_heads not dividing heads, rope on an odd d_h, a negative window
// or sinks, sinks without a window or beyond it).
bool decoder_options_ok(const DecoderOptions& o, int heads, int d_head, std::string* why);

}  // namespace attn::train

// online_softmax.h: attention for one query row computed tile by tile, with a
// running maximum and a running sum -- the online softmax (Milakov and
// Gimelshein 2018), which is the inner loop of FlashAttention (Dao et al. 2022)
// and of the lab's own kernel (fast_attention.h, blocks of 64 keys). Written out
// step by step for teaching, every tile's state kept, next to its naive
// reference: the full softmax over every score at once.
//
//   q (1, d), K (n, d), V (n, d_v), scale (0 = 1 / sqrt(d))
//   s_j = scale * (q . k_j)                           one score per key
//   o (1, d_v) = softmax(s) V
//
// The keys are read in tiles of b (the last may be shorter). Before the first
// tile m = -inf, l = 0, acc = 0 (1, d_v). For each tile:
//   m_new = max(m, max_j s_j)           j in the tile: the running maximum
//   c     = exp(m - m_new)              what the maximum's move does to old terms
//   p_j   = exp(s_j - m_new)            <= 1, so no exp can overflow
//   l     = c l + sum_j p_j             the running sum
//   acc   = c acc + sum_j p_j v_j       the unnormalised output
// and at the end o = acc / l. Everything summed so far was taken relative to
// the old maximum, exp(s - m); multiplying by c turns each term into
// exp(s - m_new), so after every tile acc / l is exactly attention over the keys
// read so far. Only the tile's b scores are held at once, never all n (and for
// n queries, never the n x n table).
//
// Awkward scores follow softmax.h's rules, as the full softmax does: NaN counts
// as masked (weight 0); -inf gets weight 0; if any score is +inf, the +inf keys
// share the weight equally and every finite key gets 0; a row with no usable
// score has zero weights and a zero output. A key of weight 0 adds nothing to
// the output, even when its row of V is not finite.
//
// Both functions compute the scores with scaled_dot_score, so the two differ
// only in how the softmax and the weighted sum are taken.
#pragma once

#include <vector>

#include "base/tensor.h"

namespace attn {

// One tile's step of the online softmax.
struct OnlineSoftmaxTile {
  int first = 0, count = 0;  // the keys first .. first + count - 1
  float m_old = 0.0f;        // running maximum before the tile (-inf before any usable score)
  float m_new = 0.0f;        // ... and after it
  float rescale = 0.0f;      // c = exp(m_old - m_new): 0 on the first tile (nothing held yet),
                             // 1 when the maximum did not move
  float l = 0.0f;            // running sum after the tile
  Mat scores;                // (1, count) the tile's scores s_j, the only scores held
  Mat p;                     // (1, count) exp(s_j - m_new): the tile's unnormalised weights
  Mat acc;                   // (1, d_v) unnormalised output after the tile
  Mat out;                   // (1, d_v) acc / l: attention over keys 0 .. first + count - 1
                             // (zero while l = 0)
};

struct OnlineSoftmaxRun {
  std::vector<OnlineSoftmaxTile> tiles;  // the tiles read, in order
  Mat out;                               // (1, d_v) the last tile's `out`; zero if none was read
  int keys_read = 0;                     // keys covered by the tiles read
  int scores_held = 0;                   // the most scores held at once: min(tile, n)
  int nan_scores = 0;                    // NaN scores treated as masked
};

// The scaled dot product s_j = scale * (q . k_j), summed in index order (both
// functions below use it, so their scores are the same bits).
float scaled_dot_score(const Mat& q, const Mat& K, Eigen::Index j, float scale);

// The online softmax over the first `max_tiles` tiles of `tile` keys (-1 = all
// of them). Requires q (1, d), K (n, d), V (n, d_v), tile >= 1; scale 0 means
// 1 / sqrt(d).
OnlineSoftmaxRun online_softmax_attention(const Mat& q, const Mat& K, const Mat& V, int tile, float scale = 0.0f,
                                          int max_tiles = -1);

// The naive reference: all `keys` scores at once, softmax_rows (softmax.h), then
// the weighted sum of the first `keys` rows of V (keys of weight 0 skipped).
// keys = -1: every key. *weights (1, keys) receives the weights when not null.
Mat full_softmax_attention(const Mat& q, const Mat& K, const Mat& V, float scale = 0.0f, int keys = -1,
                           Mat* weights = nullptr);

}  // namespace attn

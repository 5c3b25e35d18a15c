// online_softmax.cpp: one query row's attention tile by tile (the online softmax),
// and the full softmax it is checked against (online_softmax.h).
#include "attn/online_softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attn/softmax.h"

namespace attn {
namespace {

float scale_or_default(float scale, Eigen::Index d) {
  return scale != 0.0f ? scale : 1.0f / std::sqrt(float(std::max<Eigen::Index>(d, 1)));
}

}  // namespace

float scaled_dot_score(const Mat& q, const Mat& K, Eigen::Index j, float scale) {
  float dot = 0.0f;
  for (Eigen::Index c = 0; c < q.cols(); ++c) dot += q(0, c) * K(j, c);
  return scale * dot;
}

OnlineSoftmaxRun online_softmax_attention(const Mat& q, const Mat& K, const Mat& V, int tile, float scale,
                                          int max_tiles) {
  const float inf = std::numeric_limits<float>::infinity();
  const int n = int(K.rows());
  const Eigen::Index d_v = V.cols();
  scale = scale_or_default(scale, q.cols());
  tile = std::max(tile, 1);
  OnlineSoftmaxRun run;
  run.scores_held = std::min(tile, n);
  run.out = Mat::Zero(1, d_v);

  // The whole state between tiles: three things, whatever n is.
  float m = -inf, l = 0.0f;
  Mat acc = Mat::Zero(1, d_v);    // (1, d_v)
  Mat s_tile(1, run.scores_held); // (1, b) the one buffer of scores, reused by every tile
  Mat p_tile(1, run.scores_held); // (1, b)

  for (int first = 0, t = 0; first < n && (max_tiles < 0 || t < max_tiles); first += tile, ++t) {
    const int count = std::min(tile, n - first);
    // 1. This tile's scores, and their maximum (NaN is masked: it never sets it).
    float tile_max = -inf;
    for (int j = 0; j < count; ++j) {
      float s = scaled_dot_score(q, K, first + j, scale);
      if (std::isnan(s)) {
        ++run.nan_scores;
        s = -inf;
      }
      s_tile(0, j) = s;
      tile_max = std::max(tile_max, s);
    }
    // 2. The new running maximum, and c = exp(m - m_new) for what was summed
    // against the old one. Nothing summed yet (m = -inf): c = 0, and acc, l are 0.
    // A +inf maximum is the limit of ever larger scores: only +inf keys count
    // from then on, so older finite terms get c = 0 (inf - inf would be NaN).
    const float m_new = std::max(m, tile_max);
    float c = 0.0f;
    if (m == -inf) c = 0.0f;
    else if (m_new == inf) c = m == inf ? 1.0f : 0.0f;
    else c = std::exp(m - m_new);
    // 3. p_j = exp(s_j - m_new) <= 1: exp(0) = 1 at the maximum, so no overflow
    // however large the scores; -inf gives exactly 0.
    float row_sum = 0.0f;
    for (int j = 0; j < count; ++j) {
      const float s = s_tile(0, j);
      float p = 0.0f;
      if (m_new == inf) p = s == inf ? 1.0f : 0.0f;
      else if (m_new > -inf && s > -inf) p = std::exp(s - m_new);
      p_tile(0, j) = p;
      row_sum += p;
    }
    // 4. Rescale the running sum and output, then add this tile's share. A key of
    // weight 0 is skipped, so a non-finite row of V it holds cannot leak in.
    l = c * l + row_sum;
    acc *= c;
    for (int j = 0; j < count; ++j)
      if (p_tile(0, j) > 0.0f) acc += p_tile(0, j) * V.row(first + j);

    OnlineSoftmaxTile step;
    step.first = first;
    step.count = count;
    step.m_old = m;
    step.m_new = m_new;
    step.rescale = c;
    step.l = l;
    step.scores = s_tile.leftCols(count);
    step.p = p_tile.leftCols(count);
    step.acc = acc;
    step.out = l > 0.0f ? Mat(acc / l) : Mat(Mat::Zero(1, d_v));
    run.out = step.out;
    run.keys_read = first + count;
    run.tiles.push_back(std::move(step));
    m = m_new;
  }
  return run;
}

Mat full_softmax_attention(const Mat& q, const Mat& K, const Mat& V, float scale, int keys, Mat* weights) {
  const Eigen::Index n = keys < 0 ? K.rows() : std::min<Eigen::Index>(keys, K.rows());
  scale = scale_or_default(scale, q.cols());
  Mat s(1, n);  // (1, n) every score at once
  for (Eigen::Index j = 0; j < n; ++j) s(0, j) = scaled_dot_score(q, K, j, scale);
  const Mat w = softmax_rows(s);  // (1, n)
  Mat out = Mat::Zero(1, V.cols());
  for (Eigen::Index j = 0; j < n; ++j)
    if (w(0, j) > 0.0f) out += w(0, j) * V.row(j);
  if (weights) *weights = w;
  return out;
}

}  // namespace attn

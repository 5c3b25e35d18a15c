// loss.cpp: softmax cross-entropy and binary cross-entropy from logits.
#include "train/loss.h"

#include <vector>

#include "train/fmath.h"
#include "train/lanes.h"

namespace attn::train {

float softmax_cross_entropy_row(const float* z, int C, int y, float* dz, float scale) {
  float m = z[0];                                  // 1. the largest logit
  for (int c = 1; c < C; ++c) m = z[c] > m ? z[c] : m;
  thread_local std::vector<double> e;              // 2. exp(z - max), and their sum >= 1
  e.resize(size_t(C));
  double total = 0.0;
  for (int c = 0; c < C; ++c) total += e[size_t(c)] = det_exp(double(z[c] - m));
  const double log_total = det_log(total);         // 3. logsumexp = max + log(total)
  const float loss = float(log_total - double(z[y] - m));
  if (dz) {
    for (int c = 0; c < C; ++c) {
      const float p = float(e[size_t(c)] / total);
      dz[c] = scale * (p - (c == y ? 1.0f : 0.0f));
    }
  }
  return loss;
}

float softmax_cross_entropy_row_fast(const float* z, int C, int y, float* dz, float scale, float* e) {
  const float m = max_of(z, C);                    // 1. the largest logit (lanes.h)
  for (int c = 0; c < C; ++c) e[c] = z[c] - m;    // 2. exp(z - max), and their sum >= 1
  exp_fast_array(e, e, C);
  double total = 0.0;
  for (int c = 0; c < C; ++c) total += e[c];
  const double log_total = det_log(total);         // 3. logsumexp = max + log(total)
  const float loss = float(log_total - double(z[y] - m));
  if (dz) {
    const float inv = float(1.0 / total);
    for (int c = 0; c < C; ++c) dz[c] = scale * (e[c] * inv - (c == y ? 1.0f : 0.0f));
  }
  return loss;
}

float softmax_cross_entropy(const Mat& logits, const std::vector<int>& targets, Mat* dz) {
  const int n = int(logits.rows()), C = int(logits.cols());
  if (dz) dz->setZero(n, C);
  if (n == 0) return 0.0f;
  const float scale = 1.0f / float(n);
  double total = 0.0;
  for (int i = 0; i < n; ++i)
    total += softmax_cross_entropy_row(&logits(i, 0), C, targets[i], dz ? &(*dz)(i, 0) : nullptr, scale);
  return float(total / n);
}

float binary_cross_entropy_logit(float z, float y, float* dz, float scale) {
  const double zd = z, az = zd < 0 ? -zd : zd;
  // max(z, 0) - z y + log(1 + e^{-|z|}): the exp argument is never positive.
  const double loss = (zd > 0 ? zd : 0.0) - zd * double(y) + det_log(1.0 + det_exp(-az));
  if (dz) *dz = scale * (sigmoid_f(z) - y);
  return float(loss);
}

int argmax(const float* z, int n) {
  int best = 0;
  for (int c = 1; c < n; ++c)
    if (z[c] > z[best]) best = c;
  return best;
}

}  // namespace attn::train

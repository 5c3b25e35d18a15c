// char_lm_reach.cpp: the held-out loss per position (char_lm_reach.h).
#include "train/char_lm_reach.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "train/loss.h"

namespace attn::train {

double PositionLosses::mean(int begin, int end) const {
  begin = std::max(0, begin);
  end = std::min(end, reach);
  double total = 0.0;
  long long n = 0;
  for (int i = begin; i < end; ++i) {
    total += loss[size_t(i)] * double(count[size_t(i)]);
    n += count[size_t(i)];
  }
  return n > 0 ? total / double(n) : std::numeric_limits<double>::quiet_NaN();
}

PositionLosses loss_per_position(const CharLm& model, const std::vector<int>& ids, int length, int max_windows,
                                 int stride) {
  PositionLosses r;
  r.context = model.desc().context;
  r.length = std::max(0, length);
  r.reach = model.readable(r.length);
  const int V = model.desc().vocab;
  std::vector<double> sums(size_t(r.length), 0.0);
  r.count.assign(size_t(r.length), 0);
  std::vector<float> exps(static_cast<size_t>(V));
  const size_t step = size_t(stride > 0 ? stride : std::max(1, r.length));
  for (size_t start = 0; r.length > 0 && start + size_t(r.length) < ids.size(); start += step) {
    if (max_windows > 0 && r.windows >= max_windows) break;
    // Only the positions the model can read: a learned model's first `context`.
    const std::vector<int> window(ids.begin() + long(start), ids.begin() + long(start) + r.reach);
    const Mat z = model.logits(window);
    for (int i = 0; i < r.reach; ++i) {
      sums[size_t(i)] += softmax_cross_entropy_row_fast(&z(i, 0), V, ids[start + size_t(i) + 1], nullptr, 1.0f,
                                                        exps.data());
      ++r.count[size_t(i)];
    }
    ++r.windows;
  }
  if (r.windows == 0) r.reach = 0;  // a text too short for one window: no value anywhere
  r.loss.assign(size_t(r.length), std::numeric_limits<double>::quiet_NaN());
  for (int i = 0; i < r.reach; ++i)
    if (r.count[size_t(i)] > 0) r.loss[size_t(i)] = sums[size_t(i)] / double(r.count[size_t(i)]);
  return r;
}

}  // namespace attn::train

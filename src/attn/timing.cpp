// timing.cpp: median wall-clock times of an RNN and of self-attention.
#include "attn/timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "attn/fast_attention.h"
#include "base/rng.h"

namespace attn {
namespace {

double steady_now_ms() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

// Median of `repeats` timed samples of run(), after one untimed warm-up call;
// a sample calls run() until min_sample_ms have passed (at least once) and
// is the time per call.
template <class Run>
double median_ms(double (*now_ms)(), int repeats, double min_sample_ms, Run run) {
  run();
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    const double t0 = now_ms();
    double t = 0.0;
    long calls = 0;
    do {
      run();
      ++calls;
      t = now_ms() - t0;
    } while (t < min_sample_ms && calls < 1000000);
    times.push_back(t / double(calls));
  }
  std::sort(times.begin(), times.end());
  const size_t mid = times.size() / 2;
  return times.size() % 2 ? times[mid] : 0.5 * (times[mid - 1] + times[mid]);
}

Mat uniform_mat(Rng& rng, int rows, int cols, float limit) {
  Mat M(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) M(r, c) = rng.uniform(-limit, limit);
  return M;
}

}  // namespace

std::string check_timing_desc(const TimingDesc& desc) {
  if (desc.d < 1) return "timing: d must be >= 1";
  if (desc.repeats < 1) return "timing: repeats must be >= 1";
  for (int n : desc.lengths)
    if (n < 1) return "timing: every sequence length must be >= 1";
  return "";
}

TimingPoint time_rnn_vs_attention_at(const TimingDesc& desc, int n) {
  TimingPoint point;
  if (!check_timing_desc(desc).empty() || n < 1) return point;
  double (*now_ms)() = desc.now_ms ? desc.now_ms : steady_now_ms;
  const int d = desc.d;
  Rng rng(desc.seed);
  const Mat X = uniform_mat(rng, n, d, 1.0f);  // (n, d) the sequence, one row per token

  // The RNN reads X one row at a time; step t needs h_{t-1}.
  RnnDesc rnn;
  rnn.cell = desc.cell;
  const RnnParams params = init_rnn_params(rnn, d, d, rng);
  point.rnn_ms = median_ms(now_ms, desc.repeats, desc.min_sample_ms, [&] { (void)rnn_forward(rnn, params, X); });

  // Self-attention sees all rows at once.
  const float limit = 1.0f / std::sqrt(float(d));
  SelfAttentionWeights w{uniform_mat(rng, d, d, limit), uniform_mat(rng, d, d, limit), uniform_mat(rng, d, d, limit)};
  // One workspace for the whole measurement: the warm-up call sizes it, so the
  // timed calls measure the arithmetic, not the allocator.
  Mat out;
  FastAttentionWorkspace workspace;
  FastSelfAttentionDesc attention;
  auto attend = [&] { (void)fast_self_attention(X, w, attention, &out, nullptr, &workspace); };
  point.attention_ms = median_ms(now_ms, desc.repeats, desc.min_sample_ms, attend);
  attention.scalar = true;
  point.attention_scalar_ms = median_ms(now_ms, desc.repeats, desc.min_sample_ms, attend);
  point.n = n;
  return point;
}

TimingResult time_rnn_vs_attention(const TimingDesc& desc) {
  TimingResult result;
  result.error = check_timing_desc(desc);
  if (!result.ok()) return result;
  for (int n : desc.lengths) result.points.push_back(time_rnn_vs_attention_at(desc, n));
  return result;
}

}  // namespace attn

// timing.h: measures, in whatever runs the core (the learner's browser, or a
// native build), how long a recurrent network and self-attention take on the
// same sequence -- the data behind the lesson step "attention parallelises, an
// RNN cannot".
//
//   RNN:        T = n sequential cell steps, each waiting for the previous h
//               (rnn_forward, recurrent.h; d_in = H = d)
//   attention:  X (n, d) -> Q, K, V (n, d) -> softmax(Q K^T / sqrt(d)) V, every
//               query row independent (fast_self_attention, fast_attention.h),
//               once with the SIMD kernels and once with the one-lane kernels.
//
// Each time is the median of `repeats` runs after one warm-up run, in
// milliseconds. The measurement itself is the point: nothing is cached.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/recurrent.h"

namespace attn {

struct TimingDesc {
  std::vector<int> lengths = {16, 32, 64, 128, 256};  // sequence lengths n, each >= 1
  int d = 32;               // model width: d_in = H for the RNN, d_model = d_k = d_v for attention
  CellKind cell = CellKind::rnn_tanh;
  int repeats = 5;          // >= 1; the reported time is the median
  // Each timed sample repeats the call until this many milliseconds have
  // passed and divides by the calls (0: one call), so a coarse clock (a
  // browser's, 0.1 to 1 ms) still times calls far shorter than its tick.
  double min_sample_ms = 0.0;
  uint64_t seed = 1;        // inputs and weights, from attn::Rng
  // Clock in milliseconds; null = std::chrono::steady_clock. (Tests pass a fake
  // one; a caller may pass a finer clock of its own.)
  double (*now_ms)() = nullptr;
};

struct TimingPoint {
  int n = 0;
  double rnn_ms = 0.0;               // rnn_forward over n steps
  double attention_ms = 0.0;         // fast_self_attention, SIMD kernels
  double attention_scalar_ms = 0.0;  // fast_self_attention, one-lane kernels
};

struct TimingResult {
  std::vector<TimingPoint> points;  // one per desc.lengths, same order
  std::string error;                // non-empty: invalid desc, no points
  bool ok() const { return error.empty(); }
};

// "" when desc is usable, else what is wrong with it.
std::string check_timing_desc(const TimingDesc& desc);

// One length (a UI can spread a sweep over several frames with this).
// Returns a point with n = 0 when desc or n is invalid.
TimingPoint time_rnn_vs_attention_at(const TimingDesc& desc, int n);

// Every length of desc.lengths, in order.
TimingResult time_rnn_vs_attention(const TimingDesc& desc);

}  // namespace attn

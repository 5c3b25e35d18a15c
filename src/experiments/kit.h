// kit.h: what the experiment files share: 1 the clock and formatting helpers;
// 2 each experiment's factory. TrainingExperiment, the base of every train_*
// experiment, is training.h. Not for use outside src/experiments.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/number_text.h"
#include "demos/kit.h"
#include "experiments/experiments.h"
#include "train/train_run.h"

namespace attn::experiment_impl {

using demo_impl::add_line;
using demo_impl::fmt;
using demo_impl::tr;
using json::Value;

// ---------------------------------------------------------------- 1 clock and helpers
inline double clock_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A frame's work: calls unit() (false = nothing left to do) and starts another
// only while one as long as the last still fits in budget_ms; always one.
template <typename Unit>
inline void run_units(double budget_ms, Unit&& unit) {
  const double t0 = clock_ms();
  for (;;) {
    const double u0 = clock_ms();
    if (!unit()) return;
    const double now = clock_ms();
    if (now - t0 + (now - u0) > budget_ms) return;
  }
}

inline std::string pct(float v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f%%", double(v) * 100.0);
  return buf;
}

inline std::string ms(double v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, v < 10.0 ? "%.2f ms" : "%.1f ms", v);
  return buf;
}

// One row per series, as many columns as the shortest series has points (a
// round of lockstep training may be half done), so every entry is a real value.
// No points yet: zero columns, which the plots draw as an empty frame.
inline Mat series_matrix(const std::vector<std::vector<float>>& series) {
  size_t cols = series.empty() ? 0 : series[0].size();
  for (const auto& s : series) cols = std::min(cols, s.size());
  Mat m(Eigen::Index(series.size()), Eigen::Index(cols));
  for (size_t r = 0; r < series.size(); ++r)
    for (size_t c = 0; c < cols; ++c) m(Eigen::Index(r), Eigen::Index(c)) = series[r][c];
  return m;
}

inline Mat row_matrix(const std::vector<float>& xs) {
  Mat m(1, Eigen::Index(xs.size()));
  for (size_t i = 0; i < xs.size(); ++i) m(0, Eigen::Index(i)) = xs[i];
  return m;
}

inline int setting_or(const DemoInputs& in, const std::string& name, int fallback) {
  auto it = in.settings.find(name);
  if (it == in.settings.end() || it->second.empty()) return fallback;
  return demo_impl::setting_int(in, name);  // read as the demos validate it: "3e2" is 300
}

inline std::string text_or(const DemoInputs& in, const std::string& name, const std::string& fallback) {
  auto it = in.settings.find(name);
  return it == in.settings.end() || it->second.empty() ? fallback : it->second;
}

// ---------------------------------------------------------------- 2 the experiments
// One file each (<name>.cpp), each with its factory; experiments.cpp maps demo
// names to them, and live_demos.cpp gives each its settings. A new experiment is
// a TrainingExperiment (or a plain Experiment) in a file of its own, a factory
// here, a row in each of those two tables, and its file in CMakeLists.txt.
std::unique_ptr<Experiment> make_translation_experiment(const DemoInputs& in);     // train_translation
std::unique_ptr<Experiment> make_long_range_experiment(const DemoInputs& in);      // train_long_range
std::unique_ptr<Experiment> make_pooling_experiment(const DemoInputs& in);         // train_pooling
std::unique_ptr<Experiment> make_sentiment_experiment(const DemoInputs& in);       // train_sentiment
std::unique_ptr<Experiment> make_hard_attention_experiment(const DemoInputs& in);  // train_hard_attention
std::unique_ptr<Experiment> make_induction_experiment(const DemoInputs& in);       // train_induction
std::unique_ptr<Experiment> make_order_experiment(const DemoInputs& in);           // train_word_order
std::unique_ptr<Experiment> make_lm_experiment(const DemoInputs& in);              // train_lm
std::unique_ptr<Experiment> make_positions_experiment(const DemoInputs& in);       // train_positions
std::unique_ptr<Experiment> make_kv_cache_experiment(const DemoInputs& in);        // train_kv_cache
std::unique_ptr<Experiment> make_timing_experiment(const DemoInputs& in);          // timing

}  // namespace attn::experiment_impl

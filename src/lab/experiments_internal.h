// experiments_internal.h: what the experiment files (experiment_*.cpp) share:
// 1 the clock and formatting helpers; 2 TrainingExperiment, the base of every
// train_* experiment -- lockstep training of side-by-side models, held-out
// evaluation spread over frames, the loss and accuracy curves and the progress
// note (its code is in experiments.cpp); 3 each experiment's factory. Not for
// use outside src/lab.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/number_text.h"
#include "lab/demos_internal.h"
#include "lab/experiments.h"
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

// ---------------------------------------------------------------- 2 TrainingExperiment
// One model of a side-by-side comparison.
struct Track {
  std::string name;  // series label: "additive attention", "RNN", ... (checks name it)
  LocalText shown;   // the name as drawn in each language
  train::RunDesc desc;
  std::unique_ptr<train::TrainRun> run;
  long steps = 0;                    // steps taken (the page's copy reads it from the worker)
  int epoch = 0;                     // passes over the training set begun
  double train_ms = 0.0;             // time inside completed steps, for "time per step"
  double window_sum = 0.0;           // losses of the current window
  int window_count = 0;
  std::vector<float> loss_curve;     // mean training loss of each window
  std::vector<float> accuracy_curve; // held-out accuracy at each evaluation
  train::EvalResult last;            // newest complete evaluation
  train::EvalResult partial;         // the evaluation being assembled
  long evaluated_at = -1;            // step of `last`
  double ms_per_step() const { return steps > 0 ? train_ms / double(steps) : 0.0; }
};

class TrainingExperiment : public Experiment {
 public:
  void prepare() override;
  int advance(double budget_ms) override;
  void step_once() override;
  bool done() const override { return prepared_ && steps_ >= budget_ && !evaluating_; }
  long progress() const override { return steps_; }
  long planned() const override { return budget_; }
  double work_ms() const override { return work_ms_; }
  bool set_view_setting(const std::string& name, const std::string& value) override;
  Value status() const override;
  DemoOutputs view() const override;
  void write_state(ByteWriter& w) const override;
  bool read_state(ByteReader& r) override;
 protected:
  static train::RunDesc seeded(const DemoInputs& in) {
    train::RunDesc d;
    d.seed = uint64_t(setting_or(in, "seed", 1));
    return d;
  }
  void add_track(const std::string& name, const std::string& name_zh, train::RunKind kind,
                 const train::RunDesc& base);
  // The step budget, and how often the held-out split is evaluated.
  void set_budget(long steps, int eval_every);
  // Starts over with new data settings (same models, names and budget).
  void restart(const train::RunDesc& base);

  // Hooks for each experiment.
  virtual void on_prepared() {}
  virtual void on_evaluated() {}  // every track has a fresh `last`
  // Called with each chunk [begin, end) of held-out examples as the tracks
  // evaluate it (begin 0 starts a new evaluation), for experiments that measure
  // more than loss and accuracy over the same exact pass.
  virtual void on_eval_chunk(int /*begin*/, int /*end*/) {}
  // One track's loss and accuracy over held-out examples [begin, end); an
  // experiment that measures more over the same pass overrides it to do both
  // in one go.
  virtual train::EvalResult evaluate_track(const Track& t, int begin, int end) {
    return t.run->evaluate_range(begin, end);
  }
  // The experiment's own part of its state (read_state): what its view shows
  // that training changes, besides the tracks. read_extra() checks the bytes and
  // returns what commits them, or nothing when they are malformed.
  virtual void write_extra(ByteWriter&) const {}
  virtual std::function<void()> read_extra(ByteReader&) { return [] {}; }
  virtual void add_controls(DemoOutputs&) const {}
  virtual void add_panels(DemoOutputs&) const {}
  virtual void add_status(Value&) const {}
  // What the accuracy means for this task ("token accuracy", ...).
  virtual LocalText accuracy_name() const { return tr("held-out accuracy", "留出集准确率"); }

  bool prepared() const { return prepared_; }
  // The review shown by the sentiment experiments: test review number example().
  const data::Review* review() const;
  const std::vector<Track>& tracks() const { return tracks_; }
  int example() const { return example_; }
  long steps() const { return steps_; }
  long step_budget() const { return budget_; }

 private:
  // One step of the next track; a round ends when every track has taken its
  // step (so one frame never has to hold the steps of all models at once).
  // Returns 1 when a round completed.
  int train_one();
  // Steps until the round in progress is complete.
  int train_round();
  // The largest held-out split of the tracks (0 before prepare()).
  int heldout_size() const;
  // Evaluates the next chunk of held-out examples for every track; when the
  // split is covered, records the points.
  void evaluate_chunk();
  void add_progress(DemoOutputs& out) const;
  void add_curves(DemoOutputs& out) const;

  std::vector<Track> tracks_;
  long budget_ = 300;
  int eval_every_ = 25;
  int window_ = 5;
  long steps_ = 0;
  int next_track_ = 0;  // the track that takes the next step of this round
  bool prepared_ = false;
  bool evaluating_ = false;
  int eval_pos_ = 0;
  int example_ = 0;
  double work_ms_ = 0.0;
  std::vector<float> eval_x_, loss_x_;
};

// ---------------------------------------------------------------- 3 the experiments
// One file each (experiment_<name>.cpp), each with its factory; experiments.cpp
// maps demo names to them. A new experiment is a TrainingExperiment (or a plain
// Experiment) in a file of its own, a factory here and a row in that table.
std::unique_ptr<Experiment> make_translation_experiment(const DemoInputs& in);     // train_translation
std::unique_ptr<Experiment> make_long_range_experiment(const DemoInputs& in);      // train_long_range
std::unique_ptr<Experiment> make_pooling_experiment(const DemoInputs& in);         // train_pooling
std::unique_ptr<Experiment> make_sentiment_experiment(const DemoInputs& in);       // train_sentiment
std::unique_ptr<Experiment> make_hard_attention_experiment(const DemoInputs& in);  // train_hard_attention
std::unique_ptr<Experiment> make_induction_experiment(const DemoInputs& in);       // train_induction
std::unique_ptr<Experiment> make_order_experiment(const DemoInputs& in);           // train_word_order
std::unique_ptr<Experiment> make_lm_experiment(const DemoInputs& in);              // train_lm
std::unique_ptr<Experiment> make_timing_experiment(const DemoInputs& in);          // timing

}  // namespace attn::experiment_impl

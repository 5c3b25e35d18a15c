// experiments_internal.h: what the experiment files share (experiments.cpp,
// experiment_order.cpp): the clock and formatting helpers, and
// TrainingExperiment, the base of every train_* experiment -- lockstep training
// of side-by-side models, held-out evaluation spread over frames, the loss and
// accuracy curves and the progress note. Not for use outside src/lab.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
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
  double train_ms = 0.0;             // time inside completed steps, for "time per step"
  double part_ms = 0.0;              // time so far inside a step taken in parts
  double window_sum = 0.0;           // losses of the current window
  int window_count = 0;
  std::vector<float> loss_curve;     // mean training loss of each window
  std::vector<float> accuracy_curve; // held-out accuracy at each evaluation
  train::EvalResult last;            // newest complete evaluation
  train::EvalResult partial;         // the evaluation being assembled
  long evaluated_at = -1;            // step of `last`
  double ms_per_step() const { return run && run->steps() > 0 ? train_ms / double(run->steps()) : 0.0; }
};

class TrainingExperiment : public Experiment {
 public:
  void prepare() override {
    if (prepared_) return;
    prepared_ = true;
    for (Track& t : tracks_) t.run = std::make_unique<train::TrainRun>(t.desc);
    evaluating_ = true;  // the untrained models first: the curves start at chance
    eval_pos_ = 0;
    on_prepared();
  }

  int advance(double budget_ms) override {
    const double t0 = clock_ms();
    prepare();
    int steps = 0;
    run_units(budget_ms, [&] {
      if (evaluating_) evaluate_chunk();
      else if (steps_ < budget_) steps += train_one();
      else return false;
      return true;
    });
    work_ms_ += clock_ms() - t0;
    return steps;
  }

  void step_once() override {
    const double t0 = clock_ms();
    prepare();
    while (evaluating_) evaluate_chunk();
    if (steps_ < budget_) train_round();  // completes a round a paused frame left half done
    while (evaluating_) evaluate_chunk();
    work_ms_ += clock_ms() - t0;
  }

  bool done() const override { return prepared_ && steps_ >= budget_ && !evaluating_; }
  long progress() const override { return steps_; }
  long planned() const override { return budget_; }
  double work_ms() const override { return work_ms_; }
  bool set_view_setting(const std::string& name, const std::string& value) override {
    if (name != "example") return false;
    long long k = 0;
    example_ = parse_whole_text(value, 0, 1 << 30, &k) ? int(k) : 0;
    return true;
  }

  Value status() const override {
    Value s = Value::object();
    s.set("steps", steps_);
    s.set("budget", budget_);
    s.set("done", done());
    s.set("evaluating", evaluating_);
    s.set("workMs", work_ms_);
    Value runs = Value::array();
    for (const Track& t : tracks_) {
      Value r = Value::object();
      r.set("name", t.name);
      r.set("kind", train::run_kind_name(t.desc.kind));
      r.set("steps", t.run ? t.run->steps() : 0L);
      r.set("loss", t.loss_curve.empty() ? 0.0f : t.loss_curve.back());
      r.set("accuracy", t.last.accuracy);
      r.set("heldoutLoss", t.last.loss);
      r.set("evaluatedAt", t.evaluated_at);
      r.set("msPerStep", t.ms_per_step());
      runs.push(std::move(r));
    }
    s.set("runs", std::move(runs));
    add_status(s);
    return s;
  }

  DemoOutputs view() const override {
    // What changes while it trains comes first; the settings that restart it last.
    DemoOutputs out;
    out.growing = true;
    add_progress(out);
    add_panels(out);
    add_curves(out);
    add_controls(out);
    // Panels label the models by name; each language draws its own.
    for (Panel& p : out.panels)
      for (const Track& t : tracks_) p.label_text[t.name] = t.shown;
    return out;
  }

 protected:
  static train::RunDesc seeded(const DemoInputs& in) {
    train::RunDesc d;
    d.seed = uint64_t(setting_or(in, "seed", 1));
    return d;
  }
  void add_track(const std::string& name, const std::string& name_zh, train::RunKind kind,
                 const train::RunDesc& base) {
    Track t;
    t.name = name;
    t.shown = tr(name, name_zh);
    t.desc = base;
    t.desc.kind = kind;
    tracks_.push_back(std::move(t));
  }
  // The step budget, and how often the held-out split is evaluated.
  void set_budget(long steps, int eval_every) {
    budget_ = std::max(1L, steps);
    eval_every_ = std::max(1, eval_every);
    window_ = int(std::max(1L, budget_ / 60));
  }

  // Starts over with new data settings (same models, names and budget).
  void restart(const train::RunDesc& base) {
    for (Track& t : tracks_) {
      const train::RunKind kind = t.desc.kind;
      Track fresh;
      fresh.name = t.name;
      fresh.shown = t.shown;
      fresh.desc = base;
      fresh.desc.kind = kind;
      t = std::move(fresh);
    }
    steps_ = 0;
    next_track_ = 0;
    prepared_ = evaluating_ = false;
    eval_pos_ = 0;
    eval_x_.clear();
    loss_x_.clear();
  }

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
  virtual void add_controls(DemoOutputs&) const {}
  virtual void add_panels(DemoOutputs&) const {}
  virtual void add_status(Value&) const {}
  // What the accuracy means for this task ("token accuracy", ...).
  virtual LocalText accuracy_name() const { return tr("held-out accuracy", "留出集准确率"); }

  bool prepared() const { return prepared_; }
  // The review shown by the sentiment experiments: test review number example().
  const data::Review* review() const {
    if (!prepared_) return nullptr;
    const auto& test = tracks_[0].run->sentiment_data().test;
    return test.empty() ? nullptr : &test[size_t(example_) % test.size()];
  }
  const std::vector<Track>& tracks() const { return tracks_; }
  int example() const { return example_; }
  long steps() const { return steps_; }

 private:
  // One step of every track, in order.
  // One step of the next track; a round ends when every track has taken its
  // step (so one frame never has to hold the steps of all models at once).
  // Returns 1 when a round completed.
  int train_one() {
    Track& t = tracks_[size_t(next_track_)];
    const double t0 = clock_ms();
    const bool stepped = t.run->step_part(kExamplesPerPart);
    t.part_ms += clock_ms() - t0;
    if (!stepped) return 0;  // part of a long step; the same track goes on next unit
    t.train_ms += t.part_ms;
    t.part_ms = 0.0;
    const float loss = t.run->losses().back();
    t.window_sum += double(loss);
    if (++t.window_count == window_) {
      t.loss_curve.push_back(float(t.window_sum / double(t.window_count)));
      t.window_sum = 0.0;
      t.window_count = 0;
    }
    if (++next_track_ < int(tracks_.size())) return 0;
    next_track_ = 0;
    if (tracks_[0].loss_curve.size() > loss_x_.size()) loss_x_.push_back(float(steps_ + 1 - window_));
    ++steps_;
    if (steps_ % eval_every_ == 0 || steps_ == budget_) {
      evaluating_ = true;
      eval_pos_ = 0;
    }
    return 1;
  }

  int train_round() {
    int rounds = 0;
    do rounds += train_one();
    while (next_track_ != 0 || tracks_[0].run->mid_step());
    return rounds;
  }

  // The largest held-out split of the tracks (0 before prepare()).
  int heldout_size() const {
    int size = 0;
    for (const Track& t : tracks_) size = std::max(size, t.run ? t.run->heldout_size() : 0);
    return size;
  }

  // Evaluates the next chunk of held-out examples for every track; when the
  // split is covered, records the points.
  void evaluate_chunk() {
    constexpr int kChunk = 4;  // small: a chunk must fit in a frame's budget in WebAssembly
    for (Track& t : tracks_) {
      if (eval_pos_ == 0) t.partial = {};
      t.partial = train::combine_eval(t.partial, evaluate_track(t, eval_pos_, eval_pos_ + kChunk));
    }
    on_eval_chunk(eval_pos_, eval_pos_ + kChunk);
    eval_pos_ += kChunk;
    if (eval_pos_ < heldout_size()) return;
    for (Track& t : tracks_) {
      t.last = t.partial;
      t.evaluated_at = steps_;
      t.accuracy_curve.push_back(t.last.accuracy * 100.0f);
    }
    eval_x_.push_back(float(steps_));
    evaluating_ = false;
    on_evaluated();
  }

  void add_progress(DemoOutputs& out) const {
    LocalText t;
    // How far the current held-out evaluation has got (it can take seconds).
    const int size = heldout_size();
    const std::string seen = std::to_string(std::min(eval_pos_, size)) + " / " + std::to_string(size);
    if (!prepared_ || (steps_ == 0 && eval_x_.empty() && eval_pos_ == 0)) {
      add_line(t, "Not started. Start (or Space) trains; Step (or the full stop key) takes one step.",
               "尚未开始。按“开始”（或空格键）训练；按“单步”（或句号键）每次走一步。");
    } else if (steps_ == 0 && eval_x_.empty()) {
      add_line(t, "Testing the untrained models first, so the curves start at chance: " + seen + " held-out examples",
               "先测试未训练的模型，让曲线从随机水平起步：留出集样本 " + seen);
    } else {
      add_line(t, "Step " + std::to_string(steps_) + " of " + std::to_string(budget_) +
                      (done() ? " (finished)" : evaluating_ ? " (testing on held-out examples: " + seen + ")" : ""),
               "第 " + std::to_string(steps_) + " 步，共 " + std::to_string(budget_) + " 步" +
                   (done() ? "（已完成）" : evaluating_ ? "（正在用留出集测试：" + seen + "）" : ""));
    }
    const LocalText acc = accuracy_name();
    for (const Track& k : tracks_) {
      const std::string loss = k.loss_curve.empty() ? "-" : fmt(k.loss_curve.back(), 3);
      const std::string a = k.evaluated_at < 0 ? "-" : pct(k.last.accuracy);
      const std::string epoch = std::to_string(k.run ? k.run->epoch() : 0);
      const std::string time = k.run && k.run->steps() > 0 ? ms(k.ms_per_step()) : "-";
      add_line(t, k.name + ": loss " + loss + ", " + acc.get("en") + " " + a + ", " + time + " per step, epoch " + epoch,
               k.shown.get("zh") + "：损失 " + loss + "，" + acc.get("zh") + " " + a + "，每步 " + time + "，第 " + epoch + " 轮");
    }
    out.panels.push_back(demo_impl::note_panel("progress", tr("Progress", "进度"), t));
  }

  void add_curves(DemoOutputs& out) const {
    std::vector<std::string> names;
    std::vector<std::vector<float>> loss, accuracy;
    for (const Track& t : tracks_) {
      names.push_back(t.name);
      loss.push_back(t.loss_curve);
      accuracy.push_back(t.accuracy_curve);
    }
    out.mats["loss_curve"] = series_matrix(loss);
    out.mats["loss_steps"] = row_matrix(loss_x_);
    out.mats["accuracy_curve"] = series_matrix(accuracy);
    out.mats["accuracy_steps"] = row_matrix(eval_x_);
    out.panels.push_back(demo_impl::lines_panel("loss", "loss_curve", "loss_steps",
                                                tr("Training loss", "训练损失"), names,
                                                tr("x: training step; y: mean loss over a few steps",
                                                   "横轴：训练步数；纵轴：几步内的平均损失")));
    const LocalText acc = accuracy_name();
    out.panels.push_back(demo_impl::lines_panel("accuracy", "accuracy_curve", "accuracy_steps",
                                                tr("Held-out accuracy (%)", "留出集准确率（%）"), names,
                                                tr("x: training step; y: " + acc.get("en") + " in %, on examples never trained on",
                                                   "横轴：训练步数；纵轴：" + acc.get("zh") + "（%），用从未训练过的样本")));
  }

  std::vector<Track> tracks_;
  long budget_ = 300;
  // A long step (the LSTM at distance 64 takes tens of ms) is spread over units of
  // this many examples of its batch, so no unit outlasts a frame.
  static constexpr int kExamplesPerPart = 4;
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

// The word-order experiment (E3, experiment_order.cpp).
std::unique_ptr<Experiment> make_order_experiment(const DemoInputs& in);

}  // namespace attn::experiment_impl

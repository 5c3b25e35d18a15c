// training.cpp: TrainingExperiment (training.h), what the train_* experiments share.
//
// Sections: 1 lockstep training, chunked held-out evaluation, curves and
// progress, 2 the state as bytes (what the training worker sends the page).
#include "experiments/training.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "base/number_text.h"
#include "demos/kit.h"
#include "train/train_run.h"

namespace attn {
namespace experiment_impl {

// ---------------------------------------------------------------- 1 TrainingExperiment
void TrainingExperiment::prepare() {
  if (prepared_) return;
  prepared_ = true;
  for (Track& t : tracks_) t.run = std::make_unique<train::TrainRun>(t.desc);
  evaluating_ = true;  // the untrained models first: the curves start at chance
  eval_pos_ = 0;
  on_prepared();
}

int TrainingExperiment::advance(double budget_ms) {
  const double t0 = clock_ms();
  prepare();
  int steps = 0;
  run_units(budget_ms, [&] {
    if (evaluating_) evaluate_chunk();
    else if (waiting()) return false;  // a step is out with helpers: nothing to do until it is in
    else if (steps_ < budget_) steps += farmed() && next_track_ == 0 ? start_round() : train_one();
    else return false;
    return true;
  });
  work_ms_ += clock_ms() - t0;
  return steps;
}

void TrainingExperiment::step_once() {
  const double t0 = clock_ms();
  prepare();
  recall_shares();  // a step out with helpers finishes here first
  while (evaluating_) evaluate_chunk();
  if (steps_ < budget_) train_round();  // completes a round a paused frame left half done
  while (evaluating_) evaluate_chunk();
  work_ms_ += clock_ms() - t0;
}

bool TrainingExperiment::set_view_setting(const std::string& name, const std::string& value) {
  if (name != "example") return false;
  long long k = 0;
  example_ = parse_whole_text(value, 0, 1 << 30, &k) ? int(k) : 0;
  return true;
}

Value TrainingExperiment::status() const {
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
    r.set("steps", t.steps);
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

DemoOutputs TrainingExperiment::view() const {
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

void TrainingExperiment::add_track(const std::string& name, const std::string& name_zh, train::RunKind kind,
                                   const train::RunDesc& base) {
  Track t;
  t.name = name;
  t.shown = tr(name, name_zh);
  t.desc = base;
  t.desc.kind = kind;
  tracks_.push_back(std::move(t));
}

void TrainingExperiment::set_budget(long steps, int eval_every) {
  budget_ = std::max(1L, steps);
  eval_every_ = std::max(1, eval_every);
  window_ = int(std::max(1L, budget_ / 60));
}

void TrainingExperiment::restart(const train::RunDesc& base) {
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
  for (auto& jobs : round_.jobs) jobs.clear();  // results still out for the old models are refused
  for (auto& batch : round_.batches) batch.clear();
  round_.outstanding = 0;
  prepared_ = evaluating_ = false;
  eval_pos_ = 0;
  eval_x_.clear();
  loss_x_.clear();
}

const data::Review* TrainingExperiment::review() const {
  if (!prepared_) return nullptr;
  const auto& test = tracks_[0].run->sentiment_data().test;
  return test.empty() ? nullptr : &test[size_t(example_) % test.size()];
}

int TrainingExperiment::train_one() {
  Track& t = tracks_[size_t(next_track_)];
  const double t0 = clock_ms();
  const float loss = t.run->step();
  record_step(t, loss, clock_ms() - t0);
  if (++next_track_ < int(tracks_.size())) return 0;
  next_track_ = 0;
  end_round();
  return 1;
}

void TrainingExperiment::record_step(Track& t, float loss, double ms) {
  t.train_ms += ms;
  t.steps = t.run->steps();
  t.epoch = t.run->epoch();
  t.window_sum += double(loss);
  if (++t.window_count == window_) {
    t.loss_curve.push_back(float(t.window_sum / double(t.window_count)));
    t.window_sum = 0.0;
    t.window_count = 0;
  }
}

void TrainingExperiment::end_round() {
  if (tracks_[0].loss_curve.size() > loss_x_.size()) loss_x_.push_back(float(steps_ + 1 - window_));
  ++steps_;
  if (steps_ % eval_every_ == 0 || steps_ == budget_) {
    evaluating_ = true;
    eval_pos_ = 0;
  }
}

// ---------------------------------------------------------------- 1b rounds with helpers
bool TrainingExperiment::farmed() const {
  if (!farm_ || farm_->helpers() <= 0) return false;
  for (const Track& t : tracks_)
    if (t.run && t.run->steps_in_shares()) return true;
  return false;
}

int TrainingExperiment::start_round() {
  // The round's buffers are kept from round to round (a share of the language
  // model's gradient is over a megabyte): only their contents change.
  round_.started_ms = clock_ms();
  round_.outstanding = 0;
  const int T = int(tracks_.size()), W = farm_->helpers() + 1;
  round_.batches.resize(size_t(T));
  round_.shares.resize(size_t(T));
  round_.jobs.resize(size_t(T));
  for (int t = 0; t < T; ++t) {
    round_.batches[size_t(t)].clear();
    round_.jobs[size_t(t)].clear();
  }
  std::vector<size_t> used(size_t(T), 0);  // shares of each track this round
  // The tracks that step in shares, and the workers each gets (worker 0 is this
  // one): with as many tracks as workers or more, one worker each, in turn;
  // with fewer, each track a group of them, its batch split among the group.
  std::vector<int> shared;
  for (int t = 0; t < T; ++t)
    if (tracks_[size_t(t)].run->steps_in_shares()) shared.push_back(t);
  const int S = int(shared.size());
  std::vector<std::vector<int>> workers;
  workers.resize(size_t(S));
  for (int i = 0, next = 0; i < S; ++i) {
    if (S >= W) {
      workers[size_t(i)] = {i % W};
      continue;
    }
    const int group = W / S + (i < W % S ? 1 : 0);
    for (int k = 0; k < group; ++k) workers[size_t(i)].push_back(next++);
  }
  // The helpers' jobs first, so that they work while this worker computes.
  std::vector<std::pair<int, size_t>> here;  // (track, share) computed by this worker
  for (int i = 0; i < S; ++i) {
    const int t = shared[size_t(i)];
    train::TrainRun& run = *tracks_[size_t(t)].run;
    std::vector<int>& batch = round_.batches[size_t(t)] = run.begin_shared_step();
    const std::vector<int> bounds = train::split_batch(int(batch.size()), int(workers[size_t(i)].size()));
    std::vector<const data::TextWindow*> windows;  // the batch's, for the helpers' jobs
    for (size_t k = 0; k + 1 < bounds.size(); ++k) {
      if (bounds[k] == bounds[k + 1]) continue;  // more workers than examples
      std::vector<train::GradientShare>& shares = round_.shares[size_t(t)];
      if (shares.size() <= used[size_t(t)]) shares.emplace_back();
      train::GradientShare& sh = shares[used[size_t(t)]++];
      sh.batch = int(batch.size());
      sh.begin = bounds[k];
      sh.end = bounds[k + 1];
      const int worker = workers[size_t(i)][k];
      if (worker == 0) {
        round_.jobs[size_t(t)].push_back(0);
        here.emplace_back(t, used[size_t(t)] - 1);
        continue;
      }
      if (windows.empty())
        for (int e : batch) windows.push_back(&run.text_train()[size_t(e)]);
      const uint64_t id = farm_->take_id();
      round_.jobs[size_t(t)].push_back(id);
      ++round_.outstanding;
      farm_->post(worker - 1, encode_share_job(id, run.char_lm()->desc(), run.params(), windows, bounds[k], bounds[k + 1]));
    }
  }
  for (int t = 0; t < T; ++t) round_.shares[size_t(t)].resize(used[size_t(t)]);
  // The tracks that do not step in shares, then this worker's own shares.
  for (int t = 0; t < T; ++t) {
    Track& track = tracks_[size_t(t)];
    if (track.run->steps_in_shares()) continue;
    const double t0 = clock_ms();
    record_step(track, track.run->step(), clock_ms() - t0);
  }
  for (const auto& [t, k] : here) {
    train::GradientShare& sh = round_.shares[size_t(t)][k];
    tracks_[size_t(t)].run->compute_share(round_.batches[size_t(t)], sh.begin, sh.end, sh);
  }
  if (round_.outstanding > 0) return 0;
  finish_round();
  return 1;
}

bool TrainingExperiment::receive_result(std::string_view bytes) {
  uint64_t id = 0;
  if (round_.outstanding == 0 || !peek_share_result_id(bytes, &id) || id == 0) return false;
  for (size_t t = 0; t < round_.jobs.size(); ++t)
    for (size_t k = 0; k < round_.jobs[t].size(); ++k) {
      if (round_.jobs[t][k] != id) continue;
      train::TrainRun& run = *tracks_[t].run;
      train::GradientShare& sh = round_.shares[t][k];
      // Read into the share's own buffers (kept from round to round).
      ShareResult res;
      res.share = std::move(sh);
      std::string why;
      const int batch = res.share.batch, begin = res.share.begin, end = res.share.end;
      const size_t size = train::gradient_layout(run.params()).size;
      const bool read = decode_share_result(bytes, size, &res, &why);
      sh = std::move(res.share);
      if (!read) {  // malformed: refused, the share still out
        sh.batch = batch, sh.begin = begin, sh.end = end;
        return false;
      }
      if (!res.error.empty() || sh.batch != batch || sh.begin != begin || sh.end != end) {
        // The helper could not do it: this worker does (the same bits).
        run.compute_share(round_.batches[t], begin, end, sh);
      }
      round_.jobs[t][k] = 0;
      if (--round_.outstanding == 0) finish_round();
      return true;
    }
  return false;
}

void TrainingExperiment::recall_shares() {
  if (round_.outstanding == 0) return;
  for (size_t t = 0; t < round_.jobs.size(); ++t)
    for (size_t k = 0; k < round_.jobs[t].size(); ++k) {
      if (round_.jobs[t][k] == 0) continue;
      train::GradientShare& sh = round_.shares[t][k];
      tracks_[t].run->compute_share(round_.batches[t], sh.begin, sh.end, sh);
      round_.jobs[t][k] = 0;
    }
  round_.outstanding = 0;
  finish_round();
}

void TrainingExperiment::finish_round() {
  const double now = clock_ms();
  for (size_t t = 0; t < tracks_.size(); ++t) {
    if (round_.batches[t].empty()) continue;
    std::vector<train::GradientShare*> parts;
    for (train::GradientShare& sh : round_.shares[t]) parts.push_back(&sh);
    Track& track = tracks_[t];
    const float loss = track.run->finish_shared_step(round_.batches[t], parts);
    record_step(track, loss, now - round_.started_ms);
    round_.batches[t].clear();
  }
  round_.outstanding = 0;
  end_round();
}

int TrainingExperiment::train_round() {
  int rounds = 0;
  do rounds += train_one();
  while (next_track_ != 0);
  return rounds;
}

int TrainingExperiment::heldout_size() const {
  int size = 0;
  for (const Track& t : tracks_) size = std::max(size, t.run ? t.run->heldout_size() : 0);
  return size;
}

void TrainingExperiment::evaluate_chunk() {
  // Small chunks, so a pause reaches the worker between them and the progress
  // note can count the examples tested.
  constexpr int kChunk = 4;
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

void TrainingExperiment::add_progress(DemoOutputs& out) const {
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
    const std::string epoch = std::to_string(k.epoch);
    const std::string time = k.steps > 0 ? ms(k.ms_per_step()) : "-";
    add_line(t, k.name + ": loss " + loss + ", " + acc.get("en") + " " + a + ", " + time + " per step, epoch " + epoch,
             k.shown.get("zh") + "：损失 " + loss + "，" + acc.get("zh") + " " + a + "，每步 " + time + "，第 " + epoch + " 轮");
  }
  out.panels.push_back(demo_impl::note_panel("progress", tr("Progress", "进度"), t));
}

void TrainingExperiment::add_curves(DemoOutputs& out) const {
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

// ---------------------------------------------------------------- 2 the state as bytes
// Layout (base/bytes.h): a tag, the counters, the shared curves, then per track
// its counters, curves, newest evaluation and every parameter (model.h's
// registry order), then the experiment's own part (write_extra).
namespace {
constexpr uint32_t kStateTag = 0x54455841;  // "AXET": a TrainingExperiment's state
constexpr size_t kMaxCurve = 1u << 20;       // points in any one curve

void write_eval(ByteWriter& w, const train::EvalResult& e) {
  w.f32(e.loss);
  w.f32(e.accuracy);
  w.i64(e.count);
}
bool read_eval(ByteReader& r, train::EvalResult* e) {
  int64_t count = 0;
  if (!r.f32(&e->loss) || !r.f32(&e->accuracy) || !r.i64(&count) || count < 0 || count > (1 << 30)) return false;
  e->count = int(count);
  return true;
}
}  // namespace

void TrainingExperiment::write_state(ByteWriter& w) const {
  w.u32(kStateTag);
  w.u32(uint32_t(tracks_.size()));
  w.u8(prepared_);
  w.i64(steps_);
  w.u8(evaluating_);
  w.i64(eval_pos_);
  w.f64(work_ms_);
  w.floats(eval_x_);
  w.floats(loss_x_);
  for (const Track& t : tracks_) {
    w.i64(t.steps);
    w.i64(t.epoch);
    w.f64(t.train_ms);
    w.floats(t.loss_curve);
    w.floats(t.accuracy_curve);
    write_eval(w, t.last);
    w.i64(t.evaluated_at);
    // The parameters exist once prepared (the registry is only read here).
    const train::ParamList params = prepared_ ? t.run->params() : train::ParamList{};
    w.u32(uint32_t(params.size()));
    for (const train::Param* p : params) w.floats(p->value.data(), size_t(p->value.size()));
  }
  write_extra(w);
}

bool TrainingExperiment::read_state(ByteReader& r) {
  uint32_t tag = 0, tracks = 0;
  uint8_t prepared = 0, evaluating = 0;
  int64_t steps = 0, eval_pos = 0;
  double work_ms = 0.0;
  std::vector<float> eval_x, loss_x;
  if (!r.u32(&tag) || tag != kStateTag || !r.u32(&tracks) || tracks != tracks_.size() || !r.u8(&prepared) ||
      !r.i64(&steps) || steps < 0 || steps > budget_ || !r.u8(&evaluating) || !r.i64(&eval_pos) || eval_pos < 0 ||
      eval_pos > (1 << 30) || !r.f64(&work_ms) || !r.floats(&eval_x, kMaxCurve) || !r.floats(&loss_x, kMaxCurve))
    return false;
  // The page's copy is prepared before it reads the first state: it needs its
  // models to hold the parameters, and their shapes to check them against.
  if (prepared) prepare();
  struct Staged {
    int64_t steps = 0, epoch = 0, evaluated_at = -1;
    double train_ms = 0.0;
    std::vector<float> loss_curve, accuracy_curve;
    train::EvalResult last;
    std::vector<std::vector<float>> params;
  };
  std::vector<Staged> staged(tracks);
  for (size_t i = 0; i < tracks; ++i) {
    Staged& s = staged[i];
    uint32_t count = 0;
    if (!r.i64(&s.steps) || s.steps < 0 || s.steps > budget_ || !r.i64(&s.epoch) || s.epoch < 0 ||
        s.epoch > (1 << 30) || !r.f64(&s.train_ms) || !r.floats(&s.loss_curve, kMaxCurve) ||
        !r.floats(&s.accuracy_curve, kMaxCurve) || !read_eval(r, &s.last) || !r.i64(&s.evaluated_at) ||
        s.evaluated_at < -1 || s.evaluated_at > budget_ || !r.u32(&count))
      return false;
    const train::ParamList params = prepared ? tracks_[i].run->params() : train::ParamList{};
    if (count != params.size()) return false;
    s.params.resize(count);
    for (uint32_t k = 0; k < count; ++k)
      if (!r.floats(&s.params[k], size_t(params[k]->value.size())) ||
          s.params[k].size() != size_t(params[k]->value.size()))
        return false;
  }
  std::function<void()> extra = read_extra(r);
  if (!extra || !r.at_end()) return false;
  // Everything is checked: now change the experiment.
  steps_ = long(steps);
  evaluating_ = evaluating != 0;
  eval_pos_ = int(eval_pos);
  work_ms_ = work_ms;
  eval_x_ = std::move(eval_x);
  loss_x_ = std::move(loss_x);
  for (size_t i = 0; i < tracks; ++i) {
    Track& t = tracks_[i];
    Staged& s = staged[i];
    t.steps = long(s.steps);
    t.epoch = int(s.epoch);
    t.train_ms = s.train_ms;
    t.loss_curve = std::move(s.loss_curve);
    t.accuracy_curve = std::move(s.accuracy_curve);
    t.last = s.last;
    t.evaluated_at = long(s.evaluated_at);
    if (prepared) {
      const train::ParamList params = t.run->params();
      for (size_t k = 0; k < params.size(); ++k)
        std::copy(s.params[k].begin(), s.params[k].end(), params[k]->value.data());
    }
  }
  extra();
  return true;
}

}  // namespace experiment_impl

}  // namespace attn

// trainer.cpp: both ends of the training worker's protocol (trainer.h); the
// messages' bytes are in trainer_messages.cpp.
//
// Sections: 2 the worker's end, 3 the page's end.
#include "experiments/trainer.h"

#include <cmath>
#include <utility>

#include "base/bytes.h"
#include "data/text_corpus.h"
#include "experiments/shares.h"

namespace attn {

// ---------------------------------------------------------------- 2 the worker's end
void TrainerWorker::fail(const std::string& key, const std::string& why) {
  TrainerMessage m;
  m.op = TrainerOp::failed;
  m.key = key;
  m.value = why;
  outbox_.push_back(encode_trainer_message(m));
}

void TrainerWorker::snapshot(const std::string& key, Entry& e) {
  ByteWriter state;
  e.experiment->write_state(state);
  TrainerMessage m;
  m.op = TrainerOp::snapshot;
  m.key = key;
  m.generation = e.generation;
  m.running = running_ == key;
  m.done = e.experiment->done();
  m.state = state.take();
  outbox_.push_back(encode_trainer_message(m));
}

void TrainerWorker::receive(std::string_view bytes) {
  TrainerMessage m;
  std::string why;
  if (!decode_trainer_message(bytes, &m, &why)) {
    fail("", "the worker got a bad message: " + why);
    return;
  }
  if (m.op == TrainerOp::ping) {
    TrainerMessage pong;
    pong.op = TrainerOp::pong;
    outbox_.push_back(encode_trainer_message(pong));
    return;
  }
  if (m.op == TrainerOp::text) {
    data::TextCorpusKind kind = data::TextCorpusKind::tang_poems;
    data::parse_text_corpus_name(m.name, &kind);  // checked by the decoder
    data::provide_corpus(kind, std::move(m.value));
    return;
  }
  if (m.op == TrainerOp::open || m.op == TrainerOp::reset) {
    Entry& e = entries_[m.key];
    if (m.op == TrainerOp::reset || !e.experiment) {
      // The page checked the demo's settings before it opened the step; the
      // factory gives null for anything that is not an experiment.
      e.experiment = make_experiment(m.demo, m.inputs);
      if (!e.experiment) {
        entries_.erase(m.key);
        fail(m.key, "'" + m.demo + "' is not a live experiment");
        return;
      }
      e.experiment->prepare();
      e.experiment->set_farm(farm_);
      if (running_ == m.key) running_.clear();
    }
    e.generation = m.generation;
    snapshot(m.key, e);
    return;
  }
  auto it = entries_.find(m.key);
  if (it == entries_.end()) {
    if (m.op != TrainerOp::close) fail(m.key, "no experiment is open for this step");
    return;
  }
  Entry& e = it->second;
  if (m.op == TrainerOp::status) {  // a question: changes nothing, not even the generation
    TrainerMessage r;
    r.op = TrainerOp::report;
    r.key = m.key;
    json::Value st = e.experiment->status();
    st.set("running", running_ == m.key);
    st.set("waiting", e.experiment->waiting());
    r.value = json::write(st);
    outbox_.push_back(encode_trainer_message(r));
    return;
  }
  e.generation = m.generation;
  switch (m.op) {
    case TrainerOp::run:
      speed_ = m.value;
      running_ = e.experiment->done() ? std::string() : m.key;  // one experiment trains at a time
      e.last_snapshot_ms = -1e18;
      break;
    case TrainerOp::pause:
      if (running_ == m.key) running_.clear();
      snapshot(m.key, e);
      break;
    case TrainerOp::step:
      if (running_ == m.key) running_.clear();
      e.experiment->step_once();
      snapshot(m.key, e);
      break;
    case TrainerOp::setting:
      // A setting the page's copy took without a restart; most only change the
      // view, some (the long-range distance) start the training again.
      if (!e.experiment->set_view_setting(m.name, m.value)) fail(m.key, "setting '" + m.name + "' was refused");
      if (running_ == m.key && e.experiment->done()) running_.clear();
      snapshot(m.key, e);
      break;
    case TrainerOp::matrix:
      if (!e.experiment->set_view_matrix(m.name, m.matrix)) fail(m.key, "matrix '" + m.name + "' was refused");
      snapshot(m.key, e);
      break;
    case TrainerOp::close:
      if (running_ == m.key) running_.clear();
      entries_.erase(it);
      break;

    default: break;
  }
}

double TrainerWorker::tick(double now_ms, double budget_ms) {
  if (running_.empty()) return -1.0;
  auto it = entries_.find(running_);
  if (it == entries_.end()) {
    running_.clear();
    return -1.0;
  }
  Entry& e = it->second;
  const std::string key = running_;
  if (speed_ != "slow" && e.experiment->waiting()) return -1.0;  // a step is out with helpers
  if (speed_ == "slow") {
    e.experiment->step_once();
  } else {
    e.experiment->advance(budget_ms);
  }
  const bool done = e.experiment->done();
  if (done) running_.clear();
  const double every = speed_ == "slow" ? 0.0 : speed_ == "fast" ? kFastSnapshotMs : kNormalSnapshotMs;
  if (done || now_ms - e.last_snapshot_ms >= every) {
    e.last_snapshot_ms = now_ms;
    snapshot(key, e);
  }
  if (done) return -1.0;
  return speed_ == "slow" ? kSlowPauseMs : 0.0;
}

std::vector<std::string> TrainerWorker::take_outbox() { return std::exchange(outbox_, {}); }

void TrainerWorker::set_farm(ShareFarm* farm) {
  for (auto& [key, e] : entries_) {
    e.experiment->recall_shares();
    e.experiment->set_farm(farm);
  }
  farm_ = farm;
}

bool TrainerWorker::receive_result(std::string_view bytes) {
  for (auto& [key, e] : entries_) {
    if (!e.experiment->receive_result(bytes)) continue;
    // A step of a paused experiment came in after its pause: the page sees it.
    if (key != running_ && !e.experiment->waiting()) snapshot(key, e);
    return true;
  }
  return false;
}

Experiment* TrainerWorker::experiment(const std::string& key) {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : it->second.experiment.get();
}

// ---------------------------------------------------------------- 3 the page's end
void TrainerClient::send(TrainerMessage m) { send_(encode_trainer_message(m)); }

Experiment* TrainerClient::open(const std::string& key, const std::string& demo, const DemoInputs& inputs) {
  auto it = entries_.find(key);
  if (it != entries_.end()) return it->second.experiment.get();
  return reset(key, demo, inputs);
}

Experiment* TrainerClient::experiment(const std::string& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : it->second.experiment.get();
}

Experiment* TrainerClient::reset(const std::string& key, const std::string& demo, const DemoInputs& inputs) {
  std::unique_ptr<Experiment> ex = make_experiment(demo, inputs);
  if (!ex) return nullptr;
  ex->prepare();
  Entry& e = entries_[key];
  const bool fresh = !e.experiment;
  e.experiment = std::move(ex);
  e.demo = demo;
  e.inputs = inputs;
  e.running = false;
  TrainerMessage m;
  m.op = fresh ? TrainerOp::open : TrainerOp::reset;
  m.key = key;
  m.generation = ++e.generation;
  m.demo = demo;
  m.inputs = inputs;
  send(std::move(m));
  return e.experiment.get();
}

// A command for the worker's copy of `key`, counting its generation up.
TrainerMessage TrainerClient::command(const std::string& key, Entry& e, TrainerOp op) {
  TrainerMessage m;
  m.op = op;
  m.key = key;
  m.generation = ++e.generation;
  return m;
}

void TrainerClient::run(const std::string& key, const std::string& speed) {
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.experiment->done()) return;
  it->second.running = true;
  TrainerMessage m = command(key, it->second, TrainerOp::run);
  m.value = speed == "slow" || speed == "fast" ? speed : "normal";
  send(std::move(m));
}

// Pause and step both leave the worker's copy paused (step after one step).
void TrainerClient::pause(const std::string& key) { paused_command(key, TrainerOp::pause); }
void TrainerClient::step(const std::string& key) { paused_command(key, TrainerOp::step); }
void TrainerClient::paused_command(const std::string& key, TrainerOp op) {
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  it->second.running = false;
  send(command(key, it->second, op));
}

bool TrainerClient::set_view_setting(const std::string& key, const std::string& name, const std::string& value) {
  auto it = entries_.find(key);
  if (it == entries_.end() || !it->second.experiment->set_view_setting(name, value)) return false;
  it->second.inputs.settings[name] = value;
  TrainerMessage m = command(key, it->second, TrainerOp::setting);
  m.name = name;
  m.value = value;
  send(std::move(m));
  return true;
}

bool TrainerClient::set_view_matrix(const std::string& key, const std::string& name, const Mat& mat) {
  auto it = entries_.find(key);
  if (it == entries_.end() || !it->second.experiment->set_view_matrix(name, mat)) return false;
  it->second.inputs.mats[name] = mat;
  TrainerMessage m = command(key, it->second, TrainerOp::matrix);
  m.name = name;
  m.matrix = mat;
  send(std::move(m));
  return true;
}

void TrainerClient::close(const std::string& key) {
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  TrainerMessage m = command(key, it->second, TrainerOp::close);
  entries_.erase(it);
  send(std::move(m));
}

void TrainerClient::close_all() {
  std::vector<std::string> keys;
  for (const auto& [key, e] : entries_) keys.push_back(key);
  for (const std::string& key : keys) close(key);
}

void TrainerClient::close_where(const std::string& name, const std::string& value) {
  std::vector<std::string> keys;
  for (const auto& [key, e] : entries_) {
    auto it = e.inputs.settings.find(name);
    if (it != e.inputs.settings.end() && it->second == value) keys.push_back(key);
  }
  for (const std::string& key : keys) close(key);
}

void TrainerClient::reopen_all() {
  std::map<std::string, Entry> old = std::move(entries_);
  entries_.clear();
  for (const auto& [name, bytes] : std::map<std::string, std::string>(texts_)) provide_text(name, bytes);
  for (auto& [key, e] : old) reset(key, e.demo, e.inputs);
}

void TrainerClient::ping() {
  TrainerMessage m;
  m.op = TrainerOp::ping;
  send(std::move(m));
}

void TrainerClient::provide_text(const std::string& name, const std::string& bytes) {
  texts_[name] = bytes;
  TrainerMessage m;
  m.op = TrainerOp::text;
  m.name = name;
  m.value = bytes;
  send(std::move(m));
}

std::vector<std::string> TrainerClient::take_failures() { return std::exchange(failures_, {}); }

bool TrainerClient::synced(const std::string& key) const {
  auto it = entries_.find(key);
  return it != entries_.end() && it->second.applied == it->second.generation;
}

bool TrainerClient::running(const std::string& key) const {
  auto it = entries_.find(key);
  return it != entries_.end() && it->second.running;
}

std::string TrainerClient::receive(std::string_view bytes) {
  TrainerMessage m;
  std::string why;
  if (!decode_trainer_message(bytes, &m, &why)) {
    ++rejected_;
    return "";
  }
  switch (m.op) {
    case TrainerOp::pong: ++pongs_; return "";
    case TrainerOp::failed: failures_.push_back(m.key.empty() ? m.value : m.key + ": " + m.value); return "";
    case TrainerOp::report: return "";  // for tests and tools that ask (the page never does)
    case TrainerOp::snapshot: break;
    default: ++rejected_; return "";  // a page-to-worker message coming back
  }
  auto it = entries_.find(m.key);
  // A snapshot for a step the page closed, or taken before its newest command,
  // is stale: the next one will be current.
  if (it == entries_.end() || m.generation != it->second.generation) return "";
  ByteReader r(m.state);
  if (!it->second.experiment->read_state(r)) {
    ++rejected_;
    return "";
  }
  it->second.running = m.running;
  it->second.applied = m.generation;
  return m.key;
}

}  // namespace attn

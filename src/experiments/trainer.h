// trainer.h: live experiments train off the page's main thread -- in a Web
// Worker in the browser, on a thread natively, in-process in the tests -- and
// the page draws from snapshots of their state. This file is the protocol and
// both of its ends; the transports are in src/platform.
//
//   page (main thread): TrainerClient           worker: TrainerWorker
//   -----------------------------------         ---------------------
//   open(key, demo, inputs) --------------->    builds the experiment (or keeps the one it has)
//   run / pause / step / speed / reset ---->    trains: slices of Experiment::advance()
//   view setting or matrix edit ----------->    applies it to its copy (a distance change restarts it)
//                                 <---------    snapshot: key, generation, running, state bytes
//
// The worker may have helpers (shares.h): other workers that compute shares of
// the language models' steps. The worker stays the one that holds every
// experiment and takes every step; the page never sees the helpers' messages.
//
// The page holds its own copy of each experiment, built from the same demo and
// inputs, that never trains: it reads the worker's snapshots
// (Experiment::read_state) and draws from them, and it answers the learner's
// interventions (a head switched off, a dragged row, a typed prompt) at once,
// from the parameters it holds. Same seed, same batches, same code: a model
// trained by the worker ends at exactly the bits it reaches anywhere else.
//
// Every message is bytes (base/bytes.h), so the same encoding crosses
// postMessage, a thread's queue or a function call. What the worker sends is
// hostile to the page until checked: a malformed message is counted and
// dropped, and never changes an experiment.
//
// Generations: every command the page sends for a key counts one up, and a
// snapshot carries the generation of the newest command the worker had handled
// for it. The page applies only snapshots of its current generation, so a
// snapshot taken before a restart (or a setting) never lands after it.
//
// Speeds: slow takes one training round, sends it, and waits kSlowPauseMs, so
// curves and heatmaps move step by step; normal and fast train as fast as the
// worker can, sending a snapshot every kNormalSnapshotMs or kFastSnapshotMs.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "course/demo_api.h"
#include "experiments/experiments.h"
#include "experiments/trainer_messages.h"

namespace attn {

constexpr double kSlowPauseMs = 120.0;
constexpr double kNormalSnapshotMs = 50.0;
constexpr double kFastSnapshotMs = 250.0;
constexpr double kWorkerSliceMs = 30.0;  // work between two looks at the inbox
// ---------------------------------------------------------------- 1 messages: trainer_messages.h

// ---------------------------------------------------------------- 2 the worker's end
class TrainerWorker {
 public:
  // Handles one message from the page (malformed ones are answered with failed).
  void receive(std::string_view bytes);
  // Trains the running experiment for about budget_ms (slow: one round) and
  // queues snapshots. Returns how long to wait before the next call: 0 for at
  // once, > 0 in milliseconds (slow's pause), < 0 when nothing runs (wait for a
  // message).
  double tick(double now_ms, double budget_ms = kWorkerSliceMs);
  // The messages for the page, oldest first.
  std::vector<std::string> take_outbox();

  // Helpers for the language models' steps (shares.h), or none (null). A change
  // takes effect between steps: the shares still out with the old helpers are
  // computed here first.
  void set_farm(ShareFarm* farm);
  // A helper's result. False when no experiment waits for it (a closed step's,
  // or malformed); then nothing changes.
  bool receive_result(std::string_view bytes);

  Experiment* experiment(const std::string& key);  // tests

 private:
  struct Entry {
    std::unique_ptr<Experiment> experiment;
    uint64_t generation = 0;
    double last_snapshot_ms = -1e18;
  };
  void snapshot(const std::string& key, Entry& e);
  void fail(const std::string& key, const std::string& why);

  std::map<std::string, Entry> entries_;
  std::string running_;  // the key that trains ("" when none)
  std::string speed_ = "normal";
  std::vector<std::string> outbox_;
  ShareFarm* farm_ = nullptr;
};

// ---------------------------------------------------------------- 3 the page's end
// Holds the page's copy of every experiment it opened, by key, and turns the
// page's actions into messages (`send`) and the worker's messages into state.
class TrainerClient {
 public:
  using Send = std::function<void(std::string)>;
  explicit TrainerClient(Send send) : send_(std::move(send)) {}

  // The page's copy for `key`, made (and opened in the worker) when new. Null
  // when `demo` is not an experiment.
  Experiment* open(const std::string& key, const std::string& demo, const DemoInputs& inputs);
  Experiment* experiment(const std::string& key) const;
  // A fresh experiment for the key (its settings changed): a new copy here, and
  // a fresh one in the worker.
  Experiment* reset(const std::string& key, const std::string& demo, const DemoInputs& inputs);
  void run(const std::string& key, const std::string& speed);
  void pause(const std::string& key);
  void step(const std::string& key);
  // A view setting or matrix: applied to the page's copy at once (false: it
  // needs a fresh experiment, reset()), then to the worker's.
  bool set_view_setting(const std::string& key, const std::string& name, const std::string& value);
  bool set_view_matrix(const std::string& key, const std::string& name, const Mat& m);
  void close(const std::string& key);
  void close_all();
  // Closes every experiment whose setting `name` is `value` (those that read the
  // learner's own text, when it changes).
  void close_where(const std::string& name, const std::string& value);
  // Every experiment starts again (a new worker after the old one failed; the
  // corpora it was given are sent to it first).
  void reopen_all();

  // A message from the worker. Returns the key whose copy changed (its view
  // must be recomputed), or "" for none. Malformed messages are counted in
  // rejected() and change nothing; failed messages are kept in failures().
  std::string receive(std::string_view bytes);

  // Whether the worker trains `key` now, as its newest snapshot says (set at
  // once by run and pause).
  bool running(const std::string& key) const;
  // Whether the page's copy of `key` shows the worker's answer to the page's
  // newest command (a snapshot of the current generation has been applied).
  bool synced(const std::string& key) const;
  long rejected() const { return rejected_; }
  long pongs() const { return pongs_; }
  std::vector<std::string> take_failures();
  void ping();
  // A corpus the page fetched, for the worker's copy of the language model (the
  // page's own copy reads it through data::provide_corpus). Send it before the
  // step that needs it opens.
  void provide_text(const std::string& name, const std::string& bytes);

 private:
  struct Entry {
    std::unique_ptr<Experiment> experiment;
    std::string demo;
    DemoInputs inputs;
    uint64_t generation = 0;
    uint64_t applied = 0;  // the generation of the newest snapshot applied
    bool running = false;
  };
  void send(TrainerMessage m);
  TrainerMessage command(const std::string& key, Entry& e, TrainerOp op);
  void paused_command(const std::string& key, TrainerOp op);

  Send send_;
  std::map<std::string, Entry> entries_;
  long rejected_ = 0, pongs_ = 0;
  std::vector<std::string> failures_;
  std::map<std::string, std::string> texts_;  // provide_text's corpora, sent again to a new worker
};

}  // namespace attn

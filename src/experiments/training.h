// training.h: TrainingExperiment, the base of every train_* experiment --
// lockstep training of side-by-side models, held-out evaluation spread over
// frames, the loss and accuracy curves, the progress note, and the state as
// bytes (training.cpp). Not for use outside src/experiments.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "experiments/kit.h"
#include "experiments/shares.h"

namespace attn::experiment_impl {

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
  void set_farm(ShareFarm* farm) override { farm_ = farm; }
  bool receive_result(std::string_view bytes) override;
  bool waiting() const override { return round_.outstanding > 0; }
  void recall_shares() override;
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
  // A track's step is done: its time, steps, epoch and loss window.
  void record_step(Track& t, float loss, double ms);
  // Every track has taken its step: the loss curve's x, the step count, and an
  // evaluation when one is due.
  void end_round();
  // A round with helpers (shares.h): every language model's batch is split among
  // the workers (the tracks spread over them when there are several), the
  // helpers' jobs posted, then this worker's own shares and the other tracks'
  // steps done here. Returns 1 when the round finished at once (nothing went out).
  bool farmed() const;
  int start_round();
  // Every share is in: the updates, then end_round().
  void finish_round();
  struct Round {
    double started_ms = 0.0;
    std::vector<std::vector<int>> batches;                  // per track (empty: not in shares)
    std::vector<std::vector<train::GradientShare>> shares;  // per track, in batch order
    std::vector<std::vector<uint64_t>> jobs;                // per share: the job out for it (0: here or in)
    int outstanding = 0;
  };
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
  long helper_shares_ = 0;  // shares a helper computed (not this worker), since the start
  std::vector<float> eval_x_, loss_x_;
  ShareFarm* farm_ = nullptr;
  Round round_;
};

}  // namespace attn::experiment_impl

// experiments.h: live demos -- experiments that run over many steps: small
// models trained side by side (curriculum B2, C, E, G, H) and kernel timings
// taken in the learner's own browser (D5). The main header of the experiments room.
//
// The experiments room (src/experiments, library attn_experiments) holds each
// experiment in a file of its own (<name>.cpp, on TrainingExperiment from
// training.h and the helpers of kit.h), their entries in the demo table with
// their settings and previews (live_demos.cpp), the factory (experiments.cpp),
// the training worker's message protocol (trainer.h) and the trained weights'
// export (weights_export.h). It may include base, attn, data, train, course and
// demos (whose kit draws its panels); never lab, ui or app.
//
// Where things go:
//   - a new experiment: a file <name>.cpp here, its factory in kit.h, a row in
//     experiments.cpp's table and one in live_demos.cpp (its settings), the file
//     in CMakeLists.txt; its model in src/train and its data in src/data; its
//     numbers pinned in tests/experiments;
//   - a hand-set demo: src/demos; a lesson: lessons/ (data).
//
// A lesson step names one like any other demo ("demo: train_translation"); the
// demo table checks its settings and draws its panels before it starts.
// Training runs off the page's main thread (trainer.h): the worker's copy
// of the experiment trains in slices of advance(), and the page's copy, built
// from the same demo and inputs, never trains: it reads the worker's snapshots
// (write_state / read_state) and draws from them. view() returns ordinary
// DemoOutputs (curves, alignments, progress), so no new widget code is needed
// for what an experiment shows.
//
//   auto ex = make_experiment("train_translation", inputs);  // inputs: settings
//   ex->advance(30.0);       // ~30 ms of training (or of evaluation)
//   DemoOutputs shown = ex->view();
//
// Side-by-side models are stepped in lockstep: every model takes its k-th step
// before any takes its (k+1)-th, from the same seed, on the same batches, and
// each stops at the same step budget. Held-out evaluations are spread over
// frames in small chunks and training waits for them, so a curve's points are
// exact evaluations of one set of weights.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "base/json.h"
#include "demos/registry.h"

namespace attn {

class ShareFarm;  // shares.h

class Experiment {
 public:
  virtual ~Experiment() = default;

  // Builds the models and data (the registry's preview skips this; advance()
  // calls it when needed). Idempotent.
  virtual void prepare() = 0;
  // Works for at most about budget_ms milliseconds: training steps, evaluation
  // chunks or measurements, starting another unit only while one as long as the
  // last still fits; always at least one unit of work unless done(). Returns the
  // number of training steps (or measurements) completed.
  virtual int advance(double budget_ms) = 0;
  // One training step (or one measurement), finishing any evaluation it triggers.
  virtual void step_once() = 0;
  virtual bool done() const = 0;
  // Units done and planned: training steps per model, or lengths measured.
  virtual long progress() const = 0;
  virtual long planned() const = 0;
  // Panels and matrices for the current state. Cheap: a few forward passes.
  virtual DemoOutputs view() const = 0;
  // A setting that only changes what is shown (e.g. which example sentence).
  // Returns false when the setting needs a fresh experiment instead.
  virtual bool set_view_setting(const std::string& name, const std::string& value) = 0;
  // The same for an edited input matrix (the induction lesson's dragged
  // attention row). Returns false when it needs a fresh experiment; most
  // experiments have no matrix inputs.
  virtual bool set_view_matrix(const std::string& /*name*/, const Mat& /*m*/) { return false; }
  // Numbers for the page's test hook and the CLI: steps, per-model loss,
  // held-out accuracy and time per step.
  virtual json::Value status() const = 0;
  // Milliseconds of work done by advance()/step_once() so far (training,
  // evaluation and measuring; not drawing).
  virtual double work_ms() const = 0;

  // Everything view() and status() read that training changes (steps, curves,
  // evaluations, the models' parameters), as bytes: the training worker's copy
  // writes it, and the page's copy, which never trains, reads it. read_state()
  // checks all of it before it changes anything: bytes that are malformed, or
  // that do not fit this experiment (another demo, other shapes), leave it as it
  // was and return false.
  virtual void write_state(ByteWriter& w) const = 0;
  virtual bool read_state(ByteReader& r) = 0;

  // Other workers for the language models' steps (shares.h): advance() then
  // hands them shares of each step, and a step ends when their results are in
  // (receive_result). Null, or a farm without helpers: every step here. The
  // bits are the same either way. Experiments without a language model ignore it.
  virtual void set_farm(ShareFarm* /*farm*/) {}
  // A helper's result. False (and nothing changes) when it is malformed or not
  // one this experiment waits for.
  virtual bool receive_result(std::string_view /*bytes*/) { return false; }
  // A step is out with helpers: advance() does nothing until its results are in.
  virtual bool waiting() const { return false; }
  // The helpers are going away: the shares still out are computed here, and the
  // step finishes (the same bits).
  virtual void recall_shares() {}
};

// The experiments' entries in the demo table: their settings, checked like every
// demo's, and a preview -- the panels of an experiment that has not started --
// for lesson validation and the first frame (live_demos.cpp); and a table of
// them alone.
std::vector<DemoEntry> live_demo_entries();
const DemoTable& live_demos();

// True for the demos that are experiments (train_*, timing).
bool is_experiment_demo(const std::string& demo);

// train_induction's typed prompt (its `prompt` setting): letters A to P, one
// token each, spaces (or commas, or |) between them optional, lower case read
// as upper case. Checked in this order: at most kInductionPromptChars
// characters, then every letter a token, then at most kInductionPromptTokens
// tokens (the model's position table). "" is no prompt. On failure `tokens` is
// empty and `why` says what is wrong.
constexpr int kInductionVocab = 16;
constexpr size_t kInductionPromptChars = 64;
constexpr int kInductionPromptTokens = 16;
bool parse_induction_prompt(const std::string& text, std::vector<int>* tokens, std::string* why);

// train_lm's typed prompt (its `prompt` setting): any text the model can read,
// checked in this order: at most kLmPromptBytes bytes, valid UTF-8, at most
// kLmPromptChars characters (the model's context), no control characters but
// the line break. Characters the training text never has are read as <unk>.
constexpr size_t kLmPromptBytes = 128;
constexpr int kLmPromptChars = 32;
bool check_lm_prompt(const std::string& text, std::string* why);

// The corpus (data::text_corpus_name) an experiment reads, which a page must
// fetch and hand over (data::provide_corpus, TrainerClient::provide_text)
// before the experiment is built: train_lm's text. False for the others.
bool experiment_text(const std::string& demo, const DemoInputs& in, std::string* corpus);

// A fresh experiment for demo `demo` with the learner's settings (already
// checked by the demo registry; missing ones take their defaults). Null when
// `demo` is not an experiment.
std::unique_ptr<Experiment> make_experiment(const std::string& demo, const DemoInputs& in);

}  // namespace attn

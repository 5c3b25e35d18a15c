// lab_app.h: the running lab: the loaded lessons, the learner's state (saved and
// restored), their current values and the outputs computed from them, the live
// experiment and the training worker. It is the one LabControl (lab_view.h): the
// frame, the keys, the page bridge and the mirror see it only through that
// interface, and only lab_app.cpp and main.cpp include this header.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "app/lab_code.h"
#include "app/lab_frame.h"
#include "app/lab_glyphs.h"
#include "app/lab_own_text.h"
#include "app/lab_trainer.h"
#include "app/lab_view.h"
#include "course/lab_state.h"
#include "course/lesson.h"

class LabApp final : public LabControl {
 public:
  // Loads the embedded lessons (or, when lesson_dir is set, the files there, so
  // authors see edits without rebuilding), restores saved state, then follows the
  // page's link if it names a step. Problems go to the errors and notices.
  void init(const std::string& lesson_dir = "");
  // One frame (the platform loop's callback) and one question from the page.
  void frame() { lab_frame(*this, frame_); }
  std::string page_query(const std::string& name, const std::string& arg);

  // LabControl (lab_view.h says what each does).
  LabView view() const override;
  bool go_to(const std::string& lesson_id, int step) override;
  void step_by(int delta) override;
  void lesson_by(int delta) override;
  void follow_link(const std::string& fragment) override;
  bool load_lesson_text(const std::string& file, const std::string& text) override;
  void apply_demo_edit(const ui::DemoEdit& edit) override;
  void reset_step() override;
  void show_hint(int exercise) override;
  void quiz_pick(int quiz, int option) override;
  void quiz_check(int quiz) override;
  bool apply_solution(int exercise) override;
  std::string page_setting(const std::string& name, const std::string& value) override;
  std::string type_number(const std::string& name, int row, int col, const std::string& text) override;
  void train(const std::string& action, const std::string& speed) override;
  void set_workers(int workers) override;
  void own_text(const std::string& text, bool keep) override;
  void keep_own_text(bool keep) override { own_text_.set_kept(keep), ++revision_; }
  void set_language(const std::string& lang) override;
  void set_layout(const std::string& layout, bool touch_screen) override;
  void set_keys_shown(bool shown) override { show_keys_ = shown; }
  void set_overlay(bool shown) override { overlay_ = shown; }
  void notify(const std::string& text) override { notices_ = {text}; }
  void clear_notices() override { notices_.clear(); }
  std::string current_link() override;
  std::string share_link() override;
  std::string embed_snippet() override;
  bool has_code() override { return StepCode::available(code_source()); }
  bool code_trained() override { return StepCode::trained(code_source()); }
  const std::string& code() override { return code_.program(code_source()); }
  const std::string& code_weights() override { return code_.weights(code_source()); }
  bool code_view(bool open, const std::string& language) override;
  void copy_code(bool weights) override;
  void tick(double now_ms, long frames) override;
  double compute_total_ms() const override { return compute_total_ms_; }
  bool save(double min_interval_ms) override;

 private:
  // The step shown, in the learner's language (step_: its parameters, checks and
  // solutions in that language; null with no lessons), and its key "lesson/step-id".
  const attn::LessonStep* current_step() const { return has_step_ ? &step_ : nullptr; }
  std::string current_key() const;
  // Recomputes the step's outputs from its inputs (or the live experiment's view).
  void recompute();
  // A fresh experiment for the step (its settings may have changed), here and in
  // the worker; none while the settings do not pass the demo's checks.
  void restart_experiment();
  // Shows the step at state_ (lesson id, step), with the learner's saved edits.
  void enter_step();
  // The learner's values changed, or a hint or answer: kept with the step.
  void remember_edits();
  void remember_answers();
  // Input matrix `name` changed: remembered, and a live experiment keeps its
  // training when the matrix only changes what is shown.
  void matrix_changed(const std::string& name);
  void apply_edit(const ui::CellEdit& edit);
  void set_setting(const std::string& name, const std::string& value);
  void record_errors(const std::vector<attn::LessonError>& errors);
  void tell_page_prose() const;  // the page's "step" event: the words shown changed
  StepCode::Source code_source() const;
  // A text of the learner's was taken (or refused): handed to the core and the
  // worker, the language models that read it started again, the page told.
  void own_text_outcome();

  attn::LessonSet set_;
  attn::LabState state_;        // what is saved: language, place, progress, edits
  int lesson_ = 0;              // index of state_.lesson in set_.lessons
  // The step at state_ as a reader of state_.lang meets it (attn::step_in_language),
  // made again whenever the place, the language or the lessons change.
  attn::LessonStep step_;
  bool has_step_ = false;
  attn::DemoInputs inputs_;     // the learner's current values on this step
  attn::DemoOutputs outputs_;   // recomputed whenever inputs change
  std::vector<std::string> errors_;   // problems: the error panel, and the page's errors()
  std::vector<std::string> notices_;  // information (a link was ignored, a link was copied)
  // This step's revealed hints (per exercise) and quiz answers (kept in state_.answers).
  std::vector<int> hints_shown_;
  std::vector<ui::QuizState> quizzes_;
  bool show_keys_ = false, overlay_ = false;
  double compute_ms_ = 0.0, compute_total_ms_ = 0.0;
  long revision_ = 0;           // counts changes the page's mirror shows
  // Live experiments (training, timing) train in the training worker: a Web
  // Worker in the page, a thread natively, started when a step first needs it or
  // a moment after the first frame. The page's copies of the experiments, by
  // step key, are the client's; a step the learner left keeps its experiment,
  // paused, so coming back finds the models as they were.
  TrainerSide trainer_;
  attn::Experiment* experiment_ = nullptr;  // the current step's copy (the client owns it)
  std::string experiment_key_;
  bool running_ = false;          // the worker trains it (its snapshots say; Start and Pause set it at once)
  std::string speed_ = "normal";  // slow: a step at a time; normal / fast: as fast as the worker can
  long snapshots_ = 0;            // snapshots applied to the current step's copy
  long frames_ = 0;               // frames drawn (the worker starts a moment after the first)
  long randomised_ = 0;           // presses of Random: each gives new numbers
  // How the page lays the lab out (web/lab.js decides by width): "wide" shows the lesson
  // list beside the lesson; "medium" and "narrow" leave it to the page's drawer.
  std::string layout_ = "wide";
  bool embedded_ = false;      // the embed view (platform::embedded_view): one step, nothing saved
  bool touch_screen_ = false;  // the page has a coarse pointer: touch-sized controls
  StepCode code_;               // the Code view and its program (lab_code.h)
  OwnText own_text_{OwnText::common_font()};  // the learner's own text (lab_own_text.h)
  LessonGlyphs glyphs_;        // the later lessons' Chinese glyphs (lab_glyphs.h)
  bool dirty_ = false;         // state changed since it was last saved
  double saved_at_ms_ = 0.0;
  FrameState frame_;           // the frame's own (lab_frame.h)
};

// lab_view.h: the one interface between the running lab (LabApp, lab_app.cpp) and
// the parts that show it or answer for it: the frame (lab_frame.cpp), the keys
// (lab_keys.cpp), the page bridge (lab_page.cpp) and the page's readable mirror
// (lab_mirror.cpp).
//
// Each of them gets a LabView -- what the lab is showing, looked up once per frame
// or per page question: the lesson, the step, its key, the learner's values and
// the outputs computed from them, the quizzes and hints, the live experiment --
// and a LabControl, the calls that change it. None of them sees LabApp itself,
// and none reaches into another's state: LabApp makes the view and carries out the
// calls, and only lab_app.cpp and main.cpp include lab_app.h.
#pragma once

#include <string>
#include <vector>

#include "course/demo_api.h"
#include "course/lab_state.h"
#include "course/lesson.h"
#include "experiments/experiments.h"
#include "ui/panels.h"

// The training worker and the current step's experiment, as far as anyone shows them.
struct TrainerView {
  const attn::Experiment* experiment = nullptr;  // the page's copy for this step; null: none
  bool running = false;         // the worker trains it
  std::string speed = "normal"; // slow, normal or fast
  bool started = false;         // the worker has been started
  bool ready = false;           // the worker has loaded and answers
  std::string failed;           // why the worker stopped ("" while it works)
  long snapshots = 0;           // worker snapshots applied to this step's copy
  bool synced = false;          // the worker has answered the newest command for this step
  long rejected = 0;            // malformed messages the page refused
  int workers = 1;              // workers that train: the training worker and its helpers
  int cores = 1;                // the cores the machine (the browser) reports
};

// The learner's own text for the language model (lab_own_text.h), as the page's
// box for it shows it.
struct OwnTextView {
  bool has = false;        // a text was taken
  bool pending = false;    // one waits for its glyphs
  bool keep = false;       // the learner wants it kept on this device
  bool kept = false;       // kept there now
  int characters = 0, paragraphs = 0, unshown = 0;
  bool last_ok = false;    // how the last one handed in fared, and what was said
  std::string message;     // in the learner's language ("" before any)
};

// What the lab shows now. The pointers are into the lab's own state: valid until
// the next call that changes it (a navigation may replace the step), so a part
// that calls LabControl asks for a new view before it reads more.
struct LabView {
  const std::vector<attn::Lesson>* lessons = nullptr;
  const attn::LabState* state = nullptr;       // language, place, progress, edits, answers
  const attn::Lesson* lesson = nullptr;        // null when no lesson loaded
  const attn::LessonStep* step = nullptr;      // null when no lesson loaded
  int lesson_index = 0;
  std::string key;                             // "lesson/step-id" ("" with no step)
  bool edited = false;                         // the step has the learner's values or answers
  const attn::DemoInputs* inputs = nullptr;    // the learner's current values
  const attn::DemoOutputs* outputs = nullptr;  // computed from them
  const std::vector<int>* hints = nullptr;     // revealed hints, per exercise
  const std::vector<ui::QuizState>* quizzes = nullptr;  // per quiz
  const std::vector<std::string>* errors = nullptr;     // problems (the error panel)
  const std::vector<std::string>* notices = nullptr;    // information for the learner
  TrainerView trainer;
  OwnTextView own_text;
  bool glyphs_pending = false;  // the step's Chinese glyphs are on their way (lab_glyphs.h)
  std::string layout = "wide";  // how the page lays the lab out: wide, medium or narrow
  bool embedded = false;        // the embed view: one step, nothing saved
  bool touch_screen = false;    // the page has a coarse pointer
  bool code_open = false;       // the Code view
  std::string code_lang = "numpy";
  double code_copied_at = -1e9; // when a program was last copied (ms)
  bool show_keys = false;       // the keys panel
  bool overlay = false;         // the timing overlay
  double compute_ms = 0.0;      // the last demo compute
  long revision = 0;            // counts changes the page's mirror shows
  bool dirty = false;           // state not yet saved

  const std::string& lang() const { return state->lang; }
};

// Every change to the running lab. Each keeps the saved state, the link and the
// outputs in step; an argument out of range is ignored (or answered with why).
class LabControl {
 public:
  virtual ~LabControl() = default;
  virtual LabView view() const = 0;

  // Navigation.
  virtual bool go_to(const std::string& lesson_id, int step) = 0;
  virtual void step_by(int delta) = 0;
  virtual void lesson_by(int delta) = 0;
  virtual void follow_link(const std::string& fragment) = 0;  // "lesson/step[/v1.values]"
  virtual bool load_lesson_text(const std::string& file, const std::string& text) = 0;
  // The learner's values, hints and answers.
  virtual void apply_demo_edit(const ui::DemoEdit& edit) = 0;
  virtual void reset_step() = 0;
  virtual void show_hint(int exercise) = 0;
  virtual void quiz_pick(int quiz, int option) = 0;
  virtual void quiz_check(int quiz) = 0;
  virtual bool apply_solution(int exercise) = 0;
  // From the page's own inputs: "" when done, else why not.
  virtual std::string page_setting(const std::string& name, const std::string& value) = 0;
  virtual std::string type_number(const std::string& name, int row, int col, const std::string& text) = 0;
  // The live experiment: "run", "pause", "step", "reset", "speed" (with slow,
  // normal or fast), "retry" (a new worker after one failed).
  virtual void train(const std::string& action, const std::string& speed = "") = 0;
  // How many workers train (1 .. platform::kMaxTrainerWorkers); training goes
  // on with the same bits.
  virtual void set_workers(int workers) = 0;
  // The learner's own text (any bytes), pasted or dropped: checked, and once its
  // glyphs are in, taken (or refused with a message, the text before it kept);
  // the outcome shows in the view's own_text and as the page's "ownText" event.
  // `keep`: kept on this device across reloads. keep_own_text changes only that.
  virtual void own_text(const std::string& text, bool keep) = 0;
  virtual void keep_own_text(bool keep) = 0;
  // The interface.
  virtual void set_language(const std::string& lang) = 0;
  virtual void set_layout(const std::string& layout, bool touch_screen) = 0;
  virtual void set_keys_shown(bool shown) = 0;
  virtual void set_overlay(bool shown) = 0;
  virtual void notify(const std::string& text) = 0;  // replaces the notices with one
  virtual void clear_notices() = 0;
  // Links: the step with the learner's values; shared (put in the address and on
  // the clipboard); the embed view's <iframe> snippet (on the clipboard).
  virtual std::string current_link() = 0;
  virtual std::string share_link() = 0;
  virtual std::string embed_snippet() = 0;
  // The Code view: whether the step has a program, whether it is a trained
  // model's (with its weights), the program and the weights, opening or closing
  // the view in a language ("" keeps it; false when there is no program), and
  // copying the program or the weights.
  virtual bool has_code() = 0;
  virtual bool code_trained() = 0;
  virtual const std::string& code() = 0;
  virtual const std::string& code_weights() = 0;
  virtual bool code_view(bool open, const std::string& language) = 0;
  virtual void copy_code(bool weights) = 0;
  // Once a frame, before the view is read: what the training worker sent, and
  // the texts that arrived. `frames` counts the frames drawn.
  virtual void tick(double now_ms, long frames) = 0;
  // Milliseconds spent computing demos since the start (the frame's own share
  // is the difference across it).
  virtual double compute_total_ms() const = 0;
  // Writes the state to storage if it changed (at most every `min_interval_ms`);
  // true when nothing is left unsaved.
  virtual bool save(double min_interval_ms) = 0;
};

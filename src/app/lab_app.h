// lab_app.h: the running lab: the loaded lessons, the learner's state (saved and
// restored), their current values and the outputs computed from them. The UI reads
// it; every change goes through the lab_* functions below.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "app/lab_touch.h"
#include "base/json.h"
#include "course/lab_state.h"
#include "course/lesson.h"
#include "course/links.h"
#include "experiments/experiments.h"
#include "experiments/trainer.h"
#include "lab/catalog.h"
#include "platform/platform.h"
#include "ui/panels.h"

struct LabApp {
  attn::LessonSet set;
  attn::LabState state;       // what is saved: language, place, progress, edits
  int lesson = 0;             // index of state.lesson in set.lessons
  attn::DemoInputs inputs;    // the learner's current values on this step
  attn::DemoOutputs outputs;  // recomputed whenever inputs change
  std::vector<std::string> errors;   // problems: shown in the error panel, and by errors()
  std::vector<std::string> notices;  // information (a link was ignored, a link was copied)
  // This step's revealed hints (per exercise) and quiz answers, restored from
  // state.answers on entering it and saved there as they change.
  std::vector<int> hints_shown;
  std::vector<ui::QuizState> quizzes;
  bool show_keys = false;     // the keys panel is open (? or F1)
  double compute_ms = 0.0;    // last demo compute time
  // Live experiments (training, timing) train in the training worker
  // (lab/trainer.h): a Web Worker in the page, a thread natively, started when
  // a step first needs it or a moment after the first frame. The page's copies
  // of the experiments, by step key, are the client's; a step the learner left
  // keeps its experiment, paused, so coming back finds the models as they were.
  std::unique_ptr<platform::TrainerLink> trainer_link;
  std::unique_ptr<attn::TrainerClient> trainer;
  attn::Experiment* experiment = nullptr;  // the current step's copy (the client owns it)
  std::string experiment_key;
  bool running = false;          // the worker trains it (its snapshots say; Start and Pause set it at once)
  std::string speed = "normal";  // slow: a step at a time; normal / fast: as fast as the worker can
  std::string trainer_failed;    // why the worker stopped ("" while it works): a notice with Retry
  bool trainer_ready = false;    // the worker has loaded and answers
  double trainer_started_at = 0.0, trainer_heard_at = 0.0, trainer_pinged_at = 0.0;
  long trainer_snapshots = 0;    // snapshots applied to the current step's copy
  // What a step's text needs, fetched when the step opens (lab_text_ready): the
  // names on their way, why one failed (Reset step tries again), and the glyph
  // fonts already merged into the atlas.
  std::set<std::string> text_waiting, glyphs_added;
  std::map<std::string, std::string> text_failed;
  // The timing overlay (key T): smoothed frame time, and core work in this frame.
  bool overlay = false;
  double frame_ms = 0.0;
  double last_frame_at = 0.0;
  double frame_compute_ms = 0.0;
  double frame_compute_shown = 0.0;  // the last complete frame's compute
  double ui_ms = 0.0;  // smoothed time to lay out the interface, not counting compute
  long frames = 0;
  // How the page lays the lab out (web/lab.js decides by width and tells us):
  // "wide" shows the lesson list beside the lesson; "medium" and "narrow" leave
  // it to the page's drawer, with Back / Next in the page's top bar.
  std::string layout = "wide";
  bool embedded = false;      // the embed view (platform::embedded_view): one step, nothing saved
  bool touch_screen = false;  // the page has a coarse pointer: touch-sized controls
  bool touched = false;       // a finger has been seen: touch-sized controls from now on
  TouchGesture gesture;
  // Counts changes the page's readable mirror shows (values, outputs, answers,
  // language, training); the page is told, at most a few times a second.
  long revision = 0, revision_sent = 0;
  double revision_sent_at = 0.0;
  bool running_sent = false;
  // The Code view (ui::code_view): open or not, its language ("numpy" or "torch"),
  // and the program it shows, made again when the values or the language change.
  bool code_open = false;
  std::string code_lang = "numpy";
  mutable std::string code_text;      // a cache: made by lab_code, which only reads the lab
  mutable std::string code_made_for;  // the step, revision and language code_text was made for
  mutable std::string code_weights;   // a trained model's weights (JSON), made with code_text
  double code_copied_at = -1e9;
  bool dirty = false;         // state changed since it was last saved
  double saved_at_ms = 0.0;
};

// Loads the embedded lessons (or, when lesson_dir is set, the files there, so
// authors see edits without rebuilding), restores saved state, then follows the
// page's link if it names a step. Problems go to errors / notices.
void lab_init(LabApp& app, const std::string& lesson_dir = "");

// Adds or replaces one lesson from text at run time (used by tests and authors).
// Returns false and records the problems in app.errors when it does not load.
bool lab_load_lesson_text(LabApp& app, const std::string& file, const std::string& text);

// Follows a link fragment ("lesson/step[/v1.values]"); bad links leave a notice.
void lab_follow_link(LabApp& app, const std::string& fragment);

// Navigation and edits. Each keeps app.state, the link and the outputs in step.
bool lab_goto(LabApp& app, const std::string& lesson_id, int step);
void lab_step_by(LabApp& app, int delta);
void lab_apply_edit(LabApp& app, const ui::CellEdit& edit);
void lab_set_setting(LabApp& app, const std::string& name, const std::string& value);
void lab_reset_step(LabApp& app);  // the step's values, hints and quiz answers
// Reveals the next hint of exercise `exercise`; picks an option of a quiz, and
// checks (reveals) it. Each is remembered with the step; out-of-range is ignored.
void lab_show_hint(LabApp& app, int exercise);
void lab_quiz_pick(LabApp& app, int quiz, int option);
void lab_quiz_check(LabApp& app, int quiz);
// Applies what the learner did in a demo panel (edit, setting, randomise, reset).
void lab_apply_demo_edit(LabApp& app, const ui::DemoEdit& edit);
void lab_set_language(LabApp& app, const std::string& lang);
// Sets the stored solution of exercise `exercise`; false (and an error) when it cannot.
bool lab_apply_solution(LabApp& app, int exercise);
// Sets a choice or slider of the step's demo from the page's mirror: "" when done,
// else why not (the setting must be one the step shows, the value one it offers).
std::string lab_page_setting(LabApp& app, const std::string& name, const std::string& value);
// Types `text` into number (row, col) of matrix `name`, as the desktop's typing
// does: a decimal number, kept within the editor's range. "" on success, else why not.
std::string lab_type_number(LabApp& app, const std::string& name, int row, int col, const std::string& text);
// The page's layout ("wide", "medium" or "narrow") and whether it is a touch screen.
void lab_set_layout(LabApp& app, const std::string& layout, bool touch_screen);
std::string lab_current_link(const LabApp& app);  // the step with the learner's values
std::string lab_share_link(LabApp& app);  // also copies it to the clipboard
// The <iframe> snippet for this step in the embed view (attn::embed_snippet),
// copied to the clipboard.
std::string lab_embed_snippet(LabApp& app);
// The Code view. A hand-set step has a program in app.code_lang; the translator's
// and the induction model's steps have their trained model's NumPy program, with
// its weights as JSON in app.code_weights (lab/weights_export.h; both empty until
// the model is built); other steps have none (lab_has_code). lab_code returns the
// program; lab_code_view opens or closes the view and picks its language ("numpy"
// or "torch"; "" keeps it), false when the step has no program; lab_copy_code puts
// the program, or the weights, on the clipboard.
bool lab_has_code(const LabApp& app);
bool lab_code_trained(const LabApp& app);
const std::string& lab_code(const LabApp& app);
bool lab_code_view(LabApp& app, bool open, const std::string& language);
void lab_copy_code(LabApp& app, bool weights = false);

// Live experiments: "run", "pause", "step" (one training step), "reset" (start
// again), "speed" (with "slow", "normal" or "fast"), "retry" (a new training
// worker after one failed).
void lab_train(LabApp& app, const std::string& action, const std::string& speed = "");
// Each frame: applies what the training worker sent, and watches that it lives.
void lab_trainer_pump(LabApp& app, double now_ms);

// Writes the state to storage if it changed (at most every `min_interval_ms`).
void lab_save(LabApp& app, double min_interval_ms = 250.0);

// Every character of lesson text, for the CJK font's glyph list.
std::string lab_all_text(const LabApp& app);

// Draws one frame of the whole interface (called by the platform loop).
bool lab_frame(void* app);

// JSON views of the lab for the page's test hook and tools.
attn::json::Value lab_lessons_json(const LabApp& app);
attn::json::Value lab_state_json(const LabApp& app);
attn::json::Value lab_widgets_json();
attn::json::Value lab_errors_json(const LabApp& app);
attn::json::Value lab_prose_json(const LabApp& app);
// The current step for the page's readable mirror (lab_mirror.cpp).
attn::json::Value lab_mirror_json(const LabApp& app);
// Answers window.attnlab's questions (see platform::set_page_query_handler).
std::string lab_page_query(const std::string& name, const std::string& arg, void* app);

// panels.h: every panel and widget of the lab's interface. Each is implemented in a
// file of its own, takes a const view of core state and returns what the learner
// did (an edit, a navigation); none of them computes anything.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/tensor.h"
#include "course/demo_api.h"
#include "course/exercise.h"
#include "course/lab_state.h"
#include "course/lesson.h"

namespace ui {

// One number changed by the learner: matrix `name`, cell (row, col).
struct CellEdit {
  std::string name;
  int row = 0, col = 0;
  float value = 0.0f;
};

// theme.cpp: colours, spacing and rounding of the whole lab.
void apply_theme();
// Touch screens: every control at least 40 screen units tall (buttons, numbers,
// answers, sliders), with more room between them. Off restores apply_theme's sizes.
void set_touch_targets(bool on);
bool touch_targets();
// A compact button on a desktop; a full-height one on a touch screen.
bool small_button(const char* label);

// lesson_list.cpp: the lessons in order; returns the index clicked, or -1.
struct LessonListView {
  const std::vector<attn::Lesson>* lessons = nullptr;
  int current = 0;
  std::string lang = "en";
  std::vector<float> progress;  // per lesson, 0..1 of its steps reached
};
int lesson_list(const LessonListView& view);

// step_view.cpp: lesson title, step title, prose and Back / Next.
enum class Nav { none, back, next };
struct StepView {
  const attn::Lesson* lesson = nullptr;
  int step = 0;
  std::string lang = "en";
  bool prose = true;  // false: the page shows the text beside the canvas
  std::string text{};  // the prose shown now (attn::shown_prose), when `prose`
};
void step_header(const StepView& view);
Nav step_navigation(const StepView& view);

// matrix_editor.cpp: a grid of draggable numbers with row and column labels.
struct MatrixEditorView {
  std::string name;  // id of the matrix, also used in widget ids: "edit:<name>:r:c"
  const attn::Mat* m = nullptr;
  std::vector<std::string> row_labels;
  std::vector<std::string> col_labels;
  float speed = 0.01f;  // value change per pixel dragged
  std::string lang = "en";
  float max_width = 0.0f;  // the card's content width (0 = as wide as the grid needs)
};
// The range a learner can drag or type an editable number to.
inline constexpr float kEditLimit = 100.0f;
std::optional<CellEdit> matrix_editor(const MatrixEditorView& view);
float matrix_editor_width(const MatrixEditorView& view);
// The row of buttons under an editor: ids "randomise:<name>", "reset:<name>".
enum class MatrixAction { none, randomise, reset };
MatrixAction matrix_tools(const std::string& name, const std::string& lang);

// heatmap.cpp: a read-only matrix as coloured cells with their values. Cells shrink
// to fit max_width (values are then shown on hover only).
struct HeatmapView {
  std::string id;
  const attn::Mat* m = nullptr;
  std::vector<std::string> row_labels;
  std::vector<std::string> col_labels;
  bool unit_range = true;  // colour 0..1 (weights); otherwise by the largest magnitude
  int decimals = 2;
  float max_width = 0.0f;  // 0 = cells at full size
};
void heatmap(const HeatmapView& view);
float heatmap_width(const HeatmapView& view);

// token_arrows.cpp: query tokens above key tokens, joined by curves whose thickness
// and opacity are the weights; hovering a token highlights its row (or column).
struct TokenArrowsView {
  std::string id;
  const attn::Mat* weights = nullptr;  // (n_q, n_k)
  std::vector<std::string> queries;    // n_q labels
  std::vector<std::string> keys;       // n_k labels
  float max_width = 0.0f;              // boxes squeeze to fit (0 = no limit)
};
void token_arrows(const TokenArrowsView& view);
float token_arrows_width(const TokenArrowsView& view);

// vector_plot.cpp: rows of one or two matrices as arrows on a 2-D plane (columns 0
// and 1). Arrow heads of an editable matrix can be dragged.
struct VectorSet {
  std::string name;  // matrix name, used in widget ids "drag:<name>:<row>"
  const attn::Mat* m = nullptr;
  std::vector<std::string> labels;  // one per row
  bool editable = false;
};
struct VectorPlotView {
  std::string id;
  VectorSet first, second;  // second.m may be null
  std::string caption;      // computed by the core (angle, projection, dot product)
  float max_width = 0.0f;   // the caption may widen the panel up to this (0 = a default)
};
// A dragged arrow head: row `row` of `name` moved to (x, y).
struct PointEdit {
  std::string name;
  int row = 0;
  float x = 0.0f, y = 0.0f;
};
std::optional<PointEdit> vector_plot(const VectorPlotView& view);
float vector_plot_width(const VectorPlotView& view);

// plot.cpp: line plot (one line per row of ys against xs) and grouped bar plot
// (one group per row, one bar per column), with ticks, legend and hover values.
struct PlotView {
  std::string id;
  bool bars = false;
  const attn::Mat* ys = nullptr;  // line: (n_series, n_points); bars: (n_groups, n_bars)
  const attn::Mat* xs = nullptr;  // line: x values in row 0 (null = 0, 1, 2, ...)
  std::vector<std::string> series_labels;  // legend: line per row; bars per column
  std::vector<std::string> group_labels;   // bars: below each group (or each bar when one group)
  float max_width = 0.0f;                  // 0 = default size
  std::string axes;                        // caption naming the axes, below the plot
  float x_mark = 0.0f;                     // line: a dashed vertical line at this x (> 0)
  bool linear_x = false;                   // line: never a log x axis
  std::string lang = "en";                 // for the "no points yet" line
};
void plot(const PlotView& view);
float plot_width(const PlotView& view);

// settings.cpp: a choice among options (segmented buttons) and a numeric slider.
// Both return the setting's new value as text ("scaled_dot", "16", "0.5").
struct ChoiceView {
  std::string setting;  // widget ids "choice:<setting>:<option>"
  std::vector<std::string> options;
  std::vector<std::string> labels;  // shown instead of the options when given
  std::string current;
};
std::optional<std::string> choice(const ChoiceView& view);
float choice_width(const ChoiceView& view);
struct SliderView {
  std::string setting;  // widget ids "slider:<setting>", "slider:<setting>:dec" / ":inc"
  float min = 0.0f, max = 1.0f, step = 0.0f;  // step 0 = continuous
  std::string current;
  float track = 0.0f;   // width of the bar itself (0 = kSliderTrack)
};
// A line of tokens typed by the learner (Panel::Kind::token_input). Text that
// breaks the rules stays in the field with a message below and is not handed
// over; text that passes is returned as typed.
struct TokenInputView {
  std::string setting;              // widget id "text:<setting>"
  std::vector<std::string> tokens;  // allowed tokens, single characters (upper case); empty: any
                                    // text of at most max_tokens characters (UTF-8)
  int max_tokens = 16;
  std::string current;
  std::string lang = "en";
};
std::optional<std::string> token_input(const TokenInputView& view);
float token_input_width(const TokenInputView& view);
// In a browser, free text is typed in the page's own input, not in the canvas: a
// canvas gets key presses, so a Chinese input method (whose composition the
// browser draws and hands over as a whole) cannot type into it. When this is on,
// clicking or tabbing into a free-text field leaves it inactive and asks the page
// to open its input over the field's rectangle (screen units).
void set_page_text_fields(bool on);
struct PageTextRequest {
  std::string setting;
  std::string text;  // the setting's value, shown in the page's input
  float x = 0, y = 0, w = 0, h = 0;
};
// The request made in this frame, if any (taken once).
std::optional<PageTextRequest> take_page_text_request();
// A slider's usual bar width, and the narrowest a layout may make it.
constexpr float kSliderTrack = 170.0f, kSliderMinTrack = 100.0f;
std::optional<std::string> slider(const SliderView& view);
float slider_width(const SliderView& view);

// demo_view.cpp: draws a demo's panels (attn::DemoOutputs::panels) in order, side
// by side while they fit, one generic widget per attn::Panel::Kind; returns the
// learner's edit, if any. Each panel is logged as widget "panel:<panel id>" (kind
// "panel", or "panel-hidden" while a quiz hides it).
struct DemoEdit {
  enum class Kind {
    cell,       // matrix `name`, cell (row, col) = value
    point,      // matrix `name`, row `row`: column 0 = value, column 1 = value2 (a dragged arrow)
    setting,    // setting `name` = text
    randomise,  // matrix `name`: fill with seeded random numbers (the app owns the seed)
    reset       // matrix `name`: back to the step's starting values
  } kind = Kind::cell;
  std::string name;      // matrix name or setting name
  int row = 0, col = 0;  // cell; point (row only)
  float value = 0.0f;    // cell: the new value; point: the new x
  float value2 = 0.0f;   // point: the new y
  std::string text;      // setting: the new value
};
struct DemoView {
  const attn::DemoInputs* inputs = nullptr;
  const attn::DemoOutputs* outputs = nullptr;
  std::string lang = "en";
  std::vector<std::string> hidden_panels;  // panel ids drawn as "answer the quiz first"
};
std::optional<DemoEdit> demo_view(const DemoView& view);

// exercise_panel.cpp: the step's exercises: each goal with its live state (a green
// check mark once met), its conditions with their current values, hints revealed
// one at a time, and a button that asks for the stored solution. While a quiz of
// the step is unchecked (attn::exercises_open is false) one short line stands in
// for them: their goals and live values would give the quiz away.
struct ExercisesView {
  const std::vector<attn::Exercise>* exercises = nullptr;
  const std::vector<attn::ExerciseStatus>* status = nullptr;  // one per exercise (check_exercise)
  const std::vector<int>* hints_shown = nullptr;  // per exercise, how many hints are revealed (null = 0)
  std::string lang = "en";
  bool locked = false;  // a quiz of the step is still unchecked: show only the line
  size_t quizzes = 1;   // how many quizzes the step has (for the line's wording)
};
struct ExerciseAction {
  enum class Kind { none, show_hint, apply_solution } kind = Kind::none;
  int exercise = -1;  // index into ExercisesView::exercises
};
// Widget ids: "hint:<exercise id>", "solution:<exercise id>"; while locked only
// "exercises:locked" (kind "panel-hidden").
ExerciseAction exercise_panel(const ExercisesView& view);

// quiz_panel.cpp: "predict, then reveal": a question, its options as radio buttons
// and a Check button; once checked, right/wrong marks and the explanation. The app
// keeps each quiz's QuizState (and hides the quiz's `hides` panels until checked).
// It is the learner's saved answer: picked option (-1 = none yet) and checked.
using QuizState = attn::QuizAnswer;
struct QuizzesView {
  const std::vector<attn::Quiz>* quizzes = nullptr;
  const std::vector<QuizState>* states = nullptr;  // one per quiz (null = all fresh)
  std::string lang = "en";
};
struct QuizAction {
  enum class Kind { none, pick, check } kind = Kind::none;
  int quiz = -1;    // index into QuizzesView::quizzes
  int option = -1;  // pick: the option chosen
};
// Widget ids: "quiz:<quiz id>:<option index>", "quiz-check:<quiz id>".
QuizAction quiz_panel(const QuizzesView& view);

// train_controls.cpp: Start / Pause, Step, Reset and speed for a live experiment
// (training, timing), with a progress bar. Widget ids: "train:run", "train:step",
// "train:reset", "train:speed:<slow|normal|fast>".
struct TrainControlsView {
  bool running = false;
  bool started = false;   // some work was done (Start becomes Resume)
  bool finished = false;  // the step budget is used up
  long progress = 0, planned = 1;
  std::string speed = "normal";
  std::string lang = "en";
  bool starting = false;  // the training worker is still loading
  std::string failed;     // why the training worker stopped: shown with Retry
  int workers = 1;        // workers that train (1 .. max_workers), and the cores there are
  int cores = 1;
  int max_workers = 8;
};
struct TrainAction {
  enum class Kind { none, run, pause, step, reset, speed, retry, workers } kind = Kind::none;
  std::string speed;  // Kind::speed
  int workers = 1;    // Kind::workers
};
TrainAction train_controls(const TrainControlsView& view);

// code_view.cpp: the step as a Python program (attn::demo_code), above its panels:
// NumPy | PyTorch tabs, Copy, Close, and the program, read-only, in a monospace
// box that scrolls. Widget ids: "code:tab:numpy", "code:tab:torch", "code:copy",
// "code:weights" (a trained model), "code:close", "code:text" (kind "panel").
struct CodeViewData {
  const std::string* code = nullptr;  // the program shown
  std::string tab = "numpy";          // "numpy" or "torch"
  std::string lang = "en";
  bool copied = false;                // it was just copied: say so
  // A trained model: its weights as JSON, with a button that copies them; NumPy
  // only (no tabs). An empty program: the model is not built yet.
  const std::string* weights = nullptr;
};
struct CodeAction {
  enum class Kind { none, tab, copy, copy_weights, close } kind = Kind::none;
  std::string tab;  // Kind::tab: "numpy" or "torch"
};
CodeAction code_view(const CodeViewData& view);

// timing_overlay.cpp: frame time, frames per second and this frame's compute time,
// in a small window in the corner (toggled with T).
struct TimingOverlayView {
  double frame_ms = 0.0;    // smoothed time between frames
  double compute_ms = 0.0;  // demo compute or experiment work in this frame
  double ui_ms = 0.0;       // laying out the interface (before the GPU draws it)
  std::string simd;         // what the core was built with ("wasm simd128", ...)
  std::string lang = "en";
};
void timing_overlay(const TimingOverlayView& view);

// keys_help.cpp: every key the lab answers to (ui::text::key_rows), in a panel
// over the lesson. Widget ids "keys:panel", "keys:close". Returns true when the
// learner closes it with its button.
bool keys_help(const std::string& lang);

// error_panel.cpp: problems the lab hit (a lesson that failed to load, ...).
void error_panel(const std::vector<std::string>& errors, const std::string& lang);

}  // namespace ui

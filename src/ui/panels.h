// panels.h: every panel and widget of the lab's interface. Each is implemented in a
// file of its own, takes a const view of core state and returns what the learner
// did (an edit, a navigation); none of them computes anything.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/demos.h"
#include "core/lesson.h"
#include "core/tensor.h"

namespace ui {

// One number changed by the learner: matrix `name`, cell (row, col).
struct CellEdit {
  std::string name;
  int row = 0, col = 0;
  float value = 0.0f;
};

// theme.cpp: colours, spacing and rounding of the whole lab.
void apply_theme();

// lesson_list.cpp: the lessons in order; returns the index clicked, or -1.
struct LessonListView {
  const std::vector<attn::Lesson>* lessons = nullptr;
  int current = 0;
  std::string lang = "en";
};
int lesson_list(const LessonListView& view);

// step_view.cpp: lesson title, step title, prose and Back / Next.
enum class Nav { none, back, next };
struct StepView {
  const attn::Lesson* lesson = nullptr;
  int step = 0;
  std::string lang = "en";
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
};
std::optional<CellEdit> matrix_editor(const MatrixEditorView& view);

// heatmap.cpp: a read-only matrix as coloured cells with their values.
struct HeatmapView {
  std::string id;
  const attn::Mat* m = nullptr;
  std::vector<std::string> row_labels;
  std::vector<std::string> col_labels;
  bool unit_range = true;  // colour 0..1 (weights); otherwise by the largest magnitude
  int decimals = 2;
};
void heatmap(const HeatmapView& view);

// demo_view.cpp: draws a demo's panels (attn::DemoOutputs::panels) in order, one
// generic widget per attn::Panel::Kind; returns the learner's edit, if any.
struct DemoEdit {
  enum class Kind { cell, setting } kind = Kind::cell;
  std::string name;      // matrix name (cell) or setting name
  int row = 0, col = 0;  // cell
  float value = 0.0f;    // cell: the new value
  std::string text;      // setting: the new value
};
struct DemoView {
  const attn::DemoInputs* inputs = nullptr;
  const attn::DemoOutputs* outputs = nullptr;
  std::string lang = "en";
};
std::optional<DemoEdit> demo_view(const DemoView& view);

// qkv_demo.cpp: the "score -> softmax -> weighted sum" demo of one step.
struct QkvDemoView {
  const attn::DemoInputs* inputs = nullptr;
  const attn::DemoOutputs* outputs = nullptr;
};
std::optional<CellEdit> qkv_demo(const QkvDemoView& view);

// error_panel.cpp: problems the lab hit (a lesson that failed to load, ...).
void error_panel(const std::vector<std::string>& errors);

}  // namespace ui

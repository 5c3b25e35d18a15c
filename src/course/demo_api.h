// demo_api.h: what the course knows of demos -- the interface it declares and the
// demos room (src/demos, and the experiments' live demos) implements.
//
// A step names a demo ("demo: qkv_basic") and gives its parameters (LessonValue).
// The course never computes a demo itself: it asks a DemoCatalog, handed to it by
// the caller (src/lab/catalog.h assembles the lab's), to check a step's
// parameters when lessons load, to give a step's starting inputs, and to compute
// a demo's outputs -- numbers and the panels that show them -- from the learner's
// current values. Exercises (exercise.h) read those outputs; the UI draws them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/tensor.h"
#include "course/local_text.h"

namespace attn {

// One demo parameter as written in a lesson file.
struct LessonValue {
  enum class Kind { text, number, matrix };
  Kind kind = Kind::text;
  std::string text;     // the value as written (trimmed), for every kind
  float number = 0.0f;  // Kind::number
  Mat matrix;           // Kind::matrix: (rows, cols); a flat [a, b] is one row
  int line = 0;         // where it was written, for error messages
};
using LessonParams = std::map<std::string, LessonValue>;

struct DemoIssue {
  int line = 0;  // line of the offending parameter, 0 = the step itself
  std::string message;
};

// What the learner can change: every matrix parameter, by name, plus settings.
struct DemoInputs {
  std::map<std::string, Mat> mats;             // e.g. "q" (n, d)
  std::map<std::string, std::string> settings; // e.g. "score" -> "dot", "d_k" -> "16"
                                               // (numbers as text; a choice or slider
                                               // panel edits settings[panel.setting])
  std::vector<std::string> tokens;             // labels of the rows
};

// What a demo shows, as data. The UI draws a demo's panels in order with one
// generic widget per Kind, so a new demo needs no UI code. Matrix names refer to
// DemoInputs::mats (editable) first, then DemoOutputs::mats (computed).
struct Panel {
  enum class Kind {
    editor,        // draggable numbers of input matrix `source` (edits come back as cell edits)
    heatmap,       // read-only matrix `source`, cells shaded by value, values printed
    token_arrows,  // tokens (row_labels = queries, col_labels = keys) joined by arrows whose
                   // thickness and opacity are the weights in `source` (n_q, n_k)
    vector_plot,   // 2-D plane: rows of `source` as arrows from the origin (draggable when
                   // `source` is an input), rows of `source2` as arrows too (also draggable
                   // when an input); `text` shows the computed angle / projection / dot product.
                   // row_labels name the rows of `source`, series_labels the rows of `source2`
    line_plot,     // x values = row 0 of `x_source`, one line per row of `source`
                   // (series_labels name the lines; `text` names the axes)
    bar_plot,      // one group of bars per row of `source` (row_labels), one bar per
                   // column (col_labels)
    choice,        // picks settings[`setting`] among `options` (radio buttons)
    slider,        // numeric settings[`setting`] in [min, max] with step `step` (0 = continuous)
    token_input,   // a line of tokens the learner types into settings[`setting`]: each
                   // token one of `options` (single characters; lower case is read as upper
                   // case; spaces separate them or not), at most `max` of them; the widget
                   // hands over only text that passes and says what is wrong otherwise.
                   // No options: free text of at most `max` characters
    note,          // computed text (`text`), e.g. "each row sums to 1.000"
    shapes         // a list of tensor shapes: `text` lines "name: (a, b, c)"
  };
  Kind kind = Kind::heatmap;
  std::string id;      // stable, unique within the step; widget ids derive from it
  LocalText title;     // caption above the panel
  std::string source;  // matrix name (see above)
  std::string source2;
  std::string x_source;
  std::vector<std::string> row_labels, col_labels, series_labels;
  // How a label is shown in each language, where that differs from the label
  // itself (a model's name in a Chinese panel). The label stays the name that
  // exercise checks and links use; only what is drawn changes.
  std::map<std::string, LocalText> label_text;
  bool unit_range = false;  // heatmap: colour 0..1 (weights) rather than by magnitude
  std::string setting;      // choice / slider
  std::vector<std::string> options;
  std::vector<LocalText> option_labels;  // choice: what to show for each option (same
                                         // order; empty = show the option text itself)
  float min = 0.0f, max = 1.0f, step = 0.0f;
  float x_mark = 0.0f;      // line_plot: a dashed vertical line at this x (> 0), e.g. a training length
  bool linear_x = false;    // line_plot: never a log x axis (positions 1 .. 128 read as distances)
  LocalText text;           // note / shapes / vector_plot caption, already formatted
};

struct DemoOutputs {
  std::map<std::string, Mat> mats;  // e.g. "scores" (n_q, n_k), "weights", "output"
  std::vector<Panel> panels;        // what to draw, in order
  Warnings warnings;
  std::string error;  // the inputs cannot be computed (e.g. NaN typed in)
  // A live experiment's view: its curves and tables fill in as it trains, so a
  // cell an exercise names may not exist yet (ConditionStatus::pending).
  bool growing = false;
};

// The demos a lesson can name, as the course sees them. Implemented by the demos
// room's table (src/demos/registry.h); the lab's full catalog, hand-set demos and
// live experiments together, is src/lab/catalog.h.
class DemoCatalog {
 public:
  virtual ~DemoCatalog() = default;
  // Checks a step's parameters against demo `demo`. Empty result = valid.
  virtual std::vector<DemoIssue> check_params(const std::string& demo, const LessonParams& params) const = 0;
  // The starting values of a step with these (valid) parameters: its matrices,
  // tokens and settings, settings it leaves out at their defaults.
  virtual DemoInputs defaults(const std::string& demo, const LessonParams& params) const = 0;
  // Recomputes a demo's outputs from the current inputs. Pure; cheap at lesson
  // sizes (the d_k demo, the most expensive, takes a few ms). Every input is
  // validated first -- finite numbers, settings among their options or in range,
  // consistent shapes -- and a problem comes back in DemoOutputs::error. Settings
  // missing from `in` run at their defaults.
  virtual DemoOutputs run(const std::string& demo, const DemoInputs& in) const = 0;
};

// How a panel finds its matrix and names its rows and columns. Every view of a
// panel (the canvas, and the page's readable mirror of it) reads them from here.
// The matrix `name`: an input first (editable, *is_input set), then an output; null when absent.
const Mat* panel_matrix(const DemoInputs& in, const DemoOutputs& out, const std::string& name,
                        bool* is_input = nullptr);
// `labels`, or the demo's tokens when there are none and the tokens fit the count n.
std::vector<std::string> labels_or_tokens(const DemoInputs& in, const std::vector<std::string>& labels,
                                          Eigen::Index n);
// Labels in the learner's language (Panel::label_text), else as they are.
std::vector<std::string> shown_labels(const Panel& p, std::vector<std::string> labels, const std::string& lang);
// The row and column labels of a grid panel (editor, heatmap, token arrows) showing m.
struct PanelAxes {
  std::vector<std::string> rows, cols;
};
PanelAxes panel_axes(const Panel& p, const DemoInputs& in, const Mat& m, const std::string& lang);

}  // namespace attn

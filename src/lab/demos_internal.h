// demos_internal.h: what the demo files (demos_*.cpp) share -- the registry entry,
// parameter specs, setting readers, number formatting and panel builders.
// Private to the demos in src/lab; the public interface is demos.h.
//
// Sections: 1 registry entry and parameter specs, 2 reading inputs, 3 formatting,
// 4 panel builders.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lab/demos.h"

namespace attn {
struct TransformerBlockParams;
}

namespace attn::demo_impl {

// ---------------------------------------------------------------- 1 registry entry
struct ParamSpec {
  enum class Kind {
    tokens,  // "a | b | c": the row labels, DemoInputs::tokens
    labels,  // another "|"-separated list, kept as a setting (e.g. decoder tokens)
    text,    // free text kept as a setting (e.g. the query word's label)
    matrix,  // an editable matrix, DemoInputs::mats
    choice,  // one of `options`, kept as a setting
    number   // a number in [min, max] (whole when `integer`), kept as a setting
  };
  std::string name;
  Kind kind = Kind::matrix;
  bool required = true;             // false: `fallback` is used (settings) or the demo copes
  std::vector<std::string> options; // choice
  float min = 0.0f, max = 0.0f;     // number
  bool integer = false;             // number
  std::string fallback;             // settings: the value when the step gives none
};

// A shape or consistency problem, named by the parameter it concerns ("" = the step).
struct Problem {
  std::string param;
  std::string message;
};

struct DemoEntry {
  const char* name;
  std::vector<ParamSpec> params;
  // Checks shapes and consistency of inputs that already match `params`.
  void (*check)(const DemoInputs& in, std::vector<Problem>& problems);
  // Computes; may assume check() found nothing.
  DemoOutputs (*run)(const DemoInputs& in);
};

// Each demo file appends its demos.
void add_basic_demos(std::vector<DemoEntry>& r);   // demos_basics.cpp: A1-A6
void add_kind_demos(std::vector<DemoEntry>& r);    // demos_kinds.cpp: B1-B3
void add_deep_demos(std::vector<DemoEntry>& r);    // demos_deep.cpp: D1-D5
void add_live_demos(std::vector<DemoEntry>& r);    // demos_live.cpp: experiments (B2, C, D5, E, G)
void add_block_demos(std::vector<DemoEntry>& r);   // demos_block.cpp: the Transformer block (issue 15)
void add_task_demos(std::vector<DemoEntry>& r);    // demos_tasks.cpp: decoding by hand (C2), retrieval (F3), CRF (F7)
// transformer_block's stages at residual 1 against attn::transformer_block_forward,
// both placements: the largest absolute difference (for the tests).
float block_demo_difference(const DemoInputs& in);

// The seeded numbers two demos compute from, for the code export (code_export.cpp),
// which writes them into its programs.
// dk_scaling: kKeySets sets of keys (n_keys, kMaxDk) and kKeySets * kQueriesPerSet
// queries (.., kMaxDk), standard normals from the step's seed; a d_k uses the first
// d_k columns of each.
constexpr int kKeySets = 4, kQueriesPerSet = 12, kMaxDk = 512;  // 48 trials
struct ScalingDraw {
  std::vector<Mat> keys;  // kKeySets of (n, kMaxDk)
  Mat queries;            // (kKeySets * kQueriesPerSet, kMaxDk)
};
ScalingDraw draw_scaling(int n, uint64_t seed);
// transformer_block: the fixed attention and feed-forward weights (LayerNorm gains
// at 1: the demo's inputs replace them).
TransformerBlockParams block_demo_weights();

// Spec shorthands.
ParamSpec tokens_param();
ParamSpec matrix_param(const std::string& name, bool required = true);
ParamSpec labels_param(const std::string& name, const std::string& fallback = "");
ParamSpec text_param(const std::string& name, const std::string& fallback);
ParamSpec choice_param(const std::string& name, std::vector<std::string> options, const std::string& fallback);
ParamSpec number_param(const std::string& name, float min, float max, bool integer, const std::string& fallback);

// ---------------------------------------------------------------- 2 reading inputs
std::vector<std::string> split_labels(const std::string& s);
// The setting's text ("" when absent).
const std::string& setting(const DemoInputs& in, const std::string& name);
// A numeric setting (already validated by run_demo against its spec).
float setting_number(const DemoInputs& in, const std::string& name);
int setting_int(const DemoInputs& in, const std::string& name);
std::vector<std::string> setting_labels(const DemoInputs& in, const std::string& name);
bool has_mat(const DemoInputs& in, const std::string& name);

// Shape checks that report into `problems`.
void need_rows(const DemoInputs& in, const std::string& name, Eigen::Index rows, const std::string& why,
               std::vector<Problem>& problems);
void need_cols(const DemoInputs& in, const std::string& name, Eigen::Index cols, const std::string& why,
               std::vector<Problem>& problems);
void need_max_size(const DemoInputs& in, const std::string& name, Eigen::Index rows, Eigen::Index cols,
                   std::vector<Problem>& problems);
void need_labels(const std::vector<std::string>& labels, const std::string& param, size_t min, size_t max,
                 std::vector<Problem>& problems);

// ---------------------------------------------------------------- 3 formatting
LocalText tr(const std::string& en, const std::string& zh);
std::string fmt(float v, int decimals = 2);
std::string fmt_row(const Mat& m, Eigen::Index r, int decimals = 2);  // "[0.59, 0.42]"
std::string fmt_shape(std::initializer_list<Eigen::Index> dims);      // "(1, 4, 2)"
std::vector<std::string> dim_labels(Eigen::Index n, const char* prefix = "d");  // d1, d2, ...
// Appends `line` to text (one line per entry, '\n' between).
void add_line(std::string& text, const std::string& line);
void add_line(LocalText& text, const std::string& en, const std::string& zh);
// One output row written out as a weighted sum of value rows:
// "b_cats = 0.42·v_cats + 0.25·v_chase + 0.33·v_mice = [0.59, 0.42]" ("b = ..."
// when row_label is empty).
std::string weighted_sum_line(const std::string& out_name, const std::string& row_label, const Mat& weights,
                              Eigen::Index r, const std::string& value_name,
                              const std::vector<std::string>& value_labels, const Mat& output);
// Index of the largest entry of row r (first on ties).
Eigen::Index row_argmax(const Mat& m, Eigen::Index r);

// ---------------------------------------------------------------- 4 panel builders
Panel editor_panel(const std::string& source, LocalText title, std::vector<std::string> rows,
                   std::vector<std::string> cols);
Panel heatmap_panel(const std::string& id, const std::string& source, LocalText title,
                    std::vector<std::string> rows, std::vector<std::string> cols, bool unit_range);
Panel arrows_panel(const std::string& id, const std::string& source, LocalText title,
                   std::vector<std::string> queries, std::vector<std::string> keys);
Panel vectors_panel(const std::string& id, const std::string& source, const std::string& source2,
                    LocalText title, std::vector<std::string> source_labels,
                    std::vector<std::string> source2_labels, LocalText text);
Panel lines_panel(const std::string& id, const std::string& source, const std::string& x_source,
                  LocalText title, std::vector<std::string> series, LocalText axes);
Panel bars_panel(const std::string& id, const std::string& source, LocalText title,
                 std::vector<std::string> groups, std::vector<std::string> bars);
Panel choice_panel(const std::string& setting, LocalText title, std::vector<std::string> options,
                   std::vector<LocalText> option_labels = {});
Panel slider_panel(const std::string& setting, LocalText title, float min, float max, float step);
Panel token_input_panel(const std::string& setting, LocalText title, std::vector<std::string> tokens, int max_tokens);
Panel note_panel(const std::string& id, LocalText title, LocalText text);
Panel shapes_panel(const std::string& id, LocalText title, LocalText text);

}  // namespace attn::demo_impl

// kit.h: what the demo groups share -- parameter spec shorthands, setting
// readers and shape checks, number formatting and panel builders. For the demo
// files of src/demos and the live demos of src/experiments, which draw with the
// same panels; the public interface is registry.h.
//
// Sections: 1 the groups and spec shorthands, 2 reading inputs, 3 formatting,
// 4 panel builders.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "demos/registry.h"

namespace attn::demo_impl {

// ---------------------------------------------------------------- 1 the groups and spec shorthands
// Each group file adds its demos to the table (registry.cpp lists them in order).
void add_basic_demos(std::vector<DemoEntry>& r);           // basics.cpp: A1-A6
void add_scoring_demos(std::vector<DemoEntry>& r);         // scoring.cpp: B1
void add_kind_demos(std::vector<DemoEntry>& r);            // kinds.cpp: B2-B3
void add_self_attention_demos(std::vector<DemoEntry>& r);  // self_attention.cpp: D1-D2
void add_position_demos(std::vector<DemoEntry>& r);        // position.cpp: D3-D5
void add_block_demos(std::vector<DemoEntry>& r);           // block.cpp: the Transformer block
void add_task_demos(std::vector<DemoEntry>& r);            // tasks.cpp: C2, F3, F7
void add_tile_demos(std::vector<DemoEntry>& r);            // tiles.cpp: I5
void add_recurrent_demos(std::vector<DemoEntry>& r);       // recurrent.cpp: E3
void add_text_task_demos(std::vector<DemoEntry>& r);       // text_tasks.cpp: F4, F8
void add_learned_demos(std::vector<DemoEntry>& r);         // learned.cpp: A6, trained from random

// transformer_block's stages at residual 1 against attn::transformer_block_forward,
// both placements: the largest absolute difference (for the tests).
float block_demo_difference(const DemoInputs& in);

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
// Index of `label` in `labels` (the first), -1 when absent.
int index_of(const std::vector<std::string>& labels, const std::string& label);
// The order of a shuffled sequence of n rows: new row i is old row p[i]. `kind` is
// "reverse", "rotate" (by one), "swap" (the first two) or anything else (none).
std::vector<Eigen::Index> shuffle_order(const std::string& kind, Eigen::Index n);
// M's rows in the order p (shuffle_order): row i of the result is row p[i] of M.
Mat permute_rows(const Mat& M, const std::vector<Eigen::Index>& p);

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

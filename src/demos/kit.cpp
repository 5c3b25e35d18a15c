// kit.cpp: what every demo shares (kit.h).
//
// Sections: 1 spec shorthands, 2 reading inputs and shape checks, 3 formatting,
// 4 panel builders.
#include "demos/kit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "base/number_text.h"
#include "base/text.h"

namespace attn {
namespace demo_impl {

// ---------------------------------------------------------------- 1 spec shorthands
ParamSpec tokens_param() {
  ParamSpec p;
  p.name = "tokens";
  p.kind = ParamSpec::Kind::tokens;
  return p;
}
ParamSpec matrix_param(const std::string& name, bool required) {
  ParamSpec p;
  p.name = name;
  p.kind = ParamSpec::Kind::matrix;
  p.required = required;
  return p;
}
ParamSpec labels_param(const std::string& name, const std::string& fallback) {
  ParamSpec p;
  p.name = name;
  p.kind = ParamSpec::Kind::labels;
  p.required = fallback.empty();
  p.fallback = fallback;
  return p;
}
ParamSpec text_param(const std::string& name, const std::string& fallback) {
  ParamSpec p;
  p.name = name;
  p.kind = ParamSpec::Kind::text;
  p.required = fallback.empty();
  p.fallback = fallback;
  return p;
}
ParamSpec choice_param(const std::string& name, std::vector<std::string> options, const std::string& fallback) {
  ParamSpec p;
  p.name = name;
  p.kind = ParamSpec::Kind::choice;
  p.options = std::move(options);
  p.required = fallback.empty();
  p.fallback = fallback;
  return p;
}
ParamSpec number_param(const std::string& name, float min, float max, bool integer, const std::string& fallback) {
  ParamSpec p;
  p.name = name;
  p.kind = ParamSpec::Kind::number;
  p.min = min;
  p.max = max;
  p.integer = integer;
  p.required = fallback.empty();
  p.fallback = fallback;
  return p;
}

// ---------------------------------------------------------------- 2 reading inputs
std::vector<std::string> split_labels(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t bar = s.find('|', pos);
    if (bar == std::string::npos) bar = s.size();
    std::string t = s.substr(pos, bar - pos);
    while (!t.empty() && t.front() == ' ') t.erase(t.begin());
    while (!t.empty() && t.back() == ' ') t.pop_back();
    out.push_back(t);
    pos = bar + 1;
  }
  return out;
}

const std::string& setting(const DemoInputs& in, const std::string& name) {
  static const std::string empty;
  auto it = in.settings.find(name);
  return it == in.settings.end() ? empty : it->second;
}

float setting_number(const DemoInputs& in, const std::string& name) {
  float x = 0.0f;
  return parse_float_text(setting(in, name), &x) == NumberText::ok ? x : 0.0f;
}

int setting_int(const DemoInputs& in, const std::string& name) {
  return int(std::lround(setting_number(in, name)));
}

std::vector<std::string> setting_labels(const DemoInputs& in, const std::string& name) {
  return split_labels(setting(in, name));
}

bool has_mat(const DemoInputs& in, const std::string& name) { return in.mats.count(name) > 0; }

int index_of(const std::vector<std::string>& labels, const std::string& label) {
  const auto it = std::find(labels.begin(), labels.end(), label);
  return it == labels.end() ? -1 : int(it - labels.begin());
}

std::vector<Eigen::Index> shuffle_order(const std::string& kind, Eigen::Index n) {
  std::vector<Eigen::Index> p(static_cast<size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) p[size_t(i)] = i;
  if (kind == "reverse")
    for (Eigen::Index i = 0; i < n; ++i) p[size_t(i)] = n - 1 - i;
  else if (kind == "rotate")
    for (Eigen::Index i = 0; i < n; ++i) p[size_t(i)] = (i + 1) % n;
  else if (kind == "swap" && n >= 2)
    std::swap(p[0], p[1]);
  return p;
}

Mat permute_rows(const Mat& M, const std::vector<Eigen::Index>& p) {
  Mat out(M.rows(), M.cols());
  for (size_t i = 0; i < p.size(); ++i) out.row(Eigen::Index(i)) = M.row(p[i]);
  return out;
}

void need_rows(const DemoInputs& in, const std::string& name, Eigen::Index rows, const std::string& why,
               std::vector<Problem>& problems) {
  auto it = in.mats.find(name);
  if (it != in.mats.end() && it->second.rows() != rows)
    problems.push_back({name, "'" + name + "' needs " + std::to_string(rows) + " row" + (rows == 1 ? "" : "s") +
                                  " (" + why + "), not " + std::to_string(it->second.rows())});
}

void need_cols(const DemoInputs& in, const std::string& name, Eigen::Index cols, const std::string& why,
               std::vector<Problem>& problems) {
  auto it = in.mats.find(name);
  if (it != in.mats.end() && it->second.cols() != cols)
    problems.push_back({name, "'" + name + "' needs " + std::to_string(cols) + " column" +
                                  (cols == 1 ? "" : "s") + " (" + why + "), not " +
                                  std::to_string(it->second.cols())});
}

void need_max_size(const DemoInputs& in, const std::string& name, Eigen::Index rows, Eigen::Index cols,
                   std::vector<Problem>& problems) {
  auto it = in.mats.find(name);
  if (it != in.mats.end() && (it->second.rows() > rows || it->second.cols() > cols))
    problems.push_back({name, "'" + name + "' may be at most " + std::to_string(rows) + " x " +
                                  std::to_string(cols) + " in this demo"});
}

void need_labels(const std::vector<std::string>& labels, const std::string& param, size_t min, size_t max,
                 std::vector<Problem>& problems) {
  if (labels.size() < min || labels.size() > max)
    problems.push_back({param, "'" + param + "' needs " + std::to_string(min) + " to " + std::to_string(max) +
                                   " labels separated by '|', not " + std::to_string(labels.size())});
  for (const auto& l : labels)
    if (l.empty()) {
      problems.push_back({param, "'" + param + "' has an empty label"});
      break;
    }
}

// ---------------------------------------------------------------- 3 formatting
LocalText tr(const std::string& en, const std::string& zh) {
  LocalText t;
  t.by_lang["en"] = en;
  t.by_lang["zh"] = zh;
  return t;
}

std::string fmt(float v, int decimals) {
  char buf[64];
  if (std::abs(v) < 0.5f * std::pow(10.0f, float(-decimals))) v = 0.0f;  // no "-0.00"
  std::snprintf(buf, sizeof buf, "%.*f", decimals, double(v));
  return buf;
}

std::string fmt_row(const Mat& m, Eigen::Index r, int decimals) {
  std::string s = "[";
  for (Eigen::Index c = 0; c < m.cols(); ++c) s += (c ? ", " : "") + fmt(m(r, c), decimals);
  return s + "]";
}

std::string fmt_shape(std::initializer_list<Eigen::Index> dims) {
  std::string s = "(";
  bool first = true;
  for (Eigen::Index d : dims) {
    s += (first ? "" : ", ") + std::to_string(d);
    first = false;
  }
  return s + ")";
}

std::vector<std::string> dim_labels(Eigen::Index n, const char* prefix) {
  std::vector<std::string> out;
  for (Eigen::Index i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i + 1));
  return out;
}

void add_line(std::string& text, const std::string& line) {
  if (!text.empty()) text += "\n";
  text += line;
}

void add_line(LocalText& text, const std::string& en, const std::string& zh) {
  add_line(text.by_lang["en"], en);
  add_line(text.by_lang["zh"], zh);
}

std::string weighted_sum_line(const std::string& out_name, const std::string& row_label, const Mat& weights,
                              Eigen::Index r, const std::string& value_name,
                              const std::vector<std::string>& value_labels, const Mat& output) {
  std::string s = out_name + (row_label.empty() ? "" : "_" + row_label) + " =";
  for (Eigen::Index j = 0; j < weights.cols(); ++j) {
    const std::string label = size_t(j) < value_labels.size() ? value_labels[size_t(j)] : std::to_string(j + 1);
    s += (j ? " + " : " ") + fmt(weights(r, j)) + "·" + value_name + "_" + label;
  }
  return s + " = " + fmt_row(output, r);
}

Eigen::Index row_argmax(const Mat& m, Eigen::Index r) {
  Eigen::Index best = 0;
  for (Eigen::Index c = 1; c < m.cols(); ++c)
    if (m(r, c) > m(r, best)) best = c;
  return best;
}

// ---------------------------------------------------------------- 4 panel builders
Panel editor_panel(const std::string& source, LocalText title, std::vector<std::string> rows,
                   std::vector<std::string> cols) {
  Panel p;
  p.kind = Panel::Kind::editor;
  p.id = "edit_" + source;
  p.source = source;
  p.title = std::move(title);
  p.row_labels = std::move(rows);
  p.col_labels = std::move(cols);
  return p;
}

Panel heatmap_panel(const std::string& id, const std::string& source, LocalText title,
                    std::vector<std::string> rows, std::vector<std::string> cols, bool unit_range) {
  Panel p;
  p.kind = Panel::Kind::heatmap;
  p.id = id;
  p.source = source;
  p.title = std::move(title);
  p.row_labels = std::move(rows);
  p.col_labels = std::move(cols);
  p.unit_range = unit_range;
  return p;
}

Panel arrows_panel(const std::string& id, const std::string& source, LocalText title,
                   std::vector<std::string> queries, std::vector<std::string> keys) {
  Panel p;
  p.kind = Panel::Kind::token_arrows;
  p.id = id;
  p.source = source;
  p.title = std::move(title);
  p.row_labels = std::move(queries);
  p.col_labels = std::move(keys);
  return p;
}

Panel vectors_panel(const std::string& id, const std::string& source, const std::string& source2,
                    LocalText title, std::vector<std::string> source_labels,
                    std::vector<std::string> source2_labels, LocalText text) {
  Panel p;
  p.kind = Panel::Kind::vector_plot;
  p.id = id;
  p.source = source;
  p.source2 = source2;
  p.title = std::move(title);
  p.row_labels = std::move(source_labels);
  p.series_labels = std::move(source2_labels);
  p.text = std::move(text);
  return p;
}

Panel lines_panel(const std::string& id, const std::string& source, const std::string& x_source,
                  LocalText title, std::vector<std::string> series, LocalText axes) {
  Panel p;
  p.kind = Panel::Kind::line_plot;
  p.id = id;
  p.source = source;
  p.x_source = x_source;
  p.title = std::move(title);
  p.series_labels = std::move(series);
  p.text = std::move(axes);
  return p;
}

Panel bars_panel(const std::string& id, const std::string& source, LocalText title,
                 std::vector<std::string> groups, std::vector<std::string> bars) {
  Panel p;
  p.kind = Panel::Kind::bar_plot;
  p.id = id;
  p.source = source;
  p.title = std::move(title);
  p.row_labels = std::move(groups);
  p.col_labels = std::move(bars);
  return p;
}

Panel choice_panel(const std::string& setting, LocalText title, std::vector<std::string> options,
                   std::vector<LocalText> option_labels) {
  Panel p;
  p.kind = Panel::Kind::choice;
  p.id = "set_" + setting;
  p.setting = setting;
  p.title = std::move(title);
  p.options = std::move(options);
  p.option_labels = std::move(option_labels);
  return p;
}

Panel slider_panel(const std::string& setting, LocalText title, float min, float max, float step) {
  Panel p;
  p.kind = Panel::Kind::slider;
  p.id = "set_" + setting;
  p.setting = setting;
  p.title = std::move(title);
  p.min = min;
  p.max = max;
  p.step = step;
  return p;
}

Panel token_input_panel(const std::string& setting, LocalText title, std::vector<std::string> tokens, int max_tokens) {
  Panel p = choice_panel(setting, std::move(title), std::move(tokens));  // id, setting, options as a choice's
  p.kind = Panel::Kind::token_input;
  p.max = float(max_tokens);
  return p;
}

Panel note_panel(const std::string& id, LocalText title, LocalText text) {
  Panel p;
  p.kind = Panel::Kind::note;
  p.id = id;
  p.title = std::move(title);
  p.text = std::move(text);
  return p;
}

Panel shapes_panel(const std::string& id, LocalText title, LocalText text) {
  Panel p;
  p.kind = Panel::Kind::shapes;
  p.id = id;
  p.title = std::move(title);
  p.text = std::move(text);
  return p;
}

}  // namespace demo_impl
}  // namespace attn

// demos.cpp: the demo registry and what every demo shares. The demos themselves
// live in demos_basics.cpp (A1-A6), demos_kinds.cpp (B1-B3), demos_deep.cpp (D1-D5),
// demos_block.cpp (the Transformer block), demos_live.cpp (the live experiments) and
// demos_tasks.cpp (decoding by hand C2, retrieval F3, a CRF F7).
//
// Sections: 1 spec shorthands, 2 reading inputs and shape checks, 3 formatting,
// 4 panel builders, 5 the registry and validation of settings, 6 public API.
#include "lab/demos.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "base/number_text.h"
#include "base/text.h"
#include "lab/demos_internal.h"

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

// ---------------------------------------------------------------- 5 registry
namespace {

const std::vector<DemoEntry>& registry() {
  static const std::vector<DemoEntry> r = [] {
    std::vector<DemoEntry> all;
    add_basic_demos(all);
    add_kind_demos(all);
    add_deep_demos(all);
    add_live_demos(all);
    add_block_demos(all);
    add_task_demos(all);
    return all;
  }();
  return r;
}

const DemoEntry* find(const std::string& name) {
  for (const auto& e : registry())
    if (name == e.name) return &e;
  return nullptr;
}

// Checks one setting's text against its spec; "" = fine.
std::string setting_problem(const ParamSpec& spec, const std::string& value) {
  if (spec.kind == ParamSpec::Kind::choice) {
    for (const auto& o : spec.options)
      if (o == value) return "";
    return "'" + spec.name + "' must be one of " + join(spec.options, ", ") + " (not '" + value + "')";
  }
  if (spec.kind == ParamSpec::Kind::number) {
    float x = 0.0f;
    const NumberText read = parse_float_text(value, &x);
    if (read == NumberText::beyond_float) return "'" + spec.name + "' must be a number " + kBeyondFloat;
    if (read != NumberText::ok) return "'" + spec.name + "' must be a number";
    const double d = x;
    // A little slack: a slider may send its float end point back as text.
    const double slack = 1e-6 * (1.0 + std::abs(double(spec.max)));
    if (d < spec.min - slack || d > spec.max + slack)
      return "'" + spec.name + "' must be between " + fmt(spec.min, spec.integer ? 0 : 2) + " and " +
             fmt(spec.max, spec.integer ? 0 : 2);
    if (spec.integer && std::abs(d - std::round(d)) > 1e-6) return "'" + spec.name + "' must be a whole number";
  }
  return "";
}

// The step's parameters as inputs, settings the step leaves out at their fallbacks.
DemoInputs inputs_from(const DemoEntry* e, const std::map<std::string, LessonValue>& params) {
  DemoInputs in;
  if (e)
    for (const ParamSpec& spec : e->params)
      if (spec.kind != ParamSpec::Kind::matrix && spec.kind != ParamSpec::Kind::tokens && !spec.fallback.empty())
        in.settings[spec.name] = spec.fallback;
  for (const auto& [name, v] : params) {
    if (v.kind == LessonValue::Kind::matrix) in.mats[name] = v.matrix;
    else if (name == "tokens") in.tokens = split_labels(v.text);
    else in.settings[name] = v.text;
  }
  return in;
}

// Everything run_demo needs to be true before computing; "" = fine.
std::string input_problem(const DemoEntry& e, const DemoInputs& in) {
  for (const ParamSpec& spec : e.params) {
    switch (spec.kind) {
      case ParamSpec::Kind::tokens:
        if (in.tokens.empty()) return "missing input 'tokens'";
        break;
      case ParamSpec::Kind::matrix: {
        auto it = in.mats.find(spec.name);
        if (it == in.mats.end()) {
          if (spec.required) return "missing input '" + spec.name + "'";
          break;
        }
        if (it->second.size() == 0) return "'" + spec.name + "' is empty";
        if (!it->second.allFinite()) return "a value in '" + spec.name + "' is not a finite number";
        break;
      }
      default: {
        auto it = in.settings.find(spec.name);
        if (it == in.settings.end()) {
          if (spec.required) return "missing setting '" + spec.name + "'";
          break;
        }
        std::string why = setting_problem(spec, it->second);
        if (!why.empty()) return why;
      }
    }
  }
  std::vector<Problem> problems;
  e.check(in, problems);
  return problems.empty() ? "" : problems[0].message;
}

}  // namespace
}  // namespace demo_impl

// ---------------------------------------------------------------- 6 public API
using namespace demo_impl;

std::vector<DemoIssue> check_demo_params(const std::string& demo, const std::map<std::string, LessonValue>& params) {
  const DemoEntry* e = find(demo);
  if (!e) return {{0, "unknown demo '" + demo + "'"}};
  std::vector<DemoIssue> issues;
  for (const auto& [name, v] : params) {
    bool known = false;
    for (const ParamSpec& spec : e->params) known = known || spec.name == name;
    if (!known) issues.push_back({v.line, "unknown parameter '" + name + "' for this demo"});
  }
  for (const ParamSpec& spec : e->params) {
    auto it = params.find(spec.name);
    if (it == params.end()) {
      if (spec.required && spec.fallback.empty()) issues.push_back({0, "missing parameter '" + spec.name + "'"});
      continue;
    }
    const LessonValue& v = it->second;
    const bool want_matrix = spec.kind == ParamSpec::Kind::matrix;
    if (want_matrix != (v.kind == LessonValue::Kind::matrix)) {
      issues.push_back({v.line, "'" + spec.name + "' must be " +
                                    (want_matrix ? "a matrix like [[1, 0], [0, 1]]"
                                                 : spec.kind == ParamSpec::Kind::number ? "a number" : "text")});
      continue;
    }
    std::string why = setting_problem(spec, v.text);
    if (!why.empty()) issues.push_back({v.line, why});
  }
  if (!issues.empty()) return issues;
  // Shapes and consistency, reported at the line of the parameter concerned.
  std::vector<Problem> problems;
  e->check(inputs_from(e, params), problems);
  for (const Problem& p : problems) {
    auto it = params.find(p.param);
    issues.push_back({it == params.end() ? 0 : it->second.line, p.message});
  }
  return issues;
}

DemoInputs demo_defaults(const LessonStep& step) { return inputs_from(find(step.demo), step.params); }

DemoOutputs run_demo(const std::string& demo, const DemoInputs& in) {
  DemoOutputs out;
  const DemoEntry* e = find(demo);
  if (!e) {
    out.error = "unknown demo '" + demo + "'";
    return out;
  }
  // Settings the inputs leave out run at their fallbacks (e.g. an old share link).
  DemoInputs full = in;
  for (const ParamSpec& spec : e->params)
    if (!spec.fallback.empty() && !full.settings.count(spec.name)) full.settings[spec.name] = spec.fallback;
  out.error = input_problem(*e, full);
  if (!out.error.empty()) return out;
  return e->run(full);
}

const Mat* panel_matrix(const DemoInputs& in, const DemoOutputs& out, const std::string& name, bool* is_input) {
  if (is_input) *is_input = false;
  if (name.empty()) return nullptr;
  if (auto it = in.mats.find(name); it != in.mats.end()) {
    if (is_input) *is_input = true;
    return &it->second;
  }
  if (auto it = out.mats.find(name); it != out.mats.end()) return &it->second;
  return nullptr;
}

std::vector<std::string> labels_or_tokens(const DemoInputs& in, const std::vector<std::string>& labels, Eigen::Index n) {
  if (!labels.empty()) return labels;
  if (in.tokens.size() == size_t(n)) return in.tokens;
  return {};
}

std::vector<std::string> shown_labels(const Panel& p, std::vector<std::string> labels, const std::string& lang) {
  if (p.label_text.empty()) return labels;
  for (std::string& l : labels)
    if (auto it = p.label_text.find(l); it != p.label_text.end()) l = it->second.get(lang);
  return labels;
}

PanelAxes panel_axes(const Panel& p, const DemoInputs& in, const Mat& m, const std::string& lang) {
  switch (p.kind) {
    case Panel::Kind::editor: return {shown_labels(p, labels_or_tokens(in, p.row_labels, m.rows()), lang), p.col_labels};
    case Panel::Kind::token_arrows:
      return {labels_or_tokens(in, p.row_labels, m.rows()), labels_or_tokens(in, p.col_labels, m.cols())};
    default: return {shown_labels(p, p.row_labels, lang), shown_labels(p, p.col_labels, lang)};
  }
}

std::vector<std::string> demo_editable(const std::string& demo) {
  std::vector<std::string> names;
  if (const DemoEntry* e = find(demo))
    for (const ParamSpec& spec : e->params)
      if (spec.kind == ParamSpec::Kind::matrix) names.push_back(spec.name);
  return names;
}

std::vector<std::string> demo_names() {
  std::vector<std::string> names;
  for (const auto& e : registry()) names.push_back(e.name);
  return names;
}

std::map<std::string, std::string> demo_setting_defaults(const std::string& demo) {
  std::map<std::string, std::string> out;
  if (const DemoEntry* e = find(demo))
    for (const ParamSpec& spec : e->params)
      if (spec.kind != ParamSpec::Kind::matrix && spec.kind != ParamSpec::Kind::tokens)
        out[spec.name] = spec.fallback;
  return out;
}

}  // namespace attn

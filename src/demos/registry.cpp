// registry.cpp: the table of demos (registry.h): a step's parameters checked
// against a demo's specs, its starting inputs, and a run with every input checked
// first.
//
// Sections: 1 the hand-set demos, 2 checking settings and inputs, 3 DemoTable.
#include "demos/registry.h"

#include <cmath>

#include "base/number_text.h"
#include "base/text.h"
#include "demos/code_writer.h"
#include "demos/kit.h"

namespace attn {

// ---------------------------------------------------------------- 1 the hand-set demos
std::vector<DemoEntry> hand_set_demo_entries() {
  std::vector<DemoEntry> all;
  demo_impl::add_basic_demos(all);
  demo_impl::add_learned_demos(all);
  demo_impl::add_scoring_demos(all);
  demo_impl::add_kind_demos(all);
  demo_impl::add_self_attention_demos(all);
  demo_impl::add_position_demos(all);
  demo_impl::add_block_demos(all);
  demo_impl::add_task_demos(all);
  demo_impl::add_tile_demos(all);
  demo_impl::add_recurrent_demos(all);
  demo_impl::add_text_task_demos(all);
  return all;
}

const DemoTable& hand_set_demos() {
  static const DemoTable table(hand_set_demo_entries());
  return table;
}

// ---------------------------------------------------------------- 2 checking settings and inputs
namespace {

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
      return "'" + spec.name + "' must be between " + demo_impl::fmt(spec.min, spec.integer ? 0 : 2) + " and " +
             demo_impl::fmt(spec.max, spec.integer ? 0 : 2);
    if (spec.integer && std::abs(d - std::round(d)) > 1e-6) return "'" + spec.name + "' must be a whole number";
  }
  return "";
}

// The step's parameters as inputs, settings the step leaves out at their fallbacks.
DemoInputs inputs_from(const DemoEntry* e, const LessonParams& params) {
  DemoInputs in;
  if (e)
    for (const ParamSpec& spec : e->params)
      if (spec.kind != ParamSpec::Kind::matrix && spec.kind != ParamSpec::Kind::tokens && !spec.fallback.empty())
        in.settings[spec.name] = spec.fallback;
  for (const auto& [name, v] : params) {
    if (v.kind == LessonValue::Kind::matrix) in.mats[name] = v.matrix;
    else if (name == "tokens") in.tokens = demo_impl::split_labels(v.text);
    else in.settings[name] = v.text;
  }
  return in;
}

// Settings the inputs leave out, at their fallbacks (e.g. an old share link).
DemoInputs with_fallbacks(const DemoEntry& e, const DemoInputs& in) {
  DemoInputs full = in;
  for (const ParamSpec& spec : e.params)
    if (!spec.fallback.empty() && !full.settings.count(spec.name)) full.settings[spec.name] = spec.fallback;
  return full;
}

// Everything run needs to be true before computing; "" = fine.
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

// ---------------------------------------------------------------- 3 DemoTable
const DemoEntry* DemoTable::find(const std::string& demo) const {
  for (const auto& e : entries_)
    if (demo == e.name) return &e;
  return nullptr;
}

std::vector<DemoIssue> DemoTable::check_params(const std::string& demo, const LessonParams& params) const {
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

DemoInputs DemoTable::defaults(const std::string& demo, const LessonParams& params) const {
  return inputs_from(find(demo), params);
}

DemoOutputs DemoTable::run(const std::string& demo, const DemoInputs& in) const {
  DemoOutputs out;
  const DemoEntry* e = find(demo);
  if (!e) {
    out.error = "unknown demo '" + demo + "'";
    return out;
  }
  const DemoInputs full = with_fallbacks(*e, in);
  out.error = input_problem(*e, full);
  if (!out.error.empty()) return out;
  return e->run(full);
}

std::vector<std::string> DemoTable::names() const {
  std::vector<std::string> names;
  for (const auto& e : entries_) names.push_back(e.name);
  return names;
}

std::vector<std::string> DemoTable::editable(const std::string& demo) const {
  std::vector<std::string> names;
  if (const DemoEntry* e = find(demo))
    for (const ParamSpec& spec : e->params)
      if (spec.kind == ParamSpec::Kind::matrix) names.push_back(spec.name);
  return names;
}

std::map<std::string, std::string> DemoTable::setting_defaults(const std::string& demo) const {
  std::map<std::string, std::string> out;
  if (const DemoEntry* e = find(demo))
    for (const ParamSpec& spec : e->params)
      if (spec.kind != ParamSpec::Kind::matrix && spec.kind != ParamSpec::Kind::tokens)
        out[spec.name] = spec.fallback;
  return out;
}

bool DemoTable::has_code(const std::string& demo) const {
  const DemoEntry* e = find(demo);
  return e && e->code;
}

std::string DemoTable::code(const std::string& demo, const DemoInputs& in, CodeLang lang,
                            const std::string& title) const {
  const DemoEntry* e = find(demo);
  if (!e || !e->code || !run(demo, in).error.empty()) return "";
  demo_impl::Py P(lang);
  const std::string what = e->code(P, with_fallbacks(*e, in));
  return P.program(title, what);
}

}  // namespace attn

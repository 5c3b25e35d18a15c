// lab_mirror.cpp: the current step as the page's readable mirror needs it (web/lab.js
// builds tables, inputs, radio buttons and buttons from it for screen readers and
// the keyboard). It reads what the canvas draws from: the panels the core
// computed, the same matrices and labels (attn::panel_axes), the quiz and exercise
// state, and the interface's own words (ui::text) in the learner's language.
// Nothing here computes maths or lays anything out.
#include <cmath>
#include <cstdio>

#include "app/lab_mirror.h"
#include "base/tensor_json.h"
#include "course/exercise.h"
#include "platform/platform.h"
#include "ui/strings.h"

namespace {

using attn::Panel;
using attn::json::Value;

const char* kind_name(Panel::Kind k) {
  switch (k) {
    case Panel::Kind::editor: return "editor";
    case Panel::Kind::heatmap: return "heatmap";
    case Panel::Kind::token_arrows: return "arrows";
    case Panel::Kind::vector_plot: return "vectors";
    case Panel::Kind::line_plot: return "lines";
    case Panel::Kind::bar_plot: return "bars";
    case Panel::Kind::choice: return "choice";
    case Panel::Kind::slider: return "slider";
    case Panel::Kind::note: return "note";
    case Panel::Kind::shapes: return "shapes";
    case Panel::Kind::token_input: return "text";
  }
  return "note";
}

Value strings(const std::vector<std::string>& v) {
  Value a = Value::array();
  for (const auto& s : v) a.push(s);
  return a;
}

// A number for JSON: non-finite values (a plot's gaps) become null.
Value number(float x) { return std::isfinite(x) ? Value(double(x)) : Value(); }

Value rows_of(const attn::Mat& m) {
  Value rows = Value::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    Value row = Value::array();
    for (Eigen::Index c = 0; c < m.cols(); ++c) row.push(number(m(r, c)));
    rows.push(std::move(row));
  }
  return rows;
}

// A line per row: its name, how many points, the last value and the range.
Value series_summary(const attn::Mat& m, const std::vector<std::string>& names) {
  Value list = Value::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    int points = 0;
    float last = NAN, lo = INFINITY, hi = -INFINITY;
    for (Eigen::Index c = 0; c < m.cols(); ++c) {
      const float v = m(r, c);
      if (!std::isfinite(v)) continue;
      ++points;
      last = v;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    Value s = Value::object();
    s.set("name", size_t(r) < names.size() ? names[size_t(r)] : "#" + std::to_string(r + 1));
    s.set("points", points);
    if (points > 0) {
      s.set("last", number(last));
      s.set("min", number(lo));
      s.set("max", number(hi));
    }
    list.push(std::move(s));
  }
  return list;
}

Value panel_json(const LabView& v, const Panel& p, bool hidden) {
  const std::string& lang = v.lang();
  Value o = Value::object();
  o.set("id", p.id);
  o.set("kind", kind_name(p.kind));
  o.set("title", p.title.get(lang));
  if (hidden) {
    o.set("hidden", true);
    o.set("text", ui::text::hidden_panel.get(lang));
    return o;
  }
  bool is_input = false;
  const attn::Mat* m = attn::panel_matrix(*v.inputs, *v.outputs, p.source, &is_input);
  switch (p.kind) {
    case Panel::Kind::editor:
    case Panel::Kind::heatmap:
    case Panel::Kind::token_arrows: {
      if (!m) break;
      const attn::PanelAxes axes = attn::panel_axes(p, *v.inputs, *m, lang);
      o.set("name", p.source);
      o.set("rows", strings(axes.rows));
      o.set("cols", strings(axes.cols));
      o.set("values", rows_of(*m));
      const bool editable = is_input && p.kind == Panel::Kind::editor;
      o.set("editable", editable);
      if (editable) {
        o.set("min", -double(ui::kEditLimit));
        o.set("max", double(ui::kEditLimit));
        o.set("step", 0.01);
      }
      break;
    }
    case Panel::Kind::vector_plot: {
      // Each set of arrows: a table of (x, y) per row; arrow heads the canvas lets
      // the learner drag are editable numbers here.
      Value sets = Value::array();
      const std::pair<const std::string*, const std::vector<std::string>*> parts[] = {{&p.source, &p.row_labels},
                                                                                       {&p.source2, &p.series_labels}};
      for (const auto& [name, labels] : parts) {
        bool editable = false;
        const attn::Mat* pts = attn::panel_matrix(*v.inputs, *v.outputs, *name, &editable);
        if (!pts || pts->cols() < 2) continue;
        Value s = Value::object();
        s.set("name", *name);
        s.set("rows", strings(attn::labels_or_tokens(*v.inputs, *labels, pts->rows())));
        s.set("cols", strings({"x", "y"}));
        s.set("values", rows_of(pts->leftCols(2)));
        s.set("editable", editable);
        if (editable) {
          s.set("min", -double(ui::kEditLimit));
          s.set("max", double(ui::kEditLimit));
          s.set("step", 0.01);
        }
        sets.push(std::move(s));
      }
      o.set("sets", std::move(sets));
      o.set("text", p.text.get(lang));
      break;
    }
    case Panel::Kind::line_plot:
      if (!m) break;
      o.set("series", series_summary(*m, attn::shown_labels(p, p.series_labels, lang)));
      o.set("text", p.text.get(lang));
      break;
    case Panel::Kind::bar_plot: {
      if (!m) break;
      // Groups are rows, bars are columns (as drawn); a single group reads as its bars.
      const auto groups = attn::shown_labels(p, m->rows() == 1 ? p.col_labels : p.row_labels, lang);
      o.set("rows", strings(m->rows() == 1 ? std::vector<std::string>{p.title.get(lang)} : groups));
      o.set("cols", strings(attn::shown_labels(p, p.col_labels, lang)));
      o.set("values", rows_of(*m));
      o.set("editable", false);
      break;
    }
    case Panel::Kind::choice: {
      Value opts = Value::array();
      for (size_t i = 0; i < p.options.size(); ++i) {
        Value opt = Value::object();
        opt.set("value", p.options[i]);
        opt.set("label", i < p.option_labels.size() ? p.option_labels[i].get(lang) : p.options[i]);
        opts.push(std::move(opt));
      }
      o.set("setting", p.setting);
      o.set("options", std::move(opts));
      auto it = v.inputs->settings.find(p.setting);
      o.set("current", it == v.inputs->settings.end() ? std::string() : it->second);
      break;
    }
    case Panel::Kind::slider: {
      o.set("setting", p.setting);
      o.set("min", double(p.min));
      o.set("max", double(p.max));
      o.set("step", double(p.step));
      auto it = v.inputs->settings.find(p.setting);
      o.set("value", it == v.inputs->settings.end() ? std::string() : it->second);
      break;
    }
    case Panel::Kind::token_input: {
      // A line of tokens typed by the learner (the induction model's prompt).
      o.set("setting", p.setting);
      auto it = v.inputs->settings.find(p.setting);
      o.set("value", it == v.inputs->settings.end() ? std::string() : it->second);
      o.set("tokens", strings(p.options));
      o.set("maxTokens", int(p.max));
      o.set("text", p.text.get(lang));
      break;
    }
    case Panel::Kind::note:
    case Panel::Kind::shapes: o.set("text", p.text.get(lang)); break;
  }
  return o;
}

Value words(const std::string& lang) {
  namespace t = ui::text;
  Value w = Value::object();
  w.set("predict", t::predict.get(lang));
  w.set("check", t::check.get(lang));
  w.set("pickFirst", t::pick_first.get(lang));
  w.set("right", t::right.get(lang));
  w.set("wrong", t::wrong.get(lang));
  w.set("tryIt", t::try_it.get(lang));
  w.set("goalMet", t::goal_met.get(lang));
  w.set("goalOpen", t::goal_open.get(lang));
  w.set("now", t::now_is.get(lang));
  w.set("notMeasured", t::not_measured.get(lang));
  w.set("showHint", t::show_hint.get(lang));
  w.set("nextHint", t::next_hint.get(lang));
  w.set("hint", t::hint_n.get(lang));
  w.set("showSolution", t::show_solution.get(lang));
  w.set("start", t::train_start.get(lang));
  w.set("pause", t::train_pause.get(lang));
  w.set("resume", t::train_resume.get(lang));
  w.set("step", t::train_step.get(lang));
  w.set("reset", t::train_reset.get(lang));
  w.set("speed", t::train_speed.get(lang));
  w.set("slow", t::speed_slow.get(lang));
  w.set("normal", t::speed_normal.get(lang));
  w.set("fast", t::speed_fast.get(lang));
  w.set("finished", t::train_finished.get(lang));
  w.set("retry", t::train_retry.get(lang));
  return w;
}

}  // namespace

Value lab_mirror_json(const LabView& v, LabControl& lab) {
  Value o = Value::object();
  if (!v.step) return o;
  const attn::Lesson& lesson = *v.lesson;
  const attn::LessonStep& step = *v.step;
  const std::string& lang = v.lang();
  o.set("lang", lang);
  o.set("lessonId", lesson.id);
  o.set("stepId", step.id);
  o.set("revision", double(v.revision));  // the page marks which change its mirror shows
  o.set("words", words(lang));
  if (!v.outputs->error.empty()) o.set("error", v.outputs->error);

  std::vector<std::string> hidden;
  for (size_t i = 0; i < step.quizzes.size(); ++i)
    if (i >= v.quizzes->size() || !(*v.quizzes)[i].checked)
      hidden.insert(hidden.end(), step.quizzes[i].hides.begin(), step.quizzes[i].hides.end());
  Value panels = Value::array();
  if (!step.demo.empty())
    for (const Panel& p : v.outputs->panels)
      panels.push(panel_json(v, p, std::find(hidden.begin(), hidden.end(), p.id) != hidden.end()));
  o.set("panels", std::move(panels));

  Value quizzes = Value::array();
  for (size_t i = 0; i < step.quizzes.size(); ++i) {
    const attn::Quiz& q = step.quizzes[i];
    const ui::QuizState st = i < v.quizzes->size() ? (*v.quizzes)[i] : ui::QuizState{};
    Value j = Value::object();
    j.set("id", q.id);
    j.set("question", q.question.get(lang));
    Value opts = Value::array();
    for (const auto& opt : q.options) opts.push(opt.get(lang));
    j.set("options", std::move(opts));
    j.set("picked", st.picked);
    j.set("checked", st.checked);
    if (st.checked) {  // the answer and its explanation only once revealed, as on the canvas
      j.set("right", st.picked == q.answer);
      j.set("answer", q.answer);
      j.set("explain", q.explanation.get(lang));
    }
    quizzes.push(std::move(j));
  }
  o.set("quizzes", std::move(quizzes));

  // Predict first: while a quiz of the step is unchecked the exercises are one line
  // (attn::exercises_open), as on the canvas; their goals and live values would
  // give the quiz away.
  Value exercises = Value::array();
  const bool exercises_open = attn::exercises_open(step, *v.quizzes);
  if (!exercises_open && !step.exercises.empty())
    o.set("exercisesLocked", ui::text::exercises_locked(lang, step.quizzes.size(), step.exercises.size()));
  for (size_t i = 0; exercises_open && i < step.exercises.size(); ++i) {
    const attn::Exercise& ex = step.exercises[i];
    const attn::ExerciseStatus st = attn::check_exercise(ex, *v.inputs, *v.outputs);
    Value j = Value::object();
    j.set("id", ex.id);
    j.set("goal", ex.goal.get(lang));
    j.set("met", st.met);
    Value conds = Value::array();
    for (size_t k = 0; k < st.conditions.size(); ++k) {
      const attn::ConditionStatus& c = st.conditions[k];
      Value cj = Value::object();
      cj.set("text", c.text);
      cj.set("met", c.met);
      cj.set("pending", c.pending);
      if (!c.pending) cj.set("now", number(c.lhs));
      if (!c.pending && k < ex.check.size() && !ex.check[k].rhs.is_number) cj.set("other", number(c.rhs));
      conds.push(std::move(cj));
    }
    j.set("conditions", std::move(conds));
    if (!st.error.empty()) j.set("error", st.error);
    const int shown = i < v.hints->size() ? (*v.hints)[i] : 0;
    Value hints = Value::array();
    for (int h = 0; h < shown && h < int(ex.hints.size()); ++h) hints.push(ex.hints[size_t(h)].get(lang));
    j.set("hints", std::move(hints));
    j.set("hintCount", int(ex.hints.size()));
    exercises.push(std::move(j));
  }
  o.set("exercises", std::move(exercises));

  // The Code view: offered on every hand-set step and trained model; the program
  // itself while it is open (a trained model's weights are copied, not shown).
  if (lab.has_code()) {
    namespace t = ui::text;
    Value c = Value::object();
    c.set("open", v.code_open);
    c.set("lang", v.code_lang);
    c.set("label", t::code.get(lang));
    c.set("title", t::code_title.get(lang));
    c.set("about", t::code_about.get(lang));
    c.set("copy", t::code_copy.get(lang));
    c.set("copied", t::code_copied.get(lang));
    c.set("close", t::code_close.get(lang));
    if (v.code_open) c.set("text", lab.code());
    if (lab.code_trained()) {
      c.set("trained", true);
      c.set("about", t::code_about_trained.get(lang));
      c.set("copyWeights", t::code_copy_weights.get(lang));
      if (v.code_open && lab.code().empty()) c.set("text", t::code_waiting.get(lang));
    }
    o.set("code", std::move(c));
  }

  if (v.trainer.experiment) {
    Value t = Value::object();
    t.set("running", v.trainer.running);
    t.set("started", v.trainer.experiment->progress() > 0 || v.trainer.experiment->work_ms() > 0.0);
    t.set("finished", v.trainer.experiment->done());
    t.set("progress", double(v.trainer.experiment->progress()));
    t.set("planned", double(v.trainer.experiment->planned()));
    t.set("speed", v.trainer.speed);
    // The workers: how many, the most there may be, and the words for them.
    t.set("workers", v.trainer.workers);
    t.set("maxWorkers", platform::kMaxTrainerWorkers);
    std::string label = ui::text::train_workers.get(v.lang());
    if (const size_t at = label.find(" %d"); at != std::string::npos) label.erase(at);
    else if (const size_t at2 = label.find("%d"); at2 != std::string::npos) label.erase(at2);
    t.set("workersLabel", label);
    char tip[400];
    std::snprintf(tip, sizeof tip, ui::text::train_workers_tip.get(v.lang()), v.trainer.cores);
    t.set("workersTip", tip);
    if (!v.trainer.failed.empty()) {  // "Training stopped: <why>. ..." as the canvas says it
      std::string failed = ui::text::train_failed.get(v.lang());
      if (const size_t at = failed.find("%s"); at != std::string::npos) failed.replace(at, 2, v.trainer.failed);
      t.set("failed", failed);
    }
    o.set("training", std::move(t));
  }
  return o;
}

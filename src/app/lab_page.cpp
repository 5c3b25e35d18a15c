// lab_page.cpp: the page bridge: JSON views of the lab (lessons, state,
// widgets, errors, prose) and the answers to window.attnlab's questions, each
// argument checked before it reaches the lab.
#include "app/lab_page.h"

#include <imgui.h>
#include <imgui_internal.h>  // ImGui::ClearActiveID

#include <algorithm>
#include <cmath>

#include "app/lab_mirror.h"
#include "base/number_text.h"
#include "base/tensor_json.h"
#include "course/exercise.h"
#include "lab/catalog.h"
#include "platform/platform.h"
#include "ui/widget_log.h"

using attn::json::Value;

namespace {

// The characters of the step's words (titles and text, in its language) the font
// atlas cannot draw, each once: every one would show as a box.
std::string undrawable(const LabView& v) {
  if (!v.step) return "";
  const std::string& lang = v.lang();
  const std::string text = v.lesson->title.get(lang) + v.step->title.get(lang) + attn::shown_prose(*v.step, lang, *v.quizzes);
  std::string out;
  for (const char *p = text.c_str(), *end = p + text.size(); p < end;) {
    unsigned int c = 0;
    const int n = std::max(1, ImTextCharFromUtf8(&c, p, end));
    if (c > 127 && !platform::can_draw(c) && out.find(std::string(p, size_t(n))) == std::string::npos) out.append(p, size_t(n));
    p += n;
  }
  return out;
}

Value lessons_json(const LabView& v) {
  Value list = Value::array();
  for (const auto& l : *v.lessons) {
    Value o = Value::object();
    o.set("id", l.id);
    o.set("title", l.title.get(v.lang()));
    o.set("steps", int(l.steps.size()));
    auto it = v.state->furthest.find(l.id);
    o.set("furthest", it == v.state->furthest.end() ? -1 : it->second);
    list.push(std::move(o));
  }
  return list;
}

Value state_json(const LabView& v, const FrameState& frame) {
  Value s = Value::object();
  const attn::LessonStep* step = v.step;
  if (!step) return s;
  s.set("lesson", v.state->lesson);
  s.set("step", v.state->step);
  s.set("stepId", step->id);
  s.set("stepCount", int(v.lesson->steps.size()));
  s.set("lang", v.lang());
  s.set("demo", step->demo);
  Value values = Value::object();
  for (const auto& [name, m] : v.inputs->mats) values.set(name, attn::to_json(m));
  s.set("values", std::move(values));
  Value settings = Value::object();
  for (const auto& [name, v] : v.inputs->settings) settings.set(name, v);
  s.set("settings", std::move(settings));
  Value outputs = Value::object();
  for (const auto& [name, m] : v.outputs->mats) outputs.set(name, attn::to_json(m));
  s.set("outputs", std::move(outputs));
  if (!v.outputs->error.empty()) s.set("computeError", v.outputs->error);
  s.set("edited", v.state->edits.count(v.key) > 0);
  Value exercises = Value::array();
  for (size_t i = 0; i < step->exercises.size(); ++i) {
    const attn::Exercise& ex = step->exercises[i];
    Value o = Value::object();
    o.set("id", ex.id);
    o.set("met", attn::exercise_met(ex, *v.inputs, *v.outputs));
    o.set("hintsShown", i < v.hints->size() ? (*v.hints)[i] : 0);
    o.set("hints", int(ex.hints.size()));
    exercises.push(std::move(o));
  }
  s.set("exercises", std::move(exercises));
  Value quizzes = Value::array();
  for (size_t i = 0; i < step->quizzes.size(); ++i) {
    const ui::QuizState q = i < v.quizzes->size() ? (*v.quizzes)[i] : ui::QuizState{};
    Value o = Value::object();
    o.set("id", step->quizzes[i].id);
    o.set("picked", q.picked);
    o.set("checked", q.checked);
    o.set("right", q.checked && q.picked == step->quizzes[i].answer);
    quizzes.push(std::move(o));
  }
  s.set("quizzes", std::move(quizzes));
  Value notes = Value::array();
  for (const auto& n : *v.notices) notes.push(n);
  s.set("notices", std::move(notes));
  s.set("computeMs", v.compute_ms);
  s.set("glyphsPending", v.glyphs_pending);  // the later lessons' Chinese glyphs are on their way
  s.set("undrawable", undrawable(v));
  {
    Value t = Value::object();  // the learner's own text (never the text itself)
    t.set("has", v.own_text.has);
    t.set("pending", v.own_text.pending);
    t.set("keep", v.own_text.keep);
    t.set("kept", v.own_text.kept);
    t.set("characters", v.own_text.characters);
    t.set("paragraphs", v.own_text.paragraphs);
    t.set("unshown", v.own_text.unshown);
    t.set("ok", v.own_text.last_ok);
    t.set("message", v.own_text.message);
    s.set("ownText", std::move(t));
  }
  if (v.trainer.experiment) {
    Value ex = v.trainer.experiment->status();
    ex.set("running", v.trainer.running);
    ex.set("speed", v.trainer.speed);
    ex.set("snapshots", double(v.trainer.snapshots));  // worker snapshots applied to this copy
    // The worker has answered the page's newest command for this step.
    ex.set("synced", v.trainer.synced);
    s.set("experiment", std::move(ex));
  }
  s.set("overlay", v.overlay);
  s.set("frameMs", frame.frame_ms);
  s.set("uiMs", frame.ui_ms);
  s.set("frameComputeMs", frame.compute_shown);
  s.set("frames", double(frame.frames));
  s.set("drawn", double(platform::frames_drawn()));  // frames drawn: unchanged ones are skipped
  s.set("revision", double(v.revision));  // counts changes the mirror shows
  {
    Value w = Value::object();  // the training worker: started, loaded, failed
    w.set("started", v.trainer.started);
    w.set("ready", v.trainer.ready);
    w.set("workers", v.trainer.workers);
    w.set("cores", v.trainer.cores);
    if (!v.trainer.failed.empty()) w.set("failed", v.trainer.failed);
    if (v.trainer.started) w.set("rejected", double(v.trainer.rejected));
    s.set("worker", std::move(w));
  }
  // What the last frame handed the GPU (ImGui's draw lists), for the frame-rate work.
  if (const ImDrawData* dd = ImGui::GetCurrentContext() ? ImGui::GetDrawData() : nullptr; dd && dd->Valid) {
    int cmds = 0;
    for (int i = 0; i < dd->CmdListsCount; ++i) cmds += dd->CmdLists[i]->CmdBuffer.Size;
    Value d = Value::object();
    d.set("lists", dd->CmdListsCount);
    d.set("commands", cmds);
    d.set("vertices", dd->TotalVtxCount);
    d.set("indices", dd->TotalIdxCount);
    s.set("draw", std::move(d));
  }
  return s;
}

Value widgets_json() {
  Value list = Value::array();
  for (const auto& w : ui::widgets_last_frame()) {
    Value o = Value::object();
    o.set("id", w.id);
    o.set("kind", w.kind);
    Value r = Value::object();
    r.set("x", w.x);
    r.set("y", w.y);
    r.set("width", w.w);
    r.set("height", w.h);
    o.set("rect", std::move(r));
    if (w.focused) o.set("focused", true);
    list.push(std::move(o));
  }
  return list;
}

Value errors_json(const LabView& v) {
  Value list = Value::array();
  for (const auto& e : *v.errors) list.push(e);
  return list;
}

// A value typed in the page's own input (a phone's Edit box) lets go of the canvas
// field the finger tapped: ImGui keeps an active field's text to itself, and would
// write its old text back over the new value when it lets go.
void release_canvas_field() {
  if (ImGui::GetCurrentContext() && ImGui::GetActiveID() != 0) ImGui::ClearActiveID();
}

}  // namespace

Value lab_prose_json(const LabView& v) {
  Value o = Value::object();
  const attn::LessonStep* step = v.step;
  if (!step) return o;
  const std::string& lang = v.lang();
  const attn::Lesson& lesson = *v.lesson;
  o.set("lang", lang);
  o.set("lesson", lesson.title.get(lang));
  o.set("title", step->title.get(lang));
  o.set("text", attn::shown_prose(*step, lang, *v.quizzes));
  o.set("step", v.state->step + 1);
  o.set("steps", int(lesson.steps.size()));
  o.set("lessonId", lesson.id);
  o.set("demo", step->demo);  // the language model's steps show the box for the learner's own text
  return o;
}

std::string check_page_setting(const LabView& v, const std::string& name, const std::string& value) {
  const bool zh = v.lang() == "zh";
  // Length first: a setting's name, and a value as long as the longest a demo takes
  // (the language model's prompt, attn::kLmPromptBytes).
  if (name.size() > 64 || value.size() > attn::kLmPromptBytes) return zh ? "太长了。" : "That is too long.";
  const attn::LessonStep* step = v.step;
  for (const attn::Panel& p : v.outputs->panels) {
    if (!step || p.setting != name || name.empty()) continue;
    if (p.kind == attn::Panel::Kind::choice) {
      if (std::find(p.options.begin(), p.options.end(), value) == p.options.end())
        return zh ? "不是可选的选项。" : "That is not one of the options.";
    } else if (p.kind == attn::Panel::Kind::slider) {
      float x = 0.0f;
      if (attn::parse_float_text(value, &x) != attn::NumberText::ok || x < p.min || x > p.max)
        return zh ? "请输入滑块范围内的数。" : "Type a number within the slider's range.";
    } else if (p.kind != attn::Panel::Kind::token_input) {
      continue;
    }
    // The demo's own checks first, on a copy: a refused value never replaces the
    // learner's settings (nor restarts a trained model).
    attn::DemoInputs trial = *v.inputs;
    trial.settings[name] = value;
    if (std::string why = attn::run_demo(step->demo, trial).error; !why.empty()) return why;
    return "";
  }
  return zh ? "本步没有这个设置。" : "This step has no such setting.";
}

std::string check_typed_number(const LabView& v, const std::string& name, int row, int col, const std::string& text,
                               float* value) {
  const bool zh = v.lang() == "zh";
  auto it = v.inputs->mats.find(name);
  if (it == v.inputs->mats.end() || row < 0 || col < 0 || row >= it->second.rows() || col >= it->second.cols())
    return zh ? "这个数字在本步中不存在。" : "This number is not on this step.";
  if (text.size() > 64) return zh ? "太长了：请输入一个数。" : "That is too long: type one number.";
  float x = 0.0f;
  if (attn::parse_float_text(text, &x) != attn::NumberText::ok)
    return zh ? "请输入一个数，例如 0.5 或 -2。" : "Type a number, such as 0.5 or -2.";
  // The editor's range, as a drag or the desktop's typing keeps it.
  *value = std::clamp(x, -ui::kEditLimit, ui::kEditLimit);
  return "";
}

std::string lab_page_answer(const std::string& name, const std::string& arg, LabControl& lab, const FrameState& frame) {
  const LabView v = lab.view();
  Value answer;
  if (name == "lessons") answer = lessons_json(v);
  else if (name == "state") answer = state_json(v, frame);
  else if (name == "widgets") answer = widgets_json();
  else if (name == "errors") answer = errors_json(v);
  else if (name == "prose") answer = lab_prose_json(v);
  else if (name == "mirror") answer = lab_mirror_json(v, lab);
  else if (name == "flush") {
    answer = lab.save(0.0);  // the page is going away: write what is not saved yet
  }
  else if (name == "goto" || name == "loadLesson" || name == "language" || name == "link" || name == "share" ||
           name == "train" || name == "workers" || name == "ownText" || name == "keepOwnText" || name == "layout" || name == "typeNumber" || name == "help" || name == "quizPick" ||
           name == "quizCheck" || name == "hint" || name == "solution" || name == "setting" || name == "currentLink" ||
           name == "embedSnippet" || name == "code" || name == "copyCode" || name == "copyWeights") {
    const attn::json::ParseResult r = attn::json::parse(arg);
    const Value* a = r.ok ? &r.value : nullptr;
    auto str = [&](const char* key) {
      const Value* v = a ? a->find(key) : nullptr;
      return v && v->is_string() ? v->as_string() : std::string();
    };
    if (name == "goto") {
      const Value* step = a ? a->find("step") : nullptr;
      answer = lab.go_to(str("lesson"), step && step->is_number() ? int(step->as_number()) : -1);
    } else if (name == "loadLesson") {
      answer = lab.load_lesson_text(str("file"), str("text"));
    } else if (name == "language") {
      lab.set_language(str("lang"));
      answer = lab.view().lang();
    } else if (name == "train") {
      lab.train(str("action"), str("speed"));
      answer = lab.view().trainer.experiment != nullptr;
    } else if (name == "workers") {
      // {"n": 1 .. the most}: how many workers train; answers the count now.
      const Value* n = a ? a->find("n") : nullptr;
      if (n && n->is_number() && std::fabs(n->as_number()) < 1e6) lab.set_workers(int(n->as_number()));
      answer = lab.view().trainer.workers;
    } else if (name == "ownText") {
      // {"text": ..., "keep": true|false}: the learner's own text; the outcome
      // comes as the "ownText" event (and in state().ownText), once its glyphs are in.
      const Value* keep = a ? a->find("keep") : nullptr;
      lab.own_text(str("text"), keep && keep->is_bool() && keep->as_bool());
      answer = lab.view().own_text.pending ? "pending" : "done";
    } else if (name == "keepOwnText") {
      const Value* keep = a ? a->find("keep") : nullptr;
      lab.keep_own_text(keep && keep->is_bool() && keep->as_bool());
      answer = lab.view().own_text.keep;
    } else if (name == "layout") {
      const Value* t = a ? a->find("touch") : nullptr;
      lab.set_layout(str("mode"), t && t->is_bool() && t->as_bool());
      answer = lab.view().layout;
    } else if (name == "typeNumber") {
      release_canvas_field();
      const Value* row = a ? a->find("row") : nullptr;
      const Value* col = a ? a->find("col") : nullptr;
      const bool ok = row && col && row->is_number() && col->is_number() && std::fabs(row->as_number()) < 1e6 &&
                      std::fabs(col->as_number()) < 1e6;
      answer = ok ? lab.type_number(str("name"), int(row->as_number()), int(col->as_number()), str("text"))
                  : std::string("row and col must be numbers");
    } else if (name == "quizPick" || name == "quizCheck" || name == "hint" || name == "solution") {
      // Indices from the page: whole numbers in range, else nothing happens.
      auto index = [&](const char* key) {
        const Value* v = a ? a->find(key) : nullptr;
        return v && v->is_number() && std::fabs(v->as_number()) < 1e6 ? int(v->as_number()) : -1;
      };
      if (name == "quizPick") lab.quiz_pick(index("quiz"), index("option"));
      if (name == "quizCheck") lab.quiz_check(index("quiz"));
      if (name == "hint") lab.show_hint(index("exercise"));
      answer = name == "solution" ? lab.apply_solution(index("exercise")) : true;
    } else if (name == "setting") {
      release_canvas_field();
      answer = lab.page_setting(str("name"), str("value"));
    } else if (name == "code") {
      // {"open": true|false, "lang": "numpy"|"torch"}: the Code view; false when the step has no program.
      const Value* open = a ? a->find("open") : nullptr;
      answer = lab.code_view(open && open->is_bool() ? open->as_bool() : v.code_open, str("lang"));
    } else if (name == "copyCode" || name == "copyWeights") {
      const bool weights = name == "copyWeights";
      lab.copy_code(weights);
      answer = !(weights ? lab.code_weights() : lab.code()).empty();
    } else if (name == "help") {
      lab.set_keys_shown(!v.show_keys);
      answer = lab.view().show_keys;
    } else if (name == "currentLink") {
      answer = lab.current_link();
    } else if (name == "embedSnippet") {
      answer = lab.embed_snippet();
    } else if (name == "link") {
      lab.follow_link(str("fragment"));
      answer = true;
    } else {
      answer = lab.share_link();
    }
  } else {
    answer = "unknown question";
  }
  return attn::json::write(answer);
}

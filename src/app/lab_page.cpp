// lab_page.cpp: the page bridge: JSON views of the lab (lessons, state,
// widgets, errors, prose) and the answers to window.attnlab's questions, each
// argument checked before it reaches the lab.
#include <imgui.h>
#include <imgui_internal.h>  // ImGui::ClearActiveID

#include <cmath>

#include "app/lab_app_internal.h"
#include "base/tensor_json.h"
#include "course/exercise.h"
#include "platform/platform.h"
#include "ui/widget_log.h"

using attn::json::Value;

Value lab_lessons_json(const LabApp& app) {
  Value list = Value::array();
  for (const auto& l : app.set.lessons) {
    Value o = Value::object();
    o.set("id", l.id);
    o.set("title", l.title.get(app.state.lang));
    o.set("steps", int(l.steps.size()));
    auto it = app.state.furthest.find(l.id);
    o.set("furthest", it == app.state.furthest.end() ? -1 : it->second);
    list.push(std::move(o));
  }
  return list;
}

Value lab_state_json(const LabApp& app) {
  Value s = Value::object();
  const attn::LessonStep* step = lab_current_step(app);
  if (!step) return s;
  s.set("lesson", app.state.lesson);
  s.set("step", app.state.step);
  s.set("stepId", step->id);
  s.set("stepCount", int(app.set.lessons[size_t(app.lesson)].steps.size()));
  s.set("lang", app.state.lang);
  s.set("demo", step->demo);
  Value values = Value::object();
  for (const auto& [name, m] : app.inputs.mats) values.set(name, attn::to_json(m));
  s.set("values", std::move(values));
  Value settings = Value::object();
  for (const auto& [name, v] : app.inputs.settings) settings.set(name, v);
  s.set("settings", std::move(settings));
  Value outputs = Value::object();
  for (const auto& [name, m] : app.outputs.mats) outputs.set(name, attn::to_json(m));
  s.set("outputs", std::move(outputs));
  if (!app.outputs.error.empty()) s.set("computeError", app.outputs.error);
  s.set("edited", app.state.edits.count(lab_current_key(app)) > 0);
  Value exercises = Value::array();
  for (size_t i = 0; i < step->exercises.size(); ++i) {
    const attn::Exercise& ex = step->exercises[i];
    Value o = Value::object();
    o.set("id", ex.id);
    o.set("met", attn::exercise_met(ex, app.inputs, app.outputs));
    o.set("hintsShown", i < app.hints_shown.size() ? app.hints_shown[i] : 0);
    o.set("hints", int(ex.hints.size()));
    exercises.push(std::move(o));
  }
  s.set("exercises", std::move(exercises));
  Value quizzes = Value::array();
  for (size_t i = 0; i < step->quizzes.size(); ++i) {
    const ui::QuizState q = i < app.quizzes.size() ? app.quizzes[i] : ui::QuizState{};
    Value o = Value::object();
    o.set("id", step->quizzes[i].id);
    o.set("picked", q.picked);
    o.set("checked", q.checked);
    o.set("right", q.checked && q.picked == step->quizzes[i].answer);
    quizzes.push(std::move(o));
  }
  s.set("quizzes", std::move(quizzes));
  Value notes = Value::array();
  for (const auto& n : app.notices) notes.push(n);
  s.set("notices", std::move(notes));
  s.set("computeMs", app.compute_ms);
  if (app.experiment) {
    Value ex = app.experiment->status();
    ex.set("running", app.running);
    ex.set("speed", app.speed);
    ex.set("snapshots", double(app.trainer_snapshots));  // worker snapshots applied to this copy
    // The worker has answered the page's newest command for this step.
    ex.set("synced", app.trainer != nullptr && app.trainer->synced(app.experiment_key));
    s.set("experiment", std::move(ex));
  }
  s.set("overlay", app.overlay);
  s.set("frameMs", app.frame_ms);
  s.set("uiMs", app.ui_ms);
  s.set("frameComputeMs", app.frame_compute_shown);
  s.set("frames", double(app.frames));
  s.set("drawn", double(platform::frames_drawn()));  // frames drawn: unchanged ones are skipped
  s.set("revision", double(app.revision));  // counts changes the mirror shows
  {
    Value w = Value::object();  // the training worker: started, loaded, failed
    w.set("started", app.trainer_link != nullptr);
    w.set("ready", app.trainer_ready);
    if (!app.trainer_failed.empty()) w.set("failed", app.trainer_failed);
    if (app.trainer) w.set("rejected", double(app.trainer->rejected()));
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

Value lab_widgets_json() {
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

Value lab_errors_json(const LabApp& app) {
  Value list = Value::array();
  for (const auto& e : app.errors) list.push(e);
  return list;
}

// The current step's words, for the page's readable copy beside the canvas.
Value lab_prose_json(const LabApp& app) {
  Value o = Value::object();
  const attn::LessonStep* step = lab_current_step(app);
  if (!step) return o;
  const std::string& lang = app.state.lang;
  const attn::Lesson& lesson = app.set.lessons[size_t(app.lesson)];
  o.set("lang", lang);
  o.set("lesson", lesson.title.get(lang));
  o.set("title", step->title.get(lang));
  o.set("text", attn::shown_prose(*step, lang, app.quizzes));
  o.set("step", app.state.step + 1);
  o.set("steps", int(lesson.steps.size()));
  o.set("lessonId", lesson.id);
  return o;
}

// A value typed in the page's own input (a phone's Edit box) lets go of the canvas
// field the finger tapped: ImGui keeps an active field's text to itself, and would
// write its old text back over the new value when it lets go.
static void release_canvas_field() {
  if (ImGui::GetCurrentContext() && ImGui::GetActiveID() != 0) ImGui::ClearActiveID();
}

std::string lab_page_query(const std::string& name, const std::string& arg, void* user) {
  LabApp& app = *static_cast<LabApp*>(user);
  Value answer;
  if (name == "lessons") answer = lab_lessons_json(app);
  else if (name == "state") answer = lab_state_json(app);
  else if (name == "widgets") answer = lab_widgets_json();
  else if (name == "errors") answer = lab_errors_json(app);
  else if (name == "prose") answer = lab_prose_json(app);
  else if (name == "mirror") answer = lab_mirror_json(app);
  else if (name == "flush") {
    lab_save(app, 0.0);  // the page is going away: write what is not saved yet
    answer = !app.dirty;
  }
  else if (name == "goto" || name == "loadLesson" || name == "language" || name == "link" || name == "share" ||
           name == "train" || name == "layout" || name == "typeNumber" || name == "help" || name == "quizPick" ||
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
      answer = lab_goto(app, str("lesson"), step && step->is_number() ? int(step->as_number()) : -1);
    } else if (name == "loadLesson") {
      answer = lab_load_lesson_text(app, str("file"), str("text"));
    } else if (name == "language") {
      lab_set_language(app, str("lang"));
      answer = app.state.lang;
    } else if (name == "train") {
      lab_train(app, str("action"), str("speed"));
      answer = app.experiment != nullptr;
    } else if (name == "layout") {
      const Value* t = a ? a->find("touch") : nullptr;
      lab_set_layout(app, str("mode"), t && t->is_bool() && t->as_bool());
      answer = app.layout;
    } else if (name == "typeNumber") {
      release_canvas_field();
      const Value* row = a ? a->find("row") : nullptr;
      const Value* col = a ? a->find("col") : nullptr;
      const bool ok = row && col && row->is_number() && col->is_number() && std::fabs(row->as_number()) < 1e6 &&
                      std::fabs(col->as_number()) < 1e6;
      answer = ok ? lab_type_number(app, str("name"), int(row->as_number()), int(col->as_number()), str("text"))
                  : std::string("row and col must be numbers");
    } else if (name == "quizPick" || name == "quizCheck" || name == "hint" || name == "solution") {
      // Indices from the page: whole numbers in range, else nothing happens.
      auto index = [&](const char* key) {
        const Value* v = a ? a->find(key) : nullptr;
        return v && v->is_number() && std::fabs(v->as_number()) < 1e6 ? int(v->as_number()) : -1;
      };
      if (name == "quizPick") lab_quiz_pick(app, index("quiz"), index("option"));
      if (name == "quizCheck") lab_quiz_check(app, index("quiz"));
      if (name == "hint") lab_show_hint(app, index("exercise"));
      answer = name == "solution" ? lab_apply_solution(app, index("exercise")) : true;
    } else if (name == "setting") {
      release_canvas_field();
      answer = lab_page_setting(app, str("name"), str("value"));
    } else if (name == "code") {
      // {"open": true|false, "lang": "numpy"|"torch"}: the Code view; false when the step has no program.
      const Value* open = a ? a->find("open") : nullptr;
      answer = lab_code_view(app, open && open->is_bool() ? open->as_bool() : app.code_open, str("lang"));
    } else if (name == "copyCode" || name == "copyWeights") {
      const bool weights = name == "copyWeights";
      lab_copy_code(app, weights);
      const std::string& program = lab_code(app);
      answer = !(weights ? app.code_weights : program).empty();
    } else if (name == "help") {
      app.show_keys = !app.show_keys;
      answer = app.show_keys;
    } else if (name == "currentLink") {
      answer = lab_current_link(app);
    } else if (name == "embedSnippet") {
      answer = lab_embed_snippet(app);
    } else if (name == "link") {
      lab_follow_link(app, str("fragment"));
      answer = true;
    } else {
      answer = lab_share_link(app);
    }
  } else {
    answer = "unknown question";
  }
  return attn::json::write(answer);
}

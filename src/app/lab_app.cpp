// lab_app.cpp: lesson navigation, edits, and the frame layout.
// Sections: 1 loading, 2 navigation and edits, 3 the frame, 4 JSON views.
#include "app/lab_app.h"

#include <imgui.h>

#include <fstream>
#include <sstream>

#include "core/tensor_json.h"
#include "platform/platform.h"
#include "ui/widget_log.h"

// ---------------------------------------------------------------- 1 loading
namespace {

void recompute(LabApp& app) {
  const double t0 = platform::now_ms();
  const auto& step = app.set.lessons[size_t(app.lesson)].steps[size_t(app.step)];
  app.outputs = step.demo.empty() ? attn::DemoOutputs{} : attn::run_demo(step.demo, app.inputs);
  app.compute_ms = platform::now_ms() - t0;
}

void enter_step(LabApp& app) {
  if (app.set.lessons.empty()) return;
  app.inputs = attn::demo_defaults(app.set.lessons[size_t(app.lesson)].steps[size_t(app.step)]);
  recompute(app);
}

void record_errors(LabApp& app, const std::vector<attn::LessonError>& errors) {
  for (const auto& e : errors) app.errors.push_back(e.to_string());
}

}  // namespace

void lab_init(LabApp& app, const std::string& lesson_dir) {
  if (lesson_dir.empty()) {
    app.set = attn::load_embedded_lessons();
  } else {
    auto read = [](std::string_view name, std::string& out, void* dir) {
      std::ifstream f(*static_cast<const std::string*>(dir) + "/" + std::string(name), std::ios::binary);
      if (!f) return false;
      std::stringstream ss;
      ss << f.rdbuf();
      out = ss.str();
      return true;
    };
    std::string dir = lesson_dir;
    app.set = attn::load_lessons(read, &dir);
  }
  record_errors(app, app.set.errors);
  app.lesson = 0;
  app.step = 0;
  enter_step(app);
}

bool lab_load_lesson_text(LabApp& app, const std::string& file, const std::string& text) {
  std::vector<attn::LessonError> errors;
  attn::Lesson lesson;
  if (!attn::parse_lesson(file, text, lesson, errors) || !attn::validate_lesson(lesson, errors)) {
    record_errors(app, errors);
    return false;
  }
  for (auto& l : app.set.lessons) {
    if (l.id == lesson.id) {
      l = std::move(lesson);
      enter_step(app);
      return true;
    }
  }
  app.set.lessons.push_back(std::move(lesson));
  if (app.set.lessons.size() == 1) enter_step(app);
  return true;
}

// ---------------------------------------------------------------- 2 navigation and edits
bool lab_goto(LabApp& app, const std::string& lesson_id, int step) {
  for (size_t i = 0; i < app.set.lessons.size(); ++i) {
    if (app.set.lessons[i].id != lesson_id) continue;
    if (step < 0 || step >= int(app.set.lessons[i].steps.size())) return false;
    app.lesson = int(i);
    app.step = step;
    enter_step(app);
    return true;
  }
  return false;
}

void lab_step_by(LabApp& app, int delta) {
  if (app.set.lessons.empty()) return;
  const int n = int(app.set.lessons[size_t(app.lesson)].steps.size());
  const int next = app.step + delta;
  if (next < 0 || next >= n) return;
  app.step = next;
  enter_step(app);
}

void lab_apply_edit(LabApp& app, const ui::CellEdit& e) {
  auto it = app.inputs.mats.find(e.name);
  if (it == app.inputs.mats.end() || e.row < 0 || e.col < 0 || e.row >= it->second.rows() ||
      e.col >= it->second.cols())
    return;
  it->second(e.row, e.col) = e.value;
  recompute(app);
}

// ---------------------------------------------------------------- 3 the frame
bool lab_frame(void* user) {
  LabApp& app = *static_cast<LabApp*>(user);
  ui::widgets_begin_frame();
  ImGuiIO& io = ImGui::GetIO();
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float sidebar_w = 260.0f;
  const ImGuiWindowFlags fixed = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                 ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoBringToFrontOnFocus;

  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(ImVec2(sidebar_w, vp->WorkSize.y));
  ImGui::Begin("Lessons", nullptr, fixed);
  ImGui::SetWindowFontScale(1.2f);
  ImGui::TextUnformatted("Attention Lab");
  ImGui::SetWindowFontScale(1.0f);
  ImGui::Separator();
  const int picked = ui::lesson_list({&app.set.lessons, app.lesson, app.lang});
  if (picked >= 0 && picked != app.lesson) lab_goto(app, app.set.lessons[size_t(picked)].id, 0);
  ImGui::End();

  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + sidebar_w, vp->WorkPos.y));
  ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x - sidebar_w, vp->WorkSize.y));
  ImGui::Begin("Lesson", nullptr, fixed);
  ui::error_panel(app.errors);
  if (!app.set.lessons.empty()) {
    const attn::Lesson& lesson = app.set.lessons[size_t(app.lesson)];
    const attn::LessonStep& step = lesson.steps[size_t(app.step)];
    const ui::StepView sv{&lesson, app.step, app.lang};
    ui::Nav nav = ui::step_navigation(sv);
    ImGui::Separator();
    ui::step_header(sv);
    ImGui::Spacing();
    if (step.demo == "qkv_basic") {
      if (auto e = ui::qkv_demo({&app.inputs, &app.outputs})) lab_apply_edit(app, *e);
    }
    // Arrow keys step through the lesson unless a text field has the keyboard.
    if (!io.WantTextInput && !ImGui::IsAnyItemActive()) {
      if (platform::key_presses(platform::Key::right) > 0) nav = ui::Nav::next;
      if (platform::key_presses(platform::Key::left) > 0) nav = ui::Nav::back;
    }
    if (nav == ui::Nav::next) lab_step_by(app, +1);
    if (nav == ui::Nav::back) lab_step_by(app, -1);
  } else {
    ImGui::TextWrapped("No lesson could be loaded.");
  }
  ImGui::End();
  ++app.frames;
  return true;
}

// ---------------------------------------------------------------- 4 JSON views
using attn::json::Value;

Value lab_lessons_json(const LabApp& app) {
  Value list = Value::array();
  for (const auto& l : app.set.lessons) {
    Value o = Value::object();
    o.set("id", l.id);
    o.set("title", l.title.get(app.lang));
    o.set("steps", int(l.steps.size()));
    list.push(std::move(o));
  }
  return list;
}

Value lab_state_json(const LabApp& app) {
  Value s = Value::object();
  if (app.set.lessons.empty()) return s;
  const attn::Lesson& lesson = app.set.lessons[size_t(app.lesson)];
  const attn::LessonStep& step = lesson.steps[size_t(app.step)];
  s.set("lesson", lesson.id);
  s.set("step", app.step);
  s.set("stepId", step.id);
  s.set("stepCount", int(lesson.steps.size()));
  s.set("lang", app.lang);
  s.set("demo", step.demo);
  Value values = Value::object();
  for (const auto& [name, m] : app.inputs.mats) values.set(name, attn::to_json(m));
  s.set("values", std::move(values));
  Value outputs = Value::object();
  for (const auto& [name, m] : app.outputs.mats) outputs.set(name, attn::to_json(m));
  s.set("outputs", std::move(outputs));
  if (!app.outputs.error.empty()) s.set("computeError", app.outputs.error);
  s.set("computeMs", app.compute_ms);
  s.set("frames", double(app.frames));
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
    list.push(std::move(o));
  }
  return list;
}

Value lab_errors_json(const LabApp& app) {
  Value list = Value::array();
  for (const auto& e : app.errors) list.push(e);
  return list;
}

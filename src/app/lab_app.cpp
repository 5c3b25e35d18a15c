// lab_app.cpp: Sections: 1 loading and restoring, 2 navigation and edits,
// 3 saving and links, 4 the frame, 5 JSON views and the page's questions.
#include "app/lab_app.h"

#include <imgui.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "app/lab_keys.h"
#include "base/rng.h"
#include "base/number_text.h"
#include "base/simd_info.h"
#include "base/tensor_json.h"
#include "lab/exercise.h"
#include "platform/platform.h"
#include "ui/strings.h"
#include "ui/widget_log.h"

namespace {

const attn::LessonStep* current_step(const LabApp& app) {
  if (app.set.lessons.empty()) return nullptr;
  return &app.set.lessons[size_t(app.lesson)].steps[size_t(app.state.step)];
}

std::string current_key(const LabApp& app) {
  const attn::LessonStep* s = current_step(app);
  return s ? attn::step_key(app.state.lesson, s->id) : "";
}

void recompute(LabApp& app) {
  const attn::LessonStep* step = current_step(app);
  if (!step) return;
  const double t0 = platform::now_ms();
  if (attn::is_experiment_demo(step->demo)) {
    // A new experiment's settings are checked by the registry first (a bad value
    // in a link or saved state shows as a compute error, like any demo's).
    if (!app.experiment) {
      app.outputs = attn::run_demo(step->demo, app.inputs);
      if (app.outputs.error.empty()) {
        app.experiment = attn::make_experiment(step->demo, app.inputs);
        app.experiment->prepare();
      }
    }
    if (app.experiment) app.outputs = app.experiment->view();
    else app.running = false;
  } else {
    app.outputs = step->demo.empty() ? attn::DemoOutputs{} : attn::run_demo(step->demo, app.inputs);
  }
  app.compute_ms = platform::now_ms() - t0;
  app.frame_compute_ms += app.compute_ms;
  ++app.revision;
}

// A fresh experiment for the step (its settings may have changed).
void restart_experiment(LabApp& app) {
  app.experiment.reset();
  app.running = false;
  recompute(app);
}

// The learner's values changed: remember what differs from the lesson.
void remember_edits(LabApp& app) {
  const attn::LessonStep* step = current_step(app);
  if (!step) return;
  attn::StepEdits e = attn::edits_from_inputs(*step, app.inputs);
  if (e.empty()) app.state.edits.erase(current_key(app));
  else app.state.edits[current_key(app)] = std::move(e);
  app.dirty = true;
}

// The learner revealed a hint or answered a quiz: keep it with the step.
void remember_answers(LabApp& app) {
  const attn::LessonStep* step = current_step(app);
  if (!step) return;
  attn::StepAnswers a = attn::answers_from_step(*step, app.hints_shown, app.quizzes);
  if (a.empty()) app.state.answers.erase(current_key(app));
  else app.state.answers[current_key(app)] = std::move(a);
  app.dirty = true;
  ++app.revision;
}

// Shows the step at app.state (lesson id, step), with the learner's saved edits.
void enter_step(LabApp& app) {
  if (app.set.lessons.empty()) return;
  attn::lab_state_fit(&app.state, app.set.lessons);
  for (size_t i = 0; i < app.set.lessons.size(); ++i)
    if (app.set.lessons[i].id == app.state.lesson) app.lesson = int(i);
  int& furthest = app.state.furthest[app.state.lesson];
  if (app.state.step > furthest) furthest = app.state.step;
  auto it = app.state.edits.find(current_key(app));
  app.inputs = attn::inputs_with_edits(*current_step(app), it == app.state.edits.end() ? nullptr : &it->second);
  auto saved = app.state.answers.find(current_key(app));
  const attn::StepAnswers* answers = saved == app.state.answers.end() ? nullptr : &saved->second;
  app.hints_shown = attn::hints_for_step(*current_step(app), answers);
  app.quizzes = attn::quizzes_for_step(*current_step(app), answers);
  // A live experiment waits, paused, while the learner is elsewhere.
  app.running = false;
  if (app.experiment) app.parked[app.experiment_key] = std::move(app.experiment);
  app.experiment_key = current_key(app);
  auto parked = app.parked.find(app.experiment_key);
  if (parked != app.parked.end()) {
    app.experiment = std::move(parked->second);
    app.parked.erase(parked);
  }
  recompute(app);
  platform::set_url_fragment(attn::make_link(app.state.lesson, current_step(app)->id, nullptr));
  platform::page_event("step", attn::json::write(lab_prose_json(app)));
  app.dirty = true;
}

void record_errors(LabApp& app, const std::vector<attn::LessonError>& errors) {
  for (const auto& e : errors) app.errors.push_back(e.to_string());
}

// ---------------------------------------------------------------- 1 loading and restoring
void restore_saved_state(LabApp& app) {
  std::string text;
  if (!platform::storage_read("state", &text)) return;
  std::string why;
  std::vector<std::string> dropped;
  const bool loaded = attn::lab_state_from_text(text, &app.state, &why, &dropped);
  if (loaded && dropped.empty()) return;
  // Keep the original text rather than overwrite the learner's work with less. An
  // earlier copy is never overwritten: the first failure's text is the one to keep.
  const std::string key = attn::unreadable_copy_key([](const std::string& k) {
    std::string existing;
    return platform::storage_read(k, &existing);
  });
  const bool kept = !key.empty() && platform::storage_write(key, text);
  const std::string copy = kept ? "a copy was kept as '" + key + "'" : "no copy could be kept (earlier copies are full)";
  if (!loaded) {
    app.notices.push_back("Saved progress could not be read (" + why + "); " + copy + " and the lab started fresh.");
    return;
  }
  for (const std::string& d : dropped)
    app.notices.push_back("Part of the saved progress could not be read and was dropped: " + d + ".");
  app.notices.push_back("Everything else was restored; " + copy + ".");
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
  const std::string link = platform::url_fragment();  // before enter_step rewrites it
  restore_saved_state(app);
  enter_step(app);
  lab_follow_link(app, link);
}

bool lab_load_lesson_text(LabApp& app, const std::string& file, const std::string& text) {
  std::vector<attn::LessonError> errors;
  attn::Lesson lesson;
  if (!attn::parse_lesson(file, text, lesson, errors) || !attn::validate_lesson(lesson, errors)) {
    record_errors(app, errors);
    return false;
  }
  bool replaced = false;
  for (auto& l : app.set.lessons)
    if (l.id == lesson.id) l = lesson, replaced = true;
  if (!replaced) app.set.lessons.push_back(std::move(lesson));
  app.parked.clear();  // a changed lesson may have changed its experiments' settings
  app.experiment.reset();
  enter_step(app);
  return true;
}

void lab_follow_link(LabApp& app, const std::string& fragment) {
  if (fragment.empty()) return;
  attn::ParsedLink link;
  std::string why;
  if (!attn::parse_link(fragment, app.set.lessons, &link, &why)) {
    app.notices.push_back("The link was ignored: " + why + ".");
    return;
  }
  if (link.lesson.empty()) return;
  if (!lab_goto(app, link.lesson, link.step)) {
    app.notices.push_back("The link was ignored: it names a lesson step that does not exist.");
    return;
  }
  if (!link.has_edits) return;
  // Shapes are compared in inputs_with_edits: an Eigen == of two shapes read
  // past the smaller one, and a 1 x 1 matrix equal to element (0, 0) passed.
  std::vector<std::string> ignored;
  app.inputs = attn::inputs_with_edits(*current_step(app), &link.edits, &ignored);
  if (!ignored.empty())
    app.notices.push_back("Some values in the link do not fit this step and were ignored.");
  remember_edits(app);
  app.experiment.reset();  // the link's settings: a fresh experiment
  app.running = false;
  recompute(app);
}

// ---------------------------------------------------------------- 2 navigation and edits
bool lab_goto(LabApp& app, const std::string& lesson_id, int step) {
  for (const auto& l : app.set.lessons) {
    if (l.id != lesson_id) continue;
    if (step < 0 || step >= int(l.steps.size())) return false;
    app.state.lesson = lesson_id;
    app.state.step = step;
    enter_step(app);
    return true;
  }
  return false;
}

void lab_step_by(LabApp& app, int delta) {
  if (app.set.lessons.empty()) return;
  const int next = app.state.step + delta;
  if (next < 0 || next >= int(app.set.lessons[size_t(app.lesson)].steps.size())) return;
  lab_goto(app, app.state.lesson, next);
}

namespace {
// Input matrix `name` changed (a cell, Random or Reset): remembered, then a live
// experiment keeps its training when the matrix only changes what is shown
// (lab_set_setting's rule) and starts again otherwise.
void matrix_changed(LabApp& app, const std::string& name) {
  remember_edits(app);
  const auto it = app.inputs.mats.find(name);
  if (app.experiment && it != app.inputs.mats.end() &&
      !(attn::run_demo(current_step(app)->demo, app.inputs).error.empty() &&
        app.experiment->set_view_matrix(name, it->second))) {
    restart_experiment(app);
    return;
  }
  recompute(app);
}
}  // namespace

void lab_apply_edit(LabApp& app, const ui::CellEdit& e) {
  auto it = app.inputs.mats.find(e.name);
  if (it == app.inputs.mats.end() || e.row < 0 || e.col < 0 || e.row >= it->second.rows() ||
      e.col >= it->second.cols() || !std::isfinite(e.value))
    return;
  it->second(e.row, e.col) = e.value;
  matrix_changed(app, e.name);
}

void lab_set_setting(LabApp& app, const std::string& name, const std::string& value) {
  app.inputs.settings[name] = value;
  remember_edits(app);
  // A live experiment keeps training when only the picture changes (which
  // example is shown); other settings start it again.
  if (app.experiment && attn::run_demo(current_step(app)->demo, app.inputs).error.empty() &&
      app.experiment->set_view_setting(name, value)) {
    recompute(app);
    return;
  }
  restart_experiment(app);
}

namespace {
// The budget steering the current speed; none for "slow" (one unit a frame).
template <typename App>  // LabApp or const LabApp
auto speed_budget(App& app) -> decltype(&app.budget_normal) {
  if (app.speed == "slow") return nullptr;
  return app.speed == "fast" ? &app.budget_fast : &app.budget_normal;
}
}  // namespace

double lab_speed_budget_ms(const LabApp& app) {
  const attn::FrameBudget* b = speed_budget(app);
  return b ? b->budget_ms() : 0.0;
}

void lab_train(LabApp& app, const std::string& action, const std::string& speed) {
  if (!app.experiment) return;
  ++app.revision;
  if (action == "run") app.running = !app.experiment->done();
  else if (action == "pause") app.running = false;
  else if (action == "step") {
    app.running = false;
    const double t0 = platform::now_ms();
    app.experiment->step_once();
    app.frame_compute_ms += platform::now_ms() - t0;
    recompute(app);
  } else if (action == "reset") {
    restart_experiment(app);
  } else if (action == "speed" && (speed == "slow" || speed == "normal" || speed == "fast")) {
    app.speed = speed;
  }
}

void lab_apply_demo_edit(LabApp& app, const ui::DemoEdit& e) {
  using K = ui::DemoEdit::Kind;
  switch (e.kind) {
    case K::cell: lab_apply_edit(app, {e.name, e.row, e.col, e.value}); break;
    case K::point:
      lab_apply_edit(app, {e.name, e.row, 0, e.value});
      lab_apply_edit(app, {e.name, e.row, 1, e.value2});
      break;
    case K::setting: lab_set_setting(app, e.name, e.text); break;
    case K::randomise: {
      auto it = app.inputs.mats.find(e.name);
      if (it == app.inputs.mats.end()) return;
      // A new seed each press (counted by frames), so pressing again gives new numbers.
      attn::Rng rng(uint64_t(app.frames) * 7919u + 17u);
      it->second = attn::uniform_matrix(rng, int(it->second.rows()), int(it->second.cols()), 1.0f);
      matrix_changed(app, e.name);
      break;
    }
    case K::reset: {
      const attn::DemoInputs base = attn::demo_defaults(*current_step(app));
      auto from = base.mats.find(e.name);
      if (from == base.mats.end() || !app.inputs.mats.count(e.name)) return;
      app.inputs.mats[e.name] = from->second;
      matrix_changed(app, e.name);
      break;
    }
  }
}

void lab_reset_step(LabApp& app) {
  app.state.edits.erase(current_key(app));
  app.state.answers.erase(current_key(app));
  app.experiment.reset();  // back to the lesson's settings, untrained
  enter_step(app);
}

void lab_show_hint(LabApp& app, int exercise) {
  const attn::LessonStep* step = current_step(app);
  if (!step || exercise < 0 || exercise >= int(app.hints_shown.size())) return;
  int& shown = app.hints_shown[size_t(exercise)];
  if (shown >= int(step->exercises[size_t(exercise)].hints.size())) return;
  ++shown;
  remember_answers(app);
}

void lab_quiz_pick(LabApp& app, int quiz, int option) {
  const attn::LessonStep* step = current_step(app);
  if (!step || quiz < 0 || quiz >= int(app.quizzes.size())) return;
  ui::QuizState& q = app.quizzes[size_t(quiz)];
  if (q.checked || option < 0 || option >= int(step->quizzes[size_t(quiz)].options.size())) return;
  q.picked = option;
  remember_answers(app);
}

void lab_quiz_check(LabApp& app, int quiz) {
  if (quiz < 0 || quiz >= int(app.quizzes.size()) || app.quizzes[size_t(quiz)].picked < 0) return;
  app.quizzes[size_t(quiz)].checked = true;
  remember_answers(app);
  // A checked quiz may reveal more of the step's prose (its `after` text).
  platform::page_event("step", attn::json::write(lab_prose_json(app)));
}

void lab_set_language(LabApp& app, const std::string& lang) {
  if (lang != "en" && lang != "zh") return;
  app.state.lang = lang;
  app.dirty = true;
  ++app.revision;
  platform::page_event("step", attn::json::write(lab_prose_json(app)));
}

std::string lab_type_number(LabApp& app, const std::string& name, int row, int col, const std::string& text) {
  const bool zh = app.state.lang == "zh";
  auto it = app.inputs.mats.find(name);
  if (it == app.inputs.mats.end() || row < 0 || col < 0 || row >= it->second.rows() || col >= it->second.cols())
    return zh ? "这个数字在本步中不存在。" : "This number is not on this step.";
  if (text.size() > 64) return zh ? "太长了：请输入一个数。" : "That is too long: type one number.";
  float v = 0.0f;
  if (attn::parse_float_text(text, &v) != attn::NumberText::ok)
    return zh ? "请输入一个数，例如 0.5 或 -2。" : "Type a number, such as 0.5 or -2.";
  // The editor's range, as a drag or the desktop's typing keeps it.
  lab_apply_edit(app, {name, row, col, std::clamp(v, -ui::kEditLimit, ui::kEditLimit)});
  return "";
}

bool lab_apply_solution(LabApp& app, int exercise) {
  const attn::LessonStep* step = current_step(app);
  if (!step || exercise < 0 || exercise >= int(step->exercises.size())) return false;
  attn::DemoInputs solved = app.inputs;
  std::string why;
  if (!attn::apply_solution(step->exercises[size_t(exercise)], app.outputs, solved, &why)) {
    app.errors.push_back("This exercise's stored solution could not be applied: " + why);
    return false;
  }
  // A live experiment keeps its training when the solution only changes what is
  // shown (lab_set_setting's rule); other settings train a fresh one.
  bool restart = false;
  if (app.experiment && attn::run_demo(step->demo, solved).error.empty())
    for (const auto& [name, value] : solved.settings) {
      auto was = app.inputs.settings.find(name);
      if ((was == app.inputs.settings.end() || was->second != value) && !app.experiment->set_view_setting(name, value))
        restart = true;
    }
  app.inputs = std::move(solved);
  remember_edits(app);
  if (restart) restart_experiment(app);
  else recompute(app);
  return true;
}

std::string lab_page_setting(LabApp& app, const std::string& name, const std::string& value) {
  const bool zh = app.state.lang == "zh";
  if (name.size() > 64 || value.size() > 64) return zh ? "太长了。" : "That is too long.";
  const attn::LessonStep* step = current_step(app);
  for (const attn::Panel& p : app.outputs.panels) {
    if (!step || p.setting != name || name.empty()) continue;
    if (p.kind == attn::Panel::Kind::choice) {
      if (std::find(p.options.begin(), p.options.end(), value) == p.options.end())
        return zh ? "不是可选的选项。" : "That is not one of the options.";
    } else if (p.kind == attn::Panel::Kind::slider) {
      float v = 0.0f;
      if (attn::parse_float_text(value, &v) != attn::NumberText::ok || v < p.min || v > p.max)
        return zh ? "请输入滑块范围内的数。" : "Type a number within the slider's range.";
    } else if (p.kind != attn::Panel::Kind::token_input) {
      continue;
    }
    // The demo's own checks first, on a copy: a refused value never replaces the
    // learner's settings (nor restarts a trained model).
    attn::DemoInputs trial = app.inputs;
    trial.settings[name] = value;
    if (std::string why = attn::run_demo(step->demo, trial).error; !why.empty()) return why;
    lab_set_setting(app, name, value);
    return "";
  }
  return zh ? "本步没有这个设置。" : "This step has no such setting.";
}

void lab_set_layout(LabApp& app, const std::string& layout, bool touch_screen) {
  if (layout == "wide" || layout == "medium" || layout == "narrow") app.layout = layout;
  app.touch_screen = touch_screen;
}

// ---------------------------------------------------------------- 3 saving and links
void lab_save(LabApp& app, double min_interval_ms) {
  const double now = platform::now_ms();
  if (!app.dirty || now - app.saved_at_ms < min_interval_ms) return;
  if (platform::storage_write("state", attn::json::write(attn::lab_state_to_json(app.state)))) app.dirty = false;
  app.saved_at_ms = now;
}

std::string lab_share_link(LabApp& app) {
  if (!current_step(app)) return "";
  auto it = app.state.edits.find(current_key(app));
  const std::string link =
      attn::make_link(app.state.lesson, current_step(app)->id, it == app.state.edits.end() ? nullptr : &it->second);
  platform::set_url_fragment(link);
  platform::copy_to_clipboard(link);
  return link;
}

std::string lab_all_text(const LabApp& app) {
  std::string all;
  for (const auto& l : app.set.lessons) {
    for (const auto& [lang, t] : l.title.by_lang) all += t;
    for (const auto& s : l.steps) {
      for (const auto& [lang, t] : s.title.by_lang) all += t;
      for (const auto& [lang, t] : s.text.by_lang) all += t;
      for (const auto& [name, v] : s.params) all += v.text;
    }
  }
  return all;
}

// ---------------------------------------------------------------- 4 the frame
namespace {

void sidebar(LabApp& app) {
  const std::string& lang = app.state.lang;
  ImGui::SetWindowFontScale(1.2f);
  ImGui::TextUnformatted(ui::text::app_name.get(lang));
  ImGui::SetWindowFontScale(1.0f);
  ImGui::SameLine(ImGui::GetContentRegionAvail().x - 60.0f + ImGui::GetCursorPosX());
  if (ImGui::SmallButton(ui::text::language.get(lang))) lab_set_language(app, lang == "zh" ? "en" : "zh");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", ui::text::language_tip.get(lang));
  ui::widgets_record_last("lang:toggle", "button");
  ImGui::Separator();
  std::vector<float> progress;
  for (const auto& l : app.set.lessons) {
    auto it = app.state.furthest.find(l.id);
    progress.push_back(it == app.state.furthest.end() ? 0.0f : float(it->second + 1) / float(l.steps.size()));
  }
  const int picked = ui::lesson_list({&app.set.lessons, app.lesson, lang, progress});
  if (picked >= 0 && picked != app.lesson) {
    auto it = app.state.furthest.find(app.set.lessons[size_t(picked)].id);
    (void)it;
    lab_goto(app, app.set.lessons[size_t(picked)].id, 0);
  }
  // The keys line sits at the bottom, or just below the list when the list is
  // taller than the window (it must never draw over the last lessons).
  const float footer_y = ImGui::GetWindowHeight() - ImGui::GetTextLineHeightWithSpacing() * 3.2f;
  ImGui::SetCursorPosY(std::max(footer_y, ImGui::GetCursorPosY() + ImGui::GetStyle().ItemSpacing.y));
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("%s", ui::text::keys_help.get(lang));
  ImGui::PopTextWrapPos();
}

void notices(LabApp& app) {
  if (app.notices.empty()) return;
  ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(0.93f, 0.96f, 1.0f, 1.0f));
  const float h = ImGui::GetTextLineHeightWithSpacing() * float(app.notices.size()) + ImGui::GetFrameHeight() +
                  2.0f * ImGui::GetStyle().WindowPadding.y;
  ImGui::BeginChild("##notices", ImVec2(0, h), true);
  for (const auto& n : app.notices) ImGui::TextWrapped("%s", n.c_str());
  if (ImGui::SmallButton(ui::text::dismiss.get(app.state.lang))) app.notices.clear();
  ui::widgets_record_last("notice:dismiss", "button");
  ImGui::EndChild();
  ImGui::PopStyleColor();
}

// Back, step counter, Next, then the step's own actions on the right.
// In a narrow or medium page, Back and Next are in the page's top bar instead.
void toolbar(LabApp& app, const attn::Lesson& lesson, ui::Nav& nav, bool with_nav) {
  const std::string& lang = app.state.lang;
  if (with_nav) {
    nav = ui::step_navigation({&lesson, app.state.step, lang});
    ImGui::SameLine(0.0f, 24.0f);
  }
  const bool edited = app.state.edits.count(current_key(app)) > 0 || app.state.answers.count(current_key(app)) > 0;
  ImGui::BeginDisabled(!edited);
  if (ImGui::Button(ui::text::reset_step.get(lang))) lab_reset_step(app);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", ui::text::reset_tip.get(lang));
  if (edited) ui::widgets_record_last("step:reset", "button");
  ImGui::SameLine();
  if (ImGui::Button(ui::text::share.get(lang))) {
    app.notices.clear();
    app.notices.push_back(std::string(ui::text::link_copied.get(lang)) + "#" + lab_share_link(app));
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", ui::text::share_tip.get(lang));
  ui::widgets_record_last("step:share", "button");
}

// Trains (or measures) within this frame's budget while the experiment runs.
void advance_experiment(LabApp& app) {
  if (!app.experiment || !app.running) return;
  if (attn::FrameBudget* b = speed_budget(app)) b->observe(app.frame_ms);
  const double t0 = platform::now_ms();
  app.experiment->advance(lab_speed_budget_ms(app));
  if (app.experiment->done()) app.running = false;
  app.frame_compute_ms += platform::now_ms() - t0;
  recompute(app);
}

// Touch-sized controls once the page says it is a touch screen or a finger is
// seen; a finger's swipes and taps (app/lab_touch.h).
void touch(LabApp& app, double now) {
  const bool finger = platform::pointer_is_touch();
  app.touched = app.touched || finger;
  ui::set_touch_targets(app.touch_screen || app.touched);
  const std::optional<NumberTap> tap = touch_update(app.gesture, finger, now);
  if (!tap) return;
  // "text:<setting>": a line of tokens (the induction prompt); the page types it.
  if (tap->id.rfind("text:", 0) == 0) {
    const std::string setting = tap->id.substr(5);
    auto it = app.inputs.settings.find(setting);
    if (it == app.inputs.settings.end()) return;
    attn::json::Value o = attn::json::Value::object();
    o.set("setting", setting);
    o.set("text", it->second);
    o.set("x", double(tap->x));
    o.set("y", double(tap->y));
    o.set("width", double(tap->w));
    o.set("height", double(tap->h));
    platform::page_event("numberTap", attn::json::write(o));
    return;
  }
  // "edit:<name>:<row>:<col>"; the page puts a text input over the number.
  const size_t c2 = tap->id.rfind(':'), c1 = c2 == std::string::npos ? c2 : tap->id.rfind(':', c2 - 1);
  if (tap->id.rfind("edit:", 0) != 0 || c1 == std::string::npos || c1 < 5) return;
  const std::string name = tap->id.substr(5, c1 - 5);
  long long row = 0, col = 0;
  auto it = app.inputs.mats.find(name);
  if (it == app.inputs.mats.end() || !attn::parse_whole_text(tap->id.substr(c1 + 1, c2 - c1 - 1), 0, it->second.rows() - 1, &row) ||
      !attn::parse_whole_text(tap->id.substr(c2 + 1), 0, it->second.cols() - 1, &col))
    return;
  attn::json::Value o = attn::json::Value::object();
  o.set("name", name);
  o.set("row", int(row));
  o.set("col", int(col));
  o.set("value", double(it->second(int(row), int(col))));
  o.set("x", double(tap->x));
  o.set("y", double(tap->y));
  o.set("width", double(tap->w));
  o.set("height", double(tap->h));
  platform::page_event("numberTap", attn::json::write(o));
}

void experiment_controls(LabApp& app) {
  if (!app.experiment) return;
  ui::TrainControlsView v;
  v.running = app.running;
  v.started = app.experiment->progress() > 0 || app.experiment->work_ms() > 0.0;
  v.finished = app.experiment->done();
  v.progress = app.experiment->progress();
  v.planned = app.experiment->planned();
  v.speed = app.speed;
  v.lang = app.state.lang;
  const ui::TrainAction a = ui::train_controls(v);
  using K = ui::TrainAction::Kind;
  if (a.kind == K::run) lab_train(app, "run");
  if (a.kind == K::pause) lab_train(app, "pause");
  if (a.kind == K::step) lab_train(app, "step");
  if (a.kind == K::reset) lab_train(app, "reset");
  if (a.kind == K::speed) lab_train(app, "speed", a.speed);
}

}  // namespace

bool lab_frame(void* user) {
  LabApp& app = *static_cast<LabApp*>(user);
  ui::widgets_begin_frame();
  const double frame_start = platform::now_ms();
  if (app.last_frame_at > 0.0) {
    const double dt = frame_start - app.last_frame_at;
    app.frame_ms = app.frame_ms > 0.0 ? 0.9 * app.frame_ms + 0.1 * dt : dt;
  }
  app.last_frame_at = frame_start;
  const double compute_shown = app.frame_compute_ms;  // the previous frame's work
  app.frame_compute_shown = compute_shown;
  app.frame_compute_ms = 0.0;
  advance_experiment(app);
  touch(app, frame_start);
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  // In a narrow or medium page the lesson list is the page's drawer.
  const bool list_in_page = platform::running_in_browser() && app.layout != "wide";
  const float sidebar_w = list_in_page ? 0.0f : 270.0f;
  const ImGuiWindowFlags fixed = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                 ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoBringToFrontOnFocus;

  if (!list_in_page) {
    ImGui::SetNextWindowPos(vp->WorkPos);
    ImGui::SetNextWindowSize(ImVec2(sidebar_w, vp->WorkSize.y));
    ImGui::Begin("Lessons", nullptr, fixed);
    sidebar(app);
    ImGui::End();
  }

  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + sidebar_w, vp->WorkPos.y));
  ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x - sidebar_w, vp->WorkSize.y));
  ImGui::Begin("Lesson", nullptr, fixed);
  ui::error_panel(app.errors, app.state.lang);
  notices(app);
  ui::Nav nav = ui::Nav::none;
  if (const attn::LessonStep* step = current_step(app)) {
    const attn::Lesson& lesson = app.set.lessons[size_t(app.lesson)];
    toolbar(app, lesson, nav, !list_in_page);
    ImGui::Separator();
    const bool prose = !platform::running_in_browser();
    // A narrow or medium page shows the titles in its words above or beside the canvas.
    if (!list_in_page) {
      ui::step_header({&lesson, app.state.step, app.state.lang, prose,
                       prose ? attn::shown_prose(*step, app.state.lang, app.quizzes) : std::string()});
      ImGui::Spacing();
    }
    experiment_controls(app);
    // Predict first: a quiz's hidden panels stay hidden until it is checked.
    std::vector<std::string> hidden;
    if (!step->quizzes.empty()) {
      const ui::QuizAction q = ui::quiz_panel({&step->quizzes, &app.quizzes, app.state.lang});
      if (q.kind == ui::QuizAction::Kind::pick) lab_quiz_pick(app, q.quiz, q.option);
      if (q.kind == ui::QuizAction::Kind::check) lab_quiz_check(app, q.quiz);
      for (size_t i = 0; i < step->quizzes.size(); ++i)
        if (!app.quizzes[i].checked) hidden.insert(hidden.end(), step->quizzes[i].hides.begin(), step->quizzes[i].hides.end());
    }
    if (!step->demo.empty()) {
      if (auto e = ui::demo_view({&app.inputs, &app.outputs, app.state.lang, hidden})) lab_apply_demo_edit(app, *e);
    }
    if (!step->exercises.empty()) {
      std::vector<attn::ExerciseStatus> status;
      for (const auto& ex : step->exercises) status.push_back(attn::check_exercise(ex, app.inputs, app.outputs));
      const ui::ExerciseAction a = ui::exercise_panel({&step->exercises, &status, &app.hints_shown, app.state.lang});
      if (a.kind == ui::ExerciseAction::Kind::show_hint) lab_show_hint(app, a.exercise);
      if (a.kind == ui::ExerciseAction::Kind::apply_solution) lab_apply_solution(app, a.exercise);
    }
    lab_keyboard(app, nav);
  } else {
    ImGui::TextWrapped("%s", ui::text::no_lessons.get(app.state.lang));
  }
  if (nav == ui::Nav::next) lab_step_by(app, +1);
  if (nav == ui::Nav::back) lab_step_by(app, -1);
  ImGui::End();
  if (app.show_keys && ui::keys_help(app.state.lang)) app.show_keys = false;
  if (app.overlay) ui::timing_overlay({app.frame_ms, compute_shown, app.ui_ms, attn::eigen_simd_in_use(), app.state.lang});
  ui::widgets_end_frame();
  const double ui = platform::now_ms() - frame_start - app.frame_compute_ms;
  app.ui_ms = app.ui_ms > 0.0 ? 0.9 * app.ui_ms + 0.1 * ui : ui;
  lab_save(app);
  // The page's mirror follows: a few times a second at most, every 2 s while training.
  // Starting, pausing or finishing is told at once.
  const bool run_changed = app.running != app.running_sent;
  if (run_changed || (app.revision != app.revision_sent &&
                      frame_start - app.revision_sent_at >= (app.running ? 2000.0 : 150.0))) {
    app.revision_sent = app.revision;
    app.running_sent = app.running;
    app.revision_sent_at = frame_start;
    platform::page_event("changed", "{}");
  }
  if (++app.frames == 1) platform::page_event("firstFrame", "{}");
  return true;
}

// ---------------------------------------------------------------- 5 JSON views
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
  const attn::LessonStep* step = current_step(app);
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
  s.set("edited", app.state.edits.count(current_key(app)) > 0);
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
    ex.set("frameBudgetMs", lab_speed_budget_ms(app));
    s.set("experiment", std::move(ex));
  }
  s.set("overlay", app.overlay);
  s.set("frameMs", app.frame_ms);
  s.set("uiMs", app.ui_ms);
  s.set("frameComputeMs", app.frame_compute_shown);
  s.set("frames", double(app.frames));
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
  const attn::LessonStep* step = current_step(app);
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

std::string lab_page_query(const std::string& name, const std::string& arg, void* user) {
  LabApp& app = *static_cast<LabApp*>(user);
  Value answer;
  if (name == "lessons") answer = lab_lessons_json(app);
  else if (name == "state") answer = lab_state_json(app);
  else if (name == "widgets") answer = lab_widgets_json();
  else if (name == "errors") answer = lab_errors_json(app);
  else if (name == "prose") answer = lab_prose_json(app);
  else if (name == "mirror") answer = lab_mirror_json(app);
  else if (name == "goto" || name == "loadLesson" || name == "language" || name == "link" || name == "share" ||
           name == "train" || name == "layout" || name == "typeNumber" || name == "help" || name == "quizPick" ||
           name == "quizCheck" || name == "hint" || name == "solution" || name == "setting") {
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
      answer = lab_page_setting(app, str("name"), str("value"));
    } else if (name == "help") {
      app.show_keys = !app.show_keys;
      answer = app.show_keys;
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

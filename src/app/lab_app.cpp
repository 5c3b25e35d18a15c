// lab_app.cpp: the lab's state and every change to it. Sections: 0 the
// current step and its outputs, 1 loading and restoring, 2 navigation and
// edits, 3 saving and links. The frame is drawn in lab_frame.cpp; the page's
// questions are answered in lab_page.cpp.
#include "app/lab_app.h"

#include <imgui.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "app/lab_app_internal.h"
#include "base/number_text.h"
#include "base/rng.h"
#include "base/simd_info.h"
#include "base/tensor_json.h"
#include "course/exercise.h"
#include "experiments/weights_export.h"
#include "lab/catalog.h"
#include "platform/platform.h"
#include "ui/strings.h"
#include "ui/widget_log.h"

// ---------------------------------------------------------------- 0 the current step
const attn::LessonStep* lab_current_step(const LabApp& app) {
  if (app.set.lessons.empty()) return nullptr;
  return &app.set.lessons[size_t(app.lesson)].steps[size_t(app.state.step)];
}

std::string lab_current_key(const LabApp& app) {
  const attn::LessonStep* s = lab_current_step(app);
  return s ? attn::step_key(app.state.lesson, s->id) : "";
}

void lab_recompute(LabApp& app) {
  const attn::LessonStep* step = lab_current_step(app);
  if (!step) return;
  const double t0 = platform::now_ms();
  if (attn::is_experiment_demo(step->demo)) {
    // A new experiment's settings are checked by the registry first (a bad value
    // in a link or saved state shows as a compute error, like any demo's).
    if (!app.experiment) {
      app.outputs = attn::run_demo(step->demo, app.inputs);
      if (app.outputs.error.empty() && lab_text_ready(app, *step))
        app.experiment = lab_trainer(app).open(lab_current_key(app), step->demo, app.inputs);
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

namespace {

// A fresh experiment for the step (its settings may have changed), here and in
// the worker; none while the settings do not pass the demo's checks.
void restart_experiment(LabApp& app) {
  app.running = false;
  app.experiment = nullptr;
  const attn::LessonStep* step = lab_current_step(app);
  // A step whose text is still on its way is opened when it comes (lab_recompute).
  if (step && attn::is_experiment_demo(step->demo) && attn::run_demo(step->demo, app.inputs).error.empty() &&
      lab_text_ready(app, *step))
    app.experiment = lab_trainer(app).reset(lab_current_key(app), step->demo, app.inputs);
  else if (app.trainer)
    app.trainer->close(lab_current_key(app));
  lab_recompute(app);
}

// The learner's values changed: remember what differs from the lesson.
void remember_edits(LabApp& app) {
  const attn::LessonStep* step = lab_current_step(app);
  if (!step) return;
  attn::StepEdits e = attn::edits_from_inputs(attn::demo_defaults(*step), app.inputs);
  if (e.empty()) app.state.edits.erase(lab_current_key(app));
  else app.state.edits[lab_current_key(app)] = std::move(e);
  app.dirty = true;
}

// The learner revealed a hint or answered a quiz: keep it with the step.
void remember_answers(LabApp& app) {
  const attn::LessonStep* step = lab_current_step(app);
  if (!step) return;
  attn::StepAnswers a = attn::answers_from_step(*step, app.hints_shown, app.quizzes);
  if (a.empty()) app.state.answers.erase(lab_current_key(app));
  else app.state.answers[lab_current_key(app)] = std::move(a);
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
  auto it = app.state.edits.find(lab_current_key(app));
  app.inputs = attn::inputs_with_edits(attn::demo_defaults(*lab_current_step(app)), it == app.state.edits.end() ? nullptr : &it->second);
  auto saved = app.state.answers.find(lab_current_key(app));
  const attn::StepAnswers* answers = saved == app.state.answers.end() ? nullptr : &saved->second;
  app.hints_shown = attn::hints_for_step(*lab_current_step(app), answers);
  app.quizzes = attn::quizzes_for_step(*lab_current_step(app), answers);
  // A live experiment waits, paused, while the learner is elsewhere.
  if (app.experiment && app.running) app.trainer->pause(app.experiment_key);
  app.running = false;
  app.experiment_key = lab_current_key(app);
  app.experiment = app.trainer ? app.trainer->experiment(app.experiment_key) : nullptr;
  lab_recompute(app);
  platform::set_url_fragment(attn::make_link(app.state.lesson, lab_current_step(app)->id, nullptr));
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
    app.set = attn::load_lessons(read, &dir, attn::lab_demos());
  }
  record_errors(app, app.set.errors);
  const std::string link = platform::url_fragment();  // before enter_step rewrites it
  // The embed view starts from its link alone: a course page's frame must show the
  // step the teacher linked, and must not read or overwrite the learner's own lab.
  app.embedded = platform::embedded_view();
  if (!app.embedded) restore_saved_state(app);
  enter_step(app);
  lab_follow_link(app, link);
}

bool lab_load_lesson_text(LabApp& app, const std::string& file, const std::string& text) {
  std::vector<attn::LessonError> errors;
  attn::Lesson lesson;
  if (!attn::parse_lesson(file, text, lesson, errors) || !attn::validate_lesson(lesson, attn::lab_demos(), errors)) {
    record_errors(app, errors);
    return false;
  }
  bool replaced = false;
  for (auto& l : app.set.lessons)
    if (l.id == lesson.id) l = lesson, replaced = true;
  if (!replaced) app.set.lessons.push_back(std::move(lesson));
  if (app.trainer) app.trainer->close_all();  // a changed lesson may have changed its experiments' settings
  app.experiment = nullptr;
  app.running = false;
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
  app.inputs = attn::inputs_with_edits(attn::demo_defaults(*lab_current_step(app)), &link.edits, &ignored);
  if (!ignored.empty())
    app.notices.push_back("Some values in the link do not fit this step and were ignored.");
  remember_edits(app);
  restart_experiment(app);  // the link's settings: a fresh experiment
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
  if (app.set.lessons.empty() || app.embedded) return;
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
      !(attn::run_demo(lab_current_step(app)->demo, app.inputs).error.empty() &&
        app.trainer->set_view_matrix(app.experiment_key, name, it->second))) {
    restart_experiment(app);
    return;
  }
  lab_recompute(app);
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
  if (app.experiment && attn::run_demo(lab_current_step(app)->demo, app.inputs).error.empty() &&
      app.trainer->set_view_setting(app.experiment_key, name, value)) {
    lab_recompute(app);
    return;
  }
  restart_experiment(app);
}

void lab_train(LabApp& app, const std::string& action, const std::string& speed) {
  if (action == "retry") {
    lab_trainer_retry(app);
    return;
  }
  if (!app.experiment) return;
  ++app.revision;
  attn::TrainerClient& t = lab_trainer(app);
  if (action == "run") {
    if (!app.experiment->done() && app.trainer_failed.empty()) {
      t.run(app.experiment_key, app.speed);
      app.running = true;
    }
  } else if (action == "pause") {
    t.pause(app.experiment_key);
    app.running = false;
  } else if (action == "step") {
    // One step in the worker; the page shows it when its snapshot arrives.
    if (!app.experiment->done() && app.trainer_failed.empty()) t.step(app.experiment_key);
    app.running = false;
  } else if (action == "reset") {
    restart_experiment(app);
  } else if (action == "speed" && (speed == "slow" || speed == "normal" || speed == "fast")) {
    app.speed = speed;
    if (app.running) t.run(app.experiment_key, speed);
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
      const attn::DemoInputs base = attn::demo_defaults(*lab_current_step(app));
      auto from = base.mats.find(e.name);
      if (from == base.mats.end() || !app.inputs.mats.count(e.name)) return;
      app.inputs.mats[e.name] = from->second;
      matrix_changed(app, e.name);
      break;
    }
  }
}

void lab_reset_step(LabApp& app) {
  app.state.edits.erase(lab_current_key(app));
  app.state.answers.erase(lab_current_key(app));
  if (app.trainer) app.trainer->close(lab_current_key(app));  // back to the lesson's settings, untrained
  app.text_failed.clear();  // a text that failed to load is fetched again
  app.experiment = nullptr;
  app.running = false;
  enter_step(app);
}

void lab_show_hint(LabApp& app, int exercise) {
  const attn::LessonStep* step = lab_current_step(app);
  if (!step || exercise < 0 || exercise >= int(app.hints_shown.size())) return;
  int& shown = app.hints_shown[size_t(exercise)];
  if (shown >= int(step->exercises[size_t(exercise)].hints.size())) return;
  ++shown;
  remember_answers(app);
}

void lab_quiz_pick(LabApp& app, int quiz, int option) {
  const attn::LessonStep* step = lab_current_step(app);
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
  const attn::LessonStep* step = lab_current_step(app);
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
      if ((was == app.inputs.settings.end() || was->second != value) &&
          !app.trainer->set_view_setting(app.experiment_key, name, value))
        restart = true;
    }
  app.inputs = std::move(solved);
  remember_edits(app);
  if (restart) restart_experiment(app);
  else lab_recompute(app);
  return true;
}

std::string lab_page_setting(LabApp& app, const std::string& name, const std::string& value) {
  const bool zh = app.state.lang == "zh";
  // Length first: a setting's name, and a value as long as the longest a demo takes
  // (the language model's prompt, attn::kLmPromptBytes).
  if (name.size() > 64 || value.size() > attn::kLmPromptBytes) return zh ? "太长了。" : "That is too long.";
  const attn::LessonStep* step = lab_current_step(app);
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
  if (app.embedded) app.dirty = false;  // the embed view keeps nothing (README, "Embedding a step")
  if (!app.dirty || now - app.saved_at_ms < min_interval_ms) return;
  if (platform::storage_write("state", attn::json::write(attn::lab_state_to_json(app.state)))) app.dirty = false;
  app.saved_at_ms = now;
}

std::string lab_current_link(const LabApp& app) {
  if (!lab_current_step(app)) return "";
  auto it = app.state.edits.find(lab_current_key(app));
  return attn::make_link(app.state.lesson, lab_current_step(app)->id, it == app.state.edits.end() ? nullptr : &it->second);
}

std::string lab_share_link(LabApp& app) {
  const std::string link = lab_current_link(app);
  if (link.empty()) return link;
  platform::set_url_fragment(link);
  platform::copy_to_clipboard(link);
  return link;
}

std::string lab_embed_snippet(LabApp& app) {
  const attn::LessonStep* step = lab_current_step(app);
  if (!step) return "";
  const attn::Lesson& lesson = app.set.lessons[size_t(app.lesson)];
  const std::string title =
      "Attention Lab: " + lesson.title.get(app.state.lang) + " / " + step->title.get(app.state.lang);
  const std::string snippet = attn::embed_snippet(platform::page_base_url(), lab_current_link(app), app.state.lang, title);
  platform::copy_to_clipboard(snippet);
  return snippet;
}

bool lab_code_trained(const LabApp& app) {
  const attn::LessonStep* step = lab_current_step(app);
  return step && app.experiment && (step->demo == "train_translation" || step->demo == "train_induction");
}

bool lab_has_code(const LabApp& app) {
  const attn::LessonStep* step = lab_current_step(app);
  return step && (attn::demo_has_code(step->demo) || lab_code_trained(app));
}

const std::string& lab_code(const LabApp& app) {
  static const std::string none;
  const attn::LessonStep* step = lab_current_step(app);
  if (!lab_has_code(app)) return none;
  const std::string made_for = lab_current_key(app) + "@" + std::to_string(app.revision) + "@" + app.code_lang;
  if (app.code_made_for != made_for) {
    const attn::Lesson& lesson = app.set.lessons[size_t(app.lesson)];
    app.code_weights.clear();
    if (lab_code_trained(app)) {
      // The trained model: its weights and the program that loads them (empty
      // until the model is built).
      attn::TrainedExport e;
      app.code_text = attn::export_trained(*app.experiment, &e) ? e.program : std::string();
      app.code_weights = std::move(e.json);
    } else {
      app.code_text = attn::demo_code(step->demo, app.inputs, app.code_lang == "torch" ? attn::CodeLang::torch : attn::CodeLang::numpy,
                                      lesson.title.get("en") + ", step " + std::to_string(app.state.step + 1) + ": " +
                                          step->title.get("en"));
    }
    app.code_made_for = made_for;
  }
  return app.code_text;
}

bool lab_code_view(LabApp& app, bool open, const std::string& language) {
  if (!lab_has_code(app)) return false;
  if (language == "numpy" || language == "torch") app.code_lang = language;
  app.code_open = open;
  ++app.revision;  // the page's mirror shows the program too
  return true;
}

void lab_copy_code(LabApp& app, bool weights) {
  const std::string& code = lab_code(app);
  const std::string& text = weights ? app.code_weights : code;
  if (text.empty()) return;
  platform::copy_to_clipboard(text);
  app.code_copied_at = platform::now_ms();
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

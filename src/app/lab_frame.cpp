// lab_frame.cpp: one frame of the whole interface: the lesson list, notices,
// the toolbar, the step, the live experiment's work for this frame, touch
// gestures and the keys. Everything it changes goes through the lab_* calls.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app/lab_app_internal.h"
#include "app/lab_keys.h"
#include "base/number_text.h"
#include "base/simd_info.h"
#include "lab/catalog.h"
#include "platform/platform.h"
#include "ui/strings.h"
#include "ui/widget_log.h"

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

// The next toolbar button stays on this line when it fits, else starts the next
// one (a phone's width holds three of the four).
void same_line_for(const char* label) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float w = ImGui::CalcTextSize(label).x + 2.0f * st.FramePadding.x;
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (ImGui::GetItemRectMax().x + st.ItemSpacing.x + w <= right) ImGui::SameLine();
}

// Back, step counter, Next, then the step's own actions on the right.
// In a narrow or medium page, Back and Next are in the page's top bar instead.
void toolbar(LabApp& app, const attn::Lesson& lesson, ui::Nav& nav, bool with_nav) {
  const std::string& lang = app.state.lang;
  if (with_nav) {
    nav = ui::step_navigation({&lesson, app.state.step, lang});
    ImGui::SameLine(0.0f, 24.0f);
  }
  const bool edited = app.state.edits.count(lab_current_key(app)) > 0 || app.state.answers.count(lab_current_key(app)) > 0;
  ImGui::BeginDisabled(!edited);
  if (ImGui::Button(ui::text::reset_step.get(lang))) lab_reset_step(app);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", ui::text::reset_tip.get(lang));
  if (edited) ui::widgets_record_last("step:reset", "button");
  if (app.embedded) return;  // the page's bar links to the full lab instead
  same_line_for(ui::text::share.get(lang));
  if (ImGui::Button(ui::text::share.get(lang))) {
    app.notices.clear();
    app.notices.push_back(std::string(ui::text::link_copied.get(lang)) + "#" + lab_share_link(app));
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", ui::text::share_tip.get(lang));
  ui::widgets_record_last("step:share", "button");
  // A hand-set step or a trained model: its program, in the Code view above the panels.
  if (lab_has_code(app)) {
    same_line_for(ui::text::code.get(lang));
    const bool open = app.code_open;
    if (open) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::Button(ui::text::code.get(lang))) lab_code_view(app, !open, "");
    if (open) ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", ui::text::code_tip.get(lang));
    ui::widgets_record_last("step:code", "button");
  }
  if (!platform::running_in_browser()) return;  // an embed snippet names the page's address
  same_line_for(ui::text::embed.get(lang));
  if (ImGui::Button(ui::text::embed.get(lang))) {
    app.notices.clear();
    app.notices.push_back(std::string(ui::text::embed_copied.get(lang)) + lab_embed_snippet(app));
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", ui::text::embed_tip.get(lang));
  ui::widgets_record_last("step:embed", "button");
}

void code_view(LabApp& app) {
  if (!app.code_open || !lab_has_code(app)) return;
  const std::string& code = lab_code(app);
  const bool trained = lab_code_trained(app);
  if (code.empty() && !trained) return;  // the values do not compute: the demo says why
  const bool copied = platform::now_ms() - app.code_copied_at < 4000.0;
  const ui::CodeAction a = ui::code_view({&code, app.code_lang, app.state.lang, copied, trained ? &app.code_weights : nullptr});
  if (a.kind == ui::CodeAction::Kind::tab) lab_code_view(app, true, a.tab);
  if (a.kind == ui::CodeAction::Kind::copy) lab_copy_code(app);
  if (a.kind == ui::CodeAction::Kind::copy_weights) lab_copy_code(app, true);
  if (a.kind == ui::CodeAction::Kind::close) lab_code_view(app, false, "");
  ImGui::Spacing();
}

// A line of text to type in the page's own input over the field (page_event
// "numberTap" with a setting): after a tap and the page's Edit button on a touch
// screen, or at once (direct) when a free-text field is clicked or tabbed into
// (ui::set_page_text_fields).
void offer_text_field(const ui::PageTextRequest& r, bool direct) {
  attn::json::Value o = attn::json::Value::object();
  o.set("setting", r.setting);
  o.set("text", r.text);
  o.set("x", double(r.x));
  o.set("y", double(r.y));
  o.set("width", double(r.w));
  o.set("height", double(r.h));
  if (direct) o.set("direct", true);
  platform::page_event("numberTap", attn::json::write(o));
}

// Touch-sized controls once the page says it is a touch screen or a finger is
// seen; a finger's swipes and taps (app/lab_touch.h).
void touch(LabApp& app, double now) {
  const bool finger = platform::pointer_is_touch();
  app.touched = app.touched || finger;
  ui::set_touch_targets(app.touch_screen || app.touched);
  // A mouse and keyboard in a browser type free text in the page's input (an
  // input method works there); a finger goes through the tap and Edit button below.
  ui::set_page_text_fields(platform::running_in_browser() && !app.touch_screen && !app.touched);
  const std::optional<NumberTap> tap = touch_update(app.gesture, finger, now);
  if (!tap) return;
  // "text:<setting>": a line of tokens (the induction prompt); the page types it.
  if (tap->id.rfind("text:", 0) == 0) {
    const std::string setting = tap->id.substr(5);
    auto it = app.inputs.settings.find(setting);
    offer_text_field({setting, it == app.inputs.settings.end() ? std::string() : it->second, tap->x, tap->y, tap->w, tap->h}, false);
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
  v.starting = !app.trainer_ready && app.trainer_failed.empty();
  v.failed = app.trainer_failed;
  const ui::TrainAction a = ui::train_controls(v);
  using K = ui::TrainAction::Kind;
  if (a.kind == K::run) lab_train(app, "run");
  if (a.kind == K::pause) lab_train(app, "pause");
  if (a.kind == K::step) lab_train(app, "step");
  if (a.kind == K::reset) lab_train(app, "reset");
  if (a.kind == K::speed) lab_train(app, "speed", a.speed);
  if (a.kind == K::retry) lab_train(app, "retry");
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
  lab_trainer_pump(app, frame_start);
  touch(app, frame_start);
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  // In a narrow or medium page the lesson list is the page's drawer.
  const bool list_in_page = platform::running_in_browser() && (app.layout != "wide" || app.embedded);
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
  if (const attn::LessonStep* step = lab_current_step(app)) {
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
    code_view(app);
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
      // Predict first, here too: the exercises wait until every quiz is checked.
      const bool open = attn::exercises_open(*step, app.quizzes);
      std::vector<attn::ExerciseStatus> status;
      if (open)
        for (const auto& ex : step->exercises) status.push_back(attn::check_exercise(ex, app.inputs, app.outputs));
      const ui::ExerciseAction a = ui::exercise_panel(
          {&step->exercises, &status, &app.hints_shown, app.state.lang, !open, step->quizzes.size()});
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
  if (auto r = ui::take_page_text_request()) offer_text_field(*r, true);
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

// lab_frame.cpp: one frame of the whole interface (lab_frame.h): the lesson list,
// notices, the toolbar, the step, the live experiment's controls, touch gestures
// and the keys. It reads the lab through one LabView, looked up at the start of
// the frame, and changes it only through LabControl; a change of step (the lesson
// list, Back and Next, the keys) is made at the end of the frame, after drawing.
#include "app/lab_frame.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app/lab_keys.h"
#include "base/number_text.h"
#include "base/simd_info.h"
#include "platform/platform.h"
#include "ui/strings.h"
#include "ui/widget_log.h"

namespace {

// A change of place asked for during the frame, made after drawing it.
struct PendingMove {
  ui::Nav nav = ui::Nav::none;  // Back / Next (a button or a key)
  int lesson = -1;              // a lesson picked in the list
  int lesson_delta = 0;         // Page Up / Page Down
};

void sidebar(const LabView& v, LabControl& lab, PendingMove& move) {
  const std::string& lang = v.lang();
  ImGui::SetWindowFontScale(1.2f);
  ImGui::TextUnformatted(ui::text::app_name.get(lang));
  ImGui::SetWindowFontScale(1.0f);
  ImGui::SameLine(ImGui::GetContentRegionAvail().x - 60.0f + ImGui::GetCursorPosX());
  if (ImGui::SmallButton(ui::text::language.get(lang))) lab.set_language(lang == "zh" ? "en" : "zh");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", ui::text::language_tip.get(lang));
  ui::widgets_record_last("lang:toggle", "button");
  ImGui::Separator();
  std::vector<float> progress;
  for (const auto& l : *v.lessons) {
    auto it = v.state->furthest.find(l.id);
    progress.push_back(it == v.state->furthest.end() ? 0.0f : float(it->second + 1) / float(l.steps.size()));
  }
  const int picked = ui::lesson_list({v.lessons, v.lesson_index, lang, progress});
  if (picked >= 0 && picked != v.lesson_index) move.lesson = picked;
  // The keys line sits at the bottom, or just below the list when the list is
  // taller than the window (it must never draw over the last lessons).
  const float footer_y = ImGui::GetWindowHeight() - ImGui::GetTextLineHeightWithSpacing() * 3.2f;
  ImGui::SetCursorPosY(std::max(footer_y, ImGui::GetCursorPosY() + ImGui::GetStyle().ItemSpacing.y));
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("%s", ui::text::keys_help.get(lang));
  ImGui::PopTextWrapPos();
}

void notices(const LabView& v, LabControl& lab) {
  if (v.notices->empty()) return;
  ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(0.93f, 0.96f, 1.0f, 1.0f));
  const float h = ImGui::GetTextLineHeightWithSpacing() * float(v.notices->size()) + ImGui::GetFrameHeight() +
                  2.0f * ImGui::GetStyle().WindowPadding.y;
  ImGui::BeginChild("##notices", ImVec2(0, h), true);
  for (const auto& n : *v.notices) ImGui::TextWrapped("%s", n.c_str());
  const bool dismiss = ImGui::SmallButton(ui::text::dismiss.get(v.lang()));
  ui::widgets_record_last("notice:dismiss", "button");
  ImGui::EndChild();
  ImGui::PopStyleColor();
  if (dismiss) lab.clear_notices();
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
void toolbar(const LabView& v, LabControl& lab, PendingMove& move, bool with_nav) {
  const std::string& lang = v.lang();
  if (with_nav) {
    move.nav = ui::step_navigation({v.lesson, v.state->step, lang});
    ImGui::SameLine(0.0f, 24.0f);
  }
  ImGui::BeginDisabled(!v.edited);
  const bool reset = ImGui::Button(ui::text::reset_step.get(lang));
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", ui::text::reset_tip.get(lang));
  if (v.edited) ui::widgets_record_last("step:reset", "button");
  if (reset) lab.reset_step();
  if (v.embedded) return;  // the page's bar links to the full lab instead
  same_line_for(ui::text::share.get(lang));
  if (ImGui::Button(ui::text::share.get(lang)))
    lab.notify(std::string(ui::text::link_copied.get(lang)) + "#" + lab.share_link());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", ui::text::share_tip.get(lang));
  ui::widgets_record_last("step:share", "button");
  // A hand-set step or a trained model: its program, in the Code view above the panels.
  if (lab.has_code()) {
    same_line_for(ui::text::code.get(lang));
    const bool open = v.code_open;
    if (open) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::Button(ui::text::code.get(lang))) lab.code_view(!open, "");
    if (open) ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", ui::text::code_tip.get(lang));
    ui::widgets_record_last("step:code", "button");
  }
  if (!platform::running_in_browser()) return;  // an embed snippet names the page's address
  same_line_for(ui::text::embed.get(lang));
  if (ImGui::Button(ui::text::embed.get(lang)))
    lab.notify(std::string(ui::text::embed_copied.get(lang)) + lab.embed_snippet());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", ui::text::embed_tip.get(lang));
  ui::widgets_record_last("step:embed", "button");
}

void code_view(const LabView& v, LabControl& lab) {
  if (!v.code_open || !lab.has_code()) return;
  const std::string& code = lab.code();
  const bool trained = lab.code_trained();
  if (code.empty() && !trained) return;  // the values do not compute: the demo says why
  const bool copied = platform::now_ms() - v.code_copied_at < 4000.0;
  const ui::CodeAction a = ui::code_view({&code, v.code_lang, v.lang(), copied, trained ? &lab.code_weights() : nullptr});
  if (a.kind == ui::CodeAction::Kind::tab) lab.code_view(true, a.tab);
  if (a.kind == ui::CodeAction::Kind::copy) lab.copy_code(false);
  if (a.kind == ui::CodeAction::Kind::copy_weights) lab.copy_code(true);
  if (a.kind == ui::CodeAction::Kind::close) lab.code_view(false, "");
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
void touch(const LabView& v, FrameState& f, double now) {
  const bool finger = platform::pointer_is_touch();
  f.touched = f.touched || finger;
  ui::set_touch_targets(v.touch_screen || f.touched);
  // A mouse and keyboard in a browser type free text in the page's input (an
  // input method works there); a finger goes through the tap and Edit button below.
  ui::set_page_text_fields(platform::running_in_browser() && !v.touch_screen && !f.touched);
  const std::optional<NumberTap> tap = touch_update(f.gesture, finger, now);
  if (!tap || !v.inputs) return;
  // "text:<setting>": a line of tokens (the induction prompt); the page types it.
  if (tap->id.rfind("text:", 0) == 0) {
    const std::string setting = tap->id.substr(5);
    auto it = v.inputs->settings.find(setting);
    offer_text_field({setting, it == v.inputs->settings.end() ? std::string() : it->second, tap->x, tap->y, tap->w, tap->h}, false);
    return;
  }
  // "edit:<name>:<row>:<col>"; the page puts a text input over the number.
  const size_t c2 = tap->id.rfind(':'), c1 = c2 == std::string::npos ? c2 : tap->id.rfind(':', c2 - 1);
  if (tap->id.rfind("edit:", 0) != 0 || c1 == std::string::npos || c1 < 5) return;
  const std::string name = tap->id.substr(5, c1 - 5);
  long long row = 0, col = 0;
  auto it = v.inputs->mats.find(name);
  if (it == v.inputs->mats.end() || !attn::parse_whole_text(tap->id.substr(c1 + 1, c2 - c1 - 1), 0, it->second.rows() - 1, &row) ||
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

void experiment_controls(const LabView& v, LabControl& lab) {
  const attn::Experiment* ex = v.trainer.experiment;
  if (!ex) return;
  ui::TrainControlsView c;
  c.running = v.trainer.running;
  c.started = ex->progress() > 0 || ex->work_ms() > 0.0;
  c.finished = ex->done();
  c.progress = ex->progress();
  c.planned = ex->planned();
  c.speed = v.trainer.speed;
  c.lang = v.lang();
  c.starting = !v.trainer.ready && v.trainer.failed.empty();
  c.failed = v.trainer.failed;
  c.workers = v.trainer.workers;
  c.cores = v.trainer.cores;
  c.max_workers = platform::kMaxTrainerWorkers;
  const ui::TrainAction a = ui::train_controls(c);
  using K = ui::TrainAction::Kind;
  if (a.kind == K::run) lab.train("run");
  if (a.kind == K::pause) lab.train("pause");
  if (a.kind == K::step) lab.train("step");
  if (a.kind == K::reset) lab.train("reset");
  if (a.kind == K::speed) lab.train("speed", a.speed);
  if (a.kind == K::retry) lab.train("retry");
  if (a.kind == K::workers) lab.set_workers(a.workers);
}

// The step itself: its header, the experiment's controls, the Code view, the
// quizzes, the demo's panels and the exercises. The view is looked up again
// after each part that can change what the next one shows.
void step_body(LabControl& lab, bool list_in_page) {
  LabView v = lab.view();
  const bool prose = !platform::running_in_browser();
  // A narrow or medium page shows the titles in its words above or beside the canvas.
  if (!list_in_page) {
    ui::step_header({v.lesson, v.state->step, v.lang(), prose,
                     prose ? attn::shown_prose(*v.step, v.lang(), *v.quizzes) : std::string()});
    ImGui::Spacing();
  }
  experiment_controls(v, lab);
  code_view(lab.view(), lab);
  v = lab.view();
  const attn::LessonStep& step = *v.step;
  // Predict first: a quiz's hidden panels stay hidden until it is checked.
  std::vector<std::string> hidden;
  if (!step.quizzes.empty()) {
    const ui::QuizAction q = ui::quiz_panel({&step.quizzes, v.quizzes, v.lang()});
    if (q.kind == ui::QuizAction::Kind::pick) lab.quiz_pick(q.quiz, q.option);
    if (q.kind == ui::QuizAction::Kind::check) lab.quiz_check(q.quiz);
    v = lab.view();
    for (size_t i = 0; i < step.quizzes.size(); ++i)
      if (!(*v.quizzes)[i].checked) hidden.insert(hidden.end(), step.quizzes[i].hides.begin(), step.quizzes[i].hides.end());
  }
  if (!step.demo.empty()) {
    if (auto e = ui::demo_view({v.inputs, v.outputs, v.lang(), hidden})) {
      lab.apply_demo_edit(*e);
      v = lab.view();
    }
  }
  if (!step.exercises.empty()) {
    // Predict first, here too: the exercises wait until every quiz is checked.
    const bool open = attn::exercises_open(step, *v.quizzes);
    std::vector<attn::ExerciseStatus> status;
    if (open)
      for (const auto& ex : step.exercises) status.push_back(attn::check_exercise(ex, *v.inputs, *v.outputs));
    const ui::ExerciseAction a =
        ui::exercise_panel({&step.exercises, &status, v.hints, v.lang(), !open, step.quizzes.size()});
    if (a.kind == ui::ExerciseAction::Kind::show_hint) lab.show_hint(a.exercise);
    if (a.kind == ui::ExerciseAction::Kind::apply_solution) lab.apply_solution(a.exercise);
  }
}

}  // namespace

void lab_frame(LabControl& lab, FrameState& f) {
  ui::widgets_begin_frame();
  const double frame_start = platform::now_ms();
  if (f.last_frame_at > 0.0) {
    const double dt = frame_start - f.last_frame_at;
    f.frame_ms = f.frame_ms > 0.0 ? 0.9 * f.frame_ms + 0.1 * dt : dt;
  }
  f.last_frame_at = frame_start;
  const double compute_before = lab.compute_total_ms();
  lab.tick(frame_start, f.frames);
  const LabView v = lab.view();  // the step navigated to, and the lab as it is this frame
  touch(v, f, frame_start);
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  // In a narrow or medium page the lesson list is the page's drawer.
  const bool list_in_page = platform::running_in_browser() && (v.layout != "wide" || v.embedded);
  const float sidebar_w = list_in_page ? 0.0f : 270.0f;
  const ImGuiWindowFlags fixed = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                 ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoBringToFrontOnFocus;
  PendingMove move;
  if (!list_in_page) {
    ImGui::SetNextWindowPos(vp->WorkPos);
    ImGui::SetNextWindowSize(ImVec2(sidebar_w, vp->WorkSize.y));
    ImGui::Begin("Lessons", nullptr, fixed);
    sidebar(v, lab, move);
    ImGui::End();
  }

  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + sidebar_w, vp->WorkPos.y));
  ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x - sidebar_w, vp->WorkSize.y));
  ImGui::Begin("Lesson", nullptr, fixed);
  ui::error_panel(*v.errors, v.lang());
  notices(lab.view(), lab);
  if (v.step) {
    toolbar(lab.view(), lab, move, !list_in_page);
    ImGui::Separator();
    if (v.glyphs_pending) ImGui::TextWrapped("%s", ui::text::loading_glyphs.get(v.lang()));  // never boxes (lab_glyphs.h)
    else step_body(lab, list_in_page);
    lab_keyboard(lab.view(), lab, move.nav, move.lesson_delta);
  } else {
    ImGui::TextWrapped("%s", ui::text::no_lessons.get(v.lang()));
  }
  ImGui::End();
  // A change of place, now that the frame is drawn.
  if (move.lesson >= 0 && size_t(move.lesson) < v.lessons->size()) lab.go_to((*v.lessons)[size_t(move.lesson)].id, 0);
  if (move.lesson_delta != 0) lab.lesson_by(move.lesson_delta);
  if (move.nav == ui::Nav::next) lab.step_by(+1);
  if (move.nav == ui::Nav::back) lab.step_by(-1);
  const LabView after = lab.view();
  if (auto r = ui::take_page_text_request()) offer_text_field(*r, true);
  if (after.show_keys && ui::keys_help(after.lang())) lab.set_keys_shown(false);
  const double compute_ms = lab.compute_total_ms() - compute_before;
  if (after.overlay) ui::timing_overlay({f.frame_ms, f.compute_shown, f.ui_ms, attn::eigen_simd_in_use(), after.lang()});
  ui::widgets_end_frame();
  f.compute_shown = compute_ms;
  const double ui = platform::now_ms() - frame_start - compute_ms;
  f.ui_ms = f.ui_ms > 0.0 ? 0.9 * f.ui_ms + 0.1 * ui : ui;
  lab.save(250.0);
  // The page's mirror follows: a few times a second at most, every 2 s while training.
  // Starting, pausing or finishing is told at once.
  const bool run_changed = after.trainer.running != f.running_sent;
  if (run_changed || (after.revision != f.revision_sent &&
                      frame_start - f.revision_sent_at >= (after.trainer.running ? 2000.0 : 150.0))) {
    f.revision_sent = after.revision;
    f.running_sent = after.trainer.running;
    f.revision_sent_at = frame_start;
    platform::page_event("changed", "{}");
  }
  if (++f.frames == 1) platform::page_event("firstFrame", "{}");
}

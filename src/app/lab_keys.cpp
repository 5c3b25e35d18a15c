// lab_keys.cpp: the lab's own keys. ImGui's keyboard navigation does the rest
// (Tab between numbers and sliders, arrows between controls once one is focused,
// Space to press, Enter to type, Esc to leave); the keys panel lists both
// (ui::text::key_rows). Arrow and page keys only arrive here while no control has
// the keyboard (see platform::Key); letters and digits come as text, so a short
// tap is never lost, and are ignored while a number is being typed or dragged.
#include "app/lab_keys.h"

#include <imgui.h>

#include "app/lab_app.h"
#include "course/exercise.h"
#include "platform/platform.h"

namespace {

// The exercise H gives a hint for: the first one still open with hints left,
// else the first with hints left; -1 when none has any, or while the exercises
// wait for the step's quiz (attn::exercises_open).
int exercise_for_hint(const LabApp& app, const attn::LessonStep& step) {
  if (!attn::exercises_open(step, app.quizzes)) return -1;
  int fallback = -1;
  for (size_t i = 0; i < step.exercises.size() && i < app.hints_shown.size(); ++i) {
    if (app.hints_shown[i] >= int(step.exercises[i].hints.size())) continue;
    if (!attn::exercise_met(step.exercises[i], app.inputs, app.outputs)) return int(i);
    if (fallback < 0) fallback = int(i);
  }
  return fallback;
}

// The quiz that digits and C answer: the first one not yet checked (-1 = none).
int open_quiz(const LabApp& app) {
  for (size_t i = 0; i < app.quizzes.size(); ++i)
    if (!app.quizzes[i].checked) return int(i);
  return -1;
}

void step_lesson(LabApp& app, int delta) {
  const int next = app.lesson + delta;
  if (next >= 0 && next < int(app.set.lessons.size())) lab_goto(app, app.set.lessons[size_t(next)].id, 0);
}

}  // namespace

void lab_keyboard(LabApp& app, ui::Nav& nav) {
  using platform::Key;
  if (platform::key_presses(Key::f1) % 2) app.show_keys = !app.show_keys;
  if (platform::key_presses(Key::escape) > 0) {
    app.show_keys = false;
    app.notices.clear();
  }
  // The embed view shows one step: the keys that leave it do nothing there.
  if (!app.embedded) {
    if (platform::key_presses(Key::right) > 0) nav = ui::Nav::next;
    if (platform::key_presses(Key::left) > 0) nav = ui::Nav::back;
    if (platform::key_presses(Key::page_down) > 0) step_lesson(app, +1);
    if (platform::key_presses(Key::page_up) > 0) step_lesson(app, -1);
  }

  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || ImGui::IsAnyItemActive() || io.KeyCtrl || io.KeyAlt) return;
  const attn::LessonStep* step =
      app.set.lessons.empty() ? nullptr : &app.set.lessons[size_t(app.lesson)].steps[size_t(app.state.step)];
  for (const ImWchar c : io.InputQueueCharacters) {
    if (c == '?') app.show_keys = !app.show_keys;
    if (c == 't' || c == 'T') app.overlay = !app.overlay;
    // A live experiment: Space starts or pauses it (unless a focused control
    // takes the Space), '.' takes one step, X starts it again.
    if (app.experiment) {
      if (c == ' ' && !ImGui::IsAnyItemFocused()) lab_train(app, app.running ? "pause" : "run");
      if (c == '.') lab_train(app, "step");
      if (c == 'x' || c == 'X') lab_train(app, "reset");
    }
    if (c == 'r' || c == 'R') lab_reset_step(app);
    if (c == 'l' || c == 'L') lab_set_language(app, app.state.lang == "zh" ? "en" : "zh");
    if (!step) continue;
    if (c == 'h' || c == 'H') lab_show_hint(app, exercise_for_hint(app, *step));
    if (c >= '1' && c <= '9') lab_quiz_pick(app, open_quiz(app), int(c - '1'));
    if (c == 'c' || c == 'C') lab_quiz_check(app, open_quiz(app));
  }
}

// lab_keys.cpp: the lab's own keys. ImGui's keyboard navigation does the rest
// (Tab between numbers and sliders, arrows between controls once one is focused,
// Space to press, Enter to type, Esc to leave); the keys panel lists both
// (ui::text::key_rows). Arrow and page keys only arrive here while no control has
// the keyboard (see platform::Key); letters and digits come as text, so a short
// tap is never lost, and are ignored while a number is being typed or dragged.
#include "app/lab_keys.h"

#include <imgui.h>

#include "course/exercise.h"
#include "platform/platform.h"

namespace {

// The exercise H gives a hint for: the first one still open with hints left,
// else the first with hints left; -1 when none has any, or while the exercises
// wait for the step's quiz (attn::exercises_open).
int exercise_for_hint(const LabView& v) {
  const attn::LessonStep& step = *v.step;
  if (!attn::exercises_open(step, *v.quizzes)) return -1;
  int fallback = -1;
  for (size_t i = 0; i < step.exercises.size() && i < v.hints->size(); ++i) {
    if ((*v.hints)[i] >= int(step.exercises[i].hints.size())) continue;
    if (!attn::exercise_met(step.exercises[i], *v.inputs, *v.outputs)) return int(i);
    if (fallback < 0) fallback = int(i);
  }
  return fallback;
}

// The quiz that digits and C answer: the first one not yet checked (-1 = none).
int open_quiz(const LabView& v) {
  for (size_t i = 0; i < v.quizzes->size(); ++i)
    if (!(*v.quizzes)[i].checked) return int(i);
  return -1;
}

}  // namespace

void lab_keyboard(const LabView& view, LabControl& lab, ui::Nav& nav, int& lesson_delta) {
  using platform::Key;
  if (platform::key_presses(Key::f1) % 2) lab.set_keys_shown(!view.show_keys);
  if (platform::key_presses(Key::escape) > 0) {
    lab.set_keys_shown(false);
    lab.clear_notices();
  }
  // The embed view shows one step: the keys that leave it do nothing there.
  if (!view.embedded) {
    if (platform::key_presses(Key::right) > 0) nav = ui::Nav::next;
    if (platform::key_presses(Key::left) > 0) nav = ui::Nav::back;
    if (platform::key_presses(Key::page_down) > 0) lesson_delta = +1;
    if (platform::key_presses(Key::page_up) > 0) lesson_delta = -1;
  }

  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || ImGui::IsAnyItemActive() || io.KeyCtrl || io.KeyAlt) return;
  for (const ImWchar c : io.InputQueueCharacters) {
    // Each key acts on the lab as the one before it left it.
    const LabView v = lab.view();
    if (c == '?') lab.set_keys_shown(!v.show_keys);
    if (c == 't' || c == 'T') lab.set_overlay(!v.overlay);
    // A live experiment: Space starts or pauses it (unless a focused control
    // takes the Space), '.' takes one step, X starts it again.
    if (v.trainer.experiment) {
      if (c == ' ' && !ImGui::IsAnyItemFocused()) lab.train(v.trainer.running ? "pause" : "run");
      if (c == '.') lab.train("step");
      if (c == 'x' || c == 'X') lab.train("reset");
    }
    if (c == 'r' || c == 'R') lab.reset_step();
    if (c == 'l' || c == 'L') lab.set_language(v.lang() == "zh" ? "en" : "zh");
    if (!v.step) continue;
    if (c == 'h' || c == 'H') lab.show_hint(exercise_for_hint(v));
    if (c >= '1' && c <= '9') lab.quiz_pick(open_quiz(v), int(c - '1'));
    if (c == 'c' || c == 'C') lab.quiz_check(open_quiz(v));
  }
}

// lab_app_internal.h: what the three files of the running lab share (lab_app.cpp:
// state and changes; lab_frame.cpp: the frame; lab_page.cpp: the page's
// questions). Not for use outside src/app.
#pragma once

#include <string>

#include "app/lab_app.h"

// The step shown (null with no lessons), and its key "lesson/step-id".
const attn::LessonStep* lab_current_step(const LabApp& app);
std::string lab_current_key(const LabApp& app);
// Recomputes the step's outputs from its inputs (or the live experiment's view).
void lab_recompute(LabApp& app);

// The budget steering the current speed; none for "slow" (one unit a frame).
template <typename App>  // LabApp or const LabApp
auto lab_speed_budget(App& app) -> decltype(&app.budget_normal) {
  if (app.speed == "slow") return nullptr;
  return app.speed == "fast" ? &app.budget_fast : &app.budget_normal;
}

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

// The training client (made, with its worker, on first use).
attn::TrainerClient& lab_trainer(LabApp& app);
// A new training worker after one failed: every experiment starts again
// (the learner's saved state is untouched).
void lab_trainer_retry(LabApp& app);
// The corpus the step's experiment reads (train_lm's text) is at hand: always
// natively; in the page once fetched and handed to both copies. While it loads,
// or after it failed, false, with a note about it put first in app.outputs.
bool lab_text_ready(LabApp& app, const attn::LessonStep& step);

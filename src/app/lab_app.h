// lab_app.h: the running lab: loaded lessons, where the learner is, their current
// values and the outputs computed from them. One value; the UI reads it, and every
// change goes through the lab_* functions below.
#pragma once

#include <string>
#include <vector>

#include "core/demos.h"
#include "core/json.h"
#include "core/lesson.h"
#include "ui/panels.h"

struct LabApp {
  attn::LessonSet set;
  int lesson = 0;
  int step = 0;
  std::string lang = "en";
  attn::DemoInputs inputs;    // the learner's current values for this step
  attn::DemoOutputs outputs;  // recomputed from inputs every frame
  std::vector<std::string> errors;  // reported to the learner and to errors()
  double compute_ms = 0.0;    // last demo compute time
  long frames = 0;
};

// Loads the embedded lessons (or, when lesson_dir is set, the files there, so
// authors see edits without rebuilding). Load errors go to app.errors.
void lab_init(LabApp& app, const std::string& lesson_dir = "");

// Adds or replaces one lesson from text at run time (used by tests and authors).
// Returns false and records the problems in app.errors when it does not load.
bool lab_load_lesson_text(LabApp& app, const std::string& file, const std::string& text);

// Moves to a lesson (by id) and step; returns false when either does not exist.
bool lab_goto(LabApp& app, const std::string& lesson_id, int step);
void lab_step_by(LabApp& app, int delta);
void lab_apply_edit(LabApp& app, const ui::CellEdit& edit);

// Draws one frame of the whole interface (called by the platform loop).
bool lab_frame(void* app);

// JSON views of the lab for tests and tools.
attn::json::Value lab_lessons_json(const LabApp& app);
attn::json::Value lab_state_json(const LabApp& app);
attn::json::Value lab_widgets_json();
attn::json::Value lab_errors_json(const LabApp& app);

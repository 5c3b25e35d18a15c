// lab_mirror.h: the current step as the page's readable mirror needs it
// (lab_mirror.cpp), read from the lab's view (lab_view.h).
#pragma once

#include "app/lab_view.h"
#include "base/json.h"

// The step's words, panels, quizzes, exercises, Code view and training, as JSON.
attn::json::Value lab_mirror_json(const LabView& v, LabControl& lab);

// lab_keys.h: the lab's own keys (lab_keys.cpp), read once per frame after the
// panels, through the lab's view and calls (lab_view.h).
#pragma once

#include "app/lab_view.h"
#include "ui/panels.h"

// Reads this frame's keys and acts on them through `lab`. A key that changes the
// step or the lesson sets `nav` or `lesson_delta`, which the frame applies once
// it is drawn.
void lab_keyboard(const LabView& v, LabControl& lab, ui::Nav& nav, int& lesson_delta);

// lab_keys.h: the lab's own keys (lab_keys.cpp), read once per frame after the
// panels. Key handling reaches the app only through app/lab_app.h; the app calls
// this one function, so the two files no longer include each other's internals.
#pragma once

#include "ui/panels.h"

struct LabApp;

// Reads this frame's keys and acts on them through the lab_* functions; `nav`
// is the step navigation the panels asked for, which a key may set.
void lab_keyboard(LabApp& app, ui::Nav& nav);

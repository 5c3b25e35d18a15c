// lab_saved.h: the learner's state in the browser's storage (or a file
// natively, platform.h): restored at start, and written when it changed.
#pragma once

#include <string>
#include <vector>

#include "course/lab_state.h"

// Reads the saved state into *state, keeping what is good. A state that does not
// load whole is kept aside under a key of its own (never overwritten), and what
// was dropped is said in *notices; with nothing saved, *state stays as it is.
void restore_saved_state(attn::LabState* state, std::vector<std::string>* notices);
// Writes the state; false when the storage refused it (it is tried again later).
bool save_state(const attn::LabState& state);

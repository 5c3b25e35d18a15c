// lab_page.h: the page bridge (lab_page.cpp): JSON views of the lab for
// window.attnlab and tools, and the answers to its questions, each argument
// checked before it reaches the lab. It sees the lab through lab_view.h only.
#pragma once

#include <string>

#include "app/lab_frame.h"
#include "app/lab_view.h"
#include "base/json.h"

// The current step's words, for the page's readable copy beside the canvas (and
// the "step" event the page gets when they change).
attn::json::Value lab_prose_json(const LabView& v);

// The checks on what the page's own inputs hand over, before anything changes:
// a choice or slider the step shows, set to a value it offers (and that the
// demo's own checks pass: a refused value never replaces the learner's settings
// nor restarts a trained model); a number typed into matrix `name` at (row,
// col), read as a decimal and kept within the editor's range (*value). "" when
// it may go ahead, else why not, in the learner's language.
std::string check_page_setting(const LabView& v, const std::string& name, const std::string& value);
std::string check_typed_number(const LabView& v, const std::string& name, int row, int col, const std::string& text,
                               float* value);

// Answers window.attnlab's question `name` with its JSON argument `arg` (see
// platform::set_page_query_handler): a JSON value, or "unknown question".
// `frame` is read for the frame's timing.
std::string lab_page_answer(const std::string& name, const std::string& arg, LabControl& lab, const FrameState& frame);

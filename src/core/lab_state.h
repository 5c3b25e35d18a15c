// lab_state.h: everything about a learner that outlives a page load, as one value:
// language, where they are, how far they got, and the numbers they changed. It is
// saved (browser storage or a file), restored, and put in share links.
//
// Sections: 1 the value, 2 saving and restoring, 3 links (deep links and shares).
#pragma once

#include <map>
#include <string>

#include "core/demos.h"
#include "core/json.h"
#include "core/lesson.h"

namespace attn {

// ---------------------------------------------------------------- 1 the value
// The learner's changes to one step: only what differs from the lesson's values.
struct StepEdits {
  std::map<std::string, Mat> mats;              // whole matrices, by name
  std::map<std::string, std::string> settings;  // by name
  bool empty() const { return mats.empty() && settings.empty(); }
};

struct LabState {
  std::string lang = "en";
  std::string lesson;  // current lesson id ("" = the first lesson)
  int step = 0;
  std::map<std::string, int> furthest;      // lesson id -> furthest step index reached
  std::map<std::string, StepEdits> edits;   // "lesson-id/step-id" -> the learner's changes
};

// Key of a step in LabState::edits.
std::string step_key(const std::string& lesson_id, const std::string& step_id);

// The inputs a learner sees on a step: the lesson's values with their edits applied.
// Edits that no longer fit the lesson (a matrix whose shape changed, a name that is
// gone) are skipped, so an updated lesson never breaks on old saved state.
DemoInputs inputs_with_edits(const LessonStep& step, const StepEdits* edits);

// What differs between a step's defaults and `current`, as StepEdits.
StepEdits edits_from_inputs(const LessonStep& step, const DemoInputs& current);

// ---------------------------------------------------------------- 2 saving and restoring
constexpr int kLabStateVersion = 1;
constexpr std::size_t kMaxSavedStateBytes = 1u << 20;  // refuse to load more than 1 MiB

json::Value lab_state_to_json(const LabState& state);
// Reads saved state. Anything malformed (wrong types, non-finite numbers, unknown
// version, too large) makes it return false with *why set; *out is then untouched.
bool lab_state_from_json(const json::Value& v, LabState* out, std::string* why);
bool lab_state_from_text(const std::string& text, LabState* out, std::string* why);

// Makes a loaded state fit the lessons at hand: unknown lessons and steps are
// dropped from `lesson`/`step`/`furthest` (edits are kept, they may fit later).
void lab_state_fit(LabState* state, const std::vector<Lesson>& lessons);

// ---------------------------------------------------------------- 3 links
// The URL fragment for a place, and optionally the learner's edits there:
//   "first-look/2"                      (1-based step, as people count)
//   "first-look/2/v1.<base64url JSON>"  (with edits: a share link)
std::string make_link(const std::string& lesson_id, int step, const StepEdits* edits);

struct ParsedLink {
  std::string lesson;  // empty when the fragment names nothing
  int step = 0;        // 0-based
  bool has_edits = false;
  StepEdits edits;
};
constexpr std::size_t kMaxLinkBytes = 4096;
// Parses a fragment (with or without the leading '#'). Returns false with *why for
// anything malformed, oversized or of an unknown version.
bool parse_link(const std::string& fragment, ParsedLink* out, std::string* why);

}  // namespace attn

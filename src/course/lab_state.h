// lab_state.h: everything about a learner that outlives a page load, as one value:
// language, where they are, how far they got, the numbers they changed, and the
// hints and quiz answers they revealed. It is saved (browser storage or a file),
// restored, and (the numbers only) put in share links (links.h).
//
// Sections: 1 the value, 2 saving and restoring.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/json.h"
#include "course/demo_api.h"
#include "course/lesson.h"

namespace attn {

// ---------------------------------------------------------------- 1 the value
// The learner's changes to one step: only what differs from the lesson's values.
struct StepEdits {
  std::map<std::string, Mat> mats;              // whole matrices, by name
  std::map<std::string, std::string> settings;  // by name
  bool empty() const { return mats.empty() && settings.empty(); }
};

// What the learner did with a step's exercises and quizzes. Kept by exercise and
// quiz id, not position, so a lesson that gains or reorders them keeps each answer.
struct QuizAnswer {
  int picked = -1;       // option index chosen, -1 = none yet
  bool checked = false;  // the answer was revealed (the options are then locked)
  bool operator==(const QuizAnswer& o) const { return picked == o.picked && checked == o.checked; }
};
struct StepAnswers {
  std::map<std::string, int> hints;           // exercise id -> hints revealed (> 0)
  std::map<std::string, QuizAnswer> quizzes;  // quiz id -> answer (picked or checked)
  bool empty() const { return hints.empty() && quizzes.empty(); }
};

struct LabState {
  std::string lang = "en";
  std::string lesson;  // current lesson id ("" = the first lesson)
  int step = 0;
  std::map<std::string, int> furthest;      // lesson id -> furthest step index reached
  // The lesson layout (lesson.h) that `step`, `furthest` and the quiz answers'
  // option positions refer to. A state saved before layouts were recorded is
  // layout 1; lab_state_fit brings it to kLessonLayout.
  int layout = kLessonLayout;
  std::map<std::string, StepEdits> edits;   // "lesson-id/step-id" -> the learner's changes
  std::map<std::string, StepAnswers> answers;  // "lesson-id/step-id" -> hints and quiz answers
};

// Key of a step in LabState::edits.
std::string step_key(const std::string& lesson_id, const std::string& step_id);

// The inputs a learner sees on a step: the lesson's values (`defaults`, what the
// demos give for the step: DemoCatalog::defaults) with their edits applied.
// Edits that no longer fit the lesson (a matrix whose shape changed, a name that is
// gone) are skipped, so an updated lesson never breaks on old saved state; their
// names are added to *ignored (when given) so a link can say its values were ignored.
DemoInputs inputs_with_edits(const DemoInputs& defaults, const StepEdits* edits,
                             std::vector<std::string>* ignored = nullptr);

// What differs between a step's defaults and `current`, as StepEdits.
StepEdits edits_from_inputs(const DemoInputs& defaults, const DemoInputs& current);

// Edits and languages. A step's defaults may differ by language (params_for in
// lesson.h: the language model's first steps train a Chinese reader's model on
// the poems), and its saved edits are what differed from the defaults of the
// language the learner last edited it in. When the learner switches language, the
// step is entered again with the new language's defaults and those edits over them
// (inputs_with_edits: the edits that still fit), and a live model computed from
// the other language's values starts again. These are the steps (their keys,
// step_key) whose inputs so differ between a reader of `from` and one of `to`;
// every other step keeps what it computed.
std::vector<std::string> steps_changed_by_language(const std::vector<Lesson>& lessons, const LabState& state,
                                                   const std::string& from, const std::string& to,
                                                   const DemoCatalog& demos);

// A step's hints revealed (one count per exercise) and quiz answers (one per quiz),
// in the step's order. Saved answers that no longer fit the step read as less, never
// as more: a count above the exercise's hints is capped, an option that is gone is
// unpicked, and a quiz is only checked with a valid pick.
std::vector<int> hints_for_step(const LessonStep& step, const StepAnswers* answers);
std::vector<QuizAnswer> quizzes_for_step(const LessonStep& step, const StepAnswers* answers);
// The reverse: StepAnswers holding what differs from a fresh step (nothing revealed).
StepAnswers answers_from_step(const LessonStep& step, const std::vector<int>& hints,
                              const std::vector<QuizAnswer>& quizzes);
// The step's prose as the learner sees it now: its text, then the `after` text of
// each quiz already checked, then (on a lesson's last step) its sources under a
// heading (paragraphs separated by '\n'). What would give a quiz's answer away
// waits in its `after` until the quiz is checked. The canvas, the page's text and
// what a screen reader reads all show this.
std::string shown_prose(const LessonStep& step, const std::string& lang, const std::vector<QuizAnswer>& quizzes);
// The heading shown above a lesson's sources.
const char* sources_heading(const std::string& lang);
// Predict first: a step's exercises open only once every quiz of the step is
// checked. Until then their goals, conditions and live values (which often name
// what a quiz hides: "weights[cats, mice] > 0.6 (now 0.374)") are not shown: the
// canvas, the page's readable mirror and the H key all follow this. A step
// without quizzes has its exercises open from the start.
bool exercises_open(const LessonStep& step, const std::vector<QuizAnswer>& quizzes);

// ---------------------------------------------------------------- 2 saving and restoring
// Version 2 added `answers`; version 3 added `layout` (versions 1 and 2, without
// it, are layout 1). Every version still loads.
constexpr int kLabStateVersion = 3;
constexpr std::size_t kMaxSavedStateBytes = 1u << 20;  // refuse to load more than 1 MiB

json::Value lab_state_to_json(const LabState& state);
// One step's edits as JSON ({"m": {name: matrix}, "s": {name: text}}; what a share
// link carries), and back: false with *why for anything malformed or oversized.
json::Value edits_to_json(const StepEdits& e);
bool edits_from_json(const json::Value& v, StepEdits* out, std::string* why);
// Reads saved state, keeping what is good and dropping only what is bad. A state
// that cannot be read at all (not JSON, not an object, an unknown version, larger
// than 1 MiB) makes it return false with *why set; *out is then untouched. Within
// a readable state, one bad field (wrong type, a number beyond float range or not
// a small whole number, an oversized matrix) loses only itself: a bad step's edits
// or answers, one progress entry, the language (back to "en") or the place (back
// to the start). Each loss is described in *dropped (when given), naming the field
// or the step, e.g. "edits for 'first-look/scores': matrix 'q': ...".
bool lab_state_from_json(const json::Value& v, LabState* out, std::string* why,
                         std::vector<std::string>* dropped = nullptr);
bool lab_state_from_text(const std::string& text, LabState* out, std::string* why,
                         std::vector<std::string>* dropped = nullptr);

// The storage key for a copy of a saved state that did not load whole:
// "state-unreadable", else "state-unreadable-2" up to "-5", the first that
// `exists` says is free; "" when all are taken. Earlier copies are never
// overwritten, so the first failure's text survives later ones.
std::string unreadable_copy_key(const std::function<bool(const std::string& key)>& exists);

// Makes a loaded state fit the lessons at hand. A state of an earlier layout is
// moved to the current one first: its place and progress to where those steps
// are now, its quiz answers to the same options (layout-N-steps and
// layout-N-options in the lesson files). The hints and answers of an exercise or
// quiz that moved to another step of its lesson follow it there (ids are unique
// within a lesson). Then unknown lessons and steps are dropped from
// `lesson`/`step`/`furthest` (edits are kept, they may fit later).
void lab_state_fit(LabState* state, const std::vector<Lesson>& lessons);

}  // namespace attn

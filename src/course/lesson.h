// lesson.h: the lesson data model and its parser. The main header of the course room.
//
// The course room (src/course, library attn_course) holds the course itself: the
// lesson parser and its text rules (lesson.cpp, lesson_text.cpp), checking a lesson
// and loading the index (lesson_load.cpp), exercises and quizzes (exercise.h), the
// learner's saved state (lab_state.h) and links (links.h), and the interface
// through which it knows demos (demo_api.h). It may include base only: it knows
// no demo, experiment, model or maths; whoever loads lessons hands it a
// DemoCatalog (src/lab/catalog.h gives the lab's).
//
// Where things go:
//   - a new lesson: a .lesson file in lessons/, listed in lessons/index.txt (data,
//     not code; the format is lessons/README.md);
//   - a new demo: src/demos (a hand-set demo) or src/experiments (a trained one),
//     never here;
//   - a new kind of exercise check or quiz rule: exercise.h; a new field of the
//     learner's state: lab_state.h (and its version).
//
// Lessons are data (lessons/*.lesson, listed in order by lessons/index.txt and
// embedded at build time). The format is described in lessons/README.md; in short:
//
//   lesson: first-look                 <- first key of a file: the lesson id
//   title: A query meets three keys    <- English text; "title.zh:" for Chinese
//
//   step: scores                       <- starts a step
//   title: Score, normalise, sum
//   demo: qkv_basic                    <- which live demo the step shows
//   tokens: I | love | China           <- demo parameters: text, numbers or
//   q: [[1, 0], [0, 1], [1, 1]]        <- matrices written as arrays of rows
//   score.zh: cosine                   <- a parameter for one language's readers
//                                         (the plain one is every other's)
//   text:                              <- prose block: the indented lines below
//     Each token has a query ...
//   exercise: / quiz:                  <- a goal or a question (see exercise.h)
//
// Every problem is reported with the file and line, and a broken lesson never
// stops the others from loading.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/tensor.h"
#include "course/demo_api.h"
#include "course/exercise.h"
#include "course/local_text.h"

namespace attn {

// Lesson layouts. A learner's saved progress and old links name steps by their
// position, and saved quiz answers name options by position. Each time lessons
// are rearranged (steps split or moved, options reordered) the layout number goes
// up, and the lesson files record where the places of earlier layouts went
// (`layout-1-steps:` in a lesson, `layout-1-options:` in a quiz): saved state
// records its layout, and lab_state_fit moves it to the current one. Links are
// written with step ids since layout 2; a link with a step number is from layout 1.
//   1: the lessons up to commit 4fc1bf1 (issue 15)
//   2: issue 22 (steps split, quiz options reordered, links by step id), up to 9b3fcce
//   3: issue 22's second pass (quiz options reordered again; no step moved), up to 1e080ec
//   4: the lessons' second pass, item 6 (new steps: encoder-decoder/by-hand,
//      uses/retrieval, uses/crf), up to d13a65a
//   5: the lessons' third pass, issue 38 (steps split to keep each under 300
//      words with its after-texts, quiz options reordered, quizzes and
//      exercises replaced)
constexpr int kLessonLayout = 5;

struct LessonStep {
  std::string id;
  int line = 0;
  LocalText title;
  LocalText text;  // prose, paragraphs separated by blank lines
  std::string demo;
  LessonParams params;  // every other key of the step: the values for every language
  // Parameters given for one language ("corpus.zh: chinese"): language -> the
  // values its readers get in place of those in `params` (params_for).
  std::map<std::string, LessonParams> local_params;
  std::vector<Exercise> exercises;  // goals checked live (exercise.h)
  std::vector<Quiz> quizzes;        // predict, then reveal (exercise.h)
  // The papers the lesson draws on ("source:" lines), on its last step only: they
  // are shown after that step's prose (shown_prose in lab_state.h).
  std::vector<LocalText> sources;
};

struct Lesson {
  std::string id;
  std::string file;  // e.g. "first_look.lesson"
  LocalText title;
  std::vector<LessonStep> steps;
  // Where the steps of an earlier layout are now: layout -> for each step it had
  // then, its id now ("" when it is gone). A layout not listed had the steps of
  // today at the same positions (or the lesson did not exist yet).
  std::map<int, std::vector<std::string>> old_steps;
};

// A step's demo parameters for a reader of `lang`: `params`, with that language's
// own values (local_params) in their place. The course asks the demos for a step's
// starting inputs with these (DemoCatalog::defaults), so its reader meets the
// demo in their own language: the language model's first steps train a Chinese
// reader's model on the Tang poems. The DemoCatalog itself knows no language.
LessonParams params_for(const LessonStep& step, const std::string& lang);
// "en", then every other language with parameters, an exercise check or a
// solution of its own on this step, in order: the languages whose readers compute
// something else here (the loader checks the step for each).
std::vector<std::string> step_languages(const LessonStep& step);
// The step as a reader of `lang` meets it: params_for(step, lang) as its
// parameters and each exercise's check and solution in that language
// (exercise_for); `local_params` and each exercise's `local` are then empty.
LessonStep step_in_language(const LessonStep& step, const std::string& lang);

// The current index of the step at `position` (0-based) of the lesson as it was in
// `layout`; -1 when that step is gone or never existed.
int step_from_layout(const Lesson& lesson, int layout, int position);
// The index of the step with this id; -1 if there is none.
int step_index(const Lesson& lesson, std::string_view step_id);
// The lesson with this id; null if there is none.
const Lesson* find_lesson(const std::vector<Lesson>& lessons, std::string_view id);

struct LessonError {
  std::string file;
  int line = 0;  // 0 when the problem is with the file as a whole
  std::string message;
  std::string to_string() const;  // "lessons/file.lesson:12: message"
};

// Whether two wrapped lines of one paragraph join with no space between them: when
// the first ends and the next starts with Chinese (a Han character or a full-width
// mark such as ，。（), or when either side is a full-width mark. Latin text and
// digits next to a Han character keep their space ("使用 softmax"). Curly quotes,
// dashes and the ellipsis take the script of the character they are attached to:
// a line ending “甜的东西” joins the next Chinese line directly, one ending
// “cats” keeps its space.
bool joins_without_space(std::string_view line_end, std::string_view next_line);

// The largest matrix a lesson (and so a learner's edit of it) may hold, per side.
constexpr int kMaxMatrixDim = 64;

// Parses a matrix written as "[[1, 2], [3, 4]]" or one row "[1, 2]": rectangular,
// at most kMaxMatrixDim x kMaxMatrixDim, finite numbers of magnitude at most 1e6. On failure sets `why`.
bool parse_matrix_value(std::string_view s, Mat& out, std::string& why);

// The largest lesson file read (the biggest shipped lesson is about 40 KB).
constexpr std::size_t kMaxLessonBytes = 1u << 20;
// Parses one lesson file. On failure returns false and appends to `errors`
// (the lesson is then not usable; the caller keeps going with the others).
bool parse_lesson(std::string_view file, std::string_view text, Lesson& out,
                  std::vector<LessonError>& errors);

// Checks a parsed lesson's steps against the demos (known demo, required
// parameters present, shapes consistent, exercises and quizzes that name what
// the demo computes), in every language of each step (step_languages): each
// language's parameters must be valid, and its checks and solutions must name
// what the demo computes from them. Appends to `errors`; returns true if clean.
bool validate_lesson(const Lesson& lesson, const DemoCatalog& demos, std::vector<LessonError>& errors);

struct LessonSet {
  std::vector<Lesson> lessons;      // those that loaded, in index order
  std::vector<LessonError> errors;  // everything that went wrong
};

// A file source: returns the file's text, or false when it does not exist.
using ReadFileFn = bool (*)(std::string_view name, std::string& out, void* user);

// A link to a step written in prose, "[the step's title](#lesson-id/step-id)". The
// page's text shows the words as a link to the step (web/lab.js); the canvas shows
// the words alone. A step number instead of an id ("#focus/3", counted from 1) is
// read too: it names a step of layout 1 (see kLessonLayout).
struct StepLink {
  size_t begin = 0, end = 0;  // where the whole "[...](#...)" is in the text
  std::string words;          // what is shown
  std::string lesson;         // lesson id
  std::string step_id;        // the step's id, or "" when it is named by number
  int step = 0;               // 1-based, when named by number (else 0)
};
std::vector<StepLink> step_links(std::string_view text);
// The text with every step link replaced by its words.
std::string link_words_only(std::string_view text);

// Reads index.txt and every lesson it names through `read`, parsing and validating each.
LessonSet load_lessons(ReadFileFn read, void* user, const DemoCatalog& demos);

}  // namespace attn

// exercise.h: exercises and "predict, then reveal" quizzes of a lesson step.
//
// Both are written in the lesson files (format: lessons/README.md, section
// "Exercises and quizzes") and belong to the step they follow.
//
//   exercise: cats-to-mice                    <- id, unique within the step
//   goal: Make "cats" put most weight on "mice".      (goal.zh: ...)
//   check: weights[cats, mice] > 0.6          <- checked live by the core
//   hint: Turn the first query towards k_mice.        (hint.zh: ...; repeatable)
//   solution: q[cats] = [0.8, 0.6]            <- stored answer, tested to work
//   check.zh: / solution.zh:                  <- where the step's demo parameters
//                                                differ by language ("corpus.zh:"):
//                                                the Chinese reader's own (optional)
//
//   quiz: sharper                             <- id, unique within the step
//   question: What happens to the weights if every score doubles?
//   option: They stay the same                (option.zh: ...; 2 or more)
//   option: The largest weight grows
//   answer: 2                                 <- 1-based in the file
//   explain: Softmax depends on differences...        (explain.zh: ...)
//   hides: weights, output                    <- panels kept hidden until answered
//
// A matrix cell is written name[row, col]; row and col are 0-based indices or
// the labels the demo's panels show for that matrix ("weights[cats, mice]",
// "q[0, d2]"). A 1 x 1 matrix may be written by name alone ("dot").
//
// Sections: 1 data, 2 live checks, 3 solutions, 4 parsing (used by lesson.cpp).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/tensor.h"
#include "course/local_text.h"

namespace attn {

struct DemoInputs;
struct DemoOutputs;

// ---------------------------------------------------------------- 1 data
// One number in a check: a literal, or a cell of a matrix of the demo (an input
// in DemoInputs::mats, else an output in DemoOutputs::mats).
struct Operand {
  bool is_number = true;
  float number = 0.0f;     // is_number
  std::string matrix;      // !is_number: e.g. "weights"
  std::string row, col;    // as written: index or label; both empty = the 1x1 matrix itself
  std::string text;        // as written, e.g. "weights[cats, mice]"
};

enum class CompareOp { less, less_equal, greater, greater_equal };

// lhs op rhs, e.g. weights[cats, mice] > 0.6
struct Condition {
  Operand lhs;
  CompareOp op = CompareOp::greater;
  Operand rhs;
  std::string text;  // as written
};

// One change the stored solution makes to a step's inputs.
struct Assignment {
  enum class Kind {
    cell,     // q[cats, d2] = 0.5
    row,      // q[cats] = [0.8, 0.6]      (a whole row)
    matrix,   // w_q = [[1, 0], [0, 1]]    (the whole matrix, same shape)
    setting   // score = cosine            (a setting, by its text value)
  };
  Kind kind = Kind::cell;
  std::string target;    // matrix or setting name
  std::string row, col;  // cell: both; row: row only (index or label)
  Mat value;             // cell (1, 1); row (1, cols); matrix (rows, cols)
  std::string text;      // setting: the new value; other kinds: the assignment as written
};

struct Exercise {
  std::string id;
  int line = 0;
  LocalText goal;                 // what to achieve, in the learner's words
  std::vector<LocalText> hints;   // in order; show them one at a time on request
  std::vector<Condition> check;   // every condition must hold ("and")
  std::string check_text;         // as written
  std::vector<Assignment> solution;
  std::string solution_text;      // as written
  // A language's own check or solution ("check.zh:", "solution.zh:"), for a step
  // whose demo parameters differ by language (lesson.h, params_for): its reader
  // computes another model, so the goal is checked and solved on that one. An
  // empty text means the one above.
  struct Local {
    std::vector<Condition> check;
    std::string check_text;
    std::vector<Assignment> solution;
    std::string solution_text;
  };
  std::map<std::string, Local> local;  // language -> its own check and solution
};

// The exercise as a reader of `lang` meets it: that language's check and solution
// in place of the defaults where it has its own (`local` is then empty).
Exercise exercise_for(const Exercise& ex, const std::string& lang);

// A quiz has at most this many options (and so an answer from 1 to this).
constexpr int kMaxQuizOptions = 100;

struct Quiz {
  std::string id;
  int line = 0;
  LocalText question;
  std::vector<LocalText> options;  // at least 2, at most kMaxQuizOptions
  int answer = 0;                  // index into options, 0-based
  LocalText explanation;           // shown once the learner has picked, right or wrong
  LocalText after;                 // more of the step's prose, shown only once the quiz is
                                   // checked: what would give the answer away (may be empty)
  std::vector<std::string> hides;  // ids of the step's panels to keep hidden until
                                   // the learner has answered (may be empty)
  // Where the options of an earlier lesson layout are now (lesson.h, kLessonLayout):
  // layout -> for each option the quiz had then, its index now (-1: gone). A saved
  // answer names its option by position; this keeps an old answer on its option.
  std::map<int, std::vector<int>> old_options;
};

// ---------------------------------------------------------------- 2 live checks
struct ConditionStatus {
  float lhs = 0.0f, rhs = 0.0f;  // current values of both sides
  bool met = false;
  bool pending = false;          // names a cell a live experiment has not measured yet
  std::string text;              // the condition as written
};

struct ExerciseStatus {
  bool met = false;  // every condition holds and all evaluated
  std::vector<ConditionStatus> conditions;  // one per Condition, in order
  std::string error;  // a reference did not resolve (or the demo failed): not met
};

// `outputs` must be what the demo computes from `inputs` (DemoCatalog::run).
// Labels are resolved against the row/column labels of the first panel in
// outputs.panels that shows the matrix.
ExerciseStatus check_exercise(const Exercise& ex, const DemoInputs& inputs, const DemoOutputs& outputs);
bool exercise_met(const Exercise& ex, const DemoInputs& inputs, const DemoOutputs& outputs);

// Human-readable form: "<", "<=", ">", ">=".
const char* compare_op_text(CompareOp op);

// ---------------------------------------------------------------- 3 solutions
// Applies the stored solution to `inputs`. `outputs` (the same demo run on the
// same inputs) supplies the labels. Returns false and sets *error (if not null)
// when a target is unknown or a shape does not match; `inputs` may then be
// partly changed, so apply to a copy when that matters.
bool apply_solution(const Exercise& ex, const DemoOutputs& outputs, DemoInputs& inputs,
                    std::string* error = nullptr);

// ---------------------------------------------------------------- 4 parsing
// "a > 0.6 and b[x, y] <= c": conditions joined by "and".
bool parse_check(std::string_view text, std::vector<Condition>& out, std::string& why);
// "q[cats] = [0, 2]; score = cosine": assignments separated by ';'.
bool parse_solution(std::string_view text, std::vector<Assignment>& out, std::string& why);

}  // namespace attn

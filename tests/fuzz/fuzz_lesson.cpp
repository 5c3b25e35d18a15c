// fuzz_lesson: the lesson parser and validator, and the check and solution
// language, never crash. A lesson that validates runs each step's demo, checks
// its exercises and applies their solutions (as the lab does when a learner asks),
// in every language the step gives values, checks or solutions of its own.
// The first line of an input starting with "check: " or "solution: " is also
// parsed alone, so the small languages are fuzzed directly.
#include <vector>

#include "course/exercise.h"
#include "course/lesson.h"
#include "experiments/experiments.h"
#include "fuzz/fuzz_util.h"
#include "lab/catalog.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 16) return 0;
  const std::string_view text = fuzz::text(data, size);
  const std::string_view first_line = text.substr(0, text.find('\n'));
  std::string why;
  if (first_line.rfind("check: ", 0) == 0) {
    std::vector<attn::Condition> conditions;
    if (!attn::parse_check(first_line.substr(7), conditions, why)) fuzz::require(!why.empty(), "a refused check says why");
  } else if (first_line.rfind("solution: ", 0) == 0) {
    std::vector<attn::Assignment> assignments;
    if (!attn::parse_solution(first_line.substr(10), assignments, why))
      fuzz::require(!why.empty(), "a refused solution says why");
  }
  attn::Lesson lesson;
  std::vector<attn::LessonError> errors;
  if (!attn::parse_lesson("fuzz.lesson", text, lesson, errors) || !attn::validate_lesson(lesson, attn::lab_demos(), errors)) {
    fuzz::require(!errors.empty(), "a refused lesson says why");
    return 0;
  }
  for (const attn::LessonStep& any : lesson.steps)
  for (const std::string& lang : attn::step_languages(any)) {  // each language's parameters, checks and solutions
    const attn::LessonStep step = attn::step_in_language(any, lang);
    if (step.demo.empty() || attn::is_experiment_demo(step.demo)) continue;  // experiments train: too slow here
    attn::DemoInputs inputs = attn::demo_defaults(step, lang);
    const attn::DemoOutputs outputs = attn::run_demo(step.demo, inputs);
    for (const attn::Exercise& ex : step.exercises) {
      attn::check_exercise(ex, inputs, outputs);
      attn::DemoInputs solved = inputs;
      if (attn::apply_solution(ex, outputs, solved, &why)) attn::check_exercise(ex, solved, attn::run_demo(step.demo, solved));
    }
  }
  return 0;
}

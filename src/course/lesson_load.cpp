// lesson_load.cpp: a step's parameters and exercises in each language, a parsed
// lesson checked against the demos in each, the lesson index loaded file by file,
// where the steps of an earlier layout are now, and the step links written in
// prose (lesson.h).
//
// Sections: 1 a step in each language, 2 validation and the index, 3 layouts,
// 4 step links.
#include <algorithm>
#include <set>

#include "base/text.h"
#include "course/lesson.h"

namespace attn {

// ---------------------------------------------------------------- 1 a step in each language
LessonParams params_for(const LessonStep& step, const std::string& lang) {
  LessonParams p = step.params;
  if (const auto it = step.local_params.find(lang); it != step.local_params.end())
    for (const auto& [name, value] : it->second) p[name] = value;
  return p;
}

std::vector<std::string> step_languages(const LessonStep& step) {
  std::set<std::string> own;
  for (const auto& entry : step.local_params) own.insert(entry.first);
  for (const Exercise& e : step.exercises)
    for (const auto& entry : e.local) own.insert(entry.first);
  own.erase("en");
  std::vector<std::string> out = {"en"};
  out.insert(out.end(), own.begin(), own.end());
  return out;
}

LessonStep step_in_language(const LessonStep& step, const std::string& lang) {
  LessonStep out = step;
  out.params = params_for(step, lang);
  out.local_params.clear();
  for (Exercise& e : out.exercises) e = exercise_for(e, lang);
  return out;
}

// ---------------------------------------------------------------- 2 validation and the index
namespace {

// One step in one language against its demo: parameters, starting values,
// exercises (their checks and solutions) and what the quizzes hide. `lang` is
// named in messages unless it is English; `reported` holds the parameter
// problems already said for another language, which are not said again.
void validate_step(const Lesson& lesson, const LessonStep& s, const std::string& lang, const DemoCatalog& demos,
                   std::set<std::string>& reported, std::vector<LessonError>& errors) {
  const std::string in_lang = lang == "en" ? "" : " (" + lang + ")";
  const LessonStep local = step_in_language(s, lang);
  bool params_ok = true;
  for (const DemoIssue& issue : demos.check_params(s.demo, local.params)) {
    params_ok = false;
    const int line = issue.line > 0 ? issue.line : s.line;
    if (reported.insert(std::to_string(line) + ":" + issue.message).second)
      errors.push_back({lesson.file, line, issue.message + in_lang});
  }
  if (!params_ok || (s.exercises.empty() && s.quizzes.empty())) return;
  // Exercises and quizzes refer to the demo's matrices, settings and panels:
  // check them against what the demo computes from the step's starting values.
  const DemoInputs in = demos.defaults(s.demo, local.params);
  const DemoOutputs out = demos.run(s.demo, in);
  if (!out.error.empty()) {
    errors.push_back({lesson.file, s.line, "the demo fails on this step's values" + in_lang + ": " + out.error});
    return;
  }
  for (const Exercise& e : local.exercises) {
    const std::string what = "exercise '" + e.id + "' ";
    const ExerciseStatus st = check_exercise(e, in, out);
    if (!st.error.empty()) errors.push_back({lesson.file, e.line, what + "check" + in_lang + ": " + st.error});
    DemoInputs solved = in;
    std::string why;
    if (!apply_solution(e, out, solved, &why)) {
      errors.push_back({lesson.file, e.line, what + "solution" + in_lang + ": " + why});
      continue;
    }
    const DemoOutputs after = demos.run(s.demo, solved);
    if (!after.error.empty())
      errors.push_back({lesson.file, e.line, what + "solution makes the demo fail" + in_lang + ": " + after.error});
  }
  for (const Quiz& q : s.quizzes)
    for (const std::string& id : q.hides) {
      bool found = false;
      for (const Panel& p : out.panels) found = found || p.id == id;
      if (!found)
        errors.push_back({lesson.file, q.line, "quiz '" + q.id + "' hides '" + id + "', which is not a panel of this demo" + in_lang});
    }
}

}  // namespace

bool validate_lesson(const Lesson& lesson, const DemoCatalog& demos, std::vector<LessonError>& errors) {
  const size_t before = errors.size();
  for (const LessonStep& s : lesson.steps) {
    if (!s.title.by_lang.count("en")) errors.push_back({lesson.file, s.line, "step '" + s.id + "' has no English title"});
    if (!s.text.by_lang.count("en")) errors.push_back({lesson.file, s.line, "step '" + s.id + "' has no English text"});
    if (s.demo.empty()) {  // a prose-only step
      for (const Exercise& e : s.exercises) errors.push_back({lesson.file, e.line, "an exercise needs a step with a demo"});
      for (const Quiz& q : s.quizzes)
        if (!q.hides.empty()) errors.push_back({lesson.file, q.line, "a quiz can only hide panels of a step with a demo"});
      continue;
    }
    // Each language whose readers compute something else here, on its own.
    std::set<std::string> reported;
    for (const std::string& lang : step_languages(s)) {
      const size_t step_before = errors.size();
      validate_step(lesson, s, lang, demos, reported, errors);
      if (errors.size() != step_before) break;  // one language's problems at a time
    }
  }
  return errors.size() == before;
}

LessonSet load_lessons(ReadFileFn read, void* user, const DemoCatalog& demos) {
  LessonSet set;
  std::string index;
  if (!read("index.txt", index, user)) {
    set.errors.push_back({"index.txt", 0, "the lesson index is missing"});
    return set;
  }
  std::set<std::string> ids;
  int n = 0;
  size_t pos = 0;
  while (pos < index.size()) {
    size_t nl = index.find('\n', pos);
    if (nl == std::string::npos) nl = index.size();
    const std::string name(trim(std::string_view(index).substr(pos, nl - pos)));
    pos = nl + 1;
    ++n;
    if (name.empty() || name[0] == '#') continue;
    std::string text;
    if (!read(name, text, user)) {
      set.errors.push_back({"index.txt", n, "lists '" + name + "', which does not exist"});
      continue;
    }
    Lesson lesson;
    if (!parse_lesson(name, text, lesson, set.errors)) continue;
    if (!validate_lesson(lesson, demos, set.errors)) continue;
    if (!ids.insert(lesson.id).second) {
      set.errors.push_back({name, 1, "lesson id '" + lesson.id + "' is already used by another file"});
      continue;
    }
    set.lessons.push_back(std::move(lesson));
  }
  return set;
}

// ---------------------------------------------------------------- 3 layouts
int step_index(const Lesson& lesson, std::string_view step_id) {
  for (size_t i = 0; i < lesson.steps.size(); ++i)
    if (lesson.steps[i].id == step_id) return int(i);
  return -1;
}

const Lesson* find_lesson(const std::vector<Lesson>& lessons, std::string_view id) {
  for (const Lesson& l : lessons)
    if (l.id == id) return &l;
  return nullptr;
}

int step_from_layout(const Lesson& lesson, int layout, int position) {
  if (position < 0) return -1;
  // The oldest record at or after `layout` tells where its places went; with none,
  // the steps have not moved since.
  for (const auto& [l, ids] : lesson.old_steps) {
    if (l < layout) continue;
    if (size_t(position) >= ids.size() || ids[size_t(position)].empty()) return -1;
    return step_index(lesson, ids[size_t(position)]);
  }
  return position < int(lesson.steps.size()) ? position : -1;
}

// ---------------------------------------------------------------- 4 step links
std::vector<StepLink> step_links(std::string_view text) {
  std::vector<StepLink> out;
  size_t from = 0;
  for (;;) {
    const size_t open = text.find('[', from);
    if (open == std::string_view::npos) break;
    from = open + 1;
    const size_t close = text.find("](#", open);
    if (close == std::string_view::npos) break;
    if (text.substr(open + 1, close - open - 1).find_first_of("[]\n") != std::string_view::npos) continue;
    const size_t slash = text.find('/', close + 3), end = text.find(')', close + 3);
    if (slash == std::string_view::npos || end == std::string_view::npos || slash > end) continue;
    StepLink l;
    l.lesson = std::string(text.substr(close + 3, slash - close - 3));
    const std::string_view target = text.substr(slash + 1, end - slash - 1);
    auto id_chars = [](std::string_view s) {
      return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
      });
    };
    const bool number = all_digits(target);
    if (!id_chars(l.lesson) || (number ? target.size() > 3 : !id_chars(target))) continue;
    l.begin = open;
    l.end = end + 1;
    l.words = std::string(text.substr(open + 1, close - open - 1));
    if (number) l.step = std::stoi(std::string(target));
    else l.step_id = std::string(target);
    out.push_back(std::move(l));
    from = end + 1;
  }
  return out;
}

std::string link_words_only(std::string_view text) {
  std::string out;
  size_t at = 0;
  for (const StepLink& l : step_links(text)) {
    out.append(text.substr(at, l.begin - at));
    out += l.words;
    at = l.end;
  }
  out.append(text.substr(at));
  return out;
}

}  // namespace attn

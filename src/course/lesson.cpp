// lesson.cpp: parser for lessons/*.lesson (lesson.h). Checking a parsed lesson
// against the demos and loading the index are in lesson_load.cpp.
//
// Sections: 1 small text helpers (joining wrapped lines: lesson_text.cpp), 2 values (text, numbers, matrices),
// 3 the line-by-line parser (steps, demo parameters, exercises and quizzes).
#include "course/lesson.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "base/number_text.h"
#include "base/text.h"

namespace attn {

// ---------------------------------------------------------------- 1 text helpers
namespace {

bool valid_id(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')) return false;
  return true;
}

const std::set<std::string> kLanguages = {"en", "zh"};
// Keys whose text may be given per language ("goal.zh").
const std::set<std::string> kLocalised = {"title", "text",    "goal",  "hint",  "question",
                                          "option", "explain", "after", "source"};
// Keys that name or shape the lesson and take no language. Every other key with a
// language is an exercise's check or solution, or a demo parameter ("corpus.zh"):
// values a reader of that language computes with, in place of the plain ones.
const std::set<std::string> kNoLanguage = {"lesson", "step", "demo", "exercise", "quiz", "answer", "hides"};

// "layout-1-steps" -> 1 for what = "steps"; 0 when `key` is not such a key.
int layout_key(const std::string& key, const std::string& what) {
  const std::string head = "layout-", tail = "-" + what;
  if (key.size() <= head.size() + tail.size() || key.compare(0, head.size(), head) != 0 ||
      key.compare(key.size() - tail.size(), tail.size(), tail) != 0)
    return 0;
  const std::string digits = key.substr(head.size(), key.size() - head.size() - tail.size());
  if (digits.empty() || digits.size() > 3 || !std::all_of(digits.begin(), digits.end(), [](char c) {
        return c >= '0' && c <= '9';
      }))
    return 0;
  return std::atoi(digits.c_str());
}

// "a | b | -" -> {"a", "b", "-"}.
std::vector<std::string> split_bars(std::string_view s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t bar = s.find('|', pos);
    if (bar == std::string_view::npos) bar = s.size();
    out.emplace_back(trim(s.substr(pos, bar - pos)));
    pos = bar + 1;
  }
  return out;
}

void strip_trailing_newlines(LocalText& t) {
  for (auto& [lang, s] : t.by_lang)
    while (!s.empty() && s.back() == '\n') s.pop_back();
}

// "a, b, c" -> {"a", "b", "c"}, empty entries dropped.
std::vector<std::string> split_list(std::string_view s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string_view::npos) comma = s.size();
    const std::string_view item = trim(s.substr(pos, comma - pos));
    if (!item.empty()) out.emplace_back(item);
    pos = comma + 1;
  }
  return out;
}

}  // namespace

std::string LessonError::to_string() const {
  std::string s = "lessons/" + file;
  if (line > 0) s += ":" + std::to_string(line);
  return s + ": " + message;
}

// ---------------------------------------------------------------- 2 values
namespace {

}  // namespace

// Parses "[[1, 2], [3, 4]]" (rows of equal length) or "[1, 2]" (one row).
// Only finite numbers are accepted: a lesson never starts from NaN or Inf.
bool parse_matrix_value(std::string_view s, Mat& out, std::string& why) {
  size_t i = 0;
  auto skip = [&] { while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i; };
  auto number = [&](float& v) {
    skip();
    std::string tok;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '-' || s[i] == '+' ||
                            s[i] == '.' || s[i] == 'e' || s[i] == 'E'))
      tok += s[i++];
    if (tok.empty()) return false;
    char* end = nullptr;
    const double d = std::strtod(tok.c_str(), &end);
    if (*end != '\0' || !std::isfinite(d) || std::abs(d) > 1e6) return false;
    v = float(d);
    return true;
  };
  auto row = [&](std::vector<float>& r) {
    skip();
    if (i >= s.size() || s[i] != '[') return false;
    ++i;
    skip();
    if (i < s.size() && s[i] == ']') { ++i; return true; }
    for (;;) {
      float v = 0;
      if (!number(v)) return false;
      r.push_back(v);
      skip();
      if (i < s.size() && s[i] == ',') { ++i; continue; }
      if (i < s.size() && s[i] == ']') { ++i; return true; }
      return false;
    }
  };
  std::vector<std::vector<float>> rows;
  skip();
  size_t save = i;
  if (i < s.size() && s[i] == '[') {
    ++i;
    skip();
    if (i < s.size() && s[i] == '[') {  // matrix: array of rows
      for (;;) {
        rows.emplace_back();
        if (!row(rows.back())) { why = "expected a row of finite numbers like [1, 2]"; return false; }
        skip();
        if (i < s.size() && s[i] == ',') { ++i; continue; }
        if (i < s.size() && s[i] == ']') { ++i; break; }
        why = "expected ',' or ']' between rows";
        return false;
      }
    } else {  // a single row
      i = save;
      rows.emplace_back();
      if (!row(rows.back())) { why = "expected finite numbers like [1, 2]"; return false; }
    }
  }
  skip();
  if (i != s.size()) { why = "unexpected text after the matrix"; return false; }
  if (rows.empty() || rows[0].empty()) { why = "empty matrix"; return false; }
  for (const auto& r : rows)
    if (r.size() != rows[0].size()) { why = "rows have different lengths"; return false; }
  if (rows.size() > size_t(kMaxMatrixDim) || rows[0].size() > size_t(kMaxMatrixDim)) {
    why = "matrix larger than " + std::to_string(kMaxMatrixDim) + " x " + std::to_string(kMaxMatrixDim);
    return false;
  }
  out.resize(Eigen::Index(rows.size()), Eigen::Index(rows[0].size()));
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t c = 0; c < rows[r].size(); ++c) out(Eigen::Index(r), Eigen::Index(c)) = rows[r][c];
  return true;
}

namespace {

bool parse_value(std::string_view raw, int line, LessonValue& v, std::string& why) {
  v.text = std::string(raw);
  v.line = line;
  if (!raw.empty() && raw.front() == '[') {
    v.kind = LessonValue::Kind::matrix;
    return parse_matrix_value(raw, v.matrix, why);
  }
  switch (parse_float_text(raw, &v.number)) {
    case NumberText::ok: v.kind = LessonValue::Kind::number; return true;
    case NumberText::beyond_float: why = std::string("number is ") + kBeyondFloat; return false;
    case NumberText::not_a_number: break;
  }
  v.kind = LessonValue::Kind::text;
  return true;
}

}  // namespace

// ---------------------------------------------------------------- 3 parser
bool parse_lesson(std::string_view file, std::string_view text, Lesson& out,
                  std::vector<LessonError>& errors) {
  const size_t errors_before = errors.size();
  auto fail = [&](int line, std::string msg) { errors.push_back({std::string(file), line, std::move(msg)}); };
  out = Lesson{};
  out.file = std::string(file);
  if (text.size() > kMaxLessonBytes) {
    fail(0, "the lesson file is too large (" + std::to_string(text.size()) + " bytes, at most " +
                std::to_string(kMaxLessonBytes) + ")");
    return false;
  }

  LocalText* block = nullptr;  // the prose block being filled by indented lines
  std::string block_lang;
  LessonStep* step = nullptr;
  Exercise* exercise = nullptr;  // the exercise or quiz that goal:, option: ... belong to
  Quiz* quiz = nullptr;
  std::set<std::string> step_ids, item_ids;
  std::vector<LocalText> sources;
  std::map<int, int> old_steps_line;           // layout -> line of its layout-N-steps
  int n = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++n;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);

    // Prose: indented lines (or blank lines) continue the open text block.
    if (block && (trim(line).empty() || line.front() == ' ' || line.front() == '\t')) {
      std::string& t = block->by_lang[block_lang];
      std::string_view body = trim(line);
      if (body.empty()) {
        if (!t.empty() && t.back() != '\n') t += "\n";
      } else {
        // Lines of one paragraph are joined with a space, or with nothing between
        // two lines of Chinese (joins_without_space); a blank line made the '\n'.
        if (!t.empty() && t.back() != '\n' && !joins_without_space(t, body)) t += " ";
        t += std::string(body);
      }
      continue;
    }
    block = nullptr;
    std::string_view l = trim(line);
    if (l.empty() || l.front() == '#') continue;
    if (line.front() == ' ' || line.front() == '\t') { fail(n, "indented line outside a text block"); continue; }
    const size_t colon = l.find(':');
    if (colon == std::string_view::npos) { fail(n, "expected 'key: value'"); continue; }
    std::string key(trim(l.substr(0, colon)));
    std::string_view value = trim(l.substr(colon + 1));

    // A key may carry a language: "title.zh".
    std::string base = key, lang = "en";
    if (const size_t dot = key.find('.'); dot != std::string::npos) {
      base = key.substr(0, dot);
      lang = key.substr(dot + 1);
      if (!kLanguages.count(lang)) { fail(n, "unknown language '" + lang + "' (use en or zh)"); continue; }
      if (kNoLanguage.count(base) || layout_key(base, "steps") || layout_key(base, "options")) {
        fail(n, "'" + base + "' cannot have a language: only texts, demo parameters, check and solution can");
        continue;
      }
      if (!kLocalised.count(base) && lang == "en") {
        fail(n, "'" + key + "': write '" + base + ":', the value for every language without its own");
        continue;
      }
    }

    // Text of an exercise or quiz: on the same line, or an indented block below.
    auto set_text = [&](LocalText& t, const char* what) {
      if (t.by_lang.count(lang)) { fail(n, "'" + key + "' given twice for this " + what); return; }
      t.by_lang[lang] = std::string(value);
      if (value.empty()) {
        block = &t;
        block_lang = lang;
      }
    };

    if (n == 1 || out.id.empty()) {
      if (base != "lesson") { fail(n, "a lesson file must start with 'lesson: <id>'"); return false; }
    }
    if (base == "lesson") {
      if (!out.id.empty()) { fail(n, "'lesson:' given twice"); continue; }
      if (!valid_id(value)) { fail(n, "lesson id must be letters, digits, '-' or '_'"); continue; }
      out.id = std::string(value);
    } else if (base == "source") {
      // The papers the lesson draws on: lesson-wide, wherever written (by custom at the end).
      if (lang == "en") sources.emplace_back();
      else if (sources.empty()) { fail(n, "'" + key + "' must follow its English 'source:'"); continue; }
      if (value.empty()) { fail(n, "a source is written on its line: authors, year, title"); continue; }
      if (sources.back().by_lang.count(lang)) { fail(n, "'" + key + "' given twice for this source"); continue; }
      sources.back().by_lang[lang] = std::string(value);
    } else if (const int layout = layout_key(base, "steps")) {
      if (step) { fail(n, "'" + key + "' belongs to the lesson: write it before the first step"); continue; }
      if (layout >= kLessonLayout) {
        fail(n, "'" + key + "': layouts before the current one (" + std::to_string(kLessonLayout) + ") only");
        continue;
      }
      if (out.old_steps.count(layout)) { fail(n, "'" + key + "' given twice"); continue; }
      std::vector<std::string>& ids = out.old_steps[layout];
      for (const std::string& id : split_bars(value)) ids.push_back(id == "-" ? "" : id);
      old_steps_line[layout] = n;
    } else if (base == "step") {
      if (!valid_id(value)) { fail(n, "step id must be letters, digits, '-' or '_'"); continue; }
      if (all_digits(value)) { fail(n, "a step id must not be a number (a number in a link names a step of layout 1)"); continue; }
      if (!step_ids.insert(std::string(value)).second) fail(n, "step id '" + std::string(value) + "' used twice");
      out.steps.emplace_back();
      step = &out.steps.back();
      step->id = std::string(value);
      step->line = n;
      exercise = nullptr;
      quiz = nullptr;
      item_ids.clear();
    } else if (base == "title") {
      if (value.empty()) { fail(n, "empty title"); continue; }
      (step ? step->title : out.title).by_lang[lang] = std::string(value);
    } else if (base == "text") {
      if (!step) { fail(n, "text belongs to a step: write 'step: <id>' first"); continue; }
      if (!value.empty()) { fail(n, "text starts on the next line, indented"); continue; }
      block = &step->text;
      block_lang = lang;
      block->by_lang[lang].clear();
    } else if (base == "demo") {
      if (!step) { fail(n, "demo belongs to a step"); continue; }
      step->demo = std::string(value);
    } else if (base == "exercise" || base == "quiz") {
      if (!step) { fail(n, base + " belongs to a step: write 'step: <id>' first"); continue; }
      if (!valid_id(value)) { fail(n, base + " id must be letters, digits, '-' or '_'"); continue; }
      if (!item_ids.insert(std::string(value)).second) {
        fail(n, "'" + std::string(value) + "' is already an exercise or quiz of this step");
        continue;
      }
      exercise = nullptr;
      quiz = nullptr;
      if (base == "exercise") {
        step->exercises.emplace_back();
        exercise = &step->exercises.back();
        exercise->id = std::string(value);
        exercise->line = n;
      } else {
        step->quizzes.emplace_back();
        quiz = &step->quizzes.back();
        quiz->id = std::string(value);
        quiz->line = n;
        quiz->answer = -1;
      }
    } else if (base == "goal" || base == "hint" || base == "check" || base == "solution") {
      if (!exercise) { fail(n, "'" + base + "' belongs to an exercise: write 'exercise: <id>' first"); continue; }
      std::string why;
      if (base == "goal") {
        set_text(exercise->goal, "exercise");
      } else if (base == "hint") {
        if (lang == "en") exercise->hints.emplace_back();
        else if (exercise->hints.empty()) { fail(n, "'" + key + "' must follow its English 'hint:'"); continue; }
        set_text(exercise->hints.back(), "hint");
      } else {
        // A language's own ("check.zh") goes beside the plain one (exercise_for).
        const bool plain = lang == "en";
        const bool is_check = base == "check";
        std::string& written = is_check ? (plain ? exercise->check_text : exercise->local[lang].check_text)
                                        : (plain ? exercise->solution_text : exercise->local[lang].solution_text);
        if (!written.empty()) { fail(n, "'" + key + "' given twice for this exercise"); continue; }
        written = std::string(value);
        const bool ok = is_check ? parse_check(value, plain ? exercise->check : exercise->local[lang].check, why)
                                 : parse_solution(value, plain ? exercise->solution : exercise->local[lang].solution, why);
        if (!ok) fail(n, key + ": " + why);
      }
    } else if (const int layout = layout_key(base, "options")) {
      if (!quiz) { fail(n, "'" + key + "' belongs to a quiz: write 'quiz: <id>' first"); continue; }
      if (layout >= kLessonLayout) {
        fail(n, "'" + key + "': layouts before the current one (" + std::to_string(kLessonLayout) + ") only");
        continue;
      }
      if (quiz->old_options.count(layout)) { fail(n, "'" + key + "' given twice for this quiz"); continue; }
      std::vector<int>& where = quiz->old_options[layout];
      bool ok = true;
      for (const std::string& item : split_bars(value)) {
        long long v = 0;
        if (item == "-") where.push_back(-1);
        else if (parse_whole_text(item, 1, kMaxQuizOptions, &v)) where.push_back(int(v - 1));
        else ok = false;
      }
      if (!ok) {
        fail(n, "'" + key + "' lists, for each option the quiz had then, its number now (or '-' if it is gone), "
                "separated by '|'");
        quiz->old_options.erase(layout);
        continue;
      }
    } else if (base == "question" || base == "option" || base == "answer" || base == "explain" || base == "after" ||
               base == "hides") {
      if (!quiz) { fail(n, "'" + base + "' belongs to a quiz: write 'quiz: <id>' first"); continue; }
      if (base == "question") {
        set_text(quiz->question, "quiz");
      } else if (base == "option") {
        if (lang == "en") quiz->options.emplace_back();
        else if (quiz->options.empty()) { fail(n, "'" + key + "' must follow its English 'option:'"); continue; }
        set_text(quiz->options.back(), "option");
      } else if (base == "explain") {
        set_text(quiz->explanation, "quiz");
      } else if (base == "after") {
        set_text(quiz->after, "quiz");
      } else if (base == "answer") {
        long long a = 0;
        if (!parse_whole_text(value, 1, kMaxQuizOptions, &a)) {
          fail(n, "answer is the number of the right option, counting from 1 (at most " +
                      std::to_string(kMaxQuizOptions) + ")");
          continue;
        }
        quiz->answer = int(a - 1);
      } else {
        for (const auto& id : split_list(value)) quiz->hides.push_back(id);
      }
    } else {
      if (!step) { fail(n, "unknown lesson key '" + key + "'"); continue; }
      // A demo parameter: for every language, or ("corpus.zh") for one.
      LessonParams& into = lang == "en" ? step->params : step->local_params[lang];
      if (into.count(base)) { fail(n, "'" + key + "' given twice in this step"); continue; }
      LessonValue v;
      std::string why;
      if (!parse_value(value, n, v, why)) { fail(n, "'" + key + "': " + why); continue; }
      into[base] = std::move(v);
    }
  }
  // Exercises and quizzes must be complete.
  for (const LessonStep& s : out.steps) {
    for (const Exercise& e : s.exercises) {
      const std::string what = "exercise '" + e.id + "' ";
      if (!e.goal.by_lang.count("en") || e.goal.by_lang.at("en").empty()) fail(e.line, what + "has no English goal");
      if (e.check_text.empty()) fail(e.line, what + "has no check");
      if (e.solution_text.empty()) fail(e.line, what + "has no solution");
    }
    for (const Quiz& q : s.quizzes) {
      const std::string what = "quiz '" + q.id + "' ";
      if (!q.question.by_lang.count("en") || q.question.by_lang.at("en").empty()) fail(q.line, what + "has no English question");
      if (q.options.size() < 2) fail(q.line, what + "needs at least 2 options");
      if (q.options.size() > size_t(kMaxQuizOptions))
        fail(q.line, what + "has more than " + std::to_string(kMaxQuizOptions) + " options");
      for (const LocalText& o : q.options)
        if (!o.by_lang.count("en") || o.by_lang.at("en").empty()) fail(q.line, what + "has an option without English text");
      if (q.answer < 0) fail(q.line, what + "has no answer");
      else if (size_t(q.answer) >= q.options.size() && q.options.size() >= 2)
        fail(q.line, what + "has " + std::to_string(q.options.size()) + " options; answer " +
                                       std::to_string(q.answer + 1) + " does not exist");
      if (!q.explanation.by_lang.count("en") || q.explanation.by_lang.at("en").empty()) fail(q.line, what + "has no English explanation");
      if (!q.after.by_lang.empty() && (!q.after.by_lang.count("en") || q.after.by_lang.at("en").empty()))
        fail(q.line, what + "has 'after' text without English");
      for (const auto& [layout, where] : q.old_options) {
        const int line = q.line;
        std::set<int> seen;
        for (int i : where) {
          if (i >= int(q.options.size()))
            fail(line, what + "layout " + std::to_string(layout) + ": option " + std::to_string(i + 1) +
                           " does not exist");
          else if (i >= 0 && !seen.insert(i).second)
            fail(line, what + "layout " + std::to_string(layout) + ": option " + std::to_string(i + 1) +
                           " is named twice");
        }
      }
    }
  }
  for (const auto& [layout, ids] : out.old_steps) {
    const int line = old_steps_line[layout];
    std::set<std::string> seen;
    for (const std::string& id : ids) {
      if (id.empty()) continue;
      if (!step_ids.count(id)) fail(line, "layout " + std::to_string(layout) + " names step '" + id + "', which is not a step of this lesson");
      else if (!seen.insert(id).second) fail(line, "layout " + std::to_string(layout) + " names step '" + id + "' twice");
    }
  }
  if (!out.steps.empty()) out.steps.back().sources = std::move(sources);
  for (auto& s : out.steps) {
    strip_trailing_newlines(s.text);
    for (auto& e : s.exercises) {
      strip_trailing_newlines(e.goal);
      for (auto& h : e.hints) strip_trailing_newlines(h);
    }
    for (auto& q : s.quizzes) {
      strip_trailing_newlines(q.question);
      strip_trailing_newlines(q.explanation);
      strip_trailing_newlines(q.after);
      for (auto& o : q.options) strip_trailing_newlines(o);
    }
  }

  if (errors.size() == errors_before) {
    if (out.id.empty()) fail(0, "empty lesson file");
    else if (!out.title.by_lang.count("en")) fail(0, "lesson has no English title");
    else if (out.steps.empty()) fail(0, "lesson has no steps");
  }
  return errors.size() == errors_before;
}

}  // namespace attn

// lesson.cpp: parser for lessons/*.lesson and the index.
//
// Sections: 1 small text helpers, 2 values (text, numbers, matrices),
// 3 the line-by-line parser, 4 loading the index and validating.
#include "core/lesson.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>

#include "core/demos.h"

namespace attn {

// ---------------------------------------------------------------- 1 text helpers
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool valid_id(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')) return false;
  return true;
}

const std::set<std::string> kLanguages = {"en", "zh"};

}  // namespace

const std::string& LocalText::get(const std::string& lang) const {
  static const std::string empty;
  auto it = by_lang.find(lang);
  if (it != by_lang.end() && !it->second.empty()) return it->second;
  it = by_lang.find("en");
  return it != by_lang.end() ? it->second : empty;
}

std::string LessonError::to_string() const {
  std::string s = "lessons/" + file;
  if (line > 0) s += ":" + std::to_string(line);
  return s + ": " + message;
}

// ---------------------------------------------------------------- 2 values
namespace {

// Parses "[[1, 2], [3, 4]]" (rows of equal length) or "[1, 2]" (one row).
// Only finite numbers are accepted: a lesson never starts from NaN or Inf.
bool parse_matrix(std::string_view s, Mat& out, std::string& why) {
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
  if (rows.size() > 64 || rows[0].size() > 64) { why = "matrix larger than 64 x 64"; return false; }
  out.resize(Eigen::Index(rows.size()), Eigen::Index(rows[0].size()));
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t c = 0; c < rows[r].size(); ++c) out(Eigen::Index(r), Eigen::Index(c)) = rows[r][c];
  return true;
}

bool parse_value(std::string_view raw, int line, LessonValue& v, std::string& why) {
  v.text = std::string(raw);
  v.line = line;
  if (!raw.empty() && raw.front() == '[') {
    v.kind = LessonValue::Kind::matrix;
    return parse_matrix(raw, v.matrix, why);
  }
  char* end = nullptr;
  const std::string s(raw);
  const double d = std::strtod(s.c_str(), &end);
  if (!s.empty() && end && *end == '\0') {
    if (!std::isfinite(d)) { why = "number is not finite"; return false; }
    v.kind = LessonValue::Kind::number;
    v.number = float(d);
    return true;
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

  LocalText* block = nullptr;  // the prose block being filled by indented lines
  std::string block_lang;
  LessonStep* step = nullptr;
  std::set<std::string> step_ids;
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
        // Lines of one paragraph are joined with spaces; a blank line made the '\n'.
        if (!t.empty() && t.back() != '\n') t += " ";
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
      if (base != "title" && base != "text") { fail(n, "only title and text can have a language"); continue; }
    }

    if (n == 1 || out.id.empty()) {
      if (base != "lesson") { fail(n, "a lesson file must start with 'lesson: <id>'"); return false; }
    }
    if (base == "lesson") {
      if (!out.id.empty()) { fail(n, "'lesson:' given twice"); continue; }
      if (!valid_id(value)) { fail(n, "lesson id must be letters, digits, '-' or '_'"); continue; }
      out.id = std::string(value);
    } else if (base == "step") {
      if (!valid_id(value)) { fail(n, "step id must be letters, digits, '-' or '_'"); continue; }
      if (!step_ids.insert(std::string(value)).second) fail(n, "step id '" + std::string(value) + "' used twice");
      out.steps.emplace_back();
      step = &out.steps.back();
      step->id = std::string(value);
      step->line = n;
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
    } else {
      if (!step) { fail(n, "unknown lesson key '" + key + "'"); continue; }
      if (step->params.count(key)) { fail(n, "'" + key + "' given twice in this step"); continue; }
      LessonValue v;
      std::string why;
      if (!parse_value(value, n, v, why)) { fail(n, "'" + key + "': " + why); continue; }
      step->params[key] = std::move(v);
    }
  }
  for (auto& s : out.steps)
    for (auto& [lang, t] : s.text.by_lang)
      while (!t.empty() && t.back() == '\n') t.pop_back();

  if (errors.size() == errors_before) {
    if (out.id.empty()) fail(0, "empty lesson file");
    else if (!out.title.by_lang.count("en")) fail(0, "lesson has no English title");
    else if (out.steps.empty()) fail(0, "lesson has no steps");
  }
  return errors.size() == errors_before;
}

// ---------------------------------------------------------------- 4 index + validation
bool validate_lesson(const Lesson& lesson, std::vector<LessonError>& errors) {
  const size_t before = errors.size();
  for (const LessonStep& s : lesson.steps) {
    if (!s.title.by_lang.count("en")) errors.push_back({lesson.file, s.line, "step '" + s.id + "' has no English title"});
    if (!s.text.by_lang.count("en")) errors.push_back({lesson.file, s.line, "step '" + s.id + "' has no English text"});
    if (s.demo.empty()) continue;  // a prose-only step
    for (const DemoIssue& issue : check_demo_params(s.demo, s.params))
      errors.push_back({lesson.file, issue.line > 0 ? issue.line : s.line, issue.message});
  }
  return errors.size() == before;
}

LessonSet load_lessons(ReadFileFn read, void* user) {
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
    if (!validate_lesson(lesson, set.errors)) continue;
    if (!ids.insert(lesson.id).second) {
      set.errors.push_back({name, 1, "lesson id '" + lesson.id + "' is already used by another file"});
      continue;
    }
    set.lessons.push_back(std::move(lesson));
  }
  return set;
}

}  // namespace attn

// Lessons are data: every embedded lesson must load cleanly, and a malformed one
// must be reported with its file and line without stopping the others.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "core/demos.h"
#include "core/embedded.h"
#include "core/lesson.h"

using namespace attn;

namespace {

// An in-memory lesson folder for load_lessons.
using Files = std::map<std::string, std::string>;
bool read_files(std::string_view name, std::string& out, void* user) {
  const Files& files = *static_cast<const Files*>(user);
  auto it = files.find(std::string(name));
  if (it == files.end()) return false;
  out = it->second;
  return true;
}

std::string first_error(const std::string& text) {
  Lesson l;
  std::vector<LessonError> errors;
  if (parse_lesson("t.lesson", text, l, errors)) validate_lesson(l, errors);
  return errors.empty() ? "" : errors[0].to_string();
}

const char* kGood =
    "lesson: tiny\n"
    "title: Tiny\n"
    "title.zh: 小\n"
    "\n"
    "step: one\n"
    "title: One\n"
    "demo: qkv_basic\n"
    "tokens: a | b\n"
    "q: [[1, 0], [0, 1]]\n"
    "k: [[1, 0], [0, 1]]\n"
    "v: [[1, 2], [3, 4]]\n"
    "text:\n"
    "  First paragraph\n"
    "  continues here.\n"
    "\n"
    "  Second paragraph.\n";

}  // namespace

TEST_CASE("every embedded lesson loads and validates") {
  const LessonSet set = load_embedded_lessons();
  for (const auto& e : set.errors) FAIL_CHECK(e.to_string());
  REQUIRE(set.errors.empty());
  REQUIRE(!set.lessons.empty());
  for (const Lesson& l : set.lessons) {
    CAPTURE(l.file);
    CHECK(!l.title.get("en").empty());
    CHECK(!l.title.get("zh").empty());
    for (const LessonStep& s : l.steps) {
      CAPTURE(s.id);
      CHECK(!s.text.get("en").empty());
      if (s.demo.empty()) continue;
      // Every demo step computes from its starting values without error.
      const DemoOutputs out = run_demo(s.demo, demo_defaults(s));
      CHECK_MESSAGE(out.error.empty(), out.error);
      // (no structured binding: clang 14 cannot capture one in doctest's lambda)
      for (const auto& entry : out.mats) CHECK_MESSAGE(entry.second.allFinite(), entry.first << " is not finite");
    }
  }
}

TEST_CASE("a well-formed lesson parses into steps, params and paragraphs") {
  Lesson l;
  std::vector<LessonError> errors;
  REQUIRE(parse_lesson("tiny.lesson", kGood, l, errors));
  REQUIRE(validate_lesson(l, errors));
  CHECK(l.id == "tiny");
  CHECK(l.title.get("zh") == "小");
  CHECK(l.title.get("fr") == "Tiny");  // falls back to English
  REQUIRE(l.steps.size() == 1);
  const LessonStep& s = l.steps[0];
  CHECK(s.demo == "qkv_basic");
  CHECK(s.text.get("en") == "First paragraph continues here.\nSecond paragraph.");
  REQUIRE(s.params.at("v").kind == LessonValue::Kind::matrix);
  CHECK(s.params.at("v").matrix(1, 0) == 3.0f);
  CHECK(s.params.at("q").line == 9);
  const DemoInputs in = demo_defaults(s);
  REQUIRE(in.tokens.size() == 2);
  CHECK(in.tokens[1] == "b");
}

TEST_CASE("malformed lessons are reported with file and line") {
  auto with = [](std::string from, const std::string& to) {
    std::string t = kGood;
    const size_t at = t.find(from);
    REQUIRE(at != std::string::npos);
    return t.replace(at, from.size(), to);
  };
  CHECK(first_error(with("q: [[1, 0], [0, 1]]", "q: [[1, 0], [0]]")) ==
        "lessons/t.lesson:9: 'q': rows have different lengths");
  CHECK(first_error(with("q: [[1, 0], [0, 1]]", "q: [[1, 0], [0, nan]]")) ==
        "lessons/t.lesson:9: 'q': expected a row of finite numbers like [1, 2]");
  CHECK(first_error(with("q: [[1, 0], [0, 1]]", "q: [[1, 0]]")) ==
        "lessons/t.lesson:9: 'q' needs one row per token (2)");
  CHECK(first_error(with("demo: qkv_basic", "demo: nope")) == "lessons/t.lesson:5: unknown demo 'nope'");
  CHECK(first_error(with("tokens: a | b", "colour: red")) ==
        "lessons/t.lesson:8: unknown parameter 'colour' for this demo");
  CHECK(first_error(with("title.zh: 小", "title.fr: Petit")) ==
        "lessons/t.lesson:3: unknown language 'fr' (use en or zh)");
  CHECK(first_error(with("lesson: tiny", "lessen: tiny")) ==
        "lessons/t.lesson:1: a lesson file must start with 'lesson: <id>'");
  CHECK(first_error(with("step: one", "step: one two")) ==
        "lessons/t.lesson:5: step id must be letters, digits, '-' or '_'");
  CHECK(first_error(with("v: [[1, 2], [3, 4]]", "v: [[1, 2], [3, 4]]\nv: [[1, 2], [3, 4]]")) ==
        "lessons/t.lesson:12: 'v' given twice in this step");
  CHECK(first_error(with("title: One\n", "")) == "lessons/t.lesson:5: step 'one' has no English title");
  CHECK(first_error(with("q: [[1, 0], [0, 1]]", "q: [[1, 0], [0, 1e9]]")) ==
        "lessons/t.lesson:9: 'q': expected a row of finite numbers like [1, 2]");
  CHECK(first_error("") == "lessons/t.lesson: empty lesson file");
  CHECK(first_error("lesson: x\ntitle: X\n") == "lessons/t.lesson: lesson has no steps");
}

TEST_CASE("one broken lesson does not stop the others from loading") {
  Files files = {
      {"index.txt", "# order\ngood.lesson\nbroken.lesson\nmissing.lesson\n"},
      {"good.lesson", kGood},
      {"broken.lesson", "lesson: broken\ntitle: B\nstep: s\ntitle: S\ntext:\n  x\ndemo: qkv_basic\n"},
  };
  const LessonSet set = load_lessons(read_files, &files);
  REQUIRE(set.lessons.size() == 1);
  CHECK(set.lessons[0].id == "tiny");
  REQUIRE(set.errors.size() >= 2);
  CHECK(set.errors[0].to_string() == "lessons/broken.lesson:3: missing parameter 'tokens'");
  CHECK(set.errors.back().to_string() == "lessons/index.txt:4: lists 'missing.lesson', which does not exist");
}

TEST_CASE("the same lesson id in two files is refused") {
  Files files = {{"index.txt", "a.lesson\nb.lesson\n"}, {"a.lesson", kGood}, {"b.lesson", kGood}};
  const LessonSet set = load_lessons(read_files, &files);
  CHECK(set.lessons.size() == 1);
  REQUIRE(set.errors.size() == 1);
  CHECK(set.errors[0].to_string() == "lessons/b.lesson:1: lesson id 'tiny' is already used by another file");
}

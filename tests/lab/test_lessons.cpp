// Lessons are data: every embedded lesson must load cleanly, and a malformed one
// must be reported with its file and line without stopping the others.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "course/exercise.h"
#include "course/lab_state.h"
#include "course/lesson.h"
#include "course/links.h"
#include "lab/catalog.h"
#include "lab/embedded.h"
#include "support/repo_file.h"

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
  if (parse_lesson("t.lesson", text, l, errors)) validate_lesson(l, lab_demos(), errors);
  return errors.empty() ? "" : errors[0].to_string();
}

// `text` with its first `from` replaced by `to` (which must be there).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
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
      // Every demo step computes from its starting values without error, in each
      // language that has values of its own.
      for (const std::string& lang : step_languages(s)) {
        CAPTURE(lang);
        const DemoOutputs out = run_demo(s.demo, demo_defaults(s, lang));
        CHECK_MESSAGE(out.error.empty(), out.error);
        // (no structured binding: clang 14 cannot capture one in doctest's lambda)
        // A line plot's series may have no value at some x (NaN, which the plot
        // leaves out: a learned position table past its rows); nothing else.
        for (const auto& entry : out.mats) {
          bool plotted = false;
          for (const Panel& p : out.panels) plotted = plotted || (p.kind == Panel::Kind::line_plot && p.source == entry.first);
          CHECK_MESSAGE((entry.second.allFinite() || (plotted && !entry.second.array().isInf().any())), entry.first << " is not finite");
        }
      }
    }
  }
}

// LocalText::get falls back to English, so a missing ".zh" would show English in the
// Chinese lab without any error. Only quiz options that read the same in both
// languages need no twin: no Latin letter ("(32, 1)", "中国") or one of the step's
// tokens, which the demo shows as written ("cats").
TEST_CASE("every text of every embedded lesson is in English and Chinese") {
  const LessonSet set = load_embedded_lessons();
  REQUIRE(!set.lessons.empty());
  int missing = 0;
  auto need = [&](const LocalText& t, const std::string& what) {
    for (const char* lang : {"en", "zh"}) {
      const auto it = t.by_lang.find(lang);
      if (it != t.by_lang.end() && !it->second.empty()) continue;
      const std::string problem = what + " has no '" + lang + "' text";
      FAIL_CHECK(problem);
      ++missing;
    }
  };
  for (const Lesson& l : set.lessons) {
    need(l.title, "lessons/" + l.file + ": lesson title");
    for (const LessonStep& s : l.steps) {
      const std::string at = "lessons/" + l.file + ": step '" + s.id + "' ";
      need(s.title, at + "title");
      need(s.text, at + "text");
      const std::vector<std::string> tokens = demo_defaults(s, "en").tokens;
      for (const Quiz& q : s.quizzes) {
        need(q.question, at + "quiz '" + q.id + "' question");
        for (size_t i = 0; i < q.options.size(); ++i) {
          const std::string en = q.options[i].get("en");
          auto latin = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; };
          const bool same_in_both = std::none_of(en.begin(), en.end(), latin) ||
                                    std::find(tokens.begin(), tokens.end(), en) != tokens.end();
          if (!same_in_both) need(q.options[i], at + "quiz '" + q.id + "' option " + std::to_string(i + 1));
        }
        need(q.explanation, at + "quiz '" + q.id + "' explanation");
        if (!q.after.by_lang.empty()) need(q.after, at + "quiz '" + q.id + "' after");
      }
      for (const Exercise& e : s.exercises) {
        need(e.goal, at + "exercise '" + e.id + "' goal");
        for (size_t i = 0; i < e.hints.size(); ++i)
          need(e.hints[i], at + "exercise '" + e.id + "' hint " + std::to_string(i + 1));
      }
    }
  }
  CHECK(missing == 0);
}

namespace {

// Lower-case words separated by single spaces, with a space at each end, so that
// a phrase is found only on word boundaries ("cats" is not in "scatter").
std::string plain_words(std::string_view text) {
  std::string out = " ";
  for (const char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c >= 0x80 || std::isalnum(c)) out += char(std::tolower(c));
    else if (out.back() != ' ') out += ' ';
  }
  if (out.back() != ' ') out += ' ';
  return out;
}

// The sentences of a text, each as plain_words: a break at a line end, at . ! ? ;
// followed by a space (so 0.40 stays one number), and at 。！？；
std::vector<std::string> plain_sentences(const std::string& text) {
  std::vector<std::string> out;
  size_t from = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    size_t skip = 0;
    if (i == text.size() || text[i] == '\n') skip = 1;
    else if (std::strchr(".!?;", text[i]) && (i + 1 == text.size() || text[i + 1] == ' ')) skip = 1;
    else
      for (const char* mark : {"。", "！", "？", "；"})
        if (text.compare(i, std::strlen(mark), mark) == 0) skip = std::strlen(mark);
    if (!skip) continue;
    out.push_back(plain_words(std::string_view(text).substr(from, i - from)));
    from = i + skip;
    i += skip - 1;
  }
  return out;
}

// A spoiler in its plain form: a sentence the learner reads before answering names
// the right option, word for word, and none of the wrong ones. (A sentence that
// names every option, as most token questions do, gives nothing away by itself.)
// The prose before an answer is the step's text and the `after` text of the
// quizzes before it; a quiz's own `after` text is shown only once it is checked,
// which is where a give-away belongs.
std::vector<std::string> spoilers(const Lesson& l) {
  std::vector<std::string> found;
  for (const LessonStep& s : l.steps) {
    for (const char* lang : {"en", "zh"}) {
      std::string before = s.text.get(lang);
      for (const Quiz& q : s.quizzes) {
        for (const std::string& sentence : plain_sentences(before)) {
          auto named = [&](const LocalText& option) {
            const std::string words = plain_words(option.get(lang));
            return words.size() > 2 && sentence.find(words) != std::string::npos;
          };
          bool wrong_named = false;
          for (size_t i = 0; i < q.options.size(); ++i)
            if (int(i) != q.answer && named(q.options[i])) wrong_named = true;
          if (q.answer >= 0 && size_t(q.answer) < q.options.size() && named(q.options[size_t(q.answer)]) &&
              !wrong_named)
            found.push_back(l.file + ": step '" + s.id + "' (" + lang + ") names the answer of quiz '" + q.id +
                            "' before it is asked:" + sentence);
        }
        if (!q.after.by_lang.empty()) before += "\n" + q.after.get(lang);
      }
    }
  }
  return found;
}

}  // namespace

TEST_CASE("no lesson names a quiz's answer in the prose shown before it") {
  const LessonSet set = load_embedded_lessons();
  REQUIRE(!set.lessons.empty());
  for (const Lesson& l : set.lessons)
    for (const std::string& spoiler : spoilers(l)) FAIL_CHECK(spoiler);
}

TEST_CASE("the spoiler check finds an answer named before its quiz, and not one kept in 'after'") {
  auto lesson = [](const std::string& text, const std::string& after) {
    const std::string src = "lesson: s\ntitle: S\nstep: a\ntitle: A\ntext:\n  " + text +
                            "\nquiz: q\nquestion: Which?\noption: Flatter rows\noption: Sharper rows\nanswer: 1\n"
                            "explain: Because.\n" + after;
    Lesson l;
    std::vector<LessonError> errors;
    REQUIRE(parse_lesson("s.lesson", src, l, errors));
    return l;
  };
  CHECK(spoilers(lesson("Smaller scores give flatter rows.", "")).size() == 2);  // en, and zh falls back to en
  CHECK(spoilers(lesson("Watch the rows.", "after:\n  Smaller scores give flatter rows.\n")).empty());
  // Prose that names every option gives nothing away.
  CHECK(spoilers(lesson("Flatter rows or sharper rows?", "")).empty());
  // Words, not letters: "flatter rowsy" is not "flatter rows".
  CHECK(spoilers(lesson("They are flatter rowsy.", "")).empty());
}

namespace {

// The numbers written in a text, as absolute values: digits (and a decimal point)
// not glued to a letter, _ or ^ before them, so "d3", "k^3" and "ω_1" are labels.
bool glue(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '^'; }
std::vector<double> numbers_in(const std::string& text) {
  std::vector<double> out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) continue;
    const bool glued = i > 0 && glue(text[i - 1]);
    size_t j = i;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) ||
                               (text[j] == '.' && j + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[j + 1])))))
      ++j;
    if (!glued) out.push_back(std::atof(text.substr(i, j - i).c_str()));
    i = j;
  }
  return out;
}

// The bracketed lists of numbers in a text, "[0, 3]" or "[-0.2, 1]" (a minus may be
// "-" or "−"), with their signs.
std::vector<std::vector<double>> lists_in(const std::string& text) {
  std::vector<std::vector<double>> out;
  for (size_t open = text.find('['); open != std::string::npos; open = text.find('[', open + 1)) {
    const size_t close = text.find(']', open);
    if (close == std::string::npos) break;
    std::string inner = text.substr(open + 1, close - open - 1);
    for (size_t m = inner.find("−"); m != std::string::npos; m = inner.find("−")) inner.replace(m, std::strlen("−"), "-");
    std::vector<double> list;
    bool ok = !inner.empty();
    size_t at = 0;
    while (ok && at <= inner.size()) {
      const size_t comma = std::min(inner.find(',', at), inner.size());
      const std::string item = inner.substr(at, comma - at);
      char* end = nullptr;
      const double v = std::strtod(item.c_str(), &end);
      const char* stop = item.c_str() + item.size();
      ok = end != item.c_str() && std::all_of(static_cast<const char*>(end), stop, [](char c) { return c == ' '; });
      list.push_back(v);
      at = comma + 1;
    }
    if (ok) out.push_back(list);
  }
  return out;
}

// A hint before the last one that gives the stored solution away: it gives every
// assignment of the solution that a text can be seen to give. A setting's word
// ("additive") gives a setting; a matrix or row is given when each of its rows is
// written as a list ("Try [0, 3]"), or when all its numbers are; a number is given
// when it is written (by absolute value). 0, 1 and the whole numbers 2 to 10 do
// not count as given numbers: they stand in too many innocent sentences ("row
// 3", "cos(3 ω_1)"). Only the last hint may give the answer; earlier ones nudge
// and give the idea.
bool is_telling(double v) { return !(v < 10.5 && std::abs(v - std::round(v)) < 1e-9); }

std::vector<std::string> early_answers(const Lesson& l) {
  std::vector<std::string> found;
  for (const LessonStep& s : l.steps)
    for (const Exercise& e : s.exercises)
      for (size_t h = 0; h + 1 < e.hints.size(); ++h)
        for (const char* lang : {"en", "zh"}) {
          const std::string hint = e.hints[h].get(lang);
          const std::vector<double> in_hint = numbers_in(hint);
          const std::vector<std::vector<double>> lists = lists_in(hint);
          const std::string hint_words = plain_words(hint);
          auto written = [&](double v) {
            return std::any_of(in_hint.begin(), in_hint.end(), [&](double x) { return std::abs(x - std::abs(v)) < 1e-6; });
          };
          int visible = 0, given = 0;  // assignments a text can give, and those this hint gives
          for (const Assignment& a : e.solution) {
            if (a.kind == Assignment::Kind::setting && numbers_in(a.text).empty()) {
              ++visible;
              given += hint_words.find(plain_words(a.text)) != std::string::npos;
              continue;
            }
            std::vector<double> values;
            if (a.kind == Assignment::Kind::setting) values = numbers_in(a.text);
            else values.assign(a.value.data(), a.value.data() + a.value.size());
            std::vector<double> telling;
            for (double v : values)
              if (is_telling(std::abs(v))) telling.push_back(v);
            bool rows_written = a.kind != Assignment::Kind::setting && a.kind != Assignment::Kind::cell && a.value.cols() >= 2;
            for (Eigen::Index r = 0; rows_written && r < a.value.rows(); ++r)
              rows_written = std::any_of(lists.begin(), lists.end(), [&](const std::vector<double>& list) {
                if (list.size() != size_t(a.value.cols())) return false;
                for (Eigen::Index c = 0; c < a.value.cols(); ++c)
                  if (std::abs(list[size_t(c)] - double(a.value(r, c))) > 1e-6) return false;
                return true;
              });
            const bool can_see = !telling.empty() || (a.kind != Assignment::Kind::setting && a.kind != Assignment::Kind::cell);
            if (!can_see) continue;
            ++visible;
            given += rows_written || (!telling.empty() && std::all_of(telling.begin(), telling.end(), written));
          }
          if (visible > 0 && given == visible)
            found.push_back(l.file + ": step '" + s.id + "' exercise '" + e.id + "' hint " + std::to_string(h + 1) + " (" +
                            lang + ") gives the solution (" + e.solution_text + ") before the last hint: " + hint);
        }
  return found;
}

}  // namespace

TEST_CASE("no hint but an exercise's last gives its stored solution") {
  const LessonSet set = load_embedded_lessons();
  REQUIRE(!set.lessons.empty());
  for (const Lesson& l : set.lessons)
    for (const std::string& early : early_answers(l)) FAIL_CHECK(early);
}

TEST_CASE("the early-answer check finds a solution in a hint before the last, and not in the last") {
  auto lesson = [](const std::string& hints, const std::string& solution) {
    const std::string src = "lesson: s\ntitle: S\nstep: a\ntitle: A\ntext:\n  Go.\nexercise: e\ngoal: Do it.\n"
                            "check: weights[0, 0] > 0.5\n" + hints + "solution: " + solution + "\n";
    Lesson l;
    std::vector<LessonError> errors;
    REQUIRE(parse_lesson("s.lesson", src, l, errors));
    return l;
  };
  CHECK(early_answers(lesson("hint: Try [0, 3].\nhint: Think.\n", "q = [[0, 3]]")).size() == 2);  // en, zh falls back
  CHECK(early_answers(lesson("hint: Think.\nhint: Try [0, 3].\n", "q = [[0, 3]]")).empty());
  CHECK(early_answers(lesson("hint: Try -0.5 in d2.\nhint: Go.\n", "q[cats, d2] = -0.5")).size() == 2);
  CHECK(early_answers(lesson("hint: Column d3 matters.\nhint: Go.\n", "q = [[0, 3]]")).empty());  // a label
  CHECK(early_answers(lesson("hint: Use the additive score.\nhint: Go.\n", "attention = additive")).size() == 2);
  CHECK(early_answers(lesson("hint: Not the dot score.\nhint: Go.\n", "attention = additive")).empty());
  CHECK(early_answers(lesson("hint: Try 4 and 2.\nhint: Go.\n", "w_q[d2, d3] = 4; w_q[d2, d4] = 3")).empty());
  CHECK(early_answers(lesson("hint: Try 4 and 3.5.\nhint: Go.\n", "w_q[d2, d3] = 4; w_q[d2, d4] = 3.5")).size() == 2);
  CHECK(early_answers(lesson("hint: q = [−2, 2].\nhint: Go.\n", "q = [[-2, 2]]")).size() == 2);  // a typographic minus
  CHECK(early_answers(lesson("hint: Not [2, 2].\nhint: Go.\n", "q = [[-2, 2]]")).empty());
  CHECK(early_answers(lesson("hint: k^3, row 3 and cos(3 ω_1).\nhint: Go.\n", "base = 3")).empty());
  CHECK(early_answers(lesson("hint: d_k = 256?\nhint: Go.\n", "d_k = 256")).size() == 2);
  // Part of the answer is not the answer: the setting without the matrix.
  CHECK(early_answers(lesson("hint: Use learned ones.\nhint: Go.\n", "projection = learned; w_q = [[0, 3], [-1, 0]]")).empty());
  CHECK(early_answers(lesson("hint: Learned, [0, 3] and [-1, 0].\nhint: Go.\n", "projection = learned; w_q = [[0, 3], [-1, 0]]")).size() == 2);
}

TEST_CASE("every link to a step names an existing step by its title, in each language") {
  const LessonSet set = load_embedded_lessons();
  REQUIRE(!set.lessons.empty());
  int links = 0;
  for (const Lesson& l : set.lessons)
    for (const LessonStep& s : l.steps)
      for (const char* lang : {"en", "zh"}) {
        std::string text = s.text.get(lang);
        for (const Quiz& q : s.quizzes) text += "\n" + q.after.get(lang);
        const std::string at = l.file + ": step '" + s.id + "' (" + lang + ")";
        for (const StepLink& link : step_links(text)) {
          ++links;
          CAPTURE(at);
          CAPTURE(link.words);
          const auto to = std::find_if(set.lessons.begin(), set.lessons.end(),
                                       [&](const Lesson& x) { return x.id == link.lesson; });
          REQUIRE_MESSAGE(to != set.lessons.end(), "no lesson " << link.lesson);
          // A number names a step of layout 1 (an old link); a lesson names steps by id.
          REQUIRE_MESSAGE(!link.step_id.empty(), "name the step by its id, not by number " << link.step);
          const int step = step_index(*to, link.step_id);
          REQUIRE_MESSAGE(step >= 0, link.lesson << " has no step " << link.step_id);
          CHECK(link.words == to->steps[size_t(step)].title.get(lang));
        }
        // A bare "#lesson/3" would show as it is: every one must be inside a link.
        const std::string rest = link_words_only(text);
        for (size_t i = rest.find('#'); i != std::string::npos; i = rest.find('#', i + 1)) {
          const size_t slash = rest.find('/', i);
          const bool bare = slash != std::string::npos && slash > i + 1 &&
                            std::all_of(rest.begin() + long(i) + 1, rest.begin() + long(slash), [](char c) {
                              return std::islower(static_cast<unsigned char>(c)) || c == '-';
                            });
          CHECK_MESSAGE(!bare, at << ": a step link without words at: " << rest.substr(i, 40));
        }
      }
  CHECK(links >= 60);  // the recap's map, in two languages
}

TEST_CASE("step links: words and target are read, anything else stays text") {
  const std::vector<StepLink> links =
      step_links("see [Keys, values](#focus/three-stages) and [A](#x_y-2/12); [no](focus/3) [no](#f/X) [a]b");
  REQUIRE(links.size() == 2);
  CHECK(links[0].words == "Keys, values");
  CHECK(links[0].lesson == "focus");
  CHECK(links[0].step_id == "three-stages");
  CHECK(links[0].step == 0);
  CHECK(links[1].lesson == "x_y-2");
  CHECK(links[1].step_id.empty());
  CHECK(links[1].step == 12);  // a number: a step of layout 1
  CHECK(link_words_only("see [Keys, values](#focus/three-stages).") == "see Keys, values.");
  CHECK(link_words_only("[no](#F/1) [x](#a/1234) [y](#a/b.c)") == "[no](#F/1) [x](#a/1234) [y](#a/b.c)");
}

TEST_CASE("a well-formed lesson parses into steps, params and paragraphs") {
  Lesson l;
  std::vector<LessonError> errors;
  REQUIRE(parse_lesson("tiny.lesson", kGood, l, errors));
  REQUIRE(validate_lesson(l, lab_demos(), errors));
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
  const DemoInputs in = demo_defaults(s, "en");
  REQUIRE(in.tokens.size() == 2);
  CHECK(in.tokens[1] == "b");
}

TEST_CASE("malformed lessons are reported with file and line") {
  auto with = [](const std::string& from, const std::string& to) { return replaced(kGood, from, to); };
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
  CHECK(first_error(std::string(kGood) + std::string(kMaxLessonBytes, '#')) ==
        "lessons/t.lesson: the lesson file is too large (" + std::to_string(std::string(kGood).size() + kMaxLessonBytes) +
            " bytes, at most 1048576)");
  CHECK(first_error("lesson: x\ntitle: X\n") == "lessons/t.lesson: lesson has no steps");
}

TEST_CASE("one broken lesson does not stop the others from loading") {
  Files files = {
      {"index.txt", "# order\ngood.lesson\nbroken.lesson\nmissing.lesson\n"},
      {"good.lesson", kGood},
      {"broken.lesson", "lesson: broken\ntitle: B\nstep: s\ntitle: S\ntext:\n  x\ndemo: qkv_basic\n"},
  };
  const LessonSet set = load_lessons(read_files, &files, lab_demos());
  REQUIRE(set.lessons.size() == 1);
  CHECK(set.lessons[0].id == "tiny");
  REQUIRE(set.errors.size() >= 2);
  CHECK(set.errors[0].to_string() == "lessons/broken.lesson:3: missing parameter 'tokens'");
  CHECK(set.errors.back().to_string() == "lessons/index.txt:4: lists 'missing.lesson', which does not exist");
}

TEST_CASE("the same lesson id in two files is refused") {
  Files files = {{"index.txt", "a.lesson\nb.lesson\n"}, {"a.lesson", kGood}, {"b.lesson", kGood}};
  const LessonSet set = load_lessons(read_files, &files, lab_demos());
  CHECK(set.lessons.size() == 1);
  REQUIRE(set.errors.size() == 1);
  CHECK(set.errors[0].to_string() == "lessons/b.lesson:1: lesson id 'tiny' is already used by another file");
}

// ---------------------------------------------------------------- exercises and quizzes
namespace {

const char* kWithExercise =
    "lesson: ex\n"
    "title: Ex\n"
    "step: one\n"
    "title: One\n"
    "demo: qkv_basic\n"
    "tokens: a | b\n"
    "q: [[1, 0], [0, 1]]\n"
    "k: [[1, 0], [0, 1]]\n"
    "v: [[1, 2], [3, 4]]\n"
    "text:\n"
    "  Words.\n"
    "exercise: e\n"
    "goal: Make a look at b.\n"
    "goal.zh: 让 a 看 b。\n"
    "check: weights[a, b] > 0.6 and weights[0, 0] < 0.4\n"
    "hint: Turn q_a.\n"
    "hint.zh: 转动 q_a。\n"
    "hint: Make it long.\n"
    "solution: q[a] = [0, 3]\n"
    "quiz: p\n"
    "question: Which is larger?\n"
    "option: the first\n"
    "option.zh: 第一个\n"
    "option:\n"
    "  the second,\n"
    "  written as a block\n"
    "answer: 2\n"
    "explain: Because.\n"
    "hides: weights, output\n";

}  // namespace

TEST_CASE("exercises and quizzes parse into their step") {
  Lesson l;
  std::vector<LessonError> errors;
  REQUIRE(parse_lesson("ex.lesson", kWithExercise, l, errors));
  REQUIRE(validate_lesson(l, lab_demos(), errors));
  const LessonStep& s = l.steps.at(0);
  REQUIRE(s.exercises.size() == 1);
  const Exercise& e = s.exercises[0];
  CHECK(e.id == "e");
  CHECK(e.line == 12);
  CHECK(e.goal.get("zh") == "让 a 看 b。");
  REQUIRE(e.hints.size() == 2);
  CHECK(e.hints[0].get("zh") == "转动 q_a。");
  CHECK(e.hints[1].get("zh") == "Make it long.");  // no translation: falls back to English
  REQUIRE(e.check.size() == 2);
  CHECK(e.check[0].lhs.matrix == "weights");
  CHECK(e.check[0].lhs.row == "a");
  CHECK(e.check[0].lhs.col == "b");
  CHECK(e.check[0].op == CompareOp::greater);
  CHECK(e.check[0].rhs.number == doctest::Approx(0.6f));
  CHECK(e.check[1].op == CompareOp::less);
  REQUIRE(e.solution.size() == 1);
  CHECK(e.solution[0].kind == Assignment::Kind::row);
  REQUIRE(s.quizzes.size() == 1);
  const Quiz& q = s.quizzes[0];
  REQUIRE(q.options.size() == 2);
  CHECK(q.options[1].get("en") == "the second, written as a block");
  CHECK(q.answer == 1);
  CHECK(q.hides == std::vector<std::string>{"weights", "output"});
  // Starting values: not met; the stored solution meets it.
  DemoInputs in = demo_defaults(s, "en");
  DemoOutputs out = run_demo(s.demo, in);
  CHECK(!exercise_met(e, in, out));
  std::string why;
  REQUIRE(apply_solution(e, out, in, &why));
  CHECK(in.mats.at("q")(0, 1) == 3.0f);
  CHECK(exercise_met(e, in, run_demo(s.demo, in)));
}

TEST_CASE("mistakes in exercises and quizzes are reported with file and line") {
  auto with = [](const std::string& from, const std::string& to) { return replaced(kWithExercise, from, to); };
  CHECK(first_error(with("exercise: e\n", "")) ==
        "lessons/t.lesson:12: 'goal' belongs to an exercise: write 'exercise: <id>' first");
  CHECK(first_error(with("hint: Turn q_a.\n", "")) == "lessons/t.lesson:16: 'hint.zh' must follow its English 'hint:'");
  CHECK(first_error(with("> 0.6 and", "= 0.6 and")) ==
        "lessons/t.lesson:15: check: 'weights[a, b] = 0.6' needs a comparison: <, <=, > or >=");
  CHECK(first_error(with("answer: 2", "answer: 4")) == "lessons/t.lesson:20: quiz 'p' has 2 options; answer 4 does not exist");
  // A number a double holds but a float cannot (it would become infinity).
  CHECK(first_error(with("> 0.6 and", "> 1e39 and")) ==
        "lessons/t.lesson:15: check: '1e39' is not finite or too large for a float (magnitude below 3.4e+38)");
  CHECK(first_error(with("text:\n  Words.\n", "temperature: 1e39\ntext:\n  Words.\n")) ==
        "lessons/t.lesson:10: 'temperature': number is not finite or too large for a float (magnitude below 3.4e+38)");
  CHECK(first_error(with("answer: 2", "answer: two")) ==
        "lessons/t.lesson:27: answer is the number of the right option, counting from 1 (at most 100)");
  // 2^32 + 1 used to wrap around to option 1 through an int.
  CHECK(first_error(with("answer: 2", "answer: 4294967297")) ==
        "lessons/t.lesson:27: answer is the number of the right option, counting from 1 (at most 100)");
  CHECK(first_error(with("hides: weights", "hides: weights, nope")) ==
        "lessons/t.lesson:20: quiz 'p' hides 'nope', which is not a panel of this demo");
  CHECK(first_error(with("solution: q[a] = [0, 3]\n", "")) == "lessons/t.lesson:12: exercise 'e' has no solution");
  CHECK(first_error(with("solution: q[a] = [0, 3]", "solution: z[a] = [0, 3]")) ==
        "lessons/t.lesson:12: exercise 'e' solution: 'z[a] = [0, 3]': no editable matrix 'z'");
  CHECK(first_error(with("solution: q[a] = [0, 3]", "solution: q[a] = [0, 3, 1]")) ==
        "lessons/t.lesson:12: exercise 'e' solution: 'q[a] = [0, 3, 1]': a row of 'q' has 2 numbers");
  CHECK(first_error(with("solution: q[a] = [0, 3]", "solution: score = loud")) ==
        "lessons/t.lesson:12: exercise 'e' solution makes the demo fail: 'score' must be one of dot, scaled_dot, cosine "
        "(not 'loud')");
  CHECK(first_error(with("weights[a, b]", "weights[a, zebra]")) ==
        "lessons/t.lesson:12: exercise 'e' check: 'weights' has no column 'zebra'");
  CHECK(first_error(with("quiz: p", "quiz: e")) == "lessons/t.lesson:20: 'e' is already an exercise or quiz of this step");
  CHECK(first_error(with("goal.zh: 让 a 看 b。", "goal: again")) == "lessons/t.lesson:14: 'goal' given twice for this exercise");
  CHECK(first_error(with("explain: Because.\n", "")) == "lessons/t.lesson:20: quiz 'p' has no English explanation");
  CHECK(first_error(with("explain: Because.\n", "explain: Because.\nafter.zh: 之后。\n")) ==
        "lessons/t.lesson:20: quiz 'p' has 'after' text without English");
  CHECK(first_error(with("explain: Because.\n", "explain: Because.\nafter: Once.\nafter: Twice.\n")) ==
        "lessons/t.lesson:30: 'after' given twice for this quiz");
  CHECK(first_error(with("option: the first\noption.zh: 第一个\n", "")) == "lessons/t.lesson:20: quiz 'p' needs at least 2 options");
  CHECK(first_error(with("goal.zh: 让 a 看 b。", "goal.fr: x")) == "lessons/t.lesson:14: unknown language 'fr' (use en or zh)");
  CHECK(first_error(with("solution: q[a] = [0, 3]", "solution: q[a] = 3")) ==
        "lessons/t.lesson:19: solution: 'q[a] = 3': a row takes a list like [0.5, 1]");
  CHECK(first_error(with("demo: qkv_basic\ntokens: a | b\nq: [[1, 0], [0, 1]]\nk: [[1, 0], [0, 1]]\nv: [[1, 2], [3, 4]]\n", "")) ==
        "lessons/t.lesson:7: an exercise needs a step with a demo");
}

// ---------------------------------------------------------------- values by language
namespace {

// A step whose Chinese reader starts from another q and another score, and whose
// exercise is checked and solved on that reader's own values.
const char* kByLanguage =
    "lesson: both\n"
    "title: Both\n"
    "step: one\n"
    "title: One\n"
    "demo: qkv_basic\n"
    "tokens: a | b\n"
    "q: [[1, 0], [0, 1]]\n"
    "q.zh: [[0, 1], [1, 0]]\n"
    "k: [[1, 0], [0, 1]]\n"
    "v: [[1, 2], [3, 4]]\n"
    "score.zh: cosine\n"
    "text:\n"
    "  Words.\n"
    "exercise: e\n"
    "goal: Make a look at b.\n"
    "goal.zh: 让 a 看自己。\n"
    "check: weights[a, b] > 0.6\n"
    "check.zh: weights[a, a] > 0.6\n"
    "hint: Turn q_a.\n"
    "solution: q[a] = [0, 3]\n"
    "solution.zh: q[a] = [3, 0]\n";

}  // namespace

TEST_CASE("a parameter, a check and a solution may be given per language, the plain one for every other language") {
  Lesson l;
  std::vector<LessonError> errors;
  REQUIRE(parse_lesson("both.lesson", kByLanguage, l, errors));
  REQUIRE(validate_lesson(l, lab_demos(), errors));
  const LessonStep& s = l.steps.at(0);
  CHECK(step_languages(s) == std::vector<std::string>{"en", "zh"});
  CHECK(!s.params.count("score"));
  CHECK(s.local_params.at("zh").at("q").line == 8);
  CHECK(params_for(s, "zh").at("q").matrix(0, 1) == 1.0f);
  CHECK(params_for(s, "en").at("q").matrix(0, 1) == 0.0f);
  CHECK(params_for(s, "fr").at("q").matrix(0, 1) == 0.0f);  // a language without its own: the plain values
  // The demos are asked in the reader's language: the starting values differ.
  const DemoInputs en = demo_defaults(s, "en"), zh = demo_defaults(s, "zh");
  CHECK(en.settings.at("score") == "dot");
  CHECK(zh.settings.at("score") == "cosine");
  CHECK(zh.mats.at("q")(0, 1) == 1.0f);
  CHECK(zh.mats.at("k") == en.mats.at("k"));
  // Each reader's exercise: its own check, solved by its own solution, on its own values.
  const Exercise& e = s.exercises.at(0);
  CHECK(exercise_for(e, "en").check_text == "weights[a, b] > 0.6");
  CHECK(exercise_for(e, "zh").check_text == "weights[a, a] > 0.6");
  CHECK(exercise_for(e, "zh").solution_text == "q[a] = [3, 0]");
  CHECK(exercise_for(e, "zh").local.empty());
  for (const char* lang : {"en", "zh"}) {
    CAPTURE(lang);
    const LessonStep local = step_in_language(s, lang);
    CHECK(local.local_params.empty());
    const Exercise& ex = local.exercises.at(0);
    DemoInputs in = demo_defaults(s, lang);
    const DemoOutputs out = run_demo(s.demo, in);
    CHECK(!exercise_met(ex, in, out));
    std::string why;
    REQUIRE_MESSAGE(apply_solution(ex, out, in, &why), why);
    CHECK(exercise_met(ex, in, run_demo(s.demo, in)));
  }
  // The English solution does not solve the Chinese reader's exercise.
  DemoInputs in = zh;
  const DemoOutputs out = run_demo(s.demo, in);
  REQUIRE(apply_solution(exercise_for(e, "en"), out, in));
  CHECK(!exercise_met(exercise_for(e, "zh"), in, run_demo(s.demo, in)));
  // Only the languages with values of their own are checked twice.
  REQUIRE(parse_lesson("tiny.lesson", kGood, l, errors));
  CHECK(step_languages(l.steps.at(0)) == std::vector<std::string>{"en"});
}

TEST_CASE("a language's parameters, checks and solutions are checked against the demo, with their line") {
  auto with = [](const std::string& from, const std::string& to) { return replaced(kByLanguage, from, to); };
  CHECK(first_error(kByLanguage).empty());
  // Malformed, or not what the demo takes.
  CHECK(first_error(with("q.zh: [[0, 1], [1, 0]]", "q.zh: [[0, 1], [1]]")) ==
        "lessons/t.lesson:8: 'q.zh': rows have different lengths");
  CHECK(first_error(with("q.zh: [[0, 1], [1, 0]]", "q.zh: [[0, 1]]")) ==
        "lessons/t.lesson:8: 'q' needs one row per token (2) (zh)");
  CHECK(first_error(with("score.zh: cosine", "colour.zh: red")) ==
        "lessons/t.lesson:11: unknown parameter 'colour' for this demo (zh)");
  CHECK(first_error(with("score.zh: cosine", "score.zh: loud")).find("lessons/t.lesson:11: 'score' must be one of") == 0);
  CHECK(first_error(with("score.zh: cosine", "score.zh: cosine\nscore.zh: dot")) ==
        "lessons/t.lesson:12: 'score.zh' given twice in this step");
  CHECK(first_error(with("score.zh: cosine", "score.en: cosine")) ==
        "lessons/t.lesson:11: 'score.en': write 'score:', the value for every language without its own");
  CHECK(first_error(with("score.zh: cosine", "score.fr: cosine")) == "lessons/t.lesson:11: unknown language 'fr' (use en or zh)");
  CHECK(first_error(with("demo: qkv_basic", "demo.zh: qkv_basic")) ==
        "lessons/t.lesson:5: 'demo' cannot have a language: only texts, demo parameters, check and solution can");
  // A check or solution in one language that names nothing the demo computes.
  CHECK(first_error(with("check.zh: weights[a, a] > 0.6", "check.zh: nothing[0, 0] > 0.6")) ==
        "lessons/t.lesson:14: exercise 'e' check (zh): no matrix 'nothing' in this demo");
  CHECK(first_error(with("check.zh: weights[a, a] > 0.6", "check.zh: 1 < 2")) ==
        "lessons/t.lesson:18: check.zh: '1 < 2' compares two numbers: one side must be a matrix cell");
  CHECK(first_error(with("check.zh: weights[a, a] > 0.6", "check.zh: weights[a, a] > 0.6\ncheck.zh: weights[a, b] > 0")) ==
        "lessons/t.lesson:19: 'check.zh' given twice for this exercise");
  CHECK(first_error(with("solution.zh: q[a] = [3, 0]", "solution.zh: z[a] = [3, 0]")) ==
        "lessons/t.lesson:14: exercise 'e' solution (zh): 'z[a] = [3, 0]': no editable matrix 'z'");
  CHECK(first_error(with("solution.zh: q[a] = [3, 0]", "solution.zh: score = loud")).find(
            "lessons/t.lesson:14: exercise 'e' solution makes the demo fail (zh): 'score' must be one of") == 0);
  // A problem of the plain values is said once, not again for each language.
  Lesson l;
  std::vector<LessonError> errors;
  REQUIRE(parse_lesson("t.lesson", with("k: [[1, 0], [0, 1]]", "k: [[1, 0]]"), l, errors));
  CHECK(!validate_lesson(l, lab_demos(), errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].to_string() == "lessons/t.lesson:9: 'k' needs one row per token (2)");
}

// ---------------------------------------------------------------- the README
using attn::test::read_repo_file;

TEST_CASE("the README's lesson order is the index's") {
  std::string readme, index;
  if (!read_repo_file("lessons/README.md", readme) || !read_repo_file("lessons/index.txt", index)) {
    MESSAGE("lessons/README.md is not readable here (WebAssembly without host files): skipped");
    return;
  }
  const size_t from = readme.find("## Lesson order"), to = readme.find("\n## ", from + 1);
  REQUIRE(from != std::string::npos);
  const std::string section = readme.substr(from, to - from);
  std::vector<std::string> listed, indexed;
  for (size_t at = section.find("\n"); at != std::string::npos; at = section.find('\n', at + 1)) {
    // "N. `file.lesson`: ..." starts a line.
    const size_t tick = section.find(". `", at + 1), end = tick == std::string::npos ? tick : section.find('`', tick + 3);
    const size_t eol = section.find('\n', at + 1);
    if (tick == std::string::npos || end == std::string::npos || (eol != std::string::npos && tick > eol)) continue;
    if (!std::isdigit(static_cast<unsigned char>(section[at + 1]))) continue;
    listed.push_back(section.substr(tick + 3, end - tick - 3));
  }
  size_t pos = 0;
  while (pos < index.size()) {
    size_t nl = index.find('\n', pos);
    if (nl == std::string::npos) nl = index.size();
    std::string name = index.substr(pos, nl - pos);
    pos = nl + 1;
    while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.pop_back();
    if (!name.empty() && name[0] != '#') indexed.push_back(name);
  }
  CHECK(!listed.empty());
  CHECK(listed == indexed);
}

TEST_CASE("the README's curriculum table covers A1-A6, B1-B3, C1-C2, D1-D5, E1-E4, F1-F9, G1, H1, I1-I5 with steps that have demos") {
  std::string readme;
  if (!read_repo_file("lessons/README.md", readme)) {
    MESSAGE("lessons/README.md is not readable here (WebAssembly without host files): skipped");
    return;
  }
  const LessonSet set = load_embedded_lessons();
  std::map<std::string, std::vector<std::string>> table;  // item -> "lesson/step" entries
  size_t pos = 0;
  while (pos < readme.size()) {
    size_t nl = readme.find('\n', pos);
    if (nl == std::string::npos) nl = readme.size();
    const std::string line = readme.substr(pos, nl - pos);
    pos = nl + 1;
    // Rows like "| A1 | concept | `lesson/step`, `lesson/step` |".
    if (line.size() < 6 || line.compare(0, 2, "| ") != 0 || !std::isupper(static_cast<unsigned char>(line[2])) ||
        !std::isdigit(static_cast<unsigned char>(line[3])) || line[4] != ' ')
      continue;
    const std::string item = line.substr(2, 2);
    const size_t last = line.rfind('|', line.size() - 2);
    for (size_t a = line.find('`', last); a != std::string::npos; a = line.find('`', a + 1)) {
      const size_t b = line.find('`', a + 1);
      REQUIRE(b != std::string::npos);
      table[item].push_back(line.substr(a + 1, b - a - 1));
      a = b;
    }
  }
  const std::vector<std::string> items = {"A1", "A2", "A3", "A4", "A5", "A6", "B1", "B2", "B3", "C1", "C2", "D1",
                                          "D2", "D3", "D4", "D5", "E1", "E2", "E3", "E4", "F1", "F2", "F3", "F4",
                                          "F5", "F6", "F7", "F8", "F9", "G1", "H1", "I1", "I2", "I3", "I4", "I5"};
  for (const auto& item : items) {
    CAPTURE(item);
    REQUIRE(table.count(item));
    CHECK(!table[item].empty());
    for (const auto& ref : table[item]) {
      CAPTURE(ref);
      const size_t slash = ref.find('/');
      REQUIRE(slash != std::string::npos);
      const LessonStep* found = nullptr;
      for (const Lesson& l : set.lessons)
        if (l.id == ref.substr(0, slash))
          for (const LessonStep& s : l.steps)
            if (s.id == ref.substr(slash + 1)) found = &s;
      REQUIRE_MESSAGE(found, "no such lesson step");
      CHECK_MESSAGE(!found->demo.empty(), "the step has no live demo");
    }
  }
  CHECK(table.size() == items.size());  // nothing else, no typo'd item

  // The worked example in the README is a valid step.
  const size_t start = readme.find("### Worked example");
  REQUIRE(start != std::string::npos);
  const size_t open = readme.find("```\n", start), close = readme.find("```", open + 4);
  REQUIRE(close != std::string::npos);
  std::string example = "lesson: example\ntitle: Example\n" + readme.substr(open + 4, close - open - 4);
  Lesson l;
  std::vector<LessonError> errors;
  CHECK((parse_lesson("example.lesson", example, l, errors) && validate_lesson(l, lab_demos(), errors)));
  for (const auto& e : errors) FAIL_CHECK(e.to_string());
  REQUIRE(l.steps.size() == 1);
  CHECK(l.steps[0].exercises.size() == 1);
  CHECK(l.steps[0].quizzes.size() == 1);
}

TEST_CASE("checks and solutions name labels that hold <, >, commas or brackets by quoting them") {
  auto replaced = [](std::string t, const std::vector<std::pair<std::string, std::string>>& changes) {
    for (const auto& [from, to] : changes) {
      const size_t at = t.find(from);
      REQUIRE(at != std::string::npos);
      t.replace(at, from.size(), to);
    }
    return t;
  };
  const std::string text = replaced(kWithExercise, {
      {"tokens: a | b", "tokens: <eos> | a, b [x]"},
      {"check: weights[a, b] > 0.6", "check: weights[\"<eos>\", \"a, b [x]\"] > 0.6"},
      {"solution: q[a] = [0, 3]", "solution: q[\"<eos>\"] = [0, 3]; k[\"a, b [x]\", 0] = 0"},
  });
  Lesson l;
  std::vector<LessonError> errors;
  REQUIRE(parse_lesson("q.lesson", text, l, errors));
  REQUIRE_MESSAGE(validate_lesson(l, lab_demos(), errors), errors[0].to_string());
  const Exercise& e = l.steps.at(0).exercises.at(0);
  REQUIRE(e.check.size() == 2);
  CHECK(e.check[0].lhs.matrix == "weights");
  CHECK(e.check[0].lhs.row == "\"<eos>\"");
  CHECK(e.check[0].lhs.col == "\"a, b [x]\"");
  CHECK(e.check[0].op == CompareOp::greater);
  REQUIRE(e.solution.size() == 2);
  DemoInputs in = demo_defaults(l.steps[0], "en");
  const DemoOutputs out = run_demo(l.steps[0].demo, in);
  CHECK(!exercise_met(e, in, out));
  std::string why;
  REQUIRE_MESSAGE(apply_solution(e, out, in, &why), why);
  CHECK(in.mats.at("q")(0, 1) == 3.0f);
  CHECK(in.mats.at("k")(1, 0) == 0.0f);
  CHECK(exercise_met(e, in, run_demo(l.steps[0].demo, in)));
  // A quoted "1" is a label, never the index 1; an unquoted <eos> is an error, not a misreading.
  std::vector<Condition> c;
  REQUIRE(parse_check("weights[\"1\", 0] > 0.5", c, why));
  CHECK(c[0].lhs.row == "\"1\"");
  CHECK(first_error(replaced(text, {{"weights[\"<eos>\", \"a, b [x]\"]", "weights[<eos>, \"a, b [x]\"]"}})) ==
        "lessons/t.lesson:15: check: 'weights[' is neither a number nor a cell like weights[0, 2]");
  CHECK_FALSE(parse_check("weights[\"<eos>, 0] > 0.5", c, why));  // an unclosed quote
  CHECK_FALSE(parse_check("weights[\"\", 0] > 0.5", c, why));      // an empty label
}

// ---------------------------------------------------------------- wrapped lines of Chinese
TEST_CASE("wrapped lines of Chinese join without a space, Latin next to Chinese keeps its space") {
  // Chinese to Chinese, and a full-width mark on either side: nothing between.
  CHECK(joins_without_space("它分三步完成", "先用每个位置的查询"));
  CHECK(joins_without_space("每一对得到一个原始分数；", "再把每一行分数变成权重"));
  CHECK(joins_without_space("分数", "（原始的）"));
  CHECK(joins_without_space("softmax（", "归一化）"));
  CHECK(joins_without_space("得到的权重，", "softmax 之后"));
  // Latin or a digit next to a Han character: the space stays.
  CHECK_FALSE(joins_without_space("使用", "softmax 把分数变成权重"));
  CHECK_FALSE(joins_without_space("最后是 softmax", "再求加权和"));
  CHECK_FALSE(joins_without_space("一共", "600 条评论"));
  CHECK_FALSE(joins_without_space("First line", "continues here."));
  // Curly quotes take the script of what they hold.
  CHECK(joins_without_space("查询要的是“甜的东西”", "所以苹果分走了权重"));
  CHECK(joins_without_space("编码器读入", "“我爱中国。”"));
  CHECK_FALSE(joins_without_space("让 “cats”", "主要关注 “mice”"));
  CHECK_FALSE(joins_without_space("看向", "“sat”，照抄过来"));

  const std::string src =
      "lesson: j\ntitle: J\nstep: a\ntitle: A\ntext:\n"
      "  Two lines\n  of English.\n"
      "text.zh:\n"
      "  注意力分三步完成。\n  先打分，\n  再用 softmax\n  归一化，最后用\n  softmax 得到的权重\n  “求和”\n  ，一共\n  3 步。\n";
  Lesson l;
  std::vector<LessonError> errors;
  REQUIRE(parse_lesson("j.lesson", src, l, errors));
  CHECK(l.steps[0].text.get("en") == "Two lines of English.");
  CHECK(l.steps[0].text.get("zh") == "注意力分三步完成。先打分，再用 softmax 归一化，最后用 softmax 得到的权重“求和”，一共 3 步。");
}

// ---------------------------------------------------------------- layouts 1 to 4 against today's lessons
// Nothing a learner saved breaks. Saved progress and old links name steps by
// position, and saved quiz answers name options by position. Below are layout 1,
// the lessons at commit 4fc1bf1, layout 2, the lessons at commit 9b3fcce,
// layout 3, the lessons at commit 1e080ec, and layout 4, the lessons at commit
// d13a65a (before issue 38's third pass split steps), as saved state and links
// see them: each lesson's steps in order, each quiz with
// its right option (from 1) and its options' English text, each exercise. (Made
// once from the lesson files at those commits.) Every old link and saved place
// must land on the step of the same id, every saved answer on the same option,
// every hint count on its exercise.
namespace {

const char* kLayout1 = R"layout(
steps first-look: idea | three-tokens | scaled
quiz first-look/three-tokens/who-wins: 1 | cats | chase | mice
exercise first-look/three-tokens/cats-to-mice
quiz first-look/scaled/sharper-or-flatter: 2 | Sharper: the largest weight in each row grows | Flatter: the weights move towards equal shares | Exactly the same: softmax ignores the scale
steps focus: reading | bird | three-stages | soft-vs-hard
quiz focus/reading/predict-focus: 2 | bridge | 1998 | years
exercise focus/reading/ask-what
exercise focus/bird/beak-only
exercise focus/three-stages/ask-for-lime
quiz focus/soft-vs-hard/predict-hard: 2 | A mix of apple and banana | Exactly banana's value | Exactly apple's value
exercise focus/soft-vs-hard/almost-hard
steps inside-the-score: geometry | relevance-row | values | projections
quiz inside-the-score/geometry/longer-key: 2 | It stays the same: only the angle matters | It doubles | It halves
exercise inside-the-score/geometry/right-angle
exercise inside-the-score/geometry/favour-mice
exercise inside-the-score/relevance-row/chase-irrelevant
quiz inside-the-score/values/same-values: 1 | Exactly u | Zero | It depends on the weights
exercise inside-the-score/values/mice-in-action
quiz inside-the-score/projections/symmetric: 1 | Also 0.40 | Less than 0.40 | It cannot be known from this
exercise inside-the-score/projections/one-way
steps scoring: five-scores | dk-slider
quiz scoring/five-scores/double-q: 2 | Only dot and scaled dot | All except cosine | All five
exercise scoring/five-scores/general-to-mice
quiz scoring/dk-slider/entropy-trend: 2 | It rises towards the uniform value | It falls towards 0 | It stays about the same
exercise scoring/dk-slider/saturate
steps kinds: modes | local-p | train-hard | cross-self
quiz kinds/modes/hard-flip: 2 | It changes a little, in proportion to the nudge | It jumps from v_cat to v_mat | It does not change
exercise kinds/modes/forget-mat
exercise kinds/local-p/look-right
quiz kinds/train-hard/hard-backprop: 2 | soft | hard, backprop | hard, REINFORCE | hard, Gumbel
quiz kinds/cross-self/rows-after-switch: 2 | 3, one per target word | 4, one per source token | 7, one per token of both sentences
exercise kinds/cross-self/love-to-ai
steps self-attention: matrix-form | multihead | heads-vs-layers
exercise self-attention/matrix-form/a3-to-a1
quiz self-attention/multihead/params-per-heads: 2 | Twice as many | The same | Half as many
exercise self-attention/multihead/sat-to-cat
quiz self-attention/heads-vs-layers/unit1-same: 2 | They change, because the arrangement changed | They stay exactly the same | They become uniform
exercise self-attention/heads-vs-layers/same-unit2
steps position: shuffle | sinusoids
quiz position/shuffle/reversed: 1 | The same numbers as before, now in the last row | Different numbers, because "dog" is now the object | All zeros
exercise position/shuffle/break-symmetry
quiz position/sinusoids/fastest: 1 | The first pair (i = 0) | The last pair | All columns change at the same speed
exercise position/sinusoids/fast-clock
steps heads-parallel: what-heads-learn | parallel | measured
quiz heads-parallel/what-heads-learn/path-length: 1 | 1 in self-attention, 5 in an RNN | 5 in both | 1 in both
exercise heads-parallel/what-heads-learn/look-ahead
quiz heads-parallel/parallel/one-lane: 1 | The RNN | Self-attention | Both the same
exercise heads-parallel/parallel/enough-lanes
steps encoder-decoder: alignment | decoding | without-attention
quiz encoder-decoder/alignment/love-goes-to: 2 | 我 | 爱 | 中国 | 。
exercise encoder-decoder/decoding/fastest-score
steps rnn-vs-attention: distance | pooling | order
quiz rnn-vs-attention/distance/which-falls: 3 | the RNN | the LSTM | self-attention | all three
exercise rnn-vs-attention/distance/gates-pay-off
quiz rnn-vs-attention/order/who-learns: 3 | all three | only the RNN | the RNN and self-attention with positions | none of them: 150 steps are too few
quiz rnn-vs-attention/order/why-positions: 1 | An RNN would bring back n steps in a row, and long paths between distant words | An RNN cannot learn word order | Position encodings make the model more accurate than an RNN on every task
exercise rnn-vs-attention/order/order-takes-learning
steps transformer-block: causal | block
quiz transformer-block/causal/why-mask: 1 | Look at "sat", the very token it must predict, and copy it. | Nothing different: attention never sees its targets. | It can no longer look at "the".
quiz transformer-block/causal/unchanged-row: 4 | the | cat | sat | down
exercise transformer-block/causal/look-back
quiz transformer-block/block/row-mean: 1 | Exactly 0 in every row. | Exactly 1 in every row. | It depends on x.
quiz transformer-block/block/residual-off: 1 | It falls: the output is built from what the sublayers make of x. | It rises: the sublayers no longer disturb x. | It stays: LayerNorm restores each row anyway.
exercise transformer-block/block/silence-feature
steps induction-heads: train | ablate | prompt | translator
quiz induction-heads/train/loss-shape: 1 | It stays near the first half's, then falls steeply in about 100 steps. | It falls steadily, by about the same amount every step. | It never gets below the first half's.
quiz induction-heads/ablate/layer-one: 1 | It rises too: the layer-2 head relies on what layer 1 wrote. | Nothing: only induction heads matter for the repeated half. | It falls: one head fewer means less noise.
exercise induction-heads/ablate/worst-head
quiz induction-heads/prompt/continue: 1 | the letter A | the letter C | the letter K | the letter F
quiz induction-heads/prompt/new-letter: 1 | It is unsure: with no earlier G there is nothing to copy. | It confidently predicts A, the letter after F. | It predicts G again.
quiz induction-heads/translator/forced: 1 | It changes: the word follows what the attention reads. | It stays "China": the alignment is only a picture.
steps uses: translation | summary | captioning | entailment | reading | classification | labelling | relations | when-it-fits
quiz uses/translation/where-yesterday: 2 | 书, the last source word | 昨天, the second source word | All four about equally
exercise uses/translation/article-looks-at-noun
quiz uses/summary/food-draws-on: 2 | Only "bread" | "bread" and "milk", about half each | "of" and "and"
exercise uses/summary/up-to-rose
exercise uses/captioning/next-word-ball
quiz uses/entailment/indoors-aligns: 1 | outside | ball | None: it contradicts every word, so its weights stay flat
exercise uses/entailment/pair-by-agreement
quiz uses/reading/when-looks: 2 | All on "2004", the word with the most time in it | Split between "May" and "2004", together about 0.8 | Evenly over the passage: every word is part of the context
exercise uses/reading/ask-where
quiz uses/classification/top-word: 3 | Tom | Rome | great
exercise uses/classification/plain-average
quiz uses/labelling/sold-looks: 1 | On Mary, car and Tom, about a third each | On "the" and "to" | On itself
exercise uses/labelling/tom-hears-to
exercise uses/relations/pair-paris
quiz uses/when-it-fits/least-gain: 3 | Answering questions about a 50-page report | Deciding whether two sentences say the same thing | Predicting tomorrow's temperature from today's temperature alone
exercise uses/when-it-fits/ask-delivery
steps sentiment-model: model | options | compare | heads
quiz sentiment-model/model/pooled-shape: 2 | (16, 12, 32) | (16, 32) | (16, 12) | (16, 1)
quiz sentiment-model/options/stalled: 2 | Reviews that open with a person and a place | Reviews with a negation word (not, never, 不) | The Chinese reviews | The longest reviews
exercise sentiment-model/options/past-the-plateau
quiz sentiment-model/compare/no-positions: 3 | Near chance, about 50% | Stuck near 92%, like the one-head model | Level with model A, near 100%
quiz sentiment-model/heads/review-zero: 3 | i | coffee | not | fantastic
steps recap: map | qkv-special | mixed
quiz recap/map/one-sentence: 1 | A weighted sum of values, with weights computed from the data at hand | A fixed weighted sum, with weights learned once and then frozen | A softmax over the whole vocabulary
exercise recap/qkv-special/long-wins
quiz recap/mixed/long-sentences: 1 | The score table, n² entries, bought with a path of length one between any two words | The softmax, because its exponentials overflow on long rows | The position encoding, because it needs one new column per word
quiz recap/mixed/shuffle-and-heads: 1 | They are the same rows in reverse order, however many heads | More heads notice the new order, so the rows change | Only the first head's part changes
quiz recap/mixed/hard-and-scale: 1 | Hard attention: nearly all the weight goes to the top key | Uniform attention: every key gets the same weight | Local attention: a window opens around the top key
)layout";

const char* kLayout2 = R"layout(
steps first-look: idea | three-tokens | scaled
quiz first-look/idea/mix-by-hand: 1 | 7.5, the weighted sum of the three values | 5, the plain average of the three values | 10, the value that has the largest weight
quiz first-look/three-tokens/who-wins: 1 | cats | chase | mice
exercise first-look/three-tokens/cats-to-mice
quiz first-look/scaled/sharper-or-flatter: 2 | Sharper: the largest weight in each row grows | Flatter: closer to equal shares | Exactly the same: softmax ignores the scale
steps focus: reading | bird | three-stages | soft-vs-hard
quiz focus/reading/predict-focus: 2 | bridge | 1998 | years
exercise focus/reading/ask-what
exercise focus/bird/beak-only
exercise focus/three-stages/ask-for-lime
quiz focus/soft-vs-hard/predict-hard: 2 | A mix of apple and banana | Exactly banana's value | Exactly apple's value
exercise focus/soft-vs-hard/almost-hard
steps inside-the-score: geometry | relevance-row | values | projections
quiz inside-the-score/geometry/longer-key: 2 | It stays the same: only the angle matters | It doubles | It halves
exercise inside-the-score/geometry/right-angle
exercise inside-the-score/geometry/favour-mice
exercise inside-the-score/relevance-row/chase-irrelevant
quiz inside-the-score/values/same-values: 1 | Exactly u | Zero | It depends on the weights
exercise inside-the-score/values/mice-in-action
quiz inside-the-score/projections/symmetric: 1 | Also 0.40, exactly | Less than 0.40 | It cannot be known from this
exercise inside-the-score/projections/one-way
steps scoring: five-scores | dk-slider
quiz scoring/five-scores/double-q: 2 | Only dot and scaled dot | All except cosine | All five
exercise scoring/five-scores/general-to-mice
quiz scoring/dk-slider/entropy-trend: 1 | It falls towards 0 | It rises towards the uniform value | It stays level
exercise scoring/dk-slider/saturate
steps kinds: modes | local-p | train-hard | cross-self
quiz kinds/modes/hard-flip: 3 | It does not change | It changes a little, in proportion to the nudge | It jumps from v_cat to v_mat
exercise kinds/modes/flip-to-mat
exercise kinds/local-p/look-right
quiz kinds/train-hard/backprop-ends: 3 | At 100%, like the others: the classifier makes up for the scorer | Near 25%, a blind guess | Well above 25% but far below 100%: it names only what it happens to see
quiz kinds/cross-self/rows-after-switch: 2 | 3, one per target word | 4, one per source token | 7, one per token of both sentences
exercise kinds/cross-self/love-to-ai
steps encoder-decoder: alignment | decoding | without-attention
quiz encoder-decoder/alignment/love-goes-to: 2 | 我 | 爱 | 中国 | 。
quiz encoder-decoder/decoding/question-first-word: 3 | On 我, the first Chinese word | Spread over all five words: nothing has been written yet to align with | On the end of the sentence, 吗 ？, which makes it a question
quiz encoder-decoder/without-attention/one-vector: 2 | Level with the model with attention, at 100% | About 90%: behind, but far from hopeless | Near 0%: one vector is too little
steps self-attention: matrix-form | multihead | heads-vs-layers
exercise self-attention/matrix-form/a3-to-a1
quiz self-attention/multihead/params-per-heads: 2 | Twice as many | The same | Half as many
exercise self-attention/multihead/sat-to-cat
quiz self-attention/heads-vs-layers/unit2-row: 3 | It stays the same: W_Q and W_K did not change | It gets sharper: unit 2 now compares richer, already mixed vectors | It gets flatter: it compares mixtures, which are more alike than the rows of X
exercise self-attention/heads-vs-layers/same-unit2
steps position: shuffle | sinusoids
quiz position/shuffle/reversed: 1 | The same numbers as before, now in the last row | Different numbers, because "dog" is now the object | All zeros
exercise position/shuffle/bites-stays
quiz position/sinusoids/fastest: 1 | The first pair (i = 0) | The last pair | All columns change at the same speed
exercise position/sinusoids/fast-clock
steps heads-parallel: what-heads-learn | parallel | measured
quiz heads-parallel/what-heads-learn/path-length: 1 | 1 in self-attention, 5 in an RNN | 5 in both: information moves one word per step | 1 in both: every network reads the whole input
exercise heads-parallel/what-heads-learn/look-ahead
quiz heads-parallel/parallel/one-lane: 1 | The RNN | Self-attention | Both the same
exercise heads-parallel/parallel/more-work-fewer-rounds
quiz heads-parallel/measured/doubling: 2 | Both about double | The RNN's about doubles; attention's grows towards four times | Attention's about doubles, while the RNN's grows four times
steps transformer-block: causal | block | layernorm
quiz transformer-block/causal/why-mask: 1 | Look at "sat", the token it must predict, and copy it. | Nothing different: attention never sees the tokens it must predict. | It can no longer look at "the", the first token.
quiz transformer-block/causal/unchanged-row: 4 | the | cat | sat | down
exercise transformer-block/causal/look-back
quiz transformer-block/block/residual-off: 2 | It stays: LayerNorm puts each row back the way it was anyway. | It falls: only what the sublayers make of x is left, and that points elsewhere. | It rises: the sublayers no longer disturb x.
quiz transformer-block/layernorm/pre-norm-mean: 3 | Exactly 1 in every row | Still exactly 0: the block still has two LayerNorms | It depends on x and differs from row to row
exercise transformer-block/layernorm/silence-feature
steps rnn-vs-attention: distance | gates | pooling | order | positions-not-rnn
quiz rnn-vs-attention/distance/which-falls: 3 | the RNN | the LSTM, built to remember | self-attention | all three of them
exercise rnn-vs-attention/distance/gates-pay-off
quiz rnn-vs-attention/gates/gates-must-open: 2 | Close the forget gates, to drop the noise | Open the forget gates towards 1, so the cell keeps the symbol for k steps | Nothing: 4 × 10^-5 of a symbol is still enough to name it
quiz rnn-vs-attention/pooling/pooled-where: 3 | On the names and places | On the first and last words, where the two directions of the GRU end | On the sentiment words and the negations
quiz rnn-vs-attention/order/no-positions-ends: 2 | Near 100%: it only learns more slowly than the others | Exactly 50%, at every test | Between 50% and 100%: the feed-forward layer picks up some order
quiz rnn-vs-attention/positions-not-rnn/why-positions: 3 | An RNN cannot learn word order | Position encodings make the model more accurate than an RNN on every task | An RNN would bring back n steps in a row and long paths between distant words
steps uses: translation | summary | captioning | entailment | reading | classification | labelling | relations | when-it-fits
quiz uses/translation/where-yesterday: 2 | 书, the last source word, as "yesterday" is last | 昨天, the second source word | All four about equally: it has no partner
exercise uses/translation/article-looks-at-noun
quiz uses/summary/food-draws-on: 2 | Only "bread", the first food word it meets | "bread" and "milk", about half each: both are food | "of" and "and"
exercise uses/summary/up-to-rose
exercise uses/captioning/next-word-ball
quiz uses/entailment/indoors-aligns: 1 | outside | ball | None: it contradicts every word, so its weights stay flat
exercise uses/entailment/pair-by-agreement
quiz uses/reading/when-looks: 2 | All on "2004", the word with the most time in it | Split between "May" and "2004", together about 0.8 | Evenly over the passage: every word is part of the context
exercise uses/reading/ask-where
quiz uses/classification/great-share: 3 | All of it: the softmax picks the best word | About 0.4: "truly" and "found" take their share | About 0.75: most of it, but not all
exercise uses/classification/plain-average
quiz uses/labelling/sold-looks: 1 | On Mary, car and Tom, about a third each | On "the" and "to", the small words in between | On itself
exercise uses/labelling/tom-hears-to
exercise uses/relations/pair-paris
quiz uses/when-it-fits/least-gain: 3 | Answering questions about the facts in a 50-page report | Deciding whether two sentences say the same thing | Predicting tomorrow's temperature from today's temperature alone
exercise uses/when-it-fits/ask-delivery
steps sentiment-model: model | options | compare | heads
quiz sentiment-model/model/pooled-shape: 3 | (16, 12, 32) | (16, 12) | (16, 32) | (16, 1)
quiz sentiment-model/options/stalled: 4 | Reviews that open with a sentence about a person and a place | The Chinese reviews | The longest reviews | Reviews with a negation word (not, never, 不)
exercise sentiment-model/options/past-the-plateau
quiz sentiment-model/compare/no-positions: 3 | Near chance, about 50% | Stuck near 92%, like the one-head model | Level with model A, near 100%
quiz sentiment-model/heads/heads-on-not: 3 | All four: "not" decides the label | None: a head looks at sentiment words, and "not" is not one | Two of them; the other two look elsewhere
steps induction-heads: train | ablate | redirect | prompt | translator
quiz induction-heads/train/loss-shape: 3 | It falls steadily, by about the same amount at every step of training. | It never gets below the first half's. | It waits near the first half's, then falls within about 100 steps.
quiz induction-heads/ablate/layer-one: 2 | Nothing: only induction heads matter for the repeated half. | It rises too: the layer-2 head relies on what layer 1 wrote there. | It falls: one head fewer means less noise.
exercise induction-heads/ablate/worst-head
quiz induction-heads/redirect/redirect-follows: 3 | A letter not in the sequence | Still the right letter: one head cannot change the prediction | Often the letter at the position you chose: the head copies what it reads
quiz induction-heads/prompt/continue: 1 | the letter A | the letter C | the letter K | the letter F
quiz induction-heads/prompt/new-letter: 2 | It confidently predicts A, the letter that followed F. | It is unsure: there is no earlier G to copy from. | It predicts G again, the last letter it read.
quiz induction-heads/translator/forced: 3 | It stays "China": the alignment is only drawn beside the model | It becomes "I", the English word for 我 | It changes, but to a word that need not translate 我
steps recap: map | qkv-special | mixed
quiz recap/map/one-sentence: 3 | A softmax over the whole vocabulary, one weight per word the model knows | A fixed weighted sum, frozen after training | A weighted sum of values, with its weights computed from the input at hand
exercise recap/qkv-special/long-wins
quiz recap/mixed/long-sentences: 2 | The softmax: its exponentials overflow on long rows | The n² score table, which buys a path of one step between any two words | The position encoding: one more column per position
quiz recap/mixed/shuffle-and-heads: 3 | More heads notice the new order | Only the first head's part changes; the other heads keep theirs | The same rows, now in reverse order, however many heads there are
quiz recap/mixed/hard-and-scale: 1 | Hard attention: nearly all the weight goes to the top key | Uniform attention: every key, the same weight | Local attention: a window opens around the top key
)layout";

const char* kLayout3 = R"layout(
steps first-look: idea | three-tokens | scaled
quiz first-look/idea/mix-by-hand: 2 | 10 | 7.5 | 7 | 5
quiz first-look/three-tokens/who-wins: 1 | cats | chase | mice
exercise first-look/three-tokens/cats-to-mice
quiz first-look/scaled/sharper-or-flatter: 3 | Sharper: the largest weight in each row grows | Exactly the same: softmax ignores the scale | Flatter: closer to equal shares
steps focus: reading | bird | three-stages | soft-vs-hard
quiz focus/reading/focus-share: 2 | About 0.2 | About 0.5 | About 0.9
exercise focus/reading/ask-what
exercise focus/bird/beak-only
exercise focus/three-stages/ask-for-lime
quiz focus/soft-vs-hard/flip-to-apple: 3 | Double it, to [3, 0] | Halve it, to [0.75, 0] | Add some sour, to [1.5, 1]
exercise focus/soft-vs-hard/almost-hard
steps inside-the-score: geometry | relevance-row | values | projections
quiz inside-the-score/geometry/both-longer: 3 | It stays the same | It doubles | It becomes four times as large
exercise inside-the-score/geometry/right-angle
exercise inside-the-score/geometry/favour-mice
exercise inside-the-score/relevance-row/chase-irrelevant
quiz inside-the-score/values/same-values: 1 | Exactly u | Zero | It depends on the weights
exercise inside-the-score/values/mice-in-action
quiz inside-the-score/projections/symmetric: 2 | Less than 0.40 | Also 0.40, exactly | It cannot be known from this
exercise inside-the-score/projections/one-way
steps scoring: five-scores | dk-slider
quiz scoring/five-scores/exactly-double: 2 | Dot and scaled dot only | Dot, scaled dot and general | All but cosine
exercise scoring/five-scores/general-to-mice
quiz scoring/dk-slider/gradient-trend: 3 | It grows with d_k, as the scores do | It stays level, like the scaled one | It shrinks, far below the scaled one
exercise scoring/dk-slider/saturate
steps kinds: modes | local-p | train-hard | cross-self
quiz kinds/modes/hard-gradient: 1 | Only v_cat: the query and the keys get none | q_cat and every key, as in soft attention | None at all: a hard pick blocks every gradient
exercise kinds/modes/flip-to-mat
exercise kinds/local-p/look-right
quiz kinds/train-hard/backprop-limit: 3 | How long it trains: in time the classifier makes up for the scorer | Nothing: it stays at a blind guess, 25%, as it cannot learn | How often its fixed rule happens to pick the bright patch
quiz kinds/cross-self/rows-after-switch: 2 | 3, one per target word | 4, one per source token | 7, one per token of both sentences
exercise kinds/cross-self/love-to-ai
steps encoder-decoder: alignment | decoding | without-attention
quiz encoder-decoder/alignment/stop-for-love: 1 | Almost none, less than 0.01 | About a quarter, as before training: it never learns which word is which | Most of it: 。 is in nearly every sentence, so it is always there to use
quiz encoder-decoder/decoding/question-first-word: 3 | On 我, the first Chinese word | Spread over all five words: nothing has been written yet to align with | On the end of the sentence, 吗 ？, which makes it a question
quiz encoder-decoder/without-attention/one-vector: 2 | About 70%: far behind | About 90%: a few points behind | Level with the model with attention, near 100%
steps self-attention: matrix-form | multihead | heads-vs-layers
exercise self-attention/matrix-form/a3-to-a1
quiz self-attention/multihead/split-shape: 1 | (1, 2, 4, 2) | (1, 2, 4, 4) | (1, 4, 2, 2)
exercise self-attention/multihead/sat-to-cat
quiz self-attention/heads-vs-layers/unit2-row: 3 | It stays the same: W_Q and W_K did not change | It gets sharper: unit 2 now compares richer, already mixed vectors | It gets flatter: it compares mixtures, which are more alike than the rows of X
exercise self-attention/heads-vs-layers/pass-through
steps position: shuffle | sinusoids
quiz position/shuffle/reversed: 1 | The same numbers as before, now in the last row | Different numbers, because "dog" is now the object | The numbers "man" had before, as the new last word
exercise position/shuffle/bites-stays
quiz position/sinusoids/slow-turn: 3 | About 6 | About 60 | About 600
exercise position/sinusoids/fast-clock
steps heads-parallel: what-heads-learn | parallel | measured
quiz heads-parallel/what-heads-learn/path-length: 3 | 5 in both: information moves one word per step | 1 in both: every network reads the whole input | 1 in self-attention, 5 in an RNN
exercise heads-parallel/what-heads-learn/look-ahead
quiz heads-parallel/parallel/one-lane: 1 | The RNN | Self-attention | Both the same
exercise heads-parallel/parallel/more-work-fewer-rounds
quiz heads-parallel/measured/doubling: 2 | Both about double | The RNN's about doubles; attention's grows towards four times | Attention's about doubles, while the RNN's grows four times
steps transformer-block: causal | block | layernorm
quiz transformer-block/causal/why-mask: 1 | Read "sat", the very token it must predict, and copy it. | Read the whole sentence, which only helps: more context, better predictions. | See "sat", but the loss at "cat" never rewards using it.
quiz transformer-block/causal/unchanged-row: 4 | the | cat | sat | down
exercise transformer-block/causal/look-back
quiz transformer-block/block/residual-off: 2 | It stays: LayerNorm puts each row back the way it was anyway. | It falls: only what the sublayers make of x is left, and that points elsewhere. | It rises: the sublayers no longer disturb x.
quiz transformer-block/layernorm/pre-norm-mean: 3 | Exactly the mean of x's row: the residual carries x through | Still exactly 0: the block still has two LayerNorms | The mean of x's row plus whatever the sublayers add
exercise transformer-block/layernorm/silence-feature
steps rnn-vs-attention: distance | gates | pooling | order | positions-not-rnn
quiz rnn-vs-attention/distance/which-falls: 3 | the RNN | the LSTM, built to remember | self-attention | all three of them
exercise rnn-vs-attention/distance/gates-pay-off
quiz rnn-vs-attention/gates/lstm-loss-64: 2 | It falls steadily but not far enough to pass the test | It stays at ln 8 ≈ 2.08, a blind guess's loss, all the way | It falls to about 1.6, as the plain RNN's does
quiz rnn-vs-attention/pooling/pooled-where: 3 | Nearly evenly over the words, as averaging does | On the first and last words, where the two directions of the GRU end | On the sentiment words and the negations
quiz rnn-vs-attention/order/no-positions-ends: 2 | Near 100%: it only learns more slowly than the others | Exactly 50%, at every test | Between 50% and 100%: the feed-forward layer picks up some order
quiz rnn-vs-attention/positions-not-rnn/why-positions: 1 | An RNN brings back n steps in a row and long paths between words | An RNN under attention cannot be trained with it end to end | Position encodings carry more order information than an RNN state
steps uses: translation | summary | captioning | entailment | reading | classification | labelling | relations | when-it-fits
quiz uses/translation/article-row: 1 | Flat, with a quarter on each source word | All on 书, the noun it comes before | All on 买了, the word before it
exercise uses/translation/article-looks-at-noun
quiz uses/summary/food-draws-on: 2 | Only "bread", the first food word it meets | "bread" and "milk", about half each: both are food | "of" and "and"
exercise uses/summary/up-to-rose
exercise uses/captioning/next-word-ball
quiz uses/entailment/indoors-aligns: 1 | outside | ball | None: it contradicts every word, so its weights stay flat
exercise uses/entailment/pair-by-agreement
quiz uses/reading/rest-share: 1 | About 0.2 | Almost none, under 0.02 | About half
exercise uses/reading/ask-where
quiz uses/classification/great-share: 3 | All of it: the softmax picks the best word | About 0.4: "truly" and "found" take their share | About 0.75: most of it, but not all
exercise uses/classification/plain-average
quiz uses/labelling/tom-looks: 3 | On "to", the word just before it | On Mary, the other person | On "sold", the verb
exercise uses/labelling/tom-hears-to
exercise uses/relations/pair-paris
quiz uses/when-it-fits/fits-least: 2 | Rating a 300-word product review that turns on a few words | Flagging a fault from 20 sensor numbers that always all matter alike | Matching each word of a question with the sentence of a paragraph that answers it
exercise uses/when-it-fits/price-and-delivery
steps sentiment-model: model | options | compare | heads
quiz sentiment-model/model/pooled-shape: 3 | (16, 12, 32) | (16, 12) | (16, 32) | (16, 1)
quiz sentiment-model/options/stalled: 2 | The Chinese reviews | Reviews with not, never or 不 in them | Reviews that open with a person and a place | The longest reviews
exercise sentiment-model/options/past-the-plateau
quiz sentiment-model/compare/no-positions: 3 | Near chance, about 50% | Stuck near 92%, like the one-head model | Level with model A, near 100%
quiz sentiment-model/heads/heads-divide: 1 | No: they split the work, some on "not" and others elsewhere | Yes: all four look most at "not", which decides the label | Yes: all four look most at "fantastic", the sentiment word
steps induction-heads: train | ablate | redirect | prompt | translator
quiz induction-heads/train/loss-shape: 3 | It falls steadily, by about the same amount at every step of training. | It never gets below the first half's. | It waits near the first half's, then falls within about 100 steps.
quiz induction-heads/ablate/layer-one: 2 | Nothing: only induction heads matter for the repeated half. | It rises too: the layer-2 head relies on what layer 1 wrote there. | It falls: one head fewer means less noise.
exercise induction-heads/ablate/worst-head
quiz induction-heads/redirect/redirect-follows: 3 | A letter not in the sequence | Still the right letter: one head cannot change the prediction | Often the letter at the position you chose: the head copies what it reads
quiz induction-heads/prompt/continue: 1 | the letter A | the letter C | the letter K | the letter F
quiz induction-heads/prompt/new-letter: 2 | It confidently predicts A, the letter that followed F. | It is unsure: there is no earlier G to copy from. | It predicts G again, the last letter it read.
quiz induction-heads/translator/forced: 3 | It stays "China": the alignment is only drawn beside the model | It becomes "I", the English word for 我 | It changes, but to a word that need not translate 我
steps recap: map | qkv-special | mixed
quiz recap/map/one-sentence: 1 | A weighted sum of the values, its weights computed from this input | A weighted sum of the values, its weights learned once and then fixed | A weighted sum of the keys, its weights computed from this input
exercise recap/qkv-special/long-wins
quiz recap/mixed/long-sentences: 2 | The feed-forward layer, one product per pair of words; it buys capacity | The score table, n² entries; it buys a one-step path between any two words | The position encoding, a new column per position; it buys a sense of order
quiz recap/mixed/shuffle-and-heads: 3 | More heads notice the new order, so the rows change | Only the first head's part of each row changes | The same rows, in reverse order, whatever the heads
quiz recap/mixed/hard-and-scale: 1 | Hard attention: nearly all weight on the top key | Uniform attention: every key gets the same weight | Local attention: a window opens around the top key
)layout";

const char* kLayout4 = R"layout(
steps first-look: idea | three-tokens | scaled
quiz first-look/idea/mix-by-hand: 2 | 10 | 7.5 | 7 | 5
quiz first-look/three-tokens/who-wins: 1 | cats | chase | mice
exercise first-look/three-tokens/cats-to-mice
quiz first-look/scaled/sharper-or-flatter: 3 | Sharper: the largest weight in each row grows | Exactly the same: softmax ignores the scale | Flatter: closer to equal shares
steps focus: reading | bird | three-stages | soft-vs-hard
quiz focus/reading/focus-share: 2 | About 0.2 | About 0.5 | About 0.9
exercise focus/reading/ask-what
exercise focus/bird/beak-only
exercise focus/three-stages/ask-for-lime
quiz focus/soft-vs-hard/flip-to-apple: 3 | Double it, to [3, 0] | Add a lot of sour, to [1.5, 2] | Add some sour, to [1.5, 1]
exercise focus/soft-vs-hard/almost-hard
steps inside-the-score: geometry | relevance-row | values | projections
quiz inside-the-score/geometry/both-longer: 3 | It stays the same | It doubles | It quadruples
exercise inside-the-score/geometry/right-angle
exercise inside-the-score/geometry/favour-mice
exercise inside-the-score/relevance-row/chase-irrelevant
quiz inside-the-score/values/same-values: 1 | Exactly u | u times the sum of the scores | It depends on the weights
exercise inside-the-score/values/mice-in-action
quiz inside-the-score/projections/symmetric: 2 | Less than 0.40 | Also 0.40, exactly | It cannot be known from this
exercise inside-the-score/projections/one-way
steps scoring: five-scores | dk-slider
quiz scoring/five-scores/exactly-double: 2 | Dot and scaled dot only | Dot, scaled dot and general | All but cosine
exercise scoring/five-scores/general-to-mice
quiz scoring/dk-slider/gradient-trend: 3 | It grows with d_k, as the scores do | It stays level, like the scaled one | It shrinks, far below the scaled one
exercise scoring/dk-slider/saturate
steps kinds: modes | local-p | train-hard | cross-self
quiz kinds/modes/hard-gradient: 1 | Only v_cat: the query and the keys get none | q_cat and every key, as in soft attention | None at all: a hard pick blocks every gradient
exercise kinds/modes/flip-to-mat
exercise kinds/local-p/look-right
quiz kinds/train-hard/backprop-limit: 3 | How long it trains: in time the classifier makes up for the scorer | Nothing: it stays at a blind guess, 25%, as it cannot learn | How often its fixed rule happens to pick the bright patch
quiz kinds/cross-self/rows-after-switch: 2 | 3, one per target word | 4, one per source token | 7, one per token of both sentences
exercise kinds/cross-self/love-to-ai
steps encoder-decoder: alignment | decoding | by-hand | without-attention
quiz encoder-decoder/alignment/stop-for-love: 1 | Almost none, under 0.01: the state at 爱 points to "love" more plainly | About 0.1 to 0.3: the state at 。 has read the whole sentence, 爱 included | Most of it: 。 ends nearly every sentence, so it is always there
quiz encoder-decoder/decoding/question-first-word: 3 | On 我, the first Chinese word | Spread over all five words: nothing has been written yet to align with | On the end of the sentence, 吗 ？, which makes it a question
quiz encoder-decoder/by-hand/after-love: 3 | I love love <eos>: a second look at 爱 is weaker, and <eos> wins | I love China . <eos>: each step moves on by itself | I love love love ...: it stops only at the limit of 8 words
exercise encoder-decoder/by-hand/move-on
quiz encoder-decoder/without-attention/one-vector: 2 | About 70%: far behind | About 90%: a few points behind | Level with the model with attention, near 100%
steps self-attention: matrix-form | multihead | heads-vs-layers
exercise self-attention/matrix-form/a3-to-a1
quiz self-attention/multihead/split-shape: 1 | (1, 2, 4, 2) | (1, 2, 4, 4) | (1, 4, 2, 2)
exercise self-attention/multihead/sat-to-cat
quiz self-attention/heads-vs-layers/unit2-row: 3 | It stays the same: W_Q and W_K did not change | It gets sharper: unit 2 now compares richer, already mixed vectors | It gets flatter: it compares mixtures, which are more alike than the rows of X
exercise self-attention/heads-vs-layers/pass-through
steps position: shuffle | sinusoids
quiz position/shuffle/reversed: 1 | The same numbers as before, now in the last row | Different numbers, because "dog" is now the object | The numbers "man" had before, as the new last word
exercise position/shuffle/bites-stays
quiz position/sinusoids/slow-turn: 3 | About 6 | About 60 | About 600
exercise position/sinusoids/fast-clock
steps heads-parallel: what-heads-learn | parallel | measured
quiz heads-parallel/what-heads-learn/path-length: 3 | 5 in both: information moves one word per step | 5 in self-attention, 1 in an RNN: its state holds the past | 1 in self-attention, 5 in an RNN: one link against a chain
exercise heads-parallel/what-heads-learn/look-ahead
quiz heads-parallel/parallel/one-lane: 1 | The RNN | Self-attention | Both the same
exercise heads-parallel/parallel/more-work-fewer-rounds
quiz heads-parallel/measured/doubling: 2 | Both about double | The RNN's about doubles; attention's grows towards four times | Attention's about doubles, while the RNN's grows four times
steps transformer-block: causal | block | layernorm
quiz transformer-block/causal/why-mask: 1 | Read "sat", the very token it must predict, and copy it. | Read the whole sentence; when it generates, it reads what exists so far. | See "sat", but the loss at "cat" never rewards using it.
quiz transformer-block/causal/unchanged-row: 4 | the | cat | sat | down
exercise transformer-block/causal/look-back
quiz transformer-block/block/residual-off: 2 | It stays: LayerNorm puts each row back the way it was anyway. | It falls: only what the sublayers make of x is left, and that points elsewhere. | It rises: the sublayers no longer disturb x.
quiz transformer-block/layernorm/pre-norm-mean: 3 | Exactly the mean of x's row: the residual carries x through | Still exactly 0: the block still has two LayerNorms | The mean of x's row plus whatever the sublayers add
exercise transformer-block/layernorm/silence-feature
steps rnn-vs-attention: distance | gates | pooling | order | positions-not-rnn
quiz rnn-vs-attention/distance/lstm-against-rnn: 3 | Well above it: its gates keep what the RNN forgets | About level: both must carry the symbol through 64 updates | Below it, near a blind guess, within these 300 steps
exercise rnn-vs-attention/distance/gates-pay-off
quiz rnn-vs-attention/gates/lstm-loss-64: 2 | It falls steadily but not far enough to pass the test | It stays at ln 8 ≈ 2.08, a blind guess's loss, all the way | It falls to about 1.6, as the plain RNN's does
quiz rnn-vs-attention/pooling/pooled-where: 3 | Nearly evenly over the words, as averaging does | Mostly on the names and places, which differ most from review to review | On the sentiment words and the negations
quiz rnn-vs-attention/pooling/average-at-100: 2 | Ahead: it has no query of its own to learn | Behind, by 5 to 11 points: its GRU must learn more before an average works | Level: both GRUs can learn to carry the same information
quiz rnn-vs-attention/order/no-positions-ends: 2 | Near 100%: it only learns more slowly than the others | Exactly 50%, at every test | Between 50% and 100%: the feed-forward layer picks up some order
quiz rnn-vs-attention/positions-not-rnn/why-positions: 1 | An RNN brings back n steps in a row and long paths between words | An RNN under attention cannot be trained with it end to end | Position encodings carry more order information than an RNN state
steps uses: translation | summary | captioning | retrieval | entailment | reading | classification | labelling | crf | relations | when-it-fits
quiz uses/translation/article-row: 1 | Flat, with a quarter on each source word | Mostly on 书, the noun it comes before | Mostly on 买了, the word before it
exercise uses/translation/article-looks-at-noun
quiz uses/summary/food-draws-on: 2 | Only "bread", the first food word it meets | "bread" and "milk", about half each: both are food | "of" and "and"
exercise uses/summary/up-to-rose
exercise uses/captioning/next-word-ball
quiz uses/retrieval/average-retrieves: 2 | A, the dog with the ball | B, the photo full of dog | C, the cat with the ball
exercise uses/retrieval/ball-for-b
quiz uses/entailment/indoors-pairs: 1 | outside, since both words name a place | play, since indoors says where the playing happens | None: it contradicts the premise, so it is paired with nothing and its weights stay flat
exercise uses/entailment/pair-by-agreement
quiz uses/reading/rest-share: 1 | About 0.2 in all | Almost none, under 0.02 | About half
exercise uses/reading/ask-where
quiz uses/classification/great-share: 3 | All of it: the softmax picks the best word | About 0.4: "truly" and "found" take their share | About 0.75: most of it, though not all of it
exercise uses/classification/plain-average
quiz uses/labelling/tom-looks: 3 | Spread over Mary and "car", the other arguments of the verb | On Mary, the other person | On "sold", the verb
exercise uses/labelling/tom-hears-to
quiz uses/crf/crf-the-car: 1 | B-A1 I-A1: "the" is pulled into the phrase, which begins a word earlier | O B-A1: "the" stays outside, and the phrase begins at "car" | O O: both words leave the phrase, and no rule can be broken
exercise uses/crf/weakest-penalty
exercise uses/relations/pair-paris
quiz uses/when-it-fits/least-gain-new-task: 2 | Answering questions about a 50-page contract | Forecasting tomorrow's temperature from five readings taken today | Matching each product photo with the sentences of a catalogue that describe it
exercise uses/when-it-fits/price-and-delivery
steps sentiment-model: model | options | compare | heads | padding
quiz sentiment-model/model/pooled-shape: 3 | (16, 12, 32) | (16, 12) | (16, 32) | (16, 1)
quiz sentiment-model/options/stalled: 2 | The Chinese reviews | Reviews with not, never or 不 in them | Reviews that open with a person and a place | The longest reviews
exercise sentiment-model/options/past-the-plateau
quiz sentiment-model/compare/no-positions: 3 | Near chance, about 50% | Stuck near 92%, like the one-head model | Level with model A, near 100%
quiz sentiment-model/heads/heads-divide: 1 | No: they split the work, some on "not" and others elsewhere | Yes: all four look most at "not", which decides the label | Yes: all four look most at "fantastic", the sentiment word
quiz sentiment-model/padding/unmasked-ends: 2 | Level with A, at 100%: the pads carry no word | Behind A, between 92% and 95%: it learns most of the task, not all of it | Near chance: the pads drown the words
quiz sentiment-model/padding/mask-forgotten: 3 | Yes, every one: the pads hold no word, so nothing changes | No, nearly all flip: the pads overrule the words | No, some flip: how many depends on the run
steps induction-heads: train | ablate | redirect | prompt | translator
quiz induction-heads/train/loss-shape: 3 | It falls gradually from the start, like the first half's but further. | It drops at once, in the first 25 steps: copying is easy to learn. | It waits near the first half's, then falls within about 100 steps.
quiz induction-heads/ablate/layer-one: 2 | Nothing: only induction heads matter for the repeated half. | It rises too: the layer-2 head relies on what layer 1 wrote there. | It falls: one head fewer means less noise.
exercise induction-heads/ablate/worst-head
quiz induction-heads/redirect/redirect-follows: 3 | A letter not in the sequence | Still the right letter: one head cannot change the prediction | Often the letter it now reads: heads copy what they read
quiz induction-heads/prompt/continue: 1 | the letter A | the letter C | the letter K | the letter F
quiz induction-heads/prompt/seeds-after-new-letters: 2 | The three runs agree again: the same data teaches the same guess | They disagree: with nothing to copy, each run guesses in its own way | All three are unsure after both: below 0.3 every time
quiz induction-heads/translator/forced: 3 | It stays "China": the alignment is only drawn beside the model | It becomes "I", the English word for 我 | It changes, to a word that does not translate 我
steps language-model: baselines | sampling | heads | poems
quiz language-model/baselines/below-bigram: 3 | Above the unigram line: 111,000 parameters cannot be fitted to 50 KB of text in a minute. | Between the two lines: 1000 steps are about five passes over the text, enough for pairs of letters but not for words. | Below the bigram line: it can use more than the last character.
quiz language-model/sampling/temperature: 1 | 0.5: the likeliest characters win more often, and they spell the commonest words. | 1.5: more variety means more different words. | Neither: every score is divided by the same number, so the likeliest character stays the likeliest.
exercise language-model/sampling/sure-next
quiz language-model/heads/induction-formed: 2 | Yes: two layers and a few hundred steps were enough last time, and this model has more heads. | No: in these documents a 32-character window rarely holds a repeat to copy from. | Yes, in layer 2: these documents repeat phrases like "the United States", and copying them pays.
exercise language-model/heads/costliest-head
quiz language-model/poems/counts-lines: 1 | Where in the line it is: how many characters have come since the mark. | Which poem it is in: the marks separate one poem from the next. | Nothing useful: a mark is the same token every time, so it says nothing new about the line.
steps recap: map | qkv-special | mixed
quiz recap/map/one-sentence: 1 | A weighted sum of the values, its weights computed from this input | A weighted sum of the values, its weights learned once and then fixed | A weighted sum of the keys, its weights computed from this input
exercise recap/qkv-special/long-wins
quiz recap/mixed/long-sentences: 2 | The feed-forward layer, one product per pair of words; it buys capacity | The score table, n² entries; it buys a one-step path between any two words | The position encoding, a new column per position; it buys a sense of order
quiz recap/mixed/shuffle-and-heads: 3 | More heads notice the new order, so the rows change | Only the first head's part of each row changes | The same rows, in reverse order, whatever the heads
quiz recap/mixed/hard-and-scale: 1 | Hard attention: nearly all weight on the top key | Uniform attention: every key gets the same weight | Local attention: a window opens around the top key
)layout";

// Quizzes and exercises of an earlier layout that were replaced: their saved
// answers and hint counts belong to a question or task that is no longer asked,
// so they are not carried over to the one that took its place.
// Replaced in layout 2 (issue 22's first pass).
const std::set<std::string> kRemovedInLayout2Quizzes = {
    "kinds/hard-backprop",            // answered by the explanation before it; then backprop-ends
    "self-attention/unit1-same",      // half answered by the step's text; now unit2-row
    "rnn-vs-attention/who-learns",    // answered by the position lesson; now no-positions-ends
    "transformer-block/row-mean",     // answered by the step's text; now pre-norm-mean
    "uses/top-word",                  // answered by the step's text; now great-share
    "sentiment-model/review-zero",    // head numbers are arbitrary; then heads-on-not
};
const std::set<std::string> kRemovedInLayout2Exercises = {
    "kinds/forget-mat",                          // one setting flipped; now flip-to-mat
    "position/break-symmetry",                   // one setting flipped; now bites-stays
    "heads-parallel/enough-lanes",               // one setting flipped; now more-work-fewer-rounds
    "encoder-decoder/fastest-score",             // rested on one seed's 120 against 140 steps
    "rnn-vs-attention/order-takes-learning",     // asked to stop in time, solved by a budget
};
// Replaced in layout 3 (issue 22's second pass, after the first independent read).
const std::set<std::string> kRemovedInLayout3Quizzes = {
    "focus/predict-focus",                 // the text named the answer; now focus-share
    "focus/predict-hard",                  // taught by the text and the visible scores; now flip-to-apple
    "inside-the-score/longer-key",         // the formula was just above it; now both-longer
    "scoring/double-q",                    // half answered by the text; now exactly-double
    "scoring/entropy-trend",               // answered by first-look's explanation; now gradient-trend
    "kinds/hard-flip",                     // taught in the focus lesson; now hard-gradient
    "kinds/backprop-ends",                 // rested on one seed's random scorer; now backprop-limit
    "encoder-decoder/love-goes-to",        // answered by knowing 爱 = love; now stop-for-love
    "self-attention/params-per-heads",     // the text and the editors gave it; now split-shape
    "position/fastest",                    // answered by the formula in the text; now slow-turn
    "rnn-vs-attention/gates-must-open",    // the text pointed at it; now lstm-loss-64
    "uses/where-yesterday",                // shown in the encoder-decoder lesson; now article-row
    "uses/when-looks",                     // the rule was in an earlier explanation; now rest-share
    "uses/sold-looks",                     // the text named the answer; now tom-looks
    "uses/least-gain",                     // the right option had none of the text's signs; now fits-least
    "sentiment-model/heads-on-not",        // which head does what is one seed's choice; now heads-divide
};
// Replaced in layout 4 (after the second independent read): saved answers of
// layout 3 to these no longer apply.
const std::set<std::string> kRemovedInLayout4Quizzes = {
    "rnn-vs-attention/which-falls",        // answered by the path-length step; now lstm-against-rnn
    "induction-heads/new-letter",          // the question held the rule; now two-new-letters
    // After the fourth independent read:
    "uses/indoors-aligns",                 // the step's text left one serious option; now indoors-pairs
    "uses/fits-least",                     // the text named both wrong options; now least-gain-new-task
};
// Replaced in layout 5 (issue 38, the lessons' third pass).
const std::set<std::string> kRemovedInLayout5Quizzes = {
    "recap/shuffle-and-heads",             // two earlier explanations gave it; now causal-reverse
    "inside-the-score/symmetric",          // x_i · x_j = x_j · x_i gave it; now symmetric-weights
    "position/reversed",                   // earlier lessons had said attention ignores order; now bites-with-pe
    "transformer-block/unchanged-row",     // the rule just above it gave the row; now sat-on-cat
    "transformer-block/residual-off",      // the slider's own definition gave "falls"; now residual-how-far
    "induction-heads/redirect-follows",    // "often" was right only against chance; now redirect-how-often
    "induction-heads/continue",            // the step before gave the rule; now continue-sure
};
const std::set<std::string> kRemovedInLayout5Exercises = {
    "focus/ask-for-lime",                  // a query pointed at a feature; now fix-the-value (a repair)
    "inside-the-score/favour-mice",        // a query pointed at a key; now chase-by-length (a length worked out)
    "kinds/love-to-ai",                    // a state pointed at a word, and it named 。's share; now fix-the-keys
    "uses/article-looks-at-noun",          // a state pointed at a word; now article-share (a number worked out)
    "uses/next-word-ball",                 // a query pointed at a map; now whole-dog (a length for a stated spread)
    "rnn-vs-attention/gates-pay-off",      // its check and the next step named the distance; now predict-k16
};
const std::set<std::string> kRemovedInLayout3Exercises = {
    "self-attention/same-unit2",           // solved by switching unit 2 off; now pass-through
    "uses/ask-delivery",                   // the same query swap as three others; now price-and-delivery
};

// Everything replaced since `layout` (saved answers of that layout do not apply).
bool removed_since(int layout, const std::string& key, bool quiz) {
  if (layout < 2 && (quiz ? kRemovedInLayout2Quizzes : kRemovedInLayout2Exercises).count(key)) return true;
  if (layout < 3 && (quiz ? kRemovedInLayout3Quizzes : kRemovedInLayout3Exercises).count(key)) return true;
  if (layout < 4 && quiz && kRemovedInLayout4Quizzes.count(key)) return true;
  return layout < 5 && (quiz ? kRemovedInLayout5Quizzes : kRemovedInLayout5Exercises).count(key);
}

struct OldQuiz {
  std::string lesson, step, id;
  int answer = 0;  // 0-based
  std::vector<std::string> options;
};
struct OldLayout {
  int layout = 1;
  std::map<std::string, std::vector<std::string>> steps;  // lesson -> step ids
  std::vector<OldQuiz> quizzes;
  std::vector<std::array<std::string, 3>> exercises;  // lesson, step, id
};

std::vector<std::string> split_on(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t at = 0;
  for (;;) {
    const size_t next = s.find(sep, at);
    std::string item = s.substr(at, next == std::string::npos ? std::string::npos : next - at);
    while (!item.empty() && item.front() == ' ') item.erase(0, 1);
    while (!item.empty() && item.back() == ' ') item.pop_back();
    out.push_back(item);
    if (next == std::string::npos) return out;
    at = next + 1;
  }
}

OldLayout old_layout(int layout) {
  OldLayout out;
  out.layout = layout;
  const char* text = layout == 1 ? kLayout1 : layout == 2 ? kLayout2 : layout == 3 ? kLayout3 : kLayout4;
  for (const std::string& line : split_on(text, '\n')) {
    if (line.empty()) continue;
    const size_t space = line.find(' '), colon = line.find(':');
    const std::string kind = line.substr(0, space);
    const std::vector<std::string> path = split_on(line.substr(space + 1, (colon == std::string::npos ? line.size() : colon) - space - 1), '/');
    REQUIRE_MESSAGE(path.size() == (kind == "steps" ? 1u : 3u), "a malformed line: " << line);
    if (kind == "steps") {
      out.steps[path[0]] = split_on(line.substr(colon + 1), '|');
    } else if (kind == "quiz") {
      std::vector<std::string> items = split_on(line.substr(colon + 1), '|');
      OldQuiz q{path[0], path[1], path[2], std::atoi(items[0].c_str()) - 1, {}};
      q.options.assign(items.begin() + 1, items.end());
      out.quizzes.push_back(q);
    } else {
      out.exercises.push_back({path[0], path[1], path[2]});
    }
  }
  return out;
}

const Lesson* lesson_named(const LessonSet& set, const std::string& id) {
  for (const Lesson& l : set.lessons)
    if (l.id == id) return &l;
  return nullptr;
}

// The start of a state saved in `layout`: version 2 had no layout (layout 1),
// version 3 records it.
std::string saved_head(int layout) {
  return layout == 1 ? "{\"version\": 2" : "{\"version\": 3, \"layout\": " + std::to_string(layout);
}

}  // namespace

TEST_CASE("layouts 1 to 4: every old link and saved place lands on the step of the same id") {
  const LessonSet set = load_embedded_lessons();
  for (const int layout : {1, 2, 3, 4}) {
    CAPTURE(layout);
    const OldLayout old = old_layout(layout);
    REQUIRE(old.steps.size() == (layout < 4 ? 15u : 16u));
    int steps = 0;
    for (const auto& entry : old.steps) {
      const std::string& lesson_id = entry.first;
      const Lesson* l = lesson_named(set, lesson_id);
      REQUIRE_MESSAGE(l, "lesson " << lesson_id << " is gone");
      for (size_t p = 0; p < entry.second.size(); ++p, ++steps) {
        const std::string& id = entry.second[p];
        CAPTURE(lesson_id);
        CAPTURE(id);
        // The link as the lab wrote it then: "#lesson/3", counted from 1, in layout
        // 1; "#lesson/step-id" since layout 2.
        ParsedLink link;
        std::string why;
        const std::string target = layout == 1 ? std::to_string(p + 1) : id;
        REQUIRE(parse_link("#" + lesson_id + "/" + target, set.lessons, &link, &why));
        REQUIRE_MESSAGE(link.step >= 0, "the old link names no step now: record it in layout-" << layout << "-steps");
        CHECK(l->steps[size_t(link.step)].id == id);
        // A state saved there, with its progress.
        LabState st;
        const std::string saved = saved_head(layout) + ", \"lesson\": \"" + lesson_id + "\", \"step\": " +
                                  std::to_string(p) + ", \"furthest\": {\"" + lesson_id + "\": " + std::to_string(p) + "}}";
        REQUIRE(lab_state_from_text(saved, &st, &why));
        lab_state_fit(&st, set.lessons);
        CHECK(st.lesson == lesson_id);
        CHECK(l->steps[size_t(st.step)].id == id);
        // Progress: at least as far as that step is now, and no step that was further on then.
        CHECK(st.furthest.at(lesson_id) >= st.step);
        for (size_t later = p + 1; later < entry.second.size(); ++later)
          CHECK(step_index(*l, entry.second[later]) > st.furthest.at(lesson_id));
      }
    }
    CHECK(steps == (layout == 1 ? 53 : layout < 4 ? 57 : 65));  // layout 3 had the steps of layout 2
  }
}

TEST_CASE("layouts 1 to 4: every saved quiz answer stays on its option, right stays right and wrong stays wrong") {
  const LessonSet set = load_embedded_lessons();
  for (const int layout : {1, 2, 3, 4}) {
    CAPTURE(layout);
    const OldLayout old = old_layout(layout);
    REQUIRE(old.quizzes.size() == (layout == 1 ? 46u : layout < 4 ? 53u : 63u));
    for (const OldQuiz& q : old.quizzes) {
      CAPTURE(q.lesson + "/" + q.step + "/" + q.id);
      const Lesson* l = lesson_named(set, q.lesson);
      REQUIRE(l);
      std::set<int> landed;
      for (size_t k = 0; k < q.options.size(); ++k) {
        CAPTURE(q.options[k]);
        const std::string saved = saved_head(layout) + ", \"lesson\": \"" + q.lesson + "\", \"answers\": {\"" + q.lesson + "/" +
                                  q.step + "\": {\"q\": {\"" + q.id + "\": {\"p\": " + std::to_string(k) + ", \"c\": true}}}}}";
        LabState st;
        std::string why;
        REQUIRE(lab_state_from_text(saved, &st, &why));
        lab_state_fit(&st, set.lessons);
        // Find the quiz now (it may have moved to another step of its lesson) and its saved answer.
        const LessonStep* home = nullptr;
        const Quiz* now = nullptr;
        for (const LessonStep& s : l->steps)
          for (const Quiz& x : s.quizzes)
            if (x.id == q.id) home = &s, now = &x;
        if (removed_since(layout, q.lesson + "/" + q.id, true)) {
          CHECK_MESSAGE(!now, "listed as removed but still there");
          break;
        }
        REQUIRE_MESSAGE(now, "quiz " << q.id << " is gone: list it as removed in the layout after " << layout);
        const auto saved_here = st.answers.find(step_key(l->id, home->id));
        REQUIRE_MESSAGE(saved_here != st.answers.end(), "the answer was dropped");
        const QuizAnswer a = quizzes_for_step(*home, &saved_here->second)[size_t(now - home->quizzes.data())];
        REQUIRE_MESSAGE(a.picked >= 0, "the answer was dropped");
        CHECK(a.checked);
        CHECK((int(k) == q.answer) == (a.picked == now->answer));
        CHECK(landed.insert(a.picked).second);
        // An option whose English words did not change is found by them.
        for (size_t j = 0; j < now->options.size(); ++j)
          if (now->options[j].get("en") == q.options[k]) CHECK(a.picked == int(j));
      }
    }
  }
}

TEST_CASE("layouts 1 to 4: every saved hint count stays with its exercise") {
  const LessonSet set = load_embedded_lessons();
  for (const int layout : {1, 2, 3, 4}) {
    CAPTURE(layout);
    const OldLayout old = old_layout(layout);
    REQUIRE(old.exercises.size() == (layout == 1 ? 39u : layout < 4 ? 37u : 42u));
    for (const auto& e : old.exercises) {
      CAPTURE(e[0] + "/" + e[1] + "/" + e[2]);
      const Lesson* l = lesson_named(set, e[0]);
      REQUIRE(l);
      const std::string saved = saved_head(layout) + ", \"answers\": {\"" + e[0] + "/" + e[1] + "\": {\"h\": {\"" + e[2] + "\": 1}}}}";
      LabState st;
      std::string why;
      REQUIRE(lab_state_from_text(saved, &st, &why));
      lab_state_fit(&st, set.lessons);
      const LessonStep* home = nullptr;
      for (const LessonStep& s : l->steps)
        for (const Exercise& x : s.exercises)
          if (x.id == e[2]) home = &s;
      if (removed_since(layout, e[0] + "/" + e[2], false)) {
        CHECK_MESSAGE(!home, "listed as removed but still there");
        continue;
      }
      REQUIRE_MESSAGE(home, "exercise " << e[2] << " is gone: list it as removed in the layout after " << layout);
      const auto saved_here = st.answers.find(step_key(l->id, home->id));
      REQUIRE(saved_here != st.answers.end());
      CHECK(saved_here->second.hints.at(e[2]) == 1);
    }
  }
}

// The exercise-panel rule (exercises_open) on every shipped step that has both: a
// goal such as "max_difference > 0.05 (now 0)" would answer the step's quiz.
TEST_CASE("every exercise of a step with a quiz waits until all its quizzes are checked") {
  const LessonSet set = load_embedded_lessons();
  int steps = 0;
  for (const Lesson& l : set.lessons)
    for (const LessonStep& s : l.steps) {
      if (s.quizzes.empty() || s.exercises.empty()) continue;
      CAPTURE(l.id + "/" + s.id);
      ++steps;
      CHECK_FALSE(exercises_open(s, quizzes_for_step(s, nullptr)));
      StepAnswers all;
      for (const Quiz& q : s.quizzes) all.quizzes[q.id] = {q.answer, true};
      CHECK(exercises_open(s, quizzes_for_step(s, &all)));
      // A wrong answer checked opens them too: the prediction was made.
      for (const Quiz& q : s.quizzes) all.quizzes[q.id] = {(q.answer + 1) % int(q.options.size()), true};
      CHECK(exercises_open(s, quizzes_for_step(s, &all)));
      // Any quiz still unchecked keeps them closed.
      for (const Quiz& q : s.quizzes) {
        StepAnswers but_one = all;
        but_one.quizzes[q.id].checked = false;
        CHECK_FALSE(exercises_open(s, quizzes_for_step(s, &but_one)));
      }
    }
  MESSAGE(steps << " steps have both a quiz and an exercise");
  CHECK(steps >= 15);
}

TEST_CASE("quiz and exercise ids are unique within a lesson, so saved answers can follow them") {
  const LessonSet set = load_embedded_lessons();
  for (const Lesson& l : set.lessons) {
    std::set<std::string> ids;
    for (const LessonStep& s : l.steps) {
      for (const Quiz& q : s.quizzes) CHECK_MESSAGE(ids.insert(q.id).second, l.file << ": '" << q.id << "' is used twice");
      for (const Exercise& e : s.exercises) CHECK_MESSAGE(ids.insert(e.id).second, l.file << ": '" << e.id << "' is used twice");
    }
  }
}

// ---------------------------------------------------------------- what an expert reader checks
namespace {

size_t code_points(const std::string& s) {
  size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// The words of a text: runs between spaces that hold a letter or a digit. The
// words of a link to another step ("[its title](#lesson/step)") do not count: a
// list of links, such as the recap's map, is a table of contents, not prose.
size_t word_count(const std::string& text) {
  const std::string plain = [&] {
    std::string out;
    size_t at = 0;
    for (const StepLink& l : step_links(text)) {
      out.append(text.substr(at, l.begin - at));
      out += ' ';
      at = l.end;
    }
    return out + text.substr(at);
  }();
  size_t words = 0;
  bool in_word = false, counted = false;
  for (const char c : plain + " ") {
    if (c == ' ' || c == '\n') {
      words += in_word && counted;
      in_word = counted = false;
    } else {
      in_word = true;
      counted = counted || std::isalnum(static_cast<unsigned char>(c));
    }
  }
  return words;
}

}  // namespace

// A learner who always picks the same place, or the longest option (or the
// shortest), must not score far above chance. Counted over every quiz of the
// lesson set, in each language.
TEST_CASE("quizzes are balanced: no answer position and no 'longest option' habit wins over 40% of them") {
  const LessonSet set = load_embedded_lessons();
  std::map<int, int> at;
  std::map<std::string, int> longest, shortest;
  int quizzes = 0;
  for (const Lesson& l : set.lessons)
    for (const LessonStep& s : l.steps)
      for (const Quiz& q : s.quizzes) {
        ++quizzes;
        ++at[q.answer];
        for (const char* lang : {"en", "zh"}) {
          // The right option is the longest when every other option is strictly
          // shorter, the shortest when every other is strictly longer.
          const size_t right = code_points(q.options[size_t(q.answer)].get(lang));
          bool is_longest = true, is_shortest = true;
          for (size_t i = 0; i < q.options.size(); ++i) {
            if (int(i) == q.answer) continue;
            const size_t other = code_points(q.options[i].get(lang));
            is_longest = is_longest && other < right;
            is_shortest = is_shortest && other > right;
          }
          longest[lang] += is_longest;
          shortest[lang] += is_shortest;
        }
      }
  REQUIRE(quizzes > 0);
  // (No structured bindings below: clang, which builds the WebAssembly and the
  // sanitized tests, cannot capture them in the lambdas CHECK_MESSAGE makes.)
  for (const auto& entry : at) {
    const int position = entry.first, n = entry.second;
    CAPTURE(position + 1);
    const bool balanced = n * 10 <= quizzes * 4;
    CHECK_MESSAGE(balanced, "option " << position + 1 << " is right in " << n << " of " << quizzes << " quizzes");
  }
  for (const auto& entry : longest) {
    const std::string lang = entry.first;
    const int n = entry.second;
    const bool balanced = n * 10 <= quizzes * 4;
    CHECK_MESSAGE(balanced, "(" << lang << ") the right option is the longest in " << n << " of " << quizzes << " quizzes");
  }
  for (const auto& entry : shortest) {
    const std::string lang = entry.first;
    const int n = entry.second;
    const bool balanced = n * 10 <= quizzes * 4;
    CHECK_MESSAGE(balanced, "(" << lang << ") the right option is the shortest in " << n << " of " << quizzes << " quizzes");
  }
  MESSAGE("answer positions over " << quizzes << " quizzes: 1: " << at[0] << ", 2: " << at[1] << ", 3: " << at[2]
                                   << ", 4: " << at[3] << "; right option longest: en " << longest["en"] << ", zh "
                                   << longest["zh"] << "; shortest: en " << shortest["en"] << ", zh " << shortest["zh"]);
}

// The same habits inside each lesson, where a learner meets them in a row: in a
// lesson of two quizzes or more no answer position holds more than half of them
// and the last option is right at least once; in a lesson of four or more
// the right option is the longest in at most half, in each language. Across the
// whole set, in order, no answer position comes four times running. And the
// right option is rarely the only one that gives a reason (a colon or a
// bracket, in either language).
TEST_CASE("quizzes are balanced within each lesson, and the set has no run of one answer position") {
  const LessonSet set = load_embedded_lessons();
  std::vector<int> sequence;
  int quizzes = 0, lone_reason = 0;
  for (const Lesson& l : set.lessons) {
    std::map<int, int> at;
    std::map<std::string, int> longest;
    int n = 0, last_right = 0;
    for (const LessonStep& s : l.steps)
      for (const Quiz& q : s.quizzes) {
        ++n;
        ++quizzes;
        ++at[q.answer];
        sequence.push_back(q.answer);
        last_right += q.answer + 1 == int(q.options.size());
        for (const char* lang : {"en", "zh"}) {
          const size_t right = code_points(q.options[size_t(q.answer)].get(lang));
          bool is_longest = true;
          for (size_t i = 0; i < q.options.size(); ++i)
            if (int(i) != q.answer) is_longest = is_longest && code_points(q.options[i].get(lang)) < right;
          longest[lang] += is_longest;
        }
        auto reason = [&](size_t i) {
          bool any = false;
          for (const char* lang : {"en", "zh"}) {
            const std::string o = q.options[i].get(lang);
            for (const char* mark : {":", "(", "：", "（"}) any = any || o.find(mark) != std::string::npos;
          }
          return any;
        };
        int with_reason = 0;
        for (size_t i = 0; i < q.options.size(); ++i) with_reason += reason(i);
        lone_reason += with_reason == 1 && reason(size_t(q.answer));
      }
    CAPTURE(l.file);
    if (n >= 2) {
      for (const auto& entry : at) {
        const int position = entry.first, k = entry.second;
        CHECK_MESSAGE(2 * k <= n, "option " << position + 1 << " is right in " << k << " of the lesson's " << n << " quizzes");
      }
      CHECK_MESSAGE(last_right > 0, "the last option is never the right one in this lesson");
    }
    if (n >= 4)
      for (const auto& entry : longest) {
        const std::string lang = entry.first;
        const int k = entry.second;
        CHECK_MESSAGE(2 * k <= n, "(" << lang << ") the right option is the longest in " << k << " of the lesson's " << n << " quizzes");
      }
  }
  int run = 0;
  for (size_t i = 0; i < sequence.size(); ++i) {
    run = i > 0 && sequence[i] == sequence[i - 1] ? run + 1 : 1;
    CHECK_MESSAGE(run < 4, "quiz " << i + 1 << " of the set is the " << run << "th in a row whose answer is option " << sequence[i] + 1);
  }
  CHECK_MESSAGE(lone_reason * 100 <= quizzes * 15,
                "the right option is the only one with a reason in " << lone_reason << " of " << quizzes << " quizzes");
  MESSAGE("the right option is the only one with a reason in " << lone_reason << " of " << quizzes << " quizzes");
}

// A step is read before the learner does anything: at most 200 English words of its
// text. What waits in a quiz's 'after' is read later, but it is read on the same
// step: with every 'after' the step holds at most 300 words. (Link titles do not
// count.) A step over either limit is split, not cut.
namespace {
size_t words_before_task(const LessonStep& s) { return word_count(s.text.get("en")); }
size_t words_with_afters(const LessonStep& s) {
  size_t words = word_count(s.text.get("en"));
  for (const Quiz& q : s.quizzes) words += word_count(q.after.get("en"));
  return words;
}
}  // namespace

TEST_CASE("no step's English text runs over 200 words before the learner acts, or over 300 with its after-texts") {
  const LessonSet set = load_embedded_lessons();
  for (const Lesson& l : set.lessons)
    for (const LessonStep& s : l.steps) {
      const size_t before = words_before_task(s), all = words_with_afters(s);
      const bool short_enough = before <= 200;
      CHECK_MESSAGE(short_enough, "lessons/" << l.file << ":" << s.line << ": step '" << s.id << "' has " << before
                                             << " words before its task; split it, or move what answers a quiz into its 'after'");
      const bool short_with_afters = all <= 300;
      CHECK_MESSAGE(short_with_afters, "lessons/" << l.file << ":" << s.line << ": step '" << s.id << "' has " << all
                                                  << " words with its after-texts; split the step");
    }
}

TEST_CASE("the step word counts add every quiz's after-text to the step's text") {
  LessonStep s;
  s.text.by_lang["en"] = "One two three.";
  Quiz a, b;
  a.after.by_lang["en"] = "Four five.";
  b.after.by_lang["en"] = "Six [a link title](#x/y) seven.";
  s.quizzes = {a, b};
  CHECK(words_before_task(s) == 3);
  CHECK(words_with_afters(s) == 7);
}

TEST_CASE("the word count counts words, not link titles or punctuation") {
  CHECK(word_count("One two, three.") == 3);
  CHECK(word_count("q · k = 0.5 — yes") == 4);  // "·", "=" and "—" are not words
  CHECK(word_count("See [Keys, values and a query](#focus/three-stages); and [A](#x/y).") == 2);
}

// Every step asks the learner to predict something or to do something.
TEST_CASE("every step has a quiz or an exercise") {
  const LessonSet set = load_embedded_lessons();
  for (const Lesson& l : set.lessons)
    for (const LessonStep& s : l.steps) {
      const bool asks = !s.quizzes.empty() || !s.exercises.empty();
      CHECK_MESSAGE(asks, "lessons/" << l.file << ":" << s.line << ": step '" << s.id
                                     << "' asks for no prediction and sets no task");
    }
}

TEST_CASE("every lesson ends with its sources: authors, year and title") {
  const LessonSet set = load_embedded_lessons();
  for (const Lesson& l : set.lessons) {
    CAPTURE(l.file);
    const std::vector<LocalText>& sources = l.steps.back().sources;
    const bool has_sources = !sources.empty();
    CHECK_MESSAGE(has_sources, "lessons/" << l.file << " has no source: lines");
    for (const LocalText& source : sources) {
      const std::string en = source.get("en");
      CAPTURE(en);
      bool year = false;
      for (size_t i = 0; i + 4 <= en.size(); ++i)
        year = year || ((en.compare(i, 2, "19") == 0 || en.compare(i, 2, "20") == 0) && std::isdigit(static_cast<unsigned char>(en[i + 2])) &&
                        std::isdigit(static_cast<unsigned char>(en[i + 3])));
      CHECK_MESSAGE(year, "a source gives its year");
      const bool named = word_count(en) >= 5;
      CHECK_MESSAGE(named, "a source gives its authors and title");
    }
  }
}

// The canvas draws with a Latin font subset (src/app/CMakeLists.txt and
// src/platform/platform_sdl.cpp keep U+0020-007E, U+00A0-00FF, Greek, U+2010-2027,
// arrows and maths symbols) and a CJK subset built from the lesson files: any other
// character (a "č" in an author's name, say) would be drawn as a box. The box
// itself, □ (U+25A1), is one the CJK subset holds: the language model draws the
// unknown token with it, and its lesson names it.
TEST_CASE("every character of every lesson is in the canvas's fonts") {
  const LessonSet set = load_embedded_lessons();
  auto drawable = [](char32_t c) {
    const bool latin = (c >= 0x20 && c <= 0x7E) || (c >= 0xA0 && c <= 0xFF) || (c >= 0x370 && c <= 0x3FF) ||
                       (c >= 0x2010 && c <= 0x2027) || (c >= 0x2190 && c <= 0x22FF) || c == '\n';
    const bool cjk = (c >= 0x2E80 && c <= 0x9FFF) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFF00 && c <= 0xFFEF) ||
                     c == 0x25A1;
    return latin || cjk;
  };
  auto check = [&](const std::string& where, const std::string& text) {
    for (size_t i = 0; i < text.size();) {
      const unsigned char c = static_cast<unsigned char>(text[i]);
      const int n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
      char32_t cp = n == 1 ? c : c & (0xFF >> (n + 1));
      for (int k = 1; k < n && i + size_t(k) < text.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(text[i + size_t(k)]) & 0x3F);
      CHECK_MESSAGE(drawable(cp), where << ": '" << text.substr(i, size_t(n)) << "' is in neither font");
      i += size_t(n);
    }
  };
  for (const Lesson& l : set.lessons)
    for (const LessonStep& s : l.steps)
      for (const char* lang : {"en", "zh"}) {
        const std::string at = l.file + ": step '" + s.id + "'";
        check(at, s.title.get(lang) + s.text.get(lang));
        for (const LocalText& src : s.sources) check(at + " source", src.get(lang));
        for (const Quiz& q : s.quizzes) {
          std::string all = q.question.get(lang) + q.explanation.get(lang) + q.after.get(lang);
          for (const LocalText& o : q.options) all += o.get(lang);
          check(at + " quiz '" + q.id + "'", all);
        }
        for (const Exercise& e : s.exercises) {
          std::string all = e.goal.get(lang);
          for (const LocalText& h : e.hints) all += h.get(lang);
          check(at + " exercise '" + e.id + "'", all);
        }
      }
}

// The learner's saved state and share links: round trips, and bad input refused
// with a reason while nothing is lost.
#include <doctest/doctest.h>

#include <set>

#include "base/json.h"
#include "course/lab_state.h"
#include "course/links.h"
#include "lab/catalog.h"

using namespace attn;

namespace {

Lesson tiny_lesson() {
  Lesson l;
  std::vector<LessonError> errors;
  const char* text =
      "lesson: tiny\ntitle: Tiny\n\nstep: one\ntitle: One\ntext:\n  x\n\n"
      "step: two\ntitle: Two\ndemo: qkv_basic\ntokens: a | b\nq: [[1, 0], [0, 1]]\n"
      "k: [[1, 0], [0, 1]]\nv: [[1, 2], [3, 4]]\ntext:\n  y\n";
  REQUIRE(parse_lesson("tiny.lesson", text, l, errors));
  return l;
}

}  // namespace

TEST_CASE("edits are stored as differences and re-applied over the lesson's values") {
  const Lesson l = tiny_lesson();
  const LessonStep& s = l.steps[1];
  DemoInputs in = demo_defaults(s, "en");
  CHECK(edits_from_inputs(demo_defaults(s, "en"), in).empty());
  in.mats["q"](0, 1) = 2.5f;
  in.settings["score"] = "scaled_dot";
  const StepEdits e = edits_from_inputs(demo_defaults(s, "en"), in);
  CHECK(e.mats.size() == 1);
  CHECK(e.mats.count("q") == 1);
  CHECK(e.settings.at("score") == "scaled_dot");
  const DemoInputs back = inputs_with_edits(demo_defaults(s, "en"), &e);
  CHECK(back.mats.at("q")(0, 1) == 2.5f);
  CHECK(back.mats.at("k") == demo_defaults(s, "en").mats.at("k"));
  // An edit whose shape no longer fits the lesson is ignored, not applied.
  StepEdits stale;
  stale.mats["q"] = Mat::Zero(3, 3);
  CHECK(inputs_with_edits(demo_defaults(s, "en"), &stale).mats.at("q") == demo_defaults(s, "en").mats.at("q"));
}

// A step whose Chinese reader starts from the cosine score (score.zh), and one
// the same in both languages.
TEST_CASE("switching language enters again the steps whose values differ by language, with the learner's edits") {
  std::vector<Lesson> lessons(1);
  std::vector<LessonError> errors;
  REQUIRE(parse_lesson("t.lesson",
                       "lesson: both\ntitle: Both\n"
                       "step: one\ntitle: One\ndemo: qkv_basic\ntokens: a | b\nq: [[1, 0], [0, 1]]\n"
                       "k: [[1, 0], [0, 1]]\nv: [[1, 2], [3, 4]]\nscore: dot\nscore.zh: cosine\ntext:\n  x\n"
                       "step: two\ntitle: Two\ndemo: qkv_basic\ntokens: a | b\nq: [[1, 0], [0, 1]]\n"
                       "k: [[1, 0], [0, 1]]\nv: [[1, 2], [3, 4]]\ntext:\n  y\n",
                       lessons[0], errors));
  const LessonStep& one = lessons[0].steps[0];
  LabState st;
  const std::vector<std::string> one_only = {"both/one"};
  CHECK(steps_changed_by_language(lessons, st, "en", "zh", lab_demos()) == one_only);
  CHECK(steps_changed_by_language(lessons, st, "zh", "en", lab_demos()) == one_only);
  CHECK(steps_changed_by_language(lessons, st, "zh", "zh", lab_demos()).empty());
  // An edit made in English: kept as what differed from the English values, and
  // applied over the Chinese ones when the learner switches.
  DemoInputs in = demo_defaults(one, "en");
  in.mats["q"](0, 1) = 2.0f;
  st.edits["both/one"] = edits_from_inputs(demo_defaults(one, "en"), in);
  const DemoInputs zh = inputs_with_edits(demo_defaults(one, "zh"), &st.edits["both/one"]);
  CHECK(zh.settings.at("score") == "cosine");
  CHECK(zh.mats.at("q")(0, 1) == 2.0f);
  CHECK(steps_changed_by_language(lessons, st, "en", "zh", lab_demos()) == one_only);
  // The learner chose the cosine score in English: the same values in both
  // languages, so nothing needs to start again.
  in.settings["score"] = "cosine";
  st.edits["both/one"] = edits_from_inputs(demo_defaults(one, "en"), in);
  CHECK(steps_changed_by_language(lessons, st, "en", "zh", lab_demos()).empty());
  // Remembered again in Chinese, the edits are what differs from the Chinese values.
  const StepEdits in_zh = edits_from_inputs(demo_defaults(one, "zh"), inputs_with_edits(demo_defaults(one, "zh"), &st.edits["both/one"]));
  CHECK(!in_zh.settings.count("score"));
  CHECK(in_zh.mats.count("q"));
}

TEST_CASE("saved state round-trips through JSON text") {
  LabState st;
  st.lang = "zh";
  st.lesson = "tiny";
  st.step = 1;
  st.furthest["tiny"] = 1;
  st.edits["tiny/two"].mats["q"] = (Mat(2, 2) << 1, 2, 3, 4.5f).finished();
  st.edits["tiny/two"].settings["score"] = "cosine";
  const std::string text = json::write(lab_state_to_json(st));
  LabState back;
  std::string why;
  REQUIRE(lab_state_from_text(text, &back, &why));
  CHECK(back.lang == "zh");
  CHECK(back.lesson == "tiny");
  CHECK(back.step == 1);
  CHECK(back.furthest.at("tiny") == 1);
  CHECK(back.edits.at("tiny/two").mats.at("q")(1, 1) == 4.5f);
  CHECK(back.edits.at("tiny/two").settings.at("score") == "cosine");
}

TEST_CASE("hints and quiz answers round-trip, and state saved before they existed still loads") {
  LabState st;
  st.lesson = "tiny";
  st.answers["tiny/two"].hints["aim"] = 2;
  st.answers["tiny/two"].quizzes["who"] = {1, true};
  st.answers["tiny/two"].quizzes["why"] = {0, false};
  st.answers["tiny/one"];  // empty: not written
  const std::string text = json::write(lab_state_to_json(st));
  CHECK(text.find("tiny/one") == std::string::npos);
  LabState back;
  std::string why;
  REQUIRE(lab_state_from_text(text, &back, &why));
  CHECK(back.answers.size() == 1);
  const StepAnswers& a = back.answers.at("tiny/two");
  CHECK(a.hints.at("aim") == 2);
  CHECK(a.quizzes.at("who") == QuizAnswer{1, true});
  CHECK(a.quizzes.at("why") == QuizAnswer{0, false});

  // A version 1 file (written before answers were saved) loads with none.
  LabState old;
  REQUIRE(lab_state_from_text(
      "{\"version\": 1, \"lang\": \"zh\", \"lesson\": \"tiny\", \"step\": 1, \"furthest\": {\"tiny\": 1},"
      " \"edits\": {\"tiny/two\": {\"s\": {\"score\": \"cosine\"}}}}",
      &old, &why));
  CHECK(old.lang == "zh");
  CHECK(old.step == 1);
  CHECK(old.edits.at("tiny/two").settings.at("score") == "cosine");
  CHECK(old.answers.empty());
}

TEST_CASE("a step's answers map to its exercises and quizzes by id, and never read as more than the step has") {
  Lesson l;
  std::vector<LessonError> errors;
  const char* text =
      "lesson: quiz\ntitle: Quiz\n\nstep: one\ntitle: One\ndemo: qkv_basic\ntokens: a | b\n"
      "q: [[1, 0], [0, 1]]\nk: [[1, 0], [0, 1]]\nv: [[1, 2], [3, 4]]\ntext:\n  y\n\n"
      "quiz: who\nquestion: Who?\noption: a\noption: b\nanswer: 2\nexplain: b.\n\n"
      "exercise: aim\ngoal: Aim.\ncheck: weights[a, b] > 0.6\nhint: one\nhint: two\nsolution: q[a] = [0, 5]\n\n"
      "exercise: other\ngoal: Other.\ncheck: weights[b, a] > 0.6\nhint: only\nsolution: q[b] = [5, 0]\n";
  REQUIRE(parse_lesson("quiz.lesson", text, l, errors));
  const LessonStep& s = l.steps[0];
  REQUIRE(s.exercises.size() == 2);
  REQUIRE(s.quizzes.size() == 1);

  // Nothing saved: a fresh step.
  CHECK(hints_for_step(s, nullptr) == std::vector<int>{0, 0});
  CHECK(quizzes_for_step(s, nullptr) == std::vector<QuizAnswer>{QuizAnswer{}});

  StepAnswers a;
  a.hints["other"] = 1;
  a.hints["gone"] = 3;  // an exercise the lesson no longer has: ignored
  a.quizzes["who"] = {1, true};
  CHECK(hints_for_step(s, &a) == std::vector<int>{0, 1});
  CHECK(quizzes_for_step(s, &a) == std::vector<QuizAnswer>{QuizAnswer{1, true}});

  // More hints than the exercise has, or an option that is gone, read as less.
  a.hints["aim"] = 7;
  a.quizzes["who"] = {5, true};
  CHECK(hints_for_step(s, &a) == std::vector<int>{2, 1});
  CHECK(quizzes_for_step(s, &a) == std::vector<QuizAnswer>{QuizAnswer{}});

  // And back: only what differs from a fresh step is kept.
  const StepAnswers kept = answers_from_step(s, {2, 0}, {QuizAnswer{0, false}});
  CHECK(kept.hints.size() == 1);
  CHECK(kept.hints.at("aim") == 2);
  CHECK(kept.quizzes.at("who") == QuizAnswer{0, false});
  CHECK(answers_from_step(s, {0, 0}, {QuizAnswer{}}).empty());
}

TEST_CASE("a quiz's 'after' prose is shown only once the quiz is checked") {
  Lesson l;
  std::vector<LessonError> errors;
  const char* text =
      "lesson: after\ntitle: After\n\nstep: one\ntitle: One\ntext:\n  Before.\n\n  Second paragraph.\n"
      "text.zh:\n  之前。\n\n"
      "quiz: first\nquestion: Which?\noption: a\noption: b\nanswer: 2\nexplain: b.\n"
      "after:\n  The answer was b.\n\n  And why.\nafter.zh:\n  答案是 b。\n\n"
      "quiz: second\nquestion: And?\noption: c\noption: d\nanswer: 1\nexplain: c.\n";
  REQUIRE(parse_lesson("after.lesson", text, l, errors));
  REQUIRE(validate_lesson(l, lab_demos(), errors));
  const LessonStep& s = l.steps[0];
  REQUIRE(s.quizzes.size() == 2);
  CHECK(s.quizzes[0].after.get("en") == "The answer was b.\nAnd why.");
  CHECK(s.quizzes[1].after.by_lang.empty());
  const QuizAnswer fresh, picked{1, false}, checked{1, true};
  CHECK(shown_prose(s, "en", {fresh, fresh}) == "Before.\nSecond paragraph.");
  CHECK(shown_prose(s, "en", {picked, fresh}) == "Before.\nSecond paragraph.");  // picked is not checked
  CHECK(shown_prose(s, "en", {checked, fresh}) == "Before.\nSecond paragraph.\nThe answer was b.\nAnd why.");
  CHECK(shown_prose(s, "zh", {checked, fresh}) == "之前。\n答案是 b。");
  CHECK(shown_prose(s, "en", {fresh, checked}) == "Before.\nSecond paragraph.");  // the second has no 'after'
  CHECK(shown_prose(s, "en", {}) == "Before.\nSecond paragraph.");  // no answers known yet
}

// Predict first: an exercise's goal and live values ("weights[cats, mice] > 0.6
// (now 0.374)") would give a quiz of its step away, so they wait for every quiz.
TEST_CASE("a step's exercises open only once every quiz of the step is checked") {
  LessonStep s;
  s.quizzes.resize(2);
  s.exercises.resize(1);
  const QuizAnswer fresh, picked{0, false}, checked{0, true};
  CHECK_FALSE(exercises_open(s, {}));                // nothing known yet
  CHECK_FALSE(exercises_open(s, {fresh, fresh}));
  CHECK_FALSE(exercises_open(s, {picked, checked}));  // picked is not checked
  CHECK_FALSE(exercises_open(s, {checked, fresh}));   // every quiz, not the first
  CHECK_FALSE(exercises_open(s, {checked}));          // the second's answer is unknown
  CHECK(exercises_open(s, {checked, checked}));
  LessonStep no_quiz;
  no_quiz.exercises.resize(1);
  CHECK(exercises_open(no_quiz, {}));  // nothing to predict: open from the start
}

TEST_CASE("a saved state that cannot be read at all is refused with a reason and leaves the target untouched") {
  LabState target;
  target.lesson = "keep";
  std::string why;
  for (const char* text : {"", "{", "[]", "{\"version\": 4}", "{\"version\": 3, \"layout\": 99}", "{\"lang\": \"en\"}"}) {
    CAPTURE(text);
    why.clear();
    CHECK_FALSE(lab_state_from_text(text, &target, &why));
    CHECK(!why.empty());
    CHECK(target.lesson == "keep");
  }
  CHECK_FALSE(lab_state_from_text(std::string(kMaxSavedStateBytes + 1, ' '), &target, &why));
}

TEST_CASE("one bad field of a saved state loses only itself, and says what was dropped") {
  // Each bad field beside good ones: the good ones load, the bad one is named.
  const std::string good_edit = "\"a/good\": {\"m\": {\"q\": [[1, 2]]}}";
  const std::string good_answer = "\"a/good\": {\"h\": {\"x\": 1}}";
  struct Case {
    std::string text;
    std::string dropped;  // a part of the one description expected
  };
  const std::string v = "{\"version\": 2, \"lang\": \"zh\", \"furthest\": {\"a\": 3}, ";
  auto answers = [&](const std::string& bad) { return v + "\"answers\": {" + good_answer + ", \"a/b\": " + bad + "}}"; };
  auto edits = [&](const std::string& bad) { return v + "\"edits\": {" + good_edit + ", \"a/b\": " + bad + "}}"; };
  const Case cases[] = {
      {answers("{\"h\": {\"x\": -1}}"), "answers for 'a/b': hints of 'x'"},
      {answers("{\"h\": {\"x\": 1.5}}"), "answers for 'a/b'"},
      {answers("{\"h\": {\"x\": 1000}}"), "answers for 'a/b'"},
      {answers("{\"q\": {\"x\": {\"p\": \"1\"}}}"), "answers for 'a/b': answer to quiz 'x'"},
      {answers("{\"q\": {\"x\": {\"p\": 0, \"c\": 1}}}"), "answers for 'a/b'"},
      {answers("{\"q\": {\"x\": {\"p\": -1, \"c\": true}}}"), "answers for 'a/b'"},
      {answers("{\"q\": {\"x\": {\"p\": 0, \"c\": true, \"why\": 1}}}"), "answers for 'a/b'"},
      {answers("{\"q\": {\"x\": 2}}"), "answers for 'a/b'"},
      {answers("{\"hints\": {}}"), "answers for 'a/b': unexpected field 'hints'"},
      {edits("{\"m\": {\"q\": [[1, null]]}}"), "edits for 'a/b': matrix 'q': row 0, column 1"},
      {edits("{\"m\": {\"q\": [[1], [1, 2]]}}"), "edits for 'a/b': matrix 'q': row 1"},
      {edits("{\"m\": {\"q\": [[1e39]]}}"), "edits for 'a/b': matrix 'q'"},
      {edits("{\"x\": 1}"), "edits for 'a/b': unexpected field 'x'"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    LabState st;
    std::string why;
    std::vector<std::string> dropped;
    REQUIRE(lab_state_from_text(c.text, &st, &why, &dropped));
    REQUIRE(dropped.size() == 1);
    CHECK(dropped[0].find(c.dropped) != std::string::npos);
    CHECK(st.lang == "zh");
    CHECK(st.furthest.at("a") == 3);
    CHECK((st.edits.count("a/good") == 1 || st.answers.count("a/good") == 1));
    CHECK(st.edits.count("a/b") == 0);
    CHECK(st.answers.count("a/b") == 0);
    // What loaded saves and loads again whole.
    std::vector<std::string> again;
    LabState back;
    REQUIRE(lab_state_from_text(json::write(lab_state_to_json(st)), &back, &why, &again));
    CHECK(again.empty());
  }
  // The language, the place and one progress entry fall back on their own.
  LabState st;
  std::string why;
  std::vector<std::string> dropped;
  REQUIRE(lab_state_from_text("{\"version\": 1, \"lang\": \"fr\", \"lesson\": \"a\", \"step\": -1, "
                              "\"furthest\": {\"a\": \"far\", \"b\": 2}, " + std::string("\"edits\": {") + good_edit + "}}",
                              &st, &why, &dropped));
  CHECK(dropped.size() == 3);
  CHECK(st.lang == "en");
  CHECK(st.lesson.empty());
  CHECK(st.step == 0);
  CHECK(st.furthest.count("a") == 0);
  CHECK(st.furthest.at("b") == 2);
  CHECK(st.edits.count("a/good") == 1);
}

TEST_CASE("the copy of an unreadable state never overwrites an earlier copy") {
  std::set<std::string> taken;
  auto exists = [&](const std::string& key) { return taken.count(key) == 1; };
  CHECK(unreadable_copy_key(exists) == "state-unreadable");
  taken.insert("state-unreadable");
  CHECK(unreadable_copy_key(exists) == "state-unreadable-2");
  for (int i = 2; i <= 5; ++i) taken.insert("state-unreadable-" + std::to_string(i));
  CHECK(unreadable_copy_key(exists).empty());
}

TEST_CASE("a loaded state is fitted to the lessons at hand") {
  std::vector<Lesson> lessons = {tiny_lesson()};
  LabState st;
  st.lesson = "gone";
  st.step = 5;
  st.furthest["gone"] = 3;
  st.furthest["tiny"] = 9;
  lab_state_fit(&st, lessons);
  CHECK(st.lesson == "tiny");
  CHECK(st.step == 0);
  CHECK(st.furthest.count("gone") == 0);
  CHECK(st.furthest.at("tiny") == 1);
}

TEST_CASE("links name a place and can carry the learner's values") {
  ParsedLink p;
  std::string why;
  REQUIRE(parse_link("#tiny/two", &p, &why));
  CHECK(p.lesson == "tiny");
  CHECK(p.step_id == "two");
  CHECK_FALSE(p.has_edits);
  // A link of layout 1 names its step by number, counted from 1.
  REQUIRE(parse_link("#tiny/2", &p, &why));
  CHECK(p.step_id.empty());
  CHECK(p.step == 1);
  REQUIRE(parse_link("", &p, &why));
  CHECK(p.lesson.empty());

  StepEdits e;
  e.mats["q"] = (Mat(2, 2) << 0.25f, -1, 3, 4).finished();
  e.settings["score"] = "dot";
  const std::string link = make_link("tiny", "two", &e);
  CHECK(link.rfind("tiny/two/v1.", 0) == 0);
  REQUIRE(parse_link("#" + link, &p, &why));
  CHECK(p.step_id == "two");
  REQUIRE(p.has_edits);
  CHECK(p.edits.mats.at("q") == e.mats.at("q"));
  CHECK(p.edits.settings.at("score") == "dot");
  CHECK(make_link("tiny", "one", nullptr) == "tiny/one");

  // An embed snippet frames embed.html at the link, in the language, with the title
  // escaped for an HTML attribute (a lesson title may hold quotes or angle brackets).
  const std::string snippet = embed_snippet("https://lab.example/x/", link, "zh", "Q & \"K\" <V>");
  CHECK(snippet.rfind("<iframe src=\"https://lab.example/x/embed.html?lang=zh#tiny/two/v1.", 0) == 0);
  CHECK(snippet.find("title=\"Q &amp; &quot;K&quot; &lt;V&gt;\"") != std::string::npos);
  CHECK(snippet.find('<', 1) == snippet.find("</iframe>"));  // no markup smuggled in
  CHECK(embed_snippet("/", "tiny/one", "en", "t").find("src=\"/embed.html#tiny/one\"") != std::string::npos);

  // With the lessons, the step is resolved to its index now.
  const std::vector<Lesson> lessons = {tiny_lesson()};
  REQUIRE(parse_link("#tiny/two", lessons, &p, &why));
  CHECK(p.step == 1);
  REQUIRE(parse_link("#tiny/1", lessons, &p, &why));
  CHECK(p.step == 0);
  REQUIRE(parse_link("#tiny/gone", lessons, &p, &why));
  CHECK(p.step == -1);
  REQUIRE(parse_link("#tiny/7", lessons, &p, &why));
  CHECK(p.step == -1);
}

TEST_CASE("bad or oversized links are refused") {
  ParsedLink p;
  std::string why;
  CHECK_FALSE(parse_link("#tiny/ze.ro", &p, &why));
  CHECK_FALSE(parse_link("#tiny/" + std::string(65, 'a'), &p, &why));
  CHECK_FALSE(parse_link("#tiny/0", &p, &why));
  CHECK_FALSE(parse_link("#tiny/1001", &p, &why));
  CHECK_FALSE(parse_link("#ti<ny/1", &p, &why));
  CHECK_FALSE(parse_link("#tiny/1/v2.abc", &p, &why));
  CHECK(why == "the link's saved values have an unknown version");
  CHECK_FALSE(parse_link("#tiny/1/v1.!!!", &p, &why));
  CHECK(parse_link("#tiny/1/v1.e30", &p, &why));             // "{}": a link with no values
  CHECK_FALSE(parse_link("#tiny/1/v1.bm90IGpzb24", &p, &why));  // "not json"
  CHECK(why == "the link's saved values are damaged");
  CHECK_FALSE(parse_link("#tiny/1/v1." + std::string(5000, 'A'), &p, &why));
  CHECK(why == "the link is too long");
}

TEST_CASE("a matrix that claims a huge shape is refused before anything is allocated") {
  // Row 0 holds 200k numbers and 199,999 empty rows follow: under the 1 MiB cap,
  // but 200k x 200k floats if allocated from the first row's length.
  const int n = 200000;
  std::string rows = "[";
  for (int c = 0; c < n; ++c) rows += c ? ",0" : "0";
  rows += "]";
  for (int r = 1; r < n; ++r) rows += ",[]";
  const std::string text = "{\"version\": 2, \"edits\": {\"a/b\": {\"m\": {\"q\": [" + rows + "]}}}}";
  REQUIRE(text.size() <= kMaxSavedStateBytes);
  LabState st;
  std::string why;
  std::vector<std::string> dropped;
  REQUIRE(lab_state_from_text(text, &st, &why, &dropped));
  REQUIRE(dropped.size() == 1);
  CHECK(dropped[0].find("'q'") != std::string::npos);
  CHECK(dropped[0].find("200000 rows, more than 64") != std::string::npos);
}

TEST_CASE("a state that loads saves and loads again to the same thing, numbers beyond float range are refused") {
  const std::string head = "{\"version\": 2, \"lang\": \"zh\", \"edits\": {\"a/b\": {\"m\": {\"q\": [[";
  const std::string tail = ", 0], [0, 1]]}}}}";
  for (const char* bad : {"1e39", "-1e39", "3.5e38"}) {
    CAPTURE(bad);
    LabState st;
    std::string why;
    std::vector<std::string> dropped;
    REQUIRE(lab_state_from_text(head + bad + tail, &st, &why, &dropped));
    REQUIRE(dropped.size() == 1);
    CHECK(dropped[0].find("matrix 'q': row 0, column 0 is not a finite number that fits a float") != std::string::npos);
    CHECK(st.edits.count("a/b") == 0);
  }
  for (const char* ok : {"3.4028234663852886e38", "-3.4028235e38", "1e-45", "0.1", "-0"}) {
    CAPTURE(ok);
    LabState st;
    std::string why;
    REQUIRE(lab_state_from_text(head + ok + tail, &st, &why));
    const std::string saved = json::write(lab_state_to_json(st));
    LabState again;
    REQUIRE_MESSAGE(lab_state_from_text(saved, &again, &why), why);
    CHECK(json::write(lab_state_to_json(again)) == saved);
    CHECK(again.edits.at("a/b").mats.at("q") == st.edits.at("a/b").mats.at("q"));
  }
  // The same matrix in a share link.
  ParsedLink p;
  std::string why;
  StepEdits e;
  e.mats["q"] = (Mat(1, 2) << 3.4028234663852886e38f, 1).finished();
  REQUIRE(parse_link(make_link("tiny", "one", &e), &p, &why));
  CHECK(p.edits.mats.at("q") == e.mats.at("q"));
}

TEST_CASE("a link's matrix that does not fit the step is named as ignored, whatever its values") {
  const Lesson l = tiny_lesson();
  const LessonStep& s = l.steps[1];
  const Mat q = demo_defaults(s, "en").mats.at("q");  // 2 x 2
  StepEdits e;
  e.mats["q"] = Mat::Constant(1, 1, q(0, 0));  // equal to element (0, 0) only
  e.mats["k"] = Mat::Zero(16, 16);              // larger than the step's
  e.mats["v"] = (Mat(2, 2) << 5, 6, 7, 8).finished();
  e.mats["gone"] = Mat::Zero(2, 2);
  std::vector<std::string> ignored;
  const DemoInputs in = inputs_with_edits(demo_defaults(s, "en"), &e, &ignored);
  CHECK(ignored == std::vector<std::string>{"gone", "k", "q"});
  CHECK(in.mats.at("q") == q);
  CHECK(in.mats.at("v")(1, 1) == 8.0f);
  // Every edit fits: nothing is ignored.
  ignored.clear();
  StepEdits fits;
  fits.mats["q"] = Mat::Zero(2, 2);
  inputs_with_edits(demo_defaults(s, "en"), &fits, &ignored);
  CHECK(ignored.empty());
}

// ---------------------------------------------------------------- lesson layouts
namespace {

// Layout 1 had steps "intro", "run" and "quiz"; "run" was split into "run" and
// "why", and the quiz's options were reordered (old 1 -> 3, 2 -> 1, 3 -> 2), one
// was added, and "intro"'s only option "b" was dropped.
Lesson layout_lesson() {
  const char* text =
      "lesson: moved\ntitle: Moved\nlayout-1-steps: intro | run | quiz\n"
      "step: intro\ntitle: Intro\ntext:\n  i\n"
      "quiz: first\nquestion: Q?\noption: a\noption: c\nanswer: 1\nexplain: E.\nlayout-1-options: 1 | - | 2\n"
      "step: run\ntitle: Run\ntext:\n  r\n"
      "step: why\ntitle: Why\ntext:\n  w\n"
      "quiz: moved-here\nquestion: Q?\noption: x\noption: y\nanswer: 2\nexplain: E.\n"
      "step: quiz\ntitle: Quiz\ntext:\n  q\n"
      "quiz: order\nquestion: Q?\noption: two\noption: three\noption: one\noption: new\nanswer: 3\nexplain: E.\n"
      "layout-1-options: 3 | 1 | 2\n"
      "source: Someone et al. 2017. A title.\nsource.zh: Someone 等，2017。A title。\n";
  Lesson l;
  std::vector<LessonError> errors;
  const bool ok = parse_lesson("moved.lesson", text, l, errors);
  for (const auto& e : errors) FAIL_CHECK(e.to_string());
  REQUIRE(ok);
  return l;
}

}  // namespace

TEST_CASE("a lesson's layout records say where the steps and options of an earlier layout went") {
  const Lesson l = layout_lesson();
  REQUIRE(l.old_steps.count(1));
  CHECK(step_from_layout(l, 1, 0) == 0);
  CHECK(step_from_layout(l, 1, 1) == 1);
  CHECK(step_from_layout(l, 1, 2) == 3);  // "quiz" moved down by the new step "why"
  CHECK(step_from_layout(l, 1, 3) == -1);
  CHECK(step_from_layout(l, kLessonLayout, 2) == 2);  // today's positions are today's
  CHECK(l.steps[3].quizzes[0].old_options.at(1) == std::vector<int>{2, 0, 1});
  CHECK(l.steps[0].quizzes[0].old_options.at(1) == std::vector<int>{0, -1, 1});
  // The sources sit on the last step.
  CHECK(l.steps[3].sources.size() == 1);
  CHECK(l.steps[0].sources.empty());
}

TEST_CASE("a state saved in layout 1 keeps its place, progress and answers in today's lessons") {
  const std::vector<Lesson> lessons = {layout_lesson()};
  // Saved before layouts were recorded (version 2): at old step 3, the quiz
  // answered with old option 1 ("one"), and "intro" answered with the option now gone.
  const std::string saved =
      "{\"version\": 2, \"lang\": \"en\", \"lesson\": \"moved\", \"step\": 2, \"furthest\": {\"moved\": 2},"
      " \"answers\": {\"moved/quiz\": {\"q\": {\"order\": {\"p\": 0, \"c\": true}}},"
      " \"moved/intro\": {\"q\": {\"first\": {\"p\": 1, \"c\": true}}},"
      " \"moved/run\": {\"q\": {\"moved-here\": {\"p\": 1}}}}}";
  LabState st;
  std::string why;
  REQUIRE(lab_state_from_text(saved, &st, &why));
  CHECK(st.layout == 1);
  lab_state_fit(&st, lessons);
  CHECK(st.layout == kLessonLayout);
  CHECK(st.step == 3);
  CHECK(st.furthest.at("moved") == 3);
  const QuizAnswer one = quizzes_for_step(lessons[0].steps[3], &st.answers.at("moved/quiz"))[0];
  CHECK(one.picked == 2);  // "one" is option 3 now: still the right answer
  CHECK(one.checked);
  CHECK(st.answers.count("moved/intro") == 0);  // its option is gone: unanswered
  // A quiz that moved to another step of its lesson takes its answer along.
  CHECK(st.answers.count("moved/run") == 0);
  CHECK(st.answers.at("moved/why").quizzes.at("moved-here").picked == 1);

  // Saved again, it is today's layout and loads to the same thing without moving again.
  const std::string again = json::write(lab_state_to_json(st));
  CHECK(again.find("\"layout\":" + std::to_string(kLessonLayout)) != std::string::npos);
  LabState st2;
  REQUIRE(lab_state_from_text(again, &st2, &why));
  lab_state_fit(&st2, lessons);
  CHECK(json::write(lab_state_to_json(st2)) == again);

  // Progress reached in layout 1 at old step 2 ("run") is step 2 now, not "why".
  LabState early;
  REQUIRE(lab_state_from_text("{\"version\": 1, \"lesson\": \"moved\", \"step\": 1, \"furthest\": {\"moved\": 1}}", &early, &why));
  lab_state_fit(&early, lessons);
  CHECK(early.step == 1);
  CHECK(early.furthest.at("moved") == 1);
}

namespace {

// Layouts 1, 2 and 3 of one lesson: "order" had options one, two, three in
// layout 1; two, three, one, new in layout 2; new, one, two, three now. "later"
// came in layout 2 as a, b and is b, a now. No step moved after layout 1.
Lesson three_layouts_lesson() {
  const char* text =
      "lesson: moved\ntitle: Moved\nlayout-1-steps: intro | run | quiz\n"
      "step: intro\ntitle: Intro\ntext:\n  i\n"
      "step: run\ntitle: Run\ntext:\n  r\n"
      "step: why\ntitle: Why\ntext:\n  w\n"
      "step: quiz\ntitle: Quiz\ntext:\n  q\n"
      "quiz: order\nquestion: Q?\noption: new\noption: one\noption: two\noption: three\nanswer: 2\nexplain: E.\n"
      "layout-1-options: 2 | 3 | 4\nlayout-2-options: 3 | 4 | 2 | 1\n"
      "quiz: later\nquestion: Q?\noption: b\noption: a\nanswer: 2\nexplain: E.\nlayout-2-options: 2 | 1\n"
      "source: Someone et al. 2017. A title.\nsource.zh: Someone 等，2017。A title。\n";
  Lesson l;
  std::vector<LessonError> errors;
  const bool ok = parse_lesson("moved.lesson", text, l, errors);
  for (const auto& e : errors) FAIL_CHECK(e.to_string());
  REQUIRE(ok);
  return l;
}

QuizAnswer fitted_answer(const std::vector<Lesson>& lessons, const std::string& saved, size_t quiz) {
  LabState st;
  std::string why;
  REQUIRE(lab_state_from_text(saved, &st, &why));
  lab_state_fit(&st, lessons);
  CHECK(st.layout == kLessonLayout);
  const auto it = st.answers.find("moved/quiz");
  if (it == st.answers.end()) return {};
  return quizzes_for_step(lessons[0].steps[3], &it->second)[quiz];
}

}  // namespace

TEST_CASE("states saved in layouts 1 and 2 both keep their answers in today's layout") {
  REQUIRE(kLessonLayout >= 3);
  const std::vector<Lesson> lessons = {three_layouts_lesson()};
  const std::string head1 = "{\"version\": 2, \"lesson\": \"moved\", \"step\": 2, \"answers\": {\"moved/quiz\": {\"q\": {";
  const std::string head2 =
      "{\"version\": 3, \"layout\": 2, \"lesson\": \"moved\", \"step\": 3, \"answers\": {\"moved/quiz\": {\"q\": {";
  const std::string tail = "}}}}";
  // Layout 1: "one" (then option 1, the right answer) is option 2 now.
  CHECK(fitted_answer(lessons, head1 + "\"order\": {\"p\": 0, \"c\": true}" + tail, 0).picked == 1);
  CHECK(fitted_answer(lessons, head1 + "\"order\": {\"p\": 2, \"c\": true}" + tail, 0).picked == 3);
  // Layout 2: "one" was option 3, "new" option 4.
  CHECK(fitted_answer(lessons, head2 + "\"order\": {\"p\": 2, \"c\": true}" + tail, 0).picked == 1);
  CHECK(fitted_answer(lessons, head2 + "\"order\": {\"p\": 3, \"c\": true}" + tail, 0).picked == 0);
  // A quiz new in layout 2: "a" (right) was option 1 then and is option 2 now.
  const QuizAnswer a = fitted_answer(lessons, head2 + "\"later\": {\"p\": 0, \"c\": true}" + tail, 1);
  CHECK(a.picked == 1);
  CHECK(a.checked);
  // The place: layout 1's step 3 ("quiz", 0-based 2) is step 4 now; layout 2's step 4 is too.
  for (const std::string& saved : {head1 + tail, head2 + tail}) {
    LabState st;
    std::string why;
    REQUIRE(lab_state_from_text(saved, &st, &why));
    lab_state_fit(&st, lessons);
    CHECK(st.step == 3);
  }
}

TEST_CASE("a state from newer lessons, or of version 3 without its layout, is not misread") {
  LabState st;
  std::string why;
  CHECK_FALSE(lab_state_from_text("{\"version\": 3, \"layout\": 99, \"lesson\": \"x\"}", &st, &why));
  CHECK(why.find("newer") != std::string::npos);
  std::vector<std::string> dropped;
  REQUIRE(lab_state_from_text("{\"version\": 3, \"lesson\": \"moved\", \"step\": 2, \"furthest\": {\"moved\": 2}}", &st, &why, &dropped));
  CHECK(st.lesson.empty());
  CHECK(st.furthest.empty());
  REQUIRE(dropped.size() == 1);
  CHECK(dropped[0].find("layout") != std::string::npos);
}

TEST_CASE("layout records that name nothing, and step ids that are numbers, are refused with their line") {
  auto first_error = [](const std::string& text) {
    Lesson l;
    std::vector<LessonError> errors;
    parse_lesson("t.lesson", text, l, errors);
    return errors.empty() ? "" : errors[0].to_string();
  };
  const std::string head = "lesson: t\ntitle: T\n";
  const std::string step = "step: a\ntitle: A\ntext:\n  x\n";
  const std::string quiz = "quiz: q\nquestion: Q?\noption: a\noption: b\nanswer: 1\nexplain: E.\n";
  CHECK(first_error(head + "layout-1-steps: a | b\n" + step).find("t.lesson:3: layout 1 names step 'b'") != std::string::npos);
  CHECK(first_error(head + "layout-1-steps: a | a\n" + step).find("twice") != std::string::npos);
  CHECK(first_error(head + step + "layout-1-steps: a\n").find("before the first step") != std::string::npos);
  CHECK(first_error(head + "layout-" + std::to_string(kLessonLayout) + "-steps: a\n" + step).find("layouts before the current one") != std::string::npos);
  CHECK(first_error(head + step + quiz + "layout-1-options: 3 | 1\n").find("option 3 does not exist") != std::string::npos);
  CHECK(first_error(head + step + quiz + "layout-1-options: 1 | 1\n").find("named twice") != std::string::npos);
  CHECK(first_error(head + step + quiz + "layout-1-options: one\n").find("its number now") != std::string::npos);
  CHECK(first_error(head + step + "layout-1-options: 1\n").find("belongs to a quiz") != std::string::npos);
  CHECK(first_error(head + "step: 12\ntitle: A\ntext:\n  x\n").find("must not be a number") != std::string::npos);
  CHECK(first_error(head + step + "source.zh: 中文\n").find("must follow its English") != std::string::npos);
  CHECK(first_error(head + step + "source:\n").find("authors, year, title") != std::string::npos);
  CHECK(first_error(head + "layout-1-steps: - | a\n" + step + quiz + "layout-1-options: - | 2 | 1\n").empty());
}

TEST_CASE("a lesson's sources follow the prose of its last step, under a heading, in each language") {
  const Lesson l = layout_lesson();
  const LessonStep& last = l.steps.back();
  CHECK(shown_prose(last, "en", {}) == "q\nSources\nSomeone et al. 2017. A title.");
  CHECK(shown_prose(last, "zh", {}) == "q\n参考文献\nSomeone 等，2017。A title。");
  // A checked quiz's 'after' text comes before the sources.
  Lesson with_after = l;
  with_after.steps.back().quizzes[0].after.by_lang["en"] = "After.";
  QuizAnswer checked;
  checked.picked = 0;
  checked.checked = true;
  CHECK(shown_prose(with_after.steps.back(), "en", {checked}) == "q\nAfter.\nSources\nSomeone et al. 2017. A title.");
  CHECK(shown_prose(l.steps[0], "en", {}) == "i");
}

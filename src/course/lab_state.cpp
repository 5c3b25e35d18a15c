// lab_state.cpp: Sections: 1 edits against lesson values, and answers, 2 JSON,
// 3 fitting a state to the lessons. Links are links.cpp.
#include "course/lab_state.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "base/tensor_json.h"

namespace attn {

// ---------------------------------------------------------------- 1 edits
std::string step_key(const std::string& lesson_id, const std::string& step_id) { return lesson_id + "/" + step_id; }

DemoInputs inputs_with_edits(const DemoInputs& defaults, const StepEdits* edits, std::vector<std::string>* ignored) {
  DemoInputs in = defaults;
  if (!edits) return in;
  for (const auto& [name, m] : edits->mats) {
    auto it = in.mats.find(name);
    if (it != in.mats.end() && it->second.rows() == m.rows() && it->second.cols() == m.cols() && m.allFinite())
      it->second = m;
    else if (ignored)
      ignored->push_back(name);
  }
  for (const auto& [name, value] : edits->settings) in.settings[name] = value;
  return in;
}

StepEdits edits_from_inputs(const DemoInputs& base, const DemoInputs& current) {
  StepEdits e;
  for (const auto& [name, m] : current.mats) {
    auto it = base.mats.find(name);
    if (it == base.mats.end() || it->second != m) e.mats[name] = m;
  }
  for (const auto& [name, value] : current.settings) {
    auto it = base.settings.find(name);
    if (it == base.settings.end() || it->second != value) e.settings[name] = value;
  }
  return e;
}

namespace {

// The same matrices (shape first, then values), settings and tokens.
bool same_inputs(const DemoInputs& a, const DemoInputs& b) {
  if (a.settings != b.settings || a.tokens != b.tokens || a.mats.size() != b.mats.size()) return false;
  for (const auto& [name, m] : a.mats) {
    const auto it = b.mats.find(name);
    if (it == b.mats.end() || it->second.rows() != m.rows() || it->second.cols() != m.cols() || it->second != m)
      return false;
  }
  return true;
}

}  // namespace

std::vector<std::string> steps_changed_by_language(const std::vector<Lesson>& lessons, const LabState& state,
                                                   const std::string& from, const std::string& to,
                                                   const DemoCatalog& demos) {
  std::vector<std::string> keys;
  if (from == to) return keys;
  for (const Lesson& l : lessons)
    for (const LessonStep& s : l.steps) {
      if (s.demo.empty() || (!s.local_params.count(from) && !s.local_params.count(to))) continue;
      const std::string key = step_key(l.id, s.id);
      const auto saved = state.edits.find(key);
      const StepEdits* edits = saved == state.edits.end() ? nullptr : &saved->second;
      if (!same_inputs(inputs_with_edits(demos.defaults(s.demo, params_for(s, from)), edits),
                       inputs_with_edits(demos.defaults(s.demo, params_for(s, to)), edits)))
        keys.push_back(key);
    }
  return keys;
}

std::vector<int> hints_for_step(const LessonStep& step, const StepAnswers* answers) {
  std::vector<int> out(step.exercises.size(), 0);
  if (!answers) return out;
  for (size_t i = 0; i < out.size(); ++i) {
    const Exercise& ex = step.exercises[i];
    auto it = answers->hints.find(ex.id);
    if (it != answers->hints.end()) out[i] = std::clamp(it->second, 0, int(ex.hints.size()));
  }
  return out;
}

std::vector<QuizAnswer> quizzes_for_step(const LessonStep& step, const StepAnswers* answers) {
  std::vector<QuizAnswer> out(step.quizzes.size());
  if (!answers) return out;
  for (size_t i = 0; i < out.size(); ++i) {
    const Quiz& quiz = step.quizzes[i];
    auto it = answers->quizzes.find(quiz.id);
    if (it == answers->quizzes.end() || it->second.picked < 0 || it->second.picked >= int(quiz.options.size()))
      continue;
    out[i] = it->second;
  }
  return out;
}

const char* sources_heading(const std::string& lang) { return lang == "zh" ? "参考文献" : "Sources"; }

bool exercises_open(const LessonStep& step, const std::vector<QuizAnswer>& quizzes) {
  for (size_t i = 0; i < step.quizzes.size(); ++i)
    if (i >= quizzes.size() || !quizzes[i].checked) return false;
  return true;
}

std::string shown_prose(const LessonStep& step, const std::string& lang, const std::vector<QuizAnswer>& quizzes) {
  std::string text = step.text.get(lang);
  for (size_t i = 0; i < step.quizzes.size() && i < quizzes.size(); ++i) {
    if (!quizzes[i].checked || step.quizzes[i].after.by_lang.empty()) continue;
    text += '\n';
    text += step.quizzes[i].after.get(lang);
  }
  if (!step.sources.empty()) {
    text += '\n';
    text += sources_heading(lang);
    for (const LocalText& source : step.sources) {
      text += '\n';
      text += source.get(lang);
    }
  }
  return text;
}

StepAnswers answers_from_step(const LessonStep& step, const std::vector<int>& hints,
                              const std::vector<QuizAnswer>& quizzes) {
  StepAnswers a;
  for (size_t i = 0; i < step.exercises.size() && i < hints.size(); ++i)
    if (hints[i] > 0) a.hints[step.exercises[i].id] = hints[i];
  for (size_t i = 0; i < step.quizzes.size() && i < quizzes.size(); ++i)
    if (quizzes[i].picked >= 0) a.quizzes[step.quizzes[i].id] = quizzes[i];
  return a;
}

// ---------------------------------------------------------------- 2 JSON
using json::Value;

Value edits_to_json(const StepEdits& e) {
  Value o = Value::object();
  if (!e.mats.empty()) {
    Value m = Value::object();
    for (const auto& [name, mat] : e.mats) m.set(name, to_json(mat));
    o.set("m", std::move(m));
  }
  if (!e.settings.empty()) {
    Value s = Value::object();
    for (const auto& [name, value] : e.settings) s.set(name, value);
    o.set("s", std::move(s));
  }
  return o;
}

bool edits_from_json(const Value& v, StepEdits* out, std::string* why) {
  if (!v.is_object()) { *why = "edits must be an object"; return false; }
  StepEdits e;
  for (const auto& member : v.members()) {
    if (member.key == "m" && member.value.is_object()) {
      for (const auto& m : member.value.members()) {
        Mat mat;
        std::string w;
        if (!from_json(m.value, kMaxMatrixDim, kMaxMatrixDim, &mat, &w)) { *why = "matrix '" + m.key + "': " + w; return false; }
        e.mats[m.key] = std::move(mat);
      }
    } else if (member.key == "s" && member.value.is_object()) {
      for (const auto& s : member.value.members()) {
        if (!s.value.is_string() || s.value.as_string().size() > 64) {
          *why = "setting '" + s.key + "' must be a short string";
          return false;
        }
        e.settings[s.key] = s.value.as_string();
      }
    } else {
      *why = "unexpected field '" + member.key + "' in edits";
      return false;
    }
  }
  *out = std::move(e);
  return true;
}

// A small whole number in [lo, hi] (hint counts, option indices).
namespace {

bool small_int(const Value& v, int lo, int hi, int* out) {
  if (!v.is_number()) return false;
  const double d = v.as_number();
  if (!(d >= lo && d <= hi) || std::floor(d) != d) return false;
  *out = int(d);
  return true;
}

// {"h": {exercise id: hints}, "q": {quiz id: {"p": option, "c": checked}}}
Value answers_to_json(const StepAnswers& a) {
  Value o = Value::object();
  if (!a.hints.empty()) {
    Value h = Value::object();
    for (const auto& [id, n] : a.hints) h.set(id, n);
    o.set("h", std::move(h));
  }
  if (!a.quizzes.empty()) {
    Value q = Value::object();
    for (const auto& [id, answer] : a.quizzes) {
      Value one = Value::object();
      one.set("p", answer.picked);
      one.set("c", answer.checked);
      q.set(id, std::move(one));
    }
    o.set("q", std::move(q));
  }
  return o;
}

bool answers_from_json(const Value& v, StepAnswers* out, std::string* why) {
  if (!v.is_object()) { *why = "answers must be an object"; return false; }
  StepAnswers a;
  for (const auto& member : v.members()) {
    if (member.key == "h" && member.value.is_object()) {
      for (const auto& h : member.value.members()) {
        int n = 0;
        if (!small_int(h.value, 0, 100, &n)) { *why = "hints of '" + h.key + "' must be a whole number from 0 to 100"; return false; }
        a.hints[h.key] = n;
      }
    } else if (member.key == "q" && member.value.is_object()) {
      for (const auto& q : member.value.members()) {
        QuizAnswer answer;
        const Value* p = q.value.is_object() ? q.value.find("p") : nullptr;
        const Value* c = q.value.is_object() ? q.value.find("c") : nullptr;
        if (!p || !small_int(*p, -1, 100, &answer.picked) || (c && !c->is_bool()) ||
            q.value.members().size() != (c ? 2u : 1u)) {
          *why = "answer to quiz '" + q.key + "' must be {\"p\": option, \"c\": checked}";
          return false;
        }
        answer.checked = c && c->as_bool();
        if (answer.checked && answer.picked < 0) { *why = "quiz '" + q.key + "' is checked with no option picked"; return false; }
        a.quizzes[q.key] = answer;
      }
    } else {
      *why = "unexpected field '" + member.key + "' in answers";
      return false;
    }
  }
  *out = std::move(a);
  return true;
}

}  // namespace

json::Value lab_state_to_json(const LabState& state) {
  Value o = Value::object();
  o.set("version", kLabStateVersion);
  o.set("layout", state.layout);
  o.set("lang", state.lang);
  o.set("lesson", state.lesson);
  o.set("step", state.step);
  Value furthest = Value::object();
  for (const auto& [id, step] : state.furthest) furthest.set(id, step);
  o.set("furthest", std::move(furthest));
  Value edits = Value::object();
  for (const auto& [key, e] : state.edits)
    if (!e.empty()) edits.set(key, edits_to_json(e));
  o.set("edits", std::move(edits));
  Value answers = Value::object();
  for (const auto& [key, a] : state.answers)
    if (!a.empty()) answers.set(key, answers_to_json(a));
  o.set("answers", std::move(answers));
  return o;
}

bool lab_state_from_json(const json::Value& v, LabState* out, std::string* why, std::vector<std::string>* dropped) {
  if (!v.is_object()) { *why = "saved state is not a JSON object"; return false; }
  const Value* version = v.find("version");
  // Version 1 is version 2 without answers, and version 2 is version 3 without a
  // layout: read all three.
  int format = 0;
  if (!version || !small_int(*version, 1, kLabStateVersion, &format)) {
    *why = "saved state has an unknown version";
    return false;
  }
  std::vector<std::string> lost;
  LabState s;
  s.layout = 1;  // versions 1 and 2 were saved with the lessons of layout 1
  bool place_known = true;
  if (format >= 3) {
    const Value* layout = v.find("layout");
    int n = 0;
    if (layout && small_int(*layout, 1, 1000, &n) && n > kLessonLayout) {
      *why = "saved state is from lessons newer than these (layout " + std::to_string(n) + ")";
      return false;
    }
    if (layout && small_int(*layout, 1, kLessonLayout, &n)) {
      s.layout = n;
    } else {
      // Without its layout the steps and options it names cannot be placed.
      lost.push_back("the place and the progress (the lesson layout is missing or not a whole number)");
      s.layout = kLessonLayout;
      place_known = false;
    }
  }
  if (const Value* lang = v.find("lang")) {
    if (lang->is_string() && (lang->as_string() == "en" || lang->as_string() == "zh")) s.lang = lang->as_string();
    else lost.push_back("the language (it must be \"en\" or \"zh\")");
  }
  const Value* lesson = v.find("lesson");
  const Value* step = v.find("step");
  int place = 0;
  if (lesson && !lesson->is_string()) {
    lost.push_back("the place (the lesson must be a string)");
  } else if (step && !small_int(*step, 0, 1000, &place)) {
    lost.push_back("the place (the step must be a whole number from 0 to 1000)");
  } else if (place_known) {
    if (lesson) s.lesson = lesson->as_string();
    s.step = place;
  }
  if (const Value* furthest = place_known ? v.find("furthest") : nullptr) {
    if (!furthest->is_object()) lost.push_back("the progress (it must be an object)");
    for (const auto& m : furthest->members()) {
      int n = 0;
      if (small_int(m.value, 0, 1000, &n)) s.furthest[m.key] = n;
      else lost.push_back("progress for '" + m.key + "' (not a step number)");
    }
  }
  if (const Value* edits = v.find("edits")) {
    if (!edits->is_object()) lost.push_back("the edits (they must be an object)");
    for (const auto& m : edits->members()) {
      std::string w;
      StepEdits e;
      if (edits_from_json(m.value, &e, &w)) s.edits[m.key] = std::move(e);
      else lost.push_back("edits for '" + m.key + "': " + w);
    }
  }
  if (const Value* answers = v.find("answers")) {
    if (!answers->is_object()) lost.push_back("the answers (they must be an object)");
    for (const auto& m : answers->members()) {
      std::string w;
      StepAnswers a;
      if (answers_from_json(m.value, &a, &w)) s.answers[m.key] = std::move(a);
      else lost.push_back("answers for '" + m.key + "': " + w);
    }
  }
  if (dropped) dropped->insert(dropped->end(), lost.begin(), lost.end());
  *out = std::move(s);
  return true;
}

bool lab_state_from_text(const std::string& text, LabState* out, std::string* why,
                         std::vector<std::string>* dropped) {
  if (text.size() > kMaxSavedStateBytes) { *why = "saved state is larger than 1 MiB"; return false; }
  const json::ParseResult r = json::parse(text);
  if (!r.ok) { *why = "saved state is not valid JSON (" + r.error.to_string() + ")"; return false; }
  return lab_state_from_json(r.value, out, why, dropped);
}

std::string unreadable_copy_key(const std::function<bool(const std::string& key)>& exists) {
  for (int i = 1; i <= 5; ++i) {
    const std::string key = i == 1 ? "state-unreadable" : "state-unreadable-" + std::to_string(i);
    if (!exists(key)) return key;
  }
  return "";
}

namespace {

// The step of `lesson` that has the exercise (or quiz) `id`; -1 if none or several.
template <class Items>
int step_with(const Lesson& lesson, const std::string& id, Items LessonStep::*items) {
  int found = -1;
  for (size_t i = 0; i < lesson.steps.size(); ++i)
    for (const auto& item : lesson.steps[i].*items)
      if (item.id == id) {
        if (found >= 0) return -1;
        found = int(i);
      }
  return found;
}

// Hints and answers saved under a step that no longer has their exercise or quiz
// move to the step of the same lesson that has it now (a step was split, say).
void rehome_answers(LabState* state, const std::vector<Lesson>& lessons) {
  std::map<std::string, StepAnswers> moved;
  for (auto& [key, answers] : state->answers) {
    const size_t slash = key.find('/');
    if (slash == std::string::npos) continue;
    const Lesson* lesson = find_lesson(lessons, key.substr(0, slash));
    if (!lesson) continue;
    const int at = step_index(*lesson, key.substr(slash + 1));
    auto has = [&](const auto& items, const std::string& id) {
      return std::any_of(items.begin(), items.end(), [&](const auto& item) { return item.id == id; });
    };
    for (auto it = answers.hints.begin(); it != answers.hints.end();) {
      if (at >= 0 && has(lesson->steps[size_t(at)].exercises, it->first)) { ++it; continue; }
      const int to = step_with(*lesson, it->first, &LessonStep::exercises);
      if (to < 0) { ++it; continue; }
      moved[step_key(lesson->id, lesson->steps[size_t(to)].id)].hints.insert(*it);
      it = answers.hints.erase(it);
    }
    for (auto it = answers.quizzes.begin(); it != answers.quizzes.end();) {
      if (at >= 0 && has(lesson->steps[size_t(at)].quizzes, it->first)) { ++it; continue; }
      const int to = step_with(*lesson, it->first, &LessonStep::quizzes);
      if (to < 0) { ++it; continue; }
      moved[step_key(lesson->id, lesson->steps[size_t(to)].id)].quizzes.insert(*it);
      it = answers.quizzes.erase(it);
    }
  }
  for (auto& [key, answers] : moved) {
    StepAnswers& there = state->answers[key];
    there.hints.insert(answers.hints.begin(), answers.hints.end());  // an answer already there wins
    there.quizzes.insert(answers.quizzes.begin(), answers.quizzes.end());
  }
  for (auto it = state->answers.begin(); it != state->answers.end();)
    it = it->second.empty() ? state->answers.erase(it) : std::next(it);
}

// A state of an earlier layout: its place, progress and picked options as they are now.
void migrate_layout(LabState* state, const std::vector<Lesson>& lessons) {
  const int from = state->layout;
  if (const Lesson* l = find_lesson(lessons, state->lesson)) state->step = std::max(0, step_from_layout(*l, from, state->step));
  for (auto it = state->furthest.begin(); it != state->furthest.end();) {
    const Lesson* l = find_lesson(lessons, it->first);
    if (!l) { ++it; continue; }
    // The furthest step now is the furthest of the steps reached then.
    int furthest = -1;
    for (int j = 0; j <= it->second; ++j) furthest = std::max(furthest, step_from_layout(*l, from, j));
    if (furthest < 0) { it = state->furthest.erase(it); continue; }
    it->second = furthest;
    ++it;
  }
  for (auto& [key, answers] : state->answers) {
    const size_t slash = key.find('/');
    const Lesson* l = slash == std::string::npos ? nullptr : find_lesson(lessons, key.substr(0, slash));
    const int at = l ? step_index(*l, key.substr(slash + 1)) : -1;
    if (at < 0) continue;
    for (auto it = answers.quizzes.begin(); it != answers.quizzes.end();) {
      const auto& quizzes = l->steps[size_t(at)].quizzes;
      const auto quiz = std::find_if(quizzes.begin(), quizzes.end(), [&](const Quiz& q) { return q.id == it->first; });
      const std::vector<int>* where = nullptr;
      if (quiz != quizzes.end())
        for (const auto& [layout, places] : quiz->old_options)
          if (layout >= from) { where = &places; break; }
      if (!where || it->second.picked < 0) { ++it; continue; }
      const int now = size_t(it->second.picked) < where->size() ? (*where)[size_t(it->second.picked)] : -1;
      if (now < 0) { it = answers.quizzes.erase(it); continue; }  // that option is gone: unanswered
      it->second.picked = now;
      ++it;
    }
  }
  for (auto it = state->answers.begin(); it != state->answers.end();)
    it = it->second.empty() ? state->answers.erase(it) : std::next(it);
  state->layout = kLessonLayout;
}

}  // namespace

void lab_state_fit(LabState* state, const std::vector<Lesson>& lessons) {
  rehome_answers(state, lessons);
  if (state->layout < kLessonLayout) migrate_layout(state, lessons);
  const Lesson* current = nullptr;
  for (const Lesson& l : lessons)
    if (l.id == state->lesson) current = &l;
  if (!current) {
    state->lesson = lessons.empty() ? "" : lessons[0].id;
    state->step = 0;
  } else if (state->step >= int(current->steps.size())) {
    state->step = 0;
  }
  for (auto it = state->furthest.begin(); it != state->furthest.end();) {
    bool known = false;
    for (const Lesson& l : lessons)
      if (l.id == it->first) {
        known = true;
        if (it->second >= int(l.steps.size())) it->second = int(l.steps.size()) - 1;
      }
    it = known ? std::next(it) : state->furthest.erase(it);
  }
}

}  // namespace attn

// lab_state.cpp: Sections: 1 edits against lesson values, and answers, 2 JSON, 3 links.
#include "lab/lab_state.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "base/tensor_json.h"

namespace attn {

// ---------------------------------------------------------------- 1 edits
std::string step_key(const std::string& lesson_id, const std::string& step_id) { return lesson_id + "/" + step_id; }

DemoInputs inputs_with_edits(const LessonStep& step, const StepEdits* edits, std::vector<std::string>* ignored) {
  DemoInputs in = demo_defaults(step);
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

StepEdits edits_from_inputs(const LessonStep& step, const DemoInputs& current) {
  const DemoInputs base = demo_defaults(step);
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

std::string shown_prose(const LessonStep& step, const std::string& lang, const std::vector<QuizAnswer>& quizzes) {
  std::string text = step.text.get(lang);
  for (size_t i = 0; i < step.quizzes.size() && i < quizzes.size(); ++i) {
    if (!quizzes[i].checked || step.quizzes[i].after.by_lang.empty()) continue;
    text += '\n';
    text += step.quizzes[i].after.get(lang);
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
namespace {

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
  // Version 1 is version 2 without answers: read both.
  if (!version || !version->is_number() || (version->as_number() != 1 && version->as_number() != kLabStateVersion)) {
    *why = "saved state has an unknown version";
    return false;
  }
  std::vector<std::string> lost;
  LabState s;
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
  } else {
    if (lesson) s.lesson = lesson->as_string();
    s.step = place;
  }
  if (const Value* furthest = v.find("furthest")) {
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

void lab_state_fit(LabState* state, const std::vector<Lesson>& lessons) {
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

// ---------------------------------------------------------------- 3 links
namespace {

const char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string base64url(const std::string& in) {
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8 | (unsigned char)in[i + 2];
    out += kB64[v >> 18 & 63]; out += kB64[v >> 12 & 63]; out += kB64[v >> 6 & 63]; out += kB64[v & 63];
  }
  if (i + 1 == in.size()) {
    const unsigned v = (unsigned char)in[i] << 16;
    out += kB64[v >> 18 & 63]; out += kB64[v >> 12 & 63];
  } else if (i + 2 == in.size()) {
    const unsigned v = (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8;
    out += kB64[v >> 18 & 63]; out += kB64[v >> 12 & 63]; out += kB64[v >> 6 & 63];
  }
  return out;
}

bool unbase64url(const std::string& in, std::string* out) {
  out->clear();
  unsigned acc = 0;
  int bits = 0;
  for (char c : in) {
    const char* p = c ? std::strchr(kB64, c) : nullptr;
    if (!p) return false;
    acc = (acc << 6) | unsigned(p - kB64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(char((acc >> bits) & 0xff));
    }
  }
  return true;
}

}  // namespace

std::string make_link(const std::string& lesson_id, int step, const StepEdits* edits) {
  std::string link = lesson_id + "/" + std::to_string(step + 1);
  if (edits && !edits->empty()) link += "/v1." + base64url(json::write(edits_to_json(*edits)));
  return link;
}

bool parse_link(const std::string& fragment, ParsedLink* out, std::string* why) {
  std::string f = fragment;
  if (!f.empty() && f[0] == '#') f.erase(0, 1);
  if (f.size() > kMaxLinkBytes) { *why = "the link is too long"; return false; }
  ParsedLink link;
  if (f.empty()) { *out = link; return true; }
  const size_t a = f.find('/');
  link.lesson = f.substr(0, a);
  for (char c : link.lesson)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')) {
      *why = "the link names no lesson";
      return false;
    }
  if (a != std::string::npos) {
    const size_t b = f.find('/', a + 1);
    const std::string step = f.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
    char* end = nullptr;
    const long n = std::strtol(step.c_str(), &end, 10);
    if (step.empty() || *end != '\0' || n < 1 || n > 1000) { *why = "the link's step is not a number"; return false; }
    link.step = int(n - 1);
    if (b != std::string::npos) {
      const std::string payload = f.substr(b + 1);
      if (payload.rfind("v1.", 0) != 0) { *why = "the link's saved values have an unknown version"; return false; }
      std::string text;
      if (!unbase64url(payload.substr(3), &text)) { *why = "the link's saved values are damaged"; return false; }
      const json::ParseResult r = json::parse(text);
      if (!r.ok) { *why = "the link's saved values are damaged"; return false; }
      std::string w;
      if (!edits_from_json(r.value, &link.edits, &w)) { *why = "the link's saved values are invalid: " + w; return false; }
      link.has_edits = true;
    }
  }
  *out = std::move(link);
  return true;
}

}  // namespace attn

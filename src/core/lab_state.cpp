// lab_state.cpp: Sections: 1 edits against lesson values, 2 JSON, 3 links.
#include "core/lab_state.h"

#include <cctype>
#include <cstdlib>
#include <cstring>

#include "core/tensor_json.h"

namespace attn {

// ---------------------------------------------------------------- 1 edits
std::string step_key(const std::string& lesson_id, const std::string& step_id) { return lesson_id + "/" + step_id; }

DemoInputs inputs_with_edits(const LessonStep& step, const StepEdits* edits) {
  DemoInputs in = demo_defaults(step);
  if (!edits) return in;
  for (const auto& [name, m] : edits->mats) {
    auto it = in.mats.find(name);
    if (it != in.mats.end() && it->second.rows() == m.rows() && it->second.cols() == m.cols() && m.allFinite())
      it->second = m;
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
        if (!from_json(m.value, &mat, &w)) { *why = "matrix '" + m.key + "': " + w; return false; }
        if (mat.rows() > 64 || mat.cols() > 64) { *why = "matrix '" + m.key + "' is larger than 64 x 64"; return false; }
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
  return o;
}

bool lab_state_from_json(const json::Value& v, LabState* out, std::string* why) {
  if (!v.is_object()) { *why = "saved state is not a JSON object"; return false; }
  const Value* version = v.find("version");
  if (!version || !version->is_number() || version->as_number() != kLabStateVersion) {
    *why = "saved state has an unknown version";
    return false;
  }
  LabState s;
  if (const Value* lang = v.find("lang")) {
    if (!lang->is_string() || (lang->as_string() != "en" && lang->as_string() != "zh")) {
      *why = "saved language must be \"en\" or \"zh\"";
      return false;
    }
    s.lang = lang->as_string();
  }
  if (const Value* lesson = v.find("lesson")) {
    if (!lesson->is_string()) { *why = "saved lesson must be a string"; return false; }
    s.lesson = lesson->as_string();
  }
  if (const Value* step = v.find("step")) {
    if (!step->is_number() || step->as_number() < 0 || step->as_number() > 1000) {
      *why = "saved step must be a number from 0 to 1000";
      return false;
    }
    s.step = int(step->as_number());
  }
  if (const Value* furthest = v.find("furthest")) {
    if (!furthest->is_object()) { *why = "saved progress must be an object"; return false; }
    for (const auto& m : furthest->members()) {
      if (!m.value.is_number() || m.value.as_number() < 0 || m.value.as_number() > 1000) {
        *why = "saved progress for '" + m.key + "' is not a step number";
        return false;
      }
      s.furthest[m.key] = int(m.value.as_number());
    }
  }
  if (const Value* edits = v.find("edits")) {
    if (!edits->is_object()) { *why = "saved edits must be an object"; return false; }
    for (const auto& m : edits->members()) {
      std::string w;
      if (!edits_from_json(m.value, &s.edits[m.key], &w)) {
        *why = "saved edits for '" + m.key + "': " + w;
        return false;
      }
    }
  }
  *out = std::move(s);
  return true;
}

bool lab_state_from_text(const std::string& text, LabState* out, std::string* why) {
  if (text.size() > kMaxSavedStateBytes) { *why = "saved state is larger than 1 MiB"; return false; }
  const json::ParseResult r = json::parse(text);
  if (!r.ok) { *why = "saved state is not valid JSON (" + r.error.to_string() + ")"; return false; }
  return lab_state_from_json(r.value, out, why);
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

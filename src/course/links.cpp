// links.cpp: deep links and share links (links.h).
//
// Sections: 1 base64url, 2 making and reading links.
#include "course/links.h"

#include <cstring>

#include "base/json.h"

namespace attn {

using json::Value;

// ---------------------------------------------------------------- 1 base64url
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

// ---------------------------------------------------------------- 2 making and reading links
std::string make_link(const std::string& lesson_id, const std::string& step_id, const StepEdits* edits) {
  std::string link = lesson_id + "/" + step_id;
  if (edits && !edits->empty()) link += "/v1." + base64url(json::write(edits_to_json(*edits)));
  return link;
}

namespace {
std::string html_attribute(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}
}  // namespace

std::string embed_snippet(const std::string& base_url, const std::string& link, const std::string& lang,
                          const std::string& title) {
  const std::string src = base_url + "embed.html" + (lang == "zh" ? "?lang=zh" : "") + "#" + link;
  return "<iframe src=\"" + html_attribute(src) + "\" title=\"" + html_attribute(title) +
         "\" width=\"900\" height=\"640\" style=\"border: 1px solid #d9dce3; max-width: 100%\" loading=\"lazy\"></iframe>";
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
    const bool digits = !step.empty() && std::all_of(step.begin(), step.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (digits) {  // a link of layout 1: the step's number
      char* end = nullptr;
      const long n = std::strtol(step.c_str(), &end, 10);
      if (step.size() > 4 || n < 1 || n > 1000) { *why = "the link's step number is out of range"; return false; }
      link.step = int(n - 1);
    } else {
      const bool id = !step.empty() && step.size() <= 64 && std::all_of(step.begin(), step.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
      });
      if (!id) { *why = "the link names no step"; return false; }
      link.step_id = step;
    }
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

bool parse_link(const std::string& fragment, const std::vector<Lesson>& lessons, ParsedLink* out,
                std::string* why) {
  ParsedLink link;
  if (!parse_link(fragment, &link, why)) return false;
  if (const Lesson* l = link.lesson.empty() ? nullptr : find_lesson(lessons, link.lesson))
    link.step = link.step_id.empty() ? step_from_layout(*l, 1, link.step) : step_index(*l, link.step_id);
  *out = std::move(link);
  return true;
}

}  // namespace attn

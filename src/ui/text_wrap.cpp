// text_wrap.cpp: see text_wrap.h. The text is cut into units that must stay
// together (a run of letters, digits and ASCII punctuation; one Chinese character
// with the punctuation glued to it; a run of spaces), then lines are filled
// greedily, unit by unit.
#include "ui/text_wrap.h"

#include <imgui.h>

#include <cfloat>
#include <string>

namespace ui {
namespace {

// Next code point of s at i (advances i); invalid bytes count as one character.
unsigned next_code_point(std::string_view s, size_t& i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
  unsigned cp = extra == 3 ? c & 0x07u : extra == 2 ? c & 0x0Fu : extra == 1 ? c & 0x1Fu : c;
  ++i;
  for (; extra > 0 && i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80; --extra, ++i)
    cp = (cp << 6) | (static_cast<unsigned char>(s[i]) & 0x3Fu);
  return cp;
}

// Characters a line may break before and after: Chinese, Japanese and Korean
// ideographs and kana, and full-width forms.
bool is_wide(unsigned cp) {
  return (cp >= 0x2E80 && cp <= 0x9FFF) || (cp >= 0xAC00 && cp <= 0xD7AF) || (cp >= 0xF900 && cp <= 0xFAFF) ||
         (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFFEF);
}

// A line never starts with these...
bool closes(unsigned cp) {
  static const char32_t kClosing[] = U"，。、；：？！）》」』】〕〉”’…%),.;:!?]}";
  for (const char32_t* p = kClosing; *p; ++p)
    if (cp == *p) return true;
  return false;
}
// ...and never ends with these.
bool opens(unsigned cp) {
  static const char32_t kOpening[] = U"（《「『【〔〈“‘([{";
  for (const char32_t* p = kOpening; *p; ++p)
    if (cp == *p) return true;
  return false;
}

struct Unit {
  size_t begin = 0, end = 0;
  bool space = false;
};

// Signs a line should not start or end with: =, ×, · (as in q · k) and ≈.
bool sticky(unsigned cp) { return cp == '=' || cp == 0xD7 || cp == 0xB7 || cp == 0x2248; }
bool sticky_start(std::string_view s, const Unit& u) {
  size_t i = u.begin;
  return !u.space && sticky(next_code_point(s, i));
}
bool sticky_end(std::string_view s, const Unit& u) {
  size_t i = u.begin, last = u.begin;
  while (i < u.end) {
    last = i;
    next_code_point(s, i);
  }
  return !u.space && sticky(next_code_point(s, last));
}

// Cuts one line of text (no '\n') into units.
std::vector<Unit> units_of(std::string_view s) {
  std::vector<Unit> units;
  unsigned prev = 0;  // the previous code point (0 at the start)
  for (size_t i = 0; i < s.size();) {
    const size_t at = i;
    const unsigned cp = next_code_point(s, i);
    const bool space = cp == ' ' || cp == '\t';
    // A character joins the unit before it when no line may break between them:
    // spaces with spaces; closing punctuation with what it closes; anything after
    // opening punctuation; narrow characters with narrow characters (a word, a number).
    bool join = false;
    if (!units.empty()) {
      const bool prev_space = units.back().space;
      if (space || prev_space) join = space && prev_space;
      else join = closes(cp) || opens(prev) || (!is_wide(cp) && !is_wide(prev));
    }
    if (join) units.back().end = i;
    else units.push_back({at, i, space});
    prev = cp;
  }
  // A formula stays on one line across the spaces around = and ×:
  // "q · k = 1.12 × 0.98 = 1.10" breaks before or after it, not inside.
  std::vector<Unit> merged;
  for (size_t k = 0; k < units.size(); ++k) {
    const bool bridge = units[k].space && !merged.empty() && k + 1 < units.size() &&
                        (sticky_end(s, merged.back()) || sticky_start(s, units[k + 1]));
    if (bridge) {
      merged.back().end = units[k + 1].end;
      ++k;
    } else {
      merged.push_back(units[k]);
    }
  }
  return merged;
}

// Unrounded (ImGui::CalcTextSize rounds up, and the pieces of a line would then
// add up to more than the whole line measured at once).
float width_of(std::string_view s, size_t a, size_t b) {
  return ImGui::GetFont()->CalcTextSizeA(ImGui::GetFontSize(), FLT_MAX, 0.0f, s.data() + a, s.data() + b).x;
}

}  // namespace

std::vector<std::string_view> wrap_lines(std::string_view text, float width) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view para = text.substr(pos, nl - pos);
    const std::vector<Unit> units = units_of(para);
    size_t line_begin = 0, line_end = 0;
    bool empty = true;
    float used = 0.0f, pending_space = 0.0f;
    for (const Unit& u : units) {
      const float w = width_of(para, u.begin, u.end);
      // Spaces are dropped at a break, but kept at the start of a paragraph (indents).
      if (u.space && u.begin > 0) {
        if (!empty) pending_space += w;
        continue;
      }
      if (!empty && used + pending_space + w > width + 0.5f) {
        lines.push_back(para.substr(line_begin, line_end - line_begin));
        empty = true;
      }
      if (empty) {
        line_begin = u.begin;
        used = w;
        empty = false;
      } else {
        used += pending_space + w;
      }
      pending_space = 0.0f;
      line_end = u.end;
    }
    lines.push_back(para.substr(empty ? 0 : line_begin, empty ? 0 : line_end - line_begin));
    pos = nl + 1;
  }
  return lines;
}

void text_wrapped(std::string_view text, float right) {
  // One text item with the breaks written in: lines sit at the font's line
  // height and all start at the cursor's x, as with ImGui's own wrapping.
  const std::vector<std::string_view> lines = wrap_lines(text, right - ImGui::GetCursorScreenPos().x);
  std::string joined;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) joined += '\n';
    joined.append(lines[i].data(), lines[i].size());
  }
  // The breaks are final: ImGui's own wrapping (a card's PushTextWrapPos) measures
  // a little differently and would move a line's last word onto a line of its own.
  ImGui::PushTextWrapPos(-1.0f);
  ImGui::TextUnformatted(joined.c_str(), joined.c_str() + joined.size());
  ImGui::PopTextWrapPos();
}

}  // namespace ui

// lesson_text.cpp: how the wrapped lines of a lesson's paragraph join, and a
// text's version in one language. Part of the lesson parser (lesson.cpp).
#include <string>
#include <string_view>

#include "course/lesson.h"

namespace attn {
namespace {
// ---- joining the wrapped lines of a paragraph
// Chinese is written without spaces between words, so two wrapped lines of Chinese
// join with nothing between them; a full-width mark (，。：（ ...) carries its own
// spacing and takes none either. Latin text next to a Han character keeps its
// space, as the lessons write it inline ("使用 softmax").

// The code point of the UTF-8 sequence at s[at] (U+FFFD for a broken one), and its length.
char32_t decode_at(std::string_view s, size_t at, size_t* len) {
  const unsigned char c = static_cast<unsigned char>(s[at]);
  const int n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || at + size_t(n) > s.size()) { *len = 1; return 0xFFFD; }
  char32_t cp = n == 1 ? c : c & (0xFF >> (n + 1));
  for (int i = 1; i < n; ++i) {
    const unsigned char k = static_cast<unsigned char>(s[at + size_t(i)]);
    if ((k >> 6) != 0x2) { *len = 1; return 0xFFFD; }
    cp = (cp << 6) | (k & 0x3F);
  }
  *len = size_t(n);
  return cp;
}
// The start of the UTF-8 sequence that ends at s[end - 1].
size_t start_before(std::string_view s, size_t end) {
  size_t at = end - 1;
  while (at > 0 && end - at < 4 && (static_cast<unsigned char>(s[at]) >> 6) == 0x2) --at;
  return at;
}

bool is_han(char32_t c) {  // Han (with radicals), kana and bopomofo
  return (c >= 0x2E80 && c <= 0x2FDF) || (c >= 0x3040 && c <= 0x312F) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x20000 && c <= 0x2FA1F);
}
bool is_full_width_mark(char32_t c) {  // CJK symbols and punctuation, full-width forms
  return (c >= 0x3000 && c <= 0x303F) || (c >= 0xFE10 && c <= 0xFE1F) || (c >= 0xFE30 && c <= 0xFE4F) ||
         (c >= 0xFF01 && c <= 0xFF65);
}
// Curly quotes, dashes, the ellipsis and the middle dot serve both scripts: they
// take the script of the character they are attached to.
bool is_shared_mark(char32_t c) {
  return c == 0x2018 || c == 0x2019 || c == 0x201C || c == 0x201D || c == 0x2014 || c == 0x2026 || c == 0x00B7;
}

enum class Script { latin, han, mark };  // mark: full-width punctuation
Script script_of(char32_t c) {
  if (is_full_width_mark(c)) return Script::mark;
  return is_han(c) ? Script::han : Script::latin;
}

// The script at the end of a line, and at the start of the next.
Script script_at_end(std::string_view s) {
  size_t end = s.size(), len = 0;
  for (int i = 0; i < 4 && end > 0; ++i) {
    const size_t at = start_before(s, end);
    const char32_t c = decode_at(s, at, &len);
    if (!is_shared_mark(c)) return script_of(c) == Script::han ? Script::mark : script_of(c);
    end = at;
  }
  return Script::latin;
}
Script script_at_start(std::string_view s) {
  size_t at = 0, len = 0;
  for (int i = 0; i < 4 && at < s.size(); ++i) {
    const char32_t c = decode_at(s, at, &len);
    if (!is_shared_mark(c)) return script_of(c) == Script::han ? Script::mark : script_of(c);
    at += len;
  }
  return Script::latin;
}

}  // namespace

bool joins_without_space(std::string_view line_end, std::string_view next_line) {
  if (line_end.empty() || next_line.empty()) return false;
  size_t len = 0;
  const char32_t last = decode_at(line_end, start_before(line_end, line_end.size()), &len);
  const char32_t first = decode_at(next_line, 0, &len);
  // A shared mark takes the script of the character it is attached to (for the
  // last character of a line, the one before it; for the first, the one after).
  const Script a = is_shared_mark(last) ? script_at_end(line_end) : script_of(last);
  const Script b = is_shared_mark(first) ? script_at_start(next_line) : script_of(first);
  if (a == Script::mark || b == Script::mark) return true;
  return a == Script::han && b == Script::han;
}

const std::string& LocalText::get(const std::string& lang) const {
  static const std::string empty;
  auto it = by_lang.find(lang);
  if (it != by_lang.end() && !it->second.empty()) return it->second;
  it = by_lang.find("en");
  return it != by_lang.end() ? it->second : empty;
}

}  // namespace attn

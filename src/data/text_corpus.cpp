// text_corpus.cpp: reading the cached corpora, the two parsers, the character
// vocabulary with its split, and the windows (see text_corpus.h).
//
// Sections: 1 corpora and files, 2 text helpers, 3 parsers, 4 vocabulary and
// split, 5 windows, 6 the forms of a poem line.
#include "data/text_corpus.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "base/enum_names.h"

namespace attn::data {

// ---------------------------------------------------------------- 1 corpora and files
namespace {
constexpr EnumName<TextCorpusKind> kCorpora[] = {{TextCorpusKind::tang_poems, "tang_poems"},
                                                 {TextCorpusKind::founding_documents, "founding_documents"},
                                                 {TextCorpusKind::own, "own"}};

const char* debian_package(TextCorpusKind kind) {
  return kind == TextCorpusKind::tang_poems ? "fortunes-zh" : "miscfiles";
}
}  // namespace

const char* text_corpus_name(TextCorpusKind kind) { return enum_name(kCorpora, kind); }
bool parse_text_corpus_name(const std::string& name, TextCorpusKind* kind) { return parse_enum(kCorpora, name, kind); }

namespace {
std::mutex& provided_mutex() {
  static std::mutex m;
  return m;
}
std::map<TextCorpusKind, std::string>& provided() {
  static std::map<TextCorpusKind, std::string> texts;
  return texts;
}
}  // namespace

bool provide_corpus(TextCorpusKind kind, std::string raw) {
  if (raw.size() > kMaxCorpusBytes) return false;
  std::lock_guard<std::mutex> lock(provided_mutex());
  provided()[kind] = std::move(raw);
  return true;
}

bool corpus_provided(TextCorpusKind kind) {
  std::lock_guard<std::mutex> lock(provided_mutex());
  return provided().count(kind) > 0;
}

std::vector<std::string> corpus_file_names(TextCorpusKind kind) {
  if (kind == TextCorpusKind::tang_poems) return {"tang300"};
  if (kind == TextCorpusKind::own) return {};
  return {"us-constitution", "us-declaration"};
}

std::string default_corpus_dir() {
  if (const char* env = std::getenv("LAB_CORPUS_DIR"))
    if (*env) return env;
#ifdef LAB_CORPUS_DIR
  return LAB_CORPUS_DIR;
#else
  return "";
#endif
}

bool read_corpus(TextCorpusKind kind, const std::string& dir, std::string* raw, std::string* why) {
  const std::string setup = std::string("run `scripts/lab setup`, which downloads the Debian package ") +
                            debian_package(kind) + " into the lab's cache";
  raw->clear();
  {
    std::lock_guard<std::mutex> lock(provided_mutex());
    if (auto it = provided().find(kind); it != provided().end()) {
      *raw = it->second;
      return true;
    }
  }
  if (kind == TextCorpusKind::own) {
    *why = "no text of the learner's own has been given";
    return false;
  }
  if (dir.empty()) {
    *why = "no corpus folder is known (LAB_CORPUS_DIR is not set): " + setup;
    return false;
  }
  for (const std::string& name : corpus_file_names(kind)) {
    const std::string path = dir + "/" + name;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      *why = "the corpus file " + path + " is missing: " + setup;
      return false;
    }
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (!raw->empty()) *raw += "\n\n";
    *raw += bytes.str();
    if (raw->size() > kMaxCorpusBytes) {
      *why = "the corpus file " + path + " is larger than expected (over 16 MiB): " + setup + " again";
      return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------- 2 text helpers
std::string strip_ansi(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\x1b') {
      out += text[i];
      continue;
    }
    const auto byte = [&](size_t k) { return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u; };
    if (byte(i + 1) == '[') {  // CSI: parameters and intermediates 0x20-0x3f, one final byte 0x40-0x7e
      size_t k = i + 2;
      while (byte(k) >= 0x20 && byte(k) <= 0x3f) ++k;
      if (byte(k) >= 0x40 && byte(k) <= 0x7e) ++k;
      i = k - 1;
    } else if (byte(i + 1) >= 0x40 && byte(i + 1) <= 0x5f) {  // a two-byte escape
      ++i;
    }  // else: a lone ESC, dropped
  }
  return out;
}

bool valid_utf8(std::string_view text, size_t* bad_at) {
  size_t i = 0;
  while (i < text.size()) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned c = b(i);
    size_t len = 0;
    unsigned lo = 0x80, hi = 0xbf;  // allowed range of the second byte
    if (c < 0x80) len = 1;
    else if (c >= 0xc2 && c <= 0xdf) len = 2;
    else if (c >= 0xe0 && c <= 0xef) {
      len = 3;
      if (c == 0xe0) lo = 0xa0;      // no overlong forms
      if (c == 0xed) hi = 0x9f;      // no surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      len = 4;
      if (c == 0xf0) lo = 0x90;
      if (c == 0xf4) hi = 0x8f;      // nothing above U+10FFFF
    }
    bool ok = len > 0 && i + len <= text.size();
    for (size_t k = 1; ok && k < len; ++k) {
      const unsigned t = b(i + k);
      ok = k == 1 ? (t >= lo && t <= hi) : (t >= 0x80 && t <= 0xbf);
    }
    if (!ok) {
      if (bad_at) *bad_at = i;
      return false;
    }
    i += len;
  }
  return true;
}

std::vector<std::string> utf8_chars(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    size_t len = 1;
    const unsigned c = static_cast<unsigned char>(text[i]);
    while (len < 4 && i + len < text.size() && c >= 0xc0 && (static_cast<unsigned char>(text[i + len]) & 0xc0) == 0x80)
      ++len;
    out.emplace_back(text.substr(i, len));
    i += len;
  }
  return out;
}

namespace {
// Lines of `text` without their '\n' (and a '\r' before it).
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

// Without ASCII white space and U+3000 (the ideographic space) at either end.
std::string_view trim(std::string_view s) {
  const std::string_view wide = "\xe3\x80\x80";
  for (bool changed = true; changed && !s.empty();) {
    changed = false;
    if (s.front() == ' ' || s.front() == '\t') s.remove_prefix(1), changed = true;
    else if (s.substr(0, 3) == wide) s.remove_prefix(3), changed = true;
    if (s.empty()) break;
    if (s.back() == ' ' || s.back() == '\t') s.remove_suffix(1), changed = true;
    else if (s.size() >= 3 && s.substr(s.size() - 3) == wide) s.remove_suffix(3), changed = true;
  }
  return s;
}

bool has_control(std::string_view s) {
  for (char ch : s) {
    const unsigned c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) return true;
  }
  return false;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// The checks both parsers make on their input; false with *why.
bool check_input(std::string_view raw, std::string* why) {
  size_t bad = 0;
  if (raw.empty()) *why = "the corpus is empty";
  else if (raw.size() > kMaxCorpusBytes) *why = "the corpus is larger than 16 MiB";
  else if (!valid_utf8(raw, &bad)) *why = "the corpus is not UTF-8 (byte " + std::to_string(bad) + ")";
  else return true;
  return false;
}
}  // namespace

// ---------------------------------------------------------------- 3 parsers
bool parse_tang_poems(std::string_view raw, ParsedText* out, std::string* why) {
  *out = ParsedText();
  if (!check_input(raw, why)) return false;
  const std::string text = strip_ansi(raw);
  std::vector<std::string_view> record;  // the record's non-blank lines, trimmed
  const auto finish_record = [&] {
    if (record.empty()) return;
    const bool shaped = record.size() >= 3 && starts_with(record[0], "《") && starts_with(record[1], "作者：");
    bool clean = shaped;
    std::string poem;
    for (size_t k = 2; clean && k < record.size(); ++k) {
      clean = !has_control(record[k]);
      if (k > 2) poem += '\n';
      poem += record[k];
    }
    if (clean) out->units.push_back(poem);
    else ++out->skipped;
    record.clear();
  };
  for (std::string_view line : split_lines(text)) {
    line = trim(line);
    if (line == "%") finish_record();
    else if (!line.empty()) record.push_back(line);
  }
  finish_record();  // a last record without its "%"
  if (out->units.empty()) {
    *why = "no poem found (a record is a 《title》 line, a 作者： line and the poem, ended by a line \"%\")";
    return false;
  }
  return true;
}

bool parse_paragraphs(std::string_view raw, ParsedText* out, std::string* why) {
  *out = ParsedText();
  if (!check_input(raw, why)) return false;
  const std::string text = strip_ansi(raw);
  std::vector<std::string_view> lines;  // the paragraph's lines
  const auto finish_paragraph = [&] {
    if (lines.empty()) return;
    std::string joined;
    bool clean = true;
    for (std::string_view line : lines) {
      for (char c : line) {
        if (c == ' ' || c == '\t') {
          if (!joined.empty() && joined.back() != ' ') joined += ' ';
        } else {
          const unsigned u = static_cast<unsigned char>(c);
          clean = clean && u >= 0x20 && u != 0x7f;
          joined += c;
        }
      }
      if (!joined.empty() && joined.back() != ' ') joined += ' ';  // a wrapped line's end is a space
    }
    while (!joined.empty() && joined.back() == ' ') joined.pop_back();
    const bool heading = lines.size() == 1 && std::string_view(".,;:!?").find(joined.back()) == std::string_view::npos;
    if (clean && !heading) out->units.push_back(joined);
    else ++out->skipped;
    lines.clear();
  };
  for (std::string_view line : split_lines(text)) {
    if (trim(line).empty()) finish_paragraph();
    else lines.push_back(line);
  }
  finish_paragraph();
  if (out->units.empty()) {
    *why = "no paragraph found (paragraphs are separated by blank lines; one-line headings are skipped)";
    return false;
  }
  return true;
}

bool parse_own_text(std::string_view raw, ParsedText* out, std::string* why) {
  *out = ParsedText();
  size_t bad = 0;
  if (raw.size() > kMaxOwnTextBytes) {
    *why = "the text is " + std::to_string((raw.size() + 1023) / 1024) + " KiB; the lab takes at most " +
           std::to_string(kMaxOwnTextBytes >> 10) + " KiB";
    return false;
  }
  if (!valid_utf8(raw, &bad)) {
    *why = "the text is not UTF-8 (byte " + std::to_string(bad) + " is not); save it as UTF-8 and try again";
    return false;
  }
  for (char ch : raw) {
    const unsigned c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
      *why = "the file holds control bytes, so it looks like binary data rather than text";
      return false;
    }
  }
  // Line ends of every system: "\r\n", and a lone "\r" (old Macs).
  std::string text;
  text.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\r') text += raw[i];
    else if (i + 1 >= raw.size() || raw[i + 1] != '\n') text += '\n';
  }
  std::string unit;  // the paragraph so far: its trimmed lines joined by '\n'
  const auto finish_unit = [&] {
    if (!unit.empty()) out->units.push_back(unit);
    unit.clear();
  };
  for (std::string_view line : split_lines(text)) {
    line = trim(line);
    if (line.empty()) {
      finish_unit();
      continue;
    }
    if (!unit.empty()) unit += '\n';
    for (char c : line) unit += c == '\t' ? ' ' : c;
  }
  finish_unit();
  if (out->units.empty()) {
    *why = "the text is empty";
    return false;
  }
  return true;
}

bool parse_corpus(TextCorpusKind kind, std::string_view raw, ParsedText* out, std::string* why) {
  switch (kind) {
    case TextCorpusKind::tang_poems: return parse_tang_poems(raw, out, why);
    case TextCorpusKind::own: return parse_own_text(raw, out, why);
    default: return parse_paragraphs(raw, out, why);
  }
}

// ---------------------------------------------------------------- 4 vocabulary and split
namespace {
// Where the held-out tail of a text of n characters starts
// (CharCorpusDesc::heldout_tail): the last `share` of them, begun just after a
// line break when one lies within a tenth of that tail before the cut, with at
// least one character on each side when there are two or more.
size_t tail_start(const std::vector<std::string>& all, float share) {
  size_t cut = all.size() - std::min(all.size(), size_t(double(all.size()) * double(share) + 0.5));
  const size_t slack = (all.size() - cut) / 10;
  for (size_t k = cut; k > 0 && k + slack >= cut; --k)
    if (all[k - 1] == "\n") {
      cut = k;
      break;
    }
  if (all.size() >= 2) cut = std::clamp(cut, size_t(1), all.size() - 1);
  return cut;
}
}  // namespace

CharCorpus make_char_corpus(const ParsedText& text, const CharCorpusDesc& desc) {
  CharCorpus c;
  c.desc = desc;
  std::vector<std::string> chars[2];  // train, held out
  if (desc.heldout_tail > 0) {
    std::vector<std::string> all;
    std::vector<size_t> starts;  // where each unit begins in `all`
    for (const std::string& u : text.units) {
      if (!all.empty()) all.insert(all.end(), {"\n", "\n"});
      starts.push_back(all.size());
      for (std::string& ch : utf8_chars(u)) all.push_back(std::move(ch));
    }
    const size_t cut = tail_start(all, desc.heldout_tail);
    chars[1].assign(all.begin() + long(cut), all.end());
    all.resize(cut);
    chars[0] = std::move(all);
    // A unit counts where it begins (the tail may cut the last training unit).
    for (size_t st : starts) ++(st < cut ? c.train_units : c.heldout_units);
  } else {
    std::string streams[2];
    for (size_t k = 0; k < text.units.size(); ++k) {
      const bool held = desc.heldout_every >= 2 && int(k % size_t(desc.heldout_every)) == desc.heldout_every - 1;
      std::string& s = streams[held ? 1 : 0];
      if (!s.empty()) s += "\n\n";
      s += text.units[k];
      ++(held ? c.heldout_units : c.train_units);
    }
    chars[0] = utf8_chars(streams[0]);
    chars[1] = utf8_chars(streams[1]);
  }
  std::map<std::string, int> counts;
  for (const std::string& ch : chars[0])
    if (ch != kUnshownChar) ++counts[ch];
  std::vector<std::pair<int, std::string>> order;  // (-count, character): most frequent first, ties in byte order
  for (const auto& kv : counts) order.emplace_back(-kv.second, kv.first);
  std::sort(order.begin(), order.end());
  const size_t keep = desc.max_chars > 0 ? std::min(order.size(), size_t(desc.max_chars)) : order.size();
  for (size_t k = 0; k < keep; ++k) c.vocab.add(order[k].second);
  c.vocab.unknown = c.vocab.add("<unk>");
  for (int s = 0; s < 2; ++s) {
    std::vector<int>& ids = s == 0 ? c.train : c.heldout;
    int& unknown = s == 0 ? c.train_unknown : c.heldout_unknown;
    ids.reserve(chars[s].size());
    for (const std::string& ch : chars[s]) {
      ids.push_back(c.vocab.id(ch));
      unknown += ids.back() == c.vocab.unknown;
    }
  }
  return c;
}

std::string decode_chars(const Vocab& vocab, const std::vector<int>& ids) {
  std::string out;
  for (int i : ids) out += i >= 0 && i < vocab.size() ? vocab.words[size_t(i)] : std::string("?");
  return out;
}

// ---------------------------------------------------------------- 5 windows
std::vector<TextWindow> text_windows(const std::vector<int>& ids, int length, int stride) {
  std::vector<TextWindow> out;
  if (length < 1 || stride < 1) return out;
  for (size_t start = 0; start + size_t(length) + 1 <= ids.size(); start += size_t(stride))
    out.push_back({std::vector<int>(ids.begin() + long(start), ids.begin() + long(start) + length + 1)});
  return out;
}

std::vector<TextWindow> covering_windows(const std::vector<int>& ids, int length) {
  std::vector<TextWindow> out;
  if (length < 1) return out;
  for (size_t start = 0; start + 1 < ids.size(); start += size_t(length)) {
    const size_t end = std::min(ids.size(), start + size_t(length) + 1);
    out.push_back({std::vector<int>(ids.begin() + long(start), ids.begin() + long(end))});
  }
  return out;
}

// ---------------------------------------------------------------- 6 the forms of a poem line
namespace {
bool is_punctuation(const std::string& c) {
  static const char* const marks[] = {"，", "。", "？", "！", "；", "：", "、", "“", "”", "《", "》", "「", "」"};
  for (const char* m : marks)
    if (c == m) return true;
  return c.size() == 1 && !std::isalnum(static_cast<unsigned char>(c[0]));  // ASCII punctuation, space, '\n'
}
}  // namespace

LineForm poem_line_form(const std::vector<std::string>& chars) {
  const size_t n = chars.size();
  if (n != 12 && n != 16) return LineForm::other;
  const size_t half = n / 2;  // 5 characters + "，", then 5 + the end mark (or 7 and 7)
  for (size_t k = 0; k < n; ++k) {
    const bool mark_place = k == half - 1 || k == n - 1;
    if (is_punctuation(chars[k]) != mark_place) return LineForm::other;
  }
  const std::string& end = chars[n - 1];
  if (chars[half - 1] != "，" || (end != "。" && end != "？" && end != "！")) return LineForm::other;
  return n == 12 ? LineForm::five : LineForm::seven;
}

}  // namespace attn::data

// lab_own_text.cpp: the learner's own text (lab_own_text.h).
#include "app/lab_own_text.h"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "app/lab_view.h"
#include "data/text_corpus.h"
#include "platform/platform.h"

namespace {
constexpr const char* kStoreKey = "own-text";
constexpr const char* kGlyphFetch = "glyphs:own-text";

// The code point of the UTF-8 sequence at s[i] (the text is valid UTF-8), and its length.
uint32_t code_point(const std::string& s, size_t i, size_t* len) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  const size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : 4;
  uint32_t cp = n == 1 ? c : c & (0xFF >> (n + 1));
  for (size_t k = 1; k < n && i + k < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  *len = n;
  return cp;
}
bool is_cjk(uint32_t c) {
  return (c >= 0x3000 && c <= 0x30FF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) ||
         (c >= 0xFF00 && c <= 0xFFEF);
}
bool needs_glyph(uint32_t c) { return c != '\n' && c != '\r' && c != '\t' && c != ' '; }

OwnText::Outcome fail(std::string en, std::string zh) { return {false, std::move(en), std::move(zh)}; }
}  // namespace

std::string OwnText::common_font() {
#ifdef LAB_COMMON_GLYPHS
  return LAB_COMMON_GLYPHS;
#else
  return "";
#endif
}

OwnTextView OwnText::view(const std::string& lang) const {
  OwnTextView v;
  v.has = has();
  v.pending = pending();
  v.keep = keep();
  v.kept = kept();
  v.characters = summary_.characters;
  v.paragraphs = summary_.paragraphs;
  v.unshown = unshown_;
  v.last_ok = last_.ok;
  v.message = lang == "zh" ? last_.zh : last_.en;
  return v;
}

std::string OwnText::instead_of_linked(attn::DemoInputs* inputs, const std::string& lang) const {
  auto it = inputs->settings.find("corpus");
  if (it == inputs->settings.end() || it->second != "own" || has()) return "";
  it->second = lang == "zh" ? "chinese" : "english";
  return lang == "zh" ? "这个链接里的模型是用发送者自己的文本训练的；链接从不带上文本本身，所以这里改用内置文本训练。"
                      : "This link's model was trained on the sender's own text, which links never carry; here it "
                        "trains on the built-in text instead.";
}

bool OwnText::check_bytes(const std::string& bytes) {
  // Length first: a file of many megabytes is refused before anything reads it.
  if (bytes.size() > attn::data::kMaxOwnTextBytes) {
    const std::string kib = std::to_string((bytes.size() + 1023) / 1024);
    last_ = fail("The text is " + kib + " KiB; the lab takes at most 1024 KiB (1 MiB). Your earlier text is kept.",
                 "这段文本有 " + kib + " KiB；实验室最多接受 1024 KiB（1 MiB）。之前的文本仍然保留。");
    return false;
  }
  size_t bad = 0;
  if (!attn::data::valid_utf8(bytes, &bad)) {
    last_ = fail("The file is not UTF-8 text (byte " + std::to_string(bad) +
                     " is not): save it as UTF-8 and try again. Your earlier text is kept.",
                 "文件不是 UTF-8 文本（第 " + std::to_string(bad) + " 个字节不是）：请另存为 UTF-8 后再试。之前的文本仍然保留。");
    return false;
  }
  for (char ch : bytes) {
    const unsigned c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
      last_ = fail("The file holds control bytes, so it looks like binary data (a picture, a program, a word-processor "
                   "file), not plain text. Your earlier text is kept.",
                   "文件里有控制字节，看起来是二进制数据（图片、程序或文档文件），不是纯文本。之前的文本仍然保留。");
      return false;
    }
  }
  attn::data::ParsedText parsed;
  std::string why;
  if (!attn::data::parse_own_text(bytes, &parsed, &why)) {  // what is left: nothing but white space
    last_ = fail("The text is empty. Your earlier text is kept.", "文本是空的。之前的文本仍然保留。");
    return false;
  }
  return true;
}

void OwnText::submit(std::string bytes, bool keep) {
  news_ = true;
  pending_.clear();
  if (!check_bytes(bytes)) return;
  pending_ = std::move(bytes);
  pending_keep_ = keep;
  if (!need_glyphs()) finish();
}

bool OwnText::need_glyphs() {
  std::set<uint32_t> missing;
  std::string chars;  // the Chinese characters of the text the atlas lacks, as UTF-8
  for (size_t i = 0, n = 0; i < pending_.size(); i += n) {
    const uint32_t c = code_point(pending_, i, &n);
    if (is_cjk(c) && !platform::can_draw(c) && missing.insert(c).second) chars.append(pending_, i, n);
  }
  if (missing.empty()) return false;
  if (common_font_.empty() && platform::fetch_needed()) {
    platform::fetch_start(kGlyphFetch, {"texts/common-glyphs.otf"});
    fetching_ = true;
    own_chars_ = chars;
    return true;
  }
  if (common_font_.empty()) {
    std::ifstream f(common_font_path_, std::ios::binary);
    if (common_font_path_.empty() || !f) return false;  // natively without the font: the characters stay unknown
    std::stringstream bytes;
    bytes << f.rdbuf();
    common_font_ = bytes.str();
  }
  if (!platform::add_glyphs(common_font_, chars)) return false;
  wait_frames_ = 2;  // the atlas is built again before the next frame
  return true;
}

bool OwnText::poll() {
  if (!pending_.empty()) {
    if (fetching_) {
      std::string bytes;
      const platform::FetchState st = platform::fetch_state(kGlyphFetch, &bytes);
      if (st == platform::FetchState::ready && platform::add_glyphs(bytes, own_chars_)) {
        common_font_ = std::move(bytes);
        fetching_ = false;
        wait_frames_ = 2;
      } else if (st != platform::FetchState::loading) {
        fetching_ = false;  // no glyphs: those characters are read as unknown
        wait_frames_ = 0;
      }
    } else if (wait_frames_ > 0) {
      --wait_frames_;
    }
    if (!fetching_ && wait_frames_ == 0) finish();
  }
  const bool news = news_ && pending_.empty();
  return news;
}

OwnText::Outcome OwnText::take_outcome() {
  news_ = false;
  return last_;
}

void OwnText::finish() {
  // Characters outside every font: U+FFFD, the unknown token.
  std::string text;
  int unshown = 0;
  for (size_t i = 0, n = 0; i < pending_.size(); i += n) {
    const uint32_t c = code_point(pending_, i, &n);
    if (needs_glyph(c) && !platform::can_draw(c)) {
      text += attn::data::kUnshownChar;
      ++unshown;
    } else {
      text.append(pending_, i, n);
    }
  }
  const bool keep = pending_keep_, quiet = quiet_;
  pending_.clear();
  quiet_ = false;
  if (quiet) news_ = false;  // a text restored at start: not news
  attn::train::OwnTextSummary s;
  std::string why;
  if (!attn::train::check_own_text(text, &s, &why)) {
    if (s.characters < attn::train::kOwnTextMinChars) {
      const std::string n = std::to_string(s.characters), min = std::to_string(attn::train::kOwnTextMinChars);
      last_ = fail("The text has " + n + " characters; the model needs at least " + min +
                       " (windows of 32 characters to learn from, and a tenth held out to test on). Your earlier text is kept.",
                   "文本只有 " + n + " 个字符；模型至少需要 " + min + " 个（用 32 个字符的窗口来学，再留出十分之一来测试）。之前的文本仍然保留。");
    } else if (2 * unshown >= int(s.unknown_share * s.train)) {  // mostly characters no font of the lab's has
      const std::string n = std::to_string(unshown), share = std::to_string(int(std::lround(100.0 * s.unknown_share)));
      last_ = fail(n + " characters of the text are in none of the lab's fonts (it carries the characters of its "
                       "lessons and the commonest Chinese ones), so the model would read " + share +
                       "% of the text as unknown (at most 10%). Your earlier text is kept.",
                   "文本中有 " + n + " 个字符不在实验室的任何字体里（实验室只带着课文用到的字和最常用的汉字），模型会把文本的 " +
                       share + "% 当作未知（最多 10%）。之前的文本仍然保留。");
    } else {
      const std::string d = std::to_string(s.distinct), share = std::to_string(int(std::lround(100.0 * s.unknown_share)));
      last_ = fail("The text uses " + d + " different characters; the model keeps the 500 commonest, and the others "
                       "would be " + share + "% of the text (at most 10%): use a text with fewer different characters, "
                       "or a longer one. Your earlier text is kept.",
                   "文本用了 " + d + " 个不同的字符；模型只保留最常见的 500 个，其余的会占文本的 " + share +
                       "%（最多 10%）：请换一段用字更少或更长的文本。之前的文本仍然保留。");
    }
    return;
  }
  text_ = std::move(text);
  summary_ = s;
  unshown_ = unshown;
  set_kept(keep);
  const std::string chars = std::to_string(s.characters), paras = std::to_string(s.paragraphs),
                    distinct = std::to_string(s.distinct), kept = std::to_string(s.kept);
  const bool all = s.kept >= s.distinct;
  Outcome o{true,
            "Training on your text: " + chars + " characters in " + paras + (s.paragraphs == 1 ? " paragraph, " : " paragraphs, ") +
                distinct + " different characters" + (all ? "" : ", of which the model keeps the " + kept + " commonest") +
                ". " + (kept_ ? "It is kept on this device." : "It is not kept after a reload."),
            "正在用你的文本训练：" + paras + " 段，共 " + chars + " 个字符，" + distinct + " 个不同的字符" +
                (all ? "" : "，模型保留其中最常见的 " + kept + " 个") + "。" +
                (kept_ ? "文本保存在这台设备上。" : "重新加载后不会保留。")};
  if (unshown > 0) {
    o.en += " " + std::to_string(unshown) + " characters are in none of the lab's fonts: the model reads them as its "
            "unknown token, drawn □.";
    o.zh += "有 " + std::to_string(unshown) + " 个字符不在实验室的任何字体里：模型把它们当作未知标记，显示为 □。";
  }
  last_ = o;
}

void OwnText::set_kept(bool keep) {
  keep_ = keep;
  kept_ = keep && !text_.empty() && platform::storage_write(kStoreKey, text_);
  if (!keep) platform::storage_write(kStoreKey, "");
}

void OwnText::restore() {
  std::string stored;
  if (!platform::storage_read(kStoreKey, &stored) || stored.empty()) return;
  quiet_ = true;  // finish() (now, or once its glyphs are in) makes no news of it
  submit(std::move(stored), true);
  if (pending_.empty()) {
    news_ = false;
    quiet_ = false;
  }
}

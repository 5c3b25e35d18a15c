// vocab.cpp: vocabulary tables and longest-match segmentation.
#include "data/vocab.h"

namespace attn::data {

int Vocab::add(const std::string& word) {
  const auto it = ids.find(word);
  if (it != ids.end()) return it->second;
  const int id = int(words.size());
  words.push_back(word);
  ids.emplace(word, id);
  return id;
}

int Vocab::id(const std::string& word) const {
  const auto it = ids.find(word);
  return it == ids.end() ? unknown : it->second;
}

std::vector<int> Vocab::encode(const std::vector<std::string>& tokens) const {
  std::vector<int> out;
  out.reserve(tokens.size());
  for (const std::string& t : tokens) out.push_back(id(t));
  return out;
}

std::vector<std::string> Vocab::decode(const std::vector<int>& token_ids) const {
  std::vector<std::string> out;
  for (int i : token_ids) out.push_back(i >= 0 && i < size() ? words[i] : std::string("?"));
  return out;
}

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == ' ') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::string join_words(const std::vector<std::string>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i) out += ' ';
    out += words[i];
  }
  return out;
}

namespace {
// Byte length of the UTF-8 code point that starts with byte c (1 for invalid bytes).
size_t utf8_length(unsigned char c) {
  if (c >= 0xF0) return 4;
  if (c >= 0xE0) return 3;
  if (c >= 0xC0) return 2;
  return 1;
}
}  // namespace

std::vector<std::string> segment_longest_match(const std::string& text, const Vocab& vocab) {
  size_t longest = 0;
  for (const std::string& w : vocab.words) longest = w.size() > longest ? w.size() : longest;
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ') { ++i; continue; }
    size_t best = 0;
    for (size_t len = longest < text.size() - i ? longest : text.size() - i; len > 0; --len) {
      if (vocab.ids.count(text.substr(i, len))) { best = len; break; }
    }
    if (best == 0) {
      best = utf8_length(static_cast<unsigned char>(text[i]));
      if (i + best > text.size()) best = text.size() - i;
    }
    out.push_back(text.substr(i, best));
    i += best;
  }
  return out;
}

}  // namespace attn::data

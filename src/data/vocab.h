// vocab.h: word <-> id tables for the generated data sets, and a segmenter for
// text typed without spaces (Chinese): greedy longest match against a vocabulary.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace attn::data {

struct Vocab {
  std::vector<std::string> words;     // id -> word
  std::map<std::string, int> ids;     // word -> id
  int unknown = -1;                   // id returned for words not in the table (-1: none)

  // Id of `word`, adding it when new.
  int add(const std::string& word);
  // Id of `word`, or `unknown`.
  int id(const std::string& word) const;
  int size() const { return int(words.size()); }
  std::vector<int> encode(const std::vector<std::string>& tokens) const;
  std::vector<std::string> decode(const std::vector<int>& ids) const;
};

// Splits on ASCII spaces.
std::vector<std::string> split_words(const std::string& text);
// Joins with single spaces.
std::string join_words(const std::vector<std::string>& words);

// Segments `text` into vocabulary words, taking the longest vocabulary word that
// starts at each position (spaces are skipped). A character that starts no
// vocabulary word becomes a token of its own (one UTF-8 code point), so
// "我爱中国。" -> 我 | 爱 | 中国 | 。 with the translation vocabulary.
std::vector<std::string> segment_longest_match(const std::string& text, const Vocab& vocab);

}  // namespace attn::data

// sentiment.h: a data set of short reviews in English and Chinese, generated
// from templates and word lists written for this project (curriculum E2, G).
//
// A review is one or two sentences: an optional neutral sentence that mentions
// a person and a place ("lena visited rome last week ." / "小王 上 周 去 了 杭州 。"),
// then a judgement whose polarity comes from an adjective or a verb ("the food
// was really awful ." / "服务 非常 周到 。"), sometimes negated ("the room was
// not clean ." is negative). Names and places are drawn independently of the
// label, so they carry no sentiment: a classifier that leans on them is wrong.
// Chinese is given already segmented into words.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/vocab.h"

namespace attn::data {

enum class Language { english, chinese, both };

struct SentimentDesc {
  Language language = Language::both;
  int train_count = 2400;     // distinct reviews (no review is in both splits)
  int test_count = 600;
  float filler_rate = 0.5f;   // probability of the leading neutral sentence
  float negation_rate = 0.2f; // probability that the judgement is negated
  uint64_t seed = 1;
};

struct Review {
  std::vector<std::string> words;
  std::vector<int> ids;   // in SentimentData::vocab
  int label = 0;          // 1 positive, 0 negative
  bool chinese = false;
};

struct SentimentData {
  Vocab vocab;            // 0 "<unk>", then every word of the word lists
  std::vector<Review> train, test;
};

SentimentData make_sentiment_data(const SentimentDesc& desc);

// What a word is, for the lessons and tests ("do the heads look at sentiment
// words or at names?").
enum class WordRole { other, positive, negative, negation, intensifier, name, place };
WordRole sentiment_word_role(const std::string& word);
const char* word_role_name(WordRole role);

}  // namespace attn::data

// word_order.h: a task where only word order decides (curriculum E3).
//
// Short sentences in which the dog and one other animal take part in an action:
// "the dog chased the cat", "the small cat saw the dog". The label says whether
// the dog is the one doing it (the agent, the noun before the verb): 1 for
// "the dog chased the cat", 0 for "the cat chased the dog".
//
// The sentences come in twins: the second of each pair swaps the two nouns and
// keeps everything else in place, so both hold the same words, only in another
// order, and have opposite labels. A model that sees the words but not their
// order (self-attention without positions, then averaging) gives both twins the
// same answer, so it is right on exactly one of each pair: 50%, chance.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/long_range.h"

namespace attn::data {

struct WordOrderDesc {
  int train_pairs = 600;  // twins: 2 x train_pairs training sentences
  int test_pairs = 100;   // 2 x test_pairs held-out sentences
  uint64_t seed = 1;
};

struct WordOrderData {
  WordOrderDesc desc;
  std::vector<std::string> words;           // id -> word
  std::vector<LabeledSequence> train, test;  // label 1: the dog is the agent
};

// Deterministic in desc. No held-out sentence is also a training sentence.
WordOrderData make_word_order(const WordOrderDesc& desc);
// The words of a sentence, joined with spaces.
std::string word_order_text(const WordOrderData& data, const std::vector<int>& tokens);

}  // namespace attn::data

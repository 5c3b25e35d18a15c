// translation.h: a small Chinese -> English toy corpus, generated from templates
// and word lists written for this project (curriculum C1/C2).
//
// Sentences are word-level tokens; Chinese is given already segmented
// ("我 爱 中国 。"). The grammar has reorderings on purpose, so a learned
// alignment is not simply the diagonal:
//   S V O 。            -> S V O .                  我 爱 中国 。 -> I love China .
//   S 不 V O 。         -> S do/does not V O .      (one Chinese word, two English)
//   S 每天 V O 。       -> S V O every day .        (the time phrase moves to the end)
//   S 也 V O 。         -> S also V O .
//   S V O 吗 ？         -> do/does S V O ?          (the question word moves to the front)
// Verbs agree with the subject (he loves / they love), and 看 is "read" before
// 书 but "watch" before 电影: the verb's translation depends on the object.
//
// Every pair the grammar can produce is enumerated, shuffled with attn::Rng and
// cut into a training split and a held-out split of sentences never trained
// on. 我 爱 中国 。 -> I love China . is always in the training split.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/vocab.h"

namespace attn::data {

struct TranslationPair {
  std::vector<std::string> source;  // Chinese words
  std::vector<std::string> target;  // English words (no <bos>/<eos>)
  std::vector<int> source_ids;      // in TranslationCorpus::source_vocab
  std::vector<int> target_ids;      // in TranslationCorpus::target_vocab
};

struct TranslationDesc {
  int train_pairs = 400;   // clamped to what the grammar can produce
  int heldout_pairs = 100;
  uint64_t seed = 1;
};

// Ids of the special tokens.
constexpr int kBos = 0;        // target "<bos>": the first decoder input, the first query
constexpr int kEos = 1;        // target "<eos>": the decoder's last output
constexpr int kUnk = 2;        // target "<unk>"
constexpr int kSourceUnk = 0;  // source "<unk>" (words typed by a learner that the corpus lacks)

struct TranslationCorpus {
  Vocab source_vocab;  // 0 <unk>, then Chinese words
  Vocab target_vocab;  // 0 <bos>, 1 <eos>, 2 <unk>, then English words
  std::vector<TranslationPair> train;
  std::vector<TranslationPair> heldout;
  int grammar_size = 0;  // how many distinct pairs the grammar produces
};

TranslationCorpus make_translation_corpus(const TranslationDesc& desc);

// Every (Chinese, English) pair of the grammar, in a fixed order.
std::vector<TranslationPair> all_translation_pairs();

// The showcase pair: 我 爱 中国 。 -> I love China .
TranslationPair showcase_pair(const TranslationCorpus& corpus);

}  // namespace attn::data

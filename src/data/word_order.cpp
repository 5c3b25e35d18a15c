// word_order.cpp: generator of the "is the dog the agent?" sentences.
#include "data/word_order.h"

#include <algorithm>
#include <iterator>
#include <set>

#include "base/rng.h"

namespace attn::data {

namespace {
const char* const kOthers[] = {"cat", "fox", "bird", "horse", "mouse", "cow"};
const char* const kVerbs[] = {"chased", "bit", "saw", "followed", "pushed", "helped"};
const char* const kAdjectives[] = {"big", "small", "old", "young"};
}  // namespace

WordOrderData make_word_order(const WordOrderDesc& desc) {
  WordOrderData data;
  data.desc = desc;
  // ids: the, dog, the other animals, the verbs, the adjectives.
  data.words = {"the", "dog"};
  for (const char* w : kOthers) data.words.push_back(w);
  for (const char* w : kVerbs) data.words.push_back(w);
  for (const char* w : kAdjectives) data.words.push_back(w);
  const int dog = 1, first_other = 2, first_verb = first_other + int(std::size(kOthers)),
            first_adjective = first_verb + int(std::size(kVerbs));
  Rng rng(desc.seed);
  std::set<std::vector<int>> seen;  // every sentence once, across both splits
  // One twin pair: "the [adj] A verb the [adj] B" with {A, B} = {dog, other}.
  auto draw_pair = [&](std::vector<LabeledSequence>& out) {
    for (;;) {
      const int other = first_other + int(rng.below(uint32_t(std::size(kOthers))));
      const int verb = first_verb + int(rng.below(uint32_t(std::size(kVerbs))));
      const int adj1 = int(rng.below(uint32_t(std::size(kAdjectives)) + 1)) - 1;  // -1: none
      const int adj2 = int(rng.below(uint32_t(std::size(kAdjectives)) + 1)) - 1;
      const bool dog_first = rng.below(2) == 1;
      auto sentence = [&](bool dog_is_agent) {
        LabeledSequence s;
        s.tokens.push_back(0);
        if (adj1 >= 0) s.tokens.push_back(first_adjective + adj1);
        s.tokens.push_back(dog_is_agent ? dog : other);
        s.tokens.push_back(verb);
        s.tokens.push_back(0);
        if (adj2 >= 0) s.tokens.push_back(first_adjective + adj2);
        s.tokens.push_back(dog_is_agent ? other : dog);
        s.label = dog_is_agent ? 1 : 0;
        return s;
      };
      LabeledSequence a = sentence(dog_first), b = sentence(!dog_first);
      if (seen.count(a.tokens)) continue;  // b is then seen as well
      seen.insert(a.tokens);
      seen.insert(b.tokens);
      out.push_back(std::move(a));
      out.push_back(std::move(b));
      return;
    }
  };
  // 6 animals x 6 verbs x 5 x 5 adjective choices = 900 distinct pairs; some are
  // left undrawn so that finding a new one never takes long.
  const int most = 800;
  const int test_pairs = std::max(0, std::min(desc.test_pairs, most / 4));
  const int train_pairs = std::max(0, std::min(desc.train_pairs, most - test_pairs));
  for (int i = 0; i < test_pairs; ++i) draw_pair(data.test);
  for (int i = 0; i < train_pairs; ++i) draw_pair(data.train);
  return data;
}

std::string word_order_text(const WordOrderData& data, const std::vector<int>& tokens) {
  std::string s;
  for (int t : tokens) {
    if (!s.empty()) s += ' ';
    s += t >= 0 && t < int(data.words.size()) ? data.words[size_t(t)] : "?";
  }
  return s;
}

}  // namespace attn::data

// translation.cpp: the word lists and templates of the toy corpus (see
// translation.h), and the seeded split.
//
// Sections: 1 word lists, 2 templates, 3 corpus and split.
#include "data/translation.h"

#include <algorithm>

#include "base/rng.h"

namespace attn::data {

namespace {

// ---------------------------------------------------------------- 1 word lists
struct Subject {
  const char* zh;
  const char* en;        // may be two words ("the teacher")
  bool third_singular;   // he / she / the teacher: "loves", "does"
};

const Subject kSubjects[] = {
    {"我", "I", false},          {"你", "you", false},           {"他", "he", true},
    {"她", "she", true},         {"我们", "we", false},          {"他们", "they", false},
    {"老师", "the teacher", true}, {"学生们", "the students", false},
};

struct Verb {
  const char* zh;
  const char* base;     // "love", "go to"
  const char* third;    // "loves", "goes to"
  const char* objects;  // which object list it takes (see kObjectLists)
};

// Object lists: the nouns each verb accepts.
struct ObjectList {
  const char* name;
  std::vector<std::pair<const char*, const char*>> words;  // (zh, en)
};

const ObjectList kObjectLists[] = {
    {"places", {{"中国", "China"}, {"日本", "Japan"}, {"法国", "France"}, {"北京", "Beijing"},
                {"上海", "Shanghai"}, {"伦敦", "London"}}},
    {"likeable", {{"中国", "China"}, {"北京", "Beijing"}, {"音乐", "music"}, {"猫", "cats"},
                  {"狗", "dogs"}, {"足球", "football"}, {"茶", "tea"}, {"苹果", "apples"}}},
    {"food", {{"苹果", "apples"}, {"米饭", "rice"}, {"面条", "noodles"}}},
    {"drink", {{"茶", "tea"}, {"咖啡", "coffee"}, {"水", "water"}}},
    {"books", {{"书", "books"}, {"报纸", "newspapers"}}},
    {"shows", {{"电影", "films"}, {"足球", "football"}}},
    {"subjects", {{"中文", "Chinese"}, {"英语", "English"}, {"数学", "maths"}, {"音乐", "music"}}},
};

const Verb kVerbs[] = {
    {"爱", "love", "loves", "likeable"},       {"喜欢", "like", "likes", "likeable"},
    {"想念", "miss", "misses", "places"},      {"去", "go to", "goes to", "places"},
    {"吃", "eat", "eats", "food"},             {"喝", "drink", "drinks", "drink"},
    {"看", "read", "reads", "books"},          {"看", "watch", "watches", "shows"},
    {"学习", "study", "studies", "subjects"},
};

const ObjectList& objects_named(const char* name) {
  for (const ObjectList& list : kObjectLists)
    if (std::string(list.name) == name) return list;
  return kObjectLists[0];
}

void append_words(std::vector<std::string>& out, const char* phrase) {
  for (const std::string& w : split_words(phrase)) out.push_back(w);
}

// ---------------------------------------------------------------- 2 templates
enum class Template { statement, negation, every_day, also, question };
const Template kTemplates[] = {Template::statement, Template::negation, Template::every_day, Template::also,
                               Template::question};

TranslationPair build(const Subject& s, const Verb& v, const char* obj_zh, const char* obj_en, Template t) {
  TranslationPair p;
  std::vector<std::string>& zh = p.source;
  std::vector<std::string>& en = p.target;
  const char* verb_agreeing = s.third_singular ? v.third : v.base;
  const char* aux = s.third_singular ? "does" : "do";
  switch (t) {
    case Template::statement:  // 我 爱 中国 。 -> I love China .
      zh = {s.zh, v.zh, obj_zh, "。"};
      append_words(en, s.en); append_words(en, verb_agreeing); append_words(en, obj_en); en.push_back(".");
      break;
    case Template::negation:   // 他 不 喝 咖啡 。 -> he does not drink coffee .
      zh = {s.zh, "不", v.zh, obj_zh, "。"};
      append_words(en, s.en); en.push_back(aux); en.push_back("not");
      append_words(en, v.base); append_words(en, obj_en); en.push_back(".");
      break;
    case Template::every_day:  // 我们 每天 学习 中文 。 -> we study Chinese every day .
      zh = {s.zh, "每天", v.zh, obj_zh, "。"};
      append_words(en, s.en); append_words(en, verb_agreeing); append_words(en, obj_en);
      en.push_back("every"); en.push_back("day"); en.push_back(".");
      break;
    case Template::also:       // 她 也 喜欢 猫 。 -> she also likes cats .
      zh = {s.zh, "也", v.zh, obj_zh, "。"};
      append_words(en, s.en); en.push_back("also"); append_words(en, verb_agreeing);
      append_words(en, obj_en); en.push_back(".");
      break;
    case Template::question:   // 你 爱 中国 吗 ？ -> do you love China ?
      zh = {s.zh, v.zh, obj_zh, "吗", "？"};
      en.push_back(aux); append_words(en, s.en); append_words(en, v.base); append_words(en, obj_en);
      en.push_back("?");
      break;
  }
  return p;
}

}  // namespace

std::vector<TranslationPair> all_translation_pairs() {
  std::vector<TranslationPair> pairs;
  for (Template t : kTemplates)
    for (const Subject& s : kSubjects)
      for (const Verb& v : kVerbs)
        for (const auto& obj : objects_named(v.objects).words) pairs.push_back(build(s, v, obj.first, obj.second, t));
  return pairs;
}

// ---------------------------------------------------------------- 3 corpus and split
TranslationCorpus make_translation_corpus(const TranslationDesc& desc) {
  TranslationCorpus corpus;
  std::vector<TranslationPair> pairs = all_translation_pairs();
  corpus.grammar_size = int(pairs.size());
  // Vocabularies from the whole grammar, so held-out sentences have no unknown words.
  corpus.source_vocab.add("<unk>");
  corpus.source_vocab.unknown = kSourceUnk;
  corpus.target_vocab.add("<bos>");
  corpus.target_vocab.add("<eos>");
  corpus.target_vocab.add("<unk>");
  corpus.target_vocab.unknown = kUnk;
  for (const TranslationPair& p : pairs) {
    for (const std::string& w : p.source) corpus.source_vocab.add(w);
    for (const std::string& w : p.target) corpus.target_vocab.add(w);
  }
  // Shuffle (Fisher-Yates), then move the showcase pair to the front of the training split.
  Rng rng(desc.seed);
  for (int i = int(pairs.size()) - 1; i > 0; --i) std::swap(pairs[i], pairs[rng.below(uint32_t(i + 1))]);
  const std::vector<std::string> showcase = {"我", "爱", "中国", "。"};
  for (size_t i = 0; i < pairs.size(); ++i)
    if (pairs[i].source == showcase) { std::swap(pairs[0], pairs[i]); break; }
  const int total = int(pairs.size());
  const int n_train = std::max(1, std::min(desc.train_pairs, total - 1));
  const int n_held = std::max(0, std::min(desc.heldout_pairs, total - n_train));
  for (TranslationPair& p : pairs) {
    p.source_ids = corpus.source_vocab.encode(p.source);
    p.target_ids = corpus.target_vocab.encode(p.target);
  }
  corpus.train.assign(pairs.begin(), pairs.begin() + n_train);
  corpus.heldout.assign(pairs.begin() + n_train, pairs.begin() + n_train + n_held);
  return corpus;
}

TranslationPair showcase_pair(const TranslationCorpus& corpus) {
  TranslationPair p;
  p.source = {"我", "爱", "中国", "。"};
  p.target = {"I", "love", "China", "."};
  p.source_ids = corpus.source_vocab.encode(p.source);
  p.target_ids = corpus.target_vocab.encode(p.target);
  return p;
}

}  // namespace attn::data

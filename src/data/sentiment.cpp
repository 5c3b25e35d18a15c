// sentiment.cpp: word lists, templates and the seeded generator of the review
// data set (see sentiment.h).
//
// Sections: 1 word lists, 2 one review, 3 the data set, 4 word roles.
#include "data/sentiment.h"

#include <algorithm>
#include <set>

#include "base/rng.h"

namespace attn::data {

namespace {

// ---------------------------------------------------------------- 1 word lists
using List = std::vector<const char*>;

struct LanguageWords {
  List positive_adj, negative_adj;    // "the X was ADJ"
  List positive_verb, negative_verb;  // "NAME VERB the X"
  List nouns, names, places, intensifiers;
};

const LanguageWords kEnglish = {
    {"good", "great", "excellent", "wonderful", "lovely", "delicious", "friendly", "perfect", "amazing",
     "pleasant", "fantastic", "clean"},
    {"bad", "awful", "terrible", "horrible", "poor", "bland", "rude", "dirty", "boring", "disappointing",
     "dreadful", "noisy"},
    {"loved", "liked", "enjoyed", "adored", "praised"},
    {"hated", "disliked", "regretted", "despised", "criticised"},
    {"food", "service", "room", "film", "music", "staff", "coffee", "hotel", "view", "book", "show", "meal"},
    {"alice", "bob", "maria", "chen", "tom", "yuki", "omar", "lena"},
    {"paris", "beijing", "london", "tokyo", "berlin", "rome", "cairo", "lima"},
    {"very", "really", "quite", "so", "extremely"},
};

const LanguageWords kChinese = {
    {"好", "棒", "好吃", "精彩", "舒服", "友好", "干净", "完美", "漂亮", "有趣", "周到", "热情"},
    {"差", "糟糕", "难吃", "无聊", "脏", "吵", "冷淡", "难看", "失望", "差劲", "粗鲁", "乏味"},
    {"喜欢", "爱", "欣赏", "称赞", "推荐"},
    {"讨厌", "厌恶", "抱怨", "批评", "后悔"},
    {"饭菜", "服务", "房间", "电影", "音乐", "员工", "咖啡", "酒店", "风景", "书", "演出", "早餐"},
    {"小王", "李明", "张伟", "王芳", "刘洋", "陈静", "赵磊", "孙丽"},
    {"北京", "上海", "杭州", "成都", "西安", "广州", "南京", "苏州"},
    {"很", "非常", "真", "特别", "十分"},
};

const char* pick(Rng& rng, const List& list) { return list[rng.below(uint32_t(list.size()))]; }

void append(std::vector<std::string>& out, std::initializer_list<const char*> words) {
  for (const char* w : words) out.push_back(w);
}

// ---------------------------------------------------------------- 2 one review
// The label is drawn first; the judgement's words are then chosen to match it.
Review make_review(Rng& rng, bool chinese, const SentimentDesc& desc) {
  const LanguageWords& L = chinese ? kChinese : kEnglish;
  Review r;
  r.chinese = chinese;
  r.label = int(rng.below(2));
  std::vector<std::string>& w = r.words;
  if (rng.uniform() < desc.filler_rate) {  // neutral opening: a name and a place, no opinion
    const char* name = pick(rng, L.names);
    const char* place = pick(rng, L.places);
    if (chinese) {
      if (rng.below(2)) append(w, {name, "上", "周", "去", "了", place, "。"});
      else append(w, {"我们", "和", name, "在", place, "住", "了", "三", "天", "。"});
    } else {
      if (rng.below(2)) append(w, {name, "visited", place, "last", "week", "."});
      else append(w, {"we", "stayed", "in", place, "with", name, "for", "three", "days", "."});
    }
  }
  const bool negated = rng.uniform() < desc.negation_rate;
  const bool positive_words = (r.label == 1) != negated;  // negation flips the words' polarity
  const char* adj = pick(rng, positive_words ? L.positive_adj : L.negative_adj);
  const char* verb = pick(rng, positive_words ? L.positive_verb : L.negative_verb);
  const char* noun = pick(rng, L.nouns);
  const char* inten = pick(rng, L.intensifiers);
  const char* name = pick(rng, L.names);
  const char* place = pick(rng, L.places);
  const int form = int(rng.below(4));
  if (chinese) {
    const char* neg_or_int = negated ? "不" : inten;
    switch (form) {
      case 0: append(w, {noun, neg_or_int, adj, "。"}); break;
      case 1: append(w, {name, "说", place, "的", noun, neg_or_int, adj, "。"}); break;
      case 2: append(w, {"我", "觉得", "这", "家", noun, neg_or_int, adj, "。"}); break;
      default:
        if (negated) append(w, {name, "不", verb, "这里", "的", noun, "。"});
        else append(w, {name, verb, "这里", "的", noun, "。"});
        break;
    }
  } else {
    const bool plain = rng.below(3) == 0;  // no intensifier one time in three
    switch (form) {
      case 0:
        append(w, {"the", noun, "was"});
        if (negated) w.push_back("not"); else if (!plain) w.push_back(inten);
        append(w, {adj, "."});
        break;
      case 1:
        append(w, {name, "said", "the", noun, "in", place, "was"});
        if (negated) w.push_back("not"); else if (!plain) w.push_back(inten);
        append(w, {adj, "."});
        break;
      case 2:
        append(w, {"i", "thought", "the", noun, "was"});
        if (negated) w.push_back("not"); else if (!plain) w.push_back(inten);
        append(w, {adj, "."});
        break;
      default:
        if (negated) append(w, {name, "never", verb, "the", noun, "."});
        else append(w, {name, verb, "the", noun, "."});
        break;
    }
  }
  return r;
}

}  // namespace

// ---------------------------------------------------------------- 3 the data set
SentimentData make_sentiment_data(const SentimentDesc& desc) {
  SentimentData data;
  data.vocab.add("<unk>");
  data.vocab.unknown = 0;
  // Vocabulary from the word lists and template words, in a fixed order, so the
  // ids do not depend on which reviews were drawn.
  const std::vector<const char*> template_words = {
      ".", "the", "was", "not", "never", "said", "in", "i", "thought", "visited", "last", "week", "we",
      "stayed", "with", "for", "three", "days", "。", "不", "说", "的", "我", "觉得", "这", "家", "这里",
      "上", "周", "去", "了", "我们", "和", "在", "住", "三", "天"};
  for (const char* word : template_words) data.vocab.add(word);
  for (const LanguageWords* L : {&kEnglish, &kChinese})
    for (const List* list : {&L->positive_adj, &L->negative_adj, &L->positive_verb, &L->negative_verb, &L->nouns,
                             &L->names, &L->places, &L->intensifiers})
      for (const char* word : *list) data.vocab.add(word);

  Rng rng(desc.seed);
  std::set<std::string> seen;
  const int wanted = (desc.train_count > 0 ? desc.train_count : 0) + (desc.test_count > 0 ? desc.test_count : 0);
  std::vector<Review> all;
  // Distinct reviews; the attempt limit only guards against impossible requests.
  for (long attempt = 0; int(all.size()) < wanted && attempt < 50L * wanted + 1000; ++attempt) {
    const bool chinese = desc.language == Language::chinese ||
                         (desc.language == Language::both && rng.below(2) == 1);
    Review r = make_review(rng, chinese, desc);
    if (!seen.insert(join_words(r.words)).second) continue;
    r.ids = data.vocab.encode(r.words);
    all.push_back(std::move(r));
  }
  const size_t n_train = std::min(all.size(), size_t(desc.train_count > 0 ? desc.train_count : 0));
  data.train.assign(all.begin(), all.begin() + long(n_train));
  data.test.assign(all.begin() + long(n_train), all.end());
  return data;
}

// ---------------------------------------------------------------- 4 word roles
WordRole sentiment_word_role(const std::string& word) {
  auto in = [&](const List& list) {
    for (const char* w : list)
      if (word == w) return true;
    return false;
  };
  for (const LanguageWords* L : {&kEnglish, &kChinese}) {
    if (in(L->positive_adj) || in(L->positive_verb)) return WordRole::positive;
    if (in(L->negative_adj) || in(L->negative_verb)) return WordRole::negative;
    if (in(L->names)) return WordRole::name;
    if (in(L->places)) return WordRole::place;
    if (in(L->intensifiers)) return WordRole::intensifier;
  }
  if (word == "not" || word == "never" || word == "不") return WordRole::negation;
  return WordRole::other;
}

const char* word_role_name(WordRole role) {
  switch (role) {
    case WordRole::other: return "other";
    case WordRole::positive: return "positive";
    case WordRole::negative: return "negative";
    case WordRole::negation: return "negation";
    case WordRole::intensifier: return "intensifier";
    case WordRole::name: return "name";
    case WordRole::place: return "place";
  }
  return "?";
}

}  // namespace attn::data

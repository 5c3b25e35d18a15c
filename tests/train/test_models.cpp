// test_models.cpp: the generated data sets and the trainable models of
// src/train -- a full-model gradient check per model (every parameter),
// bitwise-identical losses for the same seed (and golden hex values that the
// WebAssembly build must reproduce), seeded convergence runs with stated
// thresholds, and the timing helpers.
//
// Sections: 1 helpers, 2 data sets, 3 model gradient checks, 4 determinism,
// 5 convergence, 6 timing and runs, 7 the RNN-versus-attention sweep (skipped
// by default: run with --no-skip to print the table).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "data/long_range.h"
#include "data/patches.h"
#include "data/sentiment.h"
#include "data/translation.h"
#include "attn/multihead.h"
#include "data/word_order.h"
#include "support/attn_test_util.h"
#include "support/gradcheck.h"
#include "support/train_test_util.h"
#include "train/birnn_classifier.h"
#include "train/glimpse.h"
#include "train/sentiment_model.h"
#include "train/seq2seq.h"
#include "train/sequence_classifier.h"
#include "train/train_run.h"

using namespace attn;
using namespace attn::train;

namespace {

using attn::test::hex;
using attn::test::kBoth;

// ---------------------------------------------------------------- 1 helpers
void check_model(const std::string& what, const ParamList& params, const std::function<double()>& loss,
                 attn::test::GradCheck opt = {}) {
  for (Param* p : params) attn::test::check_gradient(what + " " + p->name, p->value, p->grad, loss, opt);
}

std::vector<data::TranslationPair> tiny_pairs() {
  // Target ids 0, 1 are <bos>, <eos>; words are 2..5.
  std::vector<data::TranslationPair> set(2);
  set[0].source_ids = {1, 4, 2};
  set[0].target_ids = {3, 5};
  set[1].source_ids = {5, 3};
  set[1].target_ids = {4, 2, 3};
  return set;
}

std::vector<data::Review> tiny_reviews() {
  std::vector<data::Review> set(2);
  set[0].ids = {1, 3, 2, 5};
  set[0].label = 1;
  set[1].ids = {4, 0, 2};
  set[1].label = 0;
  return set;
}

// A sentiment model small enough for finite differences: d = 8 (4 + 4 with
// concatenated positions), `heads` heads of 8 / heads.
SentimentModelDesc tiny_sentiment_desc(PositionMode position, int heads, uint64_t seed) {
  SentimentModelDesc d;
  d.vocab = 6;
  d.d_model = 8;
  d.position = position;
  d.position_width = 4;
  d.heads = heads;
  d.head_size = 8 / heads;
  d.seed = seed;
  return d;
}

// Held-out accuracy of a fresh run after `steps` training steps.
float accuracy_after(const RunDesc& d, int steps) {
  TrainRun run(d);
  run.run_for(1e9, steps);
  return run.evaluate().accuracy;
}

}  // namespace

// ---------------------------------------------------------------- 2 data sets
TEST_CASE("data: the translation corpus holds 我 爱 中国 。 -> I love China . and a disjoint held-out split") {
  const data::TranslationCorpus c = data::make_translation_corpus({});
  CHECK(c.grammar_size == 1680);
  CHECK(c.train.size() == 400);
  CHECK(c.heldout.size() == 100);
  CHECK(data::join_words(c.train[0].source) == "我 爱 中国 。");
  CHECK(data::join_words(c.train[0].target) == "I love China .");
  std::set<std::string> train_sources;
  for (const auto& p : c.train) train_sources.insert(data::join_words(p.source));
  CHECK(train_sources.size() == c.train.size());  // no duplicates
  for (const auto& p : c.heldout) CHECK(train_sources.count(data::join_words(p.source)) == 0);
  for (const auto& p : c.train) {
    CHECK(p.source_ids.size() == p.source.size());
    for (int id : p.target_ids) CHECK(id > data::kUnk);  // never <bos>, <eos> or <unk>
    for (int id : p.source_ids) CHECK(id != data::kSourceUnk);
  }
  CHECK(c.target_vocab.words[data::kBos] == "<bos>");
  CHECK(c.target_vocab.words[data::kEos] == "<eos>");
  // Reorderings are present: questions move "do/does" to the front, time phrases to the end.
  const auto all = data::all_translation_pairs();
  int questions = 0, every_day = 0;
  for (const auto& p : all) {
    questions += p.source.back() == "？" && (p.target[0] == "do" || p.target[0] == "does");
    every_day += p.target.size() > 3 && p.target[p.target.size() - 3] == "every";
  }
  CHECK(questions == 336);
  CHECK(every_day == 336);
  // The same seed gives the same split; another seed another one.
  CHECK(data::join_words(data::make_translation_corpus({}).heldout[7].source) ==
        data::join_words(c.heldout[7].source));
  data::TranslationDesc other;
  other.seed = 2;
  CHECK(data::join_words(data::make_translation_corpus(other).train[5].source) !=
        data::join_words(c.train[5].source));
}

TEST_CASE("data: longest-match segmentation of text typed without spaces") {
  const data::TranslationCorpus c = data::make_translation_corpus({});
  CHECK(data::segment_longest_match("我爱中国。", c.source_vocab) == std::vector<std::string>{"我", "爱", "中国", "。"});
  CHECK(data::segment_longest_match("学生们 每天 学习中文。", c.source_vocab) ==
        std::vector<std::string>{"学生们", "每天", "学习", "中文", "。"});
  // An unknown character becomes one token (then <unk> when encoded).
  const auto words = data::segment_longest_match("我爱猪", c.source_vocab);
  CHECK(words == std::vector<std::string>{"我", "爱", "猪"});
  CHECK(c.source_vocab.encode(words)[2] == data::kSourceUnk);
}

TEST_CASE("data: the long-range task labels the token k steps before the last") {
  for (int k : {1, 5, 40}) {
    data::LongRangeDesc d;
    d.distance = k;
    d.train_count = 400;
    d.test_count = 10;
    const data::LongRangeData lr = data::make_long_range(d);
    REQUIRE(lr.train.size() == 400);
    std::vector<int> counts(d.alphabet, 0);
    for (const auto& ex : lr.train) {
      CHECK(int(ex.tokens.size()) == k + 1);
      CHECK(ex.label == ex.tokens[ex.tokens.size() - 1 - k]);
      counts[ex.label]++;
    }
    for (int c : counts) CHECK(c > 25);  // roughly uniform (expected 50 each)
  }
}

TEST_CASE("data: word-order sentences come in twins -- same words, animals swapped, opposite labels") {
  const data::WordOrderData d = data::make_word_order({});
  REQUIRE(d.train.size() == 1200);
  REQUIRE(d.test.size() == 200);
  std::set<std::vector<int>> train_set;
  for (const auto& ex : d.train) train_set.insert(ex.tokens);
  CHECK(train_set.size() == d.train.size());  // every sentence once
  const int dog = 1;
  for (const auto* split : {&d.train, &d.test}) {
    int yes = 0;
    for (size_t i = 0; i + 1 < split->size(); i += 2) {
      const auto& a = (*split)[i];
      const auto& b = (*split)[i + 1];
      CAPTURE(data::word_order_text(d, a.tokens));
      CHECK(a.label != b.label);
      std::vector<int> sa = a.tokens, sb = b.tokens;
      std::sort(sa.begin(), sa.end());
      std::sort(sb.begin(), sb.end());
      CHECK(sa == sb);  // the same words
      CHECK(a.tokens != b.tokens);
      // The label says whether the dog comes before the verb (the agent).
      const auto verb = std::find_if(a.tokens.begin(), a.tokens.end(), [&](int t) { return d.words[size_t(t)].size() > 2 &&
                                     std::string("chased bit saw followed pushed helped").find(d.words[size_t(t)]) != std::string::npos; });
      const auto dog_at = std::find(a.tokens.begin(), a.tokens.end(), dog);
      REQUIRE(verb != a.tokens.end());
      REQUIRE(dog_at != a.tokens.end());
      CHECK(a.label == (dog_at < verb ? 1 : 0));
      yes += a.label + b.label;
    }
    CHECK(yes * 2 == int(split->size()));
  }
  for (const auto& ex : d.test) CHECK(train_set.count(ex.tokens) == 0);  // held out
  CHECK(data::word_order_text(d, d.test[0].tokens).find("dog") != std::string::npos);
}

TEST_CASE("data: sentiment reviews are distinct, balanced, bilingual, names and places carry no label") {
  const data::SentimentData s = data::make_sentiment_data({});
  CHECK(s.train.size() == 2400);
  CHECK(s.test.size() == 600);
  std::set<std::string> seen;
  int positive = 0, chinese = 0, negated = 0;
  std::vector<int> name_pos(s.vocab.size(), 0), name_neg(s.vocab.size(), 0);
  for (const auto* split : {&s.train, &s.test})
    for (const auto& r : *split) {
      CHECK(seen.insert(data::join_words(r.words)).second);
      positive += r.label;
      chinese += r.chinese;
      for (size_t i = 0; i < r.words.size(); ++i) {
        CHECK(r.ids[i] != 0);  // every word is in the vocabulary
        const data::WordRole role = data::sentiment_word_role(r.words[i]);
        negated += role == data::WordRole::negation;
        if (role == data::WordRole::name || role == data::WordRole::place)
          (r.label ? name_pos : name_neg)[r.ids[i]]++;
      }
    }
  CHECK(positive > 1350);
  CHECK(positive < 1650);
  CHECK(chinese > 1350);
  CHECK(chinese < 1650);
  CHECK(negated > 400);
  // Every name/place appears on both sides, in similar proportions.
  int checked = 0;
  for (int id = 0; id < s.vocab.size(); ++id) {
    const int total = name_pos[id] + name_neg[id];
    if (total == 0) continue;
    ++checked;
    CHECK(name_pos[id] > total / 4);
    CHECK(name_neg[id] > total / 4);
  }
  CHECK(checked == 32);  // 8 names + 8 places per language
  // The heads step of the sentiment lesson: "Test review 0 ... negative. Reviews 8
  // (English, positive) and 24 (Chinese, negative) are negated too. ... reviews that
  // have no negation word, such as review 7." (The page's review k is test[k] of
  // the run's data.)
  RunDesc d;
  d.kind = RunKind::sentiment;
  const TrainRun run(d);
  const auto& test = run.sentiment_data().test;
  const auto negated_review = [](const data::Review& r) {
    for (const std::string& w : r.words)
      if (data::sentiment_word_role(w) == data::WordRole::negation) return true;
    return false;
  };
  CHECK((test[0].label == 0 && !test[0].chinese && negated_review(test[0])));
  CHECK((test[8].label == 1 && !test[8].chinese && negated_review(test[8])));
  CHECK((test[24].label == 0 && test[24].chinese && negated_review(test[24])));
  CHECK_FALSE(negated_review(test[7]));
  CHECK(data::sentiment_word_role("delicious") == data::WordRole::positive);
  CHECK(data::sentiment_word_role("难吃") == data::WordRole::negative);
  CHECK(data::sentiment_word_role("杭州") == data::WordRole::place);
}

TEST_CASE("data: patch images have one bright shape, distractors are faint and of other classes") {
  const data::PatchData d = data::make_patch_data({});
  CHECK(d.train.size() == 1200);
  for (const auto& img : d.train) {
    CHECK(img.patches.rows() == 9);
    CHECK(img.patches.cols() == data::kPatchPixels);
    CHECK(img.shape[img.target_patch] == img.label);
    int distractors = 0;
    float best_sum = -1.0f;
    int best = -1;
    for (int j = 0; j < 9; ++j) {
      if (j != img.target_patch && img.shape[j] >= 0) {
        ++distractors;
        CHECK(img.shape[j] != img.label);
      }
      const float sum = img.patches.row(j).sum();
      if (sum > best_sum) { best_sum = sum; best = j; }
    }
    CHECK(distractors == 2);
    CHECK(best == img.target_patch);
  }
  const Mat pic = data::image_pixels(d.train[0], 3);
  CHECK(pic.rows() == 12);
  CHECK(pic.cols() == 12);
  CHECK(std::string(data::shape_word(0)) == "cross");
}

// ---------------------------------------------------------------- 3 model gradient checks
TEST_CASE("model gradients: seq2seq, every context kind (GRU) and LSTM with attention") {
  struct Case { ContextKind context; CellKind cell; };
  const Case cases[] = {{ContextKind::none, CellKind::gru}, {ContextKind::additive, CellKind::gru},
                        {ContextKind::general, CellKind::gru}, {ContextKind::dot, CellKind::gru},
                        {ContextKind::additive, CellKind::lstm}};
  const auto set = tiny_pairs();
  for (const Case& c : cases) {
    CAPTURE(std::string(context_kind_name(c.context)));
    CAPTURE(std::string(cell_kind_name(c.cell)));
    Seq2SeqDesc d;
    d.context = c.context;
    d.cell = c.cell;
    d.source_vocab = 6;
    d.target_vocab = 6;
    d.embed = 3;
    d.hidden = 4;
    d.attention_size = 3;
    Seq2SeqModel m(d);
    const float l = m.forward_backward(set, kBoth);
    CHECK(l == doctest::Approx(m.loss(set, kBoth)).epsilon(1e-6));
    check_model("seq2seq", m.params(), [&] { return double(m.loss(set, kBoth)); });
  }
}

TEST_CASE("model gradients: long-range classifiers (tanh RNN, LSTM, GRU, two-layer self-attention)") {
  std::vector<data::LabeledSequence> set(2);
  set[0].tokens = {0, 2, 1, 3};
  set[0].label = 2;
  set[1].tokens = {3, 3, 0, 1, 2};
  set[1].label = 1;
  // The last two: self-attention read out by the mean of its rows (word-order
  // task), with positions and without.
  const int kinds = 6;
  for (int k = 0; k < kinds; ++k) {
    const SequenceModelKind kind = k < 4 ? SequenceModelKind(k) : SequenceModelKind::attention;
    CAPTURE(std::string(sequence_model_kind_name(kind)));
    CAPTURE(k);
    SequenceClassifierDesc d;
    d.kind = kind;
    d.mean_readout = k >= 4;
    d.positions = k != 5;
    d.vocab = 4;
    d.classes = 3;
    d.embed = 4;
    d.hidden = 3;
    d.heads = 2;
    d.layers = 2;
    d.ffn = 5;
    d.seed = 3;
    SequenceClassifier m(d);
    m.forward_backward(set, kBoth);
    // With the mean read-out every row's ReLUs and softmaxes reach the loss, and
    // a finite-difference step of 1e-2 is too coarse for this seed (off by up to
    // 15x, most likely across ReLU kinks); a step of 1e-3 agrees within the usual
    // tolerance.
    const attn::test::GradCheck step = k >= 4 ? attn::test::GradCheck{1e-3f, 2e-2, 2e-3} : attn::test::GradCheck{};
    check_model("long-range", m.params(), [&] { return double(m.loss(set, kBoth)); }, step);
  }
}

TEST_CASE("self-attention without positions and with a mean read-out cannot tell a sentence from its reordering") {
  SequenceClassifierDesc d;
  d.kind = SequenceModelKind::attention;
  d.vocab = 6;
  d.classes = 2;
  d.positions = false;
  d.mean_readout = true;
  SequenceClassifier plain(d);
  d.positions = true;
  SequenceClassifier with_positions(d);
  const std::vector<int> a = {0, 4, 1, 5, 2}, b = {5, 2, 0, 4, 1};  // the same tokens, reordered
  const float pa = plain.probabilities(a)[1], pb = plain.probabilities(b)[1];
  CHECK(std::abs(pa - pb) < 1e-6f);
  CHECK(std::abs(with_positions.probabilities(a)[1] - with_positions.probabilities(b)[1]) > 1e-4f);
  const std::vector<float> p = plain.probabilities(a);
  CHECK(p[0] + p[1] == doctest::Approx(1.0));
}

TEST_CASE("model gradients: sentiment model (embedding, PE, multi-head attention, pooling, dropout 0.5, dense)") {
  const auto set = tiny_reviews();
  SentimentModelDesc d;
  d.vocab = 6;
  d.d_model = 4;
  d.heads = 2;
  d.head_size = 2;
  SentimentModel m(d);
  m.forward_backward(set, kBoth);
  check_model("sentiment", m.params(), [&] { return double(m.loss(set, kBoth)); });
  // Dropout really is on in training and off in evaluation.
  EvalResult ev = m.evaluate(set);
  CHECK(ev.loss != doctest::Approx(m.loss(set, kBoth)));
}

TEST_CASE("model gradients: sentiment model with every position mode, 1 to 8 heads at a fixed width, dropout on and off") {
  const auto set = tiny_reviews();
  for (PositionMode position : {PositionMode::none, PositionMode::sum, PositionMode::concat})
    for (int heads : {1, 2, 4, 8})
      for (float dropout : {0.0f, 0.5f}) {
        CAPTURE(std::string(position_mode_name(position)));
        CAPTURE(heads);
        CAPTURE(dropout);
        SentimentModelDesc d = tiny_sentiment_desc(position, heads, 2);
        d.dropout = dropout;
        REQUIRE(sentiment_desc_error(d).empty());
        SentimentModel m(d);
        m.forward_backward(set, kBoth);
        check_model("sentiment", m.params(), [&] { return double(m.loss(set, kBoth)); });
        // The embedding is d wide, or d - d_pe when the positions are appended.
        CHECK(m.params()[0]->value.cols() == (position == PositionMode::concat ? 4 : 8));
        // Without dropout, training and evaluation compute the same loss.
        if (dropout == 0.0f) CHECK(m.evaluate(set).loss == doctest::Approx(m.loss(set, kBoth)));
      }
}

TEST_CASE("model gradients: sentiment model on padded reviews, the pads masked and not") {
  // Reviews of 4 and 3 words padded to 7: the masked loss must not see the pads,
  // the unmasked one must; both backward passes against finite differences.
  const auto set = tiny_reviews();
  for (PositionMode position : {PositionMode::none, PositionMode::sum, PositionMode::concat})
    for (bool mask : {true, false}) {
      CAPTURE(std::string(position_mode_name(position)));
      CAPTURE(mask);
      SentimentModelDesc d = tiny_sentiment_desc(position, 2, 4);
      d.pad_length = 7;
      d.mask_padding = mask;
      SentimentModel m(d);
      m.forward_backward(set, kBoth);
      check_model("sentiment, padded", m.params(), [&] { return double(m.loss(set, kBoth)); });
      d.pad_length = 0;
      SentimentModel unpadded(d);
      const float padded_loss = m.loss(set, kBoth), plain_loss = unpadded.loss(set, kBoth);
      if (mask) CHECK(padded_loss == plain_loss);  // the very same bits
      else CHECK(std::abs(padded_loss - plain_loss) > 1e-4f);
    }
}

TEST_CASE("sentiment model: masked pads get weight 0 and change nothing, unmasked, the prediction moves with the padding") {
  SentimentModelDesc d;
  d.vocab = 6;
  d.seed = 5;
  SentimentModel m(d);
  const std::vector<int> ids = {1, 3, 2, 5};
  const float plain = m.predict(ids);
  for (int length : {4, 5, 9, 20}) {
    CAPTURE(length);
    CHECK(m.predict(ids, length, true) == plain);  // bit for bit
    CHECK(m.weight_on_padding(ids, length, true) == 0.0f);
    const std::vector<Mat> P = m.head_weights(ids, length, true);
    REQUIRE(P.size() == 4u);
    CHECK(P[0].rows() == length);
    CHECK(P[0].topLeftCorner(4, 4).rowwise().sum().minCoeff() == doctest::Approx(1.0f));
  }
  // Unmasked, every word gives the pads a share, and more pads take more.
  const float w5 = m.weight_on_padding(ids, 5, false), w9 = m.weight_on_padding(ids, 9, false),
              w20 = m.weight_on_padding(ids, 20, false);
  CHECK(w5 > 0.0f);
  CHECK(w9 > w5);
  CHECK(w20 > w9);
  CHECK(m.predict(ids, 4, false) == plain);  // no pads: nothing to mask
  CHECK(std::abs(m.predict(ids, 20, false) - plain) > 1e-3f);
}

TEST_CASE("agreement: the padding mask of the training layer equals masked_softmax (-inf scores) of src/attn") {
  // Reference: attn's multi-head attention with a padding mask, whose masked
  // scores are -inf before a stable softmax. The training layer skips the pads
  // instead; the words' weights and outputs must agree, the pads' stay 0.
  Rng rng(17);
  SelfAttentionLayer layer;
  layer.init("mha", 6, 2, 3, 0, rng);
  const Mat X = attn::test::random_mat(rng, 7, 6);
  for (int valid : {1, 4, 7}) {
    CAPTURE(valid);
    SelfAttentionTrace tr;
    self_attention_forward(layer, X, tr, nullptr, valid);
    MultiHeadDesc desc;
    desc.heads = 2;
    desc.mask = MaskKind::padding;
    desc.key_lengths = {valid};
    MultiHeadParams params;
    params.W_Q = layer.W_Q.value;
    params.W_K = layer.W_K.value;
    params.W_V = layer.W_V.value;
    const MultiHeadResult ref = self_attention_forward(X, desc, params);
    REQUIRE(ref.ok());
    for (int h = 0; h < 2; ++h) {
      attn::test::check_close("masked weights", Mat(tr.P[size_t(h)].topRows(valid)), Mat(ref.weights[size_t(h)].topRows(valid)), 2e-6, 2e-5);
      if (valid < 7) CHECK(tr.P[size_t(h)].rightCols(7 - valid).cwiseAbs().maxCoeff() == 0.0f);
    }
    attn::test::check_close("masked output", Mat(tr.out.topRows(valid)), Mat(ref.output.topRows(valid)), 2e-5, 2e-5);
    // The real rows are those of the unpadded input, bit for bit.
    SelfAttentionTrace alone;
    self_attention_forward(layer, Mat(X.topRows(valid)), alone);
    CHECK((Mat(tr.out.topRows(valid)) == alone.out));
  }
}

TEST_CASE("sentiment model: without positions it cannot tell word orders apart, with them it can") {
  const std::vector<int> ids = {1, 3, 2, 5}, shuffled = {5, 2, 1, 3};
  for (PositionMode position : {PositionMode::none, PositionMode::sum, PositionMode::concat}) {
    CAPTURE(std::string(position_mode_name(position)));
    SentimentModelDesc d;
    d.vocab = 6;
    d.position = position;
    SentimentModel m(d);
    const float a = m.predict(ids), b = m.predict(shuffled);
    if (position == PositionMode::none) CHECK(a == doctest::Approx(b).epsilon(1e-5));
    else CHECK(std::abs(a - b) > 1e-5f);
  }
}

TEST_CASE("sentiment model: a desc that does not fit is named, the shape tables follow the options") {
  SentimentModelDesc d;
  d.vocab = 10;
  CHECK(sentiment_desc_error(d).empty());
  d.heads = 0;
  CHECK(sentiment_desc_error(d) == "heads must be at least 1 (got 0)");
  d = SentimentModelDesc();
  d.vocab = 10;
  d.position = PositionMode::concat;
  d.position_width = 32;
  CHECK(sentiment_desc_error(d) == "position_width must be between 1 and d_model - 1 = 31 for concat (got 32)");
  d.position_width = 16;
  d.dropout = 1.0f;
  CHECK(sentiment_desc_error(d) == "dropout must be in [0, 1)");
  CHECK(sentiment_desc_error(SentimentModelDesc()) == "vocab must be at least 1 (got 0)");
  PositionMode mode = PositionMode::sum;
  CHECK(parse_position_mode("concat", &mode));
  CHECK(mode == PositionMode::concat);
  CHECK(!parse_position_mode("added", &mode));

  d = SentimentModelDesc();
  d.vocab = 10;
  d.position = PositionMode::concat;
  d.heads = 8;
  d.head_size = 4;
  d.dropout = 0.0f;
  const SentimentModel m(d);
  auto has = [](const std::vector<ShapeInfo>& rows, const std::string& name, const std::string& shape) {
    for (const ShapeInfo& r : rows)
      if (r.name == name && r.shape == shape) return true;
    return false;
  };
  const std::vector<ShapeInfo> shapes = m.describe_shapes(12, 32);
  CHECK(has(shapes, "embedded X", "(batch, n, d_e) = (32, 12, 16)"));
  CHECK(has(shapes, "position PE", "(n, d_pe) = (12, 16)"));
  CHECK(has(shapes, "X' = [X | PE]", "(batch, n, d_e + d_pe) = (32, 12, 32)"));
  CHECK(has(shapes, "per-head Q_t, K_t, V_t", "(batch, h, n, d_h) = (32, 8, 12, 4)"));
  const std::vector<ShapeInfo> layers = m.describe_layers(12, 32);
  REQUIRE(layers.size() == 7);
  CHECK(has(layers, "Embedding", "(32, 12, 16)"));
  CHECK(has(layers, "Position_Embedding", "(32, 12, 32)"));
  CHECK(has(layers, "Attention", "(32, 12, 32)"));
  CHECK(has(layers, "GlobalAveragePooling1D", "(32, 32)"));
  CHECK(layers[5].name == "Dropout");
  CHECK(layers[5].note == "off");
  CHECK(has(layers, "Dense", "(32, 1)"));
}

// Measurements behind the sentiment lesson's numbers (not run by default):
//   test_train --no-skip -tc="measure: sentiment*"
//
// What the heads step reports for one seed after 600 steps: the attention each
// head gives each word role over all 600 held-out reviews, as a multiple of an
// even share (role[h][r]), and each head's most-looked-at word on the first 30
// test reviews (" h1:not h2:i ...", top[k]).
struct HeadsReport {
  int heads = 0;
  std::vector<std::vector<double>> role;
  std::vector<std::string> top;
  std::vector<std::string> reviews;
  double at(int h, data::WordRole r) const { return role[size_t(h - 1)][size_t(r)]; }
};
static HeadsReport measure_heads(uint64_t seed) {
  RunDesc d;
  d.kind = RunKind::sentiment;
  d.seed = seed;
  TrainRun run(d);
  run.run_for(1e9, 600);
  HeadsReport out;
  const int heads = out.heads = run.sentiment()->desc().heads;
  std::vector<std::vector<double>> sum(size_t(heads), std::vector<double>(7, 0.0));
  std::vector<double> count(7, 0.0);
  for (const data::Review& r : run.sentiment_data().test) {
    const Mat rec = run.sentiment()->attention_received(r.ids);  // (h, n)
    for (size_t i = 0; i < r.words.size(); ++i) {
      const int role = int(data::sentiment_word_role(r.words[i]));
      count[size_t(role)] += 1.0;
      for (int h = 0; h < heads; ++h) sum[size_t(h)][size_t(role)] += double(rec(h, long(i))) * double(r.words.size());
    }
  }
  out.role = sum;
  for (int h = 0; h < heads; ++h) {
    std::string line;
    for (int role = 0; role < 7; ++role) {
      out.role[size_t(h)][size_t(role)] = count[size_t(role)] > 0 ? sum[size_t(h)][size_t(role)] / count[size_t(role)] : 0.0;
      line += std::string(" ") + data::word_role_name(data::WordRole(role)) + " " + std::to_string(out.role[size_t(h)][size_t(role)]);
    }
    MESSAGE("seed " << seed << ", head " << h + 1 << ":" << line);
  }
  for (int k = 0; k < 30; ++k) {
    const data::Review& r = run.sentiment_data().test[size_t(k)];
    const Mat rec = run.sentiment()->attention_received(r.ids);
    std::string line;
    for (int h = 0; h < heads; ++h) {
      Eigen::Index j = 0;
      rec.row(h).maxCoeff(&j);
      line += " h" + std::to_string(h + 1) + ":" + r.words[size_t(j)];
    }
    MESSAGE("seed " << seed << ", review " << k << " (" << r.label << "): " << data::join_words(r.words) << " |" << line);
    out.top.push_back(line);
    out.reviews.push_back(data::join_words(r.words));
  }
  return out;
}

TEST_CASE("measure: sentiment attention received by word role" * doctest::skip()) {
  const HeadsReport rep = measure_heads(1);
  // "On review 0, heads 1 and 3 look most at "not", head 4 at "fantastic", and
  // head 2 ... at "i"."
  CHECK(rep.reviews[0] == "i thought the coffee was not fantastic .");
  CHECK(rep.top[0] == " h1:not h2:i h3:not h4:fantastic");
  const int heads = rep.heads;
  const auto role = [&](int h, data::WordRole r) { return rep.at(h, r); };
  // The heads step's after-text (seed 1, 600 steps, all 600 held-out reviews, a
  // multiple of an even share), each to the precision it is quoted with.
  REQUIRE(heads == 4);
  using R = data::WordRole;
  for (int h : {1, 3}) {
    CAPTURE(h);
    CHECK(std::abs(role(h, R::negation) - 11.2) < 0.05);  // "give negation words 11.2"
    for (R r : {R::positive, R::negative}) {             // "and sentiment words 8 to 10"
      CHECK(role(h, r) >= 7.5);
      CHECK(role(h, r) < 10.5);
    }
    CHECK(role(h, R::name) < 0.01);  // "and names and places less than 0.01"
    CHECK(role(h, R::place) < 0.01);
  }
  CHECK(std::abs(role(2, R::negative) - 11.0) < 0.05);     // "Head 2 looks at negative words (11.0)"
  CHECK(std::abs(role(2, R::positive) - 0.3) < 0.05);      // "and hardly at positive ones (0.3)"
  CHECK(std::abs(role(4, R::positive) - 11.1) < 0.05);     // "head 4 ... positive words 11.1"
  CHECK(std::abs(role(4, R::negative) - 0.002) < 0.0005);  // "and negative ones 0.002"
  CHECK(std::abs(role(4, R::negation) - 4.7) < 0.05);      // "and negation words 4.7"
}

// The heads step's quiz asks whether the four heads all look at the same word of
// review 0 (seed 1 above); its after-text says what seeds 2 and 3 give there and
// what recurred in all three runs.
TEST_CASE("measure: sentiment heads, seeds 1 to 3" * doctest::skip()) {
  using R = data::WordRole;
  for (uint64_t seed : {1, 2, 3}) {
    CAPTURE(seed);
    const HeadsReport rep = measure_heads(seed);
    REQUIRE(rep.heads == 4);
    REQUIRE(rep.reviews[0] == "i thought the coffee was not fantastic .");
    // "on review 0 three heads look most at "not", and the fourth at "i" (seed 2)
    // or "the" (seed 3)"; seed 1 as pinned above.
    const char* top0[3] = {" h1:not h2:i h3:not h4:fantastic", " h1:not h2:not h3:not h4:i", " h1:not h2:not h3:not h4:the"};
    CHECK(rep.top[0] == top0[seed - 1]);
    // "at least two heads gather the negation words (more than 10 times an even
    // share), and one head looks at negative words (more than 10) and hardly at
    // negation words (less than 2). Only seed 1 grew a head for the positive words."
    int negation = 0, negative = 0, positive = 0;
    for (int h = 1; h <= 4; ++h) {
      negation += rep.at(h, R::negation) > 10.0;
      negative += rep.at(h, R::negative) > 10.0 && rep.at(h, R::negation) < 2.0;
      positive += rep.at(h, R::positive) > 10.0;
    }
    CHECK(negation >= 2);
    CHECK(negative >= 1);
    CHECK(positive == (seed == 1 ? 1 : 0));
  }
}

TEST_CASE("measure: sentiment options" * doctest::skip()) {
  struct Config {
    PositionMode position;
    int heads;
    float dropout;
  };
  const Config configs[] = {
      {PositionMode::sum, 4, 0.5f},  {PositionMode::none, 4, 0.5f}, {PositionMode::concat, 4, 0.5f},
      {PositionMode::sum, 1, 0.5f},  {PositionMode::sum, 2, 0.5f},  {PositionMode::sum, 8, 0.5f},
      {PositionMode::sum, 4, 0.0f},  {PositionMode::sum, 1, 0.0f},  {PositionMode::sum, 2, 0.0f},
      {PositionMode::none, 4, 0.0f}, {PositionMode::none, 1, 0.5f}, {PositionMode::none, 2, 0.5f},
      {PositionMode::none, 8, 0.5f}, {PositionMode::concat, 8, 0.5f}};
  // What one run gives: held-out reviews right every 25 steps (right[s / 25]),
  // and at steps 350 and 600 the negated reviews right.
  struct Result {
    int n = 0;
    std::vector<int> right;
    int neg350 = -1, neg600 = -1, plain350 = -1;
    int first_full() const {  // the first step at which every held-out review is right
      for (size_t i = 0; i < right.size(); ++i)
        if (right[i] == n) return int(i) * 25;
      return -1;
    }
    int at(int step) const { return right[size_t(step / 25)]; }
    float max_from(int step) const {
      return float(*std::max_element(right.begin() + step / 25, right.end())) / float(n);
    }
  };
  std::map<std::tuple<uint64_t, PositionMode, int, float>, Result> results;
  // Held-out accuracy (per mille) every 25 steps to 600, and at steps 350 and 600
  // the reviews right among those with a negation word and among the rest.
  for (uint64_t seed : {1, 2, 3})
    for (const Config& c : configs) {
      RunDesc d;
      d.kind = RunKind::sentiment;
      d.seed = seed;
      d.position = c.position;
      d.heads = c.heads;
      d.dropout = c.dropout;
      TrainRun run(d);
      Result& res = results[{seed, c.position, c.heads, c.dropout}];
      res.n = int(run.sentiment_data().test.size());
      std::string line;
      for (int s = 0; s <= 600; s += 25) {
        if (s > 0) run.run_for(1e9, 25);
        const float acc = run.evaluate().accuracy;
        res.right.push_back(int(acc * float(res.n) + 0.5f));
        line += " " + std::to_string(int(acc * 1000.0f + 0.5f));
        if (s == 350 || s == 600) {
          int neg = 0, neg_right = 0, plain = 0, plain_right = 0;
          for (const data::Review& r : run.sentiment_data().test) {
            bool negated = false;
            for (const std::string& w : r.words) negated |= data::sentiment_word_role(w) == data::WordRole::negation;
            const bool right = (run.sentiment()->predict(r.ids) > 0.5f) == (r.label == 1);
            (negated ? neg : plain) += 1;
            (negated ? neg_right : plain_right) += right;
          }
          line += " [neg " + std::to_string(neg_right) + "/" + std::to_string(neg) + " plain " + std::to_string(plain_right) + "/" +
                  std::to_string(plain) + "]";
          (s == 350 ? res.neg350 : res.neg600) = neg_right;
          if (s == 350) res.plain350 = plain_right;
          CHECK(neg == 113);  // "of the 113 with one"
        }
      }
      MESSAGE("seed " << seed << " " << std::string(position_mode_name(c.position)) << " h" << c.heads << " drop " << c.dropout << ":" << line);
    }
  const auto R = [&](uint64_t seed, PositionMode p, int heads, float dropout) -> const Result& {
    return results.at({seed, p, heads, dropout});
  };
  const PositionMode sum = PositionMode::sum, none = PositionMode::none, concat = PositionMode::concat;
  REQUIRE(R(1, sum, 1, 0.5f).n == 600);
  // Step options, after-text (seed 1): "at step 350 the one-head model is right on
  // all 487 reviews without a negation word and on 54 of the 113 with one, 90.2%
  // in all; after 600 steps it is at 91.8% (64 of the 113)."
  const Result& one = R(1, sum, 1, 0.5f);
  CHECK(one.plain350 == 487);
  CHECK(one.neg350 == 54);
  CHECK(one.at(350) == 487 + 54);  // 90.2%
  CHECK(one.neg600 == 64);
  CHECK(one.at(600) == 551);  // 91.8%
  // The quiz: one head "hovers around 90% to the end" of the page's 350 steps.
  CHECK(one.max_from(150) < 0.93f);
  // "Two heads stall at the same level, and switching dropout off does not help
  // either": neither gets past 93% in 600 steps, and at step 600 both are where
  // the one head is (64 of the 113 negated reviews right).
  const Result& two = R(1, sum, 2, 0.5f);
  CHECK(two.max_from(0) < 0.93f);
  CHECK(two.neg600 == 64);
  CHECK(two.at(600) == one.at(600));
  const Result& one_nodrop = R(1, sum, 1, 0.0f);
  CHECK(one_nodrop.max_from(0) < 0.93f);
  CHECK(one_nodrop.neg600 == 64);
  // "more heads, at the same width, get past the plateau: 8 heads by step 350, 4
  // heads by step 425"; the exercise's hint: "8 heads: measured here, 100% at step
  // 350. 4 heads get there at step 425, or at step 325 with dropout off."
  CHECK(R(1, sum, 8, 0.5f).first_full() == 350);
  CHECK(R(1, sum, 4, 0.5f).first_full() == 425);
  CHECK(R(1, sum, 4, 0.0f).first_full() == 325);
  // Step compare, after-text (seed 1): "A first reaches 100% of the held-out
  // reviews at step 425 (it slips by one review at step 500), B reaches it at step
  // 450 and stays. ... at step 350 it had 96.0% against A's 93.0%, with 89 of the
  // 113 negated reviews right against A's 71."
  const Result &A = R(1, sum, 4, 0.5f), &B = R(1, none, 4, 0.5f);
  CHECK(A.first_full() == 425);
  for (int s = 425; s <= 600; s += 25) {
    CAPTURE(s);
    CHECK(A.at(s) == (s == 500 ? 599 : 600));
  }
  CHECK(B.first_full() == 450);
  for (int s = 450; s <= 600; s += 25) {
    CAPTURE(s);
    CHECK(B.at(s) == 600);
  }
  CHECK(B.at(350) == 576);  // 96.0%
  CHECK(A.at(350) == 558);  // 93.0%
  CHECK(B.neg350 == 89);
  CHECK(A.neg350 == 71);
  // "With seeds 2 and 3, A again reached 100%, and B 99.0% and 100%" (B at step 600).
  CHECK(R(2, sum, 4, 0.5f).first_full() > 0);
  CHECK(R(3, sum, 4, 0.5f).first_full() > 0);
  CHECK(R(2, none, 4, 0.5f).at(600) == 594);  // 99.0%
  CHECK(R(3, none, 4, 0.5f).at(600) == 600);
  // "Concatenated positions reached 100% at step 500 with seed 1, but with seed 3
  // they stayed near 92% for all 600 steps."
  CHECK(R(1, concat, 4, 0.5f).first_full() == 500);
  const Result& concat3 = R(3, concat, 4, 0.5f);
  CHECK(concat3.max_from(0) < 0.93f);
  CHECK(std::abs(float(concat3.at(600)) / 600.0f - 0.92f) < 0.005f);
  // "Leaving positions out even helped the single head of the previous step: 95.2%
  // at step 600 instead of 91.8%."
  CHECK(R(1, none, 1, 0.5f).at(600) == 571);  // 95.2%
}

// The padding step's experiment: A (the sentiment model with its padding mask) and
// B (the same model trained without it) trained side by side for 600 steps, held
// out every 25. Gives the curve, A's first step at 100% and B's range from step 200.
struct PaddingRace {
  std::string line;  // " step: A/B" in per mille
  int a_full = -1;
  float b_low = 1.0f, b_high = 0.0f, b_last = 0.0f;
};
static PaddingRace race_padding(TrainRun& a, TrainRun& b) {
  PaddingRace r;
  for (int s = 25; s <= 600; s += 25) {
    a.run_for(1e9, 25);
    b.run_for(1e9, 25);
    const float ea = a.evaluate().accuracy, eb = b.evaluate().accuracy;
    r.line += " " + std::to_string(s) + ": " + std::to_string(int(ea * 1000.0f + 0.5f)) + "/" + std::to_string(int(eb * 1000.0f + 0.5f));
    if (r.a_full < 0 && ea >= 1.0f) r.a_full = s;
    if (s >= 200) r.b_low = std::min(r.b_low, eb), r.b_high = std::max(r.b_high, eb);
    r.b_last = eb;
  }
  return r;
}

TEST_CASE("convergence: the sentiment model without the padding mask stalls, with the mask removed, A flips most answers") {
  // sentiment.lesson, step padding (seed 1, 600 steps): every review padded to 20,
  // the longest. A (masked) first reaches 100% held out at step 425; B (the same
  // model trained without the mask) hovers between 89% and 93% from step 200 and
  // ends at 92.5%. A used without its mask: its words give the pads 0.44 of their
  // attention and 283 of 600 answers stay right (317 flip). B with 8 more pads:
  // 34 answers change. Review 2 ("赵磊 上 周 去 了 广州 。 早餐 非常 完美 。"):
  // B gives 1.00, 0.83 with 4 more pads, 0.60 with 8; A stays at 1.00.
  RunDesc d;
  d.kind = RunKind::sentiment;
  TrainRun a(d);
  d.mask_padding = false;
  TrainRun b(d);
  REQUIRE(a.sentiment()->desc().pad_length == 20);
  const PaddingRace race = race_padding(a, b);
  MESSAGE("held-out accuracy (per mille), masked / not:" << race.line);
  CHECK(race.a_full == 425);
  CHECK(race.b_low > 0.885f);
  CHECK(race.b_high < 0.93f);
  CHECK(race.b_last == doctest::Approx(0.925f));
  const SentimentModel &ma = *a.sentiment(), &mb = *b.sentiment();
  const auto& test = a.sentiment_data().test;
  int a_right = 0, a_flips = 0, b_flips = 0;
  double a_on_pads = 0.0;
  for (const data::Review& r : test) {
    const int L = ma.padded_length(r.ids);
    const bool pa = ma.predict(r.ids, L, false) > 0.5f;
    a_right += pa == (r.label == 1);
    a_flips += pa != (ma.predict(r.ids) > 0.5f);
    a_on_pads += ma.weight_on_padding(r.ids, L, false);
    b_flips += (mb.predict(r.ids, L + 8, false) > 0.5f) != (mb.predict(r.ids) > 0.5f);
  }
  MESSAGE("A without its mask: " << a_right << " right, " << a_flips << " flipped, on the pads " << a_on_pads / double(test.size())
                                  << "; B with 8 more pads: " << b_flips << " changed");
  CHECK(a_right == 283);
  CHECK(a_flips == 317);
  // mask-forgotten's explanation: the held-out reviews are half positive and half
  // negative, so answers that no longer depend on the review flip about half.
  int positive = 0;
  for (const data::Review& r : test) positive += r.label;
  MESSAGE(positive << " of " << test.size() << " held-out reviews are positive");
  CHECK(positive > 270);
  CHECK(positive < 330);
  CHECK(a_on_pads / double(test.size()) == doctest::Approx(0.44).epsilon(0.02));
  CHECK(b_flips == 34);
  const data::Review& r2 = test[2];
  REQUIRE(data::join_words(r2.words) == "赵磊 上 周 去 了 广州 。 早餐 非常 完美 。");
  const int L2 = mb.padded_length(r2.ids);
  CHECK(mb.predict(r2.ids) == doctest::Approx(1.0f).epsilon(0.002));
  CHECK(mb.predict(r2.ids, L2 + 4, false) == doctest::Approx(0.83f).epsilon(0.01));
  CHECK(mb.predict(r2.ids, L2 + 8, false) == doctest::Approx(0.60f).epsilon(0.01));
  for (int extra : {0, 8, 24}) CHECK(ma.predict(r2.ids, L2 + extra, true) == ma.predict(r2.ids));
  CHECK(ma.predict(r2.ids) == doctest::Approx(1.0f).epsilon(0.002));
}

TEST_CASE("measure: padding, seeds 2 and 3 (the padding step quotes them)" * doctest::skip()) {
  // The padding step's numbers (pinned above for seed 1) with other seeds: B, trained
  // without the mask, its lowest and highest held-out accuracy from step 200 and at
  // step 600; A used without its mask, how many of the 600 answers stay right.
  for (uint64_t seed : {2, 3}) {
    RunDesc d;
    d.kind = RunKind::sentiment;
    d.seed = seed;
    TrainRun a(d);
    d.mask_padding = false;
    TrainRun b(d);
    const PaddingRace race = race_padding(a, b);
    const SentimentModel& ma = *a.sentiment();
    int a_right = 0;
    for (const data::Review& r : a.sentiment_data().test)
      a_right += (ma.predict(r.ids, ma.padded_length(r.ids), false) > 0.5f) == (r.label == 1);
    MESSAGE("seed " << seed << ", held-out accuracy (per mille), masked / not:" << race.line);
    MESSAGE("seed " << seed << ": A first at 100% at step " << race.a_full << "; B from step 200 between " << race.b_low << " and "
                    << race.b_high << ", at step 600 " << race.b_last << "; A without its mask: " << a_right << " of "
                    << a.sentiment_data().test.size() << " right");
    // What the padding step's quizzes quote for these seeds: B ends at 93.0% and
    // 95.0%, behind A at 100%; A without its mask keeps 566 and 356 of 600.
    CHECK(a.evaluate().accuracy == 1.0f);
    CHECK(int(race.b_last * 1000.0f + 0.5f) == (seed == 2 ? 930 : 950));
    CHECK(a_right == (seed == 2 ? 566 : 356));
  }
}

// Measurements behind the numbers the encoder-decoder, kinds and rnn-vs-attention
// lessons quote (not run by default; each checks what the lesson says):
//   test_train --no-skip -tc="measure: seq2seq*,measure: hard*,measure: BiGRU*"
// (The page's sentence slider shows held-out sentence k as heldout[k - 1].)
TEST_CASE("measure: seq2seq decoding reads the end of a question first, and 每天 late (dot attention, 300 steps)" *
          doctest::skip()) {
  // encoder-decoder lesson, step decoding: with seed 1, while writing "do" the first
  // query (the state after <bos>) puts 0.93 on ？; on sentence 3 "every" and "day"
  // go back to 每天. Other seeds show whether that is the rule or one run's choice.
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    RunDesc d;
    d.kind = RunKind::translation_dot;
    d.seed = seed;
    TrainRun run(d);
    run.run_for(1e9, 300);
    const Seq2SeqModel& m = *run.translation();
    const auto& held = run.translation_data().heldout;
    REQUIRE(held.size() >= 6);
    std::string line;
    for (int k : {3, 6}) {
      const data::TranslationPair& p = held[size_t(k - 1)];
      const Seq2SeqDecode dec = m.greedy_decode(p.source_ids, int(p.target.size()) + 4);
      line += " | sentence " + std::to_string(k) + ": " + data::join_words(p.source) + " -> " +
              data::join_words(run.translation_data().target_vocab.decode(dec.tokens)) + ";";
      for (Eigen::Index t = 0; t < dec.alignment.rows(); ++t) {
        Eigen::Index j = 0;
        dec.alignment.row(t).maxCoeff(&j);
        line += " " + run.translation_data().target_vocab.words[size_t(dec.tokens[size_t(t)])] + "->" +
                p.source[size_t(j)] + " " + std::to_string(dec.alignment(t, j)).substr(0, 5);
      }
      if (seed == 1 && k == 6) {
        CHECK(data::join_words(p.source) == "我 喜欢 猫 吗 ？");
        CHECK(dec.alignment(0, 4) == doctest::Approx(0.93).epsilon(0.01));  // "do" reads ？
      }
      if (seed == 1 && k == 3) {
        const Mat A = m.alignment(p.source_ids, p.target_ids);
        MESSAGE("sentence 3, teacher forced: " << data::join_words(p.target));
        for (size_t t = 0; t < p.target.size(); ++t)
          if (p.target[t] == "every" || p.target[t] == "day")
            for (size_t j = 0; j < p.source.size(); ++j)
              if (p.source[j] == "每天") {
                MESSAGE("  " << p.target[t] << " -> 每天 " << A(Eigen::Index(t), Eigen::Index(j)));
                CHECK(A(Eigen::Index(t), Eigen::Index(j)) == doctest::Approx(p.target[t] == "every" ? 0.98 : 0.77).epsilon(0.01));
              }
      }
    }
    MESSAGE("seed " << seed << " held-out " << run.evaluate().accuracy << line);
    // The lesson's explanation: with seeds 1 to 5 the first query always reads ？ (0.90 to 0.98).
    const data::TranslationPair& q6 = held[5];
    const Seq2SeqDecode d6 = m.greedy_decode(q6.source_ids, int(q6.target.size()) + 4);
    CHECK(d6.alignment(0, 4) > 0.89f);
    CHECK(d6.alignment(0, 4) < 0.99f);  // "0.90 to 0.98"
  }
}

TEST_CASE("measure: seq2seq without attention, a longer run (seed 1, 1000 steps)" * doctest::skip()) {
  // encoder-decoder lesson, step without-attention: within the page's 300 steps
  // the model without attention stays near 92%; this is the longer run its
  // after-text describes (held-out token accuracy every 20 steps, as the page tests).
  RunDesc d;
  d.kind = RunKind::translation_none;
  TrainRun run(d);
  int first95 = -1;
  float lo = 1.0f, hi = 0.0f;
  std::string line;
  for (int s = 20; s <= 1000; s += 20) {
    run.run_for(1e9, 20);
    const float acc = run.evaluate().accuracy;
    line += " " + std::to_string(s) + ":" + std::to_string(int(1000 * acc + 0.5f));
    if (first95 < 0 && acc >= 0.95f) first95 = s;
    if (first95 > 0 && s > first95) lo = std::min(lo, acc), hi = std::max(hi, acc);
  }
  MESSAGE("without attention, held-out token accuracy (per mille) by step:" << line);
  MESSAGE("first >= 95% at step " << first95 << "; after it, between " << lo << " and " << hi);
  CHECK(first95 == 380);
  // "then hovered between 93.5% and 97.7%"
  CHECK(std::abs(lo - 0.935f) < 0.0015f);
  CHECK(std::abs(hi - 0.977f) < 0.0015f);
}

TEST_CASE("measure: seq2seq with and without attention at the page's 300 steps, seeds 1 to 5" * doctest::skip()) {
  // encoder-decoder lesson, step without-attention: where the model without
  // attention is when both stop, for more than the page's one seed.
  float lo = 1.0f, hi = 0.0f, with_lo = 1.0f;
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    float acc[2] = {0.0f, 0.0f};
    for (int with : {1, 0}) {
      RunDesc d;
      d.kind = with ? RunKind::translation_additive : RunKind::translation_none;
      d.seed = seed;
      acc[with] = accuracy_after(d, 300);
    }
    MESSAGE("seed " << seed << ": held-out token accuracy at step 300, with attention " << acc[1] << ", without " << acc[0]);
    CHECK(acc[0] < acc[1]);
    lo = std::min(lo, acc[0]);
    hi = std::max(hi, acc[0]);
    with_lo = std::min(with_lo, acc[1]);
  }
  // "always behind the model with attention of the same seed (97.8% to 100%)"
  CHECK(with_lo > 0.975f);
  MESSAGE("without attention, seeds 1 to 5: between " << lo << " and " << hi);
  // The step's after-text: "with seeds 1 to 5 it ended between 90% and 95.5%".
  CHECK(lo > 0.895f);
  CHECK(hi < 0.96f);
}

TEST_CASE("measure: hard attention on the patch task, the page's 600 steps" * doctest::skip()) {
  // kinds lesson, step train-hard: held-out caption accuracy every 50 steps (as the
  // page tests), and for plain backpropagation how often its never-trained scorer
  // picks the patch with the bright shape.
  for (RunKind kind : {RunKind::glimpse_soft, RunKind::glimpse_hard_argmax, RunKind::glimpse_reinforce,
                       RunKind::glimpse_gumbel}) {
    RunDesc d;
    d.kind = kind;
    TrainRun run(d);
    std::string line = " 0:" + std::to_string(int(1000 * run.evaluate().accuracy + 0.5f));
    int full_from = -1;
    for (int s = 50; s <= 600; s += 50) {
      run.run_for(1e9, 50);
      const float acc = run.evaluate().accuracy;
      line += " " + std::to_string(s) + ":" + std::to_string(int(1000 * acc + 0.5f));
      if (acc >= 1.0f && full_from < 0) full_from = s;
      if (acc < 1.0f) full_from = -1;
    }
    const GlimpseEval ev = run.glimpse()->evaluate(run.patch_data().test);
    MESSAGE(std::string(run_kind_name(kind)) << ": accuracy (per mille) by step" << line << "; 100% from step "
                                             << full_from << "; right patch picked " << ev.pick_accuracy);
    // The kinds lesson quotes: soft and Gumbel 100% from step 50, REINFORCE from 100;
    // plain backprop 34% -> about 54%, its fixed rule picking the bright patch on 25%.
    if (kind == RunKind::glimpse_soft || kind == RunKind::glimpse_gumbel) CHECK(full_from == 50);
    if (kind == RunKind::glimpse_reinforce) CHECK(full_from == 100);
    if (kind == RunKind::glimpse_hard_argmax) {
      CHECK(line.find(" 0:343 ") != std::string::npos);
      CHECK(line.find(" 100:543 ") != std::string::npos);
      CHECK(ev.accuracy == doctest::Approx(0.54).epsilon(0.02));
      CHECK(ev.pick_accuracy == doctest::Approx(0.25).epsilon(0.01));
    }
  }
}

TEST_CASE("measure: BiGRU pooling, attention against averaging, the page's 200 steps" * doctest::skip()) {
  // rnn-vs-attention lesson, step pooling: held-out accuracy every 25 steps, and at
  // step 200 the share of attention pooling's weight on sentiment and negation
  // words and on names and places (over the first 200 test reviews, as the page's note).
  RunDesc d;
  d.kind = RunKind::birnn_attention;
  TrainRun att(d);
  d.kind = RunKind::birnn_average;
  TrainRun avg(d);
  std::string line;
  int both_full = -1;
  const int n_test = int(att.sentiment_data().test.size());
  int att100 = -1, avg100 = -1;  // held-out reviews right at step 100
  for (int s = 25; s <= 200; s += 25) {
    att.run_for(1e9, 25);
    avg.run_for(1e9, 25);
    const float a = att.evaluate().accuracy, b = avg.evaluate().accuracy;
    line += " " + std::to_string(s) + ": " + std::to_string(a).substr(0, 5) + " / " + std::to_string(b).substr(0, 5) + ";";
    if (both_full < 0 && a >= 1.0f && b >= 1.0f) both_full = s;
    if (s == 100) att100 = int(a * float(n_test) + 0.5f), avg100 = int(b * float(n_test) + 0.5f);
  }
  const auto& test = att.sentiment_data().test;
  double sentiment = 0.0, names = 0.0;
  const size_t n = std::min<size_t>(test.size(), 200);
  for (size_t i = 0; i < n; ++i) {
    const Mat w = att.birnn()->word_weights(test[i].ids);
    for (size_t j = 0; j < test[i].words.size(); ++j) {
      const data::WordRole role = data::sentiment_word_role(test[i].words[j]);
      if (role == data::WordRole::positive || role == data::WordRole::negative || role == data::WordRole::negation)
        sentiment += w(0, Eigen::Index(j));
      if (role == data::WordRole::name || role == data::WordRole::place) names += w(0, Eigen::Index(j));
    }
  }
  MESSAGE("held-out accuracy, attention / average:" << line << " both at 100% from step " << both_full);
  MESSAGE("at step 200: sentiment and negation words " << sentiment / double(n) << ", names and places "
                                                      << names / double(n));
  // The pooling step quotes: both at 100% by step 175; about 86% and 3%.
  CHECK(both_full == 175);
  CHECK(sentiment / double(n) == doctest::Approx(0.86).epsilon(0.01));
  CHECK(names / double(n) >= 0.025);  // "about 3%" (0.026 measured)
  CHECK(names / double(n) < 0.035);
  // The after-text of quiz average-at-100 (seed 1): "after 100 steps attention
  // pooling is right on 98.8% of test reviews and averaging on 88.3%".
  MESSAGE("seed 1 at step 100: attention " << att100 << " of " << n_test << ", average " << avg100);
  REQUIRE(n_test == 600);
  CHECK(att100 == 593);  // 98.8%
  CHECK(avg100 == 530);  // 88.3%
  // Other seeds at step 100, the page's settings otherwise.
  for (uint64_t seed : {2, 3, 4, 5}) {
    RunDesc ds;
    ds.seed = seed;
    ds.kind = RunKind::birnn_attention;
    const float a = accuracy_after(ds, 100);
    ds.kind = RunKind::birnn_average;
    const float b = accuracy_after(ds, 100);
    MESSAGE("seed " << seed << " at step 100: attention " << a << " (" << int(a * float(n_test) + 0.5f) << "), average " << b
                    << " (" << int(b * float(n_test) + 0.5f) << ")");
    CAPTURE(seed);
    CHECK(b < a);  // averaging is behind attention at step 100 in every seed
    // The after-text: behind by 5.0 to 9.5 points with seeds 2 to 5.
    const int gap = int(a * float(n_test) + 0.5f) - int(b * float(n_test) + 0.5f);  // reviews; 6 per point
    CHECK(gap >= 30);
    CHECK(gap <= 57);
  }
}

TEST_CASE("measure: long-range at k = 32 and 64, the page's 300 steps in batches of 16, and the LSTM for 1200" *
          doctest::skip()) {
  // rnn-vs-attention lesson, steps distance and gates: held-out accuracy after 300
  // steps (batches of 16, as the page trains), and at k = 64 a longer LSTM run.
  for (int k : {32, 64})
    for (RunKind kind : {RunKind::long_range_rnn, RunKind::long_range_lstm, RunKind::long_range_attention}) {
      RunDesc d;
      d.kind = kind;
      d.distance = k;
      d.batch_size = 16;
      TrainRun run(d);
      run.run_for(1e9, 300);
      const float acc = run.evaluate().accuracy;
      MESSAGE("k = " << k << " " << std::string(run_kind_name(kind)) << ": held-out accuracy " << acc);
      // The lesson quotes k = 32: 55 / 92 / 100%, k = 64: 29 / 12 / 100% (RNN / LSTM / attention).
      const double quoted = kind == RunKind::long_range_attention ? 1.0
                            : kind == RunKind::long_range_rnn    ? (k == 32 ? 0.55 : 0.294)
                                                                 : (k == 32 ? 0.924 : 0.122);
      CHECK(acc == doctest::Approx(quoted).epsilon(0.01));
    }
  // The distance step's quiz: at k = 64 the LSTM ends below the plain RNN, near a
  // blind guess. Seeds 2 and 3 (the after-text says they agree with seed 1).
  for (uint64_t seed : {2, 3}) {
    float acc[2] = {0.0f, 0.0f};
    for (int i = 0; i < 2; ++i) {
      RunDesc d;
      d.kind = i == 0 ? RunKind::long_range_rnn : RunKind::long_range_lstm;
      d.distance = 64;
      d.batch_size = 16;
      d.seed = seed;
      acc[i] = accuracy_after(d, 300);
    }
    MESSAGE("k = 64, seed " << seed << ": RNN " << acc[0] << ", LSTM " << acc[1]);
    CHECK(acc[1] < acc[0]);
    CHECK(acc[1] < 0.2f);
  }
  RunDesc d;
  d.kind = RunKind::long_range_lstm;
  d.distance = 64;
  d.batch_size = 16;
  TrainRun run(d);
  std::string line;
  std::map<int, double> by_step;
  for (int s = 100; s <= 1200; s += 100) {
    run.run_for(1e9, 100);
    const std::vector<float>& losses = run.losses();
    double mean = 0.0;
    for (size_t i = losses.size() - 25; i < losses.size(); ++i) mean += losses[i] / 25.0;
    line += " " + std::to_string(s) + ": " + std::to_string(mean).substr(0, 5) + ";";
    by_step[s] = mean;
  }
  MESSAGE("LSTM at k = 64, training loss (mean of the last 25 steps) by step:" << line << " held-out accuracy "
                                                                               << run.evaluate().accuracy);
  CHECK(run.evaluate().accuracy < 0.15f);  // "still no better than a blind guess" (1 in 8)
  // "it only begins to creep down after about 800 steps, to about 1.8 by the end"
  for (int s = 100; s <= 700; s += 100) {
    CAPTURE(s);
    CHECK(by_step.at(s) > 2.0);
  }
  CHECK(by_step.at(800) < 2.0);
  CHECK(std::abs(by_step.at(1200) - 1.8) < 0.05);
}

TEST_CASE("model gradients: BiGRU classifier with attention pooling and with average pooling") {
  const auto set = tiny_reviews();
  for (PoolingKind pooling : {PoolingKind::attention, PoolingKind::average}) {
    CAPTURE(std::string(pooling_kind_name(pooling)));
    BiRnnClassifierDesc d;
    d.vocab = 6;
    d.pooling = pooling;
    d.embed = 3;
    d.hidden = 3;
    d.attention_size = 3;
    BiRnnClassifier m(d);
    m.forward_backward(set, kBoth);
    check_model("birnn", m.params(), [&] { return double(m.loss(set, kBoth)); });
    const Mat w = m.word_weights(set[0].ids);
    CHECK(w.cols() == 4);
    CHECK(w.sum() == doctest::Approx(1.0));
  }
}

TEST_CASE("model gradients: glimpse models (soft, Gumbel-softmax, REINFORCE surrogate, hard argmax)") {
  data::PatchDesc pd;
  pd.grid = 2;
  pd.distractors = 1;
  pd.train_count = 2;
  pd.test_count = 0;
  const data::PatchData patches = data::make_patch_data(pd);
  const auto& set = patches.train;
  auto make = [](GlimpseMode mode) {
    GlimpseDesc d;
    d.mode = mode;
    d.attention_size = 3;
    d.seed = 4;
    return GlimpseModel(d);
  };
  SUBCASE("soft and Gumbel-softmax are differentiable end to end") {
    for (GlimpseMode mode : {GlimpseMode::soft, GlimpseMode::gumbel}) {
      CAPTURE(std::string(glimpse_mode_name(mode)));
      GlimpseModel m = make(mode);
      m.forward_backward(set, kBoth);
      check_model("glimpse", m.params(), [&] { return double(m.loss(set, kBoth)); });
    }
  }
  SUBCASE("REINFORCE: the gradient of CE_j - (R - b) log alpha_j for fixed picks and advantages") {
    GlimpseModel m = make(GlimpseMode::reinforce);
    const std::vector<int> picks = m.sample_picks(set, kBoth);
    const std::vector<float> advantages = {0.7f, -1.3f};
    m.reinforce_backward(set, kBoth, picks, advantages);
    check_model("reinforce", m.params(),
                [&] { return double(m.reinforce_surrogate(set, kBoth, picks, advantages)); });
  }
  SUBCASE("hard argmax: backprop gives the scorer exactly zero gradient") {
    GlimpseModel m = make(GlimpseMode::hard_argmax);
    m.forward_backward(set, kBoth);
    const ParamList p = m.params();
    for (Param* q : p)
      if (q->name.rfind("scorer", 0) == 0) CHECK(q->grad.isZero(0.0f));
    check_model("hard argmax", p, [&] { return double(m.loss(set, kBoth)); });
  }
}

// ---------------------------------------------------------------- 4 determinism
namespace {
std::vector<float> first_losses(RunKind kind, int steps, uint64_t seed = 1) {
  RunDesc d;
  d.kind = kind;
  d.seed = seed;
  d.distance = 8;
  TrainRun run(d);
  for (int i = 0; i < steps; ++i) run.step();
  return run.losses();
}
}  // namespace

TEST_CASE("determinism: the same seed gives bitwise-identical loss curves, another seed does not") {
  for (RunKind kind : {RunKind::translation_additive, RunKind::sentiment, RunKind::glimpse_reinforce,
                       RunKind::glimpse_gumbel, RunKind::long_range_lstm, RunKind::induction}) {
    CAPTURE(std::string(run_kind_name(kind)));
    const std::vector<float> a = first_losses(kind, 4), b = first_losses(kind, 4);
    CHECK(a == b);  // exact float equality, not approximate
    CHECK(first_losses(kind, 1, 2)[0] != a[0]);
  }
}

// Golden losses: the first steps of seeded runs, as exact hex floats, recorded
// natively (x86-64, g++ 12, -march=native). The WebAssembly build must give
// the same bits: the training path uses only + - * / sqrt (IEEE-exact), its own
// exp/log/tanh (fmath.h), fixed summation orders and no fused multiply-add.
// The one libm call left is the double sin/cos of the positional table, rounded
// to float (a difference would need the two libms to straddle a float
// rounding boundary).
TEST_CASE("determinism: golden first losses (native and WebAssembly must agree bit for bit)") {
  struct Golden {
    RunKind kind;
    std::vector<std::string> losses;
  };
  const Golden golden[] = {
      {RunKind::translation_additive, {"0x1.0659b8p+2", "0x1.02e22ap+2", "0x1.fb8994p+1"}},
      {RunKind::translation_none, {"0x1.02d958p+2", "0x1.fd8a46p+1", "0x1.f2a85cp+1"}},
      {RunKind::long_range_attention, {"0x1.7a5c1ap+1", "0x1.3da77ap+1", "0x1.3309aep+1"}},
      {RunKind::long_range_lstm, {"0x1.0bed3ep+1", "0x1.0914ap+1", "0x1.08a4d6p+1"}},
      {RunKind::sentiment, {"0x1.7530bp-1", "0x1.81d60ep-1", "0x1.be29f4p-1"}},
      {RunKind::birnn_attention, {"0x1.647152p-1", "0x1.698d36p-1", "0x1.5d07f6p-1"}},
      {RunKind::glimpse_reinforce, {"0x1.7a5402p+0", "0x1.67c4b6p+0", "0x1.66aebcp+0"}},
      {RunKind::glimpse_gumbel, {"0x1.5f6336p+0", "0x1.5a4e9cp+0", "0x1.621e58p+0"}},
      {RunKind::induction, {"0x1.77674ap+1", "0x1.6c4b58p+1", "0x1.71115ap+1"}},
  };
  for (const Golden& g : golden) {
    const std::vector<float> got = first_losses(g.kind, 3);
    std::string line;
    for (float x : got) line += "\"" + hex(x) + "\", ";
    MESSAGE(std::string(run_kind_name(g.kind)) << ": {" << line << "}");
    REQUIRE(got.size() == 3);
    REQUIRE(g.losses.size() == 3);
    for (size_t i = 0; i < 3; ++i) CHECK(hex(got[i]) == g.losses[i]);
  }
}

// Golden losses further on: every model the lab trains (the language models in
// test_char_lm), 40 steps, the last step's loss and the held-out loss as exact
// hex floats, recorded natively. The WebAssembly test run leaves out the long
// lesson runs (their claims are checked natively, scripts/lab test); this case
// is what carries those runs to WebAssembly: the same bits after 40 steps of
// every model, evaluation included.
TEST_CASE("determinism: golden losses after 40 steps, held-out loss included, of every model (native and WebAssembly agree)") {
  struct Golden {
    RunKind kind;
    const char* last;
    const char* heldout;
  };
  const Golden golden[] = {
      {RunKind::translation_none, "0x1.9a26a2p+0", "0x1.8a50a6p+0"},
      {RunKind::translation_additive, "0x1.6e3d04p+0", "0x1.5f5db8p+0"},
      {RunKind::translation_general, "0x1.70ae5p+0", "0x1.6e4a18p+0"},
      {RunKind::translation_dot, "0x1.aa2f84p+0", "0x1.9897cap+0"},
      {RunKind::long_range_rnn, "0x1.4192bap+0", "0x1.538312p+0"},
      {RunKind::long_range_lstm, "0x1.c62fbp+0", "0x1.c40d46p+0"},
      {RunKind::long_range_gru, "0x1.0a046ep+1", "0x1.0baf4ap+1"},
      {RunKind::long_range_attention, "0x1.0fe83p+1", "0x1.084a48p+1"},
      {RunKind::sentiment, "0x1.6c77c4p-1", "0x1.5a9f7p-1"},
      {RunKind::birnn_attention, "0x1.5483c6p-1", "0x1.536p-1"},
      {RunKind::birnn_average, "0x1.495db2p-1", "0x1.4cf7d6p-1"},
      {RunKind::glimpse_soft, "0x1.53c9f4p-2", "0x1.0f5b84p-2"},
      {RunKind::glimpse_hard_argmax, "0x1.0dc878p+0", "0x1.1d0e26p+0"},
      {RunKind::glimpse_reinforce, "0x1.dcb426p-1", "0x1.3b15acp-1"},
      {RunKind::glimpse_gumbel, "0x1.1da234p-1", "0x1.ca3e8p-2"},
      {RunKind::induction, "0x1.5d5b42p+1", "0x1.590a84p+1"},
      {RunKind::word_order_plain, "0x1.61f14ap-1", "0x1.646692p-1"},
      {RunKind::word_order_positions, "0x1.b0ba4p-5", "0x1.01052cp-5"},
      {RunKind::word_order_rnn, "0x1.e8afb4p-10", "0x1.0bd272p-9"},
  };
  size_t covered = 0;
  for (RunKind k : all_run_kinds())
    if (k != RunKind::lm_chinese && k != RunKind::lm_english) ++covered;
  CHECK(covered == sizeof(golden) / sizeof(golden[0]));  // a new model gets a line here
  for (const Golden& g : golden) {
    RunDesc d;
    d.kind = g.kind;
    TrainRun run(d);
    for (int i = 0; i < 40; ++i) run.step();
    REQUIRE(run.losses().size() == 40);
    const std::string last = hex(run.losses().back()), heldout = hex(run.evaluate().loss);
    MESSAGE("{RunKind::" << std::string(run_kind_name(g.kind)) << ", \"" << last << "\", \"" << heldout << "\"},");
    CHECK(last == g.last);
    CHECK(heldout == g.heldout);
  }
}

// ---------------------------------------------------------------- 5 convergence
TEST_CASE("convergence: seq2seq with additive attention translates held-out sentences, the alignment is learned") {
  // Measured (seed 1, batch 16, Adam 0.01, E 16, H 32): held-out greedy token
  // accuracy first reaches >= 95% at step 125 (checked every 25 steps); at step
  // 200 it is 99.2%. "。" gets weight ~1e-4 when producing "love".
  RunDesc d;
  d.kind = RunKind::translation_additive;
  TrainRun run(d);
  int reached = -1;
  for (int s = 25; s <= 200; s += 25) {
    run.run_for(1e9, 25);
    const float acc = run.evaluate().accuracy;
    if (reached < 0 && acc >= 0.95f) reached = s;
  }
  const Seq2SeqEval ev = run.translation()->evaluate(run.translation_data().heldout);
  const data::TranslationPair pair = data::showcase_pair(run.translation_data());
  const Mat A = run.translation()->alignment(pair.source_ids, pair.target_ids);  // (5, 4)
  const Seq2SeqDecode dec = run.translation()->greedy_decode(pair.source_ids);
  MESSAGE("held-out token accuracy " << ev.token_accuracy << ", sentence accuracy " << ev.sentence_accuracy
                                     << ", >= 95% first at step " << reached << "; weight of 。 for love " << A(1, 3)
                                     << ", of 爱 for love " << A(1, 1));
  CHECK(reached > 0);
  CHECK(reached <= 150);
  CHECK(ev.token_accuracy >= 0.97f);
  REQUIRE(A.rows() == 5);
  REQUIRE(A.cols() == 4);
  CHECK(A(1, 3) < 0.01f);  // the full stop gets almost no weight for "love"
  CHECK(A(1, 1) > 0.9f);   // "love" looks at 爱
  for (int t = 0; t < 4; ++t) {  // I->我, love->爱, China->中国, .->。
    int best = 0;
    for (int j = 1; j < 4; ++j)
      if (A(t, j) > A(t, best)) best = j;
    CHECK(best == t);
  }
  CHECK(run.translation_data().target_vocab.decode(dec.tokens) ==
        std::vector<std::string>{"I", "love", "China", ".", "<eos>"});
  CHECK(dec.alignment.rows() == 5);
}

TEST_CASE("convergence: the sentiment model of curriculum G reaches 97% on held-out reviews") {
  // Measured (seed 1, batch 32, Adam 0.005, d 32, 4 heads of 8): a plateau near
  // 91% (negated reviews) until ~step 350, then 100% at step 425 (the padding
  // step's convergence case pins it).
  RunDesc d;
  d.kind = RunKind::sentiment;
  TrainRun run(d);
  run.run_for(1e9, 450);
  const EvalResult ev = run.evaluate();
  MESSAGE("sentiment: held-out accuracy " << ev.accuracy << ", loss " << ev.loss << " after 450 steps");
  CHECK(ev.accuracy >= 0.97f);
  // The heads and the shape table.
  const data::Review& r = run.sentiment_data().test[0];
  const std::vector<Mat> heads = run.sentiment()->head_weights(r.ids);
  CHECK(heads.size() == 4);
  CHECK(heads[0].rows() == int(r.ids.size()));
  CHECK(heads[0].row(0).sum() == doctest::Approx(1.0));
  CHECK(run.sentiment()->attention_received(r.ids).rows() == 4);
  const std::vector<ShapeInfo> shapes = run.sentiment()->describe_shapes(80, 32);
  CHECK(shapes.size() == 16);  // with the padding mask: reviews are padded to the longest
  CHECK(shapes[1].name == "padding mask");
  bool found = false;
  for (const ShapeInfo& s : shapes) found |= s.shape == "(batch, h, n, n) = (32, 4, 80, 80)";
  CHECK(found);
  CHECK(run.sentiment()->desc().pad_length == 20);
  CHECK(run.sentiment()->desc().mask_padding);
}

namespace {
// Mean of alpha_t * n (1 = a uniform share) per word role over a review set.
std::vector<double> weight_by_role(BiRnnClassifier& m, const std::vector<data::Review>& set) {
  std::vector<double> sum(7, 0.0), count(7, 0.0);
  for (const data::Review& r : set) {
    const Mat w = m.word_weights(r.ids);
    for (size_t i = 0; i < r.words.size(); ++i) {
      const int role = int(data::sentiment_word_role(r.words[i]));
      sum[role] += double(w(0, long(i))) * double(r.words.size());
      count[role] += 1.0;
    }
  }
  for (int k = 0; k < 7; ++k) sum[k] = count[k] > 0 ? sum[k] / count[k] : 0.0;
  return sum;
}
}  // namespace

TEST_CASE("convergence: BiGRU attention pooling looks at sentiment words, not at names and places") {
  // Measured (seed 1, 100 steps): attention pooling 98.8% held out, average
  // pooling 88.3%; both reach 100% by step 150-200 (a BiGRU can carry the
  // sentiment to every position, so averaging works too here -- attention
  // pooling just learns faster). Weights x n (1 = a uniform share): positive
  // words 8.7, negative 8.9, names 0.48, places 0.11.
  RunDesc d;
  d.kind = RunKind::birnn_attention;
  TrainRun att(d);
  att.run_for(1e9, 100);
  d.kind = RunKind::birnn_average;
  TrainRun avg(d);
  avg.run_for(1e9, 100);
  const EvalResult ea = att.evaluate(), eb = avg.evaluate();
  const std::vector<double> w = weight_by_role(*att.birnn(), att.sentiment_data().test);
  const auto R = [&](data::WordRole r) { return w[int(r)]; };
  MESSAGE("after 100 steps: attention pooling " << ea.accuracy << ", average pooling " << eb.accuracy
                                                << "; weight x n: positive " << R(data::WordRole::positive)
                                                << ", negative " << R(data::WordRole::negative) << ", name "
                                                << R(data::WordRole::name) << ", place " << R(data::WordRole::place));
  CHECK(ea.accuracy >= 0.95f);
  CHECK(R(data::WordRole::positive) > 3.0);
  CHECK(R(data::WordRole::negative) > 3.0);
  CHECK(R(data::WordRole::name) < 1.0);
  CHECK(R(data::WordRole::place) < 1.0);
}

TEST_CASE("convergence: hard attention on the patch task -- REINFORCE and Gumbel learn where to look, plain backprop cannot") {
  // Measured (seed 1, 100 steps, batch 32): soft, REINFORCE and Gumbel-softmax
  // all reach 100% word accuracy and pick the right patch; hard argmax trained by
  // plain backprop never moves its scorer (zero gradient) and stays near 54%.
  for (RunKind kind : {RunKind::glimpse_soft, RunKind::glimpse_reinforce, RunKind::glimpse_gumbel,
                       RunKind::glimpse_hard_argmax}) {
    CAPTURE(std::string(run_kind_name(kind)));
    RunDesc d;
    d.kind = kind;
    TrainRun run(d);
    const ParamList before = run.glimpse()->params();
    const Mat scorer_W = before[0]->value;
    run.run_for(1e9, 100);
    const GlimpseEval ev = run.glimpse()->evaluate(run.patch_data().test);
    MESSAGE(std::string(run_kind_name(kind)) << ": word accuracy " << ev.accuracy << ", right patch " << ev.pick_accuracy
                                << ", weight on it " << ev.target_weight);
    if (kind == RunKind::glimpse_hard_argmax) {
      CHECK(run.glimpse()->params()[0]->value == scorer_W);  // the scorer never learned
      CHECK(ev.pick_accuracy < 0.5f);
      CHECK(ev.accuracy < 0.75f);
    } else {
      CHECK(ev.accuracy >= 0.95f);
      CHECK(ev.pick_accuracy >= 0.95f);
    }
  }
}

TEST_CASE("convergence: the self-attention classifier solves the long-range task at k = 16") {
  // Measured (seed 1, batch 32): 100% held-out after 150 steps (the RNN-versus-
  // attention sweep over k is the skipped test at the end of this file).
  RunDesc d;
  d.kind = RunKind::long_range_attention;
  d.distance = 16;
  TrainRun run(d);
  run.run_for(1e9, 150);
  const EvalResult ev = run.evaluate();
  MESSAGE("attention, k = 16, 150 steps: accuracy " << ev.accuracy);
  CHECK(ev.accuracy >= 0.95f);
  const auto w = run.long_range()->attention_weights(run.long_range_data().test[0].tokens);
  REQUIRE(w.size() == 1);
  REQUIRE(w[0].size() == 2);
  // Some head of the last position looks mostly at token 0, where the answer is.
  CHECK(std::max(w[0][0](16, 0), w[0][1](16, 0)) > 0.5f);
}

// ---------------------------------------------------------------- 6 timing and runs
TEST_CASE("timing: steps per second and the per-frame budget") {
  RunDesc d;
  d.kind = RunKind::glimpse_soft;
  const ModelSpeed s = measure_training_speed(d, 5);
  CHECK(s.timing.steps == 5);
  CHECK(s.timing.seconds > 0.0);
  CHECK(s.timing.steps_per_second > 0.0);
  CHECK(s.parameters == 16 * 16 + 16 + 16 + 16 * 4 + 4);
  TrainRun run(d);
  CHECK(run.run_for(0.0) == 1);          // at least one step
  CHECK(run.run_for(1e9, 3) == 3);       // at most max_steps
  CHECK(run.steps() == 4);
  CHECK(run.losses().size() == 4);
  for (RunKind k : all_run_kinds()) {
    RunKind parsed;
    REQUIRE(parse_run_kind(run_kind_name(k), &parsed));
    CHECK(parsed == k);
  }
}

// ---------------------------------------------------------------- 7 reports (skipped by default)
// Run with: test_train -tc="report*" --no-skip
TEST_CASE("report: accuracy against dependency distance, RNN / LSTM / GRU / attention, same budget" *
          doctest::skip()) {
  // Same data, batch (32) and budget (300 steps) for every model; three seeds.
  for (int k : {4, 16, 32, 64}) {
    for (RunKind kind : {RunKind::long_range_rnn, RunKind::long_range_lstm, RunKind::long_range_gru,
                         RunKind::long_range_attention}) {
      std::string line;
      double ms = 0.0;
      for (uint64_t seed : {1, 2, 3}) {
        RunDesc d;
        d.kind = kind;
        d.distance = k;
        d.seed = seed;
        TrainRun run(d);
        const StepTiming t = time_steps(300, [&] { return run.step(); });
        ms += 1000.0 * t.seconds / t.steps / 3.0;
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3f ", double(run.evaluate().accuracy));
        line += buf;
      }
      MESSAGE("k = " << k << "  " << std::string(run_kind_name(kind)) << ": accuracy (seeds 1, 2, 3) " << line
                     << " " << ms << " ms/step");
    }
  }
}

TEST_CASE("report: training steps per second of every model" * doctest::skip()) {
  for (const ModelSpeed& s : measure_all_training_speeds(30)) {
    MESSAGE(s.name << ": " << s.timing.steps_per_second << " steps/s (" << s.parameters << " parameters)");
  }
}

TEST_CASE("long-range at k = 64 with the lesson's 300 steps: the LSTM has not started to learn, the RNN has") {
  // lessons/rnn_vs_attention.lesson explains why the LSTM ends below the plain RNN
  // at k = 64 (forget gates near 0.73 leave ~2e-9 of the first symbol after 64
  // steps); this is the run behind its figures. A blind guess has loss ln 8.
  // The training loss, as means over the 12 windows of 25 steps.
  auto window_means = [](attn::train::RunKind kind) {
    attn::train::RunDesc d;
    d.kind = kind;
    d.distance = 64;
    d.batch_size = 16;
    attn::train::TrainRun run(d);
    for (int i = 0; i < 300; ++i) run.step();
    const std::vector<float>& losses = run.losses();
    std::vector<double> means;
    for (size_t w = 0; w + 25 <= losses.size(); w += 25) {
      double sum = 0.0;
      for (size_t i = w; i < w + 25; ++i) sum += losses[i];
      means.push_back(sum / 25.0);
    }
    return means;
  };
  const std::vector<double> lstm = window_means(attn::train::RunKind::long_range_lstm);
  const std::vector<double> rnn = window_means(attn::train::RunKind::long_range_rnn);
  REQUIRE(lstm.size() == 12);
  REQUIRE(rnn.size() == 12);
  std::string lstm_line, rnn_line;
  for (size_t i = 0; i < 12; ++i) {
    lstm_line += " " + std::to_string(lstm[i]).substr(0, 5);
    rnn_line += " " + std::to_string(rnn[i]).substr(0, 5);
  }
  MESSAGE("training loss by 25-step window at k = 64 (chance " << std::log(8.0) << "): LSTM" << lstm_line << "; RNN" << rnn_line);
  // The gates step: the LSTM's loss "stays at ln 8 ≈ 2.08 for all 300 steps";
  // the RNN brings its loss "down to about 1.6".
  for (size_t i = 0; i < 12; ++i) {
    CAPTURE(i);
    CHECK(std::abs(lstm[i] - std::log(8.0)) < 0.05);
  }
  CHECK(std::abs(rnn.back() - 1.6) < 0.1);
}

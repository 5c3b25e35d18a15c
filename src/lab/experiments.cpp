// experiments.cpp: the live experiments behind the train_* and timing demos.
//
// Sections 1 (clock and helpers) and 2 (TrainingExperiment: lockstep training,
// chunked evaluation, curves, progress) are in experiments_internal.h, shared
// with experiment_order.cpp (train_word_order, E3); here: 3 train_translation (C1, C2),
// 4 train_long_range (E1, E4), 5 train_pooling (E2), 6 train_sentiment (G),
// 7 train_hard_attention (B2), 7b train_induction (D4, issue 15), 8 timing (D5),
// 9 the factory.
#include "lab/experiments.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>

#include "attn/timing.h"
#include "base/number_text.h"
#include "lab/demos_internal.h"
#include "lab/experiments_internal.h"
#include "train/train_run.h"

namespace attn {
namespace {

using namespace experiment_impl;

// ---------------------------------------------------------------- 3 train_translation
// 我 爱 中国 。 -> I love China . : the decoder state is the query, the encoder
// states are keys and values; the alignment comes from the translation loss alone.
class TranslationExperiment : public TrainingExperiment {
 public:
  explicit TranslationExperiment(const DemoInputs& in) {
    attention_ = text_or(in, "attention", "additive");
    compare_ = text_or(in, "compare", "off") == "on";
    const train::RunDesc base = seeded(in);
    train::RunKind kind = train::RunKind::translation_additive;
    train::parse_run_kind("translation_" + attention_, &kind);
    const std::map<std::string, std::string> zh = {{"additive", "加性注意力"}, {"general", "一般式注意力"}, {"dot", "点积注意力"}};
    add_track(attention_ + " attention", zh.count(attention_) ? zh.at(attention_) : attention_ + " 注意力", kind, base);
    if (compare_) add_track("no attention", "无注意力", train::RunKind::translation_none, base);
    set_budget(setting_or(in, "steps", 300), 20);
    set_view_setting("example", text_or(in, "example", "0"));
    set_view_setting("force_step", text_or(in, "force_step", "-1"));
    set_view_setting("force_source", text_or(in, "force_source", "0"));
  }

  // Forcing an alignment only changes what is decoded: no retraining.
  bool set_view_setting(const std::string& name, const std::string& value) override {
    long long k = 0;
    if (name == "force_step") {
      force_.step = parse_whole_text(value, -1, 9, &k) ? int(k) : -1;
      return true;
    }
    if (name == "force_source") {
      force_.source = parse_whole_text(value, 0, 9, &k) ? int(k) : 0;
      return true;
    }
    return TrainingExperiment::set_view_setting(name, value);
  }

 protected:
  LocalText accuracy_name() const override { return tr("token accuracy", "词准确率"); }

  // The decoded words as text.
  std::string words(const std::vector<int>& ids) const {
    const data::Vocab& tv = tracks()[0].run->translation_data().target_vocab;
    std::string s;
    for (int id : ids) s += (s.empty() ? "" : " ") + tv.words[size_t(id)];
    return s;
  }
  // The forced decode of the shown sentence, when the force applies to it.
  bool forcing(const data::TranslationPair& p) const {
    return force_.step >= 0 && force_.source < int(p.source.size());
  }

  void add_controls(DemoOutputs& out) const override {
    out.panels.push_back(demo_impl::choice_panel("attention", tr("Score of the attention model", "注意力模型的打分函数"),
                                                 {"additive", "general", "dot"},
                                                 {tr("additive (Bahdanau)", "加性（Bahdanau）"), tr("general (Luong)", "一般式（Luong）"),
                                                  tr("dot (Luong)", "点积（Luong）")}));
    out.panels.push_back(demo_impl::choice_panel("compare", tr("Side by side with a model without attention", "与不带注意力的模型并排比较"),
                                                 {"off", "on"}, {tr("off", "关"), tr("on", "开")}));
  }

  // The sentence shown: 0 = the showcase pair, k = the k-th held-out sentence.
  const data::TranslationPair* pair() const {
    if (!prepared()) return nullptr;
    const train::TrainRun& run = *tracks()[0].run;
    const data::TranslationCorpus& c = run.translation_data();
    if (example() > 0 && size_t(example()) <= c.heldout.size()) return &c.heldout[size_t(example() - 1)];
    for (const auto& p : c.train)
      if (data::join_words(p.source) == "我 爱 中国 。") return &p;
    return c.train.empty() ? nullptr : &c.train[0];
  }

  void add_panels(DemoOutputs& out) const override {
    const data::TranslationPair* p = pair();
    Mat alignment = Mat::Zero(1, 1);
    std::vector<std::string> rows = {"…"}, cols = {"…"};
    LocalText decoded;
    if (p) {
      const train::Seq2SeqModel& model = *static_cast<const train::TrainRun&>(*tracks()[0].run).translation();
      alignment = model.alignment(p->source_ids, p->target_ids);  // (m + 1, S)
      cols = p->source;
      rows = p->target;
      rows.push_back("<eos>");
      const train::Seq2SeqDecode d = model.greedy_decode(p->source_ids, int(p->target.size()) + 4);
      const data::Vocab& tv = tracks()[0].run->translation_data().target_vocab;
      std::string chain = "<bos>";
      for (int id : d.tokens) chain += " → " + tv.words[size_t(id)];
      add_line(decoded, "Greedy decoding from the begin token: " + chain,
               "从开始符号出发的贪心解码：" + chain);
      add_line(decoded, "Reference: " + data::join_words(p->target), "参考译文：" + data::join_words(p->target));
      for (size_t t = 0; t < d.tokens.size() && Eigen::Index(t) < d.alignment.rows(); ++t) {
        const Eigen::Index j = demo_impl::row_argmax(d.alignment, Eigen::Index(t));
        const std::string word = tv.words[size_t(d.tokens[t])];
        add_line(decoded, "step " + std::to_string(t + 1) + ": query = decoder state after reading \"" +
                              (t == 0 ? std::string("<bos>") : tv.words[size_t(d.tokens[t - 1])]) + "\" → \"" + word +
                              "\", most weight on " + p->source[size_t(j)] + " (" + fmt(d.alignment(Eigen::Index(t), j)) + ")",
                 "第 " + std::to_string(t + 1) + " 步：查询 = 读入 “" +
                     (t == 0 ? std::string("<bos>") : tv.words[size_t(d.tokens[t - 1])]) + "” 后的解码器状态 → “" + word +
                     "”，权重最大的是 " + p->source[size_t(j)] + "（" + fmt(d.alignment(Eigen::Index(t), j)) + "）");
      }
      // The intervention: one output word made to read one source word only.
      if (force_.step >= 0) {
        if (!forcing(*p)) {
          add_line(decoded, "Forcing: this sentence has no source word " + std::to_string(force_.source) + " (it has " +
                                std::to_string(p->source.size()) + ", counted from 0).",
                   "强制对齐：这个句子没有第 " + std::to_string(force_.source) + " 个源词（它有 " +
                       std::to_string(p->source.size()) + " 个，从 0 开始数）。");
        } else {
          const train::Seq2SeqDecode f = model.greedy_decode(p->source_ids, int(p->target.size()) + 4, &force_);
          const std::string src = p->source[size_t(force_.source)];
          const std::string was = force_.step < int(d.tokens.size()) ? tv.words[size_t(d.tokens[size_t(force_.step)])] : "-";
          const std::string now = force_.step < int(f.tokens.size()) ? tv.words[size_t(f.tokens[size_t(force_.step)])] : "-";
          add_line(decoded, "Forced: output word " + std::to_string(force_.step + 1) + " reads only " + src + " (all its weight there): \"" +
                                was + "\" becomes \"" + now + "\". Decoded: <bos> → " + words(f.tokens),
                   "强制对齐：第 " + std::to_string(force_.step + 1) + " 个输出词只读 " + src + "（全部权重放在那里）：“" + was +
                       "” 变成 “" + now + "”。解码结果：<bos> → " + words(f.tokens));
        }
      }
    } else {
      add_line(decoded, "The decoded sentence appears here once the model is built.", "模型建好后，这里显示解码结果。");
    }
    out.mats["alignment"] = alignment;
    out.panels.push_back(demo_impl::heatmap_panel("alignment", "alignment",
                                                  tr("Alignment α: one row per English word (teacher forcing)",
                                                     "对齐 α：每个英文词一行（教师强制）"),
                                                  rows, cols, true));
    out.panels.push_back(demo_impl::arrows_panel("arrows", "alignment", tr("The same weights as arrows", "同样的权重，画成箭头"),
                                                 rows, cols));
    out.panels.push_back(demo_impl::note_panel("decode", tr("Decoding, one query per output word", "解码：每个输出词一个查询"), decoded));
    out.panels.push_back(demo_impl::slider_panel("example", tr("Sentence: 0 = 我爱中国。, 1-9 = held-out sentences",
                                                              "句子：0 = 我爱中国。，1-9 = 留出集中的句子"),
                                                 0.0f, 9.0f, 1.0f));
    out.panels.push_back(demo_impl::slider_panel("force_step", tr("Force the alignment of output word k + 1 (-1: off)",
                                                                 "强制第 k + 1 个输出词的对齐（-1：不改）"),
                                                 -1.0f, 9.0f, 1.0f));
    out.panels.push_back(demo_impl::slider_panel("force_source", tr("... onto source word j (counted from 0)",
                                                                   "……对到第 j 个源词上（从 0 开始数）"),
                                                 0.0f, 9.0f, 1.0f));
  }

  void add_status(Value& s) const override {
    const data::TranslationPair* p = pair();
    if (!p) return;
    const train::Seq2SeqModel& model = *static_cast<const train::TrainRun&>(*tracks()[0].run).translation();
    const Mat a = model.alignment(p->source_ids, p->target_ids);
    Value o = Value::object();
    o.set("source", data::join_words(p->source));
    o.set("target", data::join_words(p->target));
    // Weight on the last source word (the full stop) while producing word 2 ("love").
    if (a.rows() > 1 && a.cols() > 0) o.set("stopWeightForWord2", a(1, a.cols() - 1));
    const int max_length = int(p->target.size()) + 4;
    o.set("decoded", words(model.greedy_decode(p->source_ids, max_length).tokens));
    if (forcing(*p)) o.set("forcedDecoded", words(model.greedy_decode(p->source_ids, max_length, &force_).tokens));
    s.set("example", std::move(o));
  }

 private:
  train::Seq2SeqForce force_;
  std::string attention_;
  bool compare_ = false;
};

// ---------------------------------------------------------------- 4 train_long_range
// "Output the token seen k steps earlier" for an RNN, an LSTM and self-attention,
// with k set by the learner; each finished run adds its accuracy to a table of
// accuracy against distance that survives changing k.
class LongRangeExperiment : public TrainingExperiment {
 public:
  explicit LongRangeExperiment(const DemoInputs& in) {
    base_.seed = uint64_t(setting_or(in, "seed", 1));
    base_.distance = setting_or(in, "distance", 16);
    base_.batch_size = 16;  // half the default: one LSTM step at k = 64 must fit in a frame
    add_track("RNN", "RNN", train::RunKind::long_range_rnn, base_);
    add_track("LSTM", "LSTM", train::RunKind::long_range_lstm, base_);
    add_track("attention", "注意力", train::RunKind::long_range_attention, base_);
    set_budget(setting_or(in, "steps", 300), 25);
  }

  bool set_view_setting(const std::string& name, const std::string& value) override {
    if (name != "distance") return TrainingExperiment::set_view_setting(name, value);
    long long k = 0;
    if (!parse_whole_text(value, 1, 64, &k)) return false;
    base_.distance = int(k);
    restart(base_);  // the table of finished runs stays
    return true;
  }

 protected:
  void on_evaluated() override {
    if (!done()) return;
    std::vector<float>& row = results_[base_.distance];
    row.clear();
    for (const Track& t : tracks()) row.push_back(t.last.accuracy * 100.0f);
  }

  void add_controls(DemoOutputs& out) const override {
    out.panels.push_back(demo_impl::choice_panel("distance", tr("Distance k: the answer is k tokens before the last one",
                                                                "距离 k：答案在最后一个词元之前 k 个位置"),
                                                 {"4", "16", "32", "64"}));
  }

  void add_panels(DemoOutputs& out) const override {
    const std::vector<int> ks = {4, 16, 32, 64};
    Mat table = Mat::Zero(Eigen::Index(tracks().size()), Eigen::Index(ks.size()));  // (models, distances)
    std::vector<std::string> names, kcols;
    for (const Track& t : tracks()) names.push_back(t.name);
    for (size_t c = 0; c < ks.size(); ++c) {
      kcols.push_back("k=" + std::to_string(ks[c]));
      auto it = results_.find(ks[c]);
      if (it == results_.end()) continue;
      for (size_t r = 0; r < it->second.size(); ++r) table(Eigen::Index(r), Eigen::Index(c)) = it->second[r];
    }
    out.mats["by_distance"] = table;
    out.panels.push_back(demo_impl::bars_panel("by-distance", "by_distance",
                                               tr("Held-out accuracy (%) after the full budget, by distance (runs you finished)",
                                                  "跑完全部步数后的留出集准确率（%），按距离（你跑完的那些）"),
                                               names, kcols));
    Mat per_step(1, Eigen::Index(tracks().size()));
    for (size_t i = 0; i < tracks().size(); ++i) per_step(0, Eigen::Index(i)) = float(tracks()[i].ms_per_step());
    out.mats["ms_per_step"] = per_step;
    out.panels.push_back(demo_impl::bars_panel("time", "ms_per_step",
                                               tr("Milliseconds per training step, measured here", "每个训练步的毫秒数（在这里实测）"),
                                               {""}, names));
    LocalText t;
    add_line(t, "Chance is 1 in 8 (12.5%): the alphabet has 8 symbols.", "随机猜的准确率是 1/8（12.5%）：字母表有 8 个符号。");
    add_line(t, "Sequence length k + 1 = " + std::to_string(base_.distance + 1) + "; the RNN and the LSTM pass the answer through " +
                    std::to_string(base_.distance) + " state updates, attention reads it in one step.",
             "序列长度 k + 1 = " + std::to_string(base_.distance + 1) + "；RNN 和 LSTM 要把答案经过 " + std::to_string(base_.distance) +
                 " 次状态更新传下去，注意力一步就能读到。");
    out.panels.push_back(demo_impl::note_panel("task", tr("The task", "任务"), t));
  }

  void add_status(Value& s) const override {
    s.set("distance", base_.distance);
    Value r = Value::object();
    for (const auto& [k, row] : results_) {
      Value a = Value::array();
      for (float v : row) a.push(v);
      r.set(std::to_string(k), std::move(a));
    }
    s.set("byDistance", std::move(r));
  }

 private:
  train::RunDesc base_;
  std::map<int, std::vector<float>> results_;  // k -> held-out accuracy (%) per track
};

// ---------------------------------------------------------------- 5 train_pooling
// BiGRU outputs pooled by attention against a plain average (curriculum E2).
class PoolingExperiment : public TrainingExperiment {
 public:
  explicit PoolingExperiment(const DemoInputs& in) {
    const train::RunDesc base = seeded(in);
    add_track("attention pooling", "注意力池化", train::RunKind::birnn_attention, base);
    add_track("average pooling", "平均池化", train::RunKind::birnn_average, base);
    set_budget(setting_or(in, "steps", 200), 25);
    set_view_setting("example", text_or(in, "example", "0"));
  }

 protected:
  const train::BiRnnClassifier& model(size_t i) const { return *static_cast<const train::TrainRun&>(*tracks()[i].run).birnn(); }

  // Where the attention-pooling model puts its weight, over the first 200 test reviews.
  void on_evaluated() override {
    const auto& test = tracks()[0].run->sentiment_data().test;
    double sentiment = 0.0, names = 0.0;
    const size_t n = std::min<size_t>(test.size(), 200);
    for (size_t i = 0; i < n; ++i) {
      const Mat w = model(0).word_weights(test[i].ids);  // (1, words)
      for (size_t j = 0; j < test[i].words.size() && Eigen::Index(j) < w.cols(); ++j) {
        const data::WordRole role = data::sentiment_word_role(test[i].words[j]);
        if (role == data::WordRole::positive || role == data::WordRole::negative || role == data::WordRole::negation)
          sentiment += w(0, Eigen::Index(j));
        if (role == data::WordRole::name || role == data::WordRole::place) names += w(0, Eigen::Index(j));
      }
    }
    sentiment_share_ = n ? float(sentiment / double(n)) : 0.0f;
    name_share_ = n ? float(names / double(n)) : 0.0f;
  }

  void add_panels(DemoOutputs& out) const override {
    const data::Review* r = review();
    Mat weights = Mat::Zero(2, 1);
    std::vector<std::string> words = {"…"};
    LocalText t;
    if (r) {
      words = r->words;
      weights = Mat(2, Eigen::Index(words.size()));
      for (size_t i = 0; i < 2; ++i) weights.row(Eigen::Index(i)) = model(i).word_weights(r->ids).row(0);
      const std::string label = r->label ? "positive" : "negative", label_zh = r->label ? "正面" : "负面";
      add_line(t, "True label: " + label + ". p(positive): attention pooling " + fmt(model(0).predict(r->ids)) +
                      ", average pooling " + fmt(model(1).predict(r->ids)),
               "真实标签：" + label_zh + "。p(正面)：注意力池化 " + fmt(model(0).predict(r->ids)) + "，平均池化 " +
                   fmt(model(1).predict(r->ids)));
    }
    add_line(t, "Attention pooling's weight, averaged over 200 test reviews: sentiment and negation words " + fmt(sentiment_share_) +
                    ", names and places " + fmt(name_share_),
             "注意力池化的权重（200 条测试评论的平均）：情感词和否定词 " + fmt(sentiment_share_) + "，人名和地名 " + fmt(name_share_));
    // One row per word (words are wider than cells): (n, 2).
    out.mats["word_weights"] = weights.transpose();
    out.panels.push_back(demo_impl::heatmap_panel("words", "word_weights", tr("Pooling weight of each word", "每个词的池化权重"),
                                                  words, {"attention", "average"}, true));
    out.panels.push_back(demo_impl::note_panel("review", tr("This review", "这条评论"), t));
    out.panels.push_back(demo_impl::slider_panel("example", tr("Test review", "测试评论"), 0.0f, 29.0f, 1.0f));
  }

  void add_status(Value& s) const override {
    s.set("sentimentShare", sentiment_share_);
    s.set("nameShare", name_share_);
  }

 private:
  float sentiment_share_ = 0.0f, name_share_ = 0.0f;
};

// ---------------------------------------------------------------- 6 train_sentiment
// Curriculum G: embedding -> positional encoding -> multi-head self-attention ->
// average pooling -> dropout(0.5) -> dense(1, sigmoid), BCE + Adam. The learner
// sets the position encoding (none, sum, concat), the heads at a fixed width
// (1, 2, 4, 8) and dropout (on, off), and can train a second model B with its
// own three settings in lockstep. Each evaluation also splits the held-out
// accuracy into reviews with a negation word (not, never, 不) and without.
class SentimentExperiment : public TrainingExperiment {
 public:
  explicit SentimentExperiment(const DemoInputs& in) {
    compare_ = text_or(in, "compare", "off") == "on";
    const Model a = model_setting(in, ""), b = model_setting(in, "_b");
    const std::string name_a = a.name(), name_b = b.name() == name_a ? b.name() + " (B)" : b.name();
    add_track(name_a, a.name_zh(), train::RunKind::sentiment, a.desc(seeded(in)));
    if (compare_) add_track(name_b, b.name_zh() + (b.name() == name_a ? "（B）" : ""), train::RunKind::sentiment, b.desc(seeded(in)));
    set_budget(setting_or(in, "steps", 600), 25);
    set_view_setting("example", text_or(in, "example", "0"));
    set_view_setting("head", text_or(in, "head", "1"));
  }

  bool set_view_setting(const std::string& name, const std::string& value) override {
    if (name != "head") return TrainingExperiment::set_view_setting(name, value);
    long long k = 1;
    head_ = parse_whole_text(value, 1, 8, &k) ? int(k) : 1;
    return true;
  }

 protected:
  // One model's three settings, as the registry checked them.
  struct Model {
    std::string position = "sum", dropout = "on";
    int heads = 4;
    train::RunDesc desc(train::RunDesc base) const {
      train::parse_position_mode(position, &base.position);
      base.heads = heads;
      base.dropout = dropout == "on" ? 0.5f : 0.0f;
      return base;
    }
    std::string name() const {
      return "PE " + position + ", " + std::to_string(heads) + (heads == 1 ? " head" : " heads") + ", dropout " + dropout;
    }
    std::string name_zh() const {
      const std::string pe = position == "none" ? "无位置编码" : position == "sum" ? "位置编码相加" : "位置编码拼接";
      return pe + "，" + std::to_string(heads) + " 个头，dropout " + (dropout == "on" ? "开" : "关");
    }
  };
  static Model model_setting(const DemoInputs& in, const std::string& suffix) {
    Model m;
    m.position = text_or(in, "position" + suffix, "sum");
    m.heads = setting_or(in, "heads" + suffix, suffix.empty() ? 4 : 1);
    m.dropout = text_or(in, "dropout" + suffix, "on");
    return m;
  }

  const train::SentimentModel& model(size_t i) const { return *static_cast<const train::TrainRun&>(*tracks()[i].run).sentiment(); }

  // Held-out reviews with and without a negation word, counted as they are evaluated.
  void on_eval_chunk(int begin, int end) override {
    const auto& test = tracks()[0].run->sentiment_data().test;
    if (begin == 0) split_partial_.assign(tracks().size(), SplitCount());
    for (int i = std::max(0, begin); i < std::min(end, int(test.size())); ++i) {
      const data::Review& r = test[size_t(i)];
      bool negated = false;
      for (const std::string& w : r.words) negated |= data::sentiment_word_role(w) == data::WordRole::negation;
      for (size_t t = 0; t < tracks().size(); ++t) {
        const bool right = (model(t).predict(r.ids) > 0.5f) == (r.label == 1);
        SplitCount& c = split_partial_[t];
        (negated ? c.negated : c.plain) += 1;
        (negated ? c.negated_right : c.plain_right) += right ? 1 : 0;
      }
    }
  }
  void on_evaluated() override { split_ = split_partial_; }

  void add_controls(DemoOutputs& out) const override {
    auto model_controls = [&](const std::string& suffix, const std::string& who_en, const std::string& who_zh) {
      out.panels.push_back(demo_impl::choice_panel("position" + suffix, tr(who_en + "position encoding", who_zh + "位置编码"),
                                                   {"none", "sum", "concat"},
                                                   {tr("none", "不用"), tr("sum: X + PE", "相加：X + PE"),
                                                    tr("concat: [X (16) | PE (16)]", "拼接：[X (16) | PE (16)]")}));
      out.panels.push_back(demo_impl::choice_panel("heads" + suffix,
                                                   tr(who_en + "heads (d_h = 32 / heads)", who_zh + "头数（d_h = 32 / 头数）"),
                                                   {"1", "2", "4", "8"}));
      out.panels.push_back(demo_impl::choice_panel("dropout" + suffix, tr(who_en + "dropout 0.5 after pooling", who_zh + "池化之后的 dropout 0.5"),
                                                   {"on", "off"}, {tr("on", "开"), tr("off", "关")}));
    };
    model_controls("", "", "");
    out.panels.push_back(demo_impl::choice_panel("compare", tr("Train a second model B alongside, in lockstep", "同步训练第二个模型 B，并排比较"),
                                                 {"off", "on"}, {tr("off", "关"), tr("on", "开")}));
    if (compare_) model_controls("_b", "Model B: ", "模型 B：");
  }

  void add_panels(DemoOutputs& out) const override {
    const data::Review* r = review();
    LocalText layers, shapes, t;
    Mat received = Mat::Zero(4, 1), weights = Mat::Zero(1, 1);  // (h, n), (n, n)
    std::vector<std::string> words = {"…"}, heads;
    int shown_head = head_;
    if (r) {
      const train::SentimentModel& m = model(0);
      const int n = int(r->words.size());
      add_line(layers, "Keras layer: output shape  (what it holds here)", "Keras 层：输出形状（这里的含义）");
      for (const train::ShapeInfo& info : m.describe_layers(n))
        add_line(layers, info.name + ": " + info.shape + "  " + info.note, info.name + ": " + info.shape + "  " + info.note);
      for (const train::ShapeInfo& info : m.describe_shapes(n))
        add_line(shapes, info.name + ": " + info.shape + "  " + info.note, info.name + ": " + info.shape + "  " + info.note);
      received = m.attention_received(r->ids);  // (h, n)
      const std::vector<Mat> P = m.head_weights(r->ids);
      shown_head = std::min(head_, int(P.size()));
      weights = P[size_t(shown_head - 1)];
      words = r->words;
      for (size_t i = 0; i < tracks().size(); ++i) {
        const float p = model(i).predict(r->ids);
        const bool right = (p > 0.5f) == (r->label == 1);
        const std::string who = tracks().size() > 1 ? tracks()[i].name + ": " : "";
        const std::string who_zh = tracks().size() > 1 ? tracks()[i].shown.get("zh") + "：" : "";
        add_line(t, who + "p(positive) = " + fmt(p) + (right ? " (right)" : " (wrong)"),
                 who_zh + "p(正面) = " + fmt(p) + (right ? "（正确）" : "（错误）"));
      }
      add_line(t, std::string("True label: ") + (r->label ? "positive" : "negative") + ".",
               std::string("真实标签：") + (r->label ? "正面" : "负面") + "。");
    } else {
      add_line(layers, "The layer table appears once the model is built.", "模型建好后显示各层。");
      add_line(shapes, "The shapes appear once the model is built.", "模型建好后显示各张量的形状。");
      add_line(t, "The prediction appears once the model is built.", "模型建好后显示预测。");
    }
    for (Eigen::Index h = 0; h < received.rows(); ++h) heads.push_back("head " + std::to_string(h + 1));
    out.panels.push_back(demo_impl::shapes_panel("layers", tr("The layer stack, named as in the Keras code (batch of 32)",
                                                              "层的堆叠，用 Keras 代码里的名字（批大小 32）"), layers));
    out.panels.push_back(demo_impl::shapes_panel("shapes", tr("Every tensor, for this review (batch of 32)", "每个张量（这条评论，批大小 32）"), shapes));
    out.mats["received"] = received.transpose();  // (n, h): one row per word
    out.panels.push_back(demo_impl::heatmap_panel("received", "received",
                                                  tr("Attention each word receives, per head (column means)", "每个词得到的注意力，按头（列平均）"),
                                                  words, heads, false));
    out.mats["head_weights"] = weights;
    out.panels.push_back(demo_impl::heatmap_panel("head-weights", "head_weights",
                                                  tr("Head " + std::to_string(shown_head) + ": one row per word, how it spreads its attention",
                                                     "头 " + std::to_string(shown_head) + "：每个词一行，它把注意力分给了谁"),
                                                  words, words, true));
    out.panels.push_back(demo_impl::note_panel("prediction", tr("Prediction", "预测"), t));
    out.panels.push_back(demo_impl::slider_panel("example", tr("Test review", "测试评论"), 0.0f, 29.0f, 1.0f));
    out.panels.push_back(demo_impl::slider_panel("head", tr("Head shown in full (1 to the number of heads)", "完整显示的头（1 到头数）"),
                                                 1.0f, 8.0f, 1.0f));
    // Held-out accuracy (%) of the newest evaluation, reviews with a negation word and without: (models, 2).
    Mat split = Mat::Zero(Eigen::Index(tracks().size()), 2);
    std::vector<std::string> names;
    for (size_t i = 0; i < tracks().size(); ++i) {
      names.push_back(tracks()[i].name);
      if (i < split_.size()) {
        split(Eigen::Index(i), 0) = split_[i].negated_accuracy();
        split(Eigen::Index(i), 1) = split_[i].plain_accuracy();
      }
    }
    out.mats["by_negation"] = split;
    out.panels.push_back(demo_impl::bars_panel("by-negation", "by_negation",
                                               tr("Held-out accuracy (%): reviews with not / never / 不, and without",
                                                  "留出集准确率（%）：含 not / never / 不 的评论，和不含的评论"),
                                               names, {"negated", "plain"}));
  }

  void add_status(Value& s) const override {
    Value a = Value::array();
    for (const SplitCount& c : split_) {
      Value o = Value::object();
      o.set("negated", c.negated_accuracy());
      o.set("plain", c.plain_accuracy());
      o.set("negatedCount", c.negated);
      a.push(std::move(o));
    }
    s.set("byNegation", std::move(a));
    s.set("head", head_);
  }

 private:
  struct SplitCount {
    int negated = 0, negated_right = 0, plain = 0, plain_right = 0;
    float negated_accuracy() const { return negated ? 100.0f * float(negated_right) / float(negated) : 0.0f; }
    float plain_accuracy() const { return plain ? 100.0f * float(plain_right) / float(plain) : 0.0f; }
  };
  bool compare_ = false;
  int head_ = 1;
  std::vector<SplitCount> split_partial_, split_;
};

// ---------------------------------------------------------------- 7 train_hard_attention
// One patch of the image holds the answer: soft attention, hard attention with
// plain backpropagation (cannot learn where to look), REINFORCE, Gumbel-softmax.
class HardAttentionExperiment : public TrainingExperiment {
 public:
  explicit HardAttentionExperiment(const DemoInputs& in) {
    const train::RunDesc base = seeded(in);
    add_track("soft", "软注意力", train::RunKind::glimpse_soft, base);
    add_track("hard, backprop", "硬注意力，反向传播", train::RunKind::glimpse_hard_argmax, base);
    add_track("hard, REINFORCE", "硬注意力，REINFORCE", train::RunKind::glimpse_reinforce, base);
    add_track("hard, Gumbel", "硬注意力，Gumbel", train::RunKind::glimpse_gumbel, base);
    set_budget(setting_or(in, "steps", 600), 50);
    set_view_setting("example", text_or(in, "example", "0"));
  }

 protected:
  LocalText accuracy_name() const override { return tr("caption accuracy", "描述词准确率"); }

  void add_panels(DemoOutputs& out) const override {
    const int grid = 3;
    Mat pixels = Mat::Zero(grid * data::kPatchSide, grid * data::kPatchSide);
    Mat weights = Mat::Zero(Eigen::Index(tracks().size()), grid * grid);  // (models, patches)
    std::vector<std::string> names, patches, pr, pc;
    LocalText t;
    for (const Track& k : tracks()) names.push_back(k.name);
    for (int j = 0; j < grid * grid; ++j) patches.push_back("p" + std::to_string(j + 1));
    for (int i = 0; i < grid * data::kPatchSide; ++i) pr.push_back(""), pc.push_back("");
    if (!prepared()) add_line(t, "The models' picks appear here once they are built.", "模型建好后，这里显示各模型的选择。");
    if (prepared()) {
      const auto& test = tracks()[0].run->patch_data().test;
      const data::PatchImage& image = test[size_t(example()) % test.size()];
      pixels = data::image_pixels(image, grid);
      for (size_t i = 0; i < tracks().size(); ++i)
        weights.row(Eigen::Index(i)) = static_cast<const train::TrainRun&>(*tracks()[i].run).glimpse()->weights(image).row(0);
      add_line(t, "The bright " + std::string(data::shape_word(image.label)) + " is in patch p" + std::to_string(image.target_patch + 1) +
                      " (patches are numbered row by row).",
               "明亮的 " + std::string(data::shape_word(image.label)) + " 在图块 p" + std::to_string(image.target_patch + 1) +
                   " 里（图块逐行编号）。");
      for (size_t i = 0; i < tracks().size(); ++i) {
        const Eigen::Index j = demo_impl::row_argmax(weights, Eigen::Index(i));
        add_line(t, tracks()[i].name + " looks at p" + std::to_string(j + 1) + " (weight " + fmt(weights(Eigen::Index(i), j)) + ")",
                 tracks()[i].shown.get("zh") + " 看向 p" + std::to_string(j + 1) + "（权重 " + fmt(weights(Eigen::Index(i), j)) + "）");
      }
    }
    out.mats["image"] = pixels;
    out.mats["patch_weights"] = weights;
    out.panels.push_back(demo_impl::heatmap_panel("image", "image", tr("The image: 3 x 3 patches of 4 x 4 pixels", "图像：3 x 3 个图块，每块 4 x 4 像素"),
                                                  pr, pc, true));
    out.panels.push_back(demo_impl::heatmap_panel("where", "patch_weights", tr("Where each model looks (attention over patches)", "每个模型看向哪里（对图块的注意力）"),
                                                  names, patches, true));
    out.panels.push_back(demo_impl::note_panel("picks", tr("Picks", "选择"), t));
    out.panels.push_back(demo_impl::slider_panel("example", tr("Test image", "测试图像"), 0.0f, 29.0f, 1.0f));
  }
};

// ---------------------------------------------------------------- 7b train_induction
// A two-layer attention-only decoder learns to continue repeated random tokens:
// the loss on the repeated half drops once a layer-1 head looks at the previous
// token and a layer-2 head at the token after the earlier occurrence of the
// current one. Every head's pattern, its scores, and a head switched off
// without retraining.
class InductionExperiment : public TrainingExperiment {
 public:
  explicit InductionExperiment(const DemoInputs& in) {
    add_track("induction model", "归纳模型", train::RunKind::induction, seeded(in));
    set_budget(setting_or(in, "steps", 600), 25);
    set_view_setting("example", text_or(in, "example", "0"));
    set_view_setting("scale", text_or(in, "scale", "0"));
    set_view_setting("ablate", text_or(in, "ablate", "none"));
    set_view_setting("redirect", text_or(in, "redirect", "-1"));
    set_view_setting("prompt", text_or(in, "prompt", ""));
    // A step that gives `row` gets an editor for one attention row.
    if (auto it = in.mats.find("row"); it != in.mats.end()) {
      has_row_ = true;
      row_ = it->second;
    }
  }

  bool set_view_matrix(const std::string& name, const Mat& m) override {
    if (name != "row" || !has_row_) return false;
    row_ = m;
    return true;
  }

  bool set_view_setting(const std::string& name, const std::string& value) override {
    if (name == "prompt") {
      // Validated by the registry (check_induction_prompt); anything else shows no prompt.
      std::string why;
      prompt_.clear();
      if (!parse_induction_prompt(value, &prompt_, &why)) prompt_.clear();
      return true;
    }
    if (name == "redirect") {
      redirect_ = std::max(-1, std::atoi(value.c_str()));
      return true;
    }
    if (name == "scale") {
      // Validated by the registry (0 to 2); the chosen head writes scale times its output.
      scale_ = std::clamp(float(std::atof(value.c_str())), 0.0f, 2.0f);
      apply_head_edit();
      return true;
    }
    if (name != "ablate") return TrainingExperiment::set_view_setting(name, value);
    ablate_ = value;
    ablate_l_ = ablate_h_ = -1;
    if (value.size() == 3 && value[1] == '.') {
      ablate_l_ = value[0] - '1';
      ablate_h_ = value[2] - '0';
    }
    apply_head_edit();
    return true;
  }

 private:
  // The chosen head times scale_ (0: off), measured at once over the whole
  // held-out set: the edit needs no retraining.
  void apply_head_edit() {
    edits_ = train::InductionEdits();
    if (ablate_l_ >= 0) edits_.scale_head(ablate_l_, ablate_h_, scale_);
    ablated_now_ = {};
    if (prepared() && ablating()) {
      kept_now_ = model().evaluate(test()).repeated_half;  // the same weights, unedited
      ablated_now_ = model().evaluate(test(), &edits_).repeated_half;
    }
  }

 protected:
  LocalText accuracy_name() const override { return tr("repeated-half accuracy", "重复半段准确率"); }

  // One forward pass per held-out sequence gives the track's repeated-half
  // result, the first half's, and every head's scores.
  train::EvalResult evaluate_track(const Track&, int begin, int end) override {
    if (begin == 0) {
      first_partial_ = {};
      score_sum_ = train::HeadScores{};
      scored_ = 0;
    }
    const std::vector<data::InductionSequence> part = slice(begin, end);
    if (part.empty()) return {};
    train::HeadScores hs;
    const train::InductionEval ev = model().evaluate(part, nullptr, &hs);
    first_partial_ = train::combine_eval(first_partial_, ev.first_half);
    const float w = float(part.size());
    if (scored_ == 0) score_sum_ = {hs.previous_token * w, hs.induction * w};
    else {
      score_sum_.previous_token += hs.previous_token * w;
      score_sum_.induction += hs.induction * w;
    }
    scored_ += int(part.size());
    return ev.repeated_half;
  }

  void on_eval_chunk(int begin, int end) override {
    if (begin == 0) ablated_partial_ = {};
    if (!ablating()) return;
    const std::vector<data::InductionSequence> part = slice(begin, end);
    if (!part.empty()) ablated_partial_ = train::combine_eval(ablated_partial_, model().evaluate(part, &edits_).repeated_half);
  }

  void on_evaluated() override {
    first_curve_.push_back(first_partial_.loss);
    repeated_curve_.push_back(tracks()[0].last.loss);
    curve_x_.push_back(float(steps()));
    if (phase_at_ < 0 && repeated_curve_.back() < 0.5f * first_curve_.back()) phase_at_ = steps();
    if (scored_ > 0) scores_ = {score_sum_.previous_token / float(scored_), score_sum_.induction / float(scored_)};
    kept_now_ = tracks()[0].last;
    if (ablating()) ablated_now_ = ablated_partial_;
  }

  // Beside the bars they move: which head, and how much of it.
  void add_head_controls(DemoOutputs& out) const {
    std::vector<std::string> options = {"none"};
    std::vector<LocalText> labels = {tr("none", "无")};
    const train::InductionModelDesc d;
    for (int l = 0; l < d.layers; ++l)
      for (int h = 0; h < d.heads; ++h) {
        options.push_back(std::to_string(l + 1) + "." + std::to_string(h));
        labels.push_back(tr("layer " + std::to_string(l + 1) + ", head " + std::to_string(h),
                            "第 " + std::to_string(l + 1) + " 层，头 " + std::to_string(h)));
      }
    out.panels.push_back(demo_impl::choice_panel("ablate", tr("Switch one head off (no retraining)", "关掉一个头（不重新训练）"),
                                                 options, labels));
    out.panels.push_back(demo_impl::slider_panel("scale",
                                                 tr("The chosen head's output times s (0: off, 1: as trained, 2: doubled)",
                                                    "所选的头的输出乘以 s（0：关掉，1：训练出的样子，2：加倍）"),
                                                 0.0f, 2.0f, 0.1f));
  }

  // Under the heatmaps whose row they rewrite, above the predictions that follow.
  void add_row_controls(DemoOutputs& out) const {
    out.panels.push_back(demo_impl::slider_panel("redirect",
                                                 tr("Point the best induction head's last query at position k (-1: off)",
                                                    "把最好的归纳头的最后一个查询指向位置 k（-1：不改）"),
                                                 -1.0f, 15.0f, 1.0f));
    if (has_row_) {
      // One column per position of the shown sequence; the weights are renormalised.
      std::vector<std::string> cols;
      const data::InductionSequence* seq = sequence();
      for (int j = 0; j < kInductionPromptTokens; ++j)
        cols.push_back(seq && j < int(seq->tokens.size()) ? std::string(1, char('A' + seq->tokens[size_t(j)])) + std::to_string(j)
                                                          : std::to_string(j));
      out.panels.push_back(demo_impl::editor_panel(
          "row",
          tr("Or drag that row's weights, one per position (rescaled to sum to 1; all 0: off)",
             "或者拖动那一行的权重，每个位置一个（重新缩放到总和为 1；全为 0：不改）"),
          {"weight"}, cols));
      out.panels.back().label_text["weight"] = tr("weight", "权重");
    }
  }

  void add_panels(DemoOutputs& out) const override {
    // The repeated-half loss with every head, with the switched-off head off,
    // and the rise between them (0 while no head is off): exercises check it.
    Mat ablation = Mat::Zero(1, 3);
    if (!repeated_curve_.empty()) {
      const float kept = kept_now_.loss, off = ablating() ? ablated_now_.loss : kept;
      ablation << kept, off, off - kept;
    }
    out.mats["ablation"] = ablation;
    out.panels.push_back(demo_impl::bars_panel("ablation", "ablation",
                                               tr("Held-out repeated-half loss: all heads, the chosen head off (or scaled), and the rise",
                                                  "留出集重复半段的损失：所有头、关掉（或缩放）所选的头，以及上升了多少"),
                                               {"repeated half"}, {"all heads", "head off", "rise"}));
    out.panels.back().label_text["repeated half"] = tr("repeated half", "重复半段");
    out.panels.back().label_text["all heads"] = tr("all heads", "所有头");
    out.panels.back().label_text["head off"] =
        !ablating() || scale_ == 0.0f ? tr("head off", "关掉的头") : tr("head x " + fmt(scale_, 1), "头 x " + fmt(scale_, 1));
    out.panels.back().label_text["rise"] = tr("rise", "上升");
    add_head_controls(out);
    out.mats["half_loss"] = series_matrix({first_curve_, repeated_curve_});
    out.mats["half_steps"] = row_matrix(curve_x_);
    out.panels.push_back(demo_impl::lines_panel("halves", "half_loss", "half_steps",
                                                tr("Held-out loss: first half against repeated half", "留出集损失：前半段与重复的后半段"),
                                                {"first half", "repeated half"},
                                                tr("x: training step; y: next-token loss (chance is about ln 16 = 2.77)",
                                                   "横轴：训练步数；纵轴：下一个词元的损失（随机猜约为 ln 16 = 2.77）")));
    const train::InductionModelDesc d;
    std::vector<std::string> head_names;
    for (int l = 0; l < d.layers; ++l)
      for (int h = 0; h < d.heads; ++h) head_names.push_back(std::to_string(l + 1) + "." + std::to_string(h));
    Mat bars = Mat::Zero(Eigen::Index(head_names.size()), 2);
    for (int l = 0; l < int(scores_.induction.rows()); ++l)
      for (int h = 0; h < int(scores_.induction.cols()); ++h) {
        bars(l * d.heads + h, 0) = scores_.induction(l, h);
        bars(l * d.heads + h, 1) = scores_.previous_token(l, h);
      }
    out.mats["head_scores"] = bars;
    out.panels.push_back(demo_impl::bars_panel("scores", "head_scores",
                                               tr("Per head (layer.head): induction score and previous-token score",
                                                  "每个头（层.头）：归纳分数与前一词元分数"),
                                               head_names, {"induction", "previous token"}));
    // Every head's weights for one held-out sequence (with the switched-off head's edit).
    // A typed prompt replaces the held-out sequence in the heatmaps.
    const data::InductionSequence* s = sequence();
    const std::vector<int>* shown = !prepared() ? nullptr : !prompt_.empty() ? &prompt_ : s ? &s->tokens : nullptr;
    std::vector<std::string> labels = {"…"};
    std::vector<std::vector<Mat>> w;
    if (shown) {
      labels.clear();
      for (size_t i = 0; i < shown->size(); ++i) labels.push_back(std::string(1, char('A' + (*shown)[i])) + std::to_string(i));
      // The held-out sequence's heads show an overridden row as it is used.
      const Redirect r = prompt_.empty() ? redirect(s) : Redirect{};
      w = model().attention(*shown, r.row >= 0 ? &r.edits : ablating() ? &edits_ : nullptr);
    }
    for (int l = 0; l < d.layers; ++l)
      for (int h = 0; h < d.heads; ++h) {
        const std::string key = "head_" + std::to_string(l + 1) + "_" + std::to_string(h);
        out.mats[key] = shown ? w[size_t(l)][size_t(h)] : Mat(Mat::Zero(1, 1));
        out.panels.push_back(demo_impl::heatmap_panel(key, key,
                                                      tr("Layer " + std::to_string(l + 1) + ", head " + std::to_string(h) +
                                                             ": one row per query (causal)",
                                                         "第 " + std::to_string(l + 1) + " 层，头 " + std::to_string(h) + "：每个查询一行（因果）"),
                                                      labels, labels, true));
      }
    add_row_controls(out);
    out.panels.push_back(demo_impl::note_panel("predictions", tr("Next-token predictions for this sequence", "这个序列的下一个词元预测"),
                                               predictions_text(s)));
    std::vector<std::string> letters;
    for (int v = 0; v < kInductionVocab; ++v) letters.push_back(std::string(1, char('A' + v)));
    out.panels.push_back(demo_impl::token_input_panel("prompt", tr("Type a prompt: letters A to P (at most 16), e.g. C F A K C F",
                                                                  "输入提示：字母 A 到 P（最多 16 个），例如 C F A K C F"),
                                                      letters, kInductionPromptTokens));
    out.panels.push_back(demo_impl::note_panel("prompt-predictions", tr("Your prompt, token by token", "你的提示，逐个词元"),
                                               prompt_text()));
    out.panels.push_back(demo_impl::slider_panel("example", tr("Held-out sequence", "留出集序列"), 0.0f, 29.0f, 1.0f));
  }

  void add_status(Value& s) const override {
    if (prepared() && !prompt_.empty()) {
      Value p = Value::array();
      for (int t : model().predictions(prompt_, ablating() ? &edits_ : nullptr)) p.push(t);
      s.set("promptPredictions", std::move(p));
    }
    if (const data::InductionSequence* seq = sequence()) {
      if (const Redirect r = redirect(seq); r.row >= 0) {
        s.set("redirectRow", r.row);
        s.set("redirectKey", r.key);
        s.set("redirectDragged", r.dragged);
        s.set("redirectedPrediction", model().predictions(seq->tokens, &r.edits)[size_t(r.row)]);
        s.set("tokenAtKey", seq->tokens[size_t(r.key)]);
      }
    }
    s.set("firstHalfLoss", first_curve_.empty() ? 0.0f : first_curve_.back());
    s.set("repeatedHalfLoss", repeated_curve_.empty() ? 0.0f : repeated_curve_.back());
    int bl = 0, bh = 0;
    const float best = scores_.induction.size() ? scores_.induction.maxCoeff(&bl, &bh) : 0.0f;
    s.set("bestInductionHead", std::to_string(bl + 1) + "." + std::to_string(bh));
    s.set("bestInductionScore", best);
    s.set("ablate", ablate_);
    // The first evaluation with the repeated half below half the first half's loss (-1: not yet).
    s.set("inductionPhaseAt", phase_at_);
    s.set("headScale", scale_);
    if (ablating()) s.set("ablatedRepeatedHalfLoss", ablated_now_.loss);
  }

 private:
  bool ablating() const { return ablate_l_ >= 0; }
  // What was done to the chosen head, for the notes: " off" / " x 0.5" after
  // "head 2.1" in English; "关掉头 2.1" / "头 2.1 x 0.5" in Chinese.
  LocalText head_edit_words() const {
    return scale_ == 0.0f ? tr(" off", "关掉头 " + ablate_) : tr(" x " + fmt(scale_, 1), "头 " + ablate_ + " x " + fmt(scale_, 1));
  }

  // The row override: the head with the best induction score, the last query
  // of the shown sequence, on top of any changed head. The dragged row (when a
  // weight of a visible position is above 0) gives the weights, renormalised;
  // else the redirect slider puts all weight on position min(k, query). row < 0: none.
  struct Redirect {
    int layer = 0, head = 0, row = -1, key = 0;
    bool dragged = false;
    std::vector<float> weights;  // as used, summing to 1
    train::InductionEdits edits;
  };
  Redirect redirect(const data::InductionSequence* s) const {
    Redirect r;
    if (!s || s->tokens.size() < 2) return r;
    const int row = int(s->tokens.size()) - 2;
    std::vector<float> w(size_t(row) + 1, 0.0f);
    double total = 0.0;
    if (has_row_)
      for (int j = 0; j <= row && j < int(row_.cols()); ++j) {
        w[size_t(j)] = row_.rows() > 0 && std::isfinite(row_(0, j)) ? std::max(0.0f, row_(0, j)) : 0.0f;
        total += w[size_t(j)];
      }
    if (total > 0.0) {
      r.dragged = true;
      for (float& v : w) v = float(v / total);
      r.key = int(std::max_element(w.begin(), w.end()) - w.begin());
    } else if (redirect_ >= 0) {
      r.key = std::min(redirect_, row);
      w[size_t(r.key)] = 1.0f;
    } else {
      return r;
    }
    r.row = row;
    if (scores_.induction.size()) scores_.induction.maxCoeff(&r.layer, &r.head);
    else r.layer = model().desc().layers - 1;
    r.weights = w;
    r.edits = ablating() ? edits_ : train::InductionEdits();
    r.edits.override_row(r.layer, r.head, r.row, w);
    return r;
  }
  const train::InductionModel& model() const { return *static_cast<const train::TrainRun&>(*tracks()[0].run).induction(); }
  const std::vector<data::InductionSequence>& test() const { return tracks()[0].run->induction_data().test; }
  std::vector<data::InductionSequence> slice(int begin, int end) const {
    const auto& t = test();
    begin = std::clamp(begin, 0, int(t.size()));
    end = std::clamp(end, begin, int(t.size()));
    return std::vector<data::InductionSequence>(t.begin() + begin, t.begin() + end);
  }
  const data::InductionSequence* sequence() const {
    if (!prepared() || test().empty()) return nullptr;
    return &test()[size_t(example()) % test().size()];
  }

  LocalText predictions_text(const data::InductionSequence* s) const {
    LocalText t;
    if (!s) {
      add_line(t, "The predictions appear once the model is built.", "模型建好后显示预测。");
      return t;
    }
    auto letters = [](const std::vector<int>& ids, size_t from, size_t to) {
      std::string out;
      for (size_t i = from; i < to && i < ids.size(); ++i) out += std::string(out.empty() ? "" : " ") + char('A' + ids[i]);
      return out;
    };
    const int L = s->half_length(), n = int(s->tokens.size());
    add_line(t, "Tokens: " + letters(s->tokens, 0, size_t(L)) + " | " + letters(s->tokens, size_t(L), size_t(n)),
             "词元：" + letters(s->tokens, 0, size_t(L)) + " | " + letters(s->tokens, size_t(L), size_t(n)));
    auto line = [&](const train::InductionEdits* e, const std::string& en, const std::string& zh) {
      const std::vector<int> p = model().predictions(s->tokens, e);
      int right = 0;
      for (int i = L; i + 1 < n; ++i) right += p[size_t(i)] == s->tokens[size_t(i) + 1];
      const std::string next = letters(p, size_t(L), size_t(n - 1));
      const std::string score = std::to_string(right) + " / " + std::to_string(n - 1 - L);
      add_line(t, en + ": after each repeated token " + next + " (" + score + " right)",
               zh + "：每个重复词元之后 " + next + "（对 " + score + "）");
    };
    line(nullptr, "Predicted", "预测");
    if (const Redirect r = redirect(s); r.row >= 0) {
      const std::vector<int> before = model().predictions(s->tokens, ablating() ? &edits_ : nullptr);
      const std::vector<int> after = model().predictions(s->tokens, &r.edits);
      const std::string head = std::to_string(r.layer + 1) + "." + std::to_string(r.head);
      const std::string pos = std::to_string(r.key), row = std::to_string(r.row);
      const std::string follows = std::string(1, char('A' + s->tokens[size_t(r.key)]));
      const std::string was = std::string(1, char('A' + before[size_t(r.row)]));
      const std::string now = std::string(1, char('A' + after[size_t(r.row)]));
      const std::string change = " Prediction after position " + row + ": " + was + " -> " + now;
      const std::string change_zh = "位置 " + row + " 之后的预测：" + was + " -> " + now;
      if (r.dragged) {
        std::string spread;  // "0.50 on C0, 0.50 on F1"
        for (size_t j = 0; j < r.weights.size(); ++j)
          if (r.weights[j] > 0.0f)
            spread += std::string(spread.empty() ? "" : ", ") + fmt(r.weights[j]) + " on " +
                      char('A' + s->tokens[j]) + std::to_string(j);
        std::string spread_zh = spread;  // "0.50 在 C0，0.50 在 F1"
        for (size_t at; (at = spread_zh.find(" on ")) != std::string::npos;) spread_zh.replace(at, 4, " 在 ");
        for (size_t at; (at = spread_zh.find(", ")) != std::string::npos;) spread_zh.replace(at, 2, "，");
        add_line(t, "Head " + head + ", query " + row + ", your weights: " + spread + "." + change,
                 "头 " + head + "，查询 " + row + "，你的权重：" + spread_zh + "。" + change_zh);
      } else {
        add_line(t, "Head " + head + ", query " + row + ": all weight on position " + pos + " (letter " + follows + ")." + change,
                 "头 " + head + "，查询 " + row + "：全部权重放在位置 " + pos + "（字母 " + follows + "）。" + change_zh);
      }
    }
    if (ablating()) {
      const std::string what = head_edit_words().get("en"), what_zh = head_edit_words().get("zh");
      line(&edits_, "With head " + ablate_ + what, what_zh + " 后");
      add_line(t, "Repeated-half loss over the held-out set: " + fmt(kept_now_.loss, 3) + ", with head " + ablate_ +
                      what + " " + fmt(ablated_now_.loss, 3),
               "留出集上重复半段的损失：" + fmt(kept_now_.loss, 3) + "，" + what_zh + " 后 " + fmt(ablated_now_.loss, 3));
    }
    return t;
  }

  // The prompt's predictions, one line per position: the token, the most likely
  // next token and its probability (and the same with the switched-off head off).
  LocalText prompt_text() const {
    LocalText t;
    if (prompt_.empty()) {
      add_line(t, "Type letters above to see what the model predicts after each of them; the heatmaps then show your prompt.",
               "在上面输入字母，看模型在每个字母之后预测什么；热力图随后显示你的提示。");
      return t;
    }
    if (!prepared()) {
      add_line(t, "The predictions appear once the model is built.", "模型建好后显示预测。");
      return t;
    }
    auto line_for = [&](const train::InductionEdits* e, const std::string& en, const std::string& zh) {
      const Mat z = model().logits(prompt_, e);
      std::string row;
      for (Eigen::Index i = 0; i < z.rows(); ++i) {
        const Eigen::Index j = demo_impl::row_argmax(z, i);
        const float p = 1.0f / (z.row(i).array() - z(i, j)).exp().sum();
        row += std::string(row.empty() ? "" : ", ") + char('A' + prompt_[size_t(i)]) + " → " + char('A' + int(j)) + " " + fmt(p);
      }
      add_line(t, en + ": " + row, zh + "：" + row);
    };
    line_for(nullptr, "After each token, the most likely next one and its probability",
             "每个词元之后最可能的下一个词元及其概率");
    if (ablating())
      line_for(&edits_, "With head " + ablate_ + head_edit_words().get("en"), head_edit_words().get("zh") + " 后");
    return t;
  }

  std::vector<int> prompt_;  // the typed prompt's token ids (empty: none)
  std::string ablate_ = "none";
  int ablate_l_ = -1, ablate_h_ = -1;
  float scale_ = 0.0f;  // the chosen head's output scale
  int redirect_ = -1;
  bool has_row_ = false;  // the step gives `row`: the dragged attention row
  Mat row_;
  train::InductionEdits edits_;
  train::EvalResult first_partial_, ablated_partial_, ablated_now_, kept_now_;
  train::HeadScores score_sum_, scores_;
  int scored_ = 0;
  long phase_at_ = -1;
  std::vector<float> first_curve_, repeated_curve_, curve_x_;
};

// ---------------------------------------------------------------- 8 timing
// RNN steps against attention (SIMD and one-lane kernels), timed here, one
// sequence length per unit of work.
class TimingExperiment : public Experiment {
 public:
  explicit TimingExperiment(const DemoInputs& in) {
    desc_.d = setting_or(in, "d", 32);
    desc_.lengths = {8, 16, 32, 64, 128, 256, 512};
    desc_.repeats = 3;
  }
  void prepare() override {}
  int advance(double budget_ms) override {
    int done_now = 0;
    run_units(budget_ms, [&] {
      if (done()) return false;
      step_once();
      ++done_now;
      return true;
    });
    return done_now;
  }
  void step_once() override {
    if (done()) return;
    const double t0 = clock_ms();
    points_.push_back(time_rnn_vs_attention_at(desc_, desc_.lengths[points_.size()]));
    work_ms_ += clock_ms() - t0;
  }
  bool done() const override { return points_.size() >= desc_.lengths.size(); }
  long progress() const override { return long(points_.size()); }
  long planned() const override { return long(desc_.lengths.size()); }
  double work_ms() const override { return work_ms_; }
  bool set_view_setting(const std::string&, const std::string&) override { return false; }

  DemoOutputs view() const override {
    DemoOutputs out;
    out.growing = true;
    out.panels.push_back(demo_impl::choice_panel("d", tr("Width d", "宽度 d"), {"16", "32", "64"}));
    std::vector<float> xs, rnn, simd, scalar;
    for (const TimingPoint& p : points_) {
      xs.push_back(float(p.n));
      rnn.push_back(float(p.rnn_ms));
      simd.push_back(float(p.attention_ms));
      scalar.push_back(float(p.attention_scalar_ms));
    }
    const std::vector<std::string> series = {"RNN (sequential)", "attention, SIMD", "attention, one lane"};
    out.mats["lengths"] = row_matrix(xs);
    out.mats["times"] = series_matrix({rnn, simd, scalar});
    LocalText t;
    if (points_.empty()) {
      add_line(t, "Press Start to measure, in this browser, how long each takes as the sequence grows.",
               "按“开始”，在这个浏览器里实测序列变长时各自要多久。");
    } else {
      const TimingPoint& p = points_.back();
      add_line(t, "n = " + std::to_string(p.n) + ", d = " + std::to_string(desc_.d) + ": RNN " + ms(p.rnn_ms) + ", attention " +
                      ms(p.attention_ms) + " with SIMD, " + ms(p.attention_scalar_ms) + " on one lane (medians of " +
                      std::to_string(desc_.repeats) + " runs).",
               "n = " + std::to_string(p.n) + "，d = " + std::to_string(desc_.d) + "：RNN " + ms(p.rnn_ms) + "，注意力用 SIMD " +
                   ms(p.attention_ms) + "，单通道 " + ms(p.attention_scalar_ms) + "（" + std::to_string(desc_.repeats) + " 次的中位数）。");
      if (p.attention_ms > 0.0)
        add_line(t, "SIMD speed-up for attention: " + fmt(float(p.attention_scalar_ms / p.attention_ms), 1) + "x.",
                 "注意力的 SIMD 加速：" + fmt(float(p.attention_scalar_ms / p.attention_ms), 1) + " 倍。");
    }
    out.panels.push_back(demo_impl::lines_panel("times", "times", "lengths", tr("Milliseconds against sequence length n", "毫秒数与序列长度 n"),
                                                series, tr("x: n (log scale); y: milliseconds, measured here", "横轴：n（对数刻度）；纵轴：毫秒，在这里实测")));
    out.panels.push_back(demo_impl::note_panel("measured", tr("Measured", "实测"), t));
    return out;
  }

  Value status() const override {
    Value s = Value::object();
    s.set("steps", long(points_.size()));
    s.set("budget", long(desc_.lengths.size()));
    s.set("done", done());
    s.set("workMs", work_ms_);
    Value pts = Value::array();
    for (const TimingPoint& p : points_) {
      Value o = Value::object();
      o.set("n", p.n);
      o.set("rnnMs", p.rnn_ms);
      o.set("attentionMs", p.attention_ms);
      o.set("attentionScalarMs", p.attention_scalar_ms);
      pts.push(std::move(o));
    }
    s.set("points", std::move(pts));
    return s;
  }

 private:
  TimingDesc desc_;
  std::vector<TimingPoint> points_;
  double work_ms_ = 0.0;
};

}  // namespace

// ---------------------------------------------------------------- 9 the factory
bool parse_induction_prompt(const std::string& text, std::vector<int>* tokens, std::string* why) {
  tokens->clear();
  // Length first, so a long paste is refused before anything reads it.
  if (text.size() > kInductionPromptChars) {
    *why = "'prompt' is too long: at most " + std::to_string(kInductionPromptChars) + " characters";
    return false;
  }
  for (const char c : text) {
    if (c == ' ' || c == '|' || c == ',') continue;  // separators are optional
    const char u = c >= 'a' && c <= 'z' ? char(c - 'a' + 'A') : c;
    if (u < 'A' || u >= char('A' + kInductionVocab)) {
      const bool printable = static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f;
      *why = "'prompt' may hold only the letters A to P (and spaces)" +
             (printable ? std::string(": '") + c + "' is not one" : std::string());
      tokens->clear();
      return false;
    }
    tokens->push_back(u - 'A');
  }
  if (int(tokens->size()) > kInductionPromptTokens) {
    *why = "'prompt' has " + std::to_string(tokens->size()) + " tokens: at most " + std::to_string(kInductionPromptTokens);
    tokens->clear();
    return false;
  }
  return true;
}

void FrameBudget::observe(double frame_ms) {
  if (!(frame_ms > 0.0) || !std::isfinite(frame_ms)) return;  // nothing measured yet
  if (frame_ms > t_.frame_ms) budget_ *= t_.shrink;
  else if (frame_ms < t_.frame_ms - 3.0) budget_ += t_.grow_ms;
  budget_ = std::clamp(budget_, t_.min_ms, t_.max_ms);
}

bool is_experiment_demo(const std::string& demo) {
  return demo == "timing" || demo.rfind("train_", 0) == 0;
}

std::unique_ptr<Experiment> make_experiment(const std::string& demo, const DemoInputs& given) {
  if (!is_experiment_demo(demo)) return nullptr;
  DemoInputs in = given;
  for (const auto& [name, fallback] : demo_setting_defaults(demo))
    if (!in.settings.count(name)) in.settings[name] = fallback;
  if (demo == "train_translation") return std::make_unique<TranslationExperiment>(in);
  if (demo == "train_long_range") return std::make_unique<LongRangeExperiment>(in);
  if (demo == "train_pooling") return std::make_unique<PoolingExperiment>(in);
  if (demo == "train_sentiment") return std::make_unique<SentimentExperiment>(in);
  if (demo == "train_hard_attention") return std::make_unique<HardAttentionExperiment>(in);
  if (demo == "train_induction") return std::make_unique<InductionExperiment>(in);
  if (demo == "train_word_order") return make_order_experiment(in);
  if (demo == "timing") return std::make_unique<TimingExperiment>(in);
  return nullptr;
}

}  // namespace attn

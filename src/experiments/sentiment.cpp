// experiment_sentiment.cpp: train_sentiment (curriculum G): the complete
// attention-based sentiment classifier. One experiment of src/experiments (see
// training.h and kit.h for what they share).
#include <algorithm>

#include "experiments/training.h"

namespace attn::experiment_impl {
namespace {

// Curriculum G: embedding -> positional encoding -> multi-head self-attention ->
// average pooling -> dropout(0.5) -> dense(1, sigmoid), BCE + Adam. The learner
// sets the position encoding (none, sum, concat), the heads at a fixed width
// (1, 2, 4, 8) and dropout (on, off), and can train a second model B with its
// own three settings in lockstep. Each evaluation also splits the held-out
// accuracy into reviews with a negation word (not, never, 不) and without.
// Reviews are padded to a common length (the longest review); the padding mask
// (on by default) can be switched off per model, and the view pads the shown
// review further to show what the pads do to each model's prediction.
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
    set_view_setting("padding", text_or(in, "padding", "0"));
  }

  bool set_view_setting(const std::string& name, const std::string& value) override {
    long long k = 0;
    if (name == "padding") {  // only what is shown changes: no retraining
      padding_ = parse_whole_text(value, 0, kMaxPadding, &k) ? int(k) : 0;
      return true;
    }
    if (name != "head") return TrainingExperiment::set_view_setting(name, value);
    head_ = parse_whole_text(value, 1, 8, &k) ? int(k) : 1;
    return true;
  }

 protected:
  // One model's three settings, as the registry checked them.
  struct Model {
    std::string position = "sum", dropout = "on", mask = "on";
    int heads = 4;
    train::RunDesc desc(train::RunDesc base) const {
      train::parse_position_mode(position, &base.position);
      base.heads = heads;
      base.dropout = dropout == "on" ? 0.5f : 0.0f;
      base.mask_padding = mask == "on";
      return base;
    }
    std::string name() const {
      return "PE " + position + ", " + std::to_string(heads) + (heads == 1 ? " head" : " heads") + ", dropout " + dropout +
             (mask == "on" ? "" : ", no mask");
    }
    std::string name_zh() const {
      const std::string pe = position == "none" ? "无位置编码" : position == "sum" ? "位置编码相加" : "位置编码拼接";
      return pe + "，" + std::to_string(heads) + " 个头，dropout " + (dropout == "on" ? "开" : "关") + (mask == "on" ? "" : "，无掩码");
    }
  };
  static Model model_setting(const DemoInputs& in, const std::string& suffix) {
    Model m;
    m.position = text_or(in, "position" + suffix, "sum");
    m.heads = setting_or(in, "heads" + suffix, suffix.empty() ? 4 : 1);
    m.dropout = text_or(in, "dropout" + suffix, "on");
    m.mask = text_or(in, "mask" + suffix, "on");
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
  // The held-out split by negation, per track.
  void write_extra(ByteWriter& w) const override {
    w.u32(uint32_t(split_.size()));
    for (const SplitCount& c : split_) {
      w.i64(c.negated);
      w.i64(c.negated_right);
      w.i64(c.plain);
      w.i64(c.plain_right);
    }
  }
  std::function<void()> read_extra(ByteReader& r) override {
    uint32_t n = 0;
    if (!r.u32(&n) || (n != 0 && n != tracks().size())) return nullptr;
    std::vector<SplitCount> split(n);
    for (SplitCount& c : split) {
      int64_t v[4];
      for (int64_t& x : v)
        if (!r.i64(&x) || x < 0 || x > (1 << 24)) return nullptr;
      if (v[1] > v[0] || v[3] > v[2]) return nullptr;
      c = {int(v[0]), int(v[1]), int(v[2]), int(v[3])};
    }
    return [this, split = std::move(split)]() mutable { split_ = std::move(split); };
  }

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
      out.panels.push_back(demo_impl::choice_panel("mask" + suffix, tr(who_en + "padding mask", who_zh + "填充掩码"), {"on", "off"},
                                                   {tr("on: pads get no weight and stay out of the mean", "开：填充位不分权重，也不计入平均"),
                                                    tr("off", "关")}));
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
      const int n = m.padded_length(r->ids);  // the batch tensor's length: the words, then pads
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
    add_padding_panels(out, r);
  }

  // What the pads do: the shown review with k more pads, k = 0, 4, ..., kMaxPadding,
  // for every model as trained and, when model A is masked, for A with its mask removed.
  void add_padding_panels(DemoOutputs& out, const data::Review* r) const {
    std::vector<std::string> series;
    std::vector<LocalText> shown;
    for (size_t i = 0; i < tracks().size(); ++i) {
      series.push_back(tracks()[i].name);
      shown.push_back(tracks()[i].shown);
    }
    const bool a_masked = tracks()[0].desc.mask_padding;
    if (a_masked) {
      const bool two = tracks().size() > 1;
      series.push_back(two ? "A, mask removed" : "mask removed");
      shown.push_back(tr(series.back(), two ? "A，去掉掩码" : "去掉掩码"));
    }
    const Eigen::Index rows = Eigen::Index(series.size()), points = kMaxPadding / 4 + 1;
    Mat xs(1, points), curve = Mat::Constant(rows, points, 0.5f), now = Mat::Zero(rows, 2);
    for (Eigen::Index c = 0; c < points; ++c) xs(0, c) = float(4 * c);
    LocalText t;
    if (r) {
      for (Eigen::Index s = 0; s < rows; ++s) {
        const bool own = size_t(s) < tracks().size();  // else: model A with its mask removed
        const train::SentimentModel& m = model(own ? size_t(s) : 0);
        const bool mask = own && m.desc().mask_padding;
        const int base = m.padded_length(r->ids);
        for (Eigen::Index c = 0; c < points; ++c) curve(s, c) = m.predict(r->ids, base + int(4 * c), mask);
        now(s, 0) = m.predict(r->ids, base + padding_, mask);
        now(s, 1) = m.weight_on_padding(r->ids, base + padding_, mask);
      }
      const int n = int(r->ids.size()), base = model(0).padded_length(r->ids);
      add_line(t, "This review has " + std::to_string(n) + " words; training and testing pad every review to " +
                      std::to_string(base) + ". Shown: " + std::to_string(padding_) + " pads more, " +
                      std::to_string(base + padding_ - n) + " in all.",
               "这条评论有 " + std::to_string(n) + " 个词；训练和测试时每条评论都填充到 " + std::to_string(base) + "。这里再加 " +
                   std::to_string(padding_) + " 个填充位，共 " + std::to_string(base + padding_ - n) + " 个。");
      for (Eigen::Index s = 0; s < rows; ++s)
        add_line(t, series[size_t(s)] + ": p(positive) = " + fmt(now(s, 0)) + ", the words' attention on the pads " + fmt(now(s, 1)),
                 shown[size_t(s)].get("zh") + "：p(正面) = " + fmt(now(s, 0)) + "，词放在填充位上的注意力 " + fmt(now(s, 1)));
    } else {
      add_line(t, "The padding appears once the model is built.", "模型建好后显示填充的影响。");
    }
    std::vector<std::string> labels = series;
    out.mats["pads"] = xs;
    out.mats["padding_curve"] = curve;  // (series, points): p(positive) with k more pads
    out.mats["padding"] = now;          // (series, 2): p(positive), weight on the pads, at the slider's k
    Panel plot = demo_impl::lines_panel("padding-curve", "padding_curve", "pads",
                                        tr("p(positive) of this review with k more pads", "这条评论再加 k 个填充位时的 p(正面)"), labels,
                                        tr("x: pads added, y: p(positive)", "横轴：加上的填充位，纵轴：p(正面)"));
    for (size_t s = 0; s < series.size(); ++s) plot.label_text[series[s]] = shown[s];
    out.panels.push_back(std::move(plot));
    Panel bars = demo_impl::bars_panel("padding", "padding", tr("At the slider's padding: p(positive) and the words' attention on the pads",
                                                                 "滑块所选的填充下：p(正面)，以及词放在填充位上的注意力"),
                                       labels, {"p(positive)", "on pads"});
    for (size_t s = 0; s < series.size(); ++s) bars.label_text[series[s]] = shown[s];
    out.panels.push_back(std::move(bars));
    out.panels.push_back(demo_impl::note_panel("padding-note", tr("Padding", "填充"), t));
    out.panels.push_back(demo_impl::slider_panel("padding", tr("Pads added after the shown review", "在这条评论后面再加的填充位"), 0.0f,
                                                 float(kMaxPadding), 1.0f));
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
  static constexpr int kMaxPadding = 24;
  bool compare_ = false;
  int head_ = 1, padding_ = 0;
  std::vector<SplitCount> split_partial_, split_;
};

}  // namespace

std::unique_ptr<Experiment> make_sentiment_experiment(const DemoInputs& in) {
  return std::make_unique<SentimentExperiment>(in);
}

}  // namespace attn::experiment_impl

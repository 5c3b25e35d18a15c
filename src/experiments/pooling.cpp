// experiment_pooling.cpp: train_pooling (curriculum E2): attention pooling over
// BiGRU outputs against averaging. One experiment of src/experiments (see
// training.h and kit.h for what they share).
#include <algorithm>

#include "experiments/training.h"

namespace attn::experiment_impl {
namespace {

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
  void write_extra(ByteWriter& w) const override {
    w.f32(sentiment_share_);
    w.f32(name_share_);
  }
  std::function<void()> read_extra(ByteReader& r) override {
    float sentiment = 0.0f, names = 0.0f;
    if (!r.f32(&sentiment) || !r.f32(&names)) return nullptr;
    return [this, sentiment, names] {
      sentiment_share_ = sentiment;
      name_share_ = names;
    };
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

}  // namespace

std::unique_ptr<Experiment> make_pooling_experiment(const DemoInputs& in) {
  return std::make_unique<PoolingExperiment>(in);
}

}  // namespace attn::experiment_impl

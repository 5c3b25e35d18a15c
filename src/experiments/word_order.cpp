// experiment_order.cpp: train_word_order (curriculum E3) -- a task where only
// word order decides, "is the dog the one doing it?", for self-attention without
// positions, self-attention with sinusoidal positions and a small tanh RNN,
// trained side by side in lockstep (TrainingExperiment, training.h).
//
// The attention models read out the mean of their last layer's rows. Without
// positions that makes them blind to order: a sentence and its twin (the same
// words, the two animals swapped) get the same output, so on the held-out twins
// the model is right exactly half of the time however long it trains.
#include "experiments/training.h"

namespace attn::experiment_impl {
namespace {

class WordOrderExperiment : public TrainingExperiment {
 public:
  explicit WordOrderExperiment(const DemoInputs& in) {
    const train::RunDesc base = seeded(in);
    add_track("attention, no positions", "注意力，无位置", train::RunKind::word_order_plain, base);
    add_track("attention + positions", "注意力 + 位置", train::RunKind::word_order_positions, base);
    add_track("RNN", "RNN", train::RunKind::word_order_rnn, base);
    set_budget(setting_or(in, "steps", 150), 10);
    set_view_setting("example", text_or(in, "example", "0"));
  }

 protected:
  void add_panels(DemoOutputs& out) const override {
    // The newest held-out accuracy of each model (zeros before the first test).
    Mat latest = Mat::Zero(Eigen::Index(tracks().size()), 1);  // (models, 1)
    for (size_t i = 0; i < tracks().size(); ++i)
      if (tracks()[i].evaluated_at >= 0) latest(Eigen::Index(i), 0) = tracks()[i].last.accuracy * 100.0f;
    // Held-out twins number example(): the same words, the two animals swapped.
    std::vector<std::string> sentences = {"…", "…"}, names;
    std::vector<LocalText> shown(2);
    for (const Track& t : tracks()) names.push_back(t.name);
    Mat p = Mat::Constant(2, Eigen::Index(tracks().size()), 0.5f);  // (twins, models): p(the dog is the agent)
    LocalText note;
    if (prepared()) {
      const data::WordOrderData& d = tracks()[0].run->word_order_data();
      const size_t pairs = d.test.size() / 2;
      const size_t first = pairs ? 2 * (size_t(example()) % pairs) : 0;
      for (size_t s = 0; s < 2 && first + s < d.test.size(); ++s) {
        const data::LabeledSequence& ex = d.test[first + s];
        const std::string words = data::word_order_text(d, ex.tokens);
        sentences[s] = words + (ex.label ? "  (yes)" : "  (no)");
        shown[s] = tr(sentences[s], words + (ex.label ? "（是）" : "（不是）"));
        for (size_t m = 0; m < tracks().size(); ++m)
          p(Eigen::Index(s), Eigen::Index(m)) = tracks()[m].run->long_range()->probabilities(ex.tokens)[1];
      }
    }
    add_line(note, "Each sentence has the dog and one other animal; the label is whether the dog does the action. "
                   "Chance is 50%.",
             "每个句子里有狗和另一种动物；标签是：做这个动作的是不是狗。随机猜的准确率是 50%。");
    add_line(note, "Every held-out sentence has a twin with the same words and the two animals swapped, "
                   "and the opposite label.",
             "每个留出句子都有一个孪生句：词完全相同，只是两种动物互换了位置，标签也相反。");
    out.mats["twin_p"] = p;
    out.mats["latest_accuracy"] = latest;
    out.panels.push_back(demo_impl::bars_panel("latest", "latest_accuracy",
                                               tr("Held-out accuracy (%) at the newest test", "最近一次测试的留出集准确率（%）"),
                                               names, {"%"}));
    out.panels.push_back(demo_impl::heatmap_panel("twins", "twin_p",
                                                  tr("p(the dog does it) for a held-out sentence and its twin",
                                                     "留出句子及其孪生句上的 p(是狗做的)"),
                                                  sentences, names, true));
    for (size_t s = 0; s < 2; ++s)
      if (!shown[s].by_lang.empty()) out.panels.back().label_text[sentences[s]] = shown[s];
    out.panels.push_back(demo_impl::note_panel("task", tr("The task", "任务"), note));
    out.panels.push_back(demo_impl::slider_panel("example", tr("Held-out twins", "留出的孪生句"), 0.0f, 29.0f, 1.0f));
  }
};

}  // namespace

std::unique_ptr<Experiment> make_order_experiment(const DemoInputs& in) {
  return std::make_unique<WordOrderExperiment>(in);
}

}  // namespace attn::experiment_impl

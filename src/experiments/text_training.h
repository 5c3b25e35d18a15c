// text_training.h: the base of the experiments that train language models on a
// text (train_lm, train_positions, train_kv_cache): a run whose text could not
// be loaded trains nothing, finishes at once and says why; the two texts to
// choose from. Not for use outside src/experiments.
#pragma once

#include <string>

#include "experiments/training.h"

namespace attn::experiment_impl {

// A character as a heatmap label or in a list: the line break as ↵, the space
// as a middle dot (a blank would read as nothing).
inline std::string shown_char(const std::string& c) { return c == "\n" ? "↵" : c == " " ? "·" : c; }

class TextTrainingExperiment : public TrainingExperiment {
 public:
  bool done() const override { return failed() || TrainingExperiment::done(); }
  int advance(double budget_ms) override {
    prepare();
    return failed() ? 0 : TrainingExperiment::advance(budget_ms);
  }
  void step_once() override {
    prepare();
    if (!failed()) TrainingExperiment::step_once();
  }

 protected:
  LocalText accuracy_name() const override { return tr("next-character accuracy", "下一个字符的准确率"); }
  bool failed() const { return prepared() && !tracks()[0].run->error().empty(); }
  // The note that says why nothing trains.
  void add_text_error(DemoOutputs& out) const {
    LocalText t;
    add_line(t, "The text could not be loaded: " + tracks()[0].run->error(), "没能载入文本：" + tracks()[0].run->error());
    out.panels.push_back(demo_impl::note_panel("text-error", tr("The text", "文本"), t));
  }
  // The choice between the two texts the set-up step fetched.
  static void add_corpus_choice(DemoOutputs& out) {
    out.panels.push_back(demo_impl::choice_panel("corpus", tr("The text", "文本"), {"english", "chinese"},
                                                 {tr("US founding documents (English)", "美国建国文献（英文）"),
                                                  tr("Tang poems (Chinese)", "唐诗（中文）")}));
  }
};

}  // namespace attn::experiment_impl

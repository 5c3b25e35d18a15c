// experiments.cpp: demo name -> experiment (experiments.h). Each experiment lives
// in a file of its own (<name>.cpp); its settings are in live_demos.cpp.
#include "experiments/experiments.h"

#include "experiments/kit.h"

namespace attn {

// ---------------------------------------------------------------- 1 the factory
namespace {
struct ExperimentEntry {
  const char* demo;
  std::unique_ptr<Experiment> (*make)(const DemoInputs&);
};
const ExperimentEntry kExperiments[] = {
    {"train_translation", experiment_impl::make_translation_experiment},
    {"train_long_range", experiment_impl::make_long_range_experiment},
    {"train_pooling", experiment_impl::make_pooling_experiment},
    {"train_sentiment", experiment_impl::make_sentiment_experiment},
    {"train_hard_attention", experiment_impl::make_hard_attention_experiment},
    {"train_induction", experiment_impl::make_induction_experiment},
    {"train_word_order", experiment_impl::make_order_experiment},
    {"train_lm", experiment_impl::make_lm_experiment},
    {"train_positions", experiment_impl::make_positions_experiment},
    {"train_kv_cache", experiment_impl::make_kv_cache_experiment},
    {"timing", experiment_impl::make_timing_experiment},
};
}  // namespace

bool is_experiment_demo(const std::string& demo) {
  return demo == "timing" || demo.rfind("train_", 0) == 0;
}

std::unique_ptr<Experiment> make_experiment(const std::string& demo, const DemoInputs& given) {
  if (!is_experiment_demo(demo)) return nullptr;
  DemoInputs in = given;
  for (const auto& [name, fallback] : live_demos().setting_defaults(demo))
    if (!in.settings.count(name)) in.settings[name] = fallback;
  for (const ExperimentEntry& e : kExperiments)
    if (demo == e.demo) return e.make(in);
  return nullptr;
}

}  // namespace attn

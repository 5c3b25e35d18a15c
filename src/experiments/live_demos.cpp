// live_demos.cpp: the demo table's entries for the live experiments (experiments.h):
// their settings, checked like every demo's, and a preview -- the panels of an
// experiment that has not started -- for lesson validation and the first frame.
#include "demos/kit.h"
#include "experiments/experiments.h"

namespace attn::demo_impl {
namespace {

void check_nothing(const DemoInputs&, std::vector<Problem>&) {}

// The typed prompt: length first, then its tokens (parse_induction_prompt).
// The dragged attention row, when a step gives one: one weight per position.
void check_induction(const DemoInputs& in, std::vector<Problem>& problems) {
  std::vector<int> tokens;
  std::string why;
  if (!parse_induction_prompt(setting(in, "prompt"), &tokens, &why)) problems.push_back({"prompt", why});
  if (has_mat(in, "row")) {
    need_rows(in, "row", 1, "one attention row", problems);
    need_cols(in, "row", kInductionPromptTokens, "one weight per position of the longest sequence", problems);
  }
}

// The typed text: length first, then UTF-8, then characters (check_lm_prompt).
void check_lm(const DemoInputs& in, std::vector<Problem>& problems) {
  std::string why;
  if (!check_lm_prompt(setting(in, "prompt"), &why)) problems.push_back({"prompt", why});
}

// A text setting that may be left empty (empty = off).
ParamSpec optional_text_param(const std::string& name) {
  ParamSpec p = text_param(name, "");
  p.required = false;
  return p;
}

DemoOutputs preview(const char* name, const DemoInputs& in) { return make_experiment(name, in)->view(); }
DemoOutputs run_translation(const DemoInputs& in) { return preview("train_translation", in); }
DemoOutputs run_long_range(const DemoInputs& in) { return preview("train_long_range", in); }
DemoOutputs run_pooling(const DemoInputs& in) { return preview("train_pooling", in); }
DemoOutputs run_sentiment(const DemoInputs& in) { return preview("train_sentiment", in); }
DemoOutputs run_hard_attention(const DemoInputs& in) { return preview("train_hard_attention", in); }
DemoOutputs run_induction(const DemoInputs& in) { return preview("train_induction", in); }
DemoOutputs run_word_order(const DemoInputs& in) { return preview("train_word_order", in); }
DemoOutputs run_lm(const DemoInputs& in) { return preview("train_lm", in); }
DemoOutputs run_positions(const DemoInputs& in) { return preview("train_positions", in); }
DemoOutputs run_kv_cache(const DemoInputs& in) { return preview("train_kv_cache", in); }
DemoOutputs run_timing(const DemoInputs& in) { return preview("timing", in); }

// Every training experiment: its seed, its step budget, and (where it has one)
// which held-out example the pictures show.
std::vector<ParamSpec> training_params(const char* steps, std::vector<ParamSpec> more) {
  more.push_back(number_param("seed", 0, 1000000, true, "1"));
  more.push_back(number_param("steps", 10, 5000, true, steps));
  return more;
}

void add_live_demos(std::vector<DemoEntry>& r) {
  r.push_back({"train_translation",
               training_params("300", {choice_param("attention", {"additive", "general", "dot"}, "additive"),
                                       choice_param("compare", {"off", "on"}, "off"),
                                       number_param("example", 0, 9, true, "0"),
                                       number_param("force_step", -1, 9, true, "-1"),
                                       number_param("force_source", 0, 9, true, "0")}),
               check_nothing, run_translation});
  r.push_back({"train_long_range",
               training_params("300", {choice_param("distance", {"4", "16", "32", "64"}, "16")}),
               check_nothing, run_long_range});
  r.push_back({"train_pooling", training_params("200", {number_param("example", 0, 29, true, "0")}),
               check_nothing, run_pooling});
  r.push_back({"train_sentiment",
               training_params("600", {number_param("example", 0, 29, true, "0"),
                                       choice_param("position", {"none", "sum", "concat"}, "sum"),
                                       choice_param("heads", {"1", "2", "4", "8"}, "4"),
                                       choice_param("dropout", {"on", "off"}, "on"),
                                       choice_param("compare", {"off", "on"}, "off"),
                                       choice_param("position_b", {"none", "sum", "concat"}, "sum"),
                                       choice_param("heads_b", {"1", "2", "4", "8"}, "1"),
                                       choice_param("dropout_b", {"on", "off"}, "on"),
                                       choice_param("mask", {"on", "off"}, "on"),
                                       choice_param("mask_b", {"on", "off"}, "on"),
                                       number_param("head", 1, 8, true, "1"),
                                       number_param("padding", 0, 24, true, "0")}),
               check_nothing, run_sentiment});
  r.push_back({"train_hard_attention", training_params("600", {number_param("example", 0, 29, true, "0")}),
               check_nothing, run_hard_attention});
  r.push_back({"train_induction",
               training_params("600", {number_param("example", 0, 29, true, "0"),
                                       choice_param("ablate", {"none", "1.0", "1.1", "2.0", "2.1"}, "none"),
                                       number_param("scale", 0, 2, false, "0"),
                                       number_param("redirect", -1, 15, true, "-1"), optional_text_param("prompt"),
                                       matrix_param("row", false)}),
               check_induction, run_induction});
  r.push_back({"train_word_order", training_params("150", {number_param("example", 0, 29, true, "0")}),
               check_nothing, run_word_order});
  r.push_back({"train_lm",
               training_params("1000", {choice_param("corpus", {"english", "chinese", "own"}, "english"),
                                        number_param("temperature", 0.1, 2, false, "0.8"),
                                        number_param("top_k", 0, 50, true, "0"), optional_text_param("prompt"),
                                        choice_param("ablate", {"none", "1.0", "1.1", "1.2", "1.3", "2.0", "2.1", "2.2", "2.3"}, "none"),
                                        choice_param("show", {"1.0", "1.1", "1.2", "1.3", "2.0", "2.1", "2.2", "2.3"}, "1.0"),
                                        choice_param("heads", {"off", "on"}, "off")}),
               check_lm, run_lm});
  const std::vector<std::string> kinds = {"learned", "sinusoidal", "rope", "alibi", "none"};
  const std::vector<std::string> windows = {"0", "4", "8", "16", "32"}, sinks = {"0", "1", "2", "4"};
  r.push_back({"train_positions",
               training_params("1000", {choice_param("corpus", {"english", "chinese"}, "english"),
                                        choice_param("position", kinds, "learned"), choice_param("window", windows, "0"),
                                        choice_param("sinks", sinks, "0"), choice_param("position_b", kinds, "rope"),
                                        choice_param("window_b", windows, "0"), choice_param("sinks_b", sinks, "0")}),
               check_nothing, run_positions});
  r.push_back({"train_kv_cache",
               training_params("400", {choice_param("corpus", {"english", "chinese"}, "english"),
                                       choice_param("position", kinds, "rope"), choice_param("window", windows, "0"),
                                       choice_param("sinks", sinks, "0"), choice_param("kv_heads", {"1", "2", "4"}, "4"),
                                       choice_param("compare", {"off", "on"}, "off"),
                                       choice_param("kv_heads_b", {"1", "2", "4"}, "1"),
                                       number_param("shown", 0, 128, true, "128"),
                                       choice_param("timing", {"on", "off"}, "on")}),
               check_nothing, run_kv_cache});
  r.push_back({"timing", {choice_param("d", {"16", "32", "64"}, "32")}, check_nothing, run_timing});
}

}  // namespace
}  // namespace attn::demo_impl

namespace attn {

std::vector<DemoEntry> live_demo_entries() {
  std::vector<DemoEntry> r;
  demo_impl::add_live_demos(r);
  return r;
}

const DemoTable& live_demos() {
  static const DemoTable table(live_demo_entries());
  return table;
}

}  // namespace attn

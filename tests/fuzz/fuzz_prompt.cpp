// fuzz_prompt: the induction model's typed prompt (a learner's text, from the page
// or a link) never crashes the parser, and what it accepts keeps its promises: at
// most kInductionPromptTokens tokens, each a letter of the vocabulary; what it
// refuses says why. The same text as the demo's setting is checked the same way.
#include "experiments/experiments.h"
#include "fuzz/fuzz_util.h"
#include "lab/catalog.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(fuzz::text(data, size));
  std::vector<int> tokens;
  std::string why;
  const bool ok = attn::parse_induction_prompt(text, &tokens, &why);
  if (!ok) {
    fuzz::require(!why.empty(), "a refused prompt says why", text);
  } else {
    fuzz::require(tokens.size() <= size_t(attn::kInductionPromptTokens), "at most the allowed tokens", text);
    for (int t : tokens) fuzz::require(t >= 0 && t < attn::kInductionVocab, "tokens are letters of the vocabulary", text);
  }
  // As the demo's setting: refused exactly when the parser refuses it.
  attn::DemoInputs in;
  in.settings = attn::demo_setting_defaults("train_induction");
  in.settings["prompt"] = text;
  const attn::DemoOutputs out = attn::run_demo("train_induction", in);
  fuzz::require(out.error.empty() == ok, "the demo checks the prompt as the parser does", text + "\n" + out.error);
  return 0;
}

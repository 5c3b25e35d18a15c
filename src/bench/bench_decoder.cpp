// bench_decoder.cpp: generation with and without the cache, and training
// speed per option (bench_decoder.h).
#include "bench/bench_decoder.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "train/char_lm.h"
#include "train/char_lm_cache.h"
#include "train/speed.h"
#include "train/train_run.h"

namespace attn::bench {

namespace {
using train::DecoderOptions;
using train::PositionKind;

// "rope, kv_heads 1, window 8, 2 sinks" (the defaults left out).
std::string option_name(const DecoderOptions& o) {
  std::string s = train::position_kind_name(o.position);
  if (o.kv_heads > 0) s += ", kv_heads " + std::to_string(o.kv_heads);
  if (o.window > 0) s += ", window " + std::to_string(o.window);
  if (o.sinks > 0) s += ", " + std::to_string(o.sinks) + " sinks";
  return s;
}

// The English model's run (its corpus, vocabulary and windows) with options o;
// prints an error line and returns false when the corpus is missing.
bool english_run(const char* build, const char* kind, const DecoderOptions& o, std::unique_ptr<train::TrainRun>* out) {
  train::RunDesc d;
  d.kind = train::RunKind::lm_english;
  d.decoder = o;
  *out = std::make_unique<train::TrainRun>(d);
  if ((*out)->error().empty()) return true;
  std::string why = (*out)->error();
  std::replace(why.begin(), why.end(), '"', '\'');
  std::printf("{\"kind\":\"%s\",\"build\":\"%s\",\"error\":\"%s\"}\n", kind, build, why.c_str());
  return false;
}
}  // namespace

void print_generation(const char* build, double budget_ms) {
  for (PositionKind kind : {PositionKind::learned, PositionKind::rope}) {
    std::unique_ptr<train::TrainRun> run;
    if (!english_run(build, "generation", train::decoder_options(kind), &run)) return;
    const train::CharLm& model = *run->char_lm();
    const int n = model.desc().context;
    const std::vector<int>& heldout = run->char_corpus().heldout;
    const std::vector<int> prompt(heldout.begin(), heldout.begin() + std::min<long>(8, long(heldout.size())));
    train::SampleDesc s;
    s.temperature = 0.8f;
    for (int length : {n, 4 * n}) {
      const int count = length - int(prompt.size());
      std::vector<int> texts[2];
      train::CacheSize size;
      double rate[2] = {0, 0};
      for (int cached = 0; cached < 2; ++cached) {
        const auto generate = [&] {
          Rng rng(7);
          texts[cached] = cached ? train::sample_text_cached(model, prompt, count, s, rng, nullptr, &size)
                                 : train::sample_text(model, prompt, count, s, rng);
          return 0.0f;
        };
        const train::StepTiming once = train::time_steps(1, generate);  // also the warm-up
        const int reps = std::max(3, int(budget_ms / 1000.0 / std::max(once.seconds, 1e-6)));
        rate[cached] = train::time_steps(reps, generate).steps_per_second * count;
      }
      // The work of the next character at this length, both ways.
      train::CharLmCache cache(model);
      cache.push_all(std::vector<int>(texts[1].begin(), texts[1].end() - 1));
      const long long before = cache.multiply_adds();
      cache.push(texts[1].back());
      long long recompute = 0;
      model.logits(texts[1], nullptr, &recompute);
      std::printf("{\"kind\":\"generation\",\"build\":\"%s\",\"position\":\"%s\",\"context\":%d,\"prompt\":%d,"
                  "\"length\":%d,\"generated\":%d,\"chars_per_second_cache\":%.1f,\"chars_per_second_no_cache\":%.1f,"
                  "\"speedup\":%.2f,\"same_text\":%s,\"multiply_adds_next_cache\":%lld,"
                  "\"multiply_adds_next_no_cache\":%lld,\"cache_entries\":%d,\"cache_bytes\":%lld}\n",
                  build, train::position_kind_name(kind), n, int(prompt.size()), length, count, rate[1], rate[0],
                  rate[0] > 0 ? rate[1] / rate[0] : 0.0, texts[0] == texts[1] ? "true" : "false",
                  cache.multiply_adds() - before, recompute, size.entries, size.bytes);
      std::fflush(stdout);
    }
  }
}

void print_option_training(const char* build, int steps) {
  using train::decoder_options;
  const DecoderOptions list[] = {decoder_options(PositionKind::learned),         decoder_options(PositionKind::learned, 2),
                                 decoder_options(PositionKind::learned, 1),      decoder_options(PositionKind::sinusoidal),
                                 decoder_options(PositionKind::rope),            decoder_options(PositionKind::alibi),
                                 decoder_options(PositionKind::none),            decoder_options(PositionKind::learned, 0, 8),
                                 decoder_options(PositionKind::learned, 0, 8, 2), decoder_options(PositionKind::rope, 1, 8, 2)};
  for (const DecoderOptions& o : list) {
    std::unique_ptr<train::TrainRun> run;
    if (!english_run(build, "option_training", o, &run)) return;
    const int tokens = run->batch_order().batch_size * run->char_lm()->desc().context;
    run->step();  // warm-up: the optimiser allocates its moments
    const train::StepTiming t = train::time_steps(steps, [&] { return run->step(); });
    std::printf("{\"kind\":\"option_training\",\"build\":\"%s\",\"options\":\"%s\",\"parameters\":%ld,\"steps\":%d,"
                "\"seconds\":%.6f,\"tokens_per_second\":%.1f,\"last_loss\":%.9g}\n",
                build, option_name(o).c_str(), run->parameter_count(), t.steps, t.seconds,
                t.steps_per_second * tokens, double(t.last_loss));
    std::fflush(stdout);
  }
}

}  // namespace attn::bench

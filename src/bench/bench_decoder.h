// bench_decoder.h: the language model's options in the bench (issue 37):
// generation speed with and without the key/value cache, and training tokens
// per second for each option (train/char_lm.h, char_lm_cache.h). One JSON
// line per measurement on stdout, as the rest of bench_attention prints.
#pragma once

namespace attn::bench {

// Characters per second generating from the lesson's model (lm_english's
// sizes), from an 8-character prompt to the context and to 4x it, with the
// cache and without (the whole prefix re-read for every character), for a
// learned table and for rope; budget_ms of timing each.
void print_generation(const char* build, double budget_ms);
// Training tokens per second of the lesson's model with each option
// (steps timed steps after one warm-up step).
void print_option_training(const char* build, int steps);

}  // namespace attn::bench

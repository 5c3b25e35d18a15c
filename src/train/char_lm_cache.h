// char_lm_cache.h: generating text with a key/value cache (curriculum I1).
// Every layer keeps the keys and values of the rows it has read; a new
// character is one row through the model, its query scored against the cached
// keys, its own key and value appended. Without a cache (sample_text,
// char_lm.h) every new character re-reads the whole prefix.
//
// What "the same" means:
//   - Within the context, the logits of each pushed token are, bit for bit,
//     the last row of CharLm::logits of the text so far, for every option
//     (decoder_attention.h says why the sums agree).
//   - Past the context, rope, alibi, none and sinusoidal go on with growing
//     positions (the rows keep their positions 0, 1, 2, ...): still the last
//     row of CharLm::logits of the whole text, which reads all of it.
//   - A learned model has no position row past the context. It re-reads the
//     last `context` tokens at positions 0 .. context-1, as sample_text does:
//     for every new token one batched pass over them (CharLm::logits's)
//     refills the cache, so past the context it saves nothing.
//   - With a window the cache is a rolling buffer: the first `sinks` rows and
//     the last `window` rows, the oldest overwritten (no later query sees it).
//
// Work: multiply_adds() counts what the cached steps computed
// (CharLm::multiply_adds of the rows read and the (query, key) pairs scored):
// per new character, a cached step grows linearly with the keys it reads,
// where re-reading the prefix grows with its square.
#pragma once

#include <vector>

#include "base/rng.h"
#include "train/char_lm.h"

namespace attn::train {

// What a cache holds now, for a page to show it fill and shrink.
struct CacheSize {
  int layers = 0;
  int entries = 0;         // rows held per layer (each a key and a value)
  int capacity = 0;        // the most it will hold (sinks + window, or the context of a
                           // learned model); 0: no limit, it grows with the text
  int numbers_per_entry = 0;  // 2 x kv_heads x d_h: a key and a value
  long long numbers = 0;   // layers x entries x numbers_per_entry
  long long bytes = 0;     // numbers x 4 (float32)
};

class CharLmCache {
 public:
  // The model must outlive the cache; edits (may be null) as for CharLm::logits.
  explicit CharLmCache(const CharLm& model, const CharLmEdits* edits = nullptr);

  // Empties the cache for a new text (the counters too).
  void reset();
  // Reads one more token; returns the logits (V) of the token after it, valid
  // until the next call.
  const float* push(int token);
  // Reads tokens one after another (a prompt); returns the last logits (null
  // when tokens is empty).
  const float* push_all(const std::vector<int>& tokens);

  int length() const { return int(text_.size()); }  // tokens read since reset
  CacheSize size() const;
  // Since reset: rows through the model, and their multiply-adds.
  long long rows() const { return rows_; }
  long long multiply_adds() const { return multiply_adds_; }

 private:
  // One row at the rings' next position.
  void step(int token);
  // The cache refilled by one batched pass over tokens at positions 0 ..
  // tokens.size()-1 (a learned model past its context).
  void reread(const std::vector<int>& tokens);

  const CharLm& model_;
  const CharLmEdits* edits_;
  std::vector<int> text_;
  std::vector<KvRing> rings_;      // one per layer
  StepScratch scratch_;
  Mat x_, mid_, attended_, logits_;
  LayerNormTrace ln_;
  FeedForwardTrace ffn_;
  RopeTable rope_;                 // positions past the model's table
  Mat positions_;                  // sinusoidal rows past the model's
  CharLmWorkspace ws_;             // reread's
  long long rows_ = 0, multiply_adds_ = 0;
};

// sample_text's draws (char_lm.h) with a cache: the same ids for the same rng.
// *cache_out (may be null) gets the cache as it ends.
std::vector<int> sample_text_cached(const CharLm& model, const std::vector<int>& prompt, int count,
                                    const SampleDesc& desc, Rng& rng, const CharLmEdits* edits = nullptr,
                                    CacheSize* cache_out = nullptr);

}  // namespace attn::train

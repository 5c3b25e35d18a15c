// fuzz_shares: the messages between the training worker and its helpers
// (experiments/shares.h) are checked before they are used. Any bytes, read as a
// job, are refused with a reason or keep the decoder's promises (a shape within
// its limits, options that fit it, weights and windows that fit it, a share
// inside the batch), and a helper answers any bytes with a result it can read
// back, never a crash. Read
// as a result, against a small model's gradient size, they are refused or give
// a share whose nodes and losses fit its examples.
#include <string>

#include "experiments/shares.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 20)) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  attn::ShareJob job;
  std::string why;
  if (attn::decode_share_job(bytes, &job, &why)) {
    fuzz::require(job.begin < job.end && job.end <= int(job.windows.size()), "the share lies in the batch", bytes);
    fuzz::require(attn::train::char_lm_options_ok(job.desc, nullptr), "the options fit the shape", bytes);
    for (const auto& w : job.windows)
      for (int t : w.tokens) fuzz::require(t >= 0 && t < job.desc.vocab, "ids in the vocabulary", bytes);
  } else {
    fuzz::require(!why.empty(), "a refused job says why", bytes);
  }
  static attn::ShareHelper helper;
  const std::string answer = helper.compute(bytes);
  uint64_t id = 0;
  fuzz::require(attn::peek_share_result_id(answer, &id), "a helper always answers with a result", bytes);
  attn::ShareResult res;
  // The answer is read back with the gradient size it claims (an error has none).
  if (!attn::decode_share_result(answer, 0, &res, &why)) fuzz::require(!why.empty(), "a refused result says why", bytes);
  // The bytes as a result for a model of 64 gradient floats.
  if (attn::decode_share_result(bytes, 64, &res, &why) && res.error.empty()) {
    fuzz::require(res.share.begin < res.share.end && res.share.end <= res.share.batch, "a result's share lies in its batch",
                  bytes);
    fuzz::require(int(res.share.losses.size()) == res.share.end - res.share.begin, "one loss per example", bytes);
  }
  return 0;
}

// long_range.cpp: generator of the "token k steps earlier" task.
#include "data/long_range.h"

#include "base/rng.h"

namespace attn::data {

LongRangeData make_long_range(const LongRangeDesc& desc) {
  LongRangeData data;
  data.desc = desc;
  data.desc.distance = desc.distance < 1 ? 1 : desc.distance;
  data.desc.alphabet = desc.alphabet < 2 ? 2 : desc.alphabet;
  Rng rng(desc.seed);
  auto draw = [&](int count, std::vector<LabeledSequence>& out) {
    out.resize(count > 0 ? count : 0);
    for (LabeledSequence& ex : out) {
      ex.tokens.resize(data.desc.distance + 1);
      for (int& t : ex.tokens) t = int(rng.below(uint32_t(data.desc.alphabet)));
      ex.label = ex.tokens[0];
    }
  };
  draw(desc.train_count, data.train);
  draw(desc.test_count, data.test);
  return data;
}

}  // namespace attn::data

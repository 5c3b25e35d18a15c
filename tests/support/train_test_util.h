// train_test_util.h: small helpers shared by the training tests
// (test_models, test_induction_model, test_char_lm).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace attn::test {

// Exact bits of a float, for golden values ("0x1.8p+0" style).
inline std::string hex(float x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", double(x));
  return buf;
}

// Both examples of a two-example batch.
inline const std::vector<int> kBoth = {0, 1};

}  // namespace attn::test

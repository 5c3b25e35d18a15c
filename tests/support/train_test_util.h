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

// Our own ten paragraphs (the tenth is held out), for runs that must not depend
// on the cache.
inline const char* const kBuiltInText =
    "The lab trains a small model on text. The model reads a window of characters\n"
    "and learns which character comes next.\n\n"
    "A heading\n\n"
    "Each block of the model looks back at the characters before it, mixes what it\n"
    "finds, and passes the result on. The last layer turns it into scores.\n\n"
    "Counting pairs of characters is the baseline.\n\n"
    "The model has to do better than counting, and it does so by looking further\n"
    "back than one character.\n\n"
    "A word that was seen before is easier to finish.\n\n"
    "Spaces and full stops come often; capital letters start sentences.\n\n"
    "Every step moves the weights a little, against the gradient.\n\n"
    "The held-out text is never trained on.\n\n"
    "Its loss says how well the model has learned the language, not the lines.\n\n"
    "This last paragraph is held out, so the run can be evaluated as well.\n";

}  // namespace attn::test

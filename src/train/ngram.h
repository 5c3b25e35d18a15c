// ngram.h: the counting baselines a character language model has to beat,
// fitted to the training split and scored on held-out text in nats per
// character (the same unit as CharLm's loss).
//
//   unigram   p(c) = (count(c) + 1) / (N + V)      add-one, so a character seen
//                                                  only in held-out text is not
//                                                  impossible
//   bigram    p(c | a) = count(a c) / count(a .)   how often c followed a
//   mixed     p(c | a) = lambda p_bigram(c | a) + (1 - lambda) p_unigram(c)
//             (a never seen as a predecessor: the unigram alone)
//
// lambda is searched on the grid 0, 0.01, ..., 1 and the value with the lowest
// held-out cross-entropy kept -- tuned on the held-out text itself, which
// flatters the baseline (a harder bar for the model, never an easier one).
// Every held-out id but the first is predicted (the first has no predecessor),
// as in the model's evaluation windows. Logs come from fmath.h, so the numbers
// are the same natively and in WebAssembly.
#pragma once

#include <map>
#include <utility>
#include <vector>

namespace attn::train {

struct CharNgram {
  int vocab = 0;
  std::vector<double> unigram;                 // (V) add-one probabilities
  std::map<std::pair<int, int>, int> bigrams;  // (a, c) -> count of a followed by c
  std::vector<int> followed;                   // (V) count(a .): how often a has a successor
  double lambda = 0.0;                         // the chosen mixing weight

  // Held-out cross-entropy (nats per character) of the unigram, and of the mix
  // at weight lam.
  double unigram_loss(const std::vector<int>& ids) const;
  double mixed_loss(const std::vector<int>& ids, double lam) const;
};

struct CharBaselines {
  CharNgram model;
  double unigram = 0.0;  // held-out nats per character
  double bigram = 0.0;   // the mix at the best lambda
  std::vector<std::pair<double, double>> grid;  // (lambda, held-out loss) for every grid point
};

// Counts on `train` (ids in [0, vocab); others are ignored), picks lambda on
// `heldout`.
CharBaselines fit_char_baselines(const std::vector<int>& train, const std::vector<int>& heldout, int vocab);

}  // namespace attn::train

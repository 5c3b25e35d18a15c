// ngram.cpp: counting, the mixed bigram and the search for its weight (see ngram.h).
#include "train/ngram.h"

#include <cstddef>
#include <limits>

#include "train/fmath.h"

namespace attn::train {

namespace {
bool in_range(int id, int V) { return id >= 0 && id < V; }
}  // namespace

double CharNgram::unigram_loss(const std::vector<int>& ids) const {
  double total = 0.0;
  int n = 0;
  for (size_t t = 1; t < ids.size(); ++t) {
    if (!in_range(ids[t], vocab)) continue;
    total -= det_log(unigram[size_t(ids[t])]);
    ++n;
  }
  return n ? total / n : 0.0;
}

double CharNgram::mixed_loss(const std::vector<int>& ids, double lam) const {
  double total = 0.0;
  int n = 0;
  for (size_t t = 1; t < ids.size(); ++t) {
    const int a = ids[t - 1], c = ids[t];
    if (!in_range(c, vocab)) continue;
    double p = unigram[size_t(c)];
    if (in_range(a, vocab) && followed[size_t(a)] > 0) {
      const auto it = bigrams.find({a, c});
      const double pb = it == bigrams.end() ? 0.0 : double(it->second) / double(followed[size_t(a)]);
      p = lam * pb + (1.0 - lam) * p;
    }
    total -= det_log(p);  // p = 0 (lam = 1, an unseen pair) gives +inf: that weight is never picked
    ++n;
  }
  return n ? total / n : 0.0;
}

CharBaselines fit_char_baselines(const std::vector<int>& train, const std::vector<int>& heldout, int vocab) {
  CharBaselines b;
  CharNgram& m = b.model;
  m.vocab = vocab > 0 ? vocab : 0;
  m.unigram.assign(size_t(m.vocab), 0.0);
  m.followed.assign(size_t(m.vocab), 0);
  int counted = 0;
  for (size_t t = 0; t < train.size(); ++t) {
    if (!in_range(train[t], m.vocab)) continue;
    m.unigram[size_t(train[t])] += 1.0;
    ++counted;
    if (t + 1 < train.size() && in_range(train[t + 1], m.vocab)) {
      ++m.bigrams[{train[t], train[t + 1]}];
      ++m.followed[size_t(train[t])];
    }
  }
  for (double& p : m.unigram) p = (p + 1.0) / double(counted + m.vocab);
  b.unigram = m.unigram_loss(heldout);
  b.bigram = std::numeric_limits<double>::infinity();
  for (int k = 0; k <= 100; ++k) {
    const double lam = k / 100.0;
    const double loss = m.mixed_loss(heldout, lam);
    b.grid.emplace_back(lam, loss);
    if (loss < b.bigram) {
      b.bigram = loss;
      m.lambda = lam;
    }
  }
  return b;
}

}  // namespace attn::train

// crf.h: decoding with a linear-chain CRF, the last layer of a classic sequence
// tagger (curriculum F7), against tagging every token on its own.
//
// A tagger first scores every tag for every token: emissions E (n, T). Picking
// each token's best tag on its own ignores how tags follow one another, and can
// write a sequence no annotation allows: with BIO tags, I-A1 ("inside an A1
// phrase") after O, the inside of a phrase that never began. A linear-chain CRF
// adds a score for every pair of neighbouring tags and picks the whole sequence
// with the highest total:
//
//   score(y) = start(y_0) + sum_t E(t, y_t) + sum_{t > 0} A(y_{t-1}, y_t)
//
//   start (1, T): the score of a sequence opening with each tag
//   A     (T, T): A(i, j) = the score of tag j right after tag i
//
// Viterbi finds that sequence in O(n T^2): for each tag it keeps the best score
// of a path ending in it, step by step, and follows the back pointers from the
// best last tag. The naive reference tries all T^n sequences. Only decoding is
// here: a real CRF learns start and A with E (the forward algorithm and the
// log-likelihood), the lab sets them by hand.
#pragma once

#include <string>
#include <vector>

#include "base/tensor.h"

namespace attn::train {

struct TagPath {
  std::vector<int> tags;  // one tag index per token
  float score = 0.0f;     // score(y) above
};

// score(y) of one tag sequence (tags.size() == E.rows()).
float tag_path_score(const Mat& E, const Mat& A, const Mat& start, const std::vector<int>& tags);

// Every token's own best tag (the first on ties), transitions ignored; its score
// is still score(y) with A and start, so the two decoders can be compared.
TagPath independent_tags(const Mat& E, const Mat& A, const Mat& start);

// The highest-scoring sequence by Viterbi (the first found on ties: the lowest
// previous tag wins). E (n >= 1, T >= 1).
TagPath viterbi_decode(const Mat& E, const Mat& A, const Mat& start);

// The naive reference: every one of the T^n sequences, in order, the first best
// kept. Only for small n and T (the tests keep T^n below a million).
TagPath brute_force_decode(const Mat& E, const Mat& A, const Mat& start);

// BIO rules: "I-X" may only follow "B-X" or "I-X" (and may not open a sentence);
// every other tag may follow anything. `prev` is "" at the start.
bool bio_allowed(const std::string& prev, const std::string& next);
// Transition scores from the BIO rules: 0 where allowed, -penalty where not.
// A (T, T) and start (1, T) are resized.
void bio_transitions(const std::vector<std::string>& tags, float penalty, Mat* A, Mat* start);
// How many neighbouring pairs of `tags` (the start included) break the BIO rules.
int bio_violations(const std::vector<std::string>& tag_names, const std::vector<int>& tags);

}  // namespace attn::train

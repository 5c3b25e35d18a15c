// crf.cpp: Viterbi decoding of a linear-chain CRF, its brute-force reference,
// and the BIO transition rules.
#include "train/crf.h"

namespace attn::train {

float tag_path_score(const Mat& E, const Mat& A, const Mat& start, const std::vector<int>& tags) {
  float s = 0.0f;
  for (size_t t = 0; t < tags.size(); ++t) {
    s += E(Eigen::Index(t), tags[t]);
    s += t == 0 ? start(0, tags[0]) : A(tags[t - 1], tags[t]);
  }
  return s;
}

TagPath independent_tags(const Mat& E, const Mat& A, const Mat& start) {
  TagPath p;
  for (Eigen::Index t = 0; t < E.rows(); ++t) {
    Eigen::Index best = 0;
    for (Eigen::Index j = 1; j < E.cols(); ++j)
      if (E(t, j) > E(t, best)) best = j;
    p.tags.push_back(int(best));
  }
  p.score = tag_path_score(E, A, start, p.tags);
  return p;
}

TagPath viterbi_decode(const Mat& E, const Mat& A, const Mat& start) {
  const Eigen::Index n = E.rows(), T = E.cols();
  // best (n, T): the best score of a path over tokens 0..t that ends in tag j;
  // back (n, T): the tag before it on that path.
  Mat best(n, T);
  Eigen::MatrixXi back = Eigen::MatrixXi::Zero(n, T);
  for (Eigen::Index j = 0; j < T; ++j) best(0, j) = start(0, j) + E(0, j);
  for (Eigen::Index t = 1; t < n; ++t)
    for (Eigen::Index j = 0; j < T; ++j) {
      Eigen::Index arg = 0;
      for (Eigen::Index i = 1; i < T; ++i)
        if (best(t - 1, i) + A(i, j) > best(t - 1, arg) + A(arg, j)) arg = i;
      best(t, j) = best(t - 1, arg) + A(arg, j) + E(t, j);
      back(t, j) = int(arg);
    }
  Eigen::Index last = 0;
  for (Eigen::Index j = 1; j < T; ++j)
    if (best(n - 1, j) > best(n - 1, last)) last = j;
  TagPath p;
  p.tags.assign(size_t(n), 0);
  p.tags[size_t(n - 1)] = int(last);
  for (Eigen::Index t = n - 1; t > 0; --t) p.tags[size_t(t - 1)] = back(t, p.tags[size_t(t)]);
  p.score = tag_path_score(E, A, start, p.tags);  // the same sum, added in path order
  return p;
}

TagPath brute_force_decode(const Mat& E, const Mat& A, const Mat& start) {
  const int n = int(E.rows()), T = int(E.cols());
  std::vector<int> tags(size_t(n), 0);
  TagPath best;
  bool any = false;
  while (true) {
    const float s = tag_path_score(E, A, start, tags);
    if (!any || s > best.score) best = {tags, s};
    any = true;
    int t = n - 1;  // the next sequence, counting in base T with the last token fastest
    while (t >= 0 && ++tags[size_t(t)] == T) tags[size_t(t--)] = 0;
    if (t < 0) break;
  }
  return best;
}

bool bio_allowed(const std::string& prev, const std::string& next) {
  if (next.rfind("I-", 0) != 0) return true;
  const std::string type = next.substr(2);
  return prev == "B-" + type || prev == "I-" + type;
}

void bio_transitions(const std::vector<std::string>& tags, float penalty, Mat* A, Mat* start) {
  const Eigen::Index T = Eigen::Index(tags.size());
  A->resize(T, T);
  start->resize(1, T);
  for (Eigen::Index j = 0; j < T; ++j) {
    (*start)(0, j) = bio_allowed("", tags[size_t(j)]) ? 0.0f : -penalty;
    for (Eigen::Index i = 0; i < T; ++i) (*A)(i, j) = bio_allowed(tags[size_t(i)], tags[size_t(j)]) ? 0.0f : -penalty;
  }
}

int bio_violations(const std::vector<std::string>& tag_names, const std::vector<int>& tags) {
  int bad = 0;
  for (size_t t = 0; t < tags.size(); ++t)
    bad += !bio_allowed(t == 0 ? std::string() : tag_names[size_t(tags[t - 1])], tag_names[size_t(tags[t])]);
  return bad;
}

}  // namespace attn::train

// glimpse.cpp: soft, hard (argmax), REINFORCE and Gumbel-softmax glimpses.
//
// Sections: 1 names and construction, 2 per-image passes, 3 training,
// 4 REINFORCE, 5 evaluation.
#include "train/glimpse.h"

#include "base/enum_names.h"
#include "train/fmath.h"
#include "train/kernels.h"
#include "train/loss.h"

namespace attn::train {

// ---------------------------------------------------------------- 1 names and construction
namespace {
constexpr EnumName<GlimpseMode> kGlimpseModes[] = {{GlimpseMode::soft, "soft"},
                                                   {GlimpseMode::hard_argmax, "hard_argmax"},
                                                   {GlimpseMode::reinforce, "reinforce"},
                                                   {GlimpseMode::gumbel, "gumbel"}};
}  // namespace

const char* glimpse_mode_name(GlimpseMode mode) { return enum_name(kGlimpseModes, mode); }
bool parse_glimpse_mode(const std::string& name, GlimpseMode* mode) { return parse_enum(kGlimpseModes, name, mode); }

GlimpseModel::GlimpseModel(const GlimpseDesc& desc) : Model(desc.optimizer), desc_(desc) {
  Rng rng(desc.seed);
  scorer_.init("scorer", desc.patch_size, desc.attention_size, rng);
  classifier_.init("classifier", desc.patch_size, desc.classes, rng);
}

void GlimpseModel::collect(ParamList& p) {
  scorer_.collect(p);
  classifier_.collect(p);
}

// ---------------------------------------------------------------- 2 per-image passes
namespace {

// Index j drawn with probability alpha_j (inverse CDF of one uniform number).
int sample_index(const Mat& alpha, Rng& rng) {
  const float u = rng.uniform();
  float cumulative = 0.0f;
  for (Eigen::Index j = 0; j < alpha.cols(); ++j) {
    cumulative += alpha(0, j);
    if (u < cumulative) return int(j);
  }
  return int(alpha.cols()) - 1;  // u beyond the rounded total
}

Mat row_of(const Mat& P, int j) { return P.row(j); }

}  // namespace

// Gumbel-softmax forward for one image; the trace keeps what the backward needs.
float GlimpseModel::gumbel_forward(const data::PatchImage& image, uint64_t noise_seed, GumbelTrace& tr) const {
  const Mat& P = image.patches;
  const int N = int(P.rows()), d = int(P.cols());
  attention_scores_forward(scorer_, P, tr.scores);
  // y = softmax((e + G) / tau): (N)
  Rng rng(noise_seed);
  std::vector<float> noisy(N);
  tr.y.resize(N);
  for (int j = 0; j < N; ++j) {
    const float G = -log_f(-log_f(rng.uniform_open()));
    noisy[j] = (tr.scores.scores(0, j) + G) / desc_.gumbel_tau;
  }
  softmax_row(noisy.data(), N, tr.y.data());
  std::vector<float> used = tr.y;  // the weights the forward pass mixes with
  if (desc_.straight_through) {
    const int j = argmax(tr.y.data(), N);
    for (int k = 0; k < N; ++k) used[k] = k == j ? 1.0f : 0.0f;
  }
  tr.g = Mat::Zero(1, d);
  for (int j = 0; j < N; ++j) axpy(used[j], &P(j, 0), tr.g.data(), d);
  classifier_.forward(tr.g, tr.logits);
  return softmax_cross_entropy_row(tr.logits.data(), desc_.classes, image.label, nullptr, 1.0f);
}

void GlimpseModel::gumbel_backward(const data::PatchImage& image, const GumbelTrace& tr, float scale) {
  const Mat& P = image.patches;
  const int N = int(P.rows()), d = int(P.cols());
  Mat dlogits(1, desc_.classes), dg;
  softmax_cross_entropy_row(tr.logits.data(), desc_.classes, image.label, dlogits.data(), scale);
  classifier_.backward(tr.g, dlogits, &dg);
  // Straight-through uses the soft y's gradient for the one-hot forward.
  std::vector<float> dy(N), dnoisy(N);
  for (int j = 0; j < N; ++j) dy[j] = dot(dg.data(), &P(j, 0), d);
  softmax_row_backward(tr.y.data(), dy.data(), N, dnoisy.data());
  Mat de(1, N), dP = Mat::Zero(N, d);
  for (int j = 0; j < N; ++j) de(0, j) = dnoisy[j] / desc_.gumbel_tau;
  attention_scores_backward(scorer_, P, tr.scores, de, dP);
}

// ---------------------------------------------------------------- 3 training
// REINFORCE needs the whole batch (the baseline is the batch's mean reward), so
// it takes its own path; the other modes are one example at a time (Model).
float GlimpseModel::forward_backward(const Set& set, const std::vector<int>& batch) {
  rewarded_ = false;
  if (desc_.mode != GlimpseMode::reinforce) return Model::forward_backward(set, batch);
  zero_grads(params());
  if (batch.empty()) return 0.0f;
  const std::vector<int> picks = sample_picks(set, batch);
  // Rewards first (R = log p(word | glimpse) = -CE), then advantages R - b.
  std::vector<float> advantages(batch.size());
  for (size_t k = 0; k < batch.size(); ++k) {
    Mat logits;
    classifier_.forward(row_of(set[batch[k]].patches, picks[k]), logits);
    const float reward = -softmax_cross_entropy_row(logits.data(), desc_.classes, set[batch[k]].label, nullptr, 1.0f);
    advantages[k] = reward;
  }
  double mean_reward = 0.0;
  for (float r : advantages) mean_reward += r;
  mean_reward /= double(advantages.size());
  const float b = steps_ == 0 ? float(mean_reward) : baseline_;
  for (float& a : advantages) a -= b;
  rewarded_ = true;
  return reinforce_backward(set, batch, picks, advantages);
}

double GlimpseModel::example_gradient(const Set& set, int i, float scale) {
  const data::PatchImage& img = set[size_t(i)];
  const Mat& P = img.patches;
  const int N = int(P.rows()), d = int(P.cols());
  if (desc_.mode == GlimpseMode::gumbel) {
    GumbelTrace gt;
    const float l = gumbel_forward(img, mix_seed(desc_.seed, uint64_t(steps_), uint64_t(i)), gt);
    gumbel_backward(img, gt, scale);
    return l;
  }
  AttentionPoolingTrace tr;
  Mat g, logits, dg;
  if (desc_.mode == GlimpseMode::soft) {
    attention_pooling_forward(scorer_, P, tr);
    g = tr.pooled;
  } else {  // hard_argmax
    attention_scores_forward(scorer_, P, tr);
    g = row_of(P, argmax(tr.scores.data(), N));
  }
  classifier_.forward(g, logits);
  Mat dlogits(1, desc_.classes);
  const float l = softmax_cross_entropy_row(logits.data(), desc_.classes, img.label, dlogits.data(), scale);
  classifier_.backward(g, dlogits, &dg);
  if (desc_.mode == GlimpseMode::soft) {
    Mat dP = Mat::Zero(N, d);
    attention_pooling_backward(scorer_, P, tr, dg, dP);
  }
  // hard_argmax: the pick is piecewise constant in the scores -> no scorer gradient.
  return l;
}

float GlimpseModel::loss(const Set& set, const std::vector<int>& batch) const {
  if (desc_.mode != GlimpseMode::reinforce) return Model::loss(set, batch);
  if (batch.empty()) return 0.0f;
  const std::vector<int> picks = sample_picks(set, batch);
  double total = 0.0;
  for (size_t k = 0; k < batch.size(); ++k)
    total += glimpse_loss(set[size_t(batch[k])], &picks[k]);
  return float(total / double(batch.size()));
}

double GlimpseModel::example_loss(const Set& set, int i) const {
  const data::PatchImage& img = set[size_t(i)];
  if (desc_.mode == GlimpseMode::gumbel) {
    GumbelTrace gt;
    return gumbel_forward(img, mix_seed(desc_.seed, uint64_t(steps_), uint64_t(i)), gt);
  }
  return glimpse_loss(img, nullptr);
}

// Cross-entropy of the word read from one glimpse: the soft mix, the argmax
// patch, or patch *pick (REINFORCE's sample).
float GlimpseModel::glimpse_loss(const data::PatchImage& img, const int* pick) const {
  const Mat& P = img.patches;
  AttentionPoolingTrace tr;
  Mat g, logits;
  if (pick) {
    g = row_of(P, *pick);
  } else if (desc_.mode == GlimpseMode::soft) {
    attention_pooling_forward(scorer_, P, tr);
    g = tr.pooled;
  } else {
    attention_scores_forward(scorer_, P, tr);
    g = row_of(P, argmax(tr.scores.data(), int(P.rows())));
  }
  classifier_.forward(g, logits);
  return softmax_cross_entropy_row(logits.data(), desc_.classes, img.label, nullptr, 1.0f);
}

// The batch's mean reward is -l (R = -CE of the sampled glimpse).
void GlimpseModel::before_update(float l) {
  if (!rewarded_) return;
  const float mean_reward = -l;
  baseline_ = steps_ == 0 ? mean_reward : desc_.baseline_decay * baseline_ + (1.0f - desc_.baseline_decay) * mean_reward;
}

// ---------------------------------------------------------------- 4 REINFORCE
std::vector<int> GlimpseModel::sample_picks(const std::vector<data::PatchImage>& set,
                                            const std::vector<int>& batch) const {
  std::vector<int> picks;
  for (int i : batch) {
    AttentionPoolingTrace tr;
    attention_scores_forward(scorer_, set[i].patches, tr);
    Rng rng(mix_seed(desc_.seed, uint64_t(steps_), uint64_t(i)));
    picks.push_back(sample_index(tr.alpha, rng));
  }
  return picks;
}

float GlimpseModel::reinforce_backward(const std::vector<data::PatchImage>& set, const std::vector<int>& batch,
                                       const std::vector<int>& picks, const std::vector<float>& advantages) {
  zero_grads(params());
  if (batch.empty()) return 0.0f;
  const float scale = 1.0f / float(batch.size());
  double total = 0.0;
  for (size_t k = 0; k < batch.size(); ++k) {
    const data::PatchImage& img = set[batch[k]];
    const Mat& P = img.patches;
    const int N = int(P.rows()), d = int(P.cols());
    // Classifier: ordinary backprop through the sampled glimpse.
    const Mat g = row_of(P, picks[k]);
    Mat logits, dlogits(1, desc_.classes);
    classifier_.forward(g, logits);
    total += softmax_cross_entropy_row(logits.data(), desc_.classes, img.label, dlogits.data(), scale);
    classifier_.backward(g, dlogits, nullptr);
    // Scorer: d/de of -(R - b) log alpha_j = (R - b) (alpha - onehot_j), which is
    // the cross-entropy gradient towards j, weighted by the advantage.
    AttentionPoolingTrace tr;
    attention_scores_forward(scorer_, P, tr);
    Mat de(1, N), dP = Mat::Zero(N, d);
    softmax_cross_entropy_row(tr.scores.data(), N, picks[k], de.data(), scale * advantages[k]);
    attention_scores_backward(scorer_, P, tr, de, dP);
  }
  return float(total / double(batch.size()));
}

float GlimpseModel::reinforce_surrogate(const std::vector<data::PatchImage>& set, const std::vector<int>& batch,
                                        const std::vector<int>& picks, const std::vector<float>& advantages) const {
  if (batch.empty()) return 0.0f;
  double total = 0.0;
  for (size_t k = 0; k < batch.size(); ++k) {
    const data::PatchImage& img = set[batch[k]];
    Mat logits;
    classifier_.forward(row_of(img.patches, picks[k]), logits);
    total += softmax_cross_entropy_row(logits.data(), desc_.classes, img.label, nullptr, 1.0f);
    AttentionPoolingTrace tr;
    attention_scores_forward(scorer_, img.patches, tr);
    const float neg_log_alpha =
        softmax_cross_entropy_row(tr.scores.data(), int(img.patches.rows()), picks[k], nullptr, 1.0f);
    total += double(advantages[k]) * neg_log_alpha;
  }
  return float(total / double(batch.size()));
}

// ---------------------------------------------------------------- 5 evaluation
Mat GlimpseModel::weights(const data::PatchImage& image) const {
  AttentionPoolingTrace tr;
  attention_scores_forward(scorer_, image.patches, tr);
  return tr.alpha;
}

GlimpseEval GlimpseModel::evaluate(const std::vector<data::PatchImage>& set) const {
  GlimpseEval ev;
  double total = 0.0, target_weight = 0.0;
  int right = 0, picked = 0;
  for (const data::PatchImage& img : set) {
    const Mat& P = img.patches;
    AttentionPoolingTrace tr;
    Mat g, logits;
    const int N = int(P.rows());
    if (desc_.mode == GlimpseMode::soft) {
      attention_pooling_forward(scorer_, P, tr);
      g = tr.pooled;
    } else {
      attention_scores_forward(scorer_, P, tr);
      g = row_of(P, argmax(tr.scores.data(), N));
    }
    classifier_.forward(g, logits);
    total += softmax_cross_entropy_row(logits.data(), desc_.classes, img.label, nullptr, 1.0f);
    right += argmax(logits.data(), desc_.classes) == img.label;
    picked += argmax(tr.alpha.data(), N) == img.target_patch;
    target_weight += tr.alpha(0, img.target_patch);
  }
  ev.count = int(set.size());
  if (ev.count) {
    ev.loss = float(total / ev.count);
    ev.accuracy = float(right) / float(ev.count);
    ev.pick_accuracy = float(picked) / float(ev.count);
    ev.target_weight = float(target_weight / ev.count);
  }
  return ev;
}

}  // namespace attn::train

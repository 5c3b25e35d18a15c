// glimpse.h: one glimpse at an image of patches (data/patches.h), chosen by
// attention, then a caption word from what was seen (curriculum A1, A3, B2).
//
//   P (N, 16)                          the N patches' pixels
//   u_j = tanh(P_j W + b), e_j = u_j . v    scores (N), a learned "where to look"
//   alpha = softmax(e)                 (N)
//   glimpse g (16):  soft          g = sum_j alpha_j P_j           differentiable
//                    hard_argmax   g = P_argmax(e)                 scorer gets NO gradient
//                    reinforce     g = P_j, j ~ alpha (sampled)    REINFORCE
//                    gumbel        g = sum_j y_j P_j, y = softmax((e + G) / tau),
//                                  G_j = -log(-log U_j)            Gumbel-softmax
//   logits = g W_c + b_c (classes),  loss = cross-entropy with the caption word
//
// Hard attention is not differentiable: the pick j is a step function of the
// scores, so backpropagation gives the scorer a zero gradient (hard_argmax shows
// what happens then: the scorer never learns where to look). REINFORCE uses the
// score-function estimator instead: with reward R = log p(word | P_j) and a
// baseline b (a running mean of R, which lowers the variance without changing
// the expected gradient), the scorer follows
//   grad = (R - b) grad log alpha_j,
// i.e. it minimises the surrogate  CE_j - (R - b) log alpha_j  with R, b held
// constant. Gumbel-softmax replaces the sample by a softmax of noisy scores: as
// tau -> 0 it approaches a one-hot sample, and it is differentiable for tau > 0.
// At evaluation every hard mode looks at argmax_j e_j; soft mode uses alpha.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/patches.h"
#include "train/layers.h"
#include "train/model.h"
#include "train/model_common.h"

namespace attn::train {

enum class GlimpseMode { soft, hard_argmax, reinforce, gumbel };
const char* glimpse_mode_name(GlimpseMode mode);  // "soft", "hard_argmax", "reinforce", "gumbel"
bool parse_glimpse_mode(const std::string& name, GlimpseMode* mode);

struct GlimpseDesc {
  GlimpseMode mode = GlimpseMode::soft;
  int patch_size = data::kPatchPixels;
  int classes = data::kShapeCount;
  int attention_size = 16;      // d_a of the scorer
  float gumbel_tau = 0.5f;
  bool straight_through = false;  // gumbel: one-hot forward, soft backward
  float baseline_decay = 0.9f;    // reinforce: b <- decay b + (1 - decay) mean R
  OptimizerDesc optimizer = {OptimizerKind::adam, 0.01f, 0.0f, 0.9f, 0.999f, 1e-8f, 0.0f};
  uint64_t seed = 1;
};

struct GlimpseEval {
  float loss = 0.0f;           // cross-entropy of the evaluation-mode prediction
  float accuracy = 0.0f;       // caption word right
  float pick_accuracy = 0.0f;  // argmax_j alpha_j is the patch holding the answer
  float target_weight = 0.0f;  // mean alpha on that patch
  int count = 0;
};

// Trained by Model (model.h): the training gradient of the mode (noise and
// samples fixed by seed and step), the loss the mean cross-entropy over the
// batch (reinforce: of this step's samples).
class GlimpseModel : public Model<data::PatchImage> {
 public:
  explicit GlimpseModel(const GlimpseDesc& desc);

  float forward_backward(const Set& set, const std::vector<int>& batch) override;
  float loss(const Set& set, const std::vector<int>& batch) const override;
  GlimpseEval evaluate(const std::vector<data::PatchImage>& set) const;
  Mat weights(const data::PatchImage& image) const;  // alpha (1, N)

  // REINFORCE pieces, exposed so the estimator can be checked: the patches this
  // step would sample, the gradient of the surrogate for given picks and
  // advantages (R - b), and the surrogate itself.
  std::vector<int> sample_picks(const std::vector<data::PatchImage>& set, const std::vector<int>& batch) const;
  float reinforce_backward(const std::vector<data::PatchImage>& set, const std::vector<int>& batch,
                           const std::vector<int>& picks, const std::vector<float>& advantages);
  float reinforce_surrogate(const std::vector<data::PatchImage>& set, const std::vector<int>& batch,
                            const std::vector<int>& picks, const std::vector<float>& advantages) const;

  float baseline() const { return baseline_; }
  const GlimpseDesc& desc() const { return desc_; }

 protected:
  void collect(ParamList& p) override;
  double example_gradient(const Set& set, int i, float scale) override;
  double example_loss(const Set& set, int i) const override;
  void before_update(float loss) override;

 private:
  struct GumbelTrace {
    AttentionPoolingTrace scores;  // e and alpha (N)
    std::vector<float> y;          // (N) softmax((e + G) / tau)
    Mat g;                         // (1, 16) the glimpse
    Mat logits;                    // (1, classes)
  };
  float gumbel_forward(const data::PatchImage& image, uint64_t noise_seed, GumbelTrace& tr) const;
  void gumbel_backward(const data::PatchImage& image, const GumbelTrace& tr, float scale);

  float glimpse_loss(const data::PatchImage& img, const int* pick) const;

  GlimpseDesc desc_;
  float baseline_ = 0.0f;
  bool rewarded_ = false;  // this step was a REINFORCE step with rewards
  AttentionPooling scorer_;
  Dense classifier_;
};

}  // namespace attn::train

// induction_model.h: a small decoder-only Transformer trained to predict the
// next token of the induction sequences of data/induction.h (issue 15), with
// the probes and edits the induction lesson needs.
//
//   tokens (n)                                    n <= max_length
//   X_0 = embed(tokens) + pos[0..n-1]   (n, d)    learned token and position rows
//   layer l = 1..layers:
//     X_l = X_{l-1} + MHA_l(X_{l-1}) W_O_l  (n, d) causal multi-head self-attention
//   logits = X_L W_U + b_U              (n, V)    row i predicts token i + 1
//   loss = mean over i < n-1 of cross-entropy(logits_i, tokens[i+1]), Adam
//
// Attention-only, no LayerNorm and no feed-forward layer: the model we chose.
// Induction needs only two attention steps -- a layer-1 head copies the
// previous token into each position, a layer-2 head matches the current token
// against those copies and reads the token after the match -- and every piece
// of that circuit sits on the residual stream as a sum the learner can take
// apart: each head writes its own term, so ablating a head removes exactly that
// term. Without feed-forward layers and norms a step is cheaper (a 4 d wide
// FFN alone would double each layer's weights) and there is less to explain;
// small attention-only models are known to form induction heads quickly. The
// full block (LayerNorm, FFN) is in attn/transformer.h for the lessons.
//
// TrainRun (kind induction) trains it on sequences whose L varies from 4 to 8.
// With one fixed L the repeat always starts at the same position, and a model
// can find the answer by position alone: in a sweep at L = 8, one seed of three
// reached a repeated-half loss of 0.04 with no head scoring above 0.01 on
// induction. Defaults (2 heads per layer, Adam at 0.01, batch 32) come from a
// sweep over heads, learning rate and batch size ("report: induction
// hyper-parameters" in tests/train/test_induction_model.cpp).
//
// Sections: 1 description and edits, 2 the model, 3 head scores.
#pragma once

#include <cstdint>
#include <vector>

#include "data/induction.h"
#include "train/attention_layer.h"
#include "train/layers.h"
#include "train/model.h"
#include "train/model_common.h"

namespace attn::train {

// ---------------------------------------------------------------- 1 description and edits
struct InductionModelDesc {
  int vocab = 16;        // V token ids
  int max_length = 16;   // rows of the position table (sequences of 2L <= this;
                         // positions beyond it share the last row)
  int d_model = 32;      // residual stream width d
  int layers = 2;
  int heads = 2;         // per layer
  int head_size = 16;    // d_h (heads * d_h = d_model)
  OptimizerDesc optimizer = {OptimizerKind::adam, 0.01f, 0.0f, 0.9f, 0.999f, 1e-8f, 1.0f};
  uint64_t seed = 1;
};

// Edits of the trained model, applied in the forward pass without retraining:
// layer[l] edits layer l's heads (see AttentionEdits in layers.h). Layers
// without an entry are left alone.
struct InductionEdits {
  std::vector<AttentionEdits> layer;
  // Head `head` of layer `l` writes scale times its output (0: ablated).
  void scale_head(int l, int head, float scale);
  // Head `head` of layer `l` uses `weights` (renormalised) in row `row`.
  void override_row(int l, int head, int row, const std::vector<float>& weights);
  const AttentionEdits* of(int l) const { return l < int(layer.size()) ? &layer[size_t(l)] : nullptr; }
};

// Held-out next-token results, split by where the target lies (data/induction.h):
// counts are targets, losses are means per target.
struct InductionEval {
  EvalResult first_half;     // targets 1..L-1: random, no model can know them
  EvalResult repeated_half;  // targets L+1..2L-1: the induction targets
  EvalResult all;            // every target 1..2L-1 (the training loss)
};

struct HeadScores;  // section 3

// ---------------------------------------------------------------- 2 the model
// Trained by Model (model.h): a sequence's loss is the mean next-token
// cross-entropy over its targets, and the batch loss the mean over sequences.
class InductionModel : public Model<data::InductionSequence> {
 public:
  explicit InductionModel(const InductionModelDesc& desc);

  using Model::forward_backward;
  using Model::loss;
  // The loss and gradients of the edited model (tests use this).
  float forward_backward(const Set& set, const std::vector<int>& batch, const InductionEdits* edits);
  float loss(const Set& set, const std::vector<int>& batch, const InductionEdits* edits) const;

  // Loss and accuracy (argmax) per half; each sequence's L is half its length.
  // With `scores`, also head_scores() of the same set from the same forward
  // passes (the page evaluates and probes with one pass per sequence).
  InductionEval evaluate(const std::vector<data::InductionSequence>& set, const InductionEdits* edits = nullptr,
                         HeadScores* scores = nullptr) const;
  // logits (n, V): row i scores the token after position i.
  Mat logits(const std::vector<int>& tokens, const InductionEdits* edits = nullptr) const;
  // The predicted next token after each position (argmax of each logits row).
  std::vector<int> predictions(const std::vector<int>& tokens, const InductionEdits* edits = nullptr) const;
  // weights[l][head] (n, n), causal (zero above the diagonal).
  std::vector<std::vector<Mat>> attention(const std::vector<int>& tokens,
                                          const InductionEdits* edits = nullptr) const;

  const InductionModelDesc& desc() const { return desc_; }

 protected:
  void collect(ParamList& p) override;
  double example_gradient(const Set& set, int i, float scale) override;
  double example_loss(const Set& set, int i) const override;

 private:
  struct Trace;
  void forward(const std::vector<int>& tokens, const InductionEdits* edits, Trace& tr) const;
  // Sum of the per-target losses of one sequence, each target's gradient
  // scaled by `scale` into dlogits when it is not null.
  int position_row(int i) const { return i < desc_.max_length ? i : desc_.max_length - 1; }
  static double sequence_loss(const Mat& logits, const std::vector<int>& tokens, float scale, Mat* dlogits);
  // Adds one sequence's head scores (its weights from a forward pass) to *sum.
  static void add_head_scores(const std::vector<SelfAttentionTrace>& att, const data::InductionSequence& seq,
                              HeadScores* sum);

  double sequence_mean_loss(const std::vector<int>& tokens, const InductionEdits* edits) const;

  InductionModelDesc desc_;
  const InductionEdits* edits_ = nullptr;  // during forward_backward with edits
  Embedding embed_;
  Param pos_;  // (max_length, d)
  std::vector<SelfAttentionLayer> layers_;
  Dense unembed_;  // (d -> V)
};

// ---------------------------------------------------------------- 3 head scores
// Previous-token score of one head's weights P (n, n): the mean over queries
// i = 1..n-1 of P(i, i-1).
float previous_token_score(const Mat& P);
// Induction score of one head on one sequence of 2L tokens: the mean over the
// queries i = L..2L-2 (whose targets are the repeated half) of the weight on
// the position right after each earlier occurrence of tokens[i], i.e. the sum
// of P(i, k+1) over k < i with tokens[k] == tokens[i].
float induction_score(const Mat& P, const std::vector<int>& tokens, int half_length);

// Both scores per head, averaged over a set of sequences (each with L = half
// its length): (layers, heads) each.
struct HeadScores {
  Mat previous_token;
  Mat induction;
};
HeadScores head_scores(const InductionModel& model, const std::vector<data::InductionSequence>& set,
                       const InductionEdits* edits = nullptr);

}  // namespace attn::train

// birnn_classifier.h: a bidirectional GRU classifier whose sentence vector is
// either an attention-weighted sum or the plain average of the BiRNN states
// (curriculum E2: RNN + attention for classification).
//
//   ids (n) -> X (n, E) -> forward GRU  -> H_f (n, H)
//                       -> backward GRU -> H_b (n, H)
//   Hs = [H_f | H_b]                         (n, 2H)  each word in its context
//   attention pooling:  u_t = tanh(Hs_t W + b) (d_a), e_t = u_t . v,
//                       alpha = softmax(e) (n), s = sum_t alpha_t Hs_t (2H)
//   average pooling:    alpha_t = 1/n,         s = mean_t Hs_t (2H)
//   p = sigmoid(s w + b_out),  loss = binary cross-entropy
// With attention pooling the weights alpha show which words decided the label
// (sentiment words should get high weight, names and places low weight).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/recurrent.h"
#include "data/sentiment.h"
#include "train/layers.h"
#include "train/model.h"
#include "train/model_common.h"

namespace attn::train {

enum class PoolingKind { attention, average };
const char* pooling_kind_name(PoolingKind kind);  // "attention", "average"

struct BiRnnClassifierDesc {
  int vocab = 0;
  PoolingKind pooling = PoolingKind::attention;
  CellKind cell = CellKind::gru;
  int embed = 16;           // E
  int hidden = 16;          // H per direction
  int attention_size = 16;  // d_a
  OptimizerDesc optimizer = {OptimizerKind::adam, 0.01f, 0.0f, 0.9f, 0.999f, 1e-8f, 5.0f};
  uint64_t seed = 1;
};

// Trained by Model (model.h): the loss is the mean binary cross-entropy over
// the batch.
class BiRnnClassifier : public Model<data::Review> {
 public:
  explicit BiRnnClassifier(const BiRnnClassifierDesc& desc);

  EvalResult evaluate(const std::vector<data::Review>& set) const;
  float predict(const std::vector<int>& ids) const;
  // The pooling weights alpha over the words, (1, n) (1/n each for average pooling).
  Mat word_weights(const std::vector<int>& ids) const;

  const BiRnnClassifierDesc& desc() const { return desc_; }

 protected:
  void collect(ParamList& p) override;
  double example_gradient(const Set& set, int i, float scale) override;
  double example_loss(const Set& set, int i) const override;

 private:
  struct Trace;
  void forward(const std::vector<int>& ids, Trace& tr) const;

  BiRnnClassifierDesc desc_;
  Embedding embed_;
  RecurrentLayer forward_rnn_, backward_rnn_;
  AttentionPooling pool_;
  Dense out_;
};

}  // namespace attn::train

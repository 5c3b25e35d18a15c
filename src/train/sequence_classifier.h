// sequence_classifier.h: the two contenders of the long-range task (curriculum
// E1, E4, D4, D5): a recurrent classifier and a Transformer-encoder-style
// self-attention classifier, same data, same optimiser, same step budget.
//
// Recurrent (tanh RNN, LSTM or GRU), n tokens, E embedding, H hidden, A classes:
//   ids (n) -> X (n, E) -> RNN -> h_n (H) -> logits (A) = h_n W + b
// The answer must survive n - 1 state updates: the path from token 0 to the
// output is n steps long.
//
// Self-attention (L blocks, h heads, d_model = E, d_h = E / h):
//   ids (n) -> X_0 = embed(ids) + PE (n, E)            sinusoidal, summed
//   block l:  A = MHA(X_{l-1}) W_O                    (n, E)
//             X' = X_{l-1} + A                        residual
//             X_l = X' + relu(X' W_1 + b_1) W_2 + b_2 position-wise dense, residual
//   logits (A) = X_L[n - 1] W + b                     read out at the last position
// Token 0 is one attention step away from the last position, whatever n is.
//
// Two switches of the attention kind serve the word-order task (E3):
// `positions = false` leaves out the PE, and `mean_readout = true` reads out the
// mean of X_L's rows instead of its last row. With both, the logits depend only
// on which tokens occur, not on their order: attention and the position-wise
// layers move rows along with a permutation, and the mean forgets it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/recurrent.h"
#include "data/long_range.h"
#include "train/attention_layer.h"
#include "train/layers.h"
#include "train/model.h"
#include "train/model_common.h"

namespace attn::train {

enum class SequenceModelKind { rnn_tanh, lstm, gru, attention };
const char* sequence_model_kind_name(SequenceModelKind kind);  // "rnn", "lstm", "gru", "attention"
bool parse_sequence_model_kind(const std::string& name, SequenceModelKind* kind);

struct SequenceClassifierDesc {
  SequenceModelKind kind = SequenceModelKind::attention;
  int vocab = 8;        // input symbols
  int classes = 8;      // output classes
  int embed = 16;       // E (= d_model for attention)
  int hidden = 32;      // H (recurrent)
  int heads = 2;        // h (attention); d_h = embed / heads
  int layers = 1;       // L attention blocks
  int ffn = 32;         // position-wise hidden width
  bool positions = true;      // attention: add the sinusoidal PE to the embeddings
  bool mean_readout = false;  // attention: read out the mean row, not the last
  OptimizerDesc optimizer = {OptimizerKind::adam, 0.005f, 0.0f, 0.9f, 0.999f, 1e-8f, 5.0f};
  uint64_t seed = 1;
};

// Trained by Model (model.h): the loss is the mean cross-entropy over the batch.
class SequenceClassifier : public Model<data::LabeledSequence> {
 public:
  explicit SequenceClassifier(const SequenceClassifierDesc& desc);

  EvalResult evaluate(const std::vector<data::LabeledSequence>& set) const;
  int predict(const std::vector<int>& tokens) const;
  // Softmax of the logits: one probability per class.
  std::vector<float> probabilities(const std::vector<int>& tokens) const;
  // Attention only: weights[l][head] (n, n) of block l; empty for recurrent kinds.
  std::vector<std::vector<Mat>> attention_weights(const std::vector<int>& tokens) const;

  const SequenceClassifierDesc& desc() const { return desc_; }

 protected:
  void collect(ParamList& p) override;
  double example_gradient(const Set& set, int i, float scale) override;
  double example_loss(const Set& set, int i) const override;

 private:
  struct Block {
    SelfAttentionLayer attention;
    Dense ffn_in, ffn_out;
  };
  struct Trace;
  void forward(const std::vector<int>& tokens, Trace& tr) const;
  void backward(const std::vector<int>& tokens, Trace& tr, const float* dlogits);

  SequenceClassifierDesc desc_;
  Embedding embed_;
  RecurrentLayer rnn_;
  std::vector<Block> blocks_;
  Dense head_;
};

}  // namespace attn::train

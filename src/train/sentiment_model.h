// sentiment_model.h: the complete attention-based sentiment classifier of
// curriculum G, one review at a time (a mini-batch is a loop):
//
//   ids (n)                                      word ids of one review
//   X  = embed(ids)                 (n, d_e)     d_e = d (none, sum) or d - d_pe (concat)
//   X' = X + PE                     (n, d)       position "sum" (default): sinusoidal, added
//   X' = [X | PE]                   (n, d)       position "concat": d_e = d - d_pe learned
//                                                columns, then d_pe sinusoidal ones (16 + 16)
//   X' = X                          (n, d)       position "none": the model sees a bag of words
//   Q, K, V = X' W_Q, X' W_K, X' W_V (n, h*d_h)  h heads of size d_h
//   Z_t = softmax(Q_t K_t^T / sqrt(d_h)) V_t     (n, d_h) per head t
//   Z = [Z_0 | ... | Z_{h-1}]       (n, h*d_h)   concatenated, no output projection
//   g = mean over time of Z         (h*d_h)      global average pooling (over the words
//                                                only, when the padding is masked)
//   g' = dropout(g, 0.5)            (h*d_h)      training only (inverted scaling); 0 = off
//   p = sigmoid(g' w + b)           scalar       probability "positive"
//   loss = binary cross-entropy(p, label), optimised with Adam
//
// Padding. A batch is one tensor, so its reviews are padded to a common length
// L with pad positions (pad_length; the original pads to 80). A pad position has
// no word: its embedded row is 0, and it gets its position encoding like any
// other (masked, nothing reads a pad, so its row is simply left at 0). With
// mask_padding the pads are masked out of the attention softmax
// (their scores are -inf, so every query gives them weight exactly 0) and out of
// the average pooling: the padded review then gives the very numbers of the
// unpadded one. Without the mask every word puts some weight on the pads and the
// average runs over L rows, so the prediction depends on how much padding there is.
//
// The widely copied original uses a 20,000-word vocabulary, 80-token padded
// sequences, batch 32 and 8 heads of 16; describe_shapes() reports both our
// sizes and where the batch dimension would sit. The lesson varies the position
// encoding, the number of heads at a fixed width (h * d_h = d: 1 x 32, 2 x 16,
// 4 x 8, 8 x 4) and dropout; sentiment_desc_error() names a combination that
// does not fit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/sentiment.h"
#include "train/attention_layer.h"
#include "train/layers.h"
#include "train/model.h"
#include "train/model_common.h"

namespace attn::train {

enum class PositionMode { none, sum, concat };
const char* position_mode_name(PositionMode mode);  // "none", "sum", "concat"
bool parse_position_mode(const std::string& name, PositionMode* mode);

struct SentimentModelDesc {
  int vocab = 0;
  int d_model = 32;     // width d of X' (and of the attention's input)
  PositionMode position = PositionMode::sum;
  int position_width = 16;  // d_pe, concat only: the embedding gets d - d_pe columns
  int heads = 4;        // h
  int head_size = 8;    // d_h (the lab keeps h * d_h = d)
  float dropout = 0.5f; // 0: no dropout
  int pad_length = 0;   // L: every review padded to this length (0 or shorter: no pads)
  bool mask_padding = true;  // pads out of the softmax and the pooling
  OptimizerDesc optimizer = {OptimizerKind::adam, 0.005f, 0.0f, 0.9f, 0.999f, 1e-8f, 0.0f};
  uint64_t seed = 1;
};

// Empty when desc can be built; otherwise what is wrong ("heads must be at
// least 1", ...). The model itself expects a valid desc.
std::string sentiment_desc_error(const SentimentModelDesc& desc);

// Width of the learned embedding: d, or d - d_pe with concatenated positions.
int sentiment_embed_width(const SentimentModelDesc& desc);

// Trained by Model (model.h): the loss is the mean binary cross-entropy over
// the batch, with dropout masks fixed by (seed, step, example).
class SentimentModel : public Model<data::Review> {
 public:
  explicit SentimentModel(const SentimentModelDesc& desc);

  // Evaluation mode (no dropout): mean BCE and accuracy at threshold 0.5.
  EvalResult evaluate(const std::vector<data::Review>& set) const;

  // The length a review is padded to: pad_length, or its own length if longer.
  int padded_length(const std::vector<int>& ids) const;

  float predict(const std::vector<int>& ids) const;             // p(positive)
  std::vector<Mat> head_weights(const std::vector<int>& ids) const;  // h x (n, n)
  // Attention each word RECEIVES, per head: column means of that head's weights, (h, n).
  Mat attention_received(const std::vector<int>& ids) const;
  // The same with the review padded to `length` (at least its own) and the mask
  // on or off, whatever the model was trained with: h x (L, L) weights, rows and
  // columns n.. the pads.
  float predict(const std::vector<int>& ids, int length, bool mask) const;
  std::vector<Mat> head_weights(const std::vector<int>& ids, int length, bool mask) const;
  // The mean weight the real words' queries put on pad positions, over heads: 0 with the mask.
  float weight_on_padding(const std::vector<int>& ids, int length, bool mask) const;
  // Every tensor of the forward pass for a review of n words in a batch of `batch`.
  std::vector<ShapeInfo> describe_shapes(int n, int batch = 32) const;
  // The layer stack as the widely copied Keras code names it: name = the Keras
  // layer (Embedding, Position_Embedding, Attention, GlobalAveragePooling1D,
  // Dropout, Dense), shape = its output here, note = what it computes.
  std::vector<ShapeInfo> describe_layers(int n, int batch = 32) const;

  const SentimentModelDesc& desc() const { return desc_; }

 protected:
  void collect(ParamList& p) override;
  double example_gradient(const Set& set, int i, float scale) override;
  double example_loss(const Set& set, int i) const override;

 private:
  struct Trace;
  // ids padded to `length` (>= ids.size()) pad positions, masked or not.
  void forward(const std::vector<int>& ids, int length, bool mask, bool training, uint64_t noise_seed, Trace& tr) const;

  SentimentModelDesc desc_;
  Embedding embed_;
  SelfAttentionLayer attention_;
  Dense out_;  // (h*d_h -> 1)
};

}  // namespace attn::train

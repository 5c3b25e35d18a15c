// seq2seq.h: an encoder-decoder translator (curriculum C1, C2, E4) in three
// variants that differ only in the context vector the decoder reads:
//
//   none      c_t = h_S, the encoder's last state: ONE fixed vector for the whole
//             sentence (Sutskever/Cho-style)
//   additive  c_t = sum_j alpha_tj h_j, alpha_t = softmax_j(v . tanh(s_t W_q + h_j W_k))
//             (Bahdanau's score)
//   general   the same with alpha_t = softmax_j(s_t W h_j^T)  (Luong's "general")
//   dot       the same with alpha_t = softmax_j(s_t . h_j)    (Luong's "dot")
//
// Shapes for one sentence pair (S source words, m target words, E embedding,
// H hidden, V_t target vocabulary):
//   source ids (S) -> X_s (S, E) -> encoder RNN -> Hs (S, H): keys AND values
//   decoder inputs  [<bos>, y_1 .. y_m]  (m + 1)    (teacher forcing: the true
//   decoder targets [y_1 .. y_m, <eos>]  (m + 1)     previous word is fed in)
//   s_0 = h_S;  s_t = cell(embed(input_t), s_{t-1})  (H): the query of step t
//   o_t = [s_t ; c_t] (2H) -> logits_t = o_t W_out + b_out (V_t)
//   loss = mean over all target tokens of the cross-entropy
// The query at step t is the decoder state after reading input t (Luong's
// order); the first query comes from <bos>. Greedy decoding feeds back the
// argmax word until <eos>.
//
// The alignment matrix (m + 1, S) holds alpha_t for each produced word; it is
// learned from the translation loss alone -- there is no alignment supervision.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/recurrent.h"
#include "base/tensor.h"
#include "data/translation.h"
#include "train/layers.h"
#include "train/model.h"
#include "train/model_common.h"

namespace attn::train {

enum class ContextKind { none, additive, general, dot };
const char* context_kind_name(ContextKind kind);  // "none", "additive", "general", "dot"
bool parse_context_kind(const std::string& name, ContextKind* kind);

struct Seq2SeqDesc {
  ContextKind context = ContextKind::additive;
  CellKind cell = CellKind::gru;   // encoder and decoder
  int source_vocab = 0;            // V_s
  int target_vocab = 0;            // V_t (ids 0, 1 are <bos>, <eos>: data::kBos, data::kEos)
  int embed = 16;                  // E
  int hidden = 32;                 // H
  int attention_size = 32;         // d_a (additive)
  OptimizerDesc optimizer = {OptimizerKind::adam, 0.01f, 0.0f, 0.9f, 0.999f, 1e-8f, 5.0f};
  uint64_t seed = 1;
};

struct Seq2SeqEval {
  float loss = 0.0f;               // teacher-forced cross-entropy per target token
  float token_accuracy = 0.0f;     // greedy decoding: words right at their position (incl. <eos>)
  float sentence_accuracy = 0.0f;  // greedy decoding: whole sentence right
  int tokens = 0, sentences = 0;
};

struct Seq2SeqDecode {
  std::vector<int> tokens;  // produced words, ending with <eos> unless max_length was hit
  Mat alignment;            // (tokens, S): row t = alpha_t (all zero for ContextKind::none)
};

// An intervention on greedy decoding: at output step `step` (0 = the first
// word) the alignment is replaced by all weight on source position `source`,
// so the context is that word's encoder state alone. Nothing is retrained;
// steps < 0 (or past the end, or a source outside the sentence) force nothing.
struct Seq2SeqForce {
  int step = -1;
  int source = 0;
};

// Trained by Model (model.h): the loss is the mean cross-entropy over the
// batch's target tokens.
class Seq2SeqModel : public Model<data::TranslationPair> {
 public:
  explicit Seq2SeqModel(const Seq2SeqDesc& desc);

  Seq2SeqEval evaluate(const std::vector<data::TranslationPair>& set) const;

  Seq2SeqDecode greedy_decode(const std::vector<int>& source, int max_length = 16,
                              const Seq2SeqForce* force = nullptr) const;
  // Teacher-forced alignment for a given pair: (m + 1, S), rows for y_1 .. y_m, <eos>
  // (empty for an empty source). Every model function expects a non-empty source.
  Mat alignment(const std::vector<int>& source, const std::vector<int>& target) const;

  const Seq2SeqDesc& desc() const { return desc_; }

 protected:
  void collect(ParamList& p) override;
  double example_gradient(const Set& set, int i, float scale) override;
  double example_loss(const Set& set, int i) const override;
  int batch_units(const Set& set, const std::vector<int>& batch) const override;

 private:
  struct Trace;
  void forward_pair(const std::vector<int>& source, const std::vector<int>& target, Trace& tr) const;
  float backward_pair(Trace& tr, float scale);

  Seq2SeqDesc desc_;
  Embedding source_embed_, target_embed_;
  RecurrentLayer encoder_, decoder_;
  DecoderAttention attention_;
  Dense out_;  // (2H -> V_t)
};

}  // namespace attn::train

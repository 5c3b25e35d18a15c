// char_lm.h: a small decoder-only character language model (curriculum H),
// trained on real text (data/text_corpus.h) to predict the next character.
//
//   tokens (n)                                   n <= context
//   X_0 = E[tokens] + P[0..n-1]        (n, d)    learned token and position rows
//   block l = 1..layers, pre-norm (GPT-2's placement):
//     X = X + MHA_l(LN1_l(X))          (n, d)    causal multi-head self-attention
//     X = X + FFN_l(LN2_l(X))          (n, d)    GELU feed-forward, d -> d_ff -> d
//   logits = LN_f(X_L) W_U + b_U       (n, V)    row i scores the character after i
//   loss = mean over the batch's predicted characters of cross-entropy (nats per
//          character, comparable with the counting baselines of ngram.h)
//
// Pre-norm keeps a clean residual path from the loss to the embeddings (each
// block only adds to X), so a small model trains at a steady learning rate
// without warm-up; the final LayerNorm puts the stream on one scale before
// the unembedding.
//
// Sizes (CharLmDesc, and batch 8 in train_run.cpp) were picked by the held-out
// loss reached in the same processor time -- what a learner waiting about a
// minute cares about -- over d in {48, 64}, n in {32, 64}, batch in {8, 16} and
// 2 or 3 layers, 30 s each ("measure: sizes" in tests/train/test_char_lm.cpp):
// a context of 32 beat 64 on both corpora (each step costs 2.4x more at 64,
// and 32 characters already hold two lines of a poem), 3 layers lost to 2, and
// d 64 with batch 8 was best on the English text (1.53 nats per character)
// and within 0.05 of the best on the poems (4.04 against 4.0). Adam at 3e-3
// beat 1e-3 and 1e-2 after 1000 steps on the English text; on the poems 1e-3
// and 3e-3 were within 0.03. The poems are small (22k training characters):
// their held-out loss is lowest near steps 750-1000 (4.02) and then rises as
// the model learns the training poems by heart (5.08 at step 3000); nothing
// here regularises against that (no dropout, no weight decay).
//
// Sections: 1 description, 2 the model, 3 sampling.
#pragma once

#include <cstdint>
#include <vector>

#include "base/rng.h"
#include "data/text_corpus.h"
#include "train/attention_layer.h"
#include "train/block_layers.h"
#include "train/layers.h"
#include "train/model.h"
#include "train/model_common.h"

namespace attn::train {

// ---------------------------------------------------------------- 1 description
struct CharLmDesc {
  int vocab = 64;       // V: the corpus's character table, <unk> included
  int context = 32;     // n: the longest input (rows of the position table)
  int d_model = 64;     // d
  int layers = 2;
  int heads = 4;        // d_h = d_model / heads
  int d_ff = 256;       // 4 d, as in the 2017 paper and GPT-2
  OptimizerDesc optimizer = {OptimizerKind::adam, 3e-3f, 0.0f, 0.9f, 0.99f, 1e-8f, 1.0f};
  uint64_t seed = 1;
};

// ---------------------------------------------------------------- 2 the model
// Edits of the trained heads for inspection, one entry per layer (missing or
// empty: as trained): head_scale multiplies a head's output (0 switches it off).
using CharLmEdits = std::vector<AttentionEdits>;
// Head `head` of layer `layer` (0-based) times `scale`.
CharLmEdits scale_head(int layers, int layer, int head, int heads, float scale);

// Trained by Model (model.h) on windows of context + 1 ids; the batch loss is
// the mean over every predicted character of the batch.
class CharLm : public Model<data::TextWindow> {
 public:
  explicit CharLm(const CharLmDesc& desc);

  // logits (n, V) of tokens (n <= context; longer inputs keep their last
  // `context` tokens): row i scores the token after position i.
  Mat logits(const std::vector<int>& tokens, const CharLmEdits* edits = nullptr) const;
  // Mean cross-entropy per predicted character (nats) and argmax accuracy over
  // the windows of `set`; count = predicted characters.
  EvalResult evaluate(const std::vector<data::TextWindow>& set, const CharLmEdits* edits = nullptr) const;
  // weights[l][head] (n, n), causal.
  std::vector<std::vector<Mat>> attention(const std::vector<int>& tokens, const CharLmEdits* edits = nullptr) const;
  // The training step's backward pass for one sequence whose targets are given
  // apart from it: targets[i] is the id after tokens[i] (same length, 1 <= n <=
  // context; otherwise 0 and nothing added). Returns the cross-entropy summed
  // over the n positions and ADDS `scale` times its gradient into the
  // parameters' grads. Training reaches it through example_gradient (targets =
  // the window shifted by one); `attnlab eval` calls it with its own targets.
  double sequence_gradient(const std::vector<int>& tokens, const std::vector<int>& targets, float scale);

  const CharLmDesc& desc() const { return desc_; }

 protected:
  void collect(ParamList& p) override;
  double example_gradient(const Set& set, int i, float scale) override;
  double example_loss(const Set& set, int i) const override;
  int batch_units(const Set& set, const std::vector<int>& batch) const override;

 private:
  struct Block {
    LayerNorm ln1, ln2;
    SelfAttentionLayer attention;
    FeedForward ffn;
  };
  struct Trace;
  void forward(const std::vector<int>& tokens, Trace& tr, const CharLmEdits* edits = nullptr) const;
  std::vector<int> window_of(const std::vector<int>& tokens) const;
  // Sum over rows i of the cross-entropy of logits row i with targets[i]; with
  // dlogits, each row's gradient times `scale` is written there.
  static double window_loss(const Mat& logits, const int* targets, float scale, Mat* dlogits);

  CharLmDesc desc_;
  Embedding embed_;        // E (V, d)
  Param pos_;              // P (context, d)
  std::vector<Block> blocks_;
  LayerNorm final_norm_;
  Dense unembed_;          // W_U (d, V), b_U (1, V)
};

// ---------------------------------------------------------------- 3 sampling
struct SampleDesc {
  float temperature = 1.0f;  // > 0: logits are divided by it (below 1: sharper)
  int top_k = 0;             // > 0: only the k highest-scoring characters can be drawn
  int banned = -1;           // >= 0: this id is never drawn (the unknown token in a sample)
};

// One id drawn from softmax(logits / temperature) over the top_k highest logits
// (ties: the lower id first). Uses one rng.uniform().
int sample_logits(const float* logits, int V, const SampleDesc& desc, Rng& rng);
// `count` more ids after `prompt` (which must not be empty), each from the
// model's last logits row given at most `context` preceding ids.
std::vector<int> sample_text(const CharLm& model, const std::vector<int>& prompt, int count, const SampleDesc& desc,
                             Rng& rng, const CharLmEdits* edits = nullptr);

}  // namespace attn::train

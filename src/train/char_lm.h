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
// Since issue 36 the softmaxes (attention's and the loss's) take their
// exponentials from fmath.h's float exp_fast, which vectorises, rather than
// the double exp_f the other models use; with the batched step below, that
// changed the decoder's numbers once, in their last bits.
//
// Sizes (CharLmDesc, and batch 8 in train_run.cpp) were picked by the held-out
// loss reached in the same processor time -- what a learner waiting about a
// minute cares about -- over d in {48, 64}, n in {32, 64}, batch in {8, 16} and
// 2 or 3 layers, 30 s each ("measure: sizes" in tests/train/test_char_lm.cpp;
// measured before issue 36's batched step, which trains more steps in 30 s):
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
// Options (issue 37; decoder_positions.h, decoder_attention.h): shared
// key/value heads, other position signals than the learned table (which
// alone has a parameter, "pos"), and a window with sinks. The defaults are
// the model above, bit for bit. Generation with a key/value cache is in
// char_lm_cache.h, the loss per position past the training length in
// char_lm_reach.h.
//
// Sections: 1 description, 2 the model, 3 sampling.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "base/rng.h"
#include "data/text_corpus.h"
#include "train/attention_layer.h"
#include "train/batched_layers.h"
#include "train/block_layers.h"
#include "train/decoder_attention.h"
#include "train/decoder_positions.h"
#include "train/grad_tree.h"
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
  DecoderOptions options;  // kv_heads, position, window, sinks (defaults: the model above)
};
// Whether desc's options fit its sizes (decoder_options_ok); false with why.
bool char_lm_options_ok(const CharLmDesc& desc, std::string* why);

// ---------------------------------------------------------------- 2 the model
// Edits of the trained heads for inspection, one entry per layer (missing or
// empty: as trained): head_scale multiplies a head's output (0 switches it off).
using CharLmEdits = std::vector<AttentionEdits>;
// Head `head` of layer `layer` (0-based) times `scale`.
CharLmEdits scale_head(int layers, int layer, int head, int heads, float scale);

// Everything one batched pass keeps (the forward pass's values for the
// backward pass, and the backward pass's own), reused from step to step. A
// worker computing a share of a batch needs one of its own.
struct CharLmWorkspace {
  struct Block {
    LayerNormTrace ln1, ln2;
    CausalAttentionTrace attention;
    FeedForwardTrace ffn;
    Mat mid, out;                // X after attention, after the FFN (R, d)
  };
  RowBatch rows;                 // the sequences, stacked
  std::vector<int> inputs;       // (R) ids
  std::vector<int> targets;      // (R) the id after each input (training only)
  Mat X0;                        // (R, d) embeddings + positions
  std::vector<Block> blocks;
  LayerNormTrace final_norm;
  Mat logits;                    // (R, V)
  Mat dlogits, dA, dX, dNorm, dBranch;
  std::vector<float> exps;       // (V) one row's exponentials
  BatchScratch scratch;
  GradientLayout layout;
  // Position tables for inputs longer than the context (kinds whose positions
  // go on, decoder_positions.h): built here, not in the shared model.
  RopeTable rope;
  Mat positions;
  long long multiply_adds = 0;   // of the last forward pass (CharLm::multiply_adds)
};

// Trained by Model (model.h) on windows of context + 1 ids; the batch loss is
// the mean over every predicted character of the batch.
//
// The training step is batched: the windows of a batch are stacked into one
// (R, d) matrix (R = 8 x 32 rows for the lesson's model) and go through each
// matrix product together (batched_layers.h), and each window's gradient is
// computed on its own and the batch's is their sum along the fixed tree of
// grad_tree.h -- the decoder's order of additions since issue 36 (the other
// models add example after example into Param::grad, model.h). So a step has
// the same bits for any split of its batch among workers: gradient_share
// computes the share [begin, end) of a batch, gather_shares combines the
// shares, and apply_update (model.h) takes the optimiser's step.
class CharLm : public Model<data::TextWindow> {
 public:
  explicit CharLm(const CharLmDesc& desc);

  // logits (n, V) of tokens: row i scores the token after position i. A
  // learned model reads at most `context` tokens (longer inputs keep their
  // last `context`); the other position kinds read them all, at positions 0
  // to n-1.
  // *multiply_adds (may be null) gets the pass's (multiply_adds() below).
  Mat logits(const std::vector<int>& tokens, const CharLmEdits* edits = nullptr,
             long long* multiply_adds = nullptr) const;
  // How many of n tokens logits() and attention() read.
  int readable(int n) const;
  // Mean cross-entropy per predicted character (nats) and argmax accuracy over
  // the windows of `set`; count = predicted characters.
  EvalResult evaluate(const std::vector<data::TextWindow>& set, const CharLmEdits* edits = nullptr) const;
  // weights[l][head] (n, n), causal (and zero outside a window).
  std::vector<std::vector<Mat>> attention(const std::vector<int>& tokens, const CharLmEdits* edits = nullptr) const;
  // The training step's backward pass for sequences whose targets are given
  // apart from them: targets[s][i] is the id after tokens[s][i] (same length,
  // 1 <= n <= context; otherwise that sequence adds nothing). Returns the
  // cross-entropy summed over every position and ADDS `scale` times its
  // gradient (a learned model takes n <= context only) -- the sequences' gradients summed along grad_tree.h's tree, as
  // a training step sums its windows' -- into the parameters' grads.
  // `attnlab eval` calls it with its own targets.
  double sequences_gradient(const std::vector<std::vector<int>>& tokens,
                            const std::vector<std::vector<int>>& targets, float scale);

  // One worker's share of a training step: examples [begin, end) of `batch`
  // (indices into `set`), each one's loss (in nats, summed over its
  // characters) and gradient of the batch's mean loss, its leaves summed into
  // the share's tree nodes. Reads the weights only: workers may run it at
  // once on one model, each with a share and a workspace of its own.
  void gradient_share(const Set& set, const std::vector<int>& batch, int begin, int end, GradientShare& share,
                      CharLmWorkspace& ws);
  // The batch's mean loss from shares covering it, its gradient written into
  // the parameters' grads (no update; apply_update takes the step). NaN if
  // the shares do not cover the batch.
  float gather_shares(const std::vector<GradientShare*>& shares, const Set& set, const std::vector<int>& batch);

  // The whole batch as one share (gradient_share, then gather_shares).
  float forward_backward(const Set& set, const std::vector<int>& batch) override;

  const CharLmDesc& desc() const { return desc_; }
  int kv_heads() const { return kv_heads_of(desc_.options, std::max(1, desc_.heads)); }
  int d_head() const { return std::max(1, desc_.d_model / std::max(1, desc_.heads)); }
  // Multiply-adds of `rows` rows through the model (projections, the
  // feed-forward layers, the unembedding) whose attention scored `pairs`
  // (query, key) pairs over every head and layer (scores and weighted sums).
  long long multiply_adds(long long rows, long long pairs) const;

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
  // One sequence of a batched pass: n inputs and (for training) their targets.
  struct Sequence {
    const int* inputs = nullptr;
    const int* targets = nullptr;
    int n = 0;  // 0: nothing to predict
  };
  // ws.inputs and ws.rows hold the stacked sequences; fills the traces and logits.
  void forward(CharLmWorkspace& ws, const CharLmEdits* edits = nullptr) const;
  // Stacks `seqs` into ws, runs them forward and backward: share.losses[k] and
  // leaf begin + k get sequence k's summed loss and `scale` times its gradient.
  void share_of(const std::vector<Sequence>& seqs, float scale, GradientShare& share, CharLmWorkspace& ws);
  // A window's last context + 1 ids, as inputs and the targets one after them.
  Sequence window_sequence(const std::vector<int>& window) const;
  // The weight matrices, whose gradients share_of sums along the tree inside
  // their products (batched_layers.h, SequenceGrads).
  std::vector<const Param*> tree_summed() const;
  // The attention options of a pass whose longest sequence has n rows, and
  // the table of added position rows (null: the kind adds none); tables past
  // the context are built in ws.
  CausalOptions attention_options(int n, CharLmWorkspace& ws) const;
  const Mat* position_rows(int n, CharLmWorkspace& ws) const;
  friend class CharLmCache;

  CharLmDesc desc_;
  Embedding embed_;        // E (V, d)
  Param pos_;              // P (context, d): learned positions only
  Mat sinusoid_;           // sinusoidal: the fixed rows of positions 0 .. context-1
  RopeTable rope_;         // rope: positions 0 .. context-1
  std::vector<float> alibi_;  // alibi: one slope per head
  std::vector<Block> blocks_;
  LayerNorm final_norm_;
  Dense unembed_;          // W_U (d, V), b_U (1, V)
  // forward_backward's own share and workspace (kept from step to step).
  GradientShare own_share_;
  CharLmWorkspace own_ws_;
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
// model's last logits row given the ids before it (logits(): at most
// `context` of them for a learned model). Recomputes the whole prefix for
// every id; sample_text_cached (char_lm_cache.h) draws the same ids with a
// key/value cache.
std::vector<int> sample_text(const CharLm& model, const std::vector<int>& prompt, int count, const SampleDesc& desc,
                             Rng& rng, const CharLmEdits* edits = nullptr);

}  // namespace attn::train

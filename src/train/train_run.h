// train_run.h: one training run of any model of the lab -- its data, model,
// seeded batch order and loss curve behind one small interface, so a lesson,
// the benchmark and side-by-side comparisons drive every model the same way.
// Runs built from the same seed, batch size and data settings see the same
// data in the same order.
//
//   TrainRun run({RunKind::translation_additive});
//   run.run_for(8.0);                  // train for ~8 ms of this frame
//   EvalResult ev = run.evaluate();    // held-out split
//   run.translation()->alignment(...)  // the concrete model, for its pictures
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/induction.h"
#include "data/long_range.h"
#include "data/patches.h"
#include "data/sentiment.h"
#include "data/text_corpus.h"
#include "data/translation.h"
#include "data/word_order.h"
#include "train/batch.h"
#include "train/birnn_classifier.h"
#include "train/char_lm.h"
#include "train/glimpse.h"
#include "train/induction_model.h"
#include "train/model_common.h"
#include "train/sentiment_model.h"
#include "train/seq2seq.h"
#include "train/sequence_classifier.h"
#include "train/speed.h"

namespace attn::train {

enum class RunKind {
  translation_none,      // seq2seq, fixed context vector
  translation_additive,  // seq2seq, Bahdanau attention
  translation_general,   // seq2seq, Luong general attention
  translation_dot,       // seq2seq, Luong dot attention
  long_range_rnn,        // "token k steps earlier": tanh RNN
  long_range_lstm,
  long_range_gru,
  long_range_attention,  // self-attention classifier
  sentiment,             // curriculum G's complete model
  birnn_attention,       // BiGRU + attention pooling
  birnn_average,         // BiGRU + average pooling
  glimpse_soft,          // patch glimpse: soft attention
  glimpse_hard_argmax,   // hard attention, plain backprop (the scorer cannot learn)
  glimpse_reinforce,     // hard attention, REINFORCE with a baseline
  glimpse_gumbel,        // hard attention, Gumbel-softmax relaxation
  induction,             // two-layer attention-only decoder, next token of repeated sequences
  word_order_plain,      // "is the dog the agent?": self-attention, no positions, mean read-out
  word_order_positions,  // the same with sinusoidal positions added
  word_order_rnn,        // the same task for a small tanh RNN
  lm_chinese,            // character language model on the Tang poems (fortunes-zh's tang300)
  lm_english,            // the same model on the US founding documents (miscfiles)
};

const char* run_kind_name(RunKind kind);  // "translation_additive", ...
bool parse_run_kind(const std::string& name, RunKind* kind);
std::vector<RunKind> all_run_kinds();

struct RunDesc {
  RunKind kind = RunKind::translation_additive;
  uint64_t seed = 1;          // model initialisation, batch order, dropout, samples
  uint64_t data_seed = 1;     // which sentences / sequences / images
  int batch_size = 0;         // 0: 16 for translation, 32 otherwise
  float learning_rate = 0.0f; // 0: the model's default
  int distance = 16;          // long-range task: k
  data::Language language = data::Language::both;  // sentiment / BiRNN data
  int half_length = 8;        // induction task: longest L (sequences of 2L tokens, V = 16)
  int heads = 0;              // induction model: heads per layer; sentiment model: heads
                              // at its fixed width, d_h = d / heads (0: the model's default)
  PositionMode position = PositionMode::sum;  // sentiment model: none, sum or concat
  float dropout = -1.0f;      // sentiment model: dropout rate (< 0: its default 0.5; 0: off)
  std::string corpus_text;    // language models: the raw corpus (the bytes of its cached
                              // files); empty: read from data::default_corpus_dir()
  bool own_text = false;      // language models: the learner's own text instead
                              // (data::TextCorpusKind::own, as check_own_text takes it)
  int pad_length = -1;        // sentiment model: the common length reviews are padded to
                              // (< 0: the longest review of the data; 0: no padding)
  bool mask_padding = true;   // sentiment model: pads masked out of the softmax and the pooling
  DecoderOptions decoder;     // language models: kv_heads, position, window, sinks
                              // (decoder_positions.h; the defaults: the lesson's model)
};

// One model with its data, behind what TrainRun needs: a step on a batch,
// held-out evaluation over a range, and the parameter registry. train_run.cpp
// has one for every model family.
class RunTask {
 public:
  virtual ~RunTask() = default;
  virtual int train_size() const = 0;
  virtual int heldout_size() const = 0;
  virtual float step(const std::vector<int>& batch) = 0;
  virtual EvalResult evaluate_range(int begin, int end) const = 0;
  virtual ParamList params() const = 0;
};

class TrainRun {
 public:
  explicit TrainRun(const RunDesc& desc);
  // The task points into the run's own data: a run stays where it was built.
  TrainRun(const TrainRun&) = delete;
  TrainRun& operator=(const TrainRun&) = delete;

  // One mini-batch step; returns its loss (also appended to losses()).
  float step();
  // A language model's step computed in shares (grad_tree.h), by this worker
  // and by others (experiments/shares.h): begin_shared_step draws the next
  // batch, as step() would; each share [begin, end) of it is computed by
  // compute_share, here or in another worker on a copy of the weights; and
  // finish_shared_step gathers the shares, takes the optimiser's step and
  // records the loss -- the same bits as step(), for any split. NaN (and no
  // step) when the shares do not cover the batch.
  bool steps_in_shares() const { return char_lm_ != nullptr && error_.empty(); }
  std::vector<int> begin_shared_step() { return order_.next(); }
  void compute_share(const std::vector<int>& batch, int begin, int end, GradientShare& share);
  float finish_shared_step(const std::vector<int>& batch, const std::vector<GradientShare*>& shares);
  // Steps until budget_ms milliseconds are used (at least one, at most max_steps).
  int run_for(double budget_ms, int max_steps = 1 << 30);
  // Loss and accuracy on the held-out split (translation: greedy token accuracy;
  // induction: next-token loss and accuracy on the repeated-half targets;
  // language models: nats and accuracy per held-out character).
  EvalResult evaluate() const;
  // The same over held-out examples [begin, end) only, so a page can spread one
  // evaluation over several frames; results over consecutive ranges combine with
  // combine_eval(). Out-of-range bounds are clamped.
  EvalResult evaluate_range(int begin, int end) const { return task_->evaluate_range(begin, end); }
  int heldout_size() const { return task_->heldout_size(); }

  const RunDesc& desc() const { return desc_; }
  // Empty unless the run could not get its data (a language model whose corpus
  // is not in the cache: the message says to run the set-up step). Such a run
  // has no examples and its steps do nothing.
  const std::string& error() const { return error_; }
  long steps() const { return long(losses_.size()); }
  int epoch() const { return order_.epoch; }
  const std::vector<float>& losses() const { return losses_; }
  // The model's parameter registry (model.h), and how many numbers it holds.
  // Const: a page reads (or, for its copy of a model trained elsewhere,
  // overwrites) the values through it; training is step()'s.
  ParamList params() const { return task_->params(); }
  long parameter_count() const { return count_values(params()); }
  int train_size() const { return order_.n; }

  // The concrete model and data (null unless the kind uses them).
  Seq2SeqModel* translation() { return translation_; }
  SequenceClassifier* long_range() { return long_range_; }  // also the word-order models
  SentimentModel* sentiment() { return sentiment_; }
  BiRnnClassifier* birnn() { return birnn_; }
  GlimpseModel* glimpse() { return glimpse_; }
  InductionModel* induction() { return induction_; }
  CharLm* char_lm() { return char_lm_; }
  const Seq2SeqModel* translation() const { return translation_; }
  const SequenceClassifier* long_range() const { return long_range_; }
  const SentimentModel* sentiment() const { return sentiment_; }
  const BiRnnClassifier* birnn() const { return birnn_; }
  const GlimpseModel* glimpse() const { return glimpse_; }
  const InductionModel* induction() const { return induction_; }
  const CharLm* char_lm() const { return char_lm_; }
  const data::TranslationCorpus& translation_data() const { return corpus_; }
  const data::LongRangeData& long_range_data() const { return long_range_data_; }
  const data::SentimentData& sentiment_data() const { return sentiment_data_; }
  const data::PatchData& patch_data() const { return patch_data_; }
  const data::InductionData& induction_data() const { return induction_data_; }
  const data::WordOrderData& word_order_data() const { return word_order_data_; }
  // Language models: the corpus (vocabulary, both splits as ids) and the
  // held-out windows evaluate() scores (every held-out character once).
  const data::CharCorpus& char_corpus() const { return char_corpus_; }
  const std::vector<data::TextWindow>& text_heldout() const { return text_heldout_; }
  // Language models: the training windows, and the batch order step() draws
  // from (a copy's next() shows the coming batches without drawing them: the
  // benchmark hands the same windows to TF.js).
  const std::vector<data::TextWindow>& text_train() const { return text_train_; }
  const BatchOrder& batch_order() const { return order_; }

 private:
  RunDesc desc_;
  BatchOrder order_;
  std::vector<float> losses_;
  data::TranslationCorpus corpus_;
  data::LongRangeData long_range_data_;
  data::SentimentData sentiment_data_;
  data::PatchData patch_data_;
  data::InductionData induction_data_;
  data::WordOrderData word_order_data_;
  data::CharCorpus char_corpus_;
  std::vector<data::TextWindow> text_train_, text_heldout_;
  std::string error_;
  std::unique_ptr<RunTask> task_;  // owns the model
  std::unique_ptr<CharLmWorkspace> share_ws_;  // compute_share's, kept from step to step
  Seq2SeqModel* translation_ = nullptr;
  SequenceClassifier* long_range_ = nullptr;
  SentimentModel* sentiment_ = nullptr;
  BiRnnClassifier* birnn_ = nullptr;
  GlimpseModel* glimpse_ = nullptr;
  InductionModel* induction_ = nullptr;
  CharLm* char_lm_ = nullptr;
};

// The learner's own text for the language model (curriculum H): what the model
// takes, and why not. The rules: what data::parse_own_text refuses; fewer than
// kOwnTextMinChars characters (a window of the model's context to learn from, and
// a tenth held out to test on); and more different characters than the model can
// keep -- it keeps the kOwnTextCharacters commonest of the training part, and the
// others, read as the unknown token, may be at most a tenth of that part.
constexpr int kOwnTextMinChars = 200;
constexpr int kOwnTextCharacters = 500;
struct OwnTextSummary {
  int characters = 0;     // in the text as the model reads it (paragraphs joined)
  int paragraphs = 0;
  int distinct = 0;       // different characters in the training part
  int kept = 0;           // of them, in the model's table
  int train = 0, heldout = 0;  // characters in each part
  double unknown_share = 0.0;  // of the training part, read as the unknown token
};
bool check_own_text(std::string_view raw, OwnTextSummary* summary, std::string* why);

// Count-weighted mean of two partial evaluations.
EvalResult combine_eval(const EvalResult& a, const EvalResult& b);

// Training speed of one kind: builds a run from desc, takes one untimed warm-up
// step, then times `steps` steps.
struct ModelSpeed {
  RunKind kind = RunKind::translation_additive;
  std::string name;
  long parameters = 0;
  StepTiming timing;
  std::string error;  // the run's error(); then nothing was timed
};
ModelSpeed measure_training_speed(const RunDesc& desc, int steps);
// Every kind of all_run_kinds() with the same seed and settings.
std::vector<ModelSpeed> measure_all_training_speeds(int steps, const RunDesc& settings = RunDesc());

}  // namespace attn::train

// train_run.cpp: building and stepping a TrainRun, and the speed measurement.
//
// Sections: 1 names, 2 tasks (a model on its data), 3 construction, 4 stepping
// and evaluation, 5 speed.
#include "train/train_run.h"

#include <algorithm>
#include <cmath>

#include "base/enum_names.h"

namespace attn::train {

// ---------------------------------------------------------------- 1 names
namespace {
constexpr EnumName<RunKind> kRunKinds[] = {
    {RunKind::translation_none, "translation_none"},
    {RunKind::translation_additive, "translation_additive"},
    {RunKind::translation_general, "translation_general"},
    {RunKind::translation_dot, "translation_dot"},
    {RunKind::long_range_rnn, "long_range_rnn"},
    {RunKind::long_range_lstm, "long_range_lstm"},
    {RunKind::long_range_gru, "long_range_gru"},
    {RunKind::long_range_attention, "long_range_attention"},
    {RunKind::sentiment, "sentiment"},
    {RunKind::birnn_attention, "birnn_attention"},
    {RunKind::birnn_average, "birnn_average"},
    {RunKind::glimpse_soft, "glimpse_soft"},
    {RunKind::glimpse_hard_argmax, "glimpse_hard_argmax"},
    {RunKind::glimpse_reinforce, "glimpse_reinforce"},
    {RunKind::glimpse_gumbel, "glimpse_gumbel"},
    {RunKind::induction, "induction"},
    {RunKind::word_order_plain, "word_order_plain"},
    {RunKind::word_order_positions, "word_order_positions"},
    {RunKind::word_order_rnn, "word_order_rnn"},
    {RunKind::lm_chinese, "lm_chinese"},
    {RunKind::lm_english, "lm_english"},
};

bool is_translation(RunKind k) { return k <= RunKind::translation_dot; }
bool is_long_range(RunKind k) { return k >= RunKind::long_range_rnn && k <= RunKind::long_range_attention; }
bool is_birnn(RunKind k) { return k == RunKind::birnn_attention || k == RunKind::birnn_average; }
bool is_glimpse(RunKind k) { return k >= RunKind::glimpse_soft && k <= RunKind::glimpse_gumbel; }
bool is_word_order(RunKind k) { return k >= RunKind::word_order_plain && k <= RunKind::word_order_rnn; }
bool is_char_lm(RunKind k) { return k == RunKind::lm_chinese || k == RunKind::lm_english; }
// The Chinese model's character table: the 500 most frequent characters of the
// training poems (with punctuation and line breaks, 78% of the text; all 2413
// distinct ones would make the unembedding and the softmax five times wider);
// the rest share <unk>.
constexpr int kChineseCharacters = 500;

// The table and split of each text: the poems keep their 500 commonest
// characters and the learner's own text its kOwnTextCharacters; the built-in texts
// hold out every tenth unit, the learner's text its last tenth.
data::CharCorpusDesc char_corpus_desc(RunKind k, bool own_text) {
  data::CharCorpusDesc cd;
  cd.max_chars = own_text ? kOwnTextCharacters : k == RunKind::lm_chinese ? kChineseCharacters : 0;
  if (own_text) cd.heldout_tail = 0.1f;
  return cd;
}
}  // namespace

const char* run_kind_name(RunKind kind) { return enum_name(kRunKinds, kind); }
bool parse_run_kind(const std::string& name, RunKind* kind) { return parse_enum(kRunKinds, name, kind); }

std::vector<RunKind> all_run_kinds() {
  std::vector<RunKind> kinds;
  for (const EnumName<RunKind>& k : kRunKinds) kinds.push_back(k.value);
  return kinds;
}

// ---------------------------------------------------------------- 2 tasks
namespace {
template <typename T>
std::vector<T> slice(const std::vector<T>& v, int begin, int end) {
  begin = std::max(0, std::min(begin, int(v.size())));
  end = std::max(begin, std::min(end, int(v.size())));
  return std::vector<T>(v.begin() + begin, v.begin() + end);
}

// A model M (a Model<Example>, model.h) on a training and a held-out set;
// `score` turns the model's own evaluation of part of the held-out set into
// loss and accuracy.
template <typename M>
class ModelTask : public RunTask {
 public:
  using Set = typename M::Set;
  using Score = EvalResult (*)(const M&, const Set&);
  ModelTask(std::unique_ptr<M> model, const Set& train, const Set& heldout, Score score)
      : model_(std::move(model)), train_(train), heldout_(heldout), score_(score) {}

  int train_size() const override { return int(train_.size()); }
  int heldout_size() const override { return int(heldout_.size()); }
  float step(const std::vector<int>& batch) override { return model_->train_step(train_, batch); }
  EvalResult evaluate_range(int begin, int end) const override {
    const Set part = slice(heldout_, begin, end);
    return part.empty() ? EvalResult{} : score_(*model_, part);
  }
  ParamList params() const override { return model_->params(); }

 private:
  std::unique_ptr<M> model_;  // the task owns the model; TrainRun keeps a typed pointer
  const Set& train_;
  const Set& heldout_;
  Score score_;
};

// Builds the task of model M and records the concrete model in *typed.
template <typename M, typename Desc>
std::unique_ptr<RunTask> make_task(const Desc& d, M** typed, const typename M::Set& train,
                                   const typename M::Set& heldout, typename ModelTask<M>::Score score) {
  auto model = std::make_unique<M>(d);
  *typed = model.get();
  return std::make_unique<ModelTask<M>>(std::move(model), train, heldout, score);
}

// The run's seed and learning rate, for any model's description.
template <typename Desc>
Desc seeded(Desc d, const RunDesc& run) {
  d.seed = run.seed;
  if (run.learning_rate > 0.0f) d.optimizer.lr = run.learning_rate;
  return d;
}

EvalResult score_translation(const Seq2SeqModel& m, const std::vector<data::TranslationPair>& part) {
  const Seq2SeqEval s = m.evaluate(part);
  return {s.loss, s.token_accuracy, s.tokens};
}
EvalResult score_glimpse(const GlimpseModel& m, const std::vector<data::PatchImage>& part) {
  const GlimpseEval g = m.evaluate(part);
  return {g.loss, g.accuracy, g.count};
}
EvalResult score_induction(const InductionModel& m, const std::vector<data::InductionSequence>& part) {
  return m.evaluate(part).repeated_half;
}
template <typename M>
EvalResult score_plain(const M& m, const typename M::Set& part) {
  return m.evaluate(part);
}
}  // namespace

// ---------------------------------------------------------------- 3 construction
TrainRun::TrainRun(const RunDesc& desc) : desc_(desc) {
  const RunKind k = desc.kind;
  if (is_translation(k)) {
    data::TranslationDesc td;
    td.seed = desc.data_seed;
    corpus_ = data::make_translation_corpus(td);
    Seq2SeqDesc d;
    d.context = k == RunKind::translation_none    ? ContextKind::none
                : k == RunKind::translation_general ? ContextKind::general
                : k == RunKind::translation_dot     ? ContextKind::dot
                                                    : ContextKind::additive;
    d.source_vocab = corpus_.source_vocab.size();
    d.target_vocab = corpus_.target_vocab.size();
    task_ = make_task(seeded(d, desc), &translation_, corpus_.train, corpus_.heldout, score_translation);
  } else if (is_long_range(k) || is_word_order(k)) {
    SequenceClassifierDesc d;
    const std::vector<data::LabeledSequence>* train = nullptr;
    const std::vector<data::LabeledSequence>* heldout = nullptr;
    if (is_long_range(k)) {
      data::LongRangeDesc ld;
      ld.distance = desc.distance;
      ld.seed = desc.data_seed;
      long_range_data_ = data::make_long_range(ld);
      d.kind = k == RunKind::long_range_rnn    ? SequenceModelKind::rnn_tanh
               : k == RunKind::long_range_lstm ? SequenceModelKind::lstm
               : k == RunKind::long_range_gru  ? SequenceModelKind::gru
                                               : SequenceModelKind::attention;
      d.vocab = d.classes = long_range_data_.desc.alphabet;
      train = &long_range_data_.train;
      heldout = &long_range_data_.test;
    } else {
      data::WordOrderDesc wd;
      wd.seed = desc.data_seed;
      word_order_data_ = data::make_word_order(wd);
      d.kind = k == RunKind::word_order_rnn ? SequenceModelKind::rnn_tanh : SequenceModelKind::attention;
      d.vocab = int(word_order_data_.words.size());
      d.classes = 2;
      d.positions = k == RunKind::word_order_positions;
      d.mean_readout = true;  // (attention only) the same pooling with and without positions
      train = &word_order_data_.train;
      heldout = &word_order_data_.test;
    }
    task_ = make_task(seeded(d, desc), &long_range_, *train, *heldout, score_plain<SequenceClassifier>);
  } else if (k == RunKind::sentiment || is_birnn(k)) {
    data::SentimentDesc sd;
    sd.seed = desc.data_seed;
    sd.language = desc.language;
    sentiment_data_ = data::make_sentiment_data(sd);
    const auto& train = sentiment_data_.train;
    const auto& heldout = sentiment_data_.test;
    if (k == RunKind::sentiment) {
      SentimentModelDesc d;
      d.vocab = sentiment_data_.vocab.size();
      d.position = desc.position;
      if (desc.heads > 0) {
        d.heads = desc.heads;
        d.head_size = std::max(1, d.d_model / desc.heads);
      }
      if (desc.dropout >= 0.0f) d.dropout = desc.dropout;
      d.pad_length = desc.pad_length;
      if (d.pad_length < 0) {  // the longest review, over both splits
        d.pad_length = 0;
        for (const auto* split : {&train, &heldout})
          for (const data::Review& r : *split) d.pad_length = std::max(d.pad_length, int(r.ids.size()));
      }
      d.mask_padding = desc.mask_padding;
      task_ = make_task(seeded(d, desc), &sentiment_, train, heldout, score_plain<SentimentModel>);
    } else {
      BiRnnClassifierDesc d;
      d.vocab = sentiment_data_.vocab.size();
      d.pooling = k == RunKind::birnn_attention ? PoolingKind::attention : PoolingKind::average;
      task_ = make_task(seeded(d, desc), &birnn_, train, heldout, score_plain<BiRnnClassifier>);
    }
  } else if (is_glimpse(k)) {
    data::PatchDesc pd;
    pd.seed = desc.data_seed;
    patch_data_ = data::make_patch_data(pd);
    GlimpseDesc d;
    d.mode = k == RunKind::glimpse_soft        ? GlimpseMode::soft
             : k == RunKind::glimpse_hard_argmax ? GlimpseMode::hard_argmax
             : k == RunKind::glimpse_reinforce   ? GlimpseMode::reinforce
                                                 : GlimpseMode::gumbel;
    task_ = make_task(seeded(d, desc), &glimpse_, patch_data_.train, patch_data_.test, score_glimpse);
  } else if (is_char_lm(k)) {
    const data::TextCorpusKind ck = desc.own_text              ? data::TextCorpusKind::own
                                    : k == RunKind::lm_chinese ? data::TextCorpusKind::tang_poems
                                                               : data::TextCorpusKind::founding_documents;
    std::string raw = desc.corpus_text;
    data::ParsedText text;
    CharLmDesc d;
    if (desc.heads > 0) d.heads = desc.heads;
    d.options = desc.decoder;
    if (!char_lm_options_ok(d, &error_) ||
        (raw.empty() && !data::read_corpus(ck, data::default_corpus_dir(), &raw, &error_)) ||
        (desc.own_text ? !check_own_text(raw, nullptr, &error_) : false) || !data::parse_corpus(ck, raw, &text, &error_))
      text = data::ParsedText();  // no data (or options that do not fit): a run with no examples that says why
    char_corpus_ = data::make_char_corpus(text, char_corpus_desc(k, desc.own_text));
    d.vocab = char_corpus_.vocab.size();
    text_train_ = data::text_windows(char_corpus_.train, d.context, 1);
    text_heldout_ = data::covering_windows(char_corpus_.heldout, d.context);
    task_ = make_task(seeded(d, desc), &char_lm_, text_train_, text_heldout_, score_plain<CharLm>);
  } else {  // RunKind::induction
    data::InductionDesc id;
    id.half_length = desc.half_length;
    id.min_half_length = std::max(1, desc.half_length / 2);  // L varies: position alone cannot find the repeat
    id.vocab = 16;
    id.distinct_first_half = true;  // every repeated token has one earlier occurrence
    id.train_count = 4096;
    id.test_count = 200;
    id.seed = desc.data_seed;
    induction_data_ = data::make_induction(id);
    InductionModelDesc d;
    d.vocab = induction_data_.desc.vocab;
    d.max_length = 2 * induction_data_.desc.half_length;
    if (desc.heads > 0) {
      d.heads = desc.heads;
      d.head_size = std::max(1, d.d_model / desc.heads);
    }
    task_ = make_task(seeded(d, desc), &induction_, induction_data_.train, induction_data_.test, score_induction);
  }
  const int batch = desc.batch_size > 0 ? desc.batch_size : is_char_lm(k) ? 8 : is_translation(k) ? 16 : 32;
  const uint64_t order_seed = desc.seed * 0x2545f4914f6cdd1dULL + 17;  // batch order: its own stream
  order_.reset(task_->train_size(), batch, order_seed);
}

// ---------------------------------------------------------------- 4 stepping and evaluation
float TrainRun::step() {
  const float l = task_->step(order_.next());
  losses_.push_back(l);
  return l;
}

void TrainRun::compute_share(const std::vector<int>& batch, int begin, int end, GradientShare& share) {
  if (!share_ws_) share_ws_ = std::make_unique<CharLmWorkspace>();
  char_lm_->gradient_share(text_train_, batch, begin, end, share, *share_ws_);
}

float TrainRun::finish_shared_step(const std::vector<int>& batch, const std::vector<GradientShare*>& shares) {
  const float l = char_lm_->gather_shares(shares, text_train_, batch);
  if (std::isnan(l)) return l;
  char_lm_->apply_update(l);
  losses_.push_back(l);
  return l;
}

int TrainRun::run_for(double budget_ms, int max_steps) {
  return run_for_budget(budget_ms, max_steps, [this] { return step(); });
}

EvalResult TrainRun::evaluate() const { return evaluate_range(0, heldout_size()); }

EvalResult combine_eval(const EvalResult& a, const EvalResult& b) {
  EvalResult c;
  c.count = a.count + b.count;
  if (c.count == 0) return c;
  const float wa = float(a.count) / float(c.count), wb = float(b.count) / float(c.count);
  c.loss = wa * a.loss + wb * b.loss;
  c.accuracy = wa * a.accuracy + wb * b.accuracy;
  return c;
}

// ---------------------------------------------------------------- 5 speed
bool check_own_text(std::string_view raw, OwnTextSummary* summary, std::string* why) {
  data::ParsedText text;
  if (!data::parse_own_text(raw, &text, why)) return false;
  const data::CharCorpus c = data::make_char_corpus(text, char_corpus_desc(RunKind::lm_english, true));
  OwnTextSummary s;
  s.paragraphs = int(text.units.size());
  s.train = int(c.train.size());
  s.heldout = int(c.heldout.size());
  s.characters = s.train + s.heldout;
  s.kept = c.vocab.size() - 1;  // without <unk>
  std::vector<std::string> seen;
  {
    std::string all;
    for (const std::string& u : text.units) all += (all.empty() ? "" : "\n\n") + u;
    std::vector<std::string> chars = data::utf8_chars(all);
    chars.resize(size_t(s.train));
    std::sort(chars.begin(), chars.end());
    chars.erase(std::unique(chars.begin(), chars.end()), chars.end());
    s.distinct = int(chars.size());
  }
  s.unknown_share = s.train > 0 ? double(c.train_unknown) / double(s.train) : 0.0;
  if (summary) *summary = s;
  if (s.characters < kOwnTextMinChars) {
    *why = "the text has " + std::to_string(s.characters) + " characters; the model needs at least " +
           std::to_string(kOwnTextMinChars) + " (windows to learn from, and a tenth held out to test on)";
    return false;
  }
  if (s.unknown_share > 0.1) {
    *why = "the text uses " + std::to_string(s.distinct) + " different characters; the model keeps the " +
           std::to_string(kOwnTextCharacters) + " commonest, and the others would be " +
           std::to_string(int(100.0 * s.unknown_share + 0.5)) +
           "% of the text (at most 10%): use a text with fewer different characters, or a longer one";
    return false;
  }
  return true;
}

ModelSpeed measure_training_speed(const RunDesc& desc, int steps) {
  TrainRun run(desc);
  ModelSpeed s;
  s.kind = desc.kind;
  s.name = run_kind_name(desc.kind);
  s.parameters = run.parameter_count();
  s.error = run.error();
  if (!s.error.empty()) return s;
  run.step();  // warm-up: the optimiser allocates its moments on the first step
  s.timing = time_steps(steps, [&run] { return run.step(); });
  return s;
}

std::vector<ModelSpeed> measure_all_training_speeds(int steps, const RunDesc& settings) {
  std::vector<ModelSpeed> out;
  for (RunKind k : all_run_kinds()) {
    RunDesc d = settings;
    d.kind = k;
    out.push_back(measure_training_speed(d, steps));
  }
  return out;
}

}  // namespace attn::train

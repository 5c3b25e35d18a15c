// train_run.cpp: building and stepping a TrainRun, and the speed measurement.
//
// Sections: 1 names, 2 construction, 3 stepping and evaluation, 4 speed.
#include "train/train_run.h"

#include <algorithm>

namespace attn::train {

// ---------------------------------------------------------------- 1 names
namespace {
const RunKind kAllKinds[] = {
    RunKind::translation_none,   RunKind::translation_additive, RunKind::translation_general,
    RunKind::translation_dot,    RunKind::long_range_rnn,       RunKind::long_range_lstm,
    RunKind::long_range_gru,     RunKind::long_range_attention, RunKind::sentiment,
    RunKind::birnn_attention,    RunKind::birnn_average,        RunKind::glimpse_soft,
    RunKind::glimpse_hard_argmax, RunKind::glimpse_reinforce,   RunKind::glimpse_gumbel,
    RunKind::induction,          RunKind::word_order_plain,     RunKind::word_order_positions,
    RunKind::word_order_rnn,
};

bool is_translation(RunKind k) { return k <= RunKind::translation_dot; }
bool is_long_range(RunKind k) { return k >= RunKind::long_range_rnn && k <= RunKind::long_range_attention; }
bool is_birnn(RunKind k) { return k == RunKind::birnn_attention || k == RunKind::birnn_average; }
bool is_glimpse(RunKind k) { return k >= RunKind::glimpse_soft && k <= RunKind::glimpse_gumbel; }
bool is_word_order(RunKind k) { return k >= RunKind::word_order_plain && k <= RunKind::word_order_rnn; }
}  // namespace

const char* run_kind_name(RunKind kind) {
  switch (kind) {
    case RunKind::translation_none: return "translation_none";
    case RunKind::translation_additive: return "translation_additive";
    case RunKind::translation_general: return "translation_general";
    case RunKind::translation_dot: return "translation_dot";
    case RunKind::long_range_rnn: return "long_range_rnn";
    case RunKind::long_range_lstm: return "long_range_lstm";
    case RunKind::long_range_gru: return "long_range_gru";
    case RunKind::long_range_attention: return "long_range_attention";
    case RunKind::sentiment: return "sentiment";
    case RunKind::birnn_attention: return "birnn_attention";
    case RunKind::birnn_average: return "birnn_average";
    case RunKind::glimpse_soft: return "glimpse_soft";
    case RunKind::glimpse_hard_argmax: return "glimpse_hard_argmax";
    case RunKind::glimpse_reinforce: return "glimpse_reinforce";
    case RunKind::glimpse_gumbel: return "glimpse_gumbel";
    case RunKind::induction: return "induction";
    case RunKind::word_order_plain: return "word_order_plain";
    case RunKind::word_order_positions: return "word_order_positions";
    case RunKind::word_order_rnn: return "word_order_rnn";
  }
  return "?";
}

bool parse_run_kind(const std::string& name, RunKind* kind) {
  for (RunKind k : kAllKinds)
    if (name == run_kind_name(k)) {
      *kind = k;
      return true;
    }
  return false;
}

std::vector<RunKind> all_run_kinds() { return std::vector<RunKind>(std::begin(kAllKinds), std::end(kAllKinds)); }

// ---------------------------------------------------------------- 2 construction
TrainRun::TrainRun(const RunDesc& desc) : desc_(desc) {
  const RunKind k = desc.kind;
  const int batch = desc.batch_size > 0 ? desc.batch_size : (is_translation(k) ? 16 : 32);
  const uint64_t order_seed = desc.seed * 0x2545f4914f6cdd1dULL + 17;  // batch order: its own stream
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
    d.seed = desc.seed;
    if (desc.learning_rate > 0.0f) d.optimizer.lr = desc.learning_rate;
    translation_ = std::make_unique<Seq2SeqModel>(d);
    order_.reset(int(corpus_.train.size()), batch, order_seed);
  } else if (is_long_range(k)) {
    data::LongRangeDesc ld;
    ld.distance = desc.distance;
    ld.seed = desc.data_seed;
    long_range_data_ = data::make_long_range(ld);
    SequenceClassifierDesc d;
    d.kind = k == RunKind::long_range_rnn    ? SequenceModelKind::rnn_tanh
             : k == RunKind::long_range_lstm ? SequenceModelKind::lstm
             : k == RunKind::long_range_gru  ? SequenceModelKind::gru
                                             : SequenceModelKind::attention;
    d.vocab = d.classes = long_range_data_.desc.alphabet;
    d.seed = desc.seed;
    if (desc.learning_rate > 0.0f) d.optimizer.lr = desc.learning_rate;
    long_range_ = std::make_unique<SequenceClassifier>(d);
    order_.reset(int(long_range_data_.train.size()), batch, order_seed);
  } else if (k == RunKind::sentiment || is_birnn(k)) {
    data::SentimentDesc sd;
    sd.seed = desc.data_seed;
    sd.language = desc.language;
    sentiment_data_ = data::make_sentiment_data(sd);
    if (k == RunKind::sentiment) {
      SentimentModelDesc d;
      d.vocab = sentiment_data_.vocab.size();
      d.position = desc.position;
      if (desc.heads > 0) {
        d.heads = desc.heads;
        d.head_size = std::max(1, d.d_model / desc.heads);
      }
      if (desc.dropout >= 0.0f) d.dropout = desc.dropout;
      d.seed = desc.seed;
      if (desc.learning_rate > 0.0f) d.optimizer.lr = desc.learning_rate;
      sentiment_ = std::make_unique<SentimentModel>(d);
    } else {
      BiRnnClassifierDesc d;
      d.vocab = sentiment_data_.vocab.size();
      d.pooling = k == RunKind::birnn_attention ? PoolingKind::attention : PoolingKind::average;
      d.seed = desc.seed;
      if (desc.learning_rate > 0.0f) d.optimizer.lr = desc.learning_rate;
      birnn_ = std::make_unique<BiRnnClassifier>(d);
    }
    order_.reset(int(sentiment_data_.train.size()), batch, order_seed);
  } else if (is_glimpse(k)) {
    data::PatchDesc pd;
    pd.seed = desc.data_seed;
    patch_data_ = data::make_patch_data(pd);
    GlimpseDesc d;
    d.mode = k == RunKind::glimpse_soft        ? GlimpseMode::soft
             : k == RunKind::glimpse_hard_argmax ? GlimpseMode::hard_argmax
             : k == RunKind::glimpse_reinforce   ? GlimpseMode::reinforce
                                                 : GlimpseMode::gumbel;
    d.seed = desc.seed;
    if (desc.learning_rate > 0.0f) d.optimizer.lr = desc.learning_rate;
    glimpse_ = std::make_unique<GlimpseModel>(d);
    order_.reset(int(patch_data_.train.size()), batch, order_seed);
  } else if (k == RunKind::induction) {
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
    d.seed = desc.seed;
    if (desc.learning_rate > 0.0f) d.optimizer.lr = desc.learning_rate;
    induction_ = std::make_unique<InductionModel>(d);
    order_.reset(int(induction_data_.train.size()), batch, order_seed);
  } else if (is_word_order(k)) {
    data::WordOrderDesc wd;
    wd.seed = desc.data_seed;
    word_order_data_ = data::make_word_order(wd);
    SequenceClassifierDesc d;
    d.kind = k == RunKind::word_order_rnn ? SequenceModelKind::rnn_tanh : SequenceModelKind::attention;
    d.vocab = int(word_order_data_.words.size());
    d.classes = 2;
    d.positions = k == RunKind::word_order_positions;
    d.mean_readout = true;  // (attention only) the same pooling with and without positions
    d.seed = desc.seed;
    if (desc.learning_rate > 0.0f) d.optimizer.lr = desc.learning_rate;
    long_range_ = std::make_unique<SequenceClassifier>(d);
    order_.reset(int(word_order_data_.train.size()), batch, order_seed);
  }
}

const std::vector<data::LabeledSequence>& TrainRun::sequences(bool heldout) const {
  if (is_word_order(desc_.kind)) return heldout ? word_order_data_.test : word_order_data_.train;
  return heldout ? long_range_data_.test : long_range_data_.train;
}

// ---------------------------------------------------------------- 3 stepping and evaluation
float TrainRun::step() {
  const std::vector<int> batch = order_.next();
  float l = 0.0f;
  if (translation_) l = translation_->train_step(corpus_.train, batch);
  else if (long_range_) l = long_range_->train_step(sequences(false), batch);
  else if (sentiment_) l = sentiment_->train_step(sentiment_data_.train, batch);
  else if (birnn_) l = birnn_->train_step(sentiment_data_.train, batch);
  else if (glimpse_) l = glimpse_->train_step(patch_data_.train, batch);
  else if (induction_) l = induction_->train_step(induction_data_.train, batch);
  losses_.push_back(l);
  return l;
}

bool TrainRun::step_part(int max_examples) {
  if (!long_range_ && !induction_) {
    step();
    return true;
  }
  if (part_batch_.empty()) {
    part_batch_ = order_.next();
    part_pos_ = 0;
    if (long_range_) long_range_->begin_step();
    else induction_->begin_step();
  }
  const int end = std::min(int(part_batch_.size()), part_pos_ + std::max(1, max_examples));
  if (long_range_) long_range_->accumulate(sequences(false), part_batch_, part_pos_, end);
  else induction_->accumulate(induction_data_.train, part_batch_, part_pos_, end);
  part_pos_ = end;
  if (part_pos_ < int(part_batch_.size())) return false;
  losses_.push_back(long_range_ ? long_range_->finish_step(part_batch_) : induction_->finish_step(part_batch_));
  part_batch_.clear();
  return true;
}

int TrainRun::run_for(double budget_ms, int max_steps) {
  return run_for_budget(budget_ms, max_steps, [this] { return step(); });
}

EvalResult TrainRun::evaluate() const { return evaluate_range(0, heldout_size()); }

int TrainRun::heldout_size() const {
  if (translation_) return int(corpus_.heldout.size());
  if (long_range_) return int(sequences(true).size());
  if (sentiment_ || birnn_) return int(sentiment_data_.test.size());
  if (glimpse_) return int(patch_data_.test.size());
  if (induction_) return int(induction_data_.test.size());
  return 0;
}

namespace {
template <typename T>
std::vector<T> slice(const std::vector<T>& v, int begin, int end) {
  begin = std::max(0, std::min(begin, int(v.size())));
  end = std::max(begin, std::min(end, int(v.size())));
  return std::vector<T>(v.begin() + begin, v.begin() + end);
}
}  // namespace

EvalResult TrainRun::evaluate_range(int begin, int end) const {
  EvalResult ev;
  if (translation_) {
    const auto part = slice(corpus_.heldout, begin, end);
    if (part.empty()) return ev;
    const Seq2SeqEval s = translation_->evaluate(part);
    ev.loss = s.loss;
    ev.accuracy = s.token_accuracy;
    ev.count = s.tokens;
  } else if (long_range_) {
    const auto part = slice(sequences(true), begin, end);
    if (!part.empty()) ev = long_range_->evaluate(part);
  } else if (sentiment_ || birnn_) {
    const auto part = slice(sentiment_data_.test, begin, end);
    if (part.empty()) return ev;
    ev = sentiment_ ? sentiment_->evaluate(part) : birnn_->evaluate(part);
  } else if (glimpse_) {
    const auto part = slice(patch_data_.test, begin, end);
    if (part.empty()) return ev;
    const GlimpseEval g = glimpse_->evaluate(part);
    ev.loss = g.loss;
    ev.accuracy = g.accuracy;
    ev.count = g.count;
  } else if (induction_) {
    const auto part = slice(induction_data_.test, begin, end);
    if (!part.empty()) ev = induction_->evaluate(part).repeated_half;
  }
  return ev;
}

EvalResult combine_eval(const EvalResult& a, const EvalResult& b) {
  EvalResult c;
  c.count = a.count + b.count;
  if (c.count == 0) return c;
  const float wa = float(a.count) / float(c.count), wb = float(b.count) / float(c.count);
  c.loss = wa * a.loss + wb * b.loss;
  c.accuracy = wa * a.accuracy + wb * b.accuracy;
  return c;
}

long TrainRun::parameter_count() {
  if (translation_) return count_values(translation_->params());
  if (long_range_) return count_values(long_range_->params());
  if (sentiment_) return count_values(sentiment_->params());
  if (birnn_) return count_values(birnn_->params());
  if (glimpse_) return count_values(glimpse_->params());
  if (induction_) return count_values(induction_->params());
  return 0;
}

int TrainRun::train_size() const { return order_.n; }

// ---------------------------------------------------------------- 4 speed
ModelSpeed measure_training_speed(const RunDesc& desc, int steps) {
  TrainRun run(desc);
  ModelSpeed s;
  s.kind = desc.kind;
  s.name = run_kind_name(desc.kind);
  s.parameters = run.parameter_count();
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

// seq2seq.cpp: the encoder-decoder of seq2seq.h.
//
// Sections: 1 names and construction, 2 forward (teacher forcing), 3 backward
// (through the decoder steps in reverse, then the encoder), 4 training and
// evaluation, 5 greedy decoding and alignments.
#include "train/seq2seq.h"

#include <algorithm>

#include "base/enum_names.h"
#include "train/kernels.h"
#include "train/loss.h"

namespace attn::train {

// ---------------------------------------------------------------- 1 names and construction
namespace {
// The canonical names first; the papers' names are aliases.
constexpr EnumName<ContextKind> kContextKinds[] = {
    {ContextKind::none, "none"},         {ContextKind::additive, "additive"},   {ContextKind::general, "general"},
    {ContextKind::dot, "dot"},           {ContextKind::additive, "bahdanau"},   {ContextKind::general, "luong"},
    {ContextKind::general, "multiplicative"}};
}  // namespace

const char* context_kind_name(ContextKind kind) { return enum_name(kContextKinds, kind); }
bool parse_context_kind(const std::string& name, ContextKind* kind) { return parse_enum(kContextKinds, name, kind); }

namespace {
AlignScore align_of(ContextKind kind) {
  return kind == ContextKind::general ? AlignScore::general
                                      : (kind == ContextKind::dot ? AlignScore::dot : AlignScore::additive);
}
}  // namespace

Seq2SeqModel::Seq2SeqModel(const Seq2SeqDesc& desc) : Model(desc.optimizer), desc_(desc) {
  Rng rng(desc.seed);
  const int E = desc.embed, H = desc.hidden;
  source_embed_.init("source_embed", desc.source_vocab, E, rng, 0.5f);
  target_embed_.init("target_embed", desc.target_vocab, E, rng, 0.5f);
  encoder_.init("encoder", desc.cell, E, H, rng);
  decoder_.init("decoder", desc.cell, E, H, rng);
  if (desc.context != ContextKind::none) attention_.init("attention", align_of(desc.context), H, H, desc.attention_size, rng);
  out_.init("out", 2 * H, desc.target_vocab, rng);
}

void Seq2SeqModel::collect(ParamList& p) {
  source_embed_.collect(p);
  target_embed_.collect(p);
  encoder_.collect(p);
  decoder_.collect(p);
  if (desc_.context != ContextKind::none) attention_.collect(p);
  out_.collect(p);
}

// ---------------------------------------------------------------- 2 forward
struct Seq2SeqModel::Trace {
  std::vector<int> source, dec_in, dec_out;  // (S), (m + 1), (m + 1)
  Mat Xs;                                    // (S, E)
  RecurrentTrace enc;                        // enc.H = Hs (S, H)
  Mat Xd;                                    // (m + 1, E)
  RecurrentTrace dec;                        // dec.H row t = s_t
  DecoderAttentionKeys keys;
  std::vector<DecoderAttentionStep> steps;   // (m + 1) alignment steps
  Mat O;                                     // (m + 1, 2H) [s_t ; c_t]
  Mat logits;                                // (m + 1, V_t)
};

void Seq2SeqModel::forward_pair(const std::vector<int>& source, const std::vector<int>& target, Trace& tr) const {
  const int H = desc_.hidden;
  tr.source = source;
  tr.dec_in.assign(1, data::kBos);
  tr.dec_in.insert(tr.dec_in.end(), target.begin(), target.end());
  tr.dec_out = target;
  tr.dec_out.push_back(data::kEos);
  // 1. Encoder: Hs (S, H); its last state h_S starts the decoder.
  source_embed_.forward(source, tr.Xs);
  recurrent_forward(encoder_, tr.Xs, false, tr.enc);
  const int S = tr.enc.steps(), T = int(tr.dec_in.size());
  const float* h_S = &tr.enc.H(S - 1, 0);
  const bool lstm = desc_.cell == CellKind::lstm;
  // 2. Decoder, one step per output word.
  target_embed_.forward(tr.dec_in, tr.Xd);
  recurrent_trace_resize(decoder_, T, tr.dec);
  if (desc_.context != ContextKind::none) decoder_attention_prepare(attention_, tr.enc.H, tr.keys);
  tr.steps.assign(desc_.context != ContextKind::none ? T : 0, DecoderAttentionStep());
  tr.O.resize(T, 2 * H);
  for (int t = 0; t < T; ++t) {
    const float* h_prev = t == 0 ? h_S : &tr.dec.H(t - 1, 0);
    const float* c_prev = lstm ? (t == 0 ? &tr.enc.C(S - 1, 0) : &tr.dec.C(t - 1, 0)) : nullptr;
    recurrent_step_forward(decoder_, &tr.Xd(t, 0), h_prev, c_prev, t, tr.dec);
    const float* context = h_S;  // ContextKind::none: the same vector at every step
    if (desc_.context != ContextKind::none) {
      decoder_attention_forward(attention_, &tr.dec.H(t, 0), tr.enc.H, tr.keys, tr.steps[t]);
      context = tr.steps[t].context.data();
    }
    std::copy(&tr.dec.H(t, 0), &tr.dec.H(t, 0) + H, &tr.O(t, 0));
    std::copy(context, context + H, &tr.O(t, H));
  }
  // 3. Output layer: logits (m + 1, V_t).
  out_.forward(tr.O, tr.logits);
}

// ---------------------------------------------------------------- 3 backward
// Returns the summed cross-entropy of the pair; every gradient is multiplied by scale.
float Seq2SeqModel::backward_pair(Trace& tr, float scale) {
  const int H = desc_.hidden, GH = decoder_.gates() * H;
  const int S = tr.enc.steps(), T = int(tr.dec_in.size()), V = desc_.target_vocab;
  const bool lstm = desc_.cell == CellKind::lstm;
  Mat dlogits(T, V);
  float total = 0.0f;
  for (int t = 0; t < T; ++t) total += softmax_cross_entropy_row(&tr.logits(t, 0), V, tr.dec_out[t], &dlogits(t, 0), scale);
  Mat dO;
  out_.backward(tr.O, dlogits, &dO);  // dO (T, 2H) = [ds_t ; dc_t]
  // Decoder steps in reverse: dh collects the output path, the attention query
  // path and the gradient from step t + 1.
  Mat dHs = Mat::Zero(S, H);
  Mat dGi(T, GH), dGh(T, GH);
  std::vector<float> dh(H), dh_next(H, 0.0f), dc_next(H, 0.0f), dc_prev(H, 0.0f);
  for (int t = T - 1; t >= 0; --t) {
    for (int j = 0; j < H; ++j) dh[j] = dO(t, j) + dh_next[j];
    if (desc_.context == ContextKind::none) {
      axpy(1.0f, &dO(t, H), &dHs(S - 1, 0), H);  // c_t = h_S
    } else {
      decoder_attention_backward(attention_, &tr.dec.H(t, 0), tr.enc.H, tr.keys, tr.steps[t], &dO(t, H), dh.data(),
                                 dHs);
    }
    recurrent_step_backward(decoder_, tr.dec, t, dh.data(), lstm ? dc_next.data() : nullptr, &dGi(t, 0), &dGh(t, 0),
                            dh_next.data(), dc_prev.data());
    if (lstm) dc_next = dc_prev;
  }
  axpy(1.0f, dh_next.data(), &dHs(S - 1, 0), H);  // s_0 = h_S
  if (desc_.context != ContextKind::none) decoder_attention_finish(attention_, tr.enc.H, tr.keys, dHs);
  Mat dXd;
  recurrent_weight_grads(decoder_, tr.dec, dGi, dGh, &dXd);
  target_embed_.backward(tr.dec_in, dXd);
  // Encoder: every state got gradient through the attention values/keys (and
  // h_S, c_S through the decoder's start).
  Mat dXs, dc_S(1, H);
  for (int j = 0; j < H; ++j) dc_S(0, j) = dc_next[j];
  recurrent_backward(encoder_, tr.enc, dHs, &dXs, nullptr, lstm ? &dc_S : nullptr);
  source_embed_.backward(tr.source, dXs);
  return total;
}

// ---------------------------------------------------------------- 4 training and evaluation
// The loss is the mean over the batch's target tokens (each sentence's words
// and its <eos>), not over sentences.
int Seq2SeqModel::batch_units(const Set& set, const std::vector<int>& batch) const {
  int n = 0;
  for (int i : batch) n += int(set[size_t(i)].target_ids.size()) + 1;  // + <eos>
  return n;
}

double Seq2SeqModel::example_gradient(const Set& set, int i, float scale) {
  Trace tr;
  forward_pair(set[size_t(i)].source_ids, set[size_t(i)].target_ids, tr);
  return backward_pair(tr, scale);
}

double Seq2SeqModel::example_loss(const Set& set, int i) const {
  Trace tr;
  forward_pair(set[size_t(i)].source_ids, set[size_t(i)].target_ids, tr);
  double total = 0.0;
  for (int t = 0; t < int(tr.dec_out.size()); ++t)
    total += softmax_cross_entropy_row(&tr.logits(t, 0), desc_.target_vocab, tr.dec_out[size_t(t)], nullptr, 1.0f);
  return total;
}

Seq2SeqEval Seq2SeqModel::evaluate(const std::vector<data::TranslationPair>& set) const {
  Seq2SeqEval ev;
  double loss_total = 0.0;
  int right_tokens = 0, right_sentences = 0;
  for (const data::TranslationPair& p : set) {
    Trace tr;
    forward_pair(p.source_ids, p.target_ids, tr);
    const int V = desc_.target_vocab, T = int(tr.dec_out.size());
    for (int t = 0; t < T; ++t) loss_total += softmax_cross_entropy_row(&tr.logits(t, 0), V, tr.dec_out[t], nullptr, 1.0f);
    const Seq2SeqDecode d = greedy_decode(p.source_ids, T + 4);
    int right = 0;
    for (int t = 0; t < T; ++t) right += t < int(d.tokens.size()) && d.tokens[t] == tr.dec_out[t];
    right_tokens += right;
    right_sentences += right == T && int(d.tokens.size()) == T;
    ev.tokens += T;
  }
  ev.sentences = int(set.size());
  if (ev.tokens > 0) {
    ev.loss = float(loss_total / ev.tokens);
    ev.token_accuracy = float(right_tokens) / float(ev.tokens);
  }
  if (ev.sentences > 0) ev.sentence_accuracy = float(right_sentences) / float(ev.sentences);
  return ev;
}

// ---------------------------------------------------------------- 5 greedy decoding and alignments
Seq2SeqDecode Seq2SeqModel::greedy_decode(const std::vector<int>& source, int max_length,
                                          const Seq2SeqForce* force) const {
  Seq2SeqDecode out;
  const int H = desc_.hidden, V = desc_.target_vocab;
  if (source.empty() || max_length < 1) return out;
  Mat Xs;
  RecurrentTrace enc;
  source_embed_.forward(source, Xs);
  recurrent_forward(encoder_, Xs, false, enc);
  const int S = enc.steps();
  const bool lstm = desc_.cell == CellKind::lstm;
  DecoderAttentionKeys keys;
  if (desc_.context != ContextKind::none) decoder_attention_prepare(attention_, enc.H, keys);
  RecurrentTrace dec;
  recurrent_trace_resize(decoder_, max_length, dec);
  out.alignment = Mat::Zero(max_length, S);
  Mat x, o(1, 2 * H), logits;
  int word = data::kBos;
  int t = 0;
  for (; t < max_length; ++t) {
    target_embed_.forward({word}, x);
    const float* h_prev = t == 0 ? &enc.H(S - 1, 0) : &dec.H(t - 1, 0);
    const float* c_prev = lstm ? (t == 0 ? &enc.C(S - 1, 0) : &dec.C(t - 1, 0)) : nullptr;
    recurrent_step_forward(decoder_, x.data(), h_prev, c_prev, t, dec);
    const float* context = &enc.H(S - 1, 0);
    DecoderAttentionStep step;
    if (desc_.context != ContextKind::none) {
      decoder_attention_forward(attention_, &dec.H(t, 0), enc.H, keys, step);
      if (force && force->step == t && force->source >= 0 && force->source < S) {
        // All weight on one source word: the context is its encoder state.
        step.alpha.setZero();
        step.alpha(0, force->source) = 1.0f;
        step.context = enc.H.row(force->source);
      }
      context = step.context.data();
      for (int j = 0; j < S; ++j) out.alignment(t, j) = step.alpha(0, j);
    }
    std::copy(&dec.H(t, 0), &dec.H(t, 0) + H, &o(0, 0));
    std::copy(context, context + H, &o(0, H));
    out_.forward(o, logits);
    word = argmax(logits.data(), V);
    out.tokens.push_back(word);
    if (word == data::kEos) { ++t; break; }
  }
  out.alignment.conservativeResize(t, S);
  return out;
}

Mat Seq2SeqModel::alignment(const std::vector<int>& source, const std::vector<int>& target) const {
  if (source.empty()) return Mat();
  Trace tr;
  forward_pair(source, target, tr);
  const int T = int(tr.dec_out.size()), S = int(source.size());
  Mat A = Mat::Zero(T, S);
  for (int t = 0; t < int(tr.steps.size()); ++t)
    for (int j = 0; j < S; ++j) A(t, j) = tr.steps[t].alpha(0, j);
  return A;
}

}  // namespace attn::train

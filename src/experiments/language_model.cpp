// language_model.cpp: train_lm (curriculum H): a character language model
// trained on real text -- the US founding documents or 唐诗三百首 -- then opened
// up: its loss against the counting baselines, samples, a typed prompt, every
// head's pattern and score, and a head switched off. One experiment of src/experiments
// (see training.h and kit.h for what they share).
#include <algorithm>
#include <cmath>
#include <tuple>

#include "base/rng.h"
#include "data/text_corpus.h"
#include "experiments/text_training.h"
#include "train/char_lm.h"
#include "train/ngram.h"

namespace attn::experiment_impl {
namespace {

constexpr int kSampleChars = 96;         // one sample's length (characters)
constexpr int kContinuationChars = 48;   // what follows a typed prompt
constexpr int kTopNext = 5;              // the most likely next characters shown
constexpr int kScoreWindows = 24;        // held-out windows the head scores read
constexpr int kHeadOffWindows = 48;      // held-out windows of the head-off table
constexpr uint64_t kSampleSeed = 7;      // samples are drawn from a fixed seed

// The unknown token in drawn text: one box, as wide as a character.
constexpr const char* kUnknownShown = "□";

bool is_break(const std::string& c) {
  static const char* const kMarks[] = {"\n", ",", ".", ";", ":", "?", "!", "，", "。", "？", "！", "；", "："};
  return std::any_of(std::begin(kMarks), std::end(kMarks), [&](const char* m) { return c == m; });
}

class LmExperiment : public TextTrainingExperiment {
 public:
  explicit LmExperiment(const DemoInputs& in) {
    corpus_ = text_or(in, "corpus", "english");
    chinese_ = corpus_ == "chinese";
    const bool own = corpus_ == "own";
    // The heads' panels are for the steps that open the model up; the first
    // steps show the loss, the sample and the prompt only.
    heads_ = text_or(in, "heads", "off") == "on";
    train::RunDesc base = seeded(in);
    base.own_text = own;
    add_track(own ? "your text's model" : chinese_ ? "poem model" : "text model",
              own ? "你的文本的模型" : chinese_ ? "唐诗模型" : "文本模型",
              chinese_ ? train::RunKind::lm_chinese : train::RunKind::lm_english, base);
    set_budget(setting_or(in, "steps", 1000), 50);
    for (const char* name : {"temperature", "top_k", "prompt", "ablate", "show"})
      set_view_setting(name, text_or(in, name, ""));
  }

  bool set_view_setting(const std::string& name, const std::string& value) override {
    if (name == "temperature") {
      // Validated by the registry (0.1 to 2); anything else keeps 0.8.
      const float t = float(std::atof(value.c_str()));
      sample_.temperature = std::isfinite(t) && t >= 0.1f && t <= 2.0f ? t : 0.8f;
    } else if (name == "top_k") {
      sample_.top_k = std::clamp(std::atoi(value.c_str()), 0, 50);
    } else if (name == "prompt") {
      // Checked by the registry (check_lm_prompt); anything else is no prompt.
      std::string why;
      prompt_text_ = check_lm_prompt(value, &why) ? value : "";
    } else if (name == "ablate") {
      head_of(value, &ablate_l_, &ablate_h_);
      ablate_ = ablate_l_ >= 0 ? value : "none";
    } else if (name == "show") {
      if (!head_of(value, &show_l_, &show_h_)) show_l_ = show_h_ = 0;
    } else {
      return TextTrainingExperiment::set_view_setting(name, value);
    }
    return true;
  }

 protected:
  void on_prepared() override {
    if (failed()) return;
    const data::CharCorpus& c = corpus();
    baselines_ = train::fit_char_baselines(c.train, c.heldout, c.vocab.size());
  }

  void on_evaluated() override {
    const Track& t = tracks()[0];
    heldout_curve_.push_back(t.last.loss);
    curve_x_.push_back(float(steps()));
    if (below_at_ < 0 && t.last.loss < float(baselines_.bigram)) below_at_ = steps();
    // What each head does: its scores and the held-out loss with it switched off.
    measure_heads();
  }

  void write_extra(ByteWriter& w) const override {
    w.floats(heldout_curve_);
    w.floats(curve_x_);
    w.i64(below_at_);
    w.floats(prev_score_);
    w.floats(induction_score_);
    w.floats(break_score_);
    w.floats(head_off_);
    w.f32(all_heads_loss_);
  }
  std::function<void()> read_extra(ByteReader& r) override {
    std::vector<float> curve, x, prev, ind, brk, off;
    int64_t below = -1;
    float all = 0.0f;
    const size_t heads = size_t(head_count());
    auto finite = [](const std::vector<float>& v) {
      return std::all_of(v.begin(), v.end(), [](float f) { return std::isfinite(f); });
    };
    auto heads_ok = [&](const std::vector<float>& v) { return (v.empty() || v.size() == heads) && finite(v); };
    if (!r.floats(&curve, 1 << 16) || !r.floats(&x, 1 << 16) || curve.size() != x.size() || !r.i64(&below) ||
        below < -1 || below > step_budget() || !finite(curve) || !finite(x) || !r.floats(&prev, heads) || !r.floats(&ind, heads) ||
        !r.floats(&brk, heads) || !r.floats(&off, heads) || !r.f32(&all) || !heads_ok(prev) || !heads_ok(ind) ||
        !heads_ok(brk) || !heads_ok(off) || !std::isfinite(all))
      return nullptr;
    return [this, curve = std::move(curve), x = std::move(x), below, prev = std::move(prev), ind = std::move(ind),
            brk = std::move(brk), off = std::move(off), all]() mutable {
      heldout_curve_ = std::move(curve);
      curve_x_ = std::move(x);
      below_at_ = long(below);
      prev_score_ = std::move(prev);
      induction_score_ = std::move(ind);
      break_score_ = std::move(brk);
      head_off_ = std::move(off);
      all_heads_loss_ = all;
    };
  }

  void add_panels(DemoOutputs& out) const override {
    if (failed()) {
      LocalText t;
      if (corpus_ == "own" && !data::corpus_provided(data::TextCorpusKind::own))
        add_line(t, "No text of your own yet: paste one, or drop a .txt file, in the box beside the lesson "
                    "(it stays on this device).",
                 "还没有你自己的文本：把文本粘贴到课文旁边的框里，或把 .txt 文件拖放进去（文本只留在这台设备上）。");
      else
        return add_text_error(out);
      out.panels.push_back(demo_impl::note_panel("text-error", tr("The text", "文本"), t));
      return;
    }
    add_loss_panel(out);
    out.panels.push_back(demo_impl::note_panel("sample", tr("A sample from the model as it is now", "模型现在生成的一段样本"),
                                               sample_note()));
    out.panels.push_back(demo_impl::slider_panel("temperature",
                                                 tr("Temperature: below 1 sharper, above 1 flatter", "温度：小于 1 更尖锐，大于 1 更平坦"),
                                                 0.1f, 2.0f, 0.1f));
    out.panels.push_back(demo_impl::slider_panel("top_k", tr("Top-k: draw only from the k likeliest characters (0: all)",
                                                             "Top-k：只从最可能的 k 个字符中抽（0：全部）"),
                                                 0.0f, 50.0f, 1.0f));
    out.panels.push_back(demo_impl::token_input_panel(
        "prompt", tr("Type your own text (at most 32 characters)", "输入你自己的文字（最多 32 个字符）"), {}, kLmPromptChars));
    out.panels.push_back(demo_impl::note_panel("prompt-next", tr("What the model reads in your text", "模型从你的文字里读出什么"),
                                               prompt_note()));
    // The likeliest next characters' probabilities after the prompt, most likely
    // first (what the note lists), for an exercise's check: lm_next[0, 0]. Zeros
    // while there is no prompt or no model yet.
    Mat next = Mat::Zero(1, kTopNext);
    if (!prompt_text_.empty() && tracks()[0].evaluated_at >= 0)
      for (size_t k = 0; k < next_chars().size() && k < size_t(kTopNext); ++k) next(0, Eigen::Index(k)) = next_chars()[k].second;
    out.mats["lm_next"] = next;
    if (heads_) add_head_panels(out);
  }

  void add_controls(DemoOutputs& out) const override {
    out.panels.push_back(demo_impl::choice_panel("corpus", tr("The text", "文本"), {"english", "chinese", "own"},
                                                 {tr("US founding documents (English)", "美国建国文献（英文）"),
                                                  tr("Tang poems (Chinese)", "唐诗（中文）"),
                                                  tr("Your own text (paste or drop it beside the lesson)",
                                                     "你自己的文本（粘贴或拖放到课文旁边）")}));
  }

  void add_status(Value& s) const override {
    if (failed()) {
      s.set("error", tracks()[0].run->error());
      return;
    }
    s.set("corpus", corpus_);
    s.set("unigramLoss", baselines_.unigram);
    s.set("bigramLoss", baselines_.bigram);
    s.set("bigramLambda", baselines_.model.lambda);
    s.set("belowBigramAt", below_at_);
    s.set("vocab", corpus().vocab.size());
    s.set("parameters", tracks()[0].run ? tracks()[0].run->parameter_count() : 0L);
    s.set("sample", sample());
    s.set("temperature", sample_.temperature);
    s.set("topK", sample_.top_k);
    s.set("ablate", ablate_);
    if (!prompt_text_.empty()) {
      s.set("prompt", prompt_text_);
      s.set("promptContinuation", continuation());
      Value top = Value::array();
      for (const auto& [c, p] : next_chars()) {
        Value e = Value::array();
        e.push(c);
        e.push(p);
        top.push(std::move(e));
      }
      s.set("promptNext", std::move(top));
    }
    auto arr = [](const std::vector<float>& v) {
      Value a = Value::array();
      for (float x : v) a.push(x);
      return a;
    };
    s.set("previousTokenScore", arr(prev_score_));
    s.set("inductionScore", arr(induction_score_));
    s.set("breakScore", arr(break_score_));
    s.set("headOffLoss", arr(head_off_));
    s.set("allHeadsLoss", all_heads_loss_);
    if (ablating() && !head_off_.empty()) s.set("ablatedLoss", head_off_[size_t(ablate_l_ * heads() + ablate_h_)]);
  }

 private:
  const train::CharLm& model() const { return *static_cast<const train::TrainRun&>(*tracks()[0].run).char_lm(); }
  const data::CharCorpus& corpus() const { return tracks()[0].run->char_corpus(); }
  int layers() const { return train::CharLmDesc().layers; }
  int heads() const { return train::CharLmDesc().heads; }
  int head_count() const { return layers() * heads(); }
  bool ablating() const { return ablate_l_ >= 0; }
  // "l.h" (l from 1, h from 0) -> 0-based layer and head; false (and -1) otherwise.
  bool head_of(const std::string& v, int* l, int* h) const {
    *l = *h = -1;
    if (v.size() != 3 || v[1] != '.') return false;
    const int a = v[0] - '1', b = v[2] - '0';
    if (a < 0 || a >= layers() || b < 0 || b >= heads()) return false;
    *l = a;
    *h = b;
    return true;
  }
  std::string head_name(int l, int h) const { return std::to_string(l + 1) + "." + std::to_string(h); }
  train::CharLmEdits edits() const { return train::scale_head(layers(), ablate_l_, ablate_h_, heads(), 0.0f); }

  // The typed prompt as ids (characters outside the table are <unk>).
  std::vector<int> prompt_ids() const {
    const data::Vocab& v = corpus().vocab;
    std::vector<int> ids;
    for (const std::string& c : data::utf8_chars(prompt_text_)) ids.push_back(v.id(c));
    return ids;
  }
  // What the heatmaps read: the prompt, else the start of the held-out text.
  std::vector<int> shown_ids() const {
    if (!prompt_text_.empty()) return prompt_ids();
    const std::vector<int>& h = corpus().heldout;
    return std::vector<int>(h.begin(), h.begin() + std::min<long>(long(h.size()), 24));
  }
  // The characters as the model reads them: the unknown token as a box, so
  // nothing drawn needs a glyph outside the vocabulary (the font holds all of it).
  std::vector<std::string> chars_of(const std::vector<int>& ids) const {
    std::vector<std::string> out;
    for (int id : ids)
      out.push_back(id == corpus().vocab.unknown                ? kUnknownShown
                    : id >= 0 && id < corpus().vocab.size() ? corpus().vocab.words[size_t(id)]
                                                            : "?");
    return out;
  }
  std::string text_of(const std::vector<int>& ids) const {
    std::string s;
    for (const std::string& c : chars_of(ids)) s += c;
    return s;
  }

  // Drawn text is cached per set of weights and settings: a page's copy asks
  // for it every frame, and it changes only with a new evaluation or setting.
  using Key = std::tuple<long, float, int, std::string, std::string>;
  Key key() const { return {tracks()[0].evaluated_at, sample_.temperature, sample_.top_k, ablate_, prompt_text_}; }
  struct Drawn {
    long at = -1;  // the training step of the weights drawn from (a page's copy has newer weights than its last evaluation)
    std::string sample, continuation;
    std::vector<std::pair<std::string, float>> next;
  };
  const Drawn& drawn() const {
    if (!drawn_valid_ || drawn_key_ != key()) {
      drawn_ = Drawn();
      if (prepared() && !failed() && tracks()[0].evaluated_at >= 0) {
        const train::CharLmEdits e = edits();
        const train::CharLmEdits* ep = ablating() ? &e : nullptr;
        drawn_.at = tracks()[0].steps;
        // The sample starts after a line break, as a new paragraph or poem would.
        const int start = corpus().vocab.id("\n");
        // A sample never draws the unknown token: it stands for hundreds of rare
        // characters, and a line of boxes says nothing.
        train::SampleDesc how = sample_;
        how.banned = corpus().vocab.unknown;
        Rng rng(kSampleSeed);
        drawn_.sample = text_of(train::sample_text(model(), {start}, kSampleChars, how, rng, ep));
        if (!prompt_text_.empty()) {
          const std::vector<int> ids = prompt_ids();
          Rng r2(kSampleSeed);
          drawn_.continuation = text_of(train::sample_text(model(), ids, kContinuationChars, how, r2, ep));
          const Mat z = model().logits(ids, ep);
          const Eigen::Index last = z.rows() - 1;
          // A stable softmax of the last row (minus its largest score: no overflow).
          const float top = z.row(last).maxCoeff();
          double sum = 0.0;
          for (Eigen::Index c = 0; c < z.cols(); ++c) sum += std::exp(double(z(last, c) - top));
          std::vector<int> order(size_t(z.cols()));
          for (int c = 0; c < int(z.cols()); ++c) order[size_t(c)] = c;
          std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return z(last, a) > z(last, b); });
          for (int r = 0; r < kTopNext && r < int(order.size()); ++r)
            drawn_.next.push_back({text_of({order[size_t(r)]}), float(std::exp(double(z(last, order[size_t(r)]) - top)) / sum)});
        }
      }
      drawn_key_ = key();
      drawn_valid_ = true;
    }
    return drawn_;
  }
  const std::string& sample() const { return drawn().sample; }
  const std::string& continuation() const { return drawn().continuation; }
  const std::vector<std::pair<std::string, float>>& next_chars() const { return drawn().next; }

  // Per head, over the first held-out windows: the mean weight a query puts on
  // the position just before it (previous token), on the position after the
  // earlier copy of its character in a chunk repeated twice (induction), and on
  // the nearest line break or punctuation mark at or before it (line structure);
  // and the held-out loss of those windows with the head switched off.
  void measure_heads() {
    const auto& held = tracks()[0].run->text_heldout();
    const size_t H = size_t(head_count());
    std::vector<double> prev(H), ind(H), brk(H);
    double n_prev = 0, n_ind = 0, n_brk = 0;
    const int windows = std::min<int>(kScoreWindows, int(held.size()));
    for (int w = 0; w < windows; ++w) {
      std::vector<int> ids = held[size_t(w)].tokens;
      if (ids.size() > size_t(model().desc().context)) ids.resize(size_t(model().desc().context));
      if (ids.size() < 4) continue;
      const std::vector<std::string> cs = chars_of(ids);
      const auto P = model().attention(ids);
      // Previous token and line structure on the text itself.
      for (int i = 1; i < int(ids.size()); ++i) {
        int mark = -1;
        for (int j = i; j >= 0 && mark < 0; --j)
          if (is_break(cs[size_t(j)])) mark = j;
        for (size_t l = 0; l < P.size(); ++l)
          for (size_t h = 0; h < P[l].size(); ++h) {
            const size_t k = l * size_t(heads()) + h;
            prev[k] += P[l][h](i, i - 1);
            if (mark >= 0) brk[k] += P[l][h](i, mark);
          }
        n_prev += 1;
        if (mark >= 0) n_brk += 1;
      }
      // Induction: the first half of the window, then the same again.
      const size_t half = ids.size() / 2;
      std::vector<int> rep(ids.begin(), ids.begin() + long(half));
      rep.insert(rep.end(), ids.begin(), ids.begin() + long(half));
      const auto R = model().attention(rep);
      for (size_t i = half; i + 1 < rep.size(); ++i) {
        for (size_t l = 0; l < R.size(); ++l)
          for (size_t h = 0; h < R[l].size(); ++h) ind[l * size_t(heads()) + h] += R[l][h](long(i), long(i - half + 1));
        n_ind += 1;
      }
    }
    auto mean = [&](const std::vector<double>& v, double n) {
      std::vector<float> out(v.size());
      for (size_t k = 0; k < v.size(); ++k) out[k] = n > 0 ? float(v[k] / n) : 0.0f;
      return out;
    };
    prev_score_ = mean(prev, n_prev);
    induction_score_ = mean(ind, n_ind);
    break_score_ = mean(brk, n_brk);
    const std::vector<data::TextWindow> part(held.begin(), held.begin() + std::min<long>(long(held.size()), kHeadOffWindows));
    all_heads_loss_ = model().evaluate(part).loss;
    head_off_.assign(H, 0.0f);
    for (int l = 0; l < layers(); ++l)
      for (int h = 0; h < heads(); ++h) {
        const train::CharLmEdits e = train::scale_head(layers(), l, h, heads(), 0.0f);
        head_off_[size_t(l * heads() + h)] = model().evaluate(part, &e).loss;
      }
  }

  void add_loss_panel(DemoOutputs& out) const {
    const size_t n = heldout_curve_.size();
    out.mats["lm_loss"] = series_matrix({heldout_curve_, std::vector<float>(n, float(baselines_.unigram)),
                                         std::vector<float>(n, float(baselines_.bigram))});
    out.mats["lm_steps"] = row_matrix(curve_x_);
    out.panels.push_back(demo_impl::lines_panel(
        "lm-loss", "lm_loss", "lm_steps", tr("Held-out loss against the counting baselines", "留出集损失与计数基线"),
        {"model", "unigram", "bigram"},
        tr("x: training step; y: nats per character (lower is better)", "横轴：训练步数；纵轴：每个字符的奈特数（越低越好）")));
    Panel& p = out.panels.back();
    p.label_text["model"] = tr("the model (held out)", "模型（留出集）");
    p.label_text["unigram"] = tr("unigram: character frequencies", "一元：字符频率");
    p.label_text["bigram"] = tr("bigram: the character before", "二元：前一个字符");
  }

  LocalText sample_note() const {
    LocalText t;
    if (tracks()[0].evaluated_at < 0) {
      add_line(t, "A sample appears once the model is built.", "模型建好后显示样本。");
      return t;
    }
    const std::string at = std::to_string(drawn().at);
    add_line(t, "At step " + at + ":", "第 " + at + " 步：");
    // One line per line of the sample, so a poem reads as lines.
    std::string line;
    for (const std::string& c : data::utf8_chars(sample())) {
      if (c == "\n") {
        if (!line.empty()) add_line(t, line, line);
        line.clear();
      } else {
        line += c;
      }
    }
    if (!line.empty()) add_line(t, line, line);
    return t;
  }

  LocalText prompt_note() const {
    LocalText t;
    if (prompt_text_.empty()) {
      add_line(t, "Type text above: the model continues it, and the heatmaps show its heads reading it.",
               "在上面输入文字：模型会接着写，热力图显示各个头怎样读它。");
      return t;
    }
    if (tracks()[0].evaluated_at < 0) {
      add_line(t, "The model's answer appears once it is built.", "模型建好后显示它的回答。");
      return t;
    }
    std::string next;
    for (const auto& [c, p] : next_chars()) next += (next.empty() ? "" : ", ") + shown_char(c) + " " + fmt(p);
    add_line(t, "Next character: " + next, "下一个字符：" + next);
    std::string cont;
    for (const std::string& c : data::utf8_chars(continuation())) cont += c == "\n" ? "↵" : c;
    // The prompt as the model reads it (a character it never saw is a box).
    std::string read;
    for (const std::string& c : chars_of(prompt_ids())) read += c == "\n" ? "↵" : c;
    add_line(t, "Continued: " + read + " | " + cont, "续写：" + read + " | " + cont);
    int unknown = 0;
    for (int id : prompt_ids()) unknown += id == corpus().vocab.unknown;
    if (unknown > 0)
      add_line(t, std::to_string(unknown) + " of your characters are outside the model's vocabulary: it reads each as the unknown token, □.",
               "你的文字里有 " + std::to_string(unknown) + " 个字符不在模型的词表里：模型把它们都读作“未知”词元 □。");
    return t;
  }

  void add_head_panels(DemoOutputs& out) const {
    std::vector<std::string> names;
    std::vector<LocalText> labels;
    for (int l = 0; l < layers(); ++l)
      for (int h = 0; h < heads(); ++h) {
        names.push_back(head_name(l, h));
        labels.push_back(tr("layer " + std::to_string(l + 1) + ", head " + std::to_string(h),
                            "第 " + std::to_string(l + 1) + " 层，头 " + std::to_string(h)));
      }
    // Scores per head.
    Mat bars = Mat::Zero(Eigen::Index(names.size()), 3);
    for (size_t k = 0; k < names.size() && k < prev_score_.size(); ++k) {
      bars(Eigen::Index(k), 0) = prev_score_[k];
      bars(Eigen::Index(k), 1) = induction_score_[k];
      bars(Eigen::Index(k), 2) = break_score_[k];
    }
    out.mats["lm_head_scores"] = bars;
    out.panels.push_back(demo_impl::bars_panel("lm-scores", "lm_head_scores",
                                               tr("Per head (layer.head): previous-character, induction and line-break scores",
                                                  "每个头（层.头）：前一字符、归纳与断行分数"),
                                               names, {"previous", "induction", "line break"}));
    out.panels.back().label_text["previous"] = tr("previous character", "前一个字符");
    out.panels.back().label_text["induction"] = tr("induction", "归纳");
    out.panels.back().label_text["line break"] = tr("last line break or mark", "最近的换行或标点");
    // The loss with each head off, beside the loss with all of them.
    Mat off = Mat::Zero(Eigen::Index(names.size()), 1);
    for (size_t k = 0; k < names.size() && k < head_off_.size(); ++k) off(Eigen::Index(k), 0) = head_off_[k] - all_heads_loss_;
    out.mats["lm_head_off"] = off;
    out.panels.push_back(demo_impl::bars_panel("lm-head-off", "lm_head_off",
                                               tr("Held-out loss rise with each head switched off (no retraining)",
                                                  "关掉每个头后留出集损失上升多少（不重新训练）"),
                                               names, {"rise"}));
    out.panels.back().label_text["rise"] = tr("rise (nats per character)", "上升（每字符奈特）");
    // The chosen head: the loss with every head, with it off, and the rise.
    Mat ablation = Mat::Zero(1, 3);
    if (ablating() && head_off_.size() == names.size()) {
      const float off_loss = head_off_[size_t(ablate_l_ * heads() + ablate_h_)];
      ablation << all_heads_loss_, off_loss, off_loss - all_heads_loss_;
    } else if (!head_off_.empty()) {
      ablation << all_heads_loss_, all_heads_loss_, 0.0f;
    }
    out.mats["lm_ablation"] = ablation;
    out.panels.push_back(demo_impl::bars_panel("lm-ablation", "lm_ablation",
                                               tr("Held-out loss: every head, the chosen head off, and the rise",
                                                  "留出集损失：所有头、关掉所选的头，以及上升了多少"),
                                               {"loss"}, {"all heads", "head off", "rise"}));
    out.panels.back().label_text["loss"] = tr("loss", "损失");
    out.panels.back().label_text["all heads"] = tr("all heads", "所有头");
    out.panels.back().label_text["head off"] = tr("head off", "关掉的头");
    out.panels.back().label_text["rise"] = tr("rise", "上升");
    std::vector<std::string> options = {"none"};
    std::vector<LocalText> option_labels = {tr("none", "无")};
    options.insert(options.end(), names.begin(), names.end());
    option_labels.insert(option_labels.end(), labels.begin(), labels.end());
    out.panels.push_back(demo_impl::choice_panel("ablate", tr("Switch one head off: the sample and the reading of your text follow",
                                                               "关掉一个头：样本和对你文字的续写随之改变"),
                                                 options, option_labels));
    // One head's pattern at a time, on the learner's text.
    out.panels.push_back(demo_impl::choice_panel("show", tr("The head whose pattern is shown", "显示哪个头的注意力"), names, labels));
    const std::vector<int> ids = prepared() && !failed() ? shown_ids() : std::vector<int>();
    std::vector<std::string> cells = {"…"};
    Mat w = Mat::Zero(1, 1);
    if (!ids.empty()) {
      cells.clear();
      for (const std::string& c : chars_of(ids)) cells.push_back(shown_char(c));
      const train::CharLmEdits e = edits();
      const auto P = model().attention(ids, ablating() ? &e : nullptr);
      w = P[size_t(show_l_)][size_t(show_h_)];
    }
    out.mats["lm_head"] = w;
    out.panels.push_back(demo_impl::heatmap_panel(
        "lm-head", "lm_head",
        tr("Head " + head_name(show_l_, show_h_) + (prompt_text_.empty() ? " on held-out text" : " on your text") +
               ": one row per character (causal)",
           "头 " + head_name(show_l_, show_h_) + (prompt_text_.empty() ? " 读留出文本" : " 读你的文字") + "：每个字符一行（因果）"),
        cells, cells, true));
  }

  std::string corpus_ = "english";  // english, chinese or own (the learner's text)
  bool chinese_ = false;
  bool heads_ = false;  // the heads' panels are shown
  train::SampleDesc sample_{0.8f, 0};
  std::string prompt_text_;
  std::string ablate_ = "none";
  int ablate_l_ = -1, ablate_h_ = -1;
  int show_l_ = 0, show_h_ = 0;
  train::CharBaselines baselines_;
  std::vector<float> heldout_curve_, curve_x_;
  long below_at_ = -1;  // the first evaluation below the bigram baseline (-1: not yet)
  std::vector<float> prev_score_, induction_score_, break_score_, head_off_;
  float all_heads_loss_ = 0.0f;
  mutable Drawn drawn_;
  mutable Key drawn_key_;
  mutable bool drawn_valid_ = false;
};

}  // namespace

std::unique_ptr<Experiment> make_lm_experiment(const DemoInputs& in) { return std::make_unique<LmExperiment>(in); }

}  // namespace attn::experiment_impl

namespace attn {

bool experiment_text(const std::string& demo, const DemoInputs& in, std::string* corpus) {
  // train_positions and train_kv_cache read the same two texts (not the learner's own).
  if (demo != "train_lm" && demo != "train_positions" && demo != "train_kv_cache") return false;
  auto it = in.settings.find("corpus");
  const std::string which = it == in.settings.end() ? "english" : it->second;
  *corpus = data::text_corpus_name(which == "chinese" ? data::TextCorpusKind::tang_poems
                                   : which == "own"   ? data::TextCorpusKind::own
                                                      : data::TextCorpusKind::founding_documents);
  return true;
}

bool check_lm_prompt(const std::string& text, std::string* why) {
  // Length first, so a long paste is refused before anything reads it.
  if (text.size() > kLmPromptBytes) {
    *why = "'prompt' is too long: at most " + std::to_string(kLmPromptBytes) + " bytes";
    return false;
  }
  size_t bad = 0;
  if (!data::valid_utf8(text, &bad)) {
    *why = "'prompt' is not valid UTF-8 (byte " + std::to_string(bad) + ")";
    return false;
  }
  const std::vector<std::string> chars = data::utf8_chars(text);
  if (int(chars.size()) > kLmPromptChars) {
    *why = "'prompt' has " + std::to_string(chars.size()) + " characters: at most " + std::to_string(kLmPromptChars);
    return false;
  }
  for (const std::string& c : chars)
    if (c.size() == 1 && static_cast<unsigned char>(c[0]) < 0x20 && c != "\n") {
      *why = "'prompt' may not hold control characters";
      return false;
    }
  return true;
}

}  // namespace attn

// experiment_induction.cpp: train_induction (curriculum D4): an attention-only
// decoder forms induction heads. One experiment of src/experiments (see
// training.h and kit.h for what they share).
#include <algorithm>
#include <cmath>
#include <tuple>

#include "base/tensor_json.h"
#include "experiments/training.h"
#include "experiments/weights_export.h"

namespace attn::experiment_impl {
namespace {

// A two-layer attention-only decoder learns to continue repeated random tokens:
// the loss on the repeated half drops once a layer-1 head looks at the previous
// token and a layer-2 head at the token after the earlier occurrence of the
// current one. Every head's pattern, its scores, and a head switched off
// without retraining.
class InductionExperiment : public TrainingExperiment {
 public:
  explicit InductionExperiment(const DemoInputs& in) {
    add_track("induction model", "归纳模型", train::RunKind::induction, seeded(in));
    set_budget(setting_or(in, "steps", 600), 25);
    set_view_setting("example", text_or(in, "example", "0"));
    set_view_setting("scale", text_or(in, "scale", "0"));
    set_view_setting("ablate", text_or(in, "ablate", "none"));
    set_view_setting("redirect", text_or(in, "redirect", "-1"));
    set_view_setting("prompt", text_or(in, "prompt", ""));
    // A step that gives `row` gets an editor for one attention row.
    if (auto it = in.mats.find("row"); it != in.mats.end()) {
      has_row_ = true;
      row_ = it->second;
    }
  }

  bool set_view_matrix(const std::string& name, const Mat& m) override {
    if (name != "row" || !has_row_) return false;
    row_ = m;
    return true;
  }

  bool set_view_setting(const std::string& name, const std::string& value) override {
    if (name == "prompt") {
      // Validated by the registry (check_induction_prompt); anything else shows no prompt.
      std::string why;
      prompt_.clear();
      if (!parse_induction_prompt(value, &prompt_, &why)) prompt_.clear();
      return true;
    }
    if (name == "redirect") {
      redirect_ = std::max(-1, std::atoi(value.c_str()));
      return true;
    }
    if (name == "scale") {
      // Validated by the registry (0 to 2); the chosen head writes scale times its output.
      scale_ = std::clamp(float(std::atof(value.c_str())), 0.0f, 2.0f);
      apply_head_edit();
      return true;
    }
    if (name != "ablate") return TrainingExperiment::set_view_setting(name, value);
    ablate_ = value;
    ablate_l_ = ablate_h_ = -1;
    if (value.size() == 3 && value[1] == '.') {
      ablate_l_ = value[0] - '1';
      ablate_h_ = value[2] - '0';
    }
    apply_head_edit();
    return true;
  }

 private:
  // The chosen head times scale_ (0: off): the edit needs no retraining.
  void apply_head_edit() {
    edits_ = train::InductionEdits();
    if (ablate_l_ >= 0) edits_.scale_head(ablate_l_, ablate_h_, scale_);
  }

  // The held-out repeated-half loss without and with the chosen head's edit,
  // both from the weights held now. Measured over the whole held-out set when
  // first asked after a change of edit or a new evaluation (so a page's copy,
  // which reads the weights many times a second while the worker trains,
  // measures about as often as the worker evaluates) and kept until then.
  struct Ablation {
    train::EvalResult kept, edited;
  };
  const Ablation& head_edit_effect() const {
    const std::tuple<long, int, int, float> key{tracks()[0].evaluated_at, ablate_l_, ablate_h_, scale_};
    if (!ablation_valid_ || key != ablation_key_) {
      ablation_ = {tracks()[0].last, tracks()[0].last};
      if (prepared() && ablating()) {
        ablation_.kept = model().evaluate(test()).repeated_half;
        ablation_.edited = model().evaluate(test(), &edits_).repeated_half;
      }
      ablation_key_ = key;
      ablation_valid_ = true;
    }
    return ablation_;
  }

 protected:
  LocalText accuracy_name() const override { return tr("repeated-half accuracy", "重复半段准确率"); }

  // One forward pass per held-out sequence gives the track's repeated-half
  // result, the first half's, and every head's scores.
  train::EvalResult evaluate_track(const Track&, int begin, int end) override {
    if (begin == 0) {
      first_partial_ = {};
      score_sum_ = train::HeadScores{};
      scored_ = 0;
    }
    const std::vector<data::InductionSequence> part = slice(begin, end);
    if (part.empty()) return {};
    train::HeadScores hs;
    const train::InductionEval ev = model().evaluate(part, nullptr, &hs);
    first_partial_ = train::combine_eval(first_partial_, ev.first_half);
    const float w = float(part.size());
    if (scored_ == 0) score_sum_ = {hs.previous_token * w, hs.induction * w};
    else {
      score_sum_.previous_token += hs.previous_token * w;
      score_sum_.induction += hs.induction * w;
    }
    scored_ += int(part.size());
    return ev.repeated_half;
  }

  void on_evaluated() override {
    first_curve_.push_back(first_partial_.loss);
    repeated_curve_.push_back(tracks()[0].last.loss);
    curve_x_.push_back(float(steps()));
    if (phase_at_ < 0 && repeated_curve_.back() < 0.5f * first_curve_.back()) phase_at_ = steps();
    if (scored_ > 0) scores_ = {score_sum_.previous_token / float(scored_), score_sum_.induction / float(scored_)};
  }

  // The curves of the two halves, the phase and the head scores: what training
  // measures besides the track's own curves.
  void write_extra(ByteWriter& w) const override {
    w.floats(first_curve_);
    w.floats(repeated_curve_);
    w.floats(curve_x_);
    w.i64(phase_at_);
    const train::InductionModelDesc d;
    const bool scored = scores_.induction.rows() == d.layers && scores_.induction.cols() == d.heads;
    w.u8(scored);
    if (scored) {
      w.floats(scores_.previous_token.data(), size_t(scores_.previous_token.size()));
      w.floats(scores_.induction.data(), size_t(scores_.induction.size()));
    }
  }
  std::function<void()> read_extra(ByteReader& r) override {
    std::vector<float> first, repeated, x;
    int64_t phase = -1;
    uint8_t scored = 0;
    const train::InductionModelDesc d;
    train::HeadScores scores;
    if (!r.floats(&first, 1 << 20) || !r.floats(&repeated, 1 << 20) || !r.floats(&x, 1 << 20) || !r.i64(&phase) ||
        phase < -1 || phase > step_budget() || !r.u8(&scored))
      return nullptr;
    if (scored) {
      scores = {Mat(d.layers, d.heads), Mat(d.layers, d.heads)};
      if (!r.floats_into(scores.previous_token.data(), size_t(scores.previous_token.size())) ||
          !r.floats_into(scores.induction.data(), size_t(scores.induction.size())))
        return nullptr;
    }
    return [this, first = std::move(first), repeated = std::move(repeated), x = std::move(x), phase, scored,
            scores = std::move(scores)]() mutable {
      first_curve_ = std::move(first);
      repeated_curve_ = std::move(repeated);
      curve_x_ = std::move(x);
      phase_at_ = long(phase);
      if (scored) scores_ = std::move(scores);
    };
  }

  // Beside the bars they move: which head, and how much of it.
  void add_head_controls(DemoOutputs& out) const {
    std::vector<std::string> options = {"none"};
    std::vector<LocalText> labels = {tr("none", "无")};
    const train::InductionModelDesc d;
    for (int l = 0; l < d.layers; ++l)
      for (int h = 0; h < d.heads; ++h) {
        options.push_back(std::to_string(l + 1) + "." + std::to_string(h));
        labels.push_back(tr("layer " + std::to_string(l + 1) + ", head " + std::to_string(h),
                            "第 " + std::to_string(l + 1) + " 层，头 " + std::to_string(h)));
      }
    out.panels.push_back(demo_impl::choice_panel("ablate", tr("Switch one head off (no retraining)", "关掉一个头（不重新训练）"),
                                                 options, labels));
    out.panels.push_back(demo_impl::slider_panel("scale",
                                                 tr("The chosen head's output times s (0: off, 1: as trained, 2: doubled)",
                                                    "所选的头的输出乘以 s（0：关掉，1：训练出的样子，2：加倍）"),
                                                 0.0f, 2.0f, 0.1f));
  }

  // Under the heatmaps whose row they rewrite, above the predictions that follow.
  void add_row_controls(DemoOutputs& out) const {
    out.panels.push_back(demo_impl::slider_panel("redirect",
                                                 tr("Point the best induction head's last query at position k (-1: off)",
                                                    "把最好的归纳头的最后一个查询指向位置 k（-1：不改）"),
                                                 -1.0f, 15.0f, 1.0f));
    if (has_row_) {
      // One column per position of the shown sequence; the weights are renormalised.
      std::vector<std::string> cols;
      const data::InductionSequence* seq = sequence();
      for (int j = 0; j < kInductionPromptTokens; ++j)
        cols.push_back(seq && j < int(seq->tokens.size()) ? std::string(1, char('A' + seq->tokens[size_t(j)])) + std::to_string(j)
                                                          : std::to_string(j));
      out.panels.push_back(demo_impl::editor_panel(
          "row",
          tr("Or drag that row's weights, one per position (rescaled to sum to 1; all 0: off)",
             "或者拖动那一行的权重，每个位置一个（重新缩放到总和为 1；全为 0：不改）"),
          {"weight"}, cols));
      out.panels.back().label_text["weight"] = tr("weight", "权重");
    }
  }

  void add_panels(DemoOutputs& out) const override {
    // The repeated-half loss with every head, with the switched-off head off,
    // and the rise between them (0 while no head is off): exercises check it.
    Mat ablation = Mat::Zero(1, 3);
    if (!repeated_curve_.empty()) {
      const Ablation& a = head_edit_effect();
      const float kept = a.kept.loss, off = ablating() ? a.edited.loss : kept;
      ablation << kept, off, off - kept;
    }
    out.mats["ablation"] = ablation;
    out.panels.push_back(demo_impl::bars_panel("ablation", "ablation",
                                               tr("Held-out repeated-half loss: all heads, the chosen head off (or scaled), and the rise",
                                                  "留出集重复半段的损失：所有头、关掉（或缩放）所选的头，以及上升了多少"),
                                               {"repeated half"}, {"all heads", "head off", "rise"}));
    out.panels.back().label_text["repeated half"] = tr("repeated half", "重复半段");
    out.panels.back().label_text["all heads"] = tr("all heads", "所有头");
    out.panels.back().label_text["head off"] =
        !ablating() || scale_ == 0.0f ? tr("head off", "关掉的头") : tr("head x " + fmt(scale_, 1), "头 x " + fmt(scale_, 1));
    out.panels.back().label_text["rise"] = tr("rise", "上升");
    add_head_controls(out);
    out.mats["half_loss"] = series_matrix({first_curve_, repeated_curve_});
    out.mats["half_steps"] = row_matrix(curve_x_);
    out.panels.push_back(demo_impl::lines_panel("halves", "half_loss", "half_steps",
                                                tr("Held-out loss: first half against repeated half", "留出集损失：前半段与重复的后半段"),
                                                {"first half", "repeated half"},
                                                tr("x: training step; y: next-token loss (chance is about ln 16 = 2.77)",
                                                   "横轴：训练步数；纵轴：下一个词元的损失（随机猜约为 ln 16 = 2.77）")));
    const train::InductionModelDesc d;
    std::vector<std::string> head_names;
    for (int l = 0; l < d.layers; ++l)
      for (int h = 0; h < d.heads; ++h) head_names.push_back(std::to_string(l + 1) + "." + std::to_string(h));
    Mat bars = Mat::Zero(Eigen::Index(head_names.size()), 2);
    for (int l = 0; l < int(scores_.induction.rows()); ++l)
      for (int h = 0; h < int(scores_.induction.cols()); ++h) {
        bars(l * d.heads + h, 0) = scores_.induction(l, h);
        bars(l * d.heads + h, 1) = scores_.previous_token(l, h);
      }
    out.mats["head_scores"] = bars;
    out.panels.push_back(demo_impl::bars_panel("scores", "head_scores",
                                               tr("Per head (layer.head): induction score and previous-token score",
                                                  "每个头（层.头）：归纳分数与前一词元分数"),
                                               head_names, {"induction", "previous token"}));
    // Every head's weights for one held-out sequence (with the switched-off head's edit).
    // A typed prompt replaces the held-out sequence in the heatmaps.
    const data::InductionSequence* s = sequence();
    const std::vector<int>* shown = !prepared() ? nullptr : !prompt_.empty() ? &prompt_ : s ? &s->tokens : nullptr;
    std::vector<std::string> labels = {"…"};
    std::vector<std::vector<Mat>> w;
    if (shown) {
      labels.clear();
      for (size_t i = 0; i < shown->size(); ++i) labels.push_back(std::string(1, char('A' + (*shown)[i])) + std::to_string(i));
      // The held-out sequence's heads show an overridden row as it is used.
      const Redirect r = prompt_.empty() ? redirect(s) : Redirect{};
      w = model().attention(*shown, r.row >= 0 ? &r.edits : ablating() ? &edits_ : nullptr);
    }
    for (int l = 0; l < d.layers; ++l)
      for (int h = 0; h < d.heads; ++h) {
        const std::string key = "head_" + std::to_string(l + 1) + "_" + std::to_string(h);
        out.mats[key] = shown ? w[size_t(l)][size_t(h)] : Mat(Mat::Zero(1, 1));
        out.panels.push_back(demo_impl::heatmap_panel(key, key,
                                                      tr("Layer " + std::to_string(l + 1) + ", head " + std::to_string(h) +
                                                             ": one row per query (causal)",
                                                         "第 " + std::to_string(l + 1) + " 层，头 " + std::to_string(h) + "：每个查询一行（因果）"),
                                                      labels, labels, true));
      }
    add_row_controls(out);
    out.panels.push_back(demo_impl::note_panel("predictions", tr("Next-token predictions for this sequence", "这个序列的下一个词元预测"),
                                               predictions_text(s)));
    std::vector<std::string> letters;
    for (int v = 0; v < kInductionVocab; ++v) letters.push_back(std::string(1, char('A' + v)));
    out.panels.push_back(demo_impl::token_input_panel("prompt", tr("Type a prompt: letters A to P (at most 16), e.g. C F A K C F",
                                                                  "输入提示：字母 A 到 P（最多 16 个），例如 C F A K C F"),
                                                      letters, kInductionPromptTokens));
    out.panels.push_back(demo_impl::note_panel("prompt-predictions", tr("Your prompt, token by token", "你的提示，逐个词元"),
                                               prompt_text()));
    out.panels.push_back(demo_impl::slider_panel("example", tr("Held-out sequence", "留出集序列"), 0.0f, 29.0f, 1.0f));
  }

  void add_status(Value& s) const override {
    if (prepared() && !prompt_.empty()) {
      Value p = Value::array();
      for (int t : model().predictions(prompt_, ablating() ? &edits_ : nullptr)) p.push(t);
      s.set("promptPredictions", std::move(p));
    }
    if (const data::InductionSequence* seq = sequence()) {
      if (const Redirect r = redirect(seq); r.row >= 0) {
        s.set("redirectRow", r.row);
        s.set("redirectKey", r.key);
        s.set("redirectDragged", r.dragged);
        s.set("redirectedPrediction", model().predictions(seq->tokens, &r.edits)[size_t(r.row)]);
        s.set("tokenAtKey", seq->tokens[size_t(r.key)]);
      }
    }
    s.set("firstHalfLoss", first_curve_.empty() ? 0.0f : first_curve_.back());
    s.set("repeatedHalfLoss", repeated_curve_.empty() ? 0.0f : repeated_curve_.back());
    int bl = 0, bh = 0;
    const float best = scores_.induction.size() ? scores_.induction.maxCoeff(&bl, &bh) : 0.0f;
    s.set("bestInductionHead", std::to_string(bl + 1) + "." + std::to_string(bh));
    s.set("bestInductionScore", best);
    s.set("ablate", ablate_);
    // The first evaluation with the repeated half below half the first half's loss (-1: not yet).
    s.set("inductionPhaseAt", phase_at_);
    s.set("headScale", scale_);
    if (ablating()) s.set("ablatedRepeatedHalfLoss", head_edit_effect().edited.loss);
  }

 private:
  bool ablating() const { return ablate_l_ >= 0; }
  // What was done to the chosen head, for the notes: " off" / " x 0.5" after
  // "head 2.1" in English; "关掉头 2.1" / "头 2.1 x 0.5" in Chinese.
  LocalText head_edit_words() const {
    return scale_ == 0.0f ? tr(" off", "关掉头 " + ablate_) : tr(" x " + fmt(scale_, 1), "头 " + ablate_ + " x " + fmt(scale_, 1));
  }

  // The row override: the head with the best induction score, the last query
  // of the shown sequence, on top of any changed head. The dragged row (when a
  // weight of a visible position is above 0) gives the weights, renormalised;
  // else the redirect slider puts all weight on position min(k, query). row < 0: none.
  struct Redirect {
    int layer = 0, head = 0, row = -1, key = 0;
    bool dragged = false;
    std::vector<float> weights;  // as used, summing to 1
    train::InductionEdits edits;
  };
  Redirect redirect(const data::InductionSequence* s) const {
    Redirect r;
    if (!s || s->tokens.size() < 2) return r;
    const int row = int(s->tokens.size()) - 2;
    std::vector<float> w(size_t(row) + 1, 0.0f);
    double total = 0.0;
    if (has_row_)
      for (int j = 0; j <= row && j < int(row_.cols()); ++j) {
        w[size_t(j)] = row_.rows() > 0 && std::isfinite(row_(0, j)) ? std::max(0.0f, row_(0, j)) : 0.0f;
        total += w[size_t(j)];
      }
    if (total > 0.0) {
      r.dragged = true;
      for (float& v : w) v = float(v / total);
      r.key = int(std::max_element(w.begin(), w.end()) - w.begin());
    } else if (redirect_ >= 0) {
      r.key = std::min(redirect_, row);
      w[size_t(r.key)] = 1.0f;
    } else {
      return r;
    }
    r.row = row;
    if (scores_.induction.size()) scores_.induction.maxCoeff(&r.layer, &r.head);
    else r.layer = model().desc().layers - 1;
    r.weights = w;
    r.edits = ablating() ? edits_ : train::InductionEdits();
    r.edits.override_row(r.layer, r.head, r.row, w);
    return r;
  }
  const train::InductionModel& model() const { return *static_cast<const train::TrainRun&>(*tracks()[0].run).induction(); }
  const std::vector<data::InductionSequence>& test() const { return tracks()[0].run->induction_data().test; }
  std::vector<data::InductionSequence> slice(int begin, int end) const {
    const auto& t = test();
    begin = std::clamp(begin, 0, int(t.size()));
    end = std::clamp(end, begin, int(t.size()));
    return std::vector<data::InductionSequence>(t.begin() + begin, t.begin() + end);
  }
  const data::InductionSequence* sequence() const {
    if (!prepared() || test().empty()) return nullptr;
    return &test()[size_t(example()) % test().size()];
  }

  LocalText predictions_text(const data::InductionSequence* s) const {
    LocalText t;
    if (!s) {
      add_line(t, "The predictions appear once the model is built.", "模型建好后显示预测。");
      return t;
    }
    auto letters = [](const std::vector<int>& ids, size_t from, size_t to) {
      std::string out;
      for (size_t i = from; i < to && i < ids.size(); ++i) out += std::string(out.empty() ? "" : " ") + char('A' + ids[i]);
      return out;
    };
    const int L = s->half_length(), n = int(s->tokens.size());
    add_line(t, "Tokens: " + letters(s->tokens, 0, size_t(L)) + " | " + letters(s->tokens, size_t(L), size_t(n)),
             "词元：" + letters(s->tokens, 0, size_t(L)) + " | " + letters(s->tokens, size_t(L), size_t(n)));
    auto line = [&](const train::InductionEdits* e, const std::string& en, const std::string& zh) {
      const std::vector<int> p = model().predictions(s->tokens, e);
      int right = 0;
      for (int i = L; i + 1 < n; ++i) right += p[size_t(i)] == s->tokens[size_t(i) + 1];
      const std::string next = letters(p, size_t(L), size_t(n - 1));
      const std::string score = std::to_string(right) + " / " + std::to_string(n - 1 - L);
      add_line(t, en + ": after each repeated token " + next + " (" + score + " right)",
               zh + "：每个重复词元之后 " + next + "（对 " + score + "）");
    };
    line(nullptr, "Predicted", "预测");
    if (const Redirect r = redirect(s); r.row >= 0) {
      const std::vector<int> before = model().predictions(s->tokens, ablating() ? &edits_ : nullptr);
      const std::vector<int> after = model().predictions(s->tokens, &r.edits);
      const std::string head = std::to_string(r.layer + 1) + "." + std::to_string(r.head);
      const std::string pos = std::to_string(r.key), row = std::to_string(r.row);
      const std::string follows = std::string(1, char('A' + s->tokens[size_t(r.key)]));
      const std::string was = std::string(1, char('A' + before[size_t(r.row)]));
      const std::string now = std::string(1, char('A' + after[size_t(r.row)]));
      const std::string change = " Prediction after position " + row + ": " + was + " -> " + now;
      const std::string change_zh = "位置 " + row + " 之后的预测：" + was + " -> " + now;
      if (r.dragged) {
        std::string spread;  // "0.50 on C0, 0.50 on F1"
        for (size_t j = 0; j < r.weights.size(); ++j)
          if (r.weights[j] > 0.0f)
            spread += std::string(spread.empty() ? "" : ", ") + fmt(r.weights[j]) + " on " +
                      char('A' + s->tokens[j]) + std::to_string(j);
        std::string spread_zh = spread;  // "0.50 在 C0，0.50 在 F1"
        for (size_t at; (at = spread_zh.find(" on ")) != std::string::npos;) spread_zh.replace(at, 4, " 在 ");
        for (size_t at; (at = spread_zh.find(", ")) != std::string::npos;) spread_zh.replace(at, 2, "，");
        add_line(t, "Head " + head + ", query " + row + ", your weights: " + spread + "." + change,
                 "头 " + head + "，查询 " + row + "，你的权重：" + spread_zh + "。" + change_zh);
      } else {
        add_line(t, "Head " + head + ", query " + row + ": all weight on position " + pos + " (letter " + follows + ")." + change,
                 "头 " + head + "，查询 " + row + "：全部权重放在位置 " + pos + "（字母 " + follows + "）。" + change_zh);
      }
    }
    if (ablating()) {
      const std::string what = head_edit_words().get("en"), what_zh = head_edit_words().get("zh");
      line(&edits_, "With head " + ablate_ + what, what_zh + " 后");
      const Ablation& a = head_edit_effect();
      add_line(t, "Repeated-half loss over the held-out set: " + fmt(a.kept.loss, 3) + ", with head " + ablate_ +
                      what + " " + fmt(a.edited.loss, 3),
               "留出集上重复半段的损失：" + fmt(a.kept.loss, 3) + "，" + what_zh + " 后 " + fmt(a.edited.loss, 3));
    }
    return t;
  }

  // The prompt's predictions, one line per position: the token, the most likely
  // next token and its probability (and the same with the switched-off head off).
  LocalText prompt_text() const {
    LocalText t;
    if (prompt_.empty()) {
      add_line(t, "Type letters above to see what the model predicts after each of them; the heatmaps then show your prompt.",
               "在上面输入字母，看模型在每个字母之后预测什么；热力图随后显示你的提示。");
      return t;
    }
    if (!prepared()) {
      add_line(t, "The predictions appear once the model is built.", "模型建好后显示预测。");
      return t;
    }
    auto line_for = [&](const train::InductionEdits* e, const std::string& en, const std::string& zh) {
      const Mat z = model().logits(prompt_, e);
      std::string row;
      for (Eigen::Index i = 0; i < z.rows(); ++i) {
        const Eigen::Index j = demo_impl::row_argmax(z, i);
        const float p = 1.0f / (z.row(i).array() - z(i, j)).exp().sum();
        row += std::string(row.empty() ? "" : ", ") + char('A' + prompt_[size_t(i)]) + " → " + char('A' + int(j)) + " " + fmt(p);
      }
      add_line(t, en + ": " + row, zh + "：" + row);
    };
    line_for(nullptr, "After each token, the most likely next one and its probability",
             "每个词元之后最可能的下一个词元及其概率");
    if (ablating())
      line_for(&edits_, "With head " + ablate_ + head_edit_words().get("en"), head_edit_words().get("zh") + " 后");
    return t;
  }


 public:
  // The trained model for weights_export.h: its weights, and the shown sequence (a
  // typed prompt, else the held-out one) with the unedited model's predictions.
  bool trained(TrainedModel* out) const {
    const data::InductionSequence* seq = sequence();
    if (!prepared() || (prompt_.empty() && !seq)) return false;
    const train::InductionModel& m = model();
    const train::InductionModelDesc& d = m.desc();
    out->model = "induction";
    out->config.set("vocab", d.vocab);
    out->config.set("max_length", d.max_length);
    out->config.set("d_model", d.d_model);
    out->config.set("layers", d.layers);
    out->config.set("heads", d.heads);
    out->config.set("head_size", d.head_size);
    out->config.set("steps", double(tracks()[0].steps));
    // params() lists the tensors in place; nothing here changes them.
    for (const train::Param* p : const_cast<train::InductionModel&>(m).params()) out->params.push_back({p->name, p->value});
    const std::vector<int>& tokens = prompt_.empty() ? seq->tokens : prompt_;
    Value ids = Value::array(), predicted = Value::array();
    std::string letters;
    for (int t : tokens) {
      ids.push(t);
      letters += char('A' + t);
    }
    for (int t : m.predictions(tokens)) predicted.push(t);
    out->shown.set("letters", letters);
    out->shown.set("tokens", std::move(ids));
    out->shown.set("predictions", std::move(predicted));
    out->shown.set("logits", to_json(m.logits(tokens)));
    return true;
  }

 private:
  std::vector<int> prompt_;  // the typed prompt's token ids (empty: none)
  std::string ablate_ = "none";
  int ablate_l_ = -1, ablate_h_ = -1;
  float scale_ = 0.0f;  // the chosen head's output scale
  int redirect_ = -1;
  bool has_row_ = false;  // the step gives `row`: the dragged attention row
  Mat row_;
  train::InductionEdits edits_;
  train::EvalResult first_partial_;
  train::HeadScores score_sum_, scores_;
  mutable Ablation ablation_;  // head_edit_effect()'s measurement, and what it was measured for
  mutable std::tuple<long, int, int, float> ablation_key_;
  mutable bool ablation_valid_ = false;
  int scored_ = 0;
  long phase_at_ = -1;
  std::vector<float> first_curve_, repeated_curve_, curve_x_;
};

}  // namespace

bool induction_model(const Experiment& e, TrainedModel* out) {
  const auto* x = dynamic_cast<const InductionExperiment*>(&e);
  return x && x->trained(out);
}

std::unique_ptr<Experiment> make_induction_experiment(const DemoInputs& in) {
  return std::make_unique<InductionExperiment>(in);
}

}  // namespace attn::experiment_impl

namespace attn {

bool parse_induction_prompt(const std::string& text, std::vector<int>* tokens, std::string* why) {
  tokens->clear();
  // Length first, so a long paste is refused before anything reads it.
  if (text.size() > kInductionPromptChars) {
    *why = "'prompt' is too long: at most " + std::to_string(kInductionPromptChars) + " characters";
    return false;
  }
  for (const char c : text) {
    if (c == ' ' || c == '|' || c == ',') continue;  // separators are optional
    const char u = c >= 'a' && c <= 'z' ? char(c - 'a' + 'A') : c;
    if (u < 'A' || u >= char('A' + kInductionVocab)) {
      const bool printable = static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f;
      *why = "'prompt' may hold only the letters A to P (and spaces)" +
             (printable ? std::string(": '") + c + "' is not one" : std::string());
      tokens->clear();
      return false;
    }
    tokens->push_back(u - 'A');
  }
  if (int(tokens->size()) > kInductionPromptTokens) {
    *why = "'prompt' has " + std::to_string(tokens->size()) + " tokens: at most " + std::to_string(kInductionPromptTokens);
    tokens->clear();
    return false;
  }
  return true;
}

}  // namespace attn

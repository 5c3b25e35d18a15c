// experiment_translation.cpp: train_translation (curriculum C1, C2): the toy
// translator, with and without attention. One experiment of src/experiments (see
// training.h and kit.h for what they share).
#include <map>

#include "base/tensor_json.h"
#include "experiments/training.h"
#include "experiments/weights_export.h"

namespace attn::experiment_impl {
namespace {

// 我 爱 中国 。 -> I love China . : the decoder state is the query, the encoder
// states are keys and values; the alignment comes from the translation loss alone.
class TranslationExperiment : public TrainingExperiment {
 public:
  explicit TranslationExperiment(const DemoInputs& in) {
    attention_ = text_or(in, "attention", "additive");
    compare_ = text_or(in, "compare", "off") == "on";
    const train::RunDesc base = seeded(in);
    train::RunKind kind = train::RunKind::translation_additive;
    train::parse_run_kind("translation_" + attention_, &kind);
    const std::map<std::string, std::string> zh = {{"additive", "加性注意力"}, {"general", "一般式注意力"}, {"dot", "点积注意力"}};
    add_track(attention_ + " attention", zh.count(attention_) ? zh.at(attention_) : attention_ + " 注意力", kind, base);
    if (compare_) add_track("no attention", "无注意力", train::RunKind::translation_none, base);
    set_budget(setting_or(in, "steps", 300), 20);
    set_view_setting("example", text_or(in, "example", "0"));
    set_view_setting("force_step", text_or(in, "force_step", "-1"));
    set_view_setting("force_source", text_or(in, "force_source", "0"));
  }

  // Forcing an alignment only changes what is decoded: no retraining.
  bool set_view_setting(const std::string& name, const std::string& value) override {
    long long k = 0;
    if (name == "force_step") {
      force_.step = parse_whole_text(value, -1, 9, &k) ? int(k) : -1;
      return true;
    }
    if (name == "force_source") {
      force_.source = parse_whole_text(value, 0, 9, &k) ? int(k) : 0;
      return true;
    }
    return TrainingExperiment::set_view_setting(name, value);
  }

 protected:
  LocalText accuracy_name() const override { return tr("token accuracy", "词准确率"); }

  // The decoded words as text.
  std::string words(const std::vector<int>& ids) const {
    const data::Vocab& tv = tracks()[0].run->translation_data().target_vocab;
    std::string s;
    for (int id : ids) s += (s.empty() ? "" : " ") + tv.words[size_t(id)];
    return s;
  }
  // The forced decode of the shown sentence, when the force applies to it.
  bool forcing(const data::TranslationPair& p) const {
    return force_.step >= 0 && force_.source < int(p.source.size());
  }

  void add_controls(DemoOutputs& out) const override {
    out.panels.push_back(demo_impl::choice_panel("attention", tr("Score of the attention model", "注意力模型的打分函数"),
                                                 {"additive", "general", "dot"},
                                                 {tr("additive (Bahdanau)", "加性（Bahdanau）"), tr("general (Luong)", "一般式（Luong）"),
                                                  tr("dot (Luong)", "点积（Luong）")}));
    out.panels.push_back(demo_impl::choice_panel("compare", tr("Side by side with a model without attention", "与不带注意力的模型并排比较"),
                                                 {"off", "on"}, {tr("off", "关"), tr("on", "开")}));
  }

  // The sentence shown: 0 = the showcase pair, k = the k-th held-out sentence.
  const data::TranslationPair* pair() const {
    if (!prepared()) return nullptr;
    const train::TrainRun& run = *tracks()[0].run;
    const data::TranslationCorpus& c = run.translation_data();
    if (example() > 0 && size_t(example()) <= c.heldout.size()) return &c.heldout[size_t(example() - 1)];
    for (const auto& p : c.train)
      if (data::join_words(p.source) == "我 爱 中国 。") return &p;
    return c.train.empty() ? nullptr : &c.train[0];
  }

  void add_panels(DemoOutputs& out) const override {
    const data::TranslationPair* p = pair();
    Mat alignment = Mat::Zero(1, 1);
    std::vector<std::string> rows = {"…"}, cols = {"…"};
    LocalText decoded;
    if (p) {
      const train::Seq2SeqModel& model = *static_cast<const train::TrainRun&>(*tracks()[0].run).translation();
      alignment = model.alignment(p->source_ids, p->target_ids);  // (m + 1, S)
      cols = p->source;
      rows = p->target;
      rows.push_back("<eos>");
      const train::Seq2SeqDecode d = model.greedy_decode(p->source_ids, int(p->target.size()) + 4);
      const data::Vocab& tv = tracks()[0].run->translation_data().target_vocab;
      std::string chain = "<bos>";
      for (int id : d.tokens) chain += " → " + tv.words[size_t(id)];
      add_line(decoded, "Greedy decoding from the begin token: " + chain,
               "从开始符号出发的贪心解码：" + chain);
      add_line(decoded, "Reference: " + data::join_words(p->target), "参考译文：" + data::join_words(p->target));
      for (size_t t = 0; t < d.tokens.size() && Eigen::Index(t) < d.alignment.rows(); ++t) {
        const Eigen::Index j = demo_impl::row_argmax(d.alignment, Eigen::Index(t));
        const std::string word = tv.words[size_t(d.tokens[t])];
        add_line(decoded, "step " + std::to_string(t + 1) + ": query = decoder state after reading \"" +
                              (t == 0 ? std::string("<bos>") : tv.words[size_t(d.tokens[t - 1])]) + "\" → \"" + word +
                              "\", most weight on " + p->source[size_t(j)] + " (" + fmt(d.alignment(Eigen::Index(t), j)) + ")",
                 "第 " + std::to_string(t + 1) + " 步：查询 = 读入 “" +
                     (t == 0 ? std::string("<bos>") : tv.words[size_t(d.tokens[t - 1])]) + "” 后的解码器状态 → “" + word +
                     "”，权重最大的是 " + p->source[size_t(j)] + "（" + fmt(d.alignment(Eigen::Index(t), j)) + "）");
      }
      // The intervention: one output word made to read one source word only.
      if (force_.step >= 0) {
        if (!forcing(*p)) {
          add_line(decoded, "Forcing: this sentence has no source word " + std::to_string(force_.source) + " (it has " +
                                std::to_string(p->source.size()) + ", counted from 0).",
                   "强制对齐：这个句子没有第 " + std::to_string(force_.source) + " 个源词（它有 " +
                       std::to_string(p->source.size()) + " 个，从 0 开始数）。");
        } else {
          const train::Seq2SeqDecode f = model.greedy_decode(p->source_ids, int(p->target.size()) + 4, &force_);
          const std::string src = p->source[size_t(force_.source)];
          const std::string was = force_.step < int(d.tokens.size()) ? tv.words[size_t(d.tokens[size_t(force_.step)])] : "-";
          const std::string now = force_.step < int(f.tokens.size()) ? tv.words[size_t(f.tokens[size_t(force_.step)])] : "-";
          add_line(decoded, "Forced: output word " + std::to_string(force_.step + 1) + " reads only " + src + " (all its weight there): \"" +
                                was + "\" becomes \"" + now + "\". Decoded: <bos> → " + words(f.tokens),
                   "强制对齐：第 " + std::to_string(force_.step + 1) + " 个输出词只读 " + src + "（全部权重放在那里）：“" + was +
                       "” 变成 “" + now + "”。解码结果：<bos> → " + words(f.tokens));
        }
      }
    } else {
      add_line(decoded, "The decoded sentence appears here once the model is built.", "模型建好后，这里显示解码结果。");
    }
    out.mats["alignment"] = alignment;
    out.panels.push_back(demo_impl::heatmap_panel("alignment", "alignment",
                                                  tr("Alignment α: one row per English word (teacher forcing)",
                                                     "对齐 α：每个英文词一行（教师强制）"),
                                                  rows, cols, true));
    out.panels.push_back(demo_impl::arrows_panel("arrows", "alignment", tr("The same weights as arrows", "同样的权重，画成箭头"),
                                                 rows, cols));
    out.panels.push_back(demo_impl::note_panel("decode", tr("Decoding, one query per output word", "解码：每个输出词一个查询"), decoded));
    out.panels.push_back(demo_impl::slider_panel("example", tr("Sentence: 0 = 我爱中国。, 1-9 = held-out sentences",
                                                              "句子：0 = 我爱中国。，1-9 = 留出集中的句子"),
                                                 0.0f, 9.0f, 1.0f));
    out.panels.push_back(demo_impl::slider_panel("force_step", tr("Force the alignment of output word k + 1 (-1: off)",
                                                                 "强制第 k + 1 个输出词的对齐（-1：不改）"),
                                                 -1.0f, 9.0f, 1.0f));
    out.panels.push_back(demo_impl::slider_panel("force_source", tr("... onto source word j (counted from 0)",
                                                                   "……对到第 j 个源词上（从 0 开始数）"),
                                                 0.0f, 9.0f, 1.0f));
  }

  void add_status(Value& s) const override {
    const data::TranslationPair* p = pair();
    if (!p) return;
    const train::Seq2SeqModel& model = *static_cast<const train::TrainRun&>(*tracks()[0].run).translation();
    const Mat a = model.alignment(p->source_ids, p->target_ids);
    Value o = Value::object();
    o.set("source", data::join_words(p->source));
    o.set("target", data::join_words(p->target));
    // Weight on the last source word (the full stop) while producing word 2 ("love").
    if (a.rows() > 1 && a.cols() > 0) o.set("stopWeightForWord2", a(1, a.cols() - 1));
    const int max_length = int(p->target.size()) + 4;
    o.set("decoded", words(model.greedy_decode(p->source_ids, max_length).tokens));
    if (forcing(*p)) o.set("forcedDecoded", words(model.greedy_decode(p->source_ids, max_length, &force_).tokens));
    s.set("example", std::move(o));
  }

 public:
  // The trained model for weights_export.h (the first track: the attention model)
  // and the shown sentence with its greedy decoding and alignment, unforced.
  bool trained(TrainedModel* out) const {
    const data::TranslationPair* p = pair();
    if (!p) return false;
    const train::Seq2SeqModel& model = *static_cast<const train::TrainRun&>(*tracks()[0].run).translation();
    const train::Seq2SeqDesc& d = model.desc();
    if (d.cell != CellKind::gru || d.context == train::ContextKind::none) return false;
    out->model = "translation";
    out->config.set("context", train::context_kind_name(d.context));
    out->config.set("cell", "gru");
    out->config.set("embed", d.embed);
    out->config.set("hidden", d.hidden);
    out->config.set("attention_size", d.attention_size);
    out->config.set("source_vocab", d.source_vocab);
    out->config.set("target_vocab", d.target_vocab);
    out->config.set("steps", double(tracks()[0].steps));
    // params() lists the tensors in place; nothing here changes them.
    for (const train::Param* q : const_cast<train::Seq2SeqModel&>(model).params()) out->params.push_back({q->name, q->value});
    const train::Seq2SeqDecode dec = model.greedy_decode(p->source_ids, int(p->target.size()) + 4);
    auto ints = [](const std::vector<int>& v) {
      Value a = Value::array();
      for (int x : v) a.push(x);
      return a;
    };
    auto texts = [](const std::vector<std::string>& v) {
      Value a = Value::array();
      for (const auto& x : v) a.push(x);
      return a;
    };
    const data::Vocab& tv = tracks()[0].run->translation_data().target_vocab;
    std::vector<std::string> decoded;
    for (int id : dec.tokens) decoded.push_back(tv.words[size_t(id)]);
    out->shown.set("source", texts(p->source));
    out->shown.set("source_ids", ints(p->source_ids));
    out->shown.set("target", texts(p->target));
    out->shown.set("target_ids", ints(p->target_ids));
    out->shown.set("decoded", texts(decoded));
    out->shown.set("decoded_ids", ints(dec.tokens));
    out->shown.set("alignment", to_json(dec.alignment));
    out->shown.set("target_words", texts(tv.words));
    return true;
  }

 private:
  train::Seq2SeqForce force_;
  std::string attention_;
  bool compare_ = false;
};

}  // namespace

bool translation_model(const Experiment& e, TrainedModel* out) {
  const auto* x = dynamic_cast<const TranslationExperiment*>(&e);
  return x && x->trained(out);
}

std::unique_ptr<Experiment> make_translation_experiment(const DemoInputs& in) {
  return std::make_unique<TranslationExperiment>(in);
}

}  // namespace attn::experiment_impl

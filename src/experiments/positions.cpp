// positions.cpp: train_positions (curriculum I3, I4): two language models that
// differ only in how they know where a token is (learned, sinusoidal, rope,
// alibi, none) or in the window of keys each query sees, trained side by side
// on the same text and batches, then read past the length they were trained
// on: the held-out loss at every position out to four times the context.
// A learned table has no row past the context: its curve stops there, and
// nothing is drawn where it has no value. One experiment of src/experiments
// (see training.h and kit.h for what they share).
#include <algorithm>
#include <cmath>

#include "experiments/text_training.h"
#include "train/char_lm.h"
#include "train/char_lm_reach.h"
#include "train/decoder_positions.h"

namespace attn::experiment_impl {
namespace {

constexpr int kReachFactor = 4;     // positions read: this many times the training context
// Held-out windows start every context characters, so every character is read
// once in each quarter of a window: the mean over positions 1-32 and over
// 97-128 are over the same characters (char_lm_reach.h). The English text's
// 5,111 held-out characters give 156 windows; at most this many are read.
constexpr int kReachWindows = 400;

struct PositionModel {
  train::DecoderOptions options;
  std::string name, name_zh;
};

// "rope", "rope, window 8", "rope, window 8 + 2 sinks" and the same in Chinese.
PositionModel model_of(const std::string& position, int window, int sinks) {
  PositionModel m;
  train::parse_position_kind(position, &m.options.position);  // checked by the registry
  m.options.window = std::max(0, window);
  m.options.sinks = m.options.window > 0 ? std::clamp(sinks, 0, m.options.window) : 0;
  m.name = position;
  m.name_zh = position;
  if (m.options.window > 0) {
    m.name += ", window " + std::to_string(m.options.window);
    m.name_zh += "，窗口 " + std::to_string(m.options.window);
    if (m.options.sinks > 0) {
      m.name += " + " + std::to_string(m.options.sinks) + (m.options.sinks == 1 ? " sink" : " sinks");
      m.name_zh += " + " + std::to_string(m.options.sinks) + " 个汇点";
    }
  }
  return m;
}

class PositionsExperiment : public TextTrainingExperiment {
 public:
  explicit PositionsExperiment(const DemoInputs& in) {
    chinese_ = text_or(in, "corpus", "english") == "chinese";
    const train::RunKind kind = chinese_ ? train::RunKind::lm_chinese : train::RunKind::lm_english;
    PositionModel a = model_of(text_or(in, "position", "learned"), setting_or(in, "window", 0), setting_or(in, "sinks", 0));
    PositionModel b = model_of(text_or(in, "position_b", "rope"), setting_or(in, "window_b", 0), setting_or(in, "sinks_b", 0));
    // Two models with the same options still train as two tracks (same bits):
    // their names must differ for the checks that name them.
    if (a.name == b.name) {
      a.name = "A: " + a.name, a.name_zh = "A：" + a.name_zh;
      b.name = "B: " + b.name, b.name_zh = "B：" + b.name_zh;
    }
    for (const PositionModel& m : {a, b}) {
      train::RunDesc d = seeded(in);
      d.decoder = m.options;
      add_track(m.name, m.name_zh, kind, d);
    }
    set_budget(setting_or(in, "steps", 1000), 100);
  }

 protected:
  void on_evaluated() override {
    reach_.clear();
    for (const Track& t : tracks()) {
      const train::CharLm& m = *static_cast<const train::TrainRun&>(*t.run).char_lm();
      reach_.push_back(train::loss_per_position(m, t.run->char_corpus().heldout, length(), kReachWindows, context()));
    }
    reach_at_ = steps();
  }

  // Per track: its reach, windows and the losses of positions 0 .. reach-1
  // (past reach there is no value, so none is sent).
  void write_extra(ByteWriter& w) const override {
    w.i64(reach_at_);
    w.i64(long(reach_.size()));
    for (const train::PositionLosses& r : reach_) {
      w.i64(r.reach);
      w.i64(r.windows);
      std::vector<float> v;
      for (int i = 0; i < r.reach; ++i) v.push_back(float(r.loss[size_t(i)]));
      w.floats(v);
    }
  }
  std::function<void()> read_extra(ByteReader& r) override {
    int64_t at = -1, n = 0;
    if (!r.i64(&at) || at < -1 || at > step_budget() || !r.i64(&n) || (n != 0 && n != long(tracks().size()))) return nullptr;
    std::vector<train::PositionLosses> got;
    for (int64_t k = 0; k < n; ++k) {
      int64_t reach = 0, windows = 0;
      std::vector<float> v;
      if (!r.i64(&reach) || reach < 0 || reach > length() || !r.i64(&windows) || windows < 0 || windows > kReachWindows ||
          !r.floats(&v, size_t(length())) || v.size() != size_t(reach) ||
          !std::all_of(v.begin(), v.end(), [](float f) { return std::isfinite(f) && f >= 0.0f; }))
        return nullptr;
      train::PositionLosses p;
      p.context = context();
      p.length = length();
      p.reach = int(reach);
      p.windows = int(windows);
      p.loss.assign(size_t(length()), std::nan(""));
      p.count.assign(size_t(length()), 0);
      for (size_t i = 0; i < v.size(); ++i) {
        p.loss[i] = double(v[i]);
        p.count[i] = int(windows);
      }
      got.push_back(std::move(p));
    }
    return [this, at, got = std::move(got)]() mutable {
      reach_at_ = long(at);
      reach_ = std::move(got);
    };
  }

  // Each choice starts both models again (a fresh experiment).
  void add_controls(DemoOutputs& out) const override {
    add_corpus_choice(out);
    const std::vector<std::string> kinds = {"learned", "sinusoidal", "rope", "alibi", "none"};
    const std::vector<std::string> windows = {"0", "4", "8", "16", "32"}, sinks = {"0", "1", "2", "4"};
    out.panels.push_back(demo_impl::choice_panel("position", tr("Model A's positions", "模型 A 的位置方式"), kinds));
    out.panels.push_back(demo_impl::choice_panel("window", tr("Model A's window (0: every earlier key)", "模型 A 的窗口（0：所有更早的键）"), windows));
    if (tracks()[0].desc.decoder.window > 0)
      out.panels.push_back(demo_impl::choice_panel("sinks", tr("Model A's sinks: first positions every query sees", "模型 A 的汇点：每个查询都看得见的开头几个位置"), sinks));
    out.panels.push_back(demo_impl::choice_panel("position_b", tr("Model B's positions", "模型 B 的位置方式"), kinds));
    out.panels.push_back(demo_impl::choice_panel("window_b", tr("Model B's window (0: every earlier key)", "模型 B 的窗口（0：所有更早的键）"), windows));
    if (tracks()[1].desc.decoder.window > 0)
      out.panels.push_back(demo_impl::choice_panel("sinks_b", tr("Model B's sinks: first positions every query sees", "模型 B 的汇点：每个查询都看得见的开头几个位置"), sinks));
  }

  void add_panels(DemoOutputs& out) const override {
    if (failed()) return add_text_error(out);
    const int n = length(), c = context();
    // One curve per model: the mean held-out loss at positions 1 .. 4 x context
    // (NaN where a model has no value: the plot leaves it out).
    Mat xs(1, n), ys = Mat::Constant(Eigen::Index(tracks().size()), n, std::nanf(""));
    for (int i = 0; i < n; ++i) xs(0, i) = float(i + 1);
    std::vector<std::string> series;
    LocalText note;
    for (size_t k = 0; k < tracks().size(); ++k) {
      series.push_back(tracks()[k].name);
      if (k >= reach_.size()) continue;
      const train::PositionLosses& r = reach_[k];
      for (int i = 0; i < r.reach && i < n; ++i) ys(Eigen::Index(k), i) = float(r.loss[size_t(i)]);
      // The means the lesson quotes: inside the training length, and the last
      // quarter of the read (positions 3c+1 .. 4c); NaN where a model has no value.
      const double inside = r.mean(0, c), far = r.mean(n - c, n);
      const std::string range = std::to_string(n - c + 1) + "–" + std::to_string(n);
      if (std::isnan(far))
        add_line(note, tracks()[k].name + ": " + fmt(float(inside)) + " nats per character at positions 1–" + std::to_string(c) +
                           "; past " + std::to_string(r.reach) + " no value: it has no position row there",
                 tracks()[k].shown.get("zh") + "：位置 1–" + std::to_string(c) + " 每个字符 " + fmt(float(inside)) + " 奈特；" +
                     std::to_string(r.reach) + " 之后没有值：那里没有位置行");
      else
        add_line(note, tracks()[k].name + ": " + fmt(float(inside)) + " nats per character at positions 1–" + std::to_string(c) +
                           ", " + fmt(float(far)) + " at " + range,
                 tracks()[k].shown.get("zh") + "：位置 1–" + std::to_string(c) + " 每个字符 " + fmt(float(inside)) + " 奈特，位置 " + range +
                     " 为 " + fmt(float(far)));
    }
    if (reach_.empty())
      add_line(note, "The curves appear at the first evaluation (step 100).", "第一次评估（第 100 步）时会画出曲线。");
    else
      add_line(note,
               "Measured at step " + std::to_string(reach_at_) + " on " + std::to_string(reach_[0].windows) + " held-out windows of " +
                   std::to_string(n) + " characters, one starting every " + std::to_string(c) +
                   ", so both ranges cover the same characters; the models were trained on windows of " + std::to_string(c) + ".",
               "在第 " + std::to_string(reach_at_) + " 步测得，用 " + std::to_string(reach_[0].windows) + " 段长 " +
                   std::to_string(n) + " 个字符的留出文本，每隔 " + std::to_string(c) + " 个字符开始一段，所以两个范围读的是同样的字符；" +
                   "模型训练时的窗口是 " + std::to_string(c) + " 个字符。");
    out.mats["reach_x"] = xs;
    out.mats["reach"] = ys;
    Panel p = demo_impl::lines_panel("reach", "reach", "reach_x",
                                     tr("Held-out loss at each position, read to " + std::to_string(kReachFactor) + "× the training length",
                                        "每个位置上的留出集损失，一直读到训练长度的 " + std::to_string(kReachFactor) + " 倍"),
                                     series, tr("x: position in the text read; y: nats per character; the line: the training length",
                                                "横轴：读到的位置；纵轴：每个字符的奈特数；竖线：训练长度"));
    for (const Track& t : tracks()) p.label_text[t.name] = t.shown;
    p.x_mark = float(c);
    p.linear_x = true;
    out.panels.push_back(std::move(p));
    out.panels.push_back(demo_impl::note_panel("reach-note", tr("Inside and past the training length", "训练长度之内与之外"), note));
  }

  void add_status(Value& s) const override {
    if (failed()) {
      s.set("error", tracks()[0].run->error());
      return;
    }
    s.set("context", context());
    s.set("reachAt", reach_at_);
    Value models = Value::array();
    for (size_t k = 0; k < tracks().size(); ++k) {
      const Track& t = tracks()[k];
      Value m = Value::object();
      m.set("name", t.name);
      m.set("position", train::position_kind_name(t.desc.decoder.position));
      m.set("window", t.desc.decoder.window);
      m.set("sinks", t.desc.decoder.sinks);
      if (k < reach_.size()) {
        const train::PositionLosses& r = reach_[k];
        m.set("reach", r.reach);
        m.set("windows", r.windows);
        m.set("inside", r.mean(0, context()));
        const double far = r.mean(length() - context(), length());
        if (!std::isnan(far)) m.set("far", far);
        Value curve = Value::array();
        for (int i = 0; i < r.reach; ++i) curve.push(r.loss[size_t(i)]);
        m.set("curve", std::move(curve));
      }
      models.push(std::move(m));
    }
    s.set("models", std::move(models));
  }

 private:
  int context() const { return train::CharLmDesc().context; }
  int length() const { return kReachFactor * context(); }

  bool chinese_ = false;
  std::vector<train::PositionLosses> reach_;
  long reach_at_ = -1;
};

}  // namespace

std::unique_ptr<Experiment> make_positions_experiment(const DemoInputs& in) {
  return std::make_unique<PositionsExperiment>(in);
}

}  // namespace attn::experiment_impl

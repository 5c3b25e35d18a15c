// experiment_timing.cpp: timing (curriculum D5): RNN steps against attention,
// timed in the learner's own browser. One experiment of src/experiments (see
// training.h and kit.h for what they share).
#include "attn/timing.h"
#include "experiments/training.h"

namespace attn::experiment_impl {
namespace {

// RNN steps against attention (SIMD and one-lane kernels), timed here, one
// sequence length per unit of work.
class TimingExperiment : public Experiment {
 public:
  explicit TimingExperiment(const DemoInputs& in) {
    desc_.d = setting_or(in, "d", 32);
    desc_.lengths = {8, 16, 32, 64, 128, 256, 512};
    desc_.repeats = 3;
    // A browser's clock ticks every 0.1 to 1 ms: each sample runs for 10 ms.
    desc_.min_sample_ms = 10.0;
  }
  void prepare() override {}
  int advance(double budget_ms) override {
    int done_now = 0;
    run_units(budget_ms, [&] {
      if (done()) return false;
      step_once();
      ++done_now;
      return true;
    });
    return done_now;
  }
  void step_once() override {
    if (done()) return;
    const double t0 = clock_ms();
    points_.push_back(time_rnn_vs_attention_at(desc_, desc_.lengths[points_.size()]));
    work_ms_ += clock_ms() - t0;
  }
  bool done() const override { return points_.size() >= desc_.lengths.size(); }
  long progress() const override { return long(points_.size()); }
  long planned() const override { return long(desc_.lengths.size()); }
  double work_ms() const override { return work_ms_; }
  bool set_view_setting(const std::string&, const std::string&) override { return false; }

  DemoOutputs view() const override {
    DemoOutputs out;
    out.growing = true;
    out.panels.push_back(demo_impl::choice_panel("d", tr("Width d", "宽度 d"), {"16", "32", "64"}));
    std::vector<float> xs, rnn, simd, scalar;
    for (const TimingPoint& p : points_) {
      xs.push_back(float(p.n));
      rnn.push_back(float(p.rnn_ms));
      simd.push_back(float(p.attention_ms));
      scalar.push_back(float(p.attention_scalar_ms));
    }
    const std::vector<std::string> series = {"RNN (sequential)", "attention, SIMD", "attention, one lane"};
    out.mats["lengths"] = row_matrix(xs);
    out.mats["times"] = series_matrix({rnn, simd, scalar});
    LocalText t;
    if (points_.empty()) {
      add_line(t, "Press Start to measure, in this browser, how long each takes as the sequence grows.",
               "按“开始”，在这个浏览器里实测序列变长时各自要多久。");
    } else {
      const TimingPoint& p = points_.back();
      add_line(t, "n = " + std::to_string(p.n) + ", d = " + std::to_string(desc_.d) + ": RNN " + ms(p.rnn_ms) + ", attention " +
                      ms(p.attention_ms) + " with SIMD, " + ms(p.attention_scalar_ms) + " on one lane (medians of " +
                      std::to_string(desc_.repeats) + " samples, each repeated for 10 ms or more).",
               "n = " + std::to_string(p.n) + "，d = " + std::to_string(desc_.d) + "：RNN " + ms(p.rnn_ms) + "，注意力用 SIMD " +
                   ms(p.attention_ms) + "，单通道 " + ms(p.attention_scalar_ms) + "（" + std::to_string(desc_.repeats) + " 次取样的中位数，每次至少 10 毫秒）。");
      if (p.attention_ms > 0.0)
        add_line(t, "SIMD speed-up for attention: " + fmt(float(p.attention_scalar_ms / p.attention_ms), 1) + "x.",
                 "注意力的 SIMD 加速：" + fmt(float(p.attention_scalar_ms / p.attention_ms), 1) + " 倍。");
    }
    out.panels.push_back(demo_impl::lines_panel("times", "times", "lengths", tr("Milliseconds against sequence length n", "毫秒数与序列长度 n"),
                                                series, tr("x: n (log scale); y: milliseconds, measured here", "横轴：n（对数刻度）；纵轴：毫秒，在这里实测")));
    out.panels.push_back(demo_impl::note_panel("measured", tr("Measured", "实测"), t));
    return out;
  }

  Value status() const override {
    Value s = Value::object();
    s.set("steps", long(points_.size()));
    s.set("budget", long(desc_.lengths.size()));
    s.set("done", done());
    s.set("workMs", work_ms_);
    Value pts = Value::array();
    for (const TimingPoint& p : points_) {
      Value o = Value::object();
      o.set("n", p.n);
      o.set("rnnMs", p.rnn_ms);
      o.set("attentionMs", p.attention_ms);
      o.set("attentionScalarMs", p.attention_scalar_ms);
      pts.push(std::move(o));
    }
    s.set("points", std::move(pts));
    return s;
  }

  // The points measured so far, each length checked against the plan.
  void write_state(ByteWriter& w) const override {
    w.f64(work_ms_);
    w.u32(uint32_t(points_.size()));
    for (const TimingPoint& p : points_) {
      w.i64(p.n);
      w.f64(p.rnn_ms);
      w.f64(p.attention_ms);
      w.f64(p.attention_scalar_ms);
    }
  }
  bool read_state(ByteReader& r) override {
    double work = 0.0;
    uint32_t n = 0;
    if (!r.f64(&work) || !r.u32(&n) || n > desc_.lengths.size()) return false;
    std::vector<TimingPoint> points(n);
    for (uint32_t i = 0; i < n; ++i) {
      int64_t len = 0;
      TimingPoint& p = points[i];
      if (!r.i64(&len) || len != desc_.lengths[i] || !r.f64(&p.rnn_ms) || !r.f64(&p.attention_ms) ||
          !r.f64(&p.attention_scalar_ms))
        return false;
      p.n = int(len);
    }
    if (!r.at_end()) return false;
    work_ms_ = work;
    points_ = std::move(points);
    return true;
  }

 private:
  TimingDesc desc_;
  std::vector<TimingPoint> points_;
  double work_ms_ = 0.0;
};

}  // namespace

std::unique_ptr<Experiment> make_timing_experiment(const DemoInputs& in) {
  return std::make_unique<TimingExperiment>(in);
}

}  // namespace attn::experiment_impl

// experiment_long_range.cpp: train_long_range (curriculum E1, E4): an RNN, an
// LSTM and self-attention on "the token k steps earlier". One experiment of
// src/experiments (see training.h and kit.h for what they share).
#include <map>

#include "experiments/training.h"

namespace attn::experiment_impl {
namespace {

// "Output the token seen k steps earlier" for an RNN, an LSTM and self-attention,
// with k set by the learner; each finished run adds its accuracy to a table of
// accuracy against distance that survives changing k.
class LongRangeExperiment : public TrainingExperiment {
 public:
  explicit LongRangeExperiment(const DemoInputs& in) {
    base_.seed = uint64_t(setting_or(in, "seed", 1));
    base_.distance = setting_or(in, "distance", 16);
    base_.batch_size = 16;  // half the default: one LSTM step at k = 64 must fit in a frame
    add_track("RNN", "RNN", train::RunKind::long_range_rnn, base_);
    add_track("LSTM", "LSTM", train::RunKind::long_range_lstm, base_);
    add_track("attention", "注意力", train::RunKind::long_range_attention, base_);
    set_budget(setting_or(in, "steps", 300), 25);
  }

  bool set_view_setting(const std::string& name, const std::string& value) override {
    if (name != "distance") return TrainingExperiment::set_view_setting(name, value);
    long long k = 0;
    if (!parse_whole_text(value, 1, 64, &k)) return false;
    base_.distance = int(k);
    restart(base_);  // the table of finished runs stays
    return true;
  }

 protected:
  void on_evaluated() override {
    if (!done()) return;
    std::vector<float>& row = results_[base_.distance];
    row.clear();
    for (const Track& t : tracks()) row.push_back(t.last.accuracy * 100.0f);
  }

  void add_controls(DemoOutputs& out) const override {
    out.panels.push_back(demo_impl::choice_panel("distance", tr("Distance k: the answer is k tokens before the last one",
                                                                "距离 k：答案在最后一个词元之前 k 个位置"),
                                                 {"4", "16", "32", "64"}));
  }

  void add_panels(DemoOutputs& out) const override {
    const std::vector<int> ks = {4, 16, 32, 64};
    Mat table = Mat::Zero(Eigen::Index(tracks().size()), Eigen::Index(ks.size()));  // (models, distances)
    std::vector<std::string> names, kcols;
    for (const Track& t : tracks()) names.push_back(t.name);
    for (size_t c = 0; c < ks.size(); ++c) {
      kcols.push_back("k=" + std::to_string(ks[c]));
      auto it = results_.find(ks[c]);
      if (it == results_.end()) continue;
      for (size_t r = 0; r < it->second.size(); ++r) table(Eigen::Index(r), Eigen::Index(c)) = it->second[r];
    }
    out.mats["by_distance"] = table;
    out.panels.push_back(demo_impl::bars_panel("by-distance", "by_distance",
                                               tr("Held-out accuracy (%) after the full budget, by distance (runs you finished)",
                                                  "跑完全部步数后的留出集准确率（%），按距离（你跑完的那些）"),
                                               names, kcols));
    Mat per_step(1, Eigen::Index(tracks().size()));
    for (size_t i = 0; i < tracks().size(); ++i) per_step(0, Eigen::Index(i)) = float(tracks()[i].ms_per_step());
    out.mats["ms_per_step"] = per_step;
    out.panels.push_back(demo_impl::bars_panel("time", "ms_per_step",
                                               tr("Milliseconds per training step, measured here", "每个训练步的毫秒数（在这里实测）"),
                                               {""}, names));
    LocalText t;
    add_line(t, "Chance is 1 in 8 (12.5%): the alphabet has 8 symbols.", "随机猜的准确率是 1/8（12.5%）：字母表有 8 个符号。");
    add_line(t, "Sequence length k + 1 = " + std::to_string(base_.distance + 1) + "; the RNN and the LSTM pass the answer through " +
                    std::to_string(base_.distance) + " state updates, attention reads it in one step.",
             "序列长度 k + 1 = " + std::to_string(base_.distance + 1) + "；RNN 和 LSTM 要把答案经过 " + std::to_string(base_.distance) +
                 " 次状态更新传下去，注意力一步就能读到。");
    out.panels.push_back(demo_impl::note_panel("task", tr("The task", "任务"), t));
  }

  // The table of finished runs, by distance.
  void write_extra(ByteWriter& w) const override {
    w.u32(uint32_t(results_.size()));
    for (const auto& [k, row] : results_) {
      w.i64(k);
      w.floats(row);
    }
  }
  std::function<void()> read_extra(ByteReader& r) override {
    uint32_t n = 0;
    if (!r.u32(&n) || n > 64) return nullptr;
    std::map<int, std::vector<float>> results;
    for (uint32_t i = 0; i < n; ++i) {
      int64_t k = 0;
      std::vector<float> row;
      if (!r.i64(&k) || k < 1 || k > 1024 || !r.floats(&row, 16) || row.size() != tracks().size()) return nullptr;
      results[int(k)] = std::move(row);
    }
    return [this, results = std::move(results)]() mutable { results_ = std::move(results); };
  }

  void add_status(Value& s) const override {
    s.set("distance", base_.distance);
    Value r = Value::object();
    for (const auto& [k, row] : results_) {
      Value a = Value::array();
      for (float v : row) a.push(v);
      r.set(std::to_string(k), std::move(a));
    }
    s.set("byDistance", std::move(r));
  }

 private:
  train::RunDesc base_;
  std::map<int, std::vector<float>> results_;  // k -> held-out accuracy (%) per track
};

}  // namespace

std::unique_ptr<Experiment> make_long_range_experiment(const DemoInputs& in) {
  return std::make_unique<LongRangeExperiment>(in);
}

}  // namespace attn::experiment_impl

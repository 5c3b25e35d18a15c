// kv_cache.cpp: train_kv_cache (curriculum I1, I2, I4): a language model
// generating with a key/value cache. Every layer keeps the keys and values of
// the characters it has read, so a new character is one row through the model;
// without the cache every new character re-reads the whole text. The page
// shows the cache filling, layer by layer (a rolling buffer with a window), its
// size in numbers and bytes for each model (grouped-query heads shrink it), the
// multiply-adds per new character both ways, and characters per second both
// ways, timed in the training worker on the same prompt, with a check that the
// two texts are the same. One experiment of src/experiments (training.h, kit.h).
#include <algorithm>
#include <cmath>

#include "experiments/text_training.h"
#include "train/char_lm.h"
#include "train/char_lm_cache.h"
#include "train/decoder_positions.h"

namespace attn::experiment_impl {
namespace {

constexpr int kPromptChars = 16;       // the prompt: the start of the held-out text
constexpr int kShortChars = 32;        // generated characters timed: the context ...
constexpr int kLongChars = 128;        // ... and four times it
constexpr int kShownKeys = 32;         // the cache picture's last positions
constexpr double kTimedMs = 60.0;      // each way is repeated until it has taken this long
constexpr uint64_t kCacheSampleSeed = 7;    // the draws: the same seed both ways

// Generation timed both ways over `count` characters: characters per second,
// and whether the two ways drew the same ids.
struct TimedGeneration {
  int chars = 0;
  double with_ms = 0.0, without_ms = 0.0;  // per generation
  bool same = false;
  double with_rate() const { return with_ms > 0.0 ? chars * 1000.0 / with_ms : 0.0; }
  double without_rate() const { return without_ms > 0.0 ? chars * 1000.0 / without_ms : 0.0; }
};

class KvCacheExperiment : public TextTrainingExperiment {
 public:
  explicit KvCacheExperiment(const DemoInputs& in) {
    chinese_ = text_or(in, "corpus", "english") == "chinese";
    const train::RunKind kind = chinese_ ? train::RunKind::lm_chinese : train::RunKind::lm_english;
    train::DecoderOptions o;
    train::parse_position_kind(text_or(in, "position", "rope"), &o.position);  // checked by the registry
    o.window = std::max(0, setting_or(in, "window", 0));
    o.sinks = o.window > 0 ? std::clamp(setting_or(in, "sinks", 0), 0, o.window) : 0;
    std::vector<int> kv = {setting_or(in, "kv_heads", 4)};
    compare_ = text_or(in, "compare", "off") == "on";
    if (compare_) kv.push_back(setting_or(in, "kv_heads_b", 1));
    if (kv.size() == 2 && kv[0] == kv[1]) kv.pop_back();  // the same model twice says nothing
    for (int k : kv) {
      train::RunDesc d = seeded(in);
      d.decoder = o;
      d.decoder.kv_heads = k;
      const std::string n = std::to_string(k);
      add_track(n + (k == 1 ? " key/value head" : " key/value heads"), n + " 个键/值头", kind, d);
    }
    set_budget(setting_or(in, "steps", 400), 100);
    set_view_setting("shown", text_or(in, "shown", std::to_string(kLongChars)));
    set_view_setting("timing", text_or(in, "timing", "on"));
  }

  bool set_view_setting(const std::string& name, const std::string& value) override {
    if (name == "timing") {  // whether the timing note is shown (a step that asks about it first hides it)
      timing_ = value != "off";
      return true;
    }
    if (name != "shown") return TextTrainingExperiment::set_view_setting(name, value);
    shown_ = std::clamp(std::atoi(value.c_str()), 0, kLongChars);  // checked by the registry
    return true;
  }

 protected:
  // The timings are taken once, on the trained weights: when the last
  // evaluation is in (the page's copy never trains; it reads them).
  void on_evaluated() override {
    if (steps() < step_budget()) return;
    timed_.clear();
    for (int chars : {kShortChars, kLongChars}) timed_.push_back(time_generation(chars));
  }

  void write_extra(ByteWriter& w) const override {
    w.i64(long(timed_.size()));
    for (const TimedGeneration& t : timed_) {
      w.i64(t.chars);
      w.f64(t.with_ms);
      w.f64(t.without_ms);
      w.i64(t.same ? 1 : 0);
    }
  }
  std::function<void()> read_extra(ByteReader& r) override {
    int64_t n = 0;
    if (!r.i64(&n) || (n != 0 && n != 2)) return nullptr;
    std::vector<TimedGeneration> got;
    for (int64_t k = 0; k < n; ++k) {
      int64_t chars = 0, same = 0;
      TimedGeneration t;
      if (!r.i64(&chars) || chars != (k == 0 ? kShortChars : kLongChars) || !r.f64(&t.with_ms) || !r.f64(&t.without_ms) ||
          !r.i64(&same) || (same != 0 && same != 1) || !std::isfinite(t.with_ms) || !std::isfinite(t.without_ms) ||
          t.with_ms < 0.0 || t.without_ms < 0.0)
        return nullptr;
      t.chars = int(chars);
      t.same = same == 1;
      got.push_back(t);
    }
    return [this, got = std::move(got)]() mutable { timed_ = std::move(got); };
  }

  // Each choice but the slider starts the models again (a fresh experiment).
  void add_controls(DemoOutputs& out) const override {
    add_corpus_choice(out);
    const std::vector<std::string> kv = {"1", "2", "4"};
    out.panels.push_back(demo_impl::choice_panel("position", tr("Positions", "位置方式"), {"learned", "sinusoidal", "rope", "alibi", "none"}));
    out.panels.push_back(demo_impl::choice_panel("window", tr("Window (0: every earlier key)", "窗口（0：所有更早的键）"), {"0", "4", "8", "16", "32"}));
    if (options().window > 0)
      out.panels.push_back(demo_impl::choice_panel("sinks", tr("Sinks: first positions every query sees", "汇点：每个查询都看得见的开头几个位置"), {"0", "1", "2", "4"}));
    out.panels.push_back(demo_impl::choice_panel("kv_heads", tr("Key/value heads (4 query heads)", "键/值头数（4 个查询头）"), kv));
    out.panels.push_back(demo_impl::choice_panel("compare", tr("Train a second model beside it", "在旁边再训练一个模型"), {"off", "on"}));
    if (tracks().size() > 1 || compare_)
      out.panels.push_back(demo_impl::choice_panel("kv_heads_b", tr("The second model's key/value heads", "第二个模型的键/值头数"), kv));
  }

  void add_panels(DemoOutputs& out) const override {
    if (failed()) return add_text_error(out);
    const Generated& g = generated();
    const int upto = kPromptChars + shown_;  // characters read so far
    // The cache picture: for each layer, which of the last kShownKeys positions
    // the cache holds after `upto` characters (1 held, 0 dropped by the window).
    const int first = std::max(0, upto - kShownKeys);
    const train::CacheSize size = cache_size(0, upto);
    Mat held = Mat::Zero(Eigen::Index(size.layers), std::max(1, upto - first));
    std::vector<std::string> rows, cols;
    for (int l = 0; l < size.layers; ++l) rows.push_back("layer " + std::to_string(l + 1));
    for (int p = first; p < upto; ++p) {
      cols.push_back(p < int(g.chars.size()) ? shown_char(g.chars[size_t(p)]) : std::to_string(p + 1));
      const bool kept = held_at(p, upto);
      for (int l = 0; l < size.layers; ++l) held(l, p - first) = kept ? 1.0f : 0.0f;
    }
    out.mats["cache"] = held;
    Panel h = demo_impl::heatmap_panel(
        "cache", "cache",
        tr("The cache after the prompt and " + std::to_string(shown_) + " new characters: positions " + std::to_string(first + 1) +
               "–" + std::to_string(upto) + " (1: its key and value are held)",
           "读完提示和 " + std::to_string(shown_) + " 个新字符后的缓存：位置 " + std::to_string(first + 1) + "–" +
               std::to_string(upto) + "（1：它的键和值在缓存里）"),
        rows, cols, true);
    for (int l = 0; l < size.layers; ++l) h.label_text[rows[size_t(l)]] = tr(rows[size_t(l)], "第 " + std::to_string(l + 1) + " 层");
    out.panels.push_back(std::move(h));
    out.panels.push_back(demo_impl::slider_panel("shown", tr("Characters generated so far", "已经生成的字符数"), 0.0f,
                                                 float(kLongChars), 1.0f));
    out.panels.push_back(demo_impl::note_panel("cache-size", tr("What the cache holds", "缓存里有多少"), size_note(upto)));
    add_work(out);
    if (timing_)
      out.panels.push_back(demo_impl::note_panel("speed", tr("Generation timed both ways", "两种生成方式的计时"), speed_note()));
    out.panels.push_back(demo_impl::note_panel("heldout", tr("Held-out loss", "留出集损失"), heldout_note()));
  }

  void add_status(Value& s) const override {
    if (failed()) {
      s.set("error", tracks()[0].run->error());
      return;
    }
    const int upto = kPromptChars + shown_;
    Value models = Value::array();
    for (size_t k = 0; k < tracks().size(); ++k) {
      const train::CacheSize c = cache_size(k, upto);
      Value m = Value::object();
      m.set("name", tracks()[k].name);
      m.set("kvHeads", tracks()[k].desc.decoder.kv_heads);
      m.set("entries", c.entries);
      m.set("capacity", c.capacity);
      m.set("numbersPerEntry", c.numbers_per_entry);
      m.set("numbers", double(c.numbers));
      m.set("bytes", double(c.bytes));
      models.push(std::move(m));
    }
    s.set("models", std::move(models));
    s.set("shown", shown_);
    s.set("text", generated().text);
    Value timed = Value::array();
    for (const TimedGeneration& t : timed_) {
      Value v = Value::object();
      v.set("chars", t.chars);
      v.set("withMs", t.with_ms);
      v.set("withoutMs", t.without_ms);
      v.set("withCharsPerSecond", t.with_rate());
      v.set("withoutCharsPerSecond", t.without_rate());
      v.set("same", t.same);
      timed.push(std::move(v));
    }
    s.set("timed", std::move(timed));
  }

 private:
  const train::CharLm& model(size_t k) const { return *static_cast<const train::TrainRun&>(*tracks()[k].run).char_lm(); }
  const data::CharCorpus& corpus() const { return tracks()[0].run->char_corpus(); }
  const train::DecoderOptions& options() const { return tracks()[0].desc.decoder; }
  // The model's sizes, known before it is built (a preview draws the panels of
  // a model not yet built): the lesson's CharLmDesc with this track's options.
  static const train::CharLmDesc& sizes() {
    static const train::CharLmDesc d;
    return d;
  }
  int kv_heads(size_t k) const { return train::kv_heads_of(tracks()[k].desc.decoder, sizes().heads); }
  static int d_head() { return sizes().d_model / sizes().heads; }

  std::vector<int> prompt() const {
    const std::vector<int>& h = corpus().heldout;
    return std::vector<int>(h.begin(), h.begin() + std::min<long>(long(h.size()), kPromptChars));
  }
  train::SampleDesc how() const {
    train::SampleDesc d;
    d.temperature = 0.8f;
    d.banned = corpus().vocab.unknown;
    return d;
  }

  // Whether position p is still held after `upto` characters: a key the next
  // query may still see (the model's own mask rule, key_visible: every earlier
  // one, or with a window the first `sinks` and the last `window`); a learned
  // model re-reads its last `context` characters.
  bool held_at(int p, int upto) const {
    const train::DecoderOptions& o = options();
    if (o.position == train::PositionKind::learned) return upto - p <= sizes().context;
    return train::key_visible(upto - 1, p, o.window, o.sinks);
  }
  // The cache of track k after `upto` characters (CharLmCache::size's sums,
  // without running it).
  train::CacheSize cache_size(size_t k, int upto) const {
    train::CacheSize c;
    c.layers = sizes().layers;
    int entries = 0;
    for (int p = 0; p < upto; ++p) entries += held_at(p, upto) ? 1 : 0;
    c.entries = entries;
    const train::DecoderOptions& o = options();
    c.capacity = o.position == train::PositionKind::learned ? sizes().context : o.window > 0 ? o.window + o.sinks : 0;
    c.numbers_per_entry = 2 * kv_heads(k) * d_head();
    c.numbers = (long long)c.layers * c.entries * c.numbers_per_entry;
    c.bytes = c.numbers * 4;
    return c;
  }

  LocalText size_note(int upto) const {
    LocalText t;
    for (size_t k = 0; k < tracks().size(); ++k) {
      const train::CacheSize c = cache_size(k, upto);
      const std::string kv = std::to_string(kv_heads(k)), dh = std::to_string(d_head());
      add_line(t,
               tracks()[k].name + ": " + std::to_string(c.layers) + " layers × " + std::to_string(c.entries) + " positions × (2 × " + kv +
                   " heads × " + dh + ") = " + std::to_string(c.numbers) + " numbers, " + std::to_string(c.bytes) + " bytes in float32",
               tracks()[k].shown.get("zh") + "：" + std::to_string(c.layers) + " 层 × " + std::to_string(c.entries) + " 个位置 × (2 × " + kv +
                   " 个头 × " + dh + ") = " + std::to_string(c.numbers) + " 个数，float32 下 " + std::to_string(c.bytes) + " 字节");
    }
    const train::CacheSize c = cache_size(0, upto);
    if (c.capacity > 0)
      add_line(t, "It never holds more than " + std::to_string(c.capacity) + " positions per layer.",
               "每层最多只存 " + std::to_string(c.capacity) + " 个位置。");
    else
      add_line(t, "It grows by one position per layer with every character read.", "每读一个字符，每层就多存一个位置。");
    return t;
  }

  // Multiply-adds for each new character, with the cache (CharLmCache's count)
  // and without it (the whole text re-read: CharLm::multiply_adds of its rows
  // and visible pairs), for the first model.
  void add_work(DemoOutputs& out) const {
    const Generated& g = generated();
    const int n = int(g.with_macs.size());
    Mat xs(1, n), ys(2, n);
    for (int i = 0; i < n; ++i) {
      xs(0, i) = float(i + 1);
      ys(0, i) = float(g.with_macs[size_t(i)]);
      ys(1, i) = float(g.without_macs[size_t(i)]);
    }
    out.mats["work_x"] = xs;
    out.mats["work"] = ys;
    Panel p = demo_impl::lines_panel("work", "work", "work_x",
                                     tr("Multiply-adds for each new character", "每个新字符的乘加次数"),
                                     {"with the cache", "re-reading the text"},
                                     tr("x: characters generated; y: multiply-adds for the next one",
                                        "横轴：已生成的字符数；纵轴：生成下一个字符的乘加次数"));
    p.label_text["with the cache"] = tr("with the cache", "用缓存");
    p.label_text["re-reading the text"] = tr("re-reading the text", "每次重读全文");
    p.x_mark = float(sizes().context - kPromptChars);
    p.linear_x = true;
    out.panels.push_back(std::move(p));
  }

  // Each model's loss on the held-out text at its last evaluation: what
  // sharing key/value heads costs.
  LocalText heldout_note() const {
    LocalText t;
    for (const Track& k : tracks()) {
      if (k.evaluated_at < 0) continue;
      add_line(t, k.name + ": " + fmt(k.last.loss, 3) + " nats per character at step " + std::to_string(k.evaluated_at),
               k.shown.get("zh") + "：第 " + std::to_string(k.evaluated_at) + " 步时每字符 " + fmt(k.last.loss, 3) + " 奈特");
    }
    if (t.by_lang.empty()) add_line(t, "After the first evaluation (step 100).", "第一次评估（第 100 步）之后显示。");
    return t;
  }

  LocalText speed_note() const {
    LocalText t;
    if (timed_.empty()) {
      add_line(t, "TimedGeneration in the training worker when training ends.", "训练结束时在训练线程里计时。");
      return t;
    }
    for (const TimedGeneration& x : timed_) {
      const std::string with = fmt(float(x.with_rate()), 0), without = fmt(float(x.without_rate()), 0);
      const std::string times = fmt(float(x.without_ms > 0.0 && x.with_ms > 0.0 ? x.without_ms / x.with_ms : 0.0), 1);
      add_line(t,
               std::to_string(x.chars) + " characters after a " + std::to_string(kPromptChars) + "-character prompt: " + with +
                   " characters/s with the cache, " + without + " re-reading the text (" + times + "×); the same text: " +
                   (x.same ? "yes" : "NO"),
               "在 " + std::to_string(kPromptChars) + " 个字符的提示后生成 " + std::to_string(x.chars) + " 个字符：用缓存每秒 " + with +
                   " 个字符，每次重读全文每秒 " + without + " 个（" + times + " 倍）；文本相同：" + (x.same ? "是" : "否"));
    }
    add_line(t, "Measured in this browser, on the trained model, one worker; another run gives other times.",
             "在这个浏览器里、用训练好的模型、一个线程测得；再测一次时间会不同。");
    return t;
  }

  // The text drawn with the cache from the trained weights, its characters, and
  // the work per character both ways: cheap (one row per character), computed
  // once per set of weights.
  struct Generated {
    long at = -2;
    std::vector<std::string> chars;  // the prompt and the new characters
    std::string text;                // the new characters
    std::vector<long long> with_macs, without_macs;
  };
  const Generated& generated() const {
    const long at = tracks()[0].steps;
    if (gen_.at == at) return gen_;
    gen_ = Generated();
    gen_.at = at;
    if (!prepared() || failed()) return gen_;
    const train::CharLm& m = model(0);
    const std::vector<int> p = prompt();
    Rng rng(kCacheSampleSeed);
    const std::vector<int> ids = train::sample_text_cached(m, p, kLongChars, how(), rng);
    std::vector<int> all = p;
    all.insert(all.end(), ids.begin(), ids.end());
    const data::Vocab& v = corpus().vocab;
    for (size_t i = 0; i < all.size(); ++i) {
      const int id = all[i];
      const std::string c = id >= 0 && id < v.size() ? v.words[size_t(id)] : "?";
      gen_.chars.push_back(c);
      if (i >= p.size()) gen_.text += c;
    }
    // The work of each new character: the cache's counter before and after the
    // character it reads; the re-read's: every visible (query, key) pair of the
    // text so far (a learned model's last `context` characters).
    train::CharLmCache cache(m);
    cache.push_all(p);
    const train::DecoderOptions& o = options();
    // pairs_upto[r]: the visible (query, key) pairs of a pass over r rows, one
    // query's keys added per row.
    std::vector<long long> pairs_upto(1, 0);
    for (int i = 0; i < kLongChars; ++i) {
      const long long before = cache.multiply_adds();
      cache.push(all[p.size() + size_t(i)]);
      gen_.with_macs.push_back(cache.multiply_adds() - before);
      const int len = int(p.size()) + i + 1;
      const int rows = o.position == train::PositionKind::learned ? std::min(len, m.desc().context) : len;
      while (int(pairs_upto.size()) <= rows) {
        const int q = int(pairs_upto.size()) - 1;
        long long seen = 0;
        for (int k = 0; k <= q; ++k) seen += train::key_visible(q, k, o.window, o.sinks) ? 1 : 0;
        pairs_upto.push_back(pairs_upto.back() + seen);
      }
      gen_.without_macs.push_back(m.multiply_adds(rows, pairs_upto[size_t(rows)] * m.desc().layers * m.desc().heads));
    }
    return gen_;
  }

  TimedGeneration time_generation(int chars) const {
    TimedGeneration t;
    t.chars = chars;
    const train::CharLm& m = model(0);
    const std::vector<int> p = prompt();
    std::vector<int> a, b;
    auto timed = [&](auto&& gen, std::vector<int>* ids) {
      int reps = 0;
      const double start = clock_ms();
      do {
        Rng rng(kCacheSampleSeed);
        *ids = gen(rng);
        ++reps;
      } while (clock_ms() - start < kTimedMs);
      return (clock_ms() - start) / reps;
    };
    t.with_ms = timed([&](Rng& rng) { return train::sample_text_cached(m, p, chars, how(), rng); }, &a);
    t.without_ms = timed([&](Rng& rng) { return train::sample_text(m, p, chars, how(), rng); }, &b);
    t.same = a == b;
    return t;
  }

  bool chinese_ = false;
  bool compare_ = false;
  bool timing_ = true;
  int shown_ = kLongChars;
  std::vector<TimedGeneration> timed_;
  mutable Generated gen_;
};

}  // namespace

std::unique_ptr<Experiment> make_kv_cache_experiment(const DemoInputs& in) {
  return std::make_unique<KvCacheExperiment>(in);
}

}  // namespace attn::experiment_impl

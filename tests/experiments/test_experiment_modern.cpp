// test_experiment_modern.cpp: train_positions and train_kv_cache (curriculum
// I1-I4): their settings checked, their views, their state as bytes, the cache
// text the same both ways, the cache shrinking with fewer key/value heads, and
// the numbers the lessons quote (kv_cache.lesson, long_context.lesson).
#include <doctest/doctest.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "experiments/experiment_test_util.h"
#include "experiments/experiments.h"

namespace modern_test {

using attn::DemoInputs;
using attn::json::Value;

const attn::json::Value& models(const attn::json::Value& status) {
  const attn::json::Value* m = status.find("models");
  REQUIRE(m != nullptr);
  return *m;
}

// The demo table's verdict on a lesson step's settings, as a lesson would give them.
std::vector<std::string> problems(const std::string& demo, const DemoInputs& in) {
  attn::LessonParams params;
  for (const auto& [name, value] : in.settings) {
    attn::LessonValue v;
    v.text = value;
    v.kind = std::isdigit(static_cast<unsigned char>(value[0])) ? attn::LessonValue::Kind::number : attn::LessonValue::Kind::text;
    v.number = float(std::atof(value.c_str()));
    params[name] = v;
  }
  std::vector<std::string> r;
  for (const auto& p : attn::live_demos().check_params(demo, params)) r.push_back(p.message);
  return r;
}

}  // namespace modern_test


TEST_CASE("train_positions and train_kv_cache: sinks count only with a window and never exceed it, and unknown kinds are refused") {
  CHECK(modern_test::problems("train_positions", attn::test::settings({{"position", "rope"}, {"window", "8"}, {"sinks", "2"}})).empty());
  CHECK_FALSE(modern_test::problems("train_positions", attn::test::settings({{"position", "spiral"}})).empty());
  CHECK_FALSE(modern_test::problems("train_kv_cache", attn::test::settings({{"kv_heads", "3"}})).empty());
  CHECK_FALSE(modern_test::problems("train_kv_cache", attn::test::settings({{"window", "7"}})).empty());
  // A step's sinks left over when the learner turns the window off: the model
  // has none (its name says so); more sinks than the window: as many as it.
  auto ex = attn::make_experiment("train_positions", attn::test::settings({{"window_b", "0"}, {"sinks_b", "4"}, {"window", "4"}, {"sinks", "4"}}));
  const attn::json::Value st = ex->status();
  CHECK(modern_test::models(st).items()[0].find("sinks")->as_number() == 4);
  CHECK(modern_test::models(st).items()[1].find("sinks")->as_number() == 0);
  CHECK(modern_test::models(st).items()[1].find("name")->as_string() == "rope");
}

TEST_CASE("train_positions: a learned table stops at the training length, rope reads to four times it, and the state travels as bytes") {
  auto ex = attn::make_experiment("train_positions", attn::test::settings({{"steps", "100"}, {"position", "learned"}, {"position_b", "rope"}}));
  REQUIRE(ex);
  CHECK(attn::test::number(ex->status(), "context") == 32);
  attn::test::run_to_end(*ex);
  const attn::json::Value st = ex->status();
  REQUIRE(modern_test::models(st).size() == 2);
  const attn::json::Value& learned = modern_test::models(st).items()[0];
  const attn::json::Value& rope = modern_test::models(st).items()[1];
  CHECK(attn::test::number(learned, "reach") == 32);
  CHECK(learned.find("far") == nullptr);  // no invented value past the table
  CHECK(attn::test::number(rope, "reach") == 128);
  CHECK(std::isfinite(attn::test::number(rope, "far")));
  CHECK(learned.find("curve")->size() == 32);
  CHECK(rope.find("curve")->size() == 128);

  const attn::DemoOutputs out = ex->view();
  CHECK(attn::test::has_panel(out, "reach"));
  CHECK(attn::test::has_panel(out, "reach-note"));
  const attn::Mat& ys = out.mats.at("reach");
  CHECK(ys.rows() == 2);
  CHECK(ys.cols() == 128);
  CHECK(std::isfinite(ys(0, 31)));
  CHECK(std::isnan(ys(0, 32)));  // nothing drawn past the learned table
  CHECK(std::isfinite(ys(1, 127)));
  for (const attn::Panel& p : out.panels)
    if (p.id == "reach") CHECK(p.x_mark == 32.0f);

  // The page's copy reads the worker's bytes and shows the same curves;
  // truncated or foreign bytes change nothing.
  attn::ByteWriter w;
  ex->write_state(w);
  auto page = attn::make_experiment("train_positions", attn::test::settings({{"steps", "100"}, {"position", "learned"}, {"position_b", "rope"}}));
  const std::string bytes = w.take();
  attn::ByteReader cut(std::string_view(bytes).substr(0, bytes.size() - 9));
  CHECK_FALSE(page->read_state(cut));
  CHECK(attn::test::number(page->status(), "steps") == 0);
  attn::ByteReader r(bytes);
  REQUIRE(page->read_state(r));
  const attn::DemoOutputs shown = page->view();
  CHECK(shown.mats.at("reach")(1, 127) == ys(1, 127));
  CHECK(std::isnan(shown.mats.at("reach")(0, 40)));
  auto other = attn::make_experiment("train_kv_cache", attn::test::settings({{"steps", "100"}}));
  attn::ByteReader r2(bytes);
  CHECK_FALSE(other->read_state(r2));
}

TEST_CASE("train_kv_cache: the same text both ways, linear against quadratic work, and one key/value head shrinks the cache by four") {
  auto ex = attn::make_experiment("train_kv_cache", attn::test::settings({{"steps", "10"}, {"compare", "on"}, {"kv_heads", "4"}, {"kv_heads_b", "1"}}));
  REQUIRE(ex);
  attn::test::run_to_end(*ex);
  const attn::json::Value st = ex->status();
  REQUIRE(modern_test::models(st).size() == 2);
  const attn::json::Value& four = modern_test::models(st).items()[0];
  const attn::json::Value& one = modern_test::models(st).items()[1];
  CHECK(attn::test::number(four, "kvHeads") == 4);
  CHECK(attn::test::number(one, "kvHeads") == 1);
  CHECK(attn::test::number(four, "entries") == 16 + 128);  // rope: every position kept
  CHECK(attn::test::number(four, "numbers") == 2 * 144 * (2 * 4 * 16));
  CHECK(attn::test::number(four, "bytes") == 4 * attn::test::number(four, "numbers"));
  CHECK(attn::test::number(four, "bytes") == 4 * attn::test::number(one, "bytes"));

  const attn::json::Value* timed = st.find("timed");
  REQUIRE(timed != nullptr);
  REQUIRE(timed->size() == 2);
  for (const attn::json::Value& t : timed->items()) {
    CHECK(t.find("same")->as_bool());
    CHECK(attn::test::number(t, "withCharsPerSecond") > 0);
    CHECK(attn::test::number(t, "withoutCharsPerSecond") > 0);
    MESSAGE(attn::test::number(t, "chars") << " characters: " << attn::test::number(t, "withCharsPerSecond") << " chars/s with the cache, "
                            << attn::test::number(t, "withoutCharsPerSecond") << " without");
  }

  // The work per new character: with the cache it grows by the same step each
  // time (one more key); re-reading grows faster with every character.
  const attn::DemoOutputs out = ex->view();
  const attn::Mat& work = out.mats.at("work");
  REQUIRE(work.cols() == 128);
  const double with_step = double(work(0, 101) - work(0, 100)), with_step2 = double(work(0, 11) - work(0, 10));
  CHECK(with_step == doctest::Approx(with_step2));
  const double without_step = double(work(1, 101) - work(1, 100)), without_step2 = double(work(1, 11) - work(1, 10));
  CHECK(without_step > without_step2);  // every step adds more than the last
  CHECK(without_step - without_step2 > 0.0);
  CHECK(work(1, 127) > 20.0f * work(0, 127));

  // The cache picture: 2 layers, every shown position held; a slider moves it.
  CHECK(out.mats.at("cache").rows() == 2);
  CHECK(out.mats.at("cache").minCoeff() == 1.0f);
  REQUIRE(ex->set_view_setting("shown", "0"));
  CHECK(attn::test::number(modern_test::models(ex->status()).items()[0], "entries") == 16);
}

TEST_CASE("train_kv_cache: with a window the cache is a rolling buffer of the sinks and the last positions") {
  auto ex = attn::make_experiment("train_kv_cache", attn::test::settings({{"steps", "10"}, {"window", "8"}, {"sinks", "2"}}));
  attn::test::run_to_end(*ex);
  const attn::json::Value st = ex->status();
  const attn::json::Value& m = modern_test::models(st).items()[0];
  CHECK(attn::test::number(m, "entries") == 10);
  CHECK(attn::test::number(m, "capacity") == 10);
  const attn::Mat held = ex->view().mats.at("cache");
  CHECK(held.sum() == doctest::Approx(2 * 8));  // the sinks are off the picture's last 32 positions
  CHECK(held(0, held.cols() - 1) == 1.0f);
  CHECK(held(0, held.cols() - 9) == 0.0f);
  CHECK(st.find("timed")->items()[1].find("same")->as_bool());
  // kv_cache.lesson's rolling step: a window of 8 and 4 sinks hold 12 positions
  // per layer (3,072 numbers) at every slider setting, and the cached work per
  // character is flat.
  auto rolling = attn::make_experiment("train_kv_cache", attn::test::settings({{"steps", "10"}, {"window", "8"}, {"sinks", "4"}}));
  attn::test::run_to_end(*rolling);
  for (const char* shown : {"0", "64", "128"}) {
    REQUIRE(rolling->set_view_setting("shown", shown));
    const attn::json::Value rs = rolling->status();
    CHECK(attn::test::number(modern_test::models(rs).items()[0], "entries") == 12);
    CHECK(attn::test::number(modern_test::models(rs).items()[0], "numbers") == 3072);
  }
  const attn::Mat rw = rolling->view().mats.at("work");
  CHECK(rw(0, 10) == rw(0, 127));
  const attn::Mat rh = rolling->view().mats.at("cache");
  CHECK(rh.row(0).sum() == 8.0f);
}

// The lessons' runs over seeds 1 to 3 (English), with the spread the lessons
// quote checked: run with
// test_experiments -tc="measure: the modern lessons*" --no-skip
TEST_CASE("measure: the modern lessons' runs" * doctest::skip()) {
  using P = std::initializer_list<std::pair<const std::string, std::string>>;
  for (const std::string seed : {"1", "2", "3"}) {
    for (P p : {P{{"position", "learned"}, {"position_b", "rope"}}, P{{"position", "alibi"}, {"position_b", "none"}},
                P{{"position", "sinusoidal"}, {"position_b", "rope"}, {"window_b", "8"}},
                P{{"position", "rope"}, {"window", "8"}, {"position_b", "rope"}, {"window_b", "8"}, {"sinks_b", "4"}}}) {
      attn::DemoInputs in = attn::test::settings(p);
      in.settings["seed"] = seed;
      auto ex = attn::make_experiment("train_positions", in);
      attn::test::run_to_end(*ex);
      const attn::json::Value st = ex->status();
      // What the lessons say of seeds 1 to 3: rope and sinusoidal rise by over
      // 1.4 nats past the length, ALiBi by under 0.1, none by over 0.3; a rotary
      // window of 8 stays within 0.05; sinks at untrained distances rise past 2.
      for (const attn::json::Value& m : modern_test::models(st).items()) {
        const std::string name = m.find("name")->as_string();
        const attn::json::Value* f = m.find("far");
        if (!f) continue;
        const double rise = f->as_number() - attn::test::number(m, "inside");
        INFO(name << " seed " << seed);
        if (name == "rope" || name == "sinusoidal") CHECK(rise > 1.4);
        if (name == "alibi") CHECK(rise < 0.1);
        if (name == "none") CHECK(rise > 0.3);
        if (name == "rope, window 8") CHECK(std::abs(rise) < 0.05);
        if (name == "rope, window 8 + 4 sinks") CHECK(f->as_number() > 2.0);
      }
      // The seeds 2 and 3 values the lessons quote, to the digits quoted.
      struct Quoted { const char* seed; const char* name; double inside, far; };
      const double any = std::nan("");
      const Quoted quoted[] = {
          {"2", "rope", any, 3.94}, {"3", "rope", any, 3.98},
          {"2", "sinusoidal", any, 3.51}, {"3", "sinusoidal", any, 3.18},
          {"2", "rope, window 8", 1.49, 1.46}, {"3", "rope, window 8", 1.53, 1.50},
          {"2", "rope, window 8 + 4 sinks", any, 2.57}, {"3", "rope, window 8 + 4 sinks", any, 2.14},
      };
      for (const attn::json::Value& m : modern_test::models(st).items())
        for (const Quoted& q : quoted) {
          if (seed != q.seed || m.find("name")->as_string() != q.name) continue;
          INFO(q.name << " seed " << q.seed);
          if (!std::isnan(q.inside)) CHECK(std::abs(attn::test::number(m, "inside") - q.inside) <= 0.005);
          CHECK(std::abs(attn::test::number(m, "far") - q.far) <= 0.005);
        }
      // long_context's alibi-none: ALiBi rises by 0.03 (seeds 2, 3), none by 0.32 and 0.37.
      for (const attn::json::Value& m : modern_test::models(st).items()) {
        const std::string name = m.find("name")->as_string();
        if (seed == "1" || (name != "alibi" && name != "none")) continue;
        const double rise = attn::test::number(m, "far") - attn::test::number(m, "inside");
        const double want = name == "alibi" ? 0.03 : seed == "2" ? 0.32 : 0.37;
        INFO(name << " seed " << seed << " rise " << rise);
        CHECK(std::abs(rise - want) <= 0.005);
      }
      for (const attn::json::Value& m : modern_test::models(st).items()) {
        const attn::json::Value* far = m.find("far");
        MESSAGE("seed " << seed << " " << m.find("name")->as_string() << ": inside " << attn::test::number(m, "inside") << " far "
                       << (far ? far->as_number() : -1.0) << " reach " << attn::test::number(m, "reach"));
      }
      for (const attn::json::Value& r : st.find("runs")->items())
        MESSAGE("   held-out " << r.find("name")->as_string() << " " << attn::test::number(r, "heldoutLoss") << "; work ms " << ex->work_ms());
    }
    for (const std::string kv : {"2", "1"}) {
      attn::DemoInputs in = attn::test::settings({{"compare", "on"}, {"kv_heads_b", kv}});
      in.settings["seed"] = seed;
      auto ex = attn::make_experiment("train_kv_cache", in);
      attn::test::run_to_end(*ex);
      const attn::json::Value st = ex->status();
      // kv_cache.lesson's mqa-cost: one head costs -0.005, 0.014 and 0.036 over
      // seeds 1 to 3 (under 0.05), while the 4-head model moves by 0.03 between
      // seeds (1.837, 1.830, 1.858).
      const auto& runs = st.find("runs")->items();
      if (kv == "1") {
        const double cost = attn::test::number(runs[1], "heldoutLoss") - attn::test::number(runs[0], "heldoutLoss");
        const double want = seed == "1" ? -0.005 : seed == "2" ? 0.014 : 0.036;
        CHECK(std::abs(cost - want) <= 0.0015);
        CHECK(std::abs(cost) < 0.05);
        const double four = seed == "1" ? 1.837 : seed == "2" ? 1.830 : 1.858;
        CHECK(std::abs(attn::test::number(runs[0], "heldoutLoss") - four) <= 0.0005);
      }
      for (const attn::json::Value& r : st.find("runs")->items())
        MESSAGE("seed " << seed << " kv: held-out " << r.find("name")->as_string() << " " << attn::test::number(r, "heldoutLoss"));
      for (const attn::json::Value& m : modern_test::models(st).items())
        MESSAGE("seed " << seed << " kv: " << m.find("name")->as_string() << " bytes " << attn::test::number(m, "bytes"));
      MESSAGE("seed " << seed << " text: " << st.find("text")->as_string() << "; work ms " << ex->work_ms());
    }
  }
}

// What long_context.lesson and kv_cache.lesson quote (seed 1, the English
// text, the demos' own evaluation: 156 held-out windows of 128 characters,
// one starting every 32).
// A long run: scripts/lab test runs it natively only (its `long_runs`); the
// WebAssembly builds train the same bits (the golden losses hold that).
TEST_CASE("the lessons' numbers: reading past the training length, windows, sinks and shared key/value heads (seed 1)") {
  struct Pair {
    std::initializer_list<std::pair<const std::string, std::string>> settings;
    double a_inside, a_far, b_inside, b_far;  // NaN: no value
  };
  const double none = std::nan("");
  const Pair pairs[] = {
      {{{"position", "learned"}, {"position_b", "rope"}}, 1.65, none, 1.51, 3.40},
      {{{"position", "alibi"}, {"position_b", "none"}}, 1.65, 1.67, 2.06, 2.39},
      {{{"position", "sinusoidal"}, {"position_b", "rope"}, {"window_b", "8"}}, 1.68, 4.17, 1.50, 1.48},
      {{{"position", "rope"}, {"window", "8"}, {"position_b", "rope"}, {"window_b", "8"}, {"sinks_b", "4"}}, 1.50, 1.48, 1.53, 2.43},
  };
  for (const Pair& p : pairs) {
    auto ex = attn::make_experiment("train_positions", attn::test::settings(p.settings));
    attn::test::run_to_end(*ex);
    const attn::json::Value st = ex->status();
    const auto& m = modern_test::models(st).items();
    REQUIRE(m.size() == 2);
    CHECK(m[0].find("curve") != nullptr);
    CHECK(attn::test::number(m[1], "windows") == 156);  // one every 32 of the 5,111 held-out characters
    CHECK(ex->view().mats.at("reach").cols() == 128);
    auto near = [](const attn::json::Value& v, const char* key, double want) {
      const attn::json::Value* x = v.find(key);
      INFO(v.find("name")->as_string() << " " << key);
      if (std::isnan(want)) {
        CHECK(x == nullptr);
      } else {
        REQUIRE(x != nullptr);
        CHECK(std::abs(x->as_number() - want) <= 0.005);  // the two decimals quoted
      }
    };
    near(m[0], "inside", p.a_inside);
    near(m[0], "far", p.a_far);
    near(m[1], "inside", p.b_inside);
    near(m[1], "far", p.b_far);
  }
  // Multi-query against multi-head after 400 steps: no measurable cost here.
  auto kv = attn::make_experiment("train_kv_cache", attn::test::settings({{"compare", "on"}, {"kv_heads_b", "1"}}));
  attn::test::run_to_end(*kv);
  const attn::json::Value st = kv->status();
  const auto& runs = st.find("runs")->items();
  REQUIRE(runs.size() == 2);
  CHECK(attn::test::number(runs[0], "heldoutLoss") == doctest::Approx(1.837).epsilon(0.001));
  CHECK(attn::test::number(runs[1], "heldoutLoss") == doctest::Approx(1.832).epsilon(0.001));
  // kv_cache.lesson's how-big: 32 layers, 8 key/value heads of 128, 8,192
  // tokens, 2 bytes a number: 1 GiB; a key/value head per query head (32): 4 GiB.
  CHECK(2LL * 32 * 8192 * 8 * 128 * 2 == 1LL << 30);
  CHECK(2LL * 32 * 8192 * 32 * 128 * 2 == 4LL << 30);
  // kv_cache.lesson's work-grows: about 107,000 and 140,000 multiply-adds for
  // the 1st and 128th new character with the cache; 1.8 and 17.5 million re-reading.
  const attn::Mat work = kv->view().mats.at("work");
  CHECK(std::abs(work(0, 0) - 107392.0f) < 1.0f);
  CHECK(std::abs(work(0, 127) - 139904.0f) < 1.0f);
  CHECK(std::abs(work(1, 0) / 1e6f - 1.79f) < 0.01f);
  CHECK(std::abs(work(1, 127) / 1e6f - 17.51f) < 0.01f);
  // learned-cache: a learned table saves work only until the context is full
  // (the 16th new character is the text's 32nd); then both ways re-read 32 rows.
  auto learned = attn::make_experiment("train_kv_cache", attn::test::settings({{"position", "learned"}, {"steps", "10"}}));
  attn::test::run_to_end(*learned);
  const attn::Mat lw = learned->view().mats.at("work");
  CHECK(lw(0, 0) < lw(1, 0) / 4.0f);
  CHECK(lw(0, 14) < lw(1, 14));
  for (int k : {16, 17, 60, 127}) CHECK(lw(0, k) == lw(1, k));
  CHECK(lw(1, 127) == lw(1, 16));
}

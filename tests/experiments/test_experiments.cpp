// test_experiments.cpp: the live experiments behind the train_* and timing
// demos: previews, lockstep training independent of how the work is sliced, chunked
// evaluation equal to a whole one, restarts, and the translation model reaching
// its stated accuracy through the same interface the page uses.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "course/exercise.h"
#include "experiments/experiment_test_util.h"
#include "experiments/experiments.h"
#include "train/train_run.h"

namespace {

using attn::test::has_panel;

using attn::DemoInputs;
using attn::Experiment;

using attn::test::number;
using attn::test::settings;

const attn::json::Value& run_status(const attn::json::Value& status, size_t i) {
  const attn::json::Value* runs = status.find("runs");
  REQUIRE(runs != nullptr);
  REQUIRE(runs->size() > i);
  return runs->items()[i];
}

// The redirect sweep of the induction lesson's redirect step: over ten held-out
// sequences, all of the best induction head's last query moved onto every position
// k it can reach in turn; how often the prediction becomes the letter at k. Also
// counted without the position the row already reads most (the quiz asks about
// moving it somewhere else).
struct RedirectSweep {
  int follows = 0, tries = 0, moved_follows = 0, moved_tries = 0;
};
RedirectSweep redirect_sweep(Experiment& ex, const std::string& head) {
  RedirectSweep w;
  const std::string head_key = "head_" + head.substr(0, 1) + "_" + head.substr(2, 1);
  for (int e = 0; e < 10; ++e) {
    REQUIRE(ex.set_view_setting("example", std::to_string(e)));
    REQUIRE(ex.set_view_setting("redirect", "-1"));
    const attn::Mat own = ex.view().mats.at(head_key);  // the row as the model computes it
    for (int k = 0; k < 16; ++k) {
      REQUIRE(ex.set_view_setting("redirect", std::to_string(k)));
      const attn::json::Value x = ex.status();
      if (number(x, "redirectKey") != k) break;  // past the last query
      const bool followed = number(x, "redirectedPrediction") == number(x, "tokenAtKey");
      w.follows += followed;
      ++w.tries;
      Eigen::Index reads = 0;
      own.row(Eigen::Index(number(x, "redirectRow"))).maxCoeff(&reads);
      if (reads == k) continue;
      w.moved_follows += followed;
      ++w.moved_tries;
    }
  }
  REQUIRE(ex.set_view_setting("example", "0"));
  REQUIRE(ex.set_view_setting("redirect", "-1"));
  return w;
}

}  // namespace

TEST_CASE("every experiment demo previews through the registry without training") {
  for (const char* name : {"train_translation", "train_long_range", "train_pooling", "train_sentiment",
                           "train_hard_attention", "train_induction", "train_word_order", "train_lm", "timing"}) {
    CAPTURE(name);
    CHECK(attn::is_experiment_demo(name));
    const attn::DemoOutputs out = attn::live_demos().run(name, DemoInputs{});
    CHECK(out.error.empty());
    CHECK(!out.panels.empty());
    auto ex = attn::make_experiment(name, DemoInputs{});
    REQUIRE(ex);
    CHECK(ex->progress() == 0);
    CHECK(!ex->done());
    if (std::string(name) != "timing") {
      CHECK(has_panel(out, "progress"));
      CHECK(has_panel(out, "loss"));
      CHECK(has_panel(out, "accuracy"));
    }
  }
  CHECK(!attn::is_experiment_demo("qkv_basic"));
  CHECK(attn::make_experiment("qkv_basic", DemoInputs{}) == nullptr);
  // Settings are checked like any demo's.
  CHECK(!attn::live_demos().run("train_long_range", settings({{"distance", "7"}})).error.empty());
  CHECK(!attn::live_demos().run("train_translation", settings({{"steps", "-3"}})).error.empty());
}

TEST_CASE("chunked held-out evaluation equals one whole evaluation") {
  attn::train::RunDesc d;
  d.kind = attn::train::RunKind::translation_additive;
  attn::train::TrainRun run(d);
  for (int i = 0; i < 5; ++i) run.step();
  const attn::train::EvalResult whole = run.evaluate();
  attn::train::EvalResult parts;
  for (int b = 0; b < run.heldout_size(); b += 7) parts = attn::train::combine_eval(parts, run.evaluate_range(b, b + 7));
  CHECK(parts.count == whole.count);
  CHECK(parts.accuracy == doctest::Approx(whole.accuracy).epsilon(1e-5));
  CHECK(parts.loss == doctest::Approx(whole.loss).epsilon(1e-4));
  CHECK(run.evaluate_range(run.heldout_size(), run.heldout_size() + 5).count == 0);
}

TEST_CASE("side-by-side runs move in lockstep, and how the work is sliced does not change the numbers") {
  // One unit of work per call against generous budgets: same steps, same losses.
  auto a = attn::make_experiment("train_translation", settings({{"compare", "on"}, {"steps", "30"}}));
  auto b = attn::make_experiment("train_translation", settings({{"compare", "on"}, {"steps", "30"}}));
  while (!a->done()) a->advance(0.0);
  while (!b->done()) b->advance(50.0);
  const auto sa = a->status(), sb = b->status();
  CHECK(number(sa, "steps") == 30);
  for (size_t i = 0; i < 2; ++i) {
    CHECK(number(run_status(sa, i), "steps") == 30);
    CHECK(number(run_status(sa, i), "loss") == number(run_status(sb, i), "loss"));
    CHECK(number(run_status(sa, i), "accuracy") == number(run_status(sb, i), "accuracy"));
    CHECK(number(run_status(sa, i), "evaluatedAt") == 30);
  }
  // A finished experiment does no more work.
  CHECK(a->advance(10.0) == 0);
  CHECK(a->progress() == 30);
}

TEST_CASE("a unit of work is one model's step, and units give the numbers of whole rounds") {
  // The RNN, LSTM and attention side by side at distance 32: one unit per call
  // (one model's step) against whole rounds per call.
  const auto in = settings({{"distance", "32"}, {"steps", "6"}});
  auto a = attn::make_experiment("train_long_range", in);
  auto b = attn::make_experiment("train_long_range", in);
  a->prepare();
  while (a->status().find("evaluating")->as_bool()) a->advance(0.0);  // the untrained models
  int calls_for_first_step = 0;
  while (a->progress() < 1) a->advance(0.0), ++calls_for_first_step;
  // Three models, one step each.
  CHECK(calls_for_first_step == 3);
  while (!a->done()) a->advance(0.0);
  while (!b->done()) b->step_once();
  const auto sa = a->status(), sb = b->status();
  for (size_t i = 0; i < 3; ++i) {
    CHECK(number(run_status(sa, i), "steps") == 6);
    CHECK(number(run_status(sa, i), "loss") == number(run_status(sb, i), "loss"));
    CHECK(number(run_status(sa, i), "accuracy") == number(run_status(sb, i), "accuracy"));
  }
}

TEST_CASE("the translation model with attention reaches 95% held-out token accuracy within 300 steps") {
  auto ex = attn::make_experiment("train_translation", DemoInputs{});
  double best = 0.0;
  long reached_at = -1;
  while (!ex->done()) {
    ex->advance(20.0);
    const attn::json::Value status = ex->status();
    const attn::json::Value& r = run_status(status, 0);
    best = number(r, "accuracy");
    if (best >= 0.95 && reached_at < 0) reached_at = long(number(r, "evaluatedAt"));
    if (reached_at >= 0) break;
  }
  MESSAGE("95% held-out token accuracy first measured at step " << reached_at);
  CHECK(reached_at > 0);
  CHECK(reached_at <= 300);
  // The full stop gets almost no weight while "love" is produced.
  const attn::json::Value status = ex->status();
  const attn::json::Value* example = status.find("example");
  REQUIRE(example != nullptr);
  CHECK(example->find("source")->as_string() == "我 爱 中国 。");
  CHECK(number(*example, "stopWeightForWord2") < 0.05);
  // Showing another sentence does not restart training.
  const long steps = ex->progress();
  CHECK(ex->set_view_setting("example", "3"));
  CHECK(ex->progress() == steps);
  CHECK(!ex->set_view_setting("attention", "dot"));
}

TEST_CASE("long-range: changing the distance restarts the runs and keeps finished results") {
  auto ex = attn::make_experiment("train_long_range", settings({{"distance", "4"}, {"steps", "10"}}));
  while (!ex->done()) ex->advance(50.0);
  const auto before = ex->status();
  REQUIRE(before.find("byDistance")->find("4") != nullptr);
  CHECK(before.find("byDistance")->find("4")->size() == 3);
  CHECK(ex->set_view_setting("distance", "16"));
  CHECK(ex->progress() == 0);
  CHECK(!ex->done());
  const auto after = ex->status();
  CHECK(number(after, "distance") == 16);
  CHECK(after.find("byDistance")->find("4") != nullptr);
  CHECK(!ex->set_view_setting("distance", "0"));
}

TEST_CASE("timing measures one length per unit, every time positive") {
  auto ex = attn::make_experiment("timing", settings({{"d", "16"}}));
  ex->step_once();
  ex->step_once();
  CHECK(ex->progress() == 2);
  const attn::json::Value status = ex->status();
  const attn::json::Value* pts = status.find("points");
  REQUIRE(pts != nullptr);
  REQUIRE(pts->size() == 2);
  CHECK(number(pts->items()[0], "n") == 8);
  CHECK(number(pts->items()[1], "n") == 16);
  for (size_t i = 0; i < 2; ++i) {
    CHECK(number(pts->items()[i], "rnnMs") > 0.0);
    CHECK(number(pts->items()[i], "attentionMs") > 0.0);
    CHECK(number(pts->items()[i], "attentionScalarMs") > 0.0);
  }
  const attn::DemoOutputs out = ex->view();
  CHECK(has_panel(out, "times"));
  CHECK(out.mats.at("times").rows() == 3);
  CHECK(out.mats.at("times").cols() == 2);
}

TEST_CASE("translation side by side: what the lesson says happens within the 300-step budget") {
  // lessons/seq2seq.lesson, step without-attention, quotes these figures.
  auto ex = attn::make_experiment("train_translation", settings({{"compare", "on"}}));
  long with_at = -1, without_at = -1, full_from = -1;
  double without_last = 0.0;
  long last_eval = -1;
  while (!ex->done()) {
    ex->advance(50.0);
    const attn::json::Value status = ex->status();
    const attn::json::Value& a = run_status(status, 0);
    const attn::json::Value& b = run_status(status, 1);
    if (with_at < 0 && number(a, "accuracy") >= 0.95) with_at = long(number(a, "evaluatedAt"));
    if (without_at < 0 && number(b, "accuracy") >= 0.95) without_at = long(number(b, "evaluatedAt"));
    if (long(number(b, "evaluatedAt")) != last_eval) {
      last_eval = long(number(b, "evaluatedAt"));
      without_last = number(b, "accuracy");
      // "At 100% from step 220": the first test at 100% after which every test is.
      if (number(a, "accuracy") < 1.0) full_from = -1;
      else if (full_from < 0) full_from = last_eval;
      MESSAGE("step " << last_eval << ": with attention " << number(a, "accuracy") << ", without " << without_last);
    }
  }
  MESSAGE("95% first measured at step " << with_at << " with attention, " << without_at << " without; with attention at 100% from step "
                                        << full_from);
  CHECK(with_at > 100);  // "between steps 100 and 120" (tested every 20 steps)
  CHECK(with_at <= 120);
  CHECK(full_from == 220);
  // Without attention: still short of 95% when both stop, at about 92%.
  CHECK(without_at < 0);
  CHECK(last_eval == 300);
  CHECK(without_last > 0.88);
  CHECK(without_last < 0.95);
}

TEST_CASE("an exercise on a live experiment waits for cells not measured yet, and still refuses a wrong name") {
  attn::Exercise e;
  e.id = "x";
  std::string why;
  REQUIRE(attn::parse_check("accuracy_curve[0, 6] > 95", e.check, why));
  auto ex = attn::make_experiment("train_translation", DemoInputs{});
  const attn::DemoOutputs fresh = ex->view();
  CHECK(fresh.growing);
  attn::ExerciseStatus st = attn::check_exercise(e, DemoInputs{}, fresh);
  CHECK(st.error.empty());
  CHECK(!st.met);
  REQUIRE(st.conditions.size() == 1);
  CHECK(st.conditions[0].pending);
  // The same cell in a demo that does not grow is a mistake, said as one.
  attn::DemoOutputs still = fresh;
  still.growing = false;
  st = attn::check_exercise(e, DemoInputs{}, still);
  CHECK(!st.error.empty());
  CHECK(!st.conditions[0].pending);
  // A matrix that does not exist is an error even while it grows.
  e.check.clear();
  REQUIRE(attn::parse_check("no_such[0, 6] > 95", e.check, why));
  st = attn::check_exercise(e, DemoInputs{}, fresh);
  CHECK(!st.error.empty());
}

TEST_CASE("settings are read as the demos validate them: \"3e2\" steps run as 300, and what is refused is not run") {
  const DemoInputs in = settings({{"steps", "3e2"}, {"seed", "2e0"}, {"distance", "16"}});
  CHECK(attn::live_demos().run("train_long_range", in).error.empty());
  auto ex = attn::make_experiment("train_long_range", in);
  REQUIRE(ex);
  CHECK(ex->planned() == 300);
  // A view setting goes through the same reader.
  CHECK(ex->set_view_setting("distance", "3.2e1"));
  CHECK(number(ex->status(), "distance") == 32);
  CHECK(!ex->set_view_setting("distance", "32abc"));
  CHECK(!ex->set_view_setting("distance", "1e39"));
  CHECK(number(ex->status(), "distance") == 32);
  // The demos refuse what the experiments could not read.
  CHECK(!attn::live_demos().run("train_long_range", settings({{"steps", "300abc"}})).error.empty());
  CHECK(attn::live_demos().run("train_long_range", settings({{"steps", "1e39"}})).error.find("too large for a float") !=
        std::string::npos);
}

TEST_CASE("train_induction: the repeated half drops below the first, and switching the induction head off undoes it") {
  // The page's interface: frames of work, exact evaluations every 25 steps.
  auto ex = attn::make_experiment("train_induction", settings({{"steps", "300"}}));
  REQUIRE(ex);
  while (!ex->done()) ex->advance(20.0);
  const attn::json::Value s = ex->status();
  const double first = number(s, "firstHalfLoss"), repeated = number(s, "repeatedHalfLoss");
  const std::string head = s.find("bestInductionHead")->as_string();
  MESSAGE("300 steps in " << ex->work_ms() << " ms of work: first-half loss " << first << ", repeated-half loss "
                          << repeated << ", best induction head " << head << " (score " << number(s, "bestInductionScore")
                          << ")");
  CHECK(repeated < 0.5 * first);
  MESSAGE("induction phase (repeated half below half the first half) at step " << number(s, "inductionPhaseAt"));
  CHECK(number(s, "inductionPhaseAt") > 0);
  CHECK(number(s, "inductionPhaseAt") <= 200);
  CHECK(number(s, "bestInductionScore") > 0.5);
  CHECK(head[0] == '2');  // in layer 2
  {
    // induction lesson, step redirect: "the other layer-2 head (2.0) learned
    // induction too (score about 0.89)"; 2.1 is the best (about 0.9).
    const attn::Mat sc = ex->view().mats.at("head_scores");  // (4, 2) rows 1.0 1.1 2.0 2.1
    MESSAGE("induction scores: 1.0 " << sc(0, 0) << ", 1.1 " << sc(1, 0) << ", 2.0 " << sc(2, 0) << ", 2.1 " << sc(3, 0));
    CHECK(head == "2.1");
    CHECK(sc(2, 0) == doctest::Approx(0.89).epsilon(0.01));
    CHECK(sc(3, 0) == doctest::Approx(0.90).epsilon(0.01));
    // The ablate step's quiz: "a layer-1 head has an induction score near 0".
    CHECK(sc(0, 0) < 0.1f);
    CHECK(sc(1, 0) < 0.1f);
  }
  // Switching it off is a view setting: no restart, same weights, loss up at once.
  REQUIRE(ex->set_view_setting("ablate", head));
  const attn::json::Value a = ex->status();
  CHECK(number(a, "steps") == 300);
  MESSAGE("with head " << head << " off: repeated-half loss " << number(a, "ablatedRepeatedHalfLoss"));
  CHECK(number(a, "ablatedRepeatedHalfLoss") > 3.0 * repeated);
  const attn::DemoOutputs out = ex->view();
  for (const std::string id : {"halves", "scores", "head_1_0", "head_2_1", "predictions", "set_ablate", "set_example"})
    CHECK_MESSAGE(has_panel(out, id), id);
  REQUIRE(ex->set_view_setting("ablate", "none"));
  CHECK(ex->status().find("ablatedRepeatedHalfLoss") == nullptr);
  // Redirect the induction head's last query of the shown sequence onto position
  // 2: the prediction becomes the letter there (what the head reads is what it copies).
  CHECK(ex->status().find("redirectRow") == nullptr);
  REQUIRE(ex->set_view_setting("redirect", "2"));
  const attn::json::Value r = ex->status();
  CHECK(number(r, "redirectKey") == 2);
  MESSAGE("redirected row " << number(r, "redirectRow") << " onto position 2: predicts " << number(r, "redirectedPrediction")
                            << ", token there " << number(r, "tokenAtKey"));
  CHECK(number(r, "redirectedPrediction") == number(r, "tokenAtKey"));
  // Over ten held-out sequences and every position k of their last row (see
  // redirect_sweep).
  int follows = 0, tries = 0, moved_follows = 0, moved_tries = 0;
  auto sweep = [&] {
    const RedirectSweep w = redirect_sweep(*ex, head);
    follows = w.follows, tries = w.tries, moved_follows = w.moved_follows, moved_tries = w.moved_tries;
  };
  // Not always: the other layer-2 head also learned induction and still reads
  // the right position; with it switched off the redirected head decides more
  // often. Chance would be 1 in 16. (Seed 1 after 300 steps: 42 and 70 of 106;
  // moved elsewhere than where the row reads most, which the lesson quotes, 32 and 60 of 96.)
  sweep();
  const int both = follows;
  MESSAGE("the prediction followed the redirected row in " << follows << " of " << tries << " cases; moved elsewhere than "
          "where it reads most, in "
          << moved_follows << " of " << moved_tries);
  CHECK(follows >= 0.35 * tries);
  // The redirect step's after-text quotes these two counts.
  CHECK(tries == 106);
  CHECK(follows == 42);
  CHECK(moved_tries == 96);
  CHECK(moved_follows == 32);
  REQUIRE(ex->set_view_setting("ablate", head == "2.1" ? "2.0" : "2.1"));
  sweep();
  MESSAGE("with the other layer-2 head off: " << follows << " of " << tries << " cases; moved elsewhere, " << moved_follows << " of "
                                              << moved_tries);
  CHECK(follows >= 0.6 * tries);
  CHECK(follows > both);
  CHECK(follows == 70);
  CHECK(moved_tries == 96);
  CHECK(moved_follows == 60);
}

TEST_CASE("train_induction: a head scaled rather than switched off, and an attention row dragged weight by weight") {
  DemoInputs in = settings({{"steps", "300"}});
  in.mats["row"] = attn::Mat::Zero(1, 16);
  CHECK(attn::live_demos().run("train_induction", in).error.empty());
  DemoInputs bad = in;
  bad.mats["row"] = attn::Mat::Zero(1, 3);
  CHECK(attn::live_demos().run("train_induction", bad).error.find("'row'") != std::string::npos);
  bad = in;
  bad.mats["row"](0, 4) = std::nanf("");
  CHECK(!attn::live_demos().run("train_induction", bad).error.empty());
  CHECK(!attn::live_demos().run("train_induction", settings({{"scale", "3"}})).error.empty());

  auto ex = attn::make_experiment("train_induction", in);
  REQUIRE(ex);
  // A matrix the experiment does not show asks for a fresh one.
  CHECK(!ex->set_view_matrix("x", attn::Mat::Zero(1, 16)));
  CHECK(!attn::make_experiment("train_induction", settings({}))->set_view_matrix("row", attn::Mat::Zero(1, 16)));
  while (!ex->done()) ex->advance(20.0);
  const std::string head = ex->status().find("bestInductionHead")->as_string();
  const double kept = number(ex->status(), "repeatedHalfLoss");
  auto loss_at = [&](const char* scale) {
    REQUIRE(ex->set_view_setting("scale", scale));
    CHECK(number(ex->status(), "headScale") == doctest::Approx(std::atof(scale)));
    return number(ex->status(), "ablatedRepeatedHalfLoss");
  };
  REQUIRE(ex->set_view_setting("ablate", head));  // the scale is 0 by default: off
  const double off = number(ex->status(), "ablatedRepeatedHalfLoss");
  CHECK(loss_at("0") == off);
  const double half = loss_at("0.5"), same = loss_at("1"), doubled = loss_at("2");
  MESSAGE("repeated-half loss with head " << head << " x 0: " << off << ", x 0.5: " << half << ", x 1: " << same
                                          << ", x 2: " << doubled << " (unedited " << kept << ")");
  CHECK(same == doctest::Approx(kept).epsilon(1e-4));  // x 1 is the trained model
  CHECK(half > same);
  CHECK(half < off);
  CHECK(doubled != doctest::Approx(same).epsilon(1e-3));
  CHECK(number(ex->status(), "steps") == 300);  // none of it retrains
  REQUIRE(ex->set_view_setting("ablate", "none"));

  // The dragged row: one weight on position 2 is the slider's redirect onto 2.
  REQUIRE(ex->set_view_setting("redirect", "2"));
  const double by_slider = number(ex->status(), "redirectedPrediction");
  CHECK(ex->status().find("redirectDragged")->as_bool() == false);
  REQUIRE(ex->set_view_setting("redirect", "-1"));
  attn::Mat row = attn::Mat::Zero(1, 16);
  row(0, 2) = 1.0f;
  REQUIRE(ex->set_view_matrix("row", row));
  attn::json::Value r = ex->status();
  CHECK(r.find("redirectDragged")->as_bool());
  CHECK(number(r, "redirectKey") == 2);
  CHECK(number(r, "redirectedPrediction") == by_slider);
  // Renormalised: 5 is the same as 1; a negative weight counts as 0.
  row(0, 2) = 5.0f;
  row(0, 0) = -3.0f;
  REQUIRE(ex->set_view_matrix("row", row));
  CHECK(number(ex->status(), "redirectedPrediction") == by_slider);
  // Two equal weights: half on each, as the note says and the heatmap shows.
  row(0, 0) = 0.0f;
  row(0, 2) = 1.0f;
  row(0, 3) = 1.0f;
  REQUIRE(ex->set_view_matrix("row", row));
  r = ex->status();
  const int q = int(number(r, "redirectRow"));
  const attn::DemoOutputs out = ex->view();
  CHECK(has_panel(out, "edit_row"));
  CHECK(has_panel(out, "set_scale"));
  const std::string head_key = "head_" + std::string(1, head[0]) + "_" + std::string(1, head[2]);
  // (the row is the best induction head's; bestInductionHead names it)
  const attn::Mat& P = out.mats.at(head_key);
  CHECK(P(q, 2) == doctest::Approx(0.5));
  CHECK(P(q, 3) == doctest::Approx(0.5));
  CHECK(P(q, 1) == 0.0f);
  bool noted = false;
  for (const attn::Panel& p : out.panels)
    if (p.id == "predictions") noted = p.text.get("en").find("0.50 on") != std::string::npos;
  CHECK(noted);
  // Weights only on positions the query cannot see (or none at all): no override.
  row.setZero();
  row(0, 15) = 1.0f;
  REQUIRE(ex->set_view_matrix("row", row));
  if (q < 15) CHECK(ex->status().find("redirectRow") == nullptr);
  REQUIRE(ex->set_view_matrix("row", attn::Mat::Zero(1, 16)));
  CHECK(ex->status().find("redirectRow") == nullptr);
}

TEST_CASE("train_sentiment: the learner's options reach the model, two settings train in lockstep, bad settings are refused") {
  // Refused like any demo's settings.
  CHECK(!attn::live_demos().run("train_sentiment", settings({{"heads", "3"}})).error.empty());
  CHECK(!attn::live_demos().run("train_sentiment", settings({{"position", "added"}})).error.empty());
  CHECK(!attn::live_demos().run("train_sentiment", settings({{"dropout", "0.5"}})).error.empty());
  CHECK(!attn::live_demos().run("train_sentiment", settings({{"head", "9"}})).error.empty());
  // The preview shows the controls; model B's only when comparing.
  const attn::DemoOutputs one = attn::live_demos().run("train_sentiment", DemoInputs{});
  CHECK(has_panel(one, "set_position"));
  CHECK(has_panel(one, "set_heads"));
  CHECK(has_panel(one, "set_dropout"));
  CHECK(!has_panel(one, "set_heads_b"));
  CHECK(has_panel(attn::live_demos().run("train_sentiment", settings({{"compare", "on"}})), "set_heads_b"));

  auto ex = attn::make_experiment("train_sentiment", settings({{"compare", "on"}, {"position", "concat"}, {"heads", "8"},
                                                                {"dropout", "off"}, {"position_b", "none"},
                                                                {"heads_b", "1"}, {"steps", "20"}}));
  REQUIRE(ex);
  while (!ex->done()) ex->advance(5.0);
  const auto st = ex->status();
  CHECK(run_status(st, 0).find("name")->as_string() == "PE concat, 8 heads, dropout off");
  CHECK(run_status(st, 1).find("name")->as_string() == "PE none, 1 head, dropout on");
  for (size_t i = 0; i < 2; ++i) {
    CHECK(number(run_status(st, i), "steps") == 20);
    CHECK(number(run_status(st, i), "evaluatedAt") == 20);
  }
  // The same runs as TrainRun builds them directly.
  attn::train::RunDesc d;
  d.kind = attn::train::RunKind::sentiment;
  d.position = attn::train::PositionMode::concat;
  d.heads = 8;
  d.dropout = 0.0f;
  attn::train::TrainRun direct(d);
  direct.run_for(1e9, 20);
  CHECK(direct.evaluate().accuracy == doctest::Approx(number(run_status(st, 0), "accuracy")));
  CHECK(direct.sentiment()->desc().head_size == 4);
  CHECK(direct.sentiment()->params()[0]->value.cols() == 16);  // 16 learned columns + 16 of PE

  attn::DemoOutputs out = ex->view();
  CHECK(out.mats.at("received").cols() == 8);  // (n, heads) of model A
  const attn::Mat w = out.mats.at("head_weights");
  CHECK(w.rows() == w.cols());
  CHECK(w.row(0).sum() == doctest::Approx(1.0));
  // The negation split covers the whole held-out set, per model.
  const attn::Mat split = out.mats.at("by_negation");
  CHECK(split.rows() == 2);
  CHECK(split.cols() == 2);
  const attn::json::Value& neg = st.find("byNegation")->items()[0];
  CHECK(number(neg, "negatedCount") > 50);
  // The head slider only changes the picture (no restart); past the model's heads it shows the last.
  CHECK(ex->set_view_setting("head", "8"));
  CHECK(ex->progress() == 20);
  CHECK(ex->view().mats.at("head_weights").rows() == w.rows());
}

TEST_CASE("train_sentiment: the padding mask per model, and the padding slider changes only the picture") {
  CHECK(!attn::live_demos().run("train_sentiment", settings({{"mask", "maybe"}})).error.empty());
  CHECK(!attn::live_demos().run("train_sentiment", settings({{"padding", "25"}})).error.empty());
  auto ex = attn::make_experiment("train_sentiment", settings({{"compare", "on"}, {"heads_b", "4"}, {"mask_b", "off"},
                                                                {"example", "2"}, {"steps", "20"}}));
  REQUIRE(ex);
  while (!ex->done()) ex->advance(5.0);
  const auto st = ex->status();
  CHECK(run_status(st, 0).find("name")->as_string() == "PE sum, 4 heads, dropout on");
  CHECK(run_status(st, 1).find("name")->as_string() == "PE sum, 4 heads, dropout on, no mask");
  const attn::DemoOutputs out = ex->view();
  for (const char* id : {"set_mask", "set_mask_b", "set_padding", "padding-curve", "padding", "padding-note"})
    CHECK_MESSAGE(has_panel(out, id), id);
  // Rows: A (masked), B (no mask), A with its mask removed; 0, 4, ..., 24 more pads.
  const attn::Mat curve = out.mats.at("padding_curve"), now = out.mats.at("padding");
  REQUIRE(curve.rows() == 3);
  REQUIRE(curve.cols() == 7);
  CHECK(out.mats.at("pads")(0, 6) == 24.0f);
  for (Eigen::Index c = 1; c < 7; ++c) CHECK(curve(0, c) == curve(0, 0));  // masked: pads change nothing
  CHECK(std::abs(curve(2, 6) - curve(2, 0)) > 1e-4f);                      // unmasked: they do
  CHECK(now(0, 1) == 0.0f);  // masked: no weight on the pads
  CHECK(now(1, 1) > 0.0f);
  CHECK(now(2, 1) > 0.0f);
  CHECK(now(0, 0) == curve(0, 0));
  // The slider: the picture changes, the training does not restart.
  CHECK(ex->set_view_setting("padding", "8"));
  CHECK(ex->progress() == 20);
  const attn::Mat later = ex->view().mats.at("padding");
  CHECK(later(0, 0) == now(0, 0));
  CHECK(later(1, 0) == doctest::Approx(curve(1, 2)));
  CHECK(later(2, 1) > now(2, 1));  // more pads, more of the words' attention on them
}

TEST_CASE("train_sentiment: one head stalls on the negated reviews, eight heads get past them (the lesson's exercise)") {
  // Measured (seed 1, 350 steps): 1 head 90.2% held out at step 350 (every one of
  // the 487 reviews without a negation right, 54 of the 113 with one), 8 heads
  // 100%. (91.8%, 64 of the 113, is the one head's figure after 600 steps.)
  auto ex = attn::make_experiment("train_sentiment", settings({{"compare", "on"}, {"heads", "8"}, {"heads_b", "1"},
                                                                {"steps", "350"}}));
  while (!ex->done()) ex->advance(50.0);
  const attn::DemoOutputs out = ex->view();
  const attn::Mat split = out.mats.at("by_negation");
  MESSAGE("8 heads: negated " << split(0, 0) << "%, plain " << split(0, 1) << "%; 1 head: negated " << split(1, 0)
                              << "%, plain " << split(1, 1) << "%");
  CHECK(out.mats.at("accuracy_curve")(0, 14) > 99.0f);
  CHECK(out.mats.at("accuracy_curve")(1, 14) < 93.0f);
  CHECK(split(1, 1) == doctest::Approx(100.0));
  CHECK(split(1, 0) == doctest::Approx(100.0 * 54 / 113));  // the options step's after-text
  CHECK(out.mats.at("accuracy_curve")(1, 14) == doctest::Approx(100.0 * (487 + 54) / 600).epsilon(0.001));
  CHECK(split(0, 0) > 99.0f);
}

TEST_CASE("train_sentiment side by side: what the lesson says about positions and heads (seed 1, 600 steps)") {
  // sentiment.lesson, steps compare and heads: A (positions summed) is right on
  // every held-out review from step 425, B (no positions) from step 450; at step
  // 350 B leads, 96.0% against 93.0%, 89 of the 113 negated reviews against 71.
  // On test review 0 heads 1 and 3 of A look most at "not", head 4 at "fantastic".
  // A is the model of the lesson's first step: 89.0% at step 150.
  auto ex = attn::make_experiment("train_sentiment", settings({{"compare", "on"}, {"position_b", "none"}, {"heads_b", "4"}}));
  std::vector<float> negated_at_350;
  while (!ex->done()) {
    ex->step_once();
    if (ex->progress() == 350 && negated_at_350.empty()) {
      const attn::Mat split = ex->view().mats.at("by_negation");
      negated_at_350 = {split(0, 0), split(1, 0)};
    }
  }
  const attn::DemoOutputs out = ex->view();
  const attn::Mat acc = out.mats.at("accuracy_curve");  // one column per 25 steps
  REQUIRE(acc.cols() == 25);
  auto first_full = [&](int row) {
    for (int c = 0; c < acc.cols(); ++c)
      if (acc(row, c) >= 100.0f) return c * 25;
    return -1;
  };
  CHECK(first_full(0) == 425);
  CHECK(acc(0, 6) == doctest::Approx(89.0).epsilon(0.001));  // step 150, the first step's text
  CHECK(first_full(1) == 450);
  CHECK(acc(0, 14) == doctest::Approx(93.0).epsilon(0.001));
  CHECK(acc(1, 14) == doctest::Approx(96.0).epsilon(0.001));
  REQUIRE(negated_at_350.size() == 2);
  CHECK(negated_at_350[0] == doctest::Approx(100.0 * 71 / 113));
  CHECK(negated_at_350[1] == doctest::Approx(100.0 * 89 / 113));
  CHECK(acc(0, 24) >= 100.0f);
  CHECK(acc(1, 24) >= 100.0f);
  // Review 0: "i thought the coffee was not fantastic ."
  const attn::Mat received = out.mats.at("received");  // (n, h)
  REQUIRE(received.rows() == 8);
  auto top = [&](int head) {
    Eigen::Index j = 0;
    received.col(head).maxCoeff(&j);
    return int(j);
  };
  CHECK(top(0) == 5);  // not
  CHECK(top(2) == 5);
  CHECK(top(3) == 6);  // fantastic
  CHECK(top(1) == 0);  // i
}

TEST_CASE("train_word_order: without positions self-attention stays at chance, with positions it learns and so does the RNN") {
  // lessons/rnn_vs_attention.lesson, step order, quotes these figures.
  auto ex = attn::make_experiment("train_word_order", DemoInputs{});
  REQUIRE(ex);
  long last_eval = -1;
  while (!ex->done()) {
    ex->step_once();  // one step, and its evaluation when one is due
    const attn::json::Value status = ex->status();
    const attn::json::Value& plain = run_status(status, 0);
    if (long(number(plain, "evaluatedAt")) == last_eval) continue;
    last_eval = long(number(plain, "evaluatedAt"));
    MESSAGE("step " << last_eval << ": no positions " << number(plain, "accuracy") << ", positions "
                    << number(run_status(status, 1), "accuracy") << ", RNN " << number(run_status(status, 2), "accuracy"));
    // Order-blind: each held-out sentence and its twin (same words, animals
    // swapped, opposite label) get the same answer, so exactly half are right.
    CHECK(number(plain, "accuracy") == doctest::Approx(0.5).epsilon(1e-6));
    // The order step's after-text: the RNN 93.5% after 10 steps and 100% from
    // step 20; with positions 50%, 77% and 99.5% after 10, 20 and 30 steps, 100% from 40.
    const double pos = number(run_status(status, 1), "accuracy"), rnn = number(run_status(status, 2), "accuracy");
    CAPTURE(last_eval);
    if (last_eval == 10) CHECK(std::abs(rnn - 0.935) < 0.001);
    if (last_eval >= 20) CHECK(rnn == 1.0);
    if (last_eval == 10) CHECK(std::abs(pos - 0.5) < 0.001);
    if (last_eval == 20) CHECK(std::abs(pos - 0.77) < 0.001);
    if (last_eval == 30) CHECK(std::abs(pos - 0.995) < 0.001);
    if (last_eval >= 40) CHECK(pos == 1.0);
  }
  const attn::json::Value status = ex->status();
  MESSAGE("after " << number(status, "steps") << " steps (" << ex->work_ms() << " ms of work): training loss no positions "
                   << number(run_status(status, 0), "loss") << ", positions " << number(run_status(status, 1), "loss")
                   << ", RNN " << number(run_status(status, 2), "loss"));
  CHECK(number(run_status(status, 1), "accuracy") > 0.9);
  CHECK(number(run_status(status, 2), "accuracy") > 0.9);
  // "its training loss stays at about 0.69, which is ln 2"
  CHECK(std::abs(number(run_status(status, 0), "loss") - std::log(2.0)) < 0.01);
  // The twins panel: the order-blind model gives both sentences the same p.
  const attn::DemoOutputs out = ex->view();
  CHECK(has_panel(out, "twins"));
  CHECK(has_panel(out, "latest"));
  CHECK(out.mats.at("latest_accuracy")(2, 0) == doctest::Approx(100.0));  // the RNN, at the end
  const attn::Mat& p = out.mats.at("twin_p");
  REQUIRE(p.rows() == 2);
  CHECK(std::abs(p(0, 0) - p(1, 0)) < 1e-5f);
  CHECK(std::abs(p(0, 1) - p(1, 1)) > 0.5f);
}

TEST_CASE("train_induction: a typed prompt is checked (length first, then tokens) and predicted token by token") {
  std::vector<int> t;
  std::string why;
  CHECK(attn::parse_induction_prompt("", &t, &why));
  CHECK(t.empty());
  CHECK(attn::parse_induction_prompt("c f a, k|c f", &t, &why));
  CHECK(t == std::vector<int>{2, 5, 0, 10, 2, 5});
  CHECK(!attn::parse_induction_prompt(std::string(65, 'A'), &t, &why));
  CHECK(why == "'prompt' is too long: at most 64 characters");
  CHECK(t.empty());
  // Length is checked before the tokens: a long line of bad letters says it is long.
  CHECK(!attn::parse_induction_prompt(std::string(70, 'Z'), &t, &why));
  CHECK(why == "'prompt' is too long: at most 64 characters");
  CHECK(!attn::parse_induction_prompt("A B Z", &t, &why));
  CHECK(why == "'prompt' may hold only the letters A to P (and spaces): 'Z' is not one");
  CHECK(!attn::parse_induction_prompt("A\tB", &t, &why));
  CHECK(why == "'prompt' may hold only the letters A to P (and spaces)");
  CHECK(!attn::parse_induction_prompt(std::string(17, 'B'), &t, &why));
  CHECK(why == "'prompt' has 17 tokens: at most 16");
  // The registry refuses the same, so a bad prompt never reaches the model.
  CHECK(attn::live_demos().run("train_induction", settings({{"prompt", "A B Z"}})).error ==
        "'prompt' may hold only the letters A to P (and spaces): 'Z' is not one");
  CHECK(attn::live_demos().run("train_induction", settings({{"prompt", "A B C"}})).error.empty());

  auto ex = attn::make_experiment("train_induction", settings({{"steps", "300"}}));
  while (!ex->done()) ex->advance(20.0);
  CHECK(ex->status().find("promptPredictions") == nullptr);
  // A prompt that repeats: after the second C the model should say F, after the second F, A.
  REQUIRE(ex->set_view_setting("prompt", "C F A K C F"));
  CHECK(ex->progress() == 300);  // a view setting: no restart
  const attn::json::Value s = ex->status();
  const attn::json::Value* p = s.find("promptPredictions");
  REQUIRE(p != nullptr);
  REQUIRE(p->size() == 6);
  MESSAGE("prompt C F A K C F: predictions " << p->items()[4].as_number() << " " << p->items()[5].as_number());
  CHECK(p->items()[4].as_number() == 5);  // after the second C: F
  CHECK(p->items()[5].as_number() == 0);  // after the second F: A
  const attn::DemoOutputs out = ex->view();
  CHECK(out.mats.at("head_2_1").rows() == 6);  // the heatmaps show the prompt
  CHECK(has_panel(out, "set_prompt"));
  CHECK(has_panel(out, "prompt-predictions"));
  // The prompt step's quizzes quote these probabilities.
  auto note = [&] {
    for (const auto& panel : ex->view().panels)
      if (panel.id == "prompt-predictions") return panel.text.get("en");
    return std::string();
  };
  std::string said = note();
  MESSAGE(said);
  for (const char* quoted : {"K → C 0.74", "C → F 0.94", "F → A 0.91"})
    CHECK_MESSAGE(said.find(quoted) != std::string::npos, quoted);
  // A last letter seen nowhere before: nothing to copy from.
  REQUIRE(ex->set_view_setting("prompt", "C F A K C G"));
  said = note();
  MESSAGE(said);
  CHECK(said.find("G → K 0.21") != std::string::npos);
  REQUIRE(ex->set_view_setting("prompt", ""));
  CHECK(ex->status().find("promptPredictions") == nullptr);
}

// The loss-shape and seeds-after-new-letters quizzes quote seeds 1 to 3 (not run by default):
//   test_experiments --no-skip -tc="measure: train_induction, seeds*"
TEST_CASE("measure: train_induction, seeds 1 to 3, the wait before the drop and the bet after a new letter" *
          doctest::skip()) {
  for (const char* seed : {"1", "2", "3"}) {
    auto ex = attn::make_experiment("train_induction", settings({{"steps", "300"}, {"seed", seed}}));
    while (!ex->done()) ex->advance(50.0);
    const attn::DemoOutputs out = ex->view();
    const attn::Mat& h = out.mats.at("half_loss");
    const attn::Mat& x = out.mats.at("half_steps");
    std::string curve;
    for (Eigen::Index c = 0; c < h.cols(); ++c)
      curve += std::to_string(int(x(0, c))) + ": " + std::to_string(h(0, c)).substr(0, 4) + " / " +
               std::to_string(h(1, c)).substr(0, 4) + "; ";
    REQUIRE(ex->set_view_setting("prompt", "C F A K C G"));
    std::string said;
    for (const auto& panel : ex->view().panels)
      if (panel.id == "prompt-predictions") said = panel.text.get("en");
    MESSAGE("seed " << std::string(seed) << ": " << curve);
    MESSAGE("seed " << std::string(seed) << ": " << said);
    const int k = std::atoi(seed) - 1;
    // seeds-after-new-letters: F after the repeated C with 0.90 or more; after K and G the runs differ.
    const char* quoted[3][3] = {{"C → F 0.94", "K → C 0.74", "G → K 0.21"},
                                {"C → F 0.90", "K → C 0.20", "G → F 0.89"},
                                {"C → F 0.96", "K → C 0.42", "G → C 0.21"}};
    for (const char* q : quoted[k]) CHECK_MESSAGE(said.find(q) != std::string::npos, q);
    // first-half-best's after-text: the first half is lowest at step 25 (2.84 or 2.85), peaks between 3.16 and
    // 3.25 while the repeated half is learned, and is 3.0 to 3.1 at step 300: never below ln 16.
    float first_min = 1e9f, first_max = 0.0f;
    for (Eigen::Index c = 1; c < h.cols(); ++c) {
      first_min = std::min(first_min, h(0, c));
      first_max = std::max(first_max, h(0, c));
      if (x(0, c) == 25) CHECK(h(0, c) == first_min);
      if (x(0, c) == 300) CHECK(h(0, c) > 2.99f);
      if (x(0, c) == 300) CHECK(h(0, c) < 3.11f);
    }
    MESSAGE("seed " << std::string(seed) << ": first half lowest " << first_min << ", highest " << first_max);
    CHECK(first_min > 2.825f);
    CHECK(first_min < 2.855f);
    CHECK(first_max > 3.155f);
    CHECK(first_max < 3.265f);
    // loss-shape: within about 0.3 of the first half until step 75, below 0.5 by step 200.
    for (Eigen::Index c = 0; c < h.cols(); ++c) {
      CAPTURE(x(0, c));
      if (x(0, c) <= 75 && k > 0) CHECK(h(0, c) - h(1, c) < 0.31f);  // "about 0.3" (seed 3: 0.302)
      if (x(0, c) <= 75 && k == 0) CHECK(h(0, c) - h(1, c) < 0.45f);  // seed 1 quoted: 2.93 / 2.49 at 75
      if (x(0, c) == 200) CHECK(h(1, c) < 0.5f);
    }
  }
}

// The induction lesson's first step trains for 600 steps; its after-text quotes the
// held-out losses of both halves along the way (not run by default):
//   test_experiments --no-skip -tc="measure: train_induction*"
TEST_CASE("measure: train_induction over the lesson's 600 steps, both halves" * doctest::skip()) {
  auto ex = attn::make_experiment("train_induction", DemoInputs{});
  while (!ex->done()) ex->advance(50.0);
  const attn::DemoOutputs out = ex->view();
  const attn::Mat& h = out.mats.at("half_loss");   // (2, points): first half, repeated half
  const attn::Mat& x = out.mats.at("half_steps");  // (1, points)
  std::string curve;
  float first_min = 1e9f;
  for (Eigen::Index c = 0; c < h.cols(); ++c) {
    curve += std::to_string(int(x(0, c))) + ": " + std::to_string(h(0, c)).substr(0, 4) + " / " +
             std::to_string(h(1, c)).substr(0, 4) + "; ";
    if (x(0, c) > 0) first_min = std::min(first_min, h(0, c));
    if (int(x(0, c)) == 400) CHECK(std::abs(h(1, c) - 0.1f) < 0.03f);  // "by step 400 it is about 0.1"
    // The pairs the after-text quotes, first half / repeated half.
    const std::map<int, std::pair<float, float>> quoted = {
        {75, {2.93f, 2.49f}}, {100, {3.09f, 2.10f}}, {150, {3.20f, 0.91f}}, {200, {3.09f, 0.31f}}};
    const auto q = quoted.find(int(x(0, c)));
    if (q != quoted.end()) {
      CAPTURE(q->first);
      CHECK(std::abs(h(0, c) - q->second.first) < 0.02f);
      CHECK(std::abs(h(1, c) - q->second.second) < 0.02f);
    }
  }
  MESSAGE("held-out loss, first half / repeated half, by step: " << curve);
  MESSAGE("lowest first-half loss after step 0: " << first_min << " (ln 16 = " << std::log(16.0) << ")");
  CHECK(first_min > std::log(16.0f));  // "a little above chance all the way"
}

TEST_CASE("train_translation: forcing one output word's alignment onto another source word changes the decoded word") {
  auto ex = attn::make_experiment("train_translation", DemoInputs{});
  while (!ex->done()) ex->advance(20.0);
  const attn::json::Value before = ex->status();
  const attn::json::Value* e = before.find("example");
  REQUIRE(e != nullptr);
  const std::string decoded = e->find("decoded")->as_string();
  MESSAGE("我 爱 中国 。 decodes to: " << decoded);
  CHECK(decoded == "I love China . <eos>");
  // encoder-decoder lesson, step alignment: after these 300 steps "love" reads 爱
  // and gives the full stop almost nothing.
  const attn::Mat align = ex->view().mats.at("alignment");  // (m + 1, S) rows I love China . <eos>
  MESSAGE("love: 爱 " << align(1, 1) << ", 。 " << align(1, 3));
  CHECK(align(1, 1) > 0.9f);
  CHECK(align(1, 3) < 0.01f);
  // "China" settles on 中国 in the same way.
  Eigen::Index china = 0;
  align.row(2).maxCoeff(&china);
  CHECK(china == 2);
  CHECK(e->find("forcedDecoded") == nullptr);
  // Word 3 ("China") made to read only 我 (source word 0), then only 爱 (1).
  REQUIRE(ex->set_view_setting("force_step", "2"));
  CHECK(ex->progress() == 300);  // no retraining
  int changed = 0;
  for (const char* src : {"0", "1"}) {
    REQUIRE(ex->set_view_setting("force_source", src));
    const attn::json::Value s = ex->status();
    const std::string forced = s.find("example")->find("forcedDecoded")->as_string();
    MESSAGE("word 3 forced onto source word " << std::string(src) << ": " << forced);
    changed += forced != decoded;
    // induction lesson, step translator, quotes both sentences.
    CHECK(forced == (std::string(src) == "0" ? "I love dogs . <eos>" : "I love love . <eos>"));
  }
  CHECK(changed == 2);
  // Forced onto its own source word (中国, 2) it stays.
  REQUIRE(ex->set_view_setting("force_source", "2"));
  CHECK(ex->status().find("example")->find("forcedDecoded")->as_string() == decoded);
  // A source word past the sentence's end forces nothing (and says so).
  REQUIRE(ex->set_view_setting("force_source", "7"));
  CHECK(ex->status().find("example")->find("forcedDecoded") == nullptr);
  CHECK(attn::live_demos().run("train_translation", settings({{"force_step", "10"}})).error == "'force_step' must be between -1 and 9");
}

// The induction lesson's translator quiz forces word 3 ("China") onto 我 in five
// runs: "seeds 1, 4 and 5 wrote "dogs", seed 2 "apples", and seed 3 kept "China"";
// no run wrote "I".
TEST_CASE("train_translation: word 3 forced onto 我, seeds 1 to 5, never gives \"I\"") {
  const std::map<std::string, std::string> quoted = {{"1", "I love dogs . <eos>"},
                                                     {"2", "I love apples . <eos>"},
                                                     {"3", "I love China . <eos>"},
                                                     {"4", "I love dogs . <eos>"},
                                                     {"5", "I love dogs . <eos>"}};
  for (const auto& entry : quoted) {  // (no structured binding: clang 14 cannot capture one in doctest's lambda)
    const std::string& seed = entry.first;
    const std::string& expected = entry.second;
    CAPTURE(seed);
    auto ex = attn::make_experiment("train_translation", settings({{"seed", seed}}));
    while (!ex->done()) ex->advance(50.0);
    const std::string decoded = ex->status().find("example")->find("decoded")->as_string();
    REQUIRE(ex->set_view_setting("force_step", "2"));
    REQUIRE(ex->set_view_setting("force_source", "0"));
    const std::string forced = ex->status().find("example")->find("forcedDecoded")->as_string();
    MESSAGE("seed " << seed << ": 我 爱 中国 。 decodes to " << decoded << "; word 3 forced onto 我: " << forced);
    CHECK(decoded == "I love China . <eos>");
    CHECK(forced == expected);
    CHECK(forced != "I love I . <eos>");
  }
}

TEST_CASE("train_induction: the ablation bars give the repeated-half loss rise of each head, the best induction head's the largest") {
  // What the induction lesson's exercise checks (ablation[0, rise]), for a
  // 300-step run as that step trains.
  auto ex = attn::make_experiment("train_induction", settings({{"steps", "300"}}));
  while (!ex->done()) ex->advance(20.0);
  const std::string best = ex->status().find("bestInductionHead")->as_string();
  const attn::DemoOutputs none = ex->view();
  REQUIRE(none.mats.count("ablation") == 1);
  {
    const attn::Mat& h = none.mats.at("half_loss");
    const attn::Mat& x = none.mats.at("half_steps");
    std::string curve;
    for (Eigen::Index c = 0; c < h.cols(); ++c)
      curve += std::to_string(int(x(0, c))) + ": " + std::to_string(h(0, c)).substr(0, 4) + " / " + std::to_string(h(1, c)).substr(0, 4) + "; ";
    MESSAGE("held-out loss, first half / repeated half, by step: " << curve);
  }
  CHECK(none.mats.at("ablation")(0, 2) == 0.0f);
  CHECK(none.mats.at("ablation")(0, 0) == doctest::Approx(none.mats.at("ablation")(0, 1)));
  std::string worst;
  float worst_rise = -1.0f;
  for (const std::string head : {"1.0", "1.1", "2.0", "2.1"}) {
    REQUIRE(ex->set_view_setting("ablate", head));
    const attn::Mat a = ex->view().mats.at("ablation");
    MESSAGE("head " << head << " off: repeated-half loss " << a(0, 0) << " -> " << a(0, 1) << " (rise " << a(0, 2) << ")");
    // The ablate step quotes 0.15 with every head, 0.65 and 0.66 (layer 1), 0.84 and 1.05 (layer 2).
    CHECK(std::abs(a(0, 0) - 0.15f) < 0.005f);
    const std::map<std::string, double> quoted = {{"1.0", 0.65}, {"1.1", 0.66}, {"2.0", 0.84}, {"2.1", 1.05}};
    CHECK(a(0, 1) == doctest::Approx(quoted.at(head)).epsilon(0.01));
    CHECK(a(0, 2) == doctest::Approx(a(0, 1) - a(0, 0)));
    CHECK(a(0, 1) == doctest::Approx(number(ex->status(), "ablatedRepeatedHalfLoss")));
    if (a(0, 2) > worst_rise) worst_rise = a(0, 2), worst = head;
  }
  MESSAGE("best induction head " << best << "; the largest rise: head " << worst);
  CHECK(worst == best);
}

// The redirect step's quiz asks how often the moved row decides the prediction
// (seed 1 is pinned above); its explanation and after-text quote seeds 2 and 3:
// "with seed 2 (scores 0.85 and 0.95) it was 57 of the 96; with seed 3, where only
// head 2.0 learned induction (2.1 scored 0.06), 93 of the 96", and with the other
// layer-2 head off "76 and 93".
TEST_CASE("train_induction redirect, seeds 2 and 3: how often the moved row decides") {
  for (const std::string seed : {"2", "3"}) {
    CAPTURE(seed);
    auto ex = attn::make_experiment("train_induction", settings({{"steps", "300"}, {"seed", seed}}));
    while (!ex->done()) ex->advance(50.0);
    const std::string head = ex->status().find("bestInductionHead")->as_string();
    const attn::Mat sc = ex->view().mats.at("head_scores");  // (4, 2) rows 1.0 1.1 2.0 2.1
    const RedirectSweep both = redirect_sweep(*ex, head);
    const std::string other = head == "2.1" ? "2.0" : "2.1";
    REQUIRE(ex->set_view_setting("ablate", other));
    const RedirectSweep alone = redirect_sweep(*ex, head);
    MESSAGE("seed " << seed << ": best head " << head << "; induction scores 2.0 " << sc(2, 0) << ", 2.1 " << sc(3, 0) << "; moved: "
                    << both.moved_follows << " of " << both.moved_tries << "; with " << other << " off: " << alone.moved_follows
                    << " of " << alone.moved_tries);
    CHECK(both.moved_tries == 96);
    CHECK(alone.moved_tries == 96);
    if (seed == "2") {
      CHECK(head == "2.1");
      CHECK(sc(2, 0) == doctest::Approx(0.85).epsilon(0.01));
      CHECK(sc(3, 0) == doctest::Approx(0.95).epsilon(0.01));
      CHECK(both.moved_follows == 57);
      CHECK(alone.moved_follows == 76);
    } else {
      CHECK(head == "2.0");
      CHECK(sc(2, 0) == doctest::Approx(0.90).epsilon(0.01));
      CHECK(std::abs(sc(3, 0) - 0.06) < 0.005);
      CHECK(both.moved_follows == 93);
      CHECK(alone.moved_follows == 93);
    }
  }
}

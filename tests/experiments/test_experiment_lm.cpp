// train_lm (curriculum H): the character language model as a lesson's live
// experiment -- its settings checked, a run below the counting baselines, the
// sample, the typed prompt, the heads, a head switched off, its state as bytes,
// and a run whose text is missing.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "base/rng.h"
#include "data/text_corpus.h"
#include "experiments/experiment_test_util.h"
#include "experiments/experiments.h"
#include "train/char_lm.h"
#include "train/train_run.h"

namespace {

using attn::test::has_panel;

using attn::DemoInputs;
using attn::test::run_to_end;


std::string str(const attn::json::Value& v, const char* key) {
  const attn::json::Value* x = v.find(key);
  REQUIRE(x != nullptr);
  return x->as_string();
}

double run_status_loss(const attn::json::Value& status) {
  const attn::json::Value* runs = status.find("runs");
  REQUIRE(runs);
  REQUIRE(runs->size() == 1);
  return attn::test::number(runs->items()[0], "heldoutLoss");
}

// The code point of one character given as its UTF-8 bytes (valid UTF-8).
uint32_t code_point(const std::string& c) {
  uint32_t cp = static_cast<unsigned char>(c[0]);
  if (c.size() > 1) {
    cp &= 0xffu >> (c.size() + 1);
    for (size_t k = 1; k < c.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(c[k]) & 0x3fu);
  }
  return cp;
}


// The likeliest next character after `prompt` (it must be `expect`) and its
// probability, lm_next[0, 0], rounded to two places as the lesson quotes it.
float likeliest_after(attn::Experiment& ex, const std::string& prompt, const std::string& expect) {
  REQUIRE(ex.set_view_setting("prompt", prompt));
  const attn::json::Value st = ex.status();
  const attn::json::Value* next = st.find("promptNext");
  REQUIRE(next);
  CHECK(next->items()[0].items()[0].as_string() == expect);
  const float p = ex.view().mats.at("lm_next")(0, 0);
  std::string five;
  for (const attn::json::Value& e : next->items()) five += " " + e.items()[0].as_string() + " " + std::to_string(e.items()[1].as_number());
  MESSAGE(prompt << " ->" << five);
  return std::round(p * 100.0f) / 100.0f;
}

}  // namespace

TEST_CASE("train_lm: the typed prompt is checked length first, then UTF-8, then characters") {
  std::string why;
  CHECK(attn::check_lm_prompt("", &why));
  CHECK(attn::check_lm_prompt("We the People", &why));
  CHECK(attn::check_lm_prompt("床前明月光，疑是地上霜。举头望明月，低头思故乡。", &why));
  // 129 bytes: refused before anything reads it.
  CHECK_FALSE(attn::check_lm_prompt(std::string(129, 'a'), &why));
  CHECK(why.find("too long") != std::string::npos);
  CHECK_FALSE(attn::check_lm_prompt(std::string("ab\xff" "cd"), &why));
  CHECK(why.find("UTF-8") != std::string::npos);
  CHECK_FALSE(attn::check_lm_prompt(std::string(33, 'a'), &why));
  CHECK(why.find("33 characters") != std::string::npos);
  CHECK(attn::check_lm_prompt(std::string(32, 'a'), &why));
  // 33 Chinese characters are 99 bytes: under the byte limit, over the character one.
  std::string han;
  for (int i = 0; i < 33; ++i) han += "月";
  CHECK_FALSE(attn::check_lm_prompt(han, &why));
  CHECK_FALSE(attn::check_lm_prompt(std::string("a\x01" "b"), &why));
  CHECK(attn::check_lm_prompt("two\nlines", &why));
  // Through the registry, as a link or a lesson file would give it.
  CHECK(!attn::live_demos().run("train_lm", attn::test::settings({{"prompt", std::string(200, 'x')}})).error.empty());
  CHECK(!attn::live_demos().run("train_lm", attn::test::settings({{"ablate", "3.0"}})).error.empty());
  CHECK(!attn::live_demos().run("train_lm", attn::test::settings({{"temperature", "0"}})).error.empty());
  CHECK(!attn::live_demos().run("train_lm", attn::test::settings({{"corpus", "klingon"}})).error.empty());
  CHECK(attn::live_demos().run("train_lm", attn::test::settings({{"corpus", "chinese"}, {"prompt", "春眠不觉晓"}})).error.empty());
}

TEST_CASE("train_lm: without its text the run says why, trains nothing and finishes") {
  const char* old = std::getenv("LAB_CORPUS_DIR");
  const std::string kept = old ? old : "";
  setenv("LAB_CORPUS_DIR", "/nonexistent-attnlab-corpora", 1);
  auto ex = attn::make_experiment("train_lm", attn::test::settings({{"steps", "50"}}));
  REQUIRE(ex);
  CHECK(ex->advance(10.0) == 0);
  CHECK(ex->done());
  const attn::json::Value s = ex->status();
  CHECK(str(s, "error").find("is missing") != std::string::npos);
  CHECK(has_panel(ex->view(), "text-error"));
  if (old) setenv("LAB_CORPUS_DIR", kept.c_str(), 1);
  else unsetenv("LAB_CORPUS_DIR");
}

TEST_CASE("train_lm: a short run draws, samples, reads a prompt, switches a head off, and its state travels as bytes") {
  auto ex = attn::make_experiment("train_lm", attn::test::settings({{"steps", "50"}, {"prompt", "We the People"}, {"heads", "on"}}));
  REQUIRE(ex);
  run_to_end(*ex);
  const attn::json::Value s = ex->status();
  CHECK(attn::test::number(s, "steps") == 50);
  REQUIRE(!s.find("error"));
  // The baselines: the unigram is above the bigram mix, both finite.
  CHECK(attn::test::number(s, "unigramLoss") > attn::test::number(s, "bigramLoss"));
  CHECK(attn::test::number(s, "bigramLoss") > 1.0);
  const std::string sample = str(s, "sample");
  CHECK(attn::data::utf8_chars(sample).size() == 96);
  CHECK(attn::data::valid_utf8(sample));
  CHECK(attn::data::utf8_chars(str(s, "promptContinuation")).size() == 48);
  // The five likeliest next characters, most likely first, each a probability.
  const attn::json::Value* next = s.find("promptNext");
  REQUIRE(next);
  REQUIRE(next->size() == 5);
  double total = 0.0, before = 1.0;
  for (const auto& e : next->items()) {
    const double p = e.items()[1].as_number();
    CHECK(p <= before);
    CHECK(p > 0.0);
    before = p;
    total += p;
  }
  CHECK(total <= 1.0 + 1e-6);
  // Every head scored, and the held-out loss with each one off.
  REQUIRE(s.find("headOffLoss")->size() == 8);
  REQUIRE(s.find("inductionScore")->size() == 8);
  for (const auto& v : s.find("previousTokenScore")->items()) CHECK((v.as_number() >= 0.0 && v.as_number() <= 1.0));
  const attn::DemoOutputs out = ex->view();
  for (const char* id : {"lm-loss", "sample", "prompt-next", "lm-scores", "lm-head-off", "lm-head"}) {
    CAPTURE(id);
    CHECK(has_panel(out, id));
  }
  CHECK(out.mats.at("lm_head").rows() == 13);  // one row per character of the prompt

  // A head switched off changes what the model says, with no retraining.
  REQUIRE(ex->set_view_setting("ablate", "1.0"));
  const attn::json::Value off = ex->status();
  CHECK(str(off, "ablate") == "1.0");
  CHECK(attn::test::number(off, "ablatedLoss") == doctest::Approx(off.find("headOffLoss")->items()[0].as_number()));
  const bool moved = str(off, "sample") != sample ||
                     off.find("promptNext")->items()[0].items()[1].as_number() != next->items()[0].items()[1].as_number();
  CHECK(moved);
  REQUIRE(ex->set_view_setting("ablate", "none"));
  CHECK(str(ex->status(), "sample") == sample);

  // The page's copy reads the worker's bytes and shows the same.
  auto page = attn::make_experiment("train_lm", attn::test::settings({{"steps", "50"}, {"prompt", "We the People"}, {"heads", "on"}}));
  // Without "heads": on, the same run shows no head panels.
  CHECK_FALSE(has_panel(attn::make_experiment("train_lm", attn::test::settings({{"steps", "50"}}))->view(), "lm-scores"));
  attn::ByteWriter w;
  ex->write_state(w);
  const std::string bytes = w.take();
  {
    attn::ByteReader r(bytes);
    REQUIRE(page->read_state(r));
  }
  const attn::json::Value ps = page->status();
  CHECK(str(ps, "sample") == sample);
  CHECK(attn::test::number(ps, "bigramLoss") == attn::test::number(s, "bigramLoss"));
  CHECK(ps.find("headOffLoss")->items()[3].as_number() == s.find("headOffLoss")->items()[3].as_number());
  // Cut short or with a different model's shape, the bytes change nothing.
  auto fresh = attn::make_experiment("train_lm", attn::test::settings({{"steps", "50"}}));
  attn::ByteReader cut(std::string_view(bytes).substr(0, bytes.size() - 9));
  CHECK_FALSE(fresh->read_state(cut));
  CHECK(attn::test::number(fresh->status(), "steps") == 0);
  auto other = attn::make_experiment("train_lm", attn::test::settings({{"steps", "50"}, {"corpus", "chinese"}}));
  attn::ByteReader r2(bytes);
  CHECK_FALSE(other->read_state(r2));
}

TEST_CASE("train_lm: the poems train too, and a Chinese prompt is read character by character") {
  auto ex = attn::make_experiment("train_lm", attn::test::settings({{"steps", "20"}, {"corpus", "chinese"}, {"prompt", "春眠不觉晓，"}, {"heads", "on"}}));
  run_to_end(*ex);
  const attn::json::Value s = ex->status();
  REQUIRE(!s.find("error"));
  CHECK(str(s, "corpus") == "chinese");
  CHECK(attn::test::number(s, "unigramLoss") > attn::test::number(s, "bigramLoss"));
  CHECK(ex->view().mats.at("lm_head").rows() == 6);
  CHECK(attn::data::valid_utf8(str(s, "promptContinuation")));
}

TEST_CASE("train_lm: the lesson's run ends below the bigram baseline, and the curve says when it crossed") {
  // English, seed 1, the sampling step's 400 steps (test_char_lm measures 2.10
  // nats per character at 300 against the bigram mix's 2.29).
  auto ex = attn::make_experiment("train_lm", attn::test::settings({{"steps", "400"}}));
  run_to_end(*ex);
  const attn::json::Value s = ex->status();
  const double model = run_status_loss(s);
  MESSAGE("held-out " << model << " nats per character; unigram " << attn::test::number(s, "unigramLoss") << ", bigram "
                      << attn::test::number(s, "bigramLoss") << "; below the bigram from step " << attn::test::number(s, "belowBigramAt"));
  CHECK(model < attn::test::number(s, "bigramLoss"));
  CHECK(attn::test::number(s, "belowBigramAt") > 0);
  CHECK(attn::test::number(s, "belowBigramAt") <= 300);

  // The sampling step's exercise (lm_next[0, 0] > 0.8) and the numbers its hint
  // quotes: the likeliest next character's probability after three prompts.
  CHECK(likeliest_after(*ex, "Congress shal", "l") == doctest::Approx(0.93));  // the solution
  CHECK(likeliest_after(*ex, "Constitutio", "n") == doctest::Approx(0.83));
  CHECK(likeliest_after(*ex, "We the People", "r") == doctest::Approx(0.50));
  CHECK(ex->view().mats.at("lm_next")(0, 0) <= 0.8f);  // a prompt that does not meet the goal
}

TEST_CASE("train_lm: the poems' model at the sampling step's 400 steps is sure of a couplet's end, not of a character") {
  // A Chinese reader's sampling step trains on the poems (language_model.lesson,
  // corpus.zh): its exercise's solution (solution.zh, lm_next[0, 0] > 0.8) and
  // the numbers its hint quotes. Inside a line the likeliest is often the
  // unknown token, shown as a box.
  auto ex = attn::make_experiment("train_lm", attn::test::settings({{"corpus", "chinese"}, {"steps", "400"}}));
  run_to_end(*ex);
  CHECK(likeliest_after(*ex, "床前明月光，疑是地上霜。", "\n") == doctest::Approx(1.00));  // the solution
  CHECK(ex->view().mats.at("lm_next")(0, 0) > 0.99f);  // 0.996
  CHECK(likeliest_after(*ex, "床前明月光", "。") == doctest::Approx(0.20));
  CHECK(ex->view().mats.at("lm_next")(0, 0) <= 0.8f);
  {  // a mark is due, but which one it cannot tell: "，" third, at 0.19
    const attn::json::Value st = ex->status();
    const attn::json::Value& third = st.find("promptNext")->items()[2];
    CHECK(third.items()[0].as_string() == "，");
    CHECK(third.items()[1].as_number() == doctest::Approx(0.19).epsilon(0.03));
  }
  // The hint says so: the model reads 床 as the unknown token (the note counts it).
  attn::train::RunDesc poems;
  poems.kind = attn::train::RunKind::lm_chinese;
  const attn::train::TrainRun run(poems);
  const attn::data::Vocab& vocab = run.char_corpus().vocab;
  CHECK(vocab.id("床") == vocab.unknown);
  CHECK(vocab.id("霜") != vocab.unknown);
  CHECK(likeliest_after(*ex, "白日依山尽，黄河入海", "□") == doctest::Approx(0.23));
  CHECK(ex->view().mats.at("lm_next")(0, 0) <= 0.8f);
}

// What the language-model lesson quotes, checked (not run by default: about 30 s on two cores, seeds 2 and 3 included):
//   test_experiments --no-skip -tc="measure: train_lm*"
// The Chinese reader trains on the poems from the first step (corpus.zh), so
// "chinese" is also their baselines step, and "chinese-400" their sampling and
// heads steps.
TEST_CASE("measure: train_lm over the lesson's 1000 steps, both texts" * doctest::skip()) {
  // What a head that spreads its weight evenly over the positions it may see
  // would score, as the lesson quotes it for both texts: previous character
  // 0.10 (query i of a 32-character window, i = 1..31, puts 1/(i+1) on i - 1),
  // induction 0.04 (queries 16..30 of a 16-character piece repeated).
  double even_prev = 0.0, even_ind = 0.0;
  for (int i = 1; i < 32; ++i) even_prev += 1.0 / (i + 1) / 31.0;
  for (int i = 16; i < 31; ++i) even_ind += 1.0 / (i + 1) / 15.0;
  CHECK(even_prev == doctest::Approx(0.10).epsilon(0.02));
  CHECK(even_ind == doctest::Approx(0.04).epsilon(0.1));
  for (const std::string text : {"english", "chinese", "english-400", "chinese-400"}) {
    const bool zh = text.rfind("chinese", 0) == 0;
    const bool short_run = text.find("-400") != std::string::npos;
    auto ex = attn::make_experiment(
        "train_lm", attn::test::settings({{"corpus", zh ? "chinese" : "english"}, {"steps", short_run ? "400" : "1000"},
                                 {"prompt", zh ? "床前明月光，疑是地上霜。" : "the United States of America"}}));
    // The sample as the page shows it after the first evaluation (step 50).
    std::string sample_at_50;
    for (int i = 0; i < 100000 && !ex->done(); ++i) {
      ex->step_once();
      if (ex->progress() == 50) sample_at_50 = str(ex->status(), "sample");
    }
    REQUIRE(ex->done());
    const attn::json::Value s = ex->status();
    MESSAGE(text << ": held-out " << run_status_loss(s) << ", unigram " << attn::test::number(s, "unigramLoss") << ", bigram "
                 << attn::test::number(s, "bigramLoss") << " (lambda " << attn::test::number(s, "bigramLambda") << "), below the bigram from step "
                 << attn::test::number(s, "belowBigramAt") << ", vocab " << attn::test::number(s, "vocab") << ", parameters " << attn::test::number(s, "parameters"));
    MESSAGE("sample: " << str(s, "sample"));
    MESSAGE("prompt continued: " << str(s, "promptContinuation"));
    std::string heads;
    for (size_t k = 0; k < 8; ++k) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "%zu.%zu prev %.3f ind %.3f brk %.3f off %.3f; ", k / 4 + 1, k % 4,
                    s.find("previousTokenScore")->items()[k].as_number(), s.find("inductionScore")->items()[k].as_number(),
                    s.find("breakScore")->items()[k].as_number(),
                    s.find("headOffLoss")->items()[k].as_number() - attn::test::number(s, "allHeadsLoss"));
      heads += buf;
    }
    MESSAGE("all heads " << attn::test::number(s, "allHeadsLoss") << "; " << heads);
    // What the lesson quotes (seed 1).
    auto score = [&](const char* key, size_t k) { return s.find(key)->items()[k].as_number(); };
    auto rise = [&](size_t k) { return score("headOffLoss", k) - attn::test::number(s, "allHeadsLoss"); };
    double induction_max = 0.0;
    for (size_t k = 0; k < 8; ++k) induction_max = std::max(induction_max, score("inductionScore", k));
    MESSAGE("sample at step 50: " << sample_at_50);
    if (text == "english") {  // baselines: 3.04, 2.29; below from step 200; 1.69 at 1000; induction below 0.02
      CHECK(attn::test::number(s, "vocab") == 74);  // ln 74 = 4.30
      CHECK(attn::test::number(s, "parameters") == 111178);
      // "about six times the translator's" (its 17,341, checked below with the poems)
      CHECK(attn::test::number(s, "parameters") / 17341.0 == doctest::Approx(6.4).epsilon(0.01));
      CHECK(attn::test::number(s, "unigramLoss") == doctest::Approx(3.04).epsilon(0.002));
      CHECK(attn::test::number(s, "bigramLoss") == doctest::Approx(2.29).epsilon(0.002));
      CHECK(attn::test::number(s, "belowBigramAt") == 200);
      CHECK(run_status_loss(s) == doctest::Approx(1.69).epsilon(0.003));
      CHECK(attn::test::number(s, "bigramLoss") - run_status_loss(s) == doctest::Approx(0.60).epsilon(0.01));  // the poems step (zh)
      CHECK(induction_max < 0.02);
      // The words the baselines step's after-text finds in the last sample.
      const std::string last = str(s, "sample");
      for (const char* word : {"the", "shall", "Laws"}) CHECK_MESSAGE(last.find(word) != std::string::npos, word);
    } else if (text == "chinese") {  // 4.50, 4.21, below from 150, 4.03; break scores 1.1 0.45, 2.0 0.37
      CHECK(attn::test::number(s, "vocab") == 501);  // ln 501 = 6.22
      CHECK(attn::test::number(s, "parameters") == 166261);
      // "nearly ten times the translator's" (the English model's 111,178: "about six times")
      attn::train::RunDesc translator;
      translator.kind = attn::train::RunKind::translation_additive;
      CHECK(attn::train::TrainRun(translator).parameter_count() == 17341);
      CHECK(attn::test::number(s, "unigramLoss") == doctest::Approx(4.50).epsilon(0.002));
      CHECK(attn::test::number(s, "bigramLoss") == doctest::Approx(4.21).epsilon(0.002));
      CHECK(attn::test::number(s, "belowBigramAt") == 150);
      // 4.0257 since issue 36's batched step (4.0242 before, which the lesson quoted as 4.02)
      CHECK(run_status_loss(s) == doctest::Approx(4.03).epsilon(0.0012));
      CHECK(std::exp(run_status_loss(s)) == doctest::Approx(56).epsilon(0.01));      // "about 56 characters"
      CHECK(attn::test::number(s, "bigramLoss") - run_status_loss(s) == doctest::Approx(0.18).epsilon(0.03));
      CHECK(score("breakScore", 1) == doctest::Approx(0.45).epsilon(0.012));
      CHECK(score("breakScore", 4) == doctest::Approx(0.37).epsilon(0.015));
      CHECK(induction_max < 0.08);
      // The samples the Chinese reader's first step describes: loose characters and
      // runs of marks at first, then pairs the poems use.
      CHECK(sample_at_50.find("，，。") != std::string::npos);
      const std::string last = str(s, "sample");
      for (const char* pair : {"万里", "春风", "不见"}) CHECK_MESSAGE(last.find(pair) != std::string::npos, pair);
    } else if (text == "chinese-400") {
      // The Chinese reader's heads step: induction below 0.09 (twice an even
      // spread's 0.04); previous character 1.1 0.19, 1.2 0.15, the highest; layer 1
      // off 0.05-0.12 (1.1 0.117, the costliest, above the exercise's 0.11; 1.0
      // 0.105 below it), layer 2 under 0.04; the model 0.18 below the bigram.
      CHECK(induction_max < 0.09);
      CHECK(induction_max > 0.075);
      CHECK(score("previousTokenScore", 1) == doctest::Approx(0.19).epsilon(0.02));
      CHECK(score("previousTokenScore", 2) == doctest::Approx(0.15).epsilon(0.03));
      for (size_t k : {0u, 3u, 4u, 5u, 6u, 7u}) CHECK(score("previousTokenScore", k) < score("previousTokenScore", 2));
      for (size_t k = 0; k < 4; ++k) CHECK((rise(k) > 0.045 && rise(k) < 0.125));
      CHECK(rise(1) == doctest::Approx(0.117).epsilon(0.01));
      CHECK(rise(1) > 0.11);
      CHECK(rise(0) == doctest::Approx(0.105).epsilon(0.01));
      CHECK(rise(0) < 0.11);
      for (size_t k = 4; k < 8; ++k) CHECK(rise(k) < 0.04);
      CHECK(attn::test::number(s, "bigramLoss") - run_status_loss(s) == doctest::Approx(0.18).epsilon(0.03));
      // The line-break scores, far above the others: 2.0 0.53, 1.1 0.49, 1.3 0.45
      // (at 1000 steps 1.1 0.45 and 2.0 0.37, which the poems step quotes beside them).
      CHECK(score("breakScore", 4) == doctest::Approx(0.53).epsilon(0.01));
      CHECK(score("breakScore", 1) == doctest::Approx(0.49).epsilon(0.01));
      CHECK(score("breakScore", 3) == doctest::Approx(0.45).epsilon(0.01));
      for (size_t k : {0u, 2u, 5u, 6u, 7u}) CHECK(score("breakScore", k) < 0.3);
    } else {  // 400 steps: induction below 0.07; previous 1.3 0.37, 1.1 0.32; layer 1 off 0.15-0.40, layer 2 under 0.02
      CHECK(induction_max < 0.07);
      CHECK(score("previousTokenScore", 3) == doctest::Approx(0.37).epsilon(0.015));
      CHECK(score("previousTokenScore", 1) == doctest::Approx(0.32).epsilon(0.016));
      // The costliest-head hint: head 1.2's previous-character score is low (0.135).
      MESSAGE("1.2 previous-character score " << score("previousTokenScore", 2));
      CHECK(std::abs(score("previousTokenScore", 2) - 0.135) < 0.0005);
      for (size_t k = 0; k < 4; ++k) CHECK((rise(k) > 0.145 && rise(k) < 0.405));
      CHECK(rise(2) == doctest::Approx(0.40).epsilon(0.0125));
      for (size_t k = 4; k < 8; ++k) CHECK(rise(k) < 0.02);
      // The induction-formed after-text: with seeds 2 and 3 (the same 400 steps)
      // no head reaches 0.07 either.
      for (const char* seed : {"2", "3"}) {
        auto other = attn::make_experiment("train_lm", attn::test::settings({{"steps", "400"}, {"seed", seed}}));
        run_to_end(*other);
        const attn::json::Value os = other->status();
        double most = 0.0;
        for (const attn::json::Value& v : os.find("inductionScore")->items()) most = std::max(most, v.as_number());
        MESSAGE("english-400, seed " << std::string(seed) << ": highest induction score " << most);
        CHECK(most < 0.07);
      }
    }
    for (const char* t : {"0.5", "1.5"}) {
      ex->set_view_setting("temperature", t);
      const std::string sample = str(ex->status(), "sample");
      MESSAGE("temperature " << std::string(t) << ": " << sample);
      // The start of each sample, as the sampling step's after-text quotes it (the
      // English one at 0.5 after a line break).
      if (text == "english-400")
        CHECK(sample.rfind(std::string(t) == "0.5" ? "\nThe States whe to Con whaver tof the tof for the the Law the off States"
                                                   : "he, hig rftiveh stsravode sujiccowespde.",
                           0) == 0);
      if (text == "chinese-400" && std::string(t) == "0.5") CHECK(sample.find("\n\n\n\n") != std::string::npos);
      if (text == "chinese-400")
        CHECK(sample.rfind(std::string(t) == "0.5" ? "君山连，云花见，云江云。"
                                                   : "连空且，回龙春昏庭登幽。\n莫谢树云遥木斗，鸟吹持前日雨看小至不先不楚今门口洲度只尽地识楼时看。",
                           0) == 0);
    }
    ex->set_view_setting("temperature", "0.8");
  }
}

// What the Chinese reader's steps say of the poems themselves, and of samples
// drawn as the page draws them (the unknown token never; 3,000 characters from
// a line break, seed 7), checked (not run by default: about 10 s):
//   test_experiments --no-skip -tc="measure: train_lm*"
TEST_CASE("measure: train_lm on the poems: passes in 1000 steps, repeats within the window and pairs the samples share with the poems" * doctest::skip()) {
  using namespace attn::train;
  RunDesc d;
  d.kind = RunKind::lm_chinese;
  TrainRun run(d);
  REQUIRE_MESSAGE(run.error().empty(), run.error());
  const attn::data::CharCorpus& c = run.char_corpus();
  // 1000 steps of 8 windows of 32 characters: about eleven passes over the
  // training poems (the English text's 48,046 take about five).
  const double passes = 1000.0 * 8 * 32 / double(c.train.size());
  MESSAGE("training characters " << c.train.size() << ": " << passes << " passes in 1000 steps; " << c.train_unknown
                                 << " unknown");
  CHECK(passes == doctest::Approx(11.4).epsilon(0.01));
  CHECK(double(c.train.size()) == doctest::Approx(22000).epsilon(0.025));  // "about 22,000 characters to train on"
  {  // The English text, as the baselines step's quiz gives it: 50 KB, about five passes in 1000 steps.
    RunDesc e;
    e.kind = RunKind::lm_english;
    const TrainRun english(e);
    REQUIRE_MESSAGE(english.error().empty(), english.error());
    const attn::data::CharCorpus& ec = english.char_corpus();
    const double english_passes = 1000.0 * 8 * 32 / double(ec.train.size());
    size_t bytes = 0;
    for (const std::vector<int>* ids : {&ec.train, &ec.heldout})
      for (int id : *ids) bytes += ec.vocab.words[size_t(id)].size();
    MESSAGE("English: " << ec.train.size() << " training characters (" << english_passes << " passes in 1000 steps), "
                        << bytes << " bytes in all");
    CHECK(english_passes == doctest::Approx(5.0).epsilon(0.1));
    CHECK(double(bytes) / 1000.0 == doctest::Approx(50).epsilon(0.1));
  }
  CHECK(double(c.train_unknown) / double(c.train.size()) == doctest::Approx(0.22).epsilon(0.02));  // "a fifth"
  // "More common than any one character": the unknown token is the training
  // text's commonest (so the one the model predicts most often).
  std::map<int, long> counts;
  for (int id : c.train) ++counts[id];
  for (const auto& [id, n] : counts)
    if (id != c.vocab.unknown) CHECK(n < long(c.train_unknown));
  // "About 2,500 different characters", of which the model keeps 500.
  std::string raw, why;
  REQUIRE_MESSAGE(attn::data::read_corpus(attn::data::TextCorpusKind::tang_poems, attn::data::default_corpus_dir(), &raw, &why), why);
  std::set<uint32_t> han;
  for (const std::string& ch : attn::data::utf8_chars(attn::data::strip_ansi(raw)))
    if (const uint32_t cp = code_point(ch); cp >= 0x4e00 && cp <= 0x9fff) han.insert(cp);
  MESSAGE(han.size() << " different characters in the poems' file");
  CHECK((han.size() > 2400 && han.size() < 2600));
  // Copying, as an induction head would: at each held-out position whose
  // character came before within the window, the character after its latest
  // copy, against the character that really follows.
  const auto copying = [](const std::vector<int>& h, long* positions, long* repeated, long* right) {
    *positions = *repeated = *right = 0;
    for (size_t i = 1; i + 1 < h.size(); ++i) {
      ++*positions;
      for (size_t j = i; j-- > 0 && i - j < 32;)
        if (h[j] == h[i]) {
          ++*repeated;
          *right += h[j + 1] == h[i + 1];
          break;
        }
    }
  };
  long positions = 0, repeated = 0, right = 0;
  copying(c.heldout, &positions, &repeated, &right);
  MESSAGE(repeated << " of " << positions << " held-out positions repeat a character of the window; copying is right at " << right);
  CHECK(double(repeated) / double(positions) == doctest::Approx(0.48).epsilon(0.02));  // "nearly half"
  CHECK(double(right) / double(repeated) == doctest::Approx(0.20).epsilon(0.03));      // "about one in five"
  {  // The same for the English text's held-out part, as induction-formed's English explanation quotes it.
    RunDesc e;
    e.kind = RunKind::lm_english;
    const TrainRun english(e);
    copying(english.char_corpus().heldout, &positions, &repeated, &right);
    MESSAGE("English: " << repeated << " of " << positions << " held-out positions repeat a character of the window; copying is right at "
                        << right);
    CHECK(double(repeated) / double(positions) == doctest::Approx(0.76).epsilon(0.02));  // "about three positions in four"
    CHECK(double(right) / double(repeated) == doctest::Approx(0.13).epsilon(0.05));      // "about 1 time in 8 (13%)"
  }
  // Pairs of characters next to each other in a sample (no mark or line break
  // between them) that also stand next to each other somewhere in the training
  // poems, at the sampling step's 400 steps.
  std::set<std::pair<int, int>> seen;
  for (size_t i = 0; i + 1 < c.train.size(); ++i) seen.insert({c.train[i], c.train[i + 1]});
  auto is_han = [&](int id) {
    const std::string& w = c.vocab.words[size_t(id)];
    const uint32_t cp = w.size() == 3 ? code_point(w) : 0;
    return cp >= 0x4e00 && cp <= 0x9fff;
  };
  run.run_for(1e9, 400);
  for (const float t : {0.5f, 1.5f}) {
    SampleDesc how;
    how.temperature = t;
    how.banned = c.vocab.unknown;
    attn::Rng rng(7);
    const std::vector<int> text = sample_text(*run.char_lm(), {c.vocab.id("\n")}, 3000, how, rng);
    long pairs = 0, known = 0;
    for (size_t i = 0; i + 1 < text.size(); ++i)
      if (is_han(text[i]) && is_han(text[i + 1])) {
        ++pairs;
        known += seen.count({text[i], text[i + 1]}) > 0;
      }
    const double share = double(known) / double(pairs);
    MESSAGE("temperature " << t << ": " << known << " of " << pairs << " pairs are the poems' (" << share << ")");
    CHECK(share == doctest::Approx(t < 1.0f ? 0.23 : 0.06).epsilon(0.07));
  }
}

TEST_CASE("train_lm: the page's font holds every character of the poem model's vocabulary") {
  // src/app/CMakeLists.txt adds the 700 commonest characters of the raw poems
  // (ANSI codes removed, ties by code point) to the CJK font subset; the model
  // keeps the 500 commonest of its training split. Every one of those must be
  // among the 700, or a sample would need a glyph the page does not have.
  std::string raw, why;
  REQUIRE_MESSAGE(attn::data::read_corpus(attn::data::TextCorpusKind::tang_poems, attn::data::default_corpus_dir(), &raw, &why), why);
  std::map<uint32_t, int> counts;
  for (const std::string& c : attn::data::utf8_chars(attn::data::strip_ansi(raw)))
    if (const uint32_t cp = code_point(c); cp >= 0x3000) counts[cp]++;
  std::vector<std::pair<int, uint32_t>> order;
  for (const auto& [cp, n] : counts) order.push_back({-n, cp});
  std::sort(order.begin(), order.end());
  std::set<uint32_t> font;
  std::map<uint32_t, size_t> rank;
  for (size_t k = 0; k < order.size(); ++k) rank[order[k].second] = k;
  for (size_t k = 0; k < order.size() && k < 700; ++k) font.insert(order[k].second);
  attn::train::RunDesc d;
  d.kind = attn::train::RunKind::lm_chinese;
  attn::train::TrainRun run(d);
  REQUIRE(run.error().empty());
  std::string missing;
  size_t deepest = 0;  // the rank of the rarest vocabulary character in the whole file
  for (const std::string& w : run.char_corpus().vocab.words) {
    const std::vector<std::string> cs = attn::data::utf8_chars(w);
    if (cs.size() != 1 || cs[0].size() < 3) continue;  // <unk>, ASCII and Latin marks
    const uint32_t cp = code_point(w);
    if (cp >= 0x3000 && !font.count(cp)) missing += w;
    if (cp >= 0x3000) deepest = std::max(deepest, rank[cp] + 1);
  }
  MESSAGE("the rarest of the model's characters is number " << deepest << " of the whole file's");
  CHECK_MESSAGE(missing.empty(), "in the model's vocabulary but not among the font's 700: " << missing);
}

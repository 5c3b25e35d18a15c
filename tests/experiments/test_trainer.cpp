// test_trainer.cpp: the training worker's protocol (lab/trainer.h) run
// in-process: the page's client and the worker joined by a function call, as a
// Web Worker or a thread joins them in the page and the desktop. Same seed, same
// bits; interventions answer at once; stale and hostile messages change nothing.
#include <doctest/doctest.h>

#include <cstdio>
#include <deque>
#include <string>

#include "base/bytes.h"
#include "data/text_corpus.h"
#include "experiments/experiments.h"
#include "experiments/trainer.h"

namespace {

using attn::DemoInputs;
using attn::TrainerClient;
using attn::TrainerMessage;
using attn::TrainerOp;
using attn::TrainerWorker;

DemoInputs settings(std::initializer_list<std::pair<const std::string, std::string>> s) {
  DemoInputs in;
  in.settings = s;
  return in;
}

// A page and a worker in one process: what the page sends waits in `to_worker`
// until pump() hands it over, as it would cross postMessage.
struct Pair {
  std::deque<std::string> to_worker;
  TrainerWorker worker;
  TrainerClient client{[this](std::string m) { to_worker.push_back(std::move(m)); }};
  double now = 0.0;
  std::vector<std::string> changed;  // keys whose page copy took a snapshot

  // Delivers the page's messages, lets the worker work one slice, delivers its
  // messages. Returns false once the worker has nothing to do.
  bool pump() {
    while (!to_worker.empty()) {
      worker.receive(to_worker.front());
      to_worker.pop_front();
    }
    now += 100.0;  // every slice is long enough for a snapshot
    const double wait = worker.tick(now, 1e9);
    for (const std::string& m : worker.take_outbox())
      if (const std::string key = client.receive(m); !key.empty()) changed.push_back(key);
    return wait >= 0.0;
  }
};

std::vector<float> parameter_bits(const attn::Experiment& ex) {
  attn::ByteWriter w;
  ex.write_state(w);
  std::vector<float> v(w.bytes().size() / 4);
  return v;  // the state as a whole is compared below; this keeps the helper honest about size
}

std::string state_of(const attn::Experiment& ex) {
  attn::ByteWriter w;
  ex.write_state(w);
  return w.take();
}

double status_number(const attn::Experiment& ex, const char* run_key, size_t run) {
  const attn::json::Value s = ex.status();
  const attn::json::Value* runs = s.find("runs");
  REQUIRE(runs != nullptr);
  REQUIRE(runs->size() > run);
  const attn::json::Value* v = runs->items()[run].find(run_key);
  REQUIRE(v != nullptr);
  return v->as_number();
}

}  // namespace

TEST_CASE("trainer messages: every kind round-trips, and the decoder refuses what is malformed") {
  TrainerMessage open;
  open.op = TrainerOp::open;
  open.key = "seq2seq/train";
  open.generation = 7;
  open.demo = "train_translation";
  open.inputs = settings({{"seed", "3"}, {"attention", "dot"}});
  open.inputs.mats["row"] = attn::Mat::Constant(1, 16, 0.25f);
  open.inputs.tokens = {"a", "b"};
  TrainerMessage back;
  std::string why;
  REQUIRE(attn::decode_trainer_message(attn::encode_trainer_message(open), &back, &why));
  CHECK(back.op == TrainerOp::open);
  CHECK(back.key == open.key);
  CHECK(back.generation == 7);
  CHECK(back.inputs.settings == open.inputs.settings);
  CHECK(back.inputs.mats.at("row") == open.inputs.mats.at("row"));
  CHECK(back.inputs.tokens == open.inputs.tokens);

  TrainerMessage snap;
  snap.op = TrainerOp::snapshot;
  snap.key = "k";
  snap.generation = 2;
  snap.running = true;
  snap.state = std::string("\0\1\2", 3);
  REQUIRE(attn::decode_trainer_message(attn::encode_trainer_message(snap), &back, &why));
  CHECK(back.running);
  CHECK(!back.done);
  CHECK(back.state == snap.state);

  const std::string good = attn::encode_trainer_message(snap);
  // Cut short anywhere, one byte too many, another tag, an unknown kind.
  for (size_t n = 0; n < good.size(); ++n) CHECK(!attn::decode_trainer_message(good.substr(0, n), &back, &why));
  CHECK(!attn::decode_trainer_message(good + "x", &back, &why));
  std::string other = good;
  other[0] ^= 1;
  CHECK(!attn::decode_trainer_message(other, &back, &why));
  std::string kind = good;
  kind[4] = char(99);
  CHECK(!attn::decode_trainer_message(kind, &back, &why));
  CHECK(why.find("unknown") != std::string::npos);
  // A length that claims more than the message holds is refused before any allocation.
  attn::ByteWriter w;
  w.u32(0x314e5254);
  w.u8(uint8_t(TrainerOp::snapshot));
  w.u32(0xffffffffu);
  CHECK(!attn::decode_trainer_message(w.bytes(), &back, &why));
  // A speed that does not exist.
  TrainerMessage run;
  run.op = TrainerOp::run;
  run.key = "k";
  run.value = "warp";
  CHECK(!attn::decode_trainer_message(attn::encode_trainer_message(run), &back, &why));
}

TEST_CASE("trained in the worker, through the protocol: the same losses, curves and weights as trained directly") {
  for (const char* demo : {"train_translation", "train_hard_attention", "train_word_order"}) {
    CAPTURE(demo);
    const DemoInputs in = settings({{"steps", "40"}});
    // Directly, as the page trained before it had a worker.
    auto direct = attn::make_experiment(demo, in);
    direct->prepare();
    while (!direct->done()) direct->advance(50.0);

    Pair p;
    attn::Experiment* copy = p.client.open("lesson/step", demo, in);
    REQUIRE(copy != nullptr);
    p.client.run("lesson/step", "fast");
    for (int i = 0; i < 100000 && p.pump(); ++i) {}
    p.pump();  // the last snapshot
    CHECK(copy->done());
    CHECK(!p.client.running("lesson/step"));
    CHECK(p.client.rejected() == 0);
    // The page's copy never trained, yet holds exactly what the worker reached.
    const attn::Experiment* trained = p.worker.experiment("lesson/step");
    REQUIRE(trained != nullptr);
    CHECK(state_of(*copy) == state_of(*trained));
    for (size_t run = 0; run < 2 && std::string(demo) != "train_hard_attention"; ++run) {
      if (std::string(demo) == "train_translation" && run > 0) break;
      CHECK(status_number(*copy, "loss", run) == status_number(*direct, "loss", run));
      CHECK(status_number(*copy, "heldoutLoss", run) == status_number(*direct, "heldoutLoss", run));
      CHECK(status_number(*copy, "accuracy", run) == status_number(*direct, "accuracy", run));
    }
    // The weights too: the direct run's state differs from the worker's only in
    // the times it measured, so compare what the models compute.
    const attn::DemoOutputs a = copy->view(), b = direct->view();
    for (const auto& entry : b.mats) {
      const std::string& name = entry.first;
      if (name == "ms_per_step") continue;
      CAPTURE(name);
      REQUIRE(a.mats.count(name));
      CHECK(a.mats.at(name) == entry.second);
    }
    CHECK(!parameter_bits(*copy).empty());
  }
}

TEST_CASE("slow speed: one step at a time, a snapshot after each, a pause between") {
  Pair p;
  attn::Experiment* copy = p.client.open("k", "train_translation", settings({{"steps", "20"}}));
  p.client.run("k", "slow");
  p.pump();  // the untrained models are tested first, then one step
  while (!p.to_worker.empty()) p.pump();
  const double wait = p.worker.tick(p.now += 1, 1e9);
  CHECK(wait == attn::kSlowPauseMs);
  for (const std::string& m : p.worker.take_outbox()) p.client.receive(m);
  CHECK(copy->progress() == 2);
}

TEST_CASE("the page's copy answers an intervention at once, and a stale snapshot never undoes it") {
  Pair p;
  const DemoInputs in = settings({{"steps", "60"}});
  attn::Experiment* copy = p.client.open("ind", "train_induction", in);
  p.client.run("ind", "fast");
  for (int i = 0; i < 100000 && p.pump(); ++i) {}
  p.pump();
  REQUIRE(copy->done());
  const double before = status_number(*copy, "heldoutLoss", 0);
  // Switch a head off: the page's own copy measures it now, before any message.
  REQUIRE(p.client.set_view_setting("ind", "ablate", "2.0"));
  const attn::json::Value s = copy->status();
  REQUIRE(s.find("ablatedRepeatedHalfLoss") != nullptr);
  CHECK(s.find("ablatedRepeatedHalfLoss")->as_number() != before);
  // A snapshot the worker sent before it heard of the change is ignored.
  const std::string key = p.client.receive([&] {
    TrainerMessage old;
    old.op = TrainerOp::snapshot;
    old.key = "ind";
    old.generation = 1;
    old.state = state_of(*p.worker.experiment("ind"));
    return attn::encode_trainer_message(old);
  }());
  CHECK(key.empty());
  // The worker hears of it too, and its next snapshot is current again.
  p.pump();
  CHECK(p.client.rejected() == 0);
}

TEST_CASE("hostile snapshots are refused and change nothing") {
  Pair p;
  attn::Experiment* copy = p.client.open("k", "train_translation", settings({{"steps", "10"}}));
  p.client.run("k", "fast");
  for (int i = 0; i < 1000 && p.pump(); ++i) {}
  p.pump();
  const std::string good = state_of(*copy);
  auto send_state = [&](const std::string& state) {
    TrainerMessage m;
    m.op = TrainerOp::snapshot;
    m.key = "k";
    m.generation = 2;  // open, then run
    m.state = state;
    return p.client.receive(attn::encode_trainer_message(m));
  };
  const long rejected = p.client.rejected();
  CHECK(send_state("").empty());                          // nothing
  CHECK(send_state(good.substr(0, good.size() / 2)).empty());  // cut in half
  CHECK(send_state(good + "trailing").empty());            // too long
  std::string wrong_tag = good;
  wrong_tag[0] ^= 0x55;
  CHECK(send_state(wrong_tag).empty());
  CHECK(p.client.rejected() == rejected + 4);
  CHECK(state_of(*copy) == good);  // unchanged by any of them
  // Random bytes and a snapshot for a step the page never opened.
  CHECK(p.client.receive(std::string("\x01\x02\x03garbage", 10)).empty());
  TrainerMessage stranger;
  stranger.op = TrainerOp::snapshot;
  stranger.key = "not/open";
  stranger.state = good;
  CHECK(p.client.receive(attn::encode_trainer_message(stranger)).empty());
  CHECK(state_of(*copy) == good);
  // The same bytes, well formed, are taken.
  CHECK(send_state(good) == "k");
}

TEST_CASE("the worker answers a bad message, a ping, and a step that is not open") {
  TrainerWorker w;
  w.receive("nonsense");
  TrainerMessage ping;
  ping.op = TrainerOp::ping;
  w.receive(attn::encode_trainer_message(ping));
  TrainerMessage step;
  step.op = TrainerOp::step;
  step.key = "never/opened";
  w.receive(attn::encode_trainer_message(step));
  TrainerClient c([](std::string) {});
  for (const std::string& m : w.take_outbox()) c.receive(m);
  CHECK(c.pongs() == 1);
  const std::vector<std::string> failures = c.take_failures();
  REQUIRE(failures.size() == 2);
  CHECK(failures[0].find("bad message") != std::string::npos);
  CHECK(failures[1].find("never/opened") != std::string::npos);
  CHECK(w.tick(0.0) < 0.0);  // nothing runs
}

TEST_CASE("a new worker after a failure: every experiment starts again from its inputs") {
  std::deque<std::string> sent;
  TrainerClient c([&](std::string m) { sent.push_back(std::move(m)); });
  c.open("a", "train_translation", settings({{"steps", "10"}}));
  c.set_view_setting("a", "example", "3");
  c.open("b", "timing", DemoInputs{});
  sent.clear();
  c.reopen_all();
  REQUIRE(sent.size() == 2);
  TrainerWorker w;
  for (const std::string& m : sent) w.receive(m);
  REQUIRE(w.experiment("a") != nullptr);
  REQUIRE(w.experiment("b") != nullptr);
  TrainerMessage first;
  std::string why;
  REQUIRE(attn::decode_trainer_message(sent.front(), &first, &why));
  CHECK(first.inputs.settings.at("example") == "3");  // the view it had is kept
}

// The same seed gives the same bits everywhere: these runs, trained through the
// protocol, must end at the numbers in tests/experiments/golden_training.json, which the
// browser test (tests/browser/worker.test.mjs) checks against the page's Web
// Worker too, and which this test checks natively and, built to WebAssembly,
// under node. The numbers are printed with nine significant digits, which
// round-trip a float exactly.
TEST_CASE("golden: the translator and the induction model end at the same losses through the protocol, in every build") {
  const attn::json::ParseResult golden = [] {
    std::string text;
    if (FILE* f = std::fopen("tests/experiments/golden_training.json", "rb")) {
      char buf[4096];
      for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
      std::fclose(f);
    }
    return attn::json::parse(text);
  }();
  REQUIRE_MESSAGE(golden.ok, "tests/experiments/golden_training.json (run from the source folder)");
  for (const attn::json::Value& g : golden.value.find("runs")->items()) {
    const std::string demo = g.find("demo")->as_string(), steps = std::to_string(int(g.find("steps")->as_number()));
    CAPTURE(demo);
    Pair p;
    attn::Experiment* copy = p.client.open("golden", demo, settings({{"steps", steps}}));
    p.client.run("golden", "normal");
    for (int i = 0; i < 1000000 && p.pump(); ++i) {}
    p.pump();
    REQUIRE(copy->done());
    char loss[32], heldout[32];
    std::snprintf(loss, sizeof loss, "%.9g", status_number(*copy, "loss", 0));
    std::snprintf(heldout, sizeof heldout, "%.9g", status_number(*copy, "heldoutLoss", 0));
    MESSAGE(demo << " after " << steps << " steps: loss " << loss << ", held-out loss " << heldout);
    CHECK(std::string(loss) == g.find("loss")->as_string());
    CHECK(std::string(heldout) == g.find("heldoutLoss")->as_string());
  }
}

TEST_CASE("a fetched text reaches the worker before the step that reads it, and a new worker gets it again") {
  // The page fetches train_lm's text when the step opens and hands it over; the
  // worker's copy then builds its model from it. Here the text is a tiny
  // stand-in, so the model's vocabulary shows which text it read. (The store is
  // the process's: this binary's other tests use no language model.)
  TrainerMessage m;
  m.op = TrainerOp::text;
  m.name = "founding_documents";
  m.value = "We the People of the United States, in Order to form a more perfect Union.";
  std::string why;
  TrainerMessage back;
  REQUIRE(attn::decode_trainer_message(attn::encode_trainer_message(m), &back, &why));
  CHECK(back.name == m.name);
  CHECK(back.value == m.value);
  // An unknown corpus name is refused by the decoder.
  m.name = "klingon_opera";
  CHECK_FALSE(attn::decode_trainer_message(attn::encode_trainer_message(m), &back, &why));

  Pair p;
  std::string text;  // twenty short paragraphs: every tenth is held out
  for (int i = 0; i < 20; ++i) text += std::string(i ? "\n\n" : "") + "We the People of the United States, in Order to form a more perfect Union.";
  // As the app does: the page's own core first, then the worker.
  REQUIRE(attn::data::provide_corpus(attn::data::TextCorpusKind::founding_documents, text));
  p.client.provide_text("founding_documents", text);
  attn::Experiment* page = p.client.open("lm", "train_lm", settings({{"steps", "10"}}));
  REQUIRE(page);
  while (p.pump()) {
  }
  p.client.run("lm", "normal");
  while (p.pump()) {
  }
  attn::Experiment* worker = p.worker.experiment("lm");
  REQUIRE(worker);
  const attn::json::Value ws = worker->status();
  CHECK(ws.find("error") == nullptr);
  CHECK(ws.find("vocab")->as_number() < 40);  // the stand-in's characters, not the documents' 74
  CHECK(ws.find("steps")->as_number() == 10);
  CAPTURE(p.client.rejected());
  CHECK(p.client.take_failures().empty());
  CHECK(page->status().find("steps")->as_number() == 10);

  // A new worker after a failure is given the text again, before the step.
  std::deque<std::string> sent;
  TrainerClient c([&](std::string msg) { sent.push_back(std::move(msg)); });
  c.provide_text("tang_poems", "床前明月光，疑是地上霜。");
  c.open("lm", "train_lm", settings({{"corpus", "chinese"}}));
  sent.clear();
  c.reopen_all();
  REQUIRE(sent.size() == 2);
  REQUIRE(attn::decode_trainer_message(sent.front(), &back, &why));
  CHECK(back.op == TrainerOp::text);
  CHECK(back.name == "tang_poems");
}

// fuzz_trainer: what the training worker sends the page (lab/trainer.h) is
// hostile until checked. Any bytes, given to the page's end of the protocol,
// never crash it, and a message it refuses changes nothing: the page's copies of
// the experiments hold exactly the state they held before. The same bytes as a
// snapshot's state (Experiment::read_state) too, and as a message to the
// worker's end, which answers what it cannot read with a failure.
#include <memory>

#include "base/bytes.h"
#include "experiments/experiments.h"
#include "experiments/trainer.h"
#include "fuzz/fuzz_util.h"

namespace {
std::string state_of(const attn::Experiment& ex) {
  attn::ByteWriter w;
  ex.write_state(w);
  return w.take();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  // Built once: the page's copies of two small experiments.
  static attn::TrainerClient* client = [] {
    auto* c = new attn::TrainerClient([](std::string) {});
    attn::DemoInputs in;
    in.settings["steps"] = "10";
    c->open("a", "train_hard_attention", in);
    c->open("b", "timing", attn::DemoInputs{});
    return c;
  }();
  const std::string a = state_of(*client->experiment("a")), b = state_of(*client->experiment("b"));
  const long rejected = client->rejected();
  const std::string key = client->receive(bytes);
  if (key.empty()) {
    fuzz::require(state_of(*client->experiment("a")) == a && state_of(*client->experiment("b")) == b,
                  "a message the page does not take changes nothing", bytes);
  } else {
    fuzz::require(key == "a" || key == "b", "a snapshot names an open step", bytes);
  }
  fuzz::require(client->rejected() >= rejected, "the count of refused messages never falls", bytes);

  // The bytes as a state, read by a fresh copy: all or nothing.
  auto fresh = attn::make_experiment("train_hard_attention", attn::DemoInputs{});
  const std::string before = state_of(*fresh);
  attn::ByteReader r(bytes);
  if (!fresh->read_state(r)) fuzz::require(state_of(*fresh) == before, "a state refused leaves the copy as it was", bytes);

  // The worker's end: anything it cannot read is answered, never a crash.
  attn::TrainerWorker worker;
  worker.receive(bytes);
  (void)worker.tick(0.0, 1.0);
  (void)worker.take_outbox();
  return 0;
}

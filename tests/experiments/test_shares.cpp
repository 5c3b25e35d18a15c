// test_shares.cpp: a language model's training step shared among workers
// (experiments/shares.h), in-process: the training worker (the coordinator) and
// its helpers joined by queues, as MessagePorts join them in the page and
// threads natively. The losses and every weight are the same bits for 1, 2, 3
// and 8 workers; a helper's error or its going away costs no bits either; jobs
// and results that are malformed are refused.
#include <doctest/doctest.h>

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "base/bytes.h"
#include "experiments/experiments.h"
#include "experiments/shares.h"
#include "experiments/trainer.h"

namespace {

using attn::DemoInputs;
using attn::ShareHelper;
using attn::TrainerClient;
using attn::TrainerWorker;

DemoInputs lm_settings(int steps) {
  DemoInputs in;
  in.settings = {{"corpus", "chinese"}, {"steps", std::to_string(steps)}};
  return in;
}

// Helpers joined to the worker by queues: post() leaves a job for helper h,
// work() has every helper answer what it was given, in the order given.
struct QueueFarm : attn::ShareFarm {
  std::vector<ShareHelper> helper;
  std::vector<std::deque<std::string>> inbox;
  long jobs = 0;
  explicit QueueFarm(int helpers) : helper(size_t(helpers)), inbox(size_t(helpers)) {}
  int helpers() const override { return int(helper.size()); }
  void post(int h, std::string job) override {
    inbox[size_t(h)].push_back(std::move(job));
    ++jobs;
  }
  std::vector<std::string> work() {
    std::vector<std::string> results;
    for (size_t h = 0; h < helper.size(); ++h)
      for (; !inbox[h].empty(); inbox[h].pop_front()) results.push_back(helper[h].compute(inbox[h].front()));
    return results;
  }
};

// The page, the worker and `helpers` helpers; trains the poems' model for
// `steps` steps at normal speed and returns the worker's experiment's state
// with its times taken out (they differ from run to run): the losses, curves,
// evaluations and every weight.
struct Run {
  std::string state;
  double loss = 0, heldout = 0;
  long jobs = 0;
};
Run train_with(int helpers, int steps) {
  std::deque<std::string> to_worker;
  TrainerWorker worker;
  QueueFarm farm(helpers);
  worker.set_farm(helpers > 0 ? &farm : nullptr);
  TrainerClient client([&](std::string m) { to_worker.push_back(std::move(m)); });
  attn::Experiment* copy = client.open("lm", "train_lm", lm_settings(steps));
  REQUIRE(copy);
  client.run("lm", "normal");
  double now = 0;
  for (int i = 0; i < 100000; ++i) {
    for (; !to_worker.empty(); to_worker.pop_front()) worker.receive(to_worker.front());
    now += 100.0;
    const double wait = worker.tick(now, 1e9);
    for (const std::string& r : farm.work()) CHECK(worker.receive_result(r));
    for (const std::string& m : worker.take_outbox()) client.receive(m);
    if (wait < 0 && !worker.experiment("lm")->waiting()) break;
  }
  attn::Experiment* trained = worker.experiment("lm");
  REQUIRE(trained);
  REQUIRE(trained->done());
  const attn::json::Value s = trained->status();
  const attn::json::Value& run = s.find("runs")->items()[0];
  Run out;
  out.loss = run.find("loss")->as_number();
  out.heldout = run.find("heldoutLoss")->as_number();
  out.jobs = farm.jobs;
  // The weights: every parameter of the page's copy, which read the worker's
  // snapshots (the state's times are the only bytes that differ between runs).
  const attn::DemoOutputs view = copy->view();
  for (const auto& [name, m] : view.mats)
    if (name != "ms_per_step") out.state += name + ":" + std::string(reinterpret_cast<const char*>(m.data()), size_t(m.size()) * 4);
  return out;
}

}  // namespace

TEST_CASE("shares: 1, 2, 3 and 8 workers train the language model to the same bits") {
  const Run one = train_with(0, 12);
  CHECK(one.jobs == 0);
  for (int helpers : {1, 2, 7}) {
    CAPTURE(helpers);
    const Run many = train_with(helpers, 12);
    CHECK(many.jobs >= 12 * helpers);  // every step went out to every helper (a batch of 8 covers 8 workers)
    CHECK(many.loss == one.loss);
    CHECK(many.heldout == one.heldout);
    CHECK(many.state == one.state);
  }
  MESSAGE("poems, 12 steps: loss " << one.loss << ", held-out " << one.heldout);
}

TEST_CASE("shares: a job round-trips, and what is malformed is refused with a reason") {
  attn::ShareJob job;
  job.id = 42;
  job.desc.vocab = 5;
  job.desc.context = 4;
  job.desc.d_model = 8;
  job.desc.heads = 2;
  job.desc.d_ff = 16;
  job.desc.layers = 1;
  attn::train::CharLm model(job.desc);
  for (const attn::train::Param* p : model.params()) job.weights.emplace_back(p->value.data(), p->value.data() + p->value.size());
  job.windows = {{{0, 1, 2, 3, 4}}, {{4, 3, 2, 1, 0}}, {{1, 1, 1, 1, 1}}};
  job.begin = 1;
  job.end = 3;
  const std::string bytes = attn::encode_share_job(job);
  attn::ShareJob back;
  std::string why;
  REQUIRE(attn::decode_share_job(bytes, &back, &why));
  CHECK(back.id == 42);
  CHECK(back.windows.size() == 3);
  CHECK(back.weights == job.weights);
  // A helper computes it; the coordinator reads it back with its own model's size.
  ShareHelper helper;
  const std::string result = helper.compute(bytes);
  uint64_t id = 0;
  REQUIRE(attn::peek_share_result_id(result, &id));
  CHECK(id == 42);
  attn::ShareResult res;
  const size_t size = attn::train::gradient_layout(model.params()).size;
  REQUIRE(attn::decode_share_result(result, size, &res, &why));
  CHECK(res.error.empty());
  CHECK(res.share.begin == 1);
  CHECK(res.share.end == 3);
  CHECK(res.share.losses.size() == 2);
  CHECK_FALSE(attn::decode_share_result(result, size + 1, &res, &why));  // another model's size
  // Truncated anywhere, or with a byte more: refused.
  for (size_t cut : {size_t(0), size_t(3), size_t(11), bytes.size() / 2, bytes.size() - 1})
    CHECK_FALSE(attn::decode_share_job(bytes.substr(0, cut), &back, &why));
  CHECK_FALSE(attn::decode_share_job(bytes + "x", &back, &why));
  // An id outside the vocabulary, and an empty share.
  attn::ShareJob bad = job;
  bad.windows[0].tokens[2] = 5;
  CHECK_FALSE(attn::decode_share_job(attn::encode_share_job(bad), &back, &why));
  CHECK(why.find("vocabulary") != std::string::npos);
  bad = job;
  bad.end = bad.begin;
  CHECK_FALSE(attn::decode_share_job(attn::encode_share_job(bad), &back, &why));
  // Heads that do not divide the width.
  bad = job;
  bad.desc.heads = 3;
  CHECK_FALSE(attn::decode_share_job(attn::encode_share_job(bad), &back, &why));
  // Weights of the wrong shape: the helper answers with an error, not a crash.
  bad = job;
  bad.weights[0].pop_back();
  REQUIRE(attn::decode_share_result(helper.compute(attn::encode_share_job(bad)), size, &res, &why));
  CHECK(res.error.find("do not fit") != std::string::npos);
  // Garbage is answered with an error too.
  REQUIRE(attn::decode_share_result(helper.compute("not a job"), size, &res, &why));
  CHECK(!res.error.empty());
}

TEST_CASE("shares: the decoder's options travel with the job, and a step shared among helpers keeps its bits") {
  attn::train::CharLmDesc desc;
  desc.vocab = 6;
  desc.context = 5;
  desc.d_model = 8;
  desc.heads = 4;
  desc.d_ff = 12;
  desc.layers = 2;
  desc.options.kv_heads = 2;
  desc.options.position = attn::train::PositionKind::rope;
  desc.options.window = 3;
  desc.options.sinks = 1;
  attn::train::CharLm whole(desc), coordinator(desc);
  std::vector<attn::data::TextWindow> windows = {{{0, 1, 2, 3, 4, 5}}, {{5, 4, 3, 2, 1, 0}}, {{1, 3, 1, 3, 1}},
                                                 {{2, 2, 0, 4}}};
  const std::vector<int> batch = {0, 1, 2, 3};
  const float want = whole.forward_backward(windows, batch);
  // Three helpers, each with a share of the batch, answered as bytes.
  std::vector<const attn::data::TextWindow*> ptrs;
  for (const attn::data::TextWindow& w : windows) ptrs.push_back(&w);
  const std::vector<int> bounds = {0, 1, 3, 4};
  std::vector<ShareHelper> helpers(3);
  std::vector<attn::ShareResult> results(3);
  std::vector<attn::train::GradientShare*> shares;
  const size_t size = attn::train::gradient_layout(coordinator.params()).size;
  std::string why;
  for (size_t h = 0; h < 3; ++h) {
    const std::string job = attn::encode_share_job(h + 1, desc, coordinator.params(), ptrs, bounds[h], bounds[h + 1]);
    attn::ShareJob back;
    REQUIRE(attn::decode_share_job(job, &back, &why));
    CHECK(back.desc.options.kv_heads == 2);
    CHECK(back.desc.options.position == attn::train::PositionKind::rope);
    CHECK(back.desc.options.window == 3);
    CHECK(back.desc.options.sinks == 1);
    REQUIRE(attn::decode_share_result(helpers[h].compute(job), size, &results[h], &why));
    REQUIRE(results[h].error.empty());
    shares.push_back(&results[h].share);
  }
  CHECK(coordinator.gather_shares(shares, windows, batch) == want);
  const attn::train::ParamList a = whole.params(), b = coordinator.params();
  for (size_t k = 0; k < a.size(); ++k) CHECK(a[k]->grad == b[k]->grad);
  // Options that do not fit the model are refused before any weight is read.
  for (int edit = 0; edit < 3; ++edit) {
    attn::train::CharLmDesc bad = desc;
    if (edit == 0) bad.options.kv_heads = 3;
    if (edit == 1) bad.options.sinks = 4;
    if (edit == 2) bad.options.position = attn::train::PositionKind(9);
    attn::ShareJob job;
    CHECK_FALSE(attn::decode_share_job(attn::encode_share_job(9, bad, coordinator.params(), ptrs, 0, 4), &job, &why));
    CHECK(why.find("options") != std::string::npos);
  }
}

TEST_CASE("shares: a helper that fails, or goes away mid-step, costs no bits") {
  const Run one = train_with(0, 6);
  // A helper that answers every job with an error: the worker computes those shares itself.
  {
    std::deque<std::string> to_worker;
    TrainerWorker worker;
    QueueFarm farm(2);
    worker.set_farm(&farm);
    TrainerClient client([&](std::string m) { to_worker.push_back(std::move(m)); });
    attn::Experiment* copy = client.open("lm", "train_lm", lm_settings(6));
    client.run("lm", "normal");
    int recalled = 0;
    for (int i = 0; i < 10000; ++i) {
      for (; !to_worker.empty(); to_worker.pop_front()) worker.receive(to_worker.front());
      const double wait = worker.tick(100.0 * i, 1e9);
      // Helper 0 fails every job; helper 1's first job is never answered: the
      // helpers go away (set_farm) while it is out.
      for (std::string& job : farm.inbox[0]) {
        attn::ShareJob j;
        std::string why;
        REQUIRE(attn::decode_share_job(job, &j, &why));
        CHECK(worker.receive_result(attn::encode_share_error(j.id, "out of memory")));
      }
      farm.inbox[0].clear();
      if (!farm.inbox[1].empty() && recalled == 0) {
        worker.set_farm(nullptr);  // the pool shrank: the share out is computed by the worker
        farm.inbox[1].clear();
        ++recalled;
      }
      for (const std::string& m : worker.take_outbox()) client.receive(m);
      if (wait < 0 && !worker.experiment("lm")->waiting()) break;
    }
    CHECK(recalled == 1);
    REQUIRE(worker.experiment("lm")->done());
    const attn::json::Value s = worker.experiment("lm")->status();
    CHECK(s.find("runs")->items()[0].find("loss")->as_number() == one.loss);
    CHECK(s.find("runs")->items()[0].find("heldoutLoss")->as_number() == one.heldout);
    (void)copy;
  }
}

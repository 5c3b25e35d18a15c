// trainer_worker.cpp: see trainer_worker.h.
#include "app/trainer_worker.h"

#include <functional>
#include <memory>
#include <utility>

#include "experiments/shares.h"
#include "experiments/trainer.h"

namespace {
// The training worker's helpers as the transport sees them: a count, and the
// jobs for them: sent at once when the transport gave a way, else queued until
// it takes them.
struct JobQueue : attn::ShareFarm {
  int count = 0;
  std::vector<std::pair<int, std::string>> jobs;
  std::function<void(int, std::string)> send;
  int helpers() const override { return count; }
  void post(int helper, std::string job) override {
    if (send) send(helper, std::move(job));
    else jobs.emplace_back(helper, std::move(job));
  }
};

struct WorkerState {
  attn::TrainerWorker worker;
  JobQueue helpers;
  attn::ShareHelper helper;  // when this module is a helper
};
}  // namespace

platform::TrainerWorkerFns lab_trainer_worker() {
  auto s = std::make_shared<WorkerState>();
  platform::TrainerWorkerFns fns;
  fns.receive = [s](std::string_view m) { s->worker.receive(m); };
  fns.tick = [s](double now) { return s->worker.tick(now); };
  fns.take_outbox = [s] { return s->worker.take_outbox(); };
  fns.set_helpers = [s](int n) {
    s->helpers.jobs.clear();  // jobs for the old helpers never leave
    s->helpers.count = n > 0 ? n : 0;
    s->worker.set_farm(n > 0 ? &s->helpers : nullptr);  // the shares out are done here first
  };
  fns.take_jobs = [s] { return std::exchange(s->helpers.jobs, {}); };
  fns.set_job_sender = [s](std::function<void(int, std::string)> send) { s->helpers.send = std::move(send); };
  fns.receive_result = [s](std::string_view r) { s->worker.receive_result(r); };
  fns.compute_job = [s](std::string_view job) { return s->helper.compute(job); };
  return fns;
}
